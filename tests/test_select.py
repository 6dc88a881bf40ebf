"""The select stage: glob dialect, excludes, the workspace boundary, symlinks, order, pruning."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from helpers import Selection, scaled, select_files
from hypothesis import given, settings
from hypothesis import strategies as st

from readmany.commands.glob_request import walk_rules
from readmany.errors import UsageError
from readmany.faces import Face
from readmany.select.boundary import join_clean
from readmany.select.candidates import REASON_IGNORED, REASON_LINK_OUTSIDE, REASON_OUTSIDE, Skip
from readmany.select.excludes import DEFAULT_EXCLUDES, Excludes
from readmany.select.patterns import compile_paths
from readmany.select.walk import SelectRequest, sort_key

Tree = Mapping[str, "str | bytes | tuple[str, str]"]  # ("link", target) makes a symlink


def make_tree(root: Path, tree: Tree) -> Path:
    for rel, content in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, tuple):
            os.symlink(content[1], path)
        elif rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return root


def select(root: Path, *patterns: str, **options: Any) -> Selection:
    return select_files(SelectRequest(root=str(root), patterns=patterns, **options))


def rels(selection: Selection) -> list[str]:
    return [c.rel for c in selection.candidates]


def skips(selection: Selection) -> list[tuple[str, str]]:
    return [(s.rel, s.reason) for s in selection.skipped]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_tree(
        tmp_path / "repo",
        {
            "README.md": "# r\n",
            "src/a.ts": "a",
            "src/b.js": "b",
            "src/Upper.TS": "u",
            "src/nested/deep/c.py": "c",
            "docs/guide.md": "g",
            "CaseTest/UPPER.TXT": "U",
            "CaseTest/lower.txt": "l",
            ".dotfile": "d",
            ".hidden/config.txt": "h",
            "node_modules/pkg/index.js": "n",
            "dist/out.js": "o",
            ".env": "e",
            "GEMINI.md": "g",
            "special/[id].ts": "i",
            "special/file (1).txt": "p",
            "special/star*name.txt": "s",
            "special/brace{x}.txt": "b",
            "special/+(a|b).txt": "x",
        },
    )


# --- the glob dialect (spec section 3) ---


def test_star_matches_dotfiles_but_not_directories(repo: Path) -> None:
    assert rels(select(repo, "*")) == [".dotfile", "GEMINI.md", "README.md"]


def test_globstar_enters_dot_directories(repo: Path) -> None:
    assert rels(select(repo, "**/*.txt")) == [
        ".hidden/config.txt",
        "CaseTest/UPPER.TXT",
        "CaseTest/lower.txt",
        "special/+(a|b).txt",
        "special/brace{x}.txt",
        "special/file (1).txt",
        "special/star*name.txt",
    ]


def test_matching_ignores_case_in_every_segment(repo: Path) -> None:
    assert rels(select(repo, "casetest/*.txt")) == ["CaseTest/UPPER.TXT", "CaseTest/lower.txt"]
    assert rels(select(repo, "SRC/*.ts")) == ["src/Upper.TS", "src/a.ts"]


def test_braces_extglob_classes_and_question_mark(repo: Path) -> None:
    assert rels(select(repo, "src/*.{js,py}", "docs/*.md")) == ["docs/guide.md", "src/b.js"]
    assert rels(select(repo, "src/+(a|b).*")) == ["src/a.ts", "src/b.js"]
    assert rels(select(repo, "src/!(a).ts")) == ["src/Upper.TS"]
    assert rels(select(repo, "src/[ab].?s")) == ["src/a.ts", "src/b.js"]
    assert rels(select(repo, "{src,docs}/**/*.{py,md}")) == [
        "docs/guide.md",
        "src/nested/deep/c.py",
    ]


def test_dot_slash_and_backslashes(repo: Path) -> None:
    assert rels(select(repo, "./README.md", "./docs/*.md")) == ["README.md", "docs/guide.md"]
    assert rels(select(repo, "src\\a.ts", "docs\\*.md")) == ["docs/guide.md", "src/a.ts"]


def test_existing_file_names_are_literal(repo: Path) -> None:
    names = ["special/[id].ts", "special/file (1).txt", "special/star*name.txt"]
    names += ["special/brace{x}.txt", "special/+(a|b).txt"]
    assert rels(select(repo, *names)) == sorted(names)


def test_globs_over_names_with_special_characters(repo: Path) -> None:
    assert rels(select(repo, "special/*")) == [
        "special/+(a|b).txt",
        "special/[id].ts",
        "special/brace{x}.txt",
        "special/file (1).txt",
        "special/star*name.txt",
    ]


def test_absolute_patterns_inside_the_root(repo: Path) -> None:
    assert rels(select(repo, f"{repo}/README.md", f"{repo}/src/*.js")) == [
        "README.md",
        "src/b.js",
    ]


def test_a_pattern_matching_nothing_selects_nothing(repo: Path) -> None:
    selection = select(repo, "nonexistent/**", "nothing.txt", "src/*/")
    assert selection.candidates == () and selection.skipped == ()


def test_duplicates_are_removed(repo: Path) -> None:
    assert rels(select(repo, "README.md", "*.md", "README*", "./README.md")) == [
        "GEMINI.md",
        "README.md",
    ]


def test_patterns_are_relative_to_the_root_not_the_working_directory(
    repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    assert rels(select(repo, "src/*.js")) == ["src/b.js"]


# --- directories (spec section 13, item 1) ---


def test_a_directory_means_everything_under_it(repo: Path) -> None:
    expected = ["src/Upper.TS", "src/a.ts", "src/b.js", "src/nested/deep/c.py"]
    assert rels(select(repo, "src")) == expected
    assert rels(select(repo, "src/")) == expected
    assert rels(select(repo, f"{repo}/src")) == expected


def test_without_recursion_a_directory_means_its_own_files(repo: Path) -> None:
    assert rels(select(repo, "src", recursive=False)) == ["src/Upper.TS", "src/a.ts", "src/b.js"]
    assert rels(select(repo, "src/**/*.py", recursive=False)) == ["src/nested/deep/c.py"]


def test_the_root_itself(repo: Path) -> None:
    assert rels(select(repo, ".", recursive=False)) == [".dotfile", "GEMINI.md", "README.md"]


def test_a_directory_name_with_glob_characters_is_literal(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"d[1]/a.txt": "a", "d1/b.txt": "b"})
    assert rels(select(root, "d[1]")) == ["d[1]/a.txt"]


# --- excludes (spec sections 3, 4 and 13 items 8, 10) ---


def test_the_default_excludes_are_the_reference_list_without_gemini_md() -> None:
    assert len(DEFAULT_EXCLUDES) == 40
    assert "**/GEMINI.md" not in DEFAULT_EXCLUDES
    assert DEFAULT_EXCLUDES[:2] == ("**/node_modules/**", "**/.git/**")
    assert DEFAULT_EXCLUDES[-1] == "**/.env"


def test_default_excludes_drop_silently(repo: Path) -> None:
    selection = select(repo, "**/*.js", ".env")
    assert rels(selection) == ["src/b.js"]
    assert selection.skipped == ()


def test_excludes_ignore_case_and_beat_literal_names(repo: Path) -> None:
    assert rels(select(repo, "src/*", excludes=("**/*.JS",))) == ["src/Upper.TS", "src/a.ts"]
    assert rels(select(repo, "README.md", excludes=("README.md",))) == []


def test_an_exclude_ending_in_slash_excludes_the_directory(repo: Path) -> None:
    assert rels(select(repo, "src/**", excludes=("src/nested/",))) == [
        "src/Upper.TS",
        "src/a.ts",
        "src/b.js",
    ]


def test_an_exclude_naming_a_directory_without_slash_keeps_its_files(repo: Path) -> None:
    assert rels(select(repo, "src/**", excludes=("src/nested",)))[-1] == "src/nested/deep/c.py"


def test_without_default_excludes_only_the_given_excludes_apply(repo: Path) -> None:
    selection = select(repo, "dist/*", "GEMINI.md", use_default_excludes=False, excludes=("GEM*",))
    assert rels(selection) == ["dist/out.js"]


# --- the workspace boundary (spec section 8) ---


def test_blocked_segments_are_refused_without_default_excludes(repo: Path) -> None:
    selection = select(
        repo, "node_modules/**/*.js", ".env", "README.md", use_default_excludes=False
    )
    assert rels(selection) == ["README.md"]
    assert skips(selection) == [
        (".env", REASON_OUTSIDE),
        ("node_modules/pkg/index.js", REASON_OUTSIDE),
    ]


@pytest.mark.parametrize(
    "name", [".GIT/x", "Node_Modules/x", ".env./x", ".env ", "gha-creds-12ab.json", "a/.ENV"]
)
def test_blocked_segment_forms(tmp_path: Path, name: str) -> None:
    root = make_tree(tmp_path, {name: "x"})
    selection = select(root, "**", use_default_excludes=False, use_gitignore=False)
    assert skips(selection) == [(name, REASON_OUTSIDE)]


def test_files_outside_the_root_are_refused_with_a_relative_path(tmp_path: Path) -> None:
    make_tree(tmp_path, {"outside/secret.txt": "s", "outside/other.txt": "o", "repo/a.txt": "a"})
    selection = select(tmp_path / "repo", "../outside/*", "../outside/secret.txt")
    assert rels(selection) == []
    assert skips(selection) == [
        ("../outside/other.txt", REASON_OUTSIDE),
        ("../outside/secret.txt", REASON_OUTSIDE),
    ]


def test_a_dotdot_pattern_that_comes_back_inside_is_fine(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "repo", {"a.txt": "a"})
    assert rels(select(root, "../repo/*.txt")) == ["a.txt"]


# --- symbolic links (spec sections 3 and 5) ---


@pytest.fixture
def links(tmp_path: Path) -> Path:
    make_tree(tmp_path, {"outside/secret.txt": "s"})
    return make_tree(
        tmp_path / "repo",
        {
            "README.md": "r",
            "secret.log": "ignored",
            ".gitignore": "*.log\n",
            ".git/HEAD": "ref",
            "src/a.ts": "a",
            "links/readme_link.md": ("link", "../README.md"),
            "links/outside_link.txt": ("link", str(tmp_path / "outside/secret.txt")),
            "links/src_dirlink": ("link", "../src"),
            "links/outside_dir": ("link", str(tmp_path / "outside")),
            "links/dangling.txt": ("link", "does-not-exist.txt"),
            "links/log_link.txt": ("link", "../secret.log"),
        },
    )


def test_links_matched_by_a_star(links: Path) -> None:
    selection = select(links, "links/*")
    assert rels(selection) == ["links/dangling.txt", "links/readme_link.md", "links/src_dirlink"]
    assert skips(selection) == [
        ("links/log_link.txt", REASON_IGNORED),
        ("links/outside_dir", REASON_LINK_OUTSIDE),
        ("links/outside_link.txt", REASON_LINK_OUTSIDE),
    ]


def test_globstar_does_not_follow_directory_links(links: Path) -> None:
    assert rels(select(links, "links/**/*.ts")) == []
    assert rels(select(links, "**/a.ts")) == ["src/a.ts"]


def test_a_named_segment_follows_a_directory_link(links: Path) -> None:
    assert rels(select(links, "links/src_dirlink/*")) == ["links/src_dirlink/a.ts"]
    assert rels(select(links, "links/*/a.ts")) == ["links/src_dirlink/a.ts"]
    assert rels(select(links, "links/src_dirlink")) == ["links/src_dirlink/a.ts"]


def test_a_file_through_a_link_leading_outside_is_refused(links: Path) -> None:
    selection = select(links, "links/outside_dir/*")
    assert skips(selection) == [("links/outside_dir/secret.txt", REASON_OUTSIDE)]


def test_listed_files_through_directory_links_are_judged_by_where_they_lead(links: Path) -> None:
    listed = (
        "links/outside_dir/secret.txt",
        "links/src_dirlink/a.ts",
        "links/../src/a.ts",
        "links/readme_link.md",
        "links/outside_link.txt",
    )
    selection = select(links, literal_paths=listed)
    assert rels(selection) == ["links/readme_link.md", "links/src_dirlink/a.ts", "src/a.ts"]
    assert skips(selection) == [
        ("links/outside_dir/secret.txt", REASON_OUTSIDE),
        ("links/outside_link.txt", REASON_LINK_OUTSIDE),
    ]


# --- order and determinism (spec section 2, item 7) ---


def test_order_is_utf16_code_units_not_a_directory_walk(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {
            "a/b.txt": "",
            "a.txt": "",
            "a-b.txt": "",
            "B.txt": "",
            "\ue000.txt": "",
            "\U0001f600.txt": "",
        },
    )
    assert rels(select(root, "**")) == [
        "B.txt",
        "a-b.txt",
        "a.txt",
        "a/b.txt",
        "\U0001f600.txt",
        "\ue000.txt",
    ]


def test_order_does_not_depend_on_the_listing_order(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = select(repo, "**", use_default_excludes=False, use_gitignore=False)
    real_scandir = os.scandir

    class Shuffled:
        def __init__(self, path: Any) -> None:
            self._it = real_scandir(path)

        def __enter__(self) -> Iterator[os.DirEntry[str]]:
            entries = list(self._it)
            random.Random(7).shuffle(entries)
            return iter(entries)

        def __exit__(self, *args: object) -> None:
            self._it.close()

    monkeypatch.setattr(os, "scandir", Shuffled)
    assert select(repo, "**", use_default_excludes=False, use_gitignore=False) == expected


# --- pruning: ignored and excluded directories are never listed ---


def listed_path(path: Any) -> str:
    """What `os.scandir` was asked to list: a path, or a descriptor's directory (the walk
    lists the root's tree beneath the root's descriptor)."""
    if isinstance(path, int):
        return os.readlink(f"/proc/self/fd/{path}")
    return os.fspath(path)


def counting_scandir(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    listed: list[str] = []
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        listed.append(listed_path(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    return listed


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_tree(
        tmp_path_factory.mktemp("big"),
        {
            ".git/HEAD": "ref",
            ".gitignore": "generated/\n",
            ".readmanyignore": "private/\n",
            "src/a.py": "a",
            "docs/b.md": "b",
        },
    )
    for name in ("node_modules/pkg", "generated/deep", "private"):
        directory = root / name
        directory.mkdir(parents=True)
        for i in range(10_000 if name.startswith("node") else 300):
            (directory / f"f{i}.js").write_text("x")
    return root


def test_excluded_and_ignored_directories_are_never_listed(
    big_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = counting_scandir(monkeypatch)
    selection = select(big_tree, "**/*")
    assert rels(selection) == [".gitignore", ".readmanyignore", "docs/b.md", "src/a.py"]
    assert skips(selection) == [("generated/", REASON_IGNORED), ("private/", REASON_IGNORED)]
    assert sorted(os.path.relpath(p, big_tree.resolve()) for p in listed) == [".", "docs", "src"]


def test_only_directories_a_pattern_can_reach_are_listed(
    big_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = counting_scandir(monkeypatch)
    assert rels(select(big_tree, "src/*.py")) == ["src/a.py"]
    assert [os.path.relpath(p, big_tree.resolve()) for p in listed] == [".", "src"]


def test_an_ignored_directory_is_reported_only_when_a_pattern_reaches_into_it(
    big_tree: Path,
) -> None:
    assert select(big_tree, "src/**").skipped == ()
    assert skips(select(big_tree, "generated/deep/*.js")) == [("generated/", REASON_IGNORED)]


def test_a_directory_that_cannot_be_listed_is_a_failure(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if listed_path(path).endswith("docs"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    selection = select(repo, "docs/*", "README.md")
    assert rels(selection) == ["README.md"]
    assert selection.skipped == (
        Skip("docs/", "Read error: cannot list directory: Permission denied", failed=True),
    )


def test_a_link_that_cannot_be_followed_is_a_failed_read(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # readlink can be refused (a link under /proc, say): the walk goes on, and says so.
    os.symlink("README.md", repo / "locked")
    real_realpath = os.path.realpath

    def realpath(path: Any, *args: Any, **kwargs: Any) -> str:
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_realpath(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", realpath)
    for selection in (select(repo, "*"), select(repo, literal_paths=("locked", "README.md"))):
        assert "README.md" in rels(selection)
        assert (
            Skip("locked", "Read error: cannot follow the link: Permission denied", failed=True)
            in selection.skipped
        )


# --- literal paths (--stdin) ---


def test_literal_paths_are_never_globs(repo: Path) -> None:
    selection = select(repo, literal_paths=("special/[id].ts", "src/*.ts", "missing.txt"))
    assert rels(selection) == ["missing.txt", "special/[id].ts", "src/*.ts"]


def test_a_literal_directory_means_its_files(repo: Path) -> None:
    assert rels(select(repo, literal_paths=("docs",))) == ["docs/guide.md"]


def test_literal_paths_obey_excludes_ignores_and_the_boundary(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path / "r",
        {".git/HEAD": "", ".gitignore": "*.log\nlogs/\n", "a.log": "", "logs/x.txt": "", "b": ""},
    )
    selection = select(
        root,
        literal_paths=("a.log", "logs/x.txt", "node_modules/x.js", "../elsewhere", "b", "x.bin"),
    )
    assert rels(selection) == ["b"]
    assert skips(selection) == [
        ("../elsewhere", REASON_OUTSIDE),
        ("a.log", REASON_IGNORED),
        ("logs/x.txt", REASON_IGNORED),
    ]


# Names that sort around a directory's own files: `d-x` and `d.txt` before `d/…`, `d0` after.
_NEIGHBOURS = ["d/a.txt", "d/e/b.txt", "d/e/c.txt", "d-x", "d.txt", "d0", "e/f.txt", "é/g.txt"]


@settings(max_examples=60)
@given(
    listed=st.lists(
        st.sampled_from([*_NEIGHBOURS, "d", "d/e", "e", "é", "missing", "d/e/c.txt"]),
        min_size=1,
        max_size=9,
    ),
    recursive=st.booleans(),
)
def test_listed_directories_merge_into_the_listed_files_in_order(
    tmp_path_factory: pytest.TempPathFactory, listed: list[str], recursive: bool
) -> None:
    root = make_tree(tmp_path_factory.mktemp("listed"), {name: name for name in _NEIGHBOURS})
    selection = select(root, literal_paths=tuple(listed), recursive=recursive)
    expected: dict[str, bool] = {}  # path -> named itself
    for name in listed:
        if (root / name).is_dir():
            below = (p for p in _NEIGHBOURS if p.startswith(name + "/"))
            for path in below:
                if recursive or "/" not in path[len(name) + 1 :]:
                    expected.setdefault(path, False)
        else:
            expected[name] = True
    assert rels(selection) == sorted(expected, key=sort_key)
    assert [c.named for c in selection.candidates] == [
        expected[p] for p in sorted(expected, key=sort_key)
    ]


def test_a_path_both_listed_and_named_by_a_pattern_comes_once(repo: Path) -> None:
    listed = ("docs/guide.md", "docs/guide.md", "./docs//guide.md")
    selection = select(repo, "docs/guide.md", literal_paths=listed)
    assert rels(selection) == ["docs/guide.md"]
    assert selection.candidates[0].named


@pytest.mark.slow
@settings(max_examples=scaled(300))
@given(st.text(alphabet="ab./\\", min_size=1, max_size=8), st.sampled_from(["/r", "/", "/r/s"]))
def test_a_plain_listed_path_is_joined_as_normpath_would(rel: str, root: str) -> None:
    assert join_clean(root, rel) == os.path.normpath(os.path.join(root, rel))


# --- usage errors ---


@pytest.mark.parametrize(
    ("patterns", "message"),
    [
        (
            ("",),
            "empty pattern: '' names no file: give a path or a glob, such as a.txt, src/ "
            "or '**/*.py'",
        ),
        (("a\0b",), "pattern contains a NUL character: 'a\\x00b'"),
        (("{1..2000}",), "pattern expands to more than 1000 alternatives: {1..2000}"),
    ],
)
def test_bad_patterns_are_usage_errors(repo: Path, patterns: tuple[str, ...], message: str) -> None:
    with pytest.raises(UsageError) as raised:
        select(repo, *patterns)
    assert str(raised.value) == message


def test_a_root_that_is_not_a_directory(repo: Path) -> None:
    with pytest.raises(UsageError) as raised:
        select_files(SelectRequest(root=str(repo / "README.md"), patterns=("*",)))
    assert str(raised.value) == f"root is not a directory: {repo / 'README.md'}"


def test_an_ignored_directory_link_a_pattern_reaches_through_is_reported(links: Path) -> None:
    (links / "links" / ".gitignore").write_text("src_dirlink\n")
    selection = select(links, "links/src_dirlink/*")
    assert rels(selection) == []
    assert skips(selection) == [("links/src_dirlink/", REASON_IGNORED)]


def test_an_absolute_pattern_above_the_root(tmp_path: Path) -> None:
    make_tree(tmp_path, {"repo/README.md": "r", "other/README.md": "o", "repo/x/README.md": ""})
    selection = select(tmp_path / "repo", f"{tmp_path}/*/README.md")
    assert rels(selection) == ["README.md"]
    assert skips(selection) == [("../other/README.md", REASON_OUTSIDE)]


SAMPLE_PATHS = [
    "node_modules/a.js",
    "x/Node_Modules/y/z.js",
    "node_modules",
    "a.BIN",
    ".bin",
    "dir.bin/file.txt",
    "x/.env",
    ".env.local",
    "x/.DS_Store",
    "build.txt",
    "src/build/out.js",
    "a/b/c.pyc",
    "coverage",
    "deep/coverage/lcov.info",
    "README.md",
]


@pytest.mark.parametrize("pattern", [*DEFAULT_EXCLUDES, "**/*.tar.gz", "**/GEMINI.md"])
def test_simple_exclude_shapes_agree_with_wcmatch(pattern: str) -> None:
    fast = Excludes([pattern], "/nowhere")
    assert fast.file_excluded("anything") is (pattern == "**/anything")  # no fallback used
    for path in SAMPLE_PATHS:
        assert fast.file_excluded(path) == compile_paths([pattern]).match(path), path
        # A directory is pruned when it is the one `X/**` names (its parents were not).
        pruned = pattern.endswith("/**") and compile_paths([pattern[:-3]]).match(path)
        assert fast.dir_pruned(path) == pruned, path


@pytest.mark.parametrize(
    "patterns",
    [(), DEFAULT_EXCLUDES, ("**/*.tar.gz", "**/GEMINI.md"), ("docs/*.md", "src/**/gen_*")],
)
def test_walked_file_excluded_is_file_excluded_below_walked_directories(
    patterns: tuple[str, ...],
) -> None:
    excludes = Excludes(patterns, "/nowhere")
    assert excludes.empty == (not patterns)
    for path in (*SAMPLE_PATHS, "docs/a.md", "src/x/gen_y.py", "A/B.TAR.GZ", "a/.DS_Store"):
        name = path.rpartition("/")[2]
        expected = excludes.file_excluded(path, parents_checked=True)
        assert excludes.walked_file_excluded(path, name) == expected, path


@pytest.mark.slow
@settings(max_examples=scaled(500), deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(["a", "z", "/", ".", "\ue000", "\uffff", "😀", "é"])),
        min_size=2,
        max_size=6,
    )
)
def test_sort_key_orders_as_utf16_code_units(paths: list[str]) -> None:
    by_units = sorted(paths, key=lambda p: p.encode("utf-16-be", "surrogatepass"))
    assert sorted(paths, key=sort_key) == by_units


@pytest.mark.parametrize("compat", [False, True])
@pytest.mark.parametrize("excludes", [(), ("**/*.log", "keep/x*")])
def test_the_plain_file_path_decides_as_the_general_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compat: bool, excludes: tuple[str, ...]
) -> None:
    from readmany.select import walk

    files = {
        ".gitignore": "*.tmp\nignored/\n!keep.tmp\n",
        "a.py": "a", "b.tmp": "b", "keep.tmp": "k", "c.log": "c", ".envrc": "SECRET=1",
        ".env/inner.txt": "i", "sub/.Env. /deeper/f.txt": "f",
        "id_rsa": "key", "x.pyc": "p", "keep/xa.txt": "x", "keep/ya.txt": "y",
        "ignored/z.txt": "z", ".git/config": "[core]", "gha-creds-1.json": "{}",
        "deep/er/.npmrc": "t", "deep/er/ok.md": "ok", "out.txt": "o",
    }  # fmt: skip
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    request = SelectRequest(
        root=str(tmp_path),
        patterns=("**",),
        excludes=excludes,
        rules=walk_rules(Face.reference() if compat else Face.people()),
        outputs=(str(tmp_path / "out.txt"),),
    )
    fast = select_files(request)

    def general(
        self: Any, rel: str, name: str, path: str, regular: bool, parent_refused: bool
    ) -> Any:
        return self.leaf(rel, path, True, is_link=False, via_link=False, regular=regular)

    monkeypatch.setattr(walk._Verdicts, "plain_file", general)
    assert select_files(request) == fast
    assert [c.rel for c in fast.candidates]  # the tree is not all refused
