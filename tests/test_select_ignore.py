"""Ignore files with git's semantics: anchoring, negation, directories, precedence, git trees.

The last test compares the selection with what git itself leaves untracked-and-not-ignored
for random trees and ignore files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from unittest import mock

import pytest
from helpers import Selection, run_readmany, scaled, select_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readmany.select.boundary import blocked, is_secret_name
from readmany.select.candidates import REASON_IGNORED
from readmany.select.ignore import (
    MAX_GLOB_PATTERNS,
    MAX_IGNORE_FILE_BYTES,
    REASON_TOO_LARGE,
    REASON_TOO_MANY_GLOBS,
    IgnoreFileProblem,
    IgnoreMatcher,
    IgnoreSource,
    find_git_top,
    parse_rules,
)
from readmany.select.smallfile import REASON_NOT_REGULAR
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


# --- each kind of pattern, as git's dir.c sorts them ---


def test_literal_names_and_paths() -> None:
    assert decide(["Thumbs.db"], "deep/Thumbs.db") is True
    assert decide(["Thumbs.db"], "Thumbs.dbx") is None
    assert decide(["docs/_build"], "docs/_build", is_dir=True) is True
    assert decide(["docs/_build"], "x/docs/_build", is_dir=True) is None
    assert decide(["/site"], "site") is True
    assert decide(["/site"], "a/site") is None
    assert decide(["//site"], "site") is None  # git strips one `/`: the rest never matches
    assert decide(["\\#x", "a\\ b"], "#x") is True  # escapes only: still a literal
    assert decide(["a\\ b"], "a b") is True


def test_suffixes() -> None:
    rules = ["*.log", "*.tar.gz", "*~", "*$py.class", "*.py.cover"]
    for path in ["a.log", "x/.log", "a.tar.gz", "x~", "m$py.class", "t.py.cover"]:
        assert decide(rules, path) is True, path
    for path in ["a.logx", "a.gz", "a.tar", "tar.gz.x", "mpy.class", "t.cover"]:
        assert decide(rules, path) is None, path
    assert decide(["*"], "anything.at.all") is True
    assert decide(["*.log", "*.o"], "many.dots.in.name.o") is True


def test_prefixes_and_globs_with_a_literal_start() -> None:
    rules = ["npm-debug.log*", ".env.*", "report.[0-9]*.[0-9]*.json"]
    assert decide(rules, "npm-debug.log") is True
    assert decide(rules, "npm-debug.log.123") is True
    assert decide(rules, ".env.local") is True
    assert decide(rules, ".env") is None
    assert decide(rules, "report.20.1.json") is True
    assert decide(rules, "report.x.1.json") is None


def test_globs() -> None:
    rules = ["*.py[cod]", "[Dd]ebug/", "*.i*86", "*_flymake.*", "?.txt", "\\#*\\#"]
    for path, is_dir in [
        ("m.pyc", False),
        ("Debug", True),
        ("debug", True),
        ("core.i386", False),
        ("x.i.86", False),
        ("a_flymake.el", False),
        ("b.txt", False),
        ("#notes#", False),
    ]:
        assert decide(rules, path, is_dir) is True, path
    for path, is_dir in [
        ("m.pyx", False),
        ("Debug", False),
        ("core.i38", False),
        ("ab.txt", False),
        ("#notes", False),
    ]:
        assert decide(rules, path, is_dir) is None, path


def test_hostile_globs_take_linear_time() -> None:
    # As expressions these backtrack for hours on such names; git stops early, and so
    # must readmany (a hang here is the failure).
    stars = "*a" * 14 + "*b"
    name = "a" * 300
    assert decide([stars], name) is None
    assert decide([stars], name + "b") is True
    assert decide([f"x/{stars}/**/c"], f"x/{name}/y/{name}/c") is None
    deep = "x/**/" + "a*" * 12 + "/**/c"
    assert decide([deep], f"x/{'a/' * 60}c") is None
    assert decide([deep], f"x/{'a/' * 30}{'a' * 12}/{'a/' * 30}c") is True


def test_patterns_with_a_directory_part() -> None:
    rules = ["src/*.o", "**/node_modules/", "a/**/b.log", "*/c.txt", "lib/**"]
    for path, is_dir in [
        ("src/x.o", False),
        ("node_modules", True),
        ("deep/down/node_modules", True),
        ("a/b.log", False),
        ("a/x/y/b.log", False),
        ("x/c.txt", False),
        ("lib/x", False),
        ("lib/x/y/z", False),
    ]:
        assert decide(rules, path, is_dir) is True, path
    for path, is_dir in [
        ("x/src/x.o", False),
        ("src/a/x.o", False),
        ("node_modules", False),
        ("b/a/b.log", False),
        ("c.txt", False),
        ("x/y/c.txt", False),
        ("lib", True),
    ]:
        assert decide(rules, path, is_dir) is None, path


def test_git_reads_a_double_star_after_a_literal_start_as_spanning_directories() -> None:
    # git hands `wildmatch` only the part after the literal prefix, where `**` starts it.
    assert decide(["/foo**/bar"], "foo/x/y/bar") is True
    assert decide(["/foo**/bar"], "foobar") is True
    assert decide(["/x/foo**"], "x/foo/deep/down") is True
    assert decide(["x/a**b"], "x/a/b") is None  # not at the start: a `*`


def test_character_classes() -> None:
    # A reversed range adds nothing to its first character (which git checks before it
    # sees the `-`); the other members still count.
    assert decide(["[z-ax]"], "x") is True
    assert decide(["[z-ax]"], "b") is None
    assert decide(["[z-a]"], "z") is True
    assert decide(["[z-a]"], "q") is None
    assert decide(["[!z-a]"], "q") is True
    assert decide(["[]a]"], "]") is True
    assert decide(["[\\]]"], "]") is True
    assert decide(["[\\]]"], "\\]") is None
    assert decide(["[a-]"], "-") is True
    assert decide(["[[:digit:]x]"], "7") is True
    assert decide(["[[:digit:]x]"], "x") is True
    assert decide(["[[:alpha:]]"], "é") is None  # ASCII classes, as git's ctype
    assert decide(["[[:space:]]x"], "\tx") is True
    assert decide(["[[:bogus:]]"], "b") is None  # git gives up on the pattern
    assert decide(["[[:a]"], ":") is True  # no `:]`: an ordinary `[`
    assert decide(["a[!x]b", "c[^x]d"], "a/b") is None  # never `/`
    assert decide(["[a", "x\\"], "[a") is None  # unclosed, trailing `\\`: match nothing


def test_trailing_spaces_as_git_trims_them() -> None:
    assert [r.text for r in parse_rules(["a\\  ", "b\\\\ ", "c  "])] == ["a\\ ", "b\\\\", "c"]
    assert decide(["a\\  "], "a ") is True
    assert decide(["b\\\\ "], "b\\") is True


def test_the_last_matching_rule_decides_across_kinds() -> None:
    rules = ["*.log", "build/", "!keep.log", "keep*", "!keep.l?g", "**/x/*.log", "!x/y.log"]
    assert decide(rules, "keep.log") is False  # `!keep.l?g` is after `keep*`
    assert decide(rules, "keep.txt") is True
    assert decide(rules, "x/z.log") is True
    assert decide(rules, "x/y.log") is False
    assert decide(rules, "build", is_dir=True) is True
    assert decide(["!*.log", "*"], "a.log") is True
    assert decide(["*", "!a.log"], "a.log") is False


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


# --- ignore files that are not plain, small files ---


@pytest.mark.parametrize("kind", ["fifo", "symlink", "directory"])
def test_an_ignore_file_that_is_not_a_regular_file_is_skipped_unopened(
    tmp_path: Path, kind: str
) -> None:
    root = make_tree(tmp_path / "repo", {".git/HEAD": "", "a.log": "", "sub/b.log": ""})
    (root / "sub" / ".gitignore").write_text("*.log\n")
    target = root / ".gitignore"
    if kind == "fifo":
        os.mkfifo(target)  # opening it for reading would wait for a writer
    elif kind == "symlink":
        target.symlink_to("sub/.gitignore")
    else:
        target.mkdir()
    matcher = IgnoreMatcher(str(root))
    matcher.note_directory("", True)
    assert not matcher.is_ignored("a.log", False)
    assert matcher.is_ignored("sub/b.log", False)
    assert matcher.problems == [IgnoreFileProblem(str(target), REASON_NOT_REGULAR)]


def test_an_ignore_file_over_the_size_limit_is_skipped_and_reported(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "repo", {".git/HEAD": "", "a.log": "", "b.txt": ""})
    (root / ".gitignore").write_text("*.log\n" + "#" * MAX_IGNORE_FILE_BYTES)
    (root / ".readmanyignore").write_text("b.txt\n")
    matcher = IgnoreMatcher(str(root))
    assert not matcher.is_ignored("a.log", False)  # as git skips a file over its limit
    assert matcher.is_ignored("b.txt", False)
    assert matcher.problems == [IgnoreFileProblem(str(root / ".gitignore"), REASON_TOO_LARGE)]
    (root / ".gitignore").write_text("*.log\n" + "#" * (MAX_IGNORE_FILE_BYTES - 7))
    assert IgnoreMatcher(str(root)).is_ignored("a.log", False)  # at the limit: read


def test_an_ignore_file_with_too_many_globs_is_skipped_and_reported(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "repo", {".git/HEAD": "", "a.log": "", "b7.txt": ""})
    globs = [f"[ab]{i}*" for i in range(MAX_GLOB_PATTERNS)]
    # Any number of patterns that tables answer is fine: literal names, suffixes.
    literal = [f"name{i}" for i in range(20_000)] + [f"*.x{i}" for i in range(20_000)]
    (root / ".gitignore").write_text("\n".join(["*.log", *literal, *globs]) + "\n")
    assert IgnoreMatcher(str(root)).is_ignored("b7.txt", False)
    assert IgnoreMatcher(str(root)).problems == []
    (root / ".gitignore").write_text("\n".join(["*.log", *globs, "c*[0-9]"]) + "\n")
    matcher = IgnoreMatcher(str(root))
    assert not matcher.is_ignored("a.log", False)
    assert matcher.problems == [IgnoreFileProblem(str(root / ".gitignore"), REASON_TOO_MANY_GLOBS)]


def test_a_git_file_that_is_a_fifo_does_not_hang(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "wt", {"a.txt": "", ".gitignore": "*.txt\n"})
    os.mkfifo(root / ".git")
    assert find_git_top(str(root)) == str(root)
    assert kept(root) == [".gitignore"]


def test_glob_with_a_fifo_for_gitignore_finishes(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "repo", {".git/HEAD": "", "a.txt": "a\n"})
    os.mkfifo(root / ".gitignore")
    done = run_readmany(["glob", "*.txt", "--json"], cwd=root, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["details"]["files"] == ["a.txt"]


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
# "~global": the user's global excludes file (core.excludesFile), below .git/info/exclude.
ignore_strategy = st.dictionaries(
    st.sampled_from(["", "a", "build", "a/build", ".git/info", "~global"]),
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
        if directory == "~global":
            path = root.parent / f"{root.name}-global-ignore"
            config = root.parent / f"{root.name}.gitconfig"
            config.write_text(f'[core]\n\texcludesFile = "{path}"\n')
        elif directory == ".git/info":
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


def refused_by_boundary(rel: str) -> bool:
    return blocked(rel.split("/")) or is_secret_name(rel) is not None


def git_variables(root: Path) -> dict[str, str]:
    """The configuration git and readmany read for a test tree: no system file, and the
    tree's own global file (its core.excludesFile, see write_random_tree), else none."""
    config = root.parent / f"{root.name}.gitconfig"
    return {
        "GIT_CONFIG_GLOBAL": str(config) if config.exists() else os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def git_env(root: Path) -> dict[str, str]:
    return {**os.environ, **git_variables(root)}


def git_untracked(root: Path) -> list[str]:
    env = git_env(root)
    done = subprocess.run(
        ["git", "ls-files", "--others", "--cached", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        check=True,
        env=env,
    )
    return sorted(p for p in done.stdout.decode().split("\0") if p)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to compare with")
@settings(max_examples=scaled(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=files_strategy, ignores=ignore_strategy)
def test_agrees_with_git(
    tmp_path_factory: pytest.TempPathFactory, files: list[str], ignores: dict[str, list[str]]
) -> None:
    root = tmp_path_factory.mktemp("git")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    write_random_tree(root, files, ignores)
    with mock.patch.dict(os.environ, git_variables(root)):
        ours = sorted(kept(root, use_default_excludes=False))
    assert ours == [p for p in git_untracked(root) if not refused_by_boundary(p)]


def test_a_byte_order_mark_and_crlf_line_ends_are_read_as_git_does(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {".git/HEAD": "", "a.log": "", "b.txt": "", "c.md": ""})
    (root / ".gitignore").write_bytes(b"\xef\xbb\xbf*.log\r\nb.txt\r\n")
    assert kept(root, "*.*") == [".gitignore", "c.md"]


# --- large rule sets of every kind, against git ---

# Names a tree is made of, chosen so that the patterns below hit them.
BIG_NAMES = [
    "a", "b.log", "keep.log", "c.txt", "build", "Debug", "debug", "node_modules", "m.pyc",
    "m.pyo", "z.py", "npm-debug.log.1", ".env", ".env.local", ".env.prod.local",
    "report.1.2.3.4.json", "core.i386", "x~", "#x#", ".#x", "_build", "docs", "lib", "src",
    "t.o", "a.tar.gz", ".DS_Store", "out", "[x]", "!y", "a b", "fixture.out", ".cache",
    ".s.swp", "s.swo", "x.i686", "foo", "foobar", "Q", "7", "a-z",
]  # fmt: skip
BIG_PATTERNS = [
    # literal names and paths
    "a", "build", ".DS_Store", "out", "foo", "Q", "/out", "/lib/", "docs/_build", "src/lib/",
    "!src/lib/keep.log", "/src/t.o", "a/b.log", "\\[x\\]", "[[]x]", "\\!y", "a\\ b", "a b  ",
    # suffixes and prefixes
    "*.log", "*.tar.gz", "*~", "*.o", "*", "*.txt", "npm-debug.log*", ".env.*", "foo*",
    # globs
    "*.py[cod]", "*.py[!c]", ".env.*.local", "report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json",
    "*.i*86", "\\#*\\#", ".\\#*", "[._]*.sw[a-p]", "?.txt", "[a-c]*.txt", "[z-ax]*", "[z-a]",
    "[[:alpha:]].log", "[[:digit:]]", "[[:upper:]]", "[!a]*", "[Dd]ebug/", "[\\]x]", "*a*b*",
    # directories, anchors and `**`
    "build/", "/build/", "**/node_modules/", "**/build", "src/**/build/", "lib/**", "a/**/b.log",
    "**/a/**", "*/c.txt", "src/*.o", "/*/", "**/", "a**/b.log", "/foo**", "**/docs/**/*.txt",
    "*/*/", "/a/*/", "docs/**", "**/.cache/*",
    # negations
    "!keep.log", "!*.log", "![Dd]ebug/", "!build/", "!/build", "!src/", "!**/a", "!*.txt",
    "!fixture.out", "!/src/fixture.out", "!.env.local", "!x~", "!*/", "!lib/",
]  # fmt: skip
DIR_NAMES = ["a", "src", "lib", "build", "docs", "Debug", "node_modules", "_build", "out", "x"]

big_files = st.lists(
    st.tuples(st.lists(st.sampled_from(DIR_NAMES), max_size=3), st.sampled_from(BIG_NAMES)).map(
        lambda parts: "/".join([*parts[0], parts[1]])
    ),
    min_size=5,
    max_size=60,
)
big_ignores = st.fixed_dictionaries(
    {"": st.lists(st.sampled_from(BIG_PATTERNS), min_size=300, max_size=400)},
    optional={
        "src": st.lists(st.sampled_from(BIG_PATTERNS), max_size=40),
        "a/b": st.lists(st.sampled_from(BIG_PATTERNS), max_size=40),
        "docs": st.lists(st.sampled_from(BIG_PATTERNS), max_size=40),
        ".git/info": st.lists(st.sampled_from(BIG_PATTERNS), max_size=20),
        "~global": st.lists(st.sampled_from(BIG_PATTERNS), max_size=20),
    },
)


def git_ignored(root: Path) -> list[str]:
    """The files git lists as untracked and ignored (`git ls-files -oi --exclude-standard`)."""
    env = git_env(root)
    done = subprocess.run(
        ["git", "ls-files", "--others", "--ignored", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        check=True,
        env=env,
    )
    return sorted(p for p in done.stdout.decode().split("\0") if p)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to compare with")
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(files=big_files, ignores=big_ignores)
def test_hundreds_of_patterns_agree_with_git(
    tmp_path_factory: pytest.TempPathFactory, files: list[str], ignores: dict[str, list[str]]
) -> None:
    root = tmp_path_factory.mktemp("git")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    write_random_tree(root, files, ignores)
    # git lists what the boundary refuses (node_modules, secret files): leave those out.
    listed = [p for p in git_untracked(root) if not refused_by_boundary(p)]
    with mock.patch.dict(os.environ, git_variables(root)):
        assert sorted(kept(root, use_default_excludes=False)) == listed
        matcher = IgnoreMatcher(str(root))
    written = sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts
    )
    assert [p for p in written if matcher.is_path_ignored(p, False)] == git_ignored(root)


# --- any pattern git can read, against `git check-ignore` ---

PIECES = [
    "a", "b", "foo", "x", ".log", "*", "**", "?", "/", "[ab]", "[!a]", "[a-c]", "[z-ax]",
    "[[:alpha:]]", "[[:digit:]]", "[\\]]", "[]a]", "\\*", "\\!", "[a-]", "[-a]", "[^x]",
    "[[:x:]]", "[!]", "[", "\\", "[[:a]", "[x-]", "[!-]", " ", "\\ ", "#", "Debug", "[Dd]ebug",
]  # fmt: skip
ODD_NAMES = [
    "a", "b", "ab", "a.b", "x.log", ".hid", "[x]", "a b", "#x", "!y", "foo", "fooX", "foobar",
    "build", "Debug", "aaa", "a-z", "]", "-", "a]", "x1", "9", "A", "a*", "b\\c",
]  # fmt: skip


@st.composite
def odd_patterns(draw: st.DrawFn) -> str:
    pattern = "".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=5)))
    for prefix in ("**/", "/", "!"):
        if draw(st.booleans()):
            pattern = prefix + pattern
    return pattern + ("/" if draw(st.booleans()) else "")


