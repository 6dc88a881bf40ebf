"""Ignore files with git's semantics: anchoring, negation, directories, precedence, git trees.

The last test compares the selection with what git itself leaves untracked-and-not-ignored
for random trees and ignore files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import Selection, select_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readmany.select.candidates import REASON_IGNORED
from readmany.select.ignore import IgnoreMatcher, IgnoreSource, find_git_top, parse_rules
from readmany.select.walk import SelectRequest


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return root


def select(root: Path, *patterns: str, **options: object) -> Selection:
    if not patterns and "literal_paths" not in options:
        patterns = ("**",)
    request = SelectRequest(root=str(root), patterns=patterns, **options)  # type: ignore[arg-type]
    return select_files(request)


def kept(root: Path, *patterns: str, **options: object) -> list[str]:
    return [c.rel for c in select(root, *patterns, **options).candidates]


def ignored(root: Path, *patterns: str, **options: object) -> list[str]:
    return [s.rel for s in select(root, *patterns, **options).skipped if s.reason == REASON_IGNORED]


def decide(lines: list[str], path: str, is_dir: bool = False) -> bool | None:
    return IgnoreSource(parse_rules(lines)).decide(path, is_dir)


# --- one ignore file ---


def test_comments_blank_lines_and_trailing_spaces() -> None:
    rules = parse_rules(["# comment", "", "   ", "*.log   ", "\\#hash", "a\\ "])
    assert [r.text for r in rules] == ["*.log", "\\#hash", "a\\ "]
    assert decide(["*.log  "], "x.log") is True
    assert decide(["\\#hash"], "#hash") is True
    assert decide(["a\\ "], "a ") is True


def test_a_pattern_without_slash_matches_at_any_depth() -> None:
    assert decide(["*.log"], "a.log") is True
    assert decide(["*.log"], "deep/down/a.log") is True
    assert decide(["build"], "x/build", is_dir=True) is True


def test_a_slash_anchors_to_the_file_directory() -> None:
    assert decide(["/a.txt"], "a.txt") is True
    assert decide(["/a.txt"], "sub/a.txt") is None
    assert decide(["doc/frotz"], "doc/frotz") is True
    assert decide(["doc/frotz"], "x/doc/frotz") is None


def test_a_trailing_slash_matches_directories_only() -> None:
    assert decide(["build/"], "build", is_dir=True) is True
    assert decide(["build/"], "build", is_dir=False) is None
    assert decide(["build/"], "a/build", is_dir=True) is True


def test_last_matching_pattern_wins_and_negation_reincludes() -> None:
    assert decide(["*.log", "!keep.log"], "keep.log") is False
    assert decide(["*.log", "!keep.log"], "a.log") is True
    assert decide(["!keep.log", "*.log"], "keep.log") is True


def test_globstar_forms() -> None:
    assert decide(["**/foo"], "foo") is True
    assert decide(["**/foo"], "a/b/foo") is True
    assert decide(["a/**/b"], "a/b") is True
    assert decide(["a/**/b"], "a/x/y/b") is True
    assert decide(["abc/**"], "abc/x/y") is True
    assert decide(["abc/**"], "abc", is_dir=True) is None


def test_a_pattern_matches_the_path_itself_not_its_parents() -> None:
    # A walk has judged the parents already; `foo` must not match `foo/bar` again.
    assert decide(["foo"], "foo/bar") is None
    assert decide(["/*"], "src/a.py") is None
    assert decide(["*", "!*/"], "a", is_dir=True) is False
    assert decide(["*", "!*/"], "a/b.md") is True


# --- the stack of ignore files in a git tree ---


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_tree(
        tmp_path / "repo",
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            ".git/info/exclude": "excluded_by_info.txt\n",
            ".gitignore": "# comment\n*.log\nignored_dir/\nsecret.txt\n",
            "excluded_by_info.txt": "x",
            "app.log": "l",
            "ignored_dir/x.txt": "x",
            "secret.txt": "s",
            "keep.txt": "k",
            "sub/.gitignore": "local_only.txt\n/anchored.txt\n",
            "sub/local_only.txt": "x",
            "sub/anchored.txt": "x",
            "sub/deeper/local_only.txt": "x",
            "sub/deeper/anchored.txt": "x",
            "sub/keep.txt": "x",
        },
    )


def test_nested_gitignore_is_anchored_at_its_own_directory(repo: Path) -> None:
    assert kept(repo, "sub/**") == ["sub/.gitignore", "sub/deeper/anchored.txt", "sub/keep.txt"]
    assert ignored(repo, "sub/**") == [
        "sub/anchored.txt",
        "sub/deeper/local_only.txt",
        "sub/local_only.txt",
    ]


def test_root_gitignore_and_info_exclude(repo: Path) -> None:
    assert kept(repo, "*") == [".gitignore", "keep.txt"]
    assert ignored(repo, "*") == ["app.log", "excluded_by_info.txt", "secret.txt"]


def test_an_ignored_directory_is_pruned_and_cannot_be_reopened(repo: Path) -> None:
    (repo / "ignored_dir" / ".gitignore").write_text("!x.txt\n")
    (repo / ".readmanyignore").write_text("!ignored_dir/x.txt\n")
    assert ignored(repo, "ignored_dir/*") == ["ignored_dir/"]
    assert ignored(repo, literal_paths=("ignored_dir/x.txt",)) == ["ignored_dir/x.txt"]


def test_a_deeper_gitignore_overrides_a_shallower_one(repo: Path) -> None:
    (repo / "sub" / "important.log").write_text("x")
    (repo / "sub" / ".gitignore").write_text("!important.log\n")
    assert kept(repo, "sub/*.log") == ["sub/important.log"]


def test_readmanyignore_is_last_and_can_reinclude(repo: Path) -> None:
    (repo / ".readmanyignore").write_text("keep.txt\n!secret.txt\n")
    assert kept(repo, "*.txt") == ["secret.txt"]
    assert ignored(repo, "*.txt") == ["excluded_by_info.txt", "keep.txt"]


def test_extra_ignore_files_in_order(repo: Path) -> None:
    (repo / ".first").write_text("keep.txt\n")
    (repo / ".second").write_text("!keep.txt\n")
    assert kept(repo, "keep.txt", ignore_files=(".first",)) == []
    assert kept(repo, "keep.txt", ignore_files=(".first", ".second")) == ["keep.txt"]
    assert kept(repo, "keep.txt", ignore_files=(".missing",)) == ["keep.txt"]


def test_no_gitignore_keeps_readmanyignore(repo: Path) -> None:
    (repo / ".readmanyignore").write_text("keep.txt\n")
    assert kept(repo, "*", use_gitignore=False) == [
        ".gitignore",
        ".readmanyignore",
        "app.log",
        "excluded_by_info.txt",
        "secret.txt",
    ]


def test_the_git_directory_is_always_ignored_in_a_git_tree(repo: Path) -> None:
    selection = select(repo, ".git/*", use_default_excludes=False)
    assert [(s.rel, s.reason) for s in selection.skipped] == [(".git/", REASON_IGNORED)]


def test_outside_a_git_tree_gitignore_is_not_honoured(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path / "nogit",
        {".gitignore": "*.log\n", "app.log": "a", ".readmanyignore": "private/\n", "private/n": ""},
    )
    assert find_git_top(str(root)) is None
    assert kept(root) == [".gitignore", ".readmanyignore", "app.log"]
    assert ignored(root) == ["private/"]


def test_a_git_file_marks_a_work_tree_and_points_at_its_git_dir(tmp_path: Path) -> None:
    make_tree(tmp_path / "store/wt/info", {"exclude": "from_info.txt\n"})
    root = make_tree(tmp_path / "wt", {"from_info.txt": "", "a.txt": ""})
    (root / ".git").write_text(f"gitdir: {tmp_path / 'store' / 'wt'}\n")
    assert find_git_top(str(root)) == str(root)
    assert kept(root) == ["a.txt"]


def test_gitignore_files_above_the_root_apply_as_in_git(repo: Path) -> None:
    (repo / ".gitignore").write_text("sub/keep.txt\n*.log\n")
    (repo / "sub" / "x.log").write_text("")
    matcher = IgnoreMatcher(str(repo / "sub"))
    assert matcher.git_top == str(repo)
    assert kept(repo / "sub", "*") == [".gitignore"]
    assert ignored(repo / "sub", "*") == ["anchored.txt", "keep.txt", "local_only.txt", "x.log"]
    assert kept(repo / "sub", "deeper/*") == ["deeper/anchored.txt"]


def test_whitelist_idiom(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {".git/HEAD": "", ".gitignore": "/*\n!/src/\n!.gitignore\n", "a.txt": "", "src/b/c.py": ""},
    )
    assert kept(root) == [".gitignore", "src/b/c.py"]


def test_a_symlinked_gitignore_is_not_followed(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {".git/HEAD": "", "rules": "*.txt\n", "a.txt": ""})
    os.symlink("rules", root / ".gitignore")
    assert kept(root, "*.txt") == ["a.txt"]


def test_ignore_rules_are_case_sensitive_as_in_git(repo: Path) -> None:
    (repo / "APP.LOG").write_text("")
    assert kept(repo, "*.log") == ["APP.LOG"]


# --- against git itself ---

NAMES = ["a", "b.log", "c.txt", "build", "Keep.txt", ".hid", "#x", "!y", "s*t", "d e", "[x]"]
PATTERNS = [
    "\\#x",
    "\\!y",
    "s\\*t",
    "s*t",
    "[[]x]",
    "\\[x\\]",
    "[!ab]*",
    "[a-c]*.txt",
    "d\\ e",
    "d e ",
    "d e\\ ",
    "#x",
    "**/a",
    "a/**/",
    "/*/",
    "!/a/**",
    "*.log",
    "!b.log",
    "build/",
    "build",
    "/a",
    "a/",
    "!a/c.txt",
    "a/*",
    "!a/b.log",
    "**/c.txt",
    "a/**/b.log",
    "*",
    "!*/",
    "!*.txt",
    "c*",
    "/build/",
    "!build",
    "*.txt",
    "!Keep.txt",
    "**/a/**",
    ".hid",
    "a/build/",
    "?.txt",
    "[ab]*",
    "!**/build/**",
]

files_strategy = st.lists(
    st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map("/".join),
    min_size=1,
    max_size=12,
)
ignore_strategy = st.dictionaries(
    st.sampled_from(["", "a", "build", "a/build", ".git/info"]),
    st.lists(st.sampled_from(PATTERNS), max_size=5),
    max_size=3,
)


def write_random_tree(root: Path, files: list[str], ignores: dict[str, list[str]]) -> None:
    directories = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    for rel in files:
        if rel not in directories:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("x")
    for directory, lines in ignores.items():
        if directory == ".git/info":
            path = root / ".git" / "info" / "exclude"
        elif directory and any(
            "/".join(directory.split("/")[:i]) in files
            and "/".join(directory.split("/")[:i]) not in directories
            for i in range(1, directory.count("/") + 2)
        ):
            continue  # a file stands where the directory would be
        else:
            path = root / directory / ".gitignore"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")


def git_untracked(root: Path) -> list[str]:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", "ls-files", "--others", "--cached", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        check=True,
        env=env,
    )
    return sorted(p for p in done.stdout.decode().split("\0") if p)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to compare with")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=files_strategy, ignores=ignore_strategy)
def test_agrees_with_git(
    tmp_path_factory: pytest.TempPathFactory, files: list[str], ignores: dict[str, list[str]]
) -> None:
    root = tmp_path_factory.mktemp("git")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    write_random_tree(root, files, ignores)
    ours = sorted(kept(root, use_default_excludes=False))
    assert ours == git_untracked(root)


def test_a_byte_order_mark_and_crlf_line_ends_are_read_as_git_does(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {".git/HEAD": "", "a.log": "", "b.txt": "", "c.md": ""})
    (root / ".gitignore").write_bytes(b"\xef\xbb\xbf*.log\r\nb.txt\r\n")
    assert kept(root, "*.*") == [".gitignore", "c.md"]
