"""`readmany glob`'s default face, end to end: whole files, named means named, nothing
silent, exit codes that tell the truth (issue "People first", rules 1-8 and 18)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import details, make, run_readmany

BIG_LINES = 3624


def big_file() -> str:
    return "".join(f"line {n}\n" for n in range(1, BIG_LINES + 1))


def skipped(result: subprocess.CompletedProcess[bytes]) -> dict[str, str]:
    return {entry["path"]: entry["reason"] for entry in details(result)["skipped"]}


# --- rule 1: whole files -------------------------------------------------------------------


def test_a_long_file_is_read_whole(tmp_path: Path) -> None:
    make(tmp_path, {"big.py": big_file()})
    result = run_readmany(["glob", "big.py"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        f"--- big.py ---\n\n{big_file()}\n\n\n--- End of content ---\n".encode()
    )
    compat = run_readmany(["glob", "--compat", "big.py"], cwd=tmp_path)
    assert f"line {BIG_LINES}\n".encode() not in compat.stdout  # the reference cuts at 2000


def test_a_long_line_is_not_cut(tmp_path: Path) -> None:
    line = "x" * 5000
    make(tmp_path, {"wide.txt": line + "\n"})
    result = run_readmany(["glob", "wide.txt"], cwd=tmp_path)
    assert result.stdout == f"--- wide.txt ---\n\n{line}\n\n\n\n--- End of content ---\n".encode()


def test_line_breaks_are_kept_as_they_are(tmp_path: Path) -> None:
    make(tmp_path, {"crlf.txt": b"a\r\nb\rc\n"})
    result = run_readmany(["glob", "crlf.txt"], cwd=tmp_path)
    assert result.stdout == b"--- crlf.txt ---\n\na\r\nb\rc\n\n\n\n--- End of content ---\n"


def test_max_file_lines_cuts_with_the_command_that_shows_the_rest(tmp_path: Path) -> None:
    make(tmp_path, {"src/big.py": big_file(), "small.txt": "one\n"})
    result = run_readmany(["glob", "src/big.py", "small.txt", "--max-file-lines", "2000"], tmp_path)
    first = "".join(f"line {n}\n" for n in range(1, 2001))
    assert result.stdout.decode() == (
        f"--- small.txt ---\n\none\n\n\n--- src/big.py ---\n\n{first}"
        f"[Showing lines 1-2000 of {BIG_LINES}. Continue with: readmany many src/big.py:2001]"
        "\n\n\n--- End of content ---\n"
    )
    assert result.returncode == 0
    assert b"src/big.py" in result.stderr and b"truncated" in result.stderr
    # The command it names gives the next line.
    rest = run_readmany(["many", "src/big.py:2001", "--max-lines", "20"], cwd=tmp_path)
    assert b"\nline 2001\n" in rest.stdout


def test_the_continue_command_is_relative_to_where_readmany_runs(tmp_path: Path) -> None:
    make(tmp_path, {"proj/has space.py": "a\nb\nc\n"})
    result = run_readmany(["glob", "--root", "proj", "*.py", "--max-file-lines", "1"], tmp_path)
    assert b"Continue with: readmany many 'proj/has space.py:2']" in result.stdout


def test_max_file_size_skips_larger_files_and_says_so(tmp_path: Path) -> None:
    make(tmp_path, {"big.txt": "x" * 3000, "small.txt": "s\n"})
    result = run_readmany(["glob", "*.txt", "--max-file-size", "2k", "--json"], cwd=tmp_path)
    assert result.returncode == 0
    assert details(result)["files"] == ["small.txt"]
    assert skipped(result) == {"big.txt": "too large"}
    bad = run_readmany(["glob", "*.txt", "--max-file-size", "2X"], cwd=tmp_path)
    assert bad.returncode == 2 and bad.stdout == b""
    assert bad.stderr == (
        b"readmany: --max-file-size '2X': give a whole number, optionally with k, M or G "
        b"(e.g. 100k)\n"
    )


def test_the_per_file_limits_are_not_mixed_with_compat(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "a\n"})
    result = run_readmany(["glob", "--compat", "a.txt", "--max-file-lines", "3"], cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == b""
    assert b"--compat keeps the reference's" in result.stderr


# --- rules 2 and 3: named means named, nothing silent ------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    make(
        tmp_path,
        {
            ".gitignore": "debug.log\ngenerated/\n",
            "src/app.py": "app\n",
            "debug.log": "log\n",
            "generated/out.py": "gen\n",
            "build/helper.py": "helper\n",
            ".vscode/settings.json": "{}\n",
            "node_modules/pkg/index.js": "js\n",
        },
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return tmp_path


def test_a_named_file_is_read_whatever_ignore_files_and_default_excludes_say(repo: Path) -> None:
    names = ["debug.log", "generated/out.py", "build/helper.py", ".vscode/settings.json"]
    result = run_readmany(["glob", *names, "--json"], cwd=repo)
    assert result.returncode == 0, result.stderr
    assert details(result)["files"] == sorted(names)
    listed = run_readmany(["glob", "--stdin", "--json"], cwd=repo, stdin="\n".join(names).encode())
    assert details(listed)["files"] == names  # the order given
    compat = run_readmany(["glob", "--compat", *names, "--json"], cwd=repo)
    assert details(compat)["files"] == []


def test_only_exclude_the_boundary_and_the_kind_leave_a_named_file_out(repo: Path) -> None:
    names = "debug.log\nnode_modules/pkg/index.js\nsrc/app.py\n"
    result = run_readmany(
        ["glob", "--stdin", "--exclude", "*.log", "--json"], cwd=repo, stdin=names.encode()
    )
    assert details(result)["files"] == ["src/app.py"]
    assert skipped(result) == {
        "debug.log": "excluded",
        "node_modules/pkg/index.js": "boundary",
    }


def test_files_a_pattern_matched_and_rules_left_out_are_reported(repo: Path) -> None:
    result = run_readmany(["glob", "**", "--json"], cwd=repo)
    assert result.returncode == 0
    assert details(result)["files"] == [".gitignore", "src/app.py"]
    assert skipped(result) == {
        ".vscode/": "default exclude",
        "build/": "default exclude",
        "debug.log": "ignored",
        "generated/": "ignored",
        "node_modules/": "default exclude",
    }
    assert result.stderr == (
        b"readmany: 3 skipped (default exclude): .vscode/, build/, node_modules/\n"
        b"readmany: 2 skipped (ignored): debug.log, generated/\n"
    )
    compat = run_readmany(["glob", "--compat", "**", "--json"], cwd=repo)
    assert [e["path"] for e in details(compat)["skipped"]] == ["debug.log", "generated/"]


def test_every_tracked_file_is_read_or_reported(repo: Path) -> None:
    make(repo, {"img/logo.png": b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "data.bin": b"\0\1\2"})
    subprocess.run(["git", "add", "-A", "-f"], cwd=repo, check=True)
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True)
    tracked = [p for p in listed.stdout.decode().split("\0") if p]
    result = run_readmany(["glob", "--stdin", "-0", "--json"], cwd=repo, stdin=listed.stdout)
    report = details(result)
    assert len(report["files"]) + len(report["skipped"]) == len(tracked)
    assert sorted([*report["files"], *skipped(result)]) == sorted(tracked)
    assert skipped(result) == {
        "data.bin": "binary file",
        "img/logo.png": "asset not requested",
        "node_modules/pkg/index.js": "boundary",
    }


# --- rule 4: assets --------------------------------------------------------------------------


def test_assets_are_requested_only_by_patterns_that_name_them(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
    make(tmp_path, {"logo.png": png, "a.txt": "a\n"})
    by_extension = run_readmany(["glob", "*.png", "--json"], cwd=tmp_path)
    assert [a["path"] for a in json.loads(by_extension.stdout)["attachments"]] == ["logo.png"]
    by_name = run_readmany(["glob", "logo.png", "--json"], cwd=tmp_path)
    assert [a["path"] for a in json.loads(by_name.stdout)["attachments"]] == ["logo.png"]
    listed = run_readmany(["glob", "--stdin", "--json"], cwd=tmp_path, stdin=b"logo.png\na.txt\n")
    assert json.loads(listed.stdout)["attachments"] == []
    assert skipped(listed) == {"logo.png": "asset not requested"}


# --- rule 5: order ---------------------------------------------------------------------------


def test_stdin_keeps_its_order_and_drops_duplicates(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d/e.txt": "e\n"})
    result = run_readmany(
        ["glob", "--stdin", "c.txt"], cwd=tmp_path, stdin=b"b.txt\nd\nc.txt\na.txt\nb.txt\n"
    )
    sections = [line for line in result.stdout.decode().splitlines() if line.startswith("--- ")]
    assert sections == [
        "--- c.txt ---",
        "--- b.txt ---",
        "--- d/e.txt ---",
        "--- a.txt ---",
        "--- End of content ---",
    ]


# --- rule 6: exit status -----------------------------------------------------------------------


def test_a_pattern_matching_nothing_is_named_and_exit_1(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "a\n"})
    result = run_readmany(["glob", "a.txt", "*.rs", "missing.py"], cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == b"--- a.txt ---\n\na\n\n\n\n--- End of content ---\n"
    assert result.stderr == (
        b"readmany: no file matches '*.rs'\nreadmany: no file matches 'missing.py'\n"
    )


def test_a_missing_stdin_path_is_named_and_exit_1(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "a\n"})
    result = run_readmany(["glob", "--stdin"], cwd=tmp_path, stdin=b"a.txt\nmissing.py\n")
    assert result.returncode == 1
    assert result.stdout == b"--- a.txt ---\n\na\n\n\n\n--- End of content ---\n"
    assert result.stderr == b"readmany: missing.py: no such file or directory\n"
    listed = run_readmany(["glob", "--stdin", "--json"], cwd=tmp_path, stdin=b"missing.py\n")
    assert skipped(listed) == {"missing.py": "no such file or directory"}


@pytest.mark.parametrize("processes", ["1", "2"])
@pytest.mark.parametrize("budget", [[], ["--max-tokens", "1k"], ["--stats"]])
def test_a_failed_read_is_said_in_a_persons_words(
    tmp_path: Path, processes: str, budget: list[str]
) -> None:
    # As `many` says it: the path, then what went wrong; the reference's words are --compat's.
    make(tmp_path, {"a.txt": "a\n"})
    os.mkfifo(tmp_path / "pipe")
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    env = {**os.environ, "READMANY_PROCESSES": processes}
    result = run_readmany(["glob", "**", "--json", *budget], cwd=tmp_path, env=env)
    assert result.returncode == 1
    assert result.stderr.decode().splitlines() == [
        "readmany: loop1: too many levels of symbolic links",
        "readmany: loop2: too many levels of symbolic links",
        "readmany: pipe: not a regular file (FIFO), not read",
    ]
    assert skipped(result) == {
        "loop1": "too many levels of symbolic links",
        "loop2": "too many levels of symbolic links",
        "pipe": "not a regular file (FIFO), not read",
    }
    reference = run_readmany(["glob", "--compat", "**"], cwd=tmp_path, env=env)
    assert reference.stderr.decode().splitlines() == [
        "readmany: Read error: Too many levels of symbolic links: loop1",
        "readmany: Read error: Too many levels of symbolic links: loop2",
        "readmany: Read error: Not a regular file (FIFO): pipe",
    ]


def test_names_git_quoted_without_z_get_the_command_that_lists_them(tmp_path: Path) -> None:
    make(tmp_path, {"café.txt": "c\n", "naïve.txt": "n\n", "plain.txt": "p\n"})
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    listed = subprocess.run(
        ["git", "-c", "core.quotePath=true", "ls-files"], cwd=tmp_path, capture_output=True
    ).stdout
    assert b'"caf\\303\\251.txt"' in listed  # as git writes it
    result = run_readmany(["glob", "--stdin"], cwd=tmp_path, stdin=listed)
    assert result.returncode == 1
    lines = result.stderr.decode().splitlines()
    assert (
        lines.count(
            "readmany: git quotes names with special characters unless told not to: "
            "list them with git ls-files -z | readmany glob --stdin -0"
        )
        == 1
    )  # once, however many names
    zero = subprocess.run(["git", "ls-files", "-z"], cwd=tmp_path, capture_output=True).stdout
    fixed = run_readmany(["glob", "--stdin", "-0", "--json"], cwd=tmp_path, stdin=zero)
    assert (fixed.returncode, details(fixed)["files"]) == (
        0,
        ["café.txt", "naïve.txt", "plain.txt"],
    )


def test_nothing_read_is_an_empty_stdout_and_exit_1(tmp_path: Path) -> None:
    make(tmp_path, {"debug.log": "x\n", ".gitignore": "*.log\n"})
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    missing = run_readmany(["glob", "missing.py"], cwd=tmp_path)
    assert (missing.returncode, missing.stdout) == (1, b"")
    assert missing.stderr == b"readmany: no file matches 'missing.py'\n"
    all_skipped = run_readmany(["glob", "*.log"], cwd=tmp_path)
    assert (all_skipped.returncode, all_skipped.stdout) == (1, b"")
    assert all_skipped.stderr == (
        b"readmany: no file was read: every file matched was skipped\n"
        b"readmany: 1 skipped (ignored): debug.log\n"
    )
    compat = run_readmany(["glob", "--compat", "missing.py"], cwd=tmp_path)
    assert compat.returncode == 0
    assert compat.stdout == b"No files matching the criteria were found or all were skipped.\n"


@pytest.mark.parametrize("pattern", ["[", "src/[ab", "numpy/{linalg", "a}b{"])
def test_a_malformed_pattern_is_a_usage_error(tmp_path: Path, pattern: str) -> None:
    result = run_readmany(["glob", pattern], cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.startswith(f"readmany: bad pattern {pattern!r}: ".encode())


def test_an_existing_file_with_brackets_in_its_name_is_no_bad_pattern(tmp_path: Path) -> None:
    make(tmp_path, {"a[1.txt": "a\n"})
    result = run_readmany(["glob", "a[1.txt"], cwd=tmp_path)
    assert result.returncode == 0 and b"--- a[1.txt ---" in result.stdout


# --- rule 7: the -o target -----------------------------------------------------------------------


def test_the_output_file_is_never_read_as_input(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "a\n"})
    sizes = []
    for _ in range(3):
        result = run_readmany(["glob", ".", "-o", "ctx.txt"], cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        sizes.append((tmp_path / "ctx.txt").stat().st_size)
    assert sizes[0] == sizes[1] == sizes[2]
    assert (
        tmp_path / "ctx.txt"
    ).read_bytes() == b"--- a.txt ---\n\na\n\n\n\n--- End of content ---\n"
    for _ in range(2):  # the second run meets the first one's dump
        report = run_readmany(["glob", ".", "-o", "ctx.json", "--json"], cwd=tmp_path)
        assert report.returncode == 0, report.stderr
    dump = json.loads((tmp_path / "ctx.json").read_bytes())
    assert dump["details"]["files"] == ["a.txt", "ctx.txt"]
    # The temporary file it is written through is left out too, when the walk meets it.
    assert {e["reason"] for e in dump["details"]["skipped"]} <= {"output file"}
    assert {"path": "ctx.json", "reason": "output file"} in dump["details"]["skipped"]


def test_naming_the_output_file_as_input_is_refused(tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "source\n"})
    result = run_readmany(["glob", "a.py", "-o", "a.py"], cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr == (
        b"readmany: -o a.py: that file is also named as input (a.py); write the output elsewhere\n"
    )
    assert (tmp_path / "a.py").read_text() == "source\n"
    via_stdin = run_readmany(["glob", "--stdin", "-o", "a.py"], cwd=tmp_path, stdin=b"./a.py\n")
    assert via_stdin.returncode == 2
    assert (tmp_path / "a.py").read_text() == "source\n"


# --- rule 8: kinds by content --------------------------------------------------------------------


def test_a_ts_file_is_sniffed_like_any_other(tmp_path: Path) -> None:
    make(tmp_path, {"video.ts": b"\x47\x00\x11\x00" * 50, "code.ts": "let a = 1;\n"})
    result = run_readmany(["glob", "*.ts", "--json"], cwd=tmp_path)
    assert details(result)["files"] == ["code.ts"]
    assert skipped(result) == {"video.ts": "binary file"}
    compat = run_readmany(["glob", "--compat", "*.ts", "--json"], cwd=tmp_path)
    assert details(compat)["files"] == ["code.ts", "video.ts"]


# --- rule 18: exclude paths are normalised; a slash after a file name --------------------------


@pytest.mark.parametrize("compat", [[], ["--compat"]], ids=["default", "compat"])
@pytest.mark.parametrize(
    ("exclude", "left"),
    [
        ("./a/b.txt", ["a/x", "dir/z.txt"]),
        ("a/./x", ["a/b.txt", "dir/z.txt"]),
        ("a/../a/x", ["a/b.txt", "dir/z.txt"]),
        ("./dir/", ["a/b.txt", "a/x"]),
    ],
)
def test_exclude_paths_are_normalised(
    tmp_path: Path, compat: list[str], exclude: str, left: list[str]
) -> None:
    make(tmp_path, {"a/b.txt": "b\n", "a/x": "x\n", "dir/z.txt": "z\n"})
    result = run_readmany(["glob", *compat, "a", "dir", "--exclude", exclude, "--json"], tmp_path)
    assert details(result)["files"] == left


def test_a_slash_after_a_file_name_matches_nothing(tmp_path: Path) -> None:
    make(tmp_path, {"a/b.txt": "b\n"})
    result = run_readmany(["glob", "a/b.txt/"], cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, b"")
    assert result.stderr == b"readmany: no file matches 'a/b.txt/'\n"
    compat = run_readmany(["glob", "--compat", "a/b.txt/"], cwd=tmp_path)
    assert compat.stdout == b"No files matching the criteria were found or all were skipped.\n"


def test_one_process_and_two_agree(repo: Path) -> None:
    outputs = []
    for processes in ("1", "2"):
        env = {**os.environ, "READMANY_PROCESSES": processes}
        done = run_readmany(["glob", "**", "missing*", "--json"], cwd=repo, env=env)
        outputs.append((done.returncode, done.stdout, done.stderr))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == 1


def test_a_link_to_a_directory_is_a_skip_not_a_failed_read(tmp_path: Path) -> None:
    # git keeps such a link as a file (ripgrep's HomebrewFormula -> pkg/brew): `**` does not
    # walk into it, and it is not a file to read; its files are read where they are.
    make(tmp_path, {"real/a.txt": "a\n"})
    os.symlink("real", tmp_path / "dirlink")
    result = run_readmany(["glob", "**"], cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == b"--- real/a.txt ---\n\na\n\n\n\n--- End of content ---\n"
    assert result.stderr == b"readmany: 1 skipped (symlink to a directory): dirlink\n"
    assert skipped(run_readmany(["glob", "**", "--json"], cwd=tmp_path)) == {
        "dirlink": "symlink to a directory"
    }
    # The reference face reads it, and fails, as the reference did.
    reference = run_readmany(["glob", "--compat", "**"], cwd=tmp_path)
    assert reference.returncode == 1
    assert b"Path is a directory, not a file" in reference.stderr


def test_a_link_to_nothing_is_a_skip_not_a_failed_read(tmp_path: Path) -> None:
    # A dangling link (git keeps one as an entry like any other) holds nothing to read: a
    # pre-commit dump of the tree must not fail on it; a named one shows nothing, exit 1.
    make(tmp_path, {"a.txt": "a\n"})
    os.symlink("gone.txt", tmp_path / "broken")
    result = run_readmany(["glob", "**"], cwd=tmp_path)
    assert (result.returncode, result.stdout) == (
        0,
        b"--- a.txt ---\n\na\n\n\n\n--- End of content ---\n",
    )
    assert result.stderr == b"readmany: 1 skipped (symlink to nothing): broken\n"
    listed = run_readmany(
        ["glob", "--stdin", "-0", "--json"], cwd=tmp_path, stdin=b"broken\0a.txt\0"
    )
    assert listed.returncode == 0
    assert skipped(listed) == {"broken": "symlink to nothing"}
    named = run_readmany(["glob", "broken"], cwd=tmp_path)
    assert (named.returncode, named.stdout) == (1, b"")
    # The reference face reads it, and fails, as the reference did.
    reference = run_readmany(["glob", "--compat", "**"], cwd=tmp_path)
    assert reference.returncode == 1
    assert b"File not found: broken" in reference.stderr


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_listed_directory_with_no_file_is_said(tmp_path: Path, processes: str) -> None:
    # `git ls-files` lists a submodule that is not checked out as an empty directory:
    # nothing to read, and said so where it stands in the list, not dropped in silence.
    make(tmp_path, {"a.txt": "a\n", "z.txt": "z\n"})
    (tmp_path / "vendor" / "lib").mkdir(parents=True)
    (tmp_path / "nested" / "deeper").mkdir(parents=True)
    listed = b"a.txt\0vendor/lib\0nested\0z.txt\0"
    env = {**os.environ, "READMANY_PROCESSES": processes}
    result = run_readmany(["glob", "--stdin", "-0", "--json"], cwd=tmp_path, stdin=listed, env=env)
    assert result.returncode == 0
    assert details(result)["files"] == ["a.txt", "z.txt"]
    assert skipped(result) == {"vendor/lib/": "empty directory", "nested/": "empty directory"}
    assert b"2 skipped (empty directory): vendor/lib/, nested/" in result.stderr


def test_a_listed_link_to_a_directory_is_an_entry_not_walked(tmp_path: Path) -> None:
    # `git ls-files` names such a link as a file and the target's files by their own
    # paths: walking the link would show them twice. A directory listed is still walked.
    make(tmp_path, {"pkg/brew/a.rb": "a\n", "docs/b.md": "b\n"})
    os.symlink("pkg/brew", tmp_path / "Formula")
    listed = b"Formula\0pkg/brew/a.rb\0docs\0"
    result = run_readmany(["glob", "--stdin", "-0", "--json"], cwd=tmp_path, stdin=listed)
    assert result.returncode == 0
    assert details(result)["files"] == ["pkg/brew/a.rb", "docs/b.md"]
    assert skipped(result) == {"Formula": "symlink to a directory"}


@pytest.mark.parametrize("extra", [[], ["--max-tokens", "1k"]])
def test_a_path_outside_the_root_is_refused_with_the_way_out(
    tmp_path: Path, extra: list[str]
) -> None:
    project = tmp_path / "proj"
    make(project, {"a.txt": "a\n"})
    (tmp_path / "outside.txt").write_text("outside\n")
    result = run_readmany(["glob", "a.txt", "../outside.txt", *extra], cwd=project)
    assert result.returncode == 0 and b"outside\n" not in result.stdout
    assert result.stderr.decode().splitlines()[-1] == (
        f"readmany: a path outside the root ({project}) is never read: run readmany from a "
        "directory that holds it, or give one as --root"
    )
    above = run_readmany(["glob", "--root", "..", "outside.txt", *extra], cwd=project)
    assert above.returncode == 0 and b"outside\n" in above.stdout


def test_a_pattern_whose_directory_is_outside_the_root_is_never_listed(tmp_path: Path) -> None:
    """`glob '/elsewhere/**'` is refused as one entry, the pattern itself: no name of a
    file outside the root reaches the output or the report (through `--stdin` too)."""
    project = tmp_path / "proj"
    make(project, {"a.txt": "a\n"})
    make(tmp_path / "outside", {"o/secret.txt": "s\n", "o/deep/other.txt": "o\n"})
    outside = tmp_path / "outside"
    for pattern in (f"{outside}/**", "../outside/o/*", f"{outside}", "../outside/**/*.txt"):
        result = run_readmany(["glob", "a.txt", pattern, "-v", "--json"], cwd=project)
        assert result.returncode == 0, result.stderr
        text = result.stdout.decode() + result.stderr.decode()
        assert "secret.txt" not in text and "other.txt" not in text
        assert skipped(result) == {pattern: "boundary"}
        assert f"readmany: 1 skipped (boundary): {pattern}" in result.stderr.decode()
    listed = run_readmany(["glob", "--stdin"], cwd=project, stdin=b"a.txt\n../outside/o\n")
    assert b"secret.txt" not in listed.stdout + listed.stderr
    assert b"1 skipped (boundary): ../outside/o\n" in listed.stderr
    # the root reached through a link is walked as before: its names are the root's own
    (tmp_path / "alias").symlink_to(project)
    again = run_readmany(["glob", f"{tmp_path / 'alias'}/*.txt", "--json"], cwd=project)
    assert skipped(again) == {"../alias/a.txt": "boundary"}


def test_a_link_a_pattern_names_that_leads_out_lists_no_name(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "OUTNAME.txt").write_text("s\n")
    (root / "lnk").symlink_to(outside)
    (root / "in").mkdir()
    (root / "in" / "a.txt").write_text("x\n")
    (root / "lin").symlink_to(root / "in")
    for args in (["lnk/**"], ["lnk"], ["{lnk,x}/**"], ["ln[k]/*"], ["--stdin"]):
        result = run_readmany(["glob", "--json", *args], cwd=root, stdin=b"lnk\n")
        assert b"OUTNAME" not in result.stdout + result.stderr, args
        skipped = json.loads(result.stdout)["details"]["skipped"]
        assert [s["path"] for s in skipped] == ["lnk"], args
    inside = run_readmany(["glob", "lin/**"], cwd=root)  # a link that stays in: followed
    assert inside.stdout.startswith(b"--- lin/a.txt ---")