odd_trees = st.lists(
    st.lists(st.sampled_from(ODD_NAMES), min_size=1, max_size=4).map("/".join),
    min_size=3,
    max_size=25,
)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to compare with")
@settings(max_examples=scaled(200), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    files=odd_trees,
    ignores=st.dictionaries(
        st.sampled_from(["", "a", "foo/b", ".git/info", "~global"]),
        st.lists(odd_patterns(), min_size=5, max_size=40),
        min_size=1,
        max_size=3,
    ),
)
def test_odd_patterns_agree_with_git_check_ignore(
    tmp_path_factory: pytest.TempPathFactory, files: list[str], ignores: dict[str, list[str]]
) -> None:
    root = tmp_path_factory.mktemp("git")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    write_random_tree(root, files, ignores)
    directories = sorted(
        {str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts}
    )
    regular = sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts
    )
    paths = [*directories, *regular]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin", "-z", "-v", "-n"],
        cwd=root,
        input="".join(p + "\0" for p in paths).encode(),
        capture_output=True,
        env=git_env(root),
        check=False,
    )
    fields = done.stdout.decode().split("\0")
    # source, line, pattern, path: a pattern that does not start with `!` ignores
    theirs = {
        fields[i + 3]: bool(fields[i + 2]) and not fields[i + 2].startswith("!")
        for i in range(0, len(fields) - 1, 4)
    }
    with mock.patch.dict(os.environ, git_variables(root)):
        matcher = IgnoreMatcher(str(root))
    ours = {p: matcher.is_path_ignored(p, p in directories) for p in paths}
    assert ours == theirs


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to compare with")
def test_patterns_sharing_a_directory_glob_agree_with_git(tmp_path: Path) -> None:
    # Rules whose directory parts are the same glob (`**/test/fixtures/**/`) are matched
    # once a directory, and the directories where the same path patterns apply share
    # their tables: here more distinct sets than a source keeps (each `dNN/` has a rule
    # of its own), so kept tables are dropped and made again on the way.
    rules = [
        "node_modules",
        "!**/test/fixtures/**/node_modules",
        "**/test/fixtures/**/actual.js",
        "**/test/fixtures/**/*.tmp",
        "!**/test/fixtures/**/k*.tmp",
        "packages/**/test/fixtures/**/output.map.json",
        "!packages/**/test/fixtures/**/keep/",
        "**/tmp-[0-9]*/",
        *(f"d{n:02d}/test/fixtures/c/only{n % 3}.js" for n in range(80)),
    ]
    files = []
    for n in range(80):
        for top in (f"d{n:02d}", f"packages/p{n % 5}"):
            case = f"{top}/test/fixtures/c"
            files += [f"{case}/{name}" for name in ("actual.js", "a.tmp", "k.tmp", "only0.js")]
            files += [f"{case}/only1.js", f"{case}/output.map.json", f"{case}/keep/actual.js"]
            files += [f"{case}/node_modules/m/index.js", f"{top}/node_modules/m/index.js"]
            files += [f"{top}/tmp-{n}/x.js", f"{top}/tmp-x/y.js"]
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    write_random_tree(tmp_path, sorted(set(files)), {"": rules})
    with mock.patch.dict(os.environ, git_variables(tmp_path)):
        ours = sorted(kept(tmp_path, use_default_excludes=False))
    theirs = [p for p in git_untracked(tmp_path) if not refused_by_boundary(p)]
    assert len(theirs) > 300
    assert ours == theirs


def test_the_last_rule_decides_where_a_path_pattern_and_a_name_pattern_meet() -> None:
    # `/a` (a path pattern, of the root's directory) and `a`, `!a` (names): in the
    # directory where the path pattern applies, the rules are one table, still in order.
    for rules, ignored_at_root in (
        (["a", "/a", "!a"], False),
        (["!a", "/a"], True),
        (["*.log", "/sub/x.log", "!*.log"], False),
    ):
        source = IgnoreSource(parse_rules(rules))
        name = "a" if rules[0] != "*.log" else "sub/x.log"
        assert source.decide(name, False) is ignored_at_root, rules
    assert IgnoreSource(parse_rules(["a", "/a", "!a"])).decide("d/a", False) is False
