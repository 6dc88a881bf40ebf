"""Every command in a pipeline: -o files, closed pipes, stdin lists, exit statuses."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import readmany_command, run_readmany

pytestmark = pytest.mark.smoke  # the installed command in pipelines: .ci/run runs it on the wheel

COMMANDS = {
    "many": ["many", "--compat", "a.txt", "b.txt"],
    "glob": ["glob", "--compat", "*.txt"],
    "hashline": ["hashline", "--compat", "a.txt"],
}
FAILING = {
    "many": ["many", "--compat", *["a.txt"] * 27],  # usage error: too many files
    "glob": ["glob", "--compat", ""],  # usage error: empty pattern
    "hashline": ["hashline", "--compat", "a.txt", "--offset", "99"],  # the read fails as a whole
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    (tmp_path / "b.txt").write_text("one\n")
    return tmp_path


@pytest.mark.smoke
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_file_holds_exactly_what_stdout_would(tree: Path, command: str) -> None:
    out = tree / "out" / "result.txt"
    out.parent.mkdir()
    written = run_readmany([*COMMANDS[command], "-o", str(out)], cwd=tree)
    assert written.returncode == 0 and written.stdout == b""
    assert out.read_bytes() == run_readmany(COMMANDS[command], cwd=tree).stdout
    as_json = run_readmany([*COMMANDS[command], "--json", "--output", str(out)], cwd=tree)
    assert as_json.returncode == 0
    assert out.read_bytes() == run_readmany([*COMMANDS[command], "--json"], cwd=tree).stdout


@pytest.mark.smoke
@pytest.mark.parametrize("command", sorted(FAILING))
def test_a_failed_run_leaves_no_file(tree: Path, command: str) -> None:
    out = tree / "out"
    out.mkdir()
    (out / "keep.txt").write_text("old\n")
    result = run_readmany([*FAILING[command], "-o", str(out / "keep.txt")], cwd=tree)
    assert result.returncode in (1, 2)
    assert result.stdout == b""
    assert os.listdir(out) == ["keep.txt"]  # no temporary file left behind
    assert (out / "keep.txt").read_text() == "old\n"  # and the old file untouched


def test_an_unwritable_output_is_a_usage_error(tree: Path) -> None:
    result = run_readmany(
        ["many", "--compat", "a.txt", "-o", str(tree / "missing" / "x.txt")], cwd=tree
    )
    assert result.returncode == 2
    target = str(tree / "missing" / "x.txt").encode()
    missing = str(tree / "missing").encode()
    assert result.stderr == b"readmany: -o " + target + b": no such directory: " + missing + b"\n"


@pytest.mark.smoke
@pytest.mark.parametrize("command", ["glob", "--compat", "hashline"])
def test_closed_stdout_ends_quietly(tree: Path, command: str) -> None:
    for n in range(300):
        (tree / f"f{n:03d}.txt").write_text(("w" * 99 + "\n") * 40)
    (tree / "big.txt").write_text(("w" * 99 + "\n") * 1999)
    args = "glob '*.txt'" if command == "glob" else "hashline big.txt"
    script = f'{" ".join(readmany_command())} {args} | head -1; echo "${{PIPESTATUS[0]}}" >&2'
    result = subprocess.run(["bash", "-c", script], cwd=tree, capture_output=True, timeout=60)
    assert result.stdout.count(b"\n") == 1
    assert result.stderr.endswith(b"0\n")
    assert b"Traceback" not in result.stderr and b"Exception ignored" not in result.stderr


def _run_closing(fd: int, args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run readmany with descriptor `fd` (1: stdout, 2: stderr) closed, as `>&-` does."""
    keep = "1" if fd == 2 else "2"
    script = f'{" ".join(readmany_command())} {" ".join(args)} {fd}>&-; echo "rc=$?" >&{keep}'
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, timeout=60)


@pytest.mark.smoke
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_started_without_stdout_says_so_in_one_line(tree: Path, command: str) -> None:
    result = _run_closing(1, COMMANDS[command], tree)
    assert result.stderr == (
        b"readmany: standard output is closed: redirect it, or use -o FILE\nrc=2\n"
    )


@pytest.mark.smoke
def test_started_without_stdout_writes_to_the_output_file(tree: Path) -> None:
    result = _run_closing(1, ["glob", "--compat", "'*.txt'", "-o", "out.md"], tree)
    assert result.stderr == b"rc=0\n"
    assert (tree / "out.md").read_bytes() == run_readmany(
        ["glob", "--compat", "*.txt"], cwd=tree
    ).stdout
    version = _run_closing(1, ["--version"], tree)
    assert version.stderr == b"readmany: standard output is closed: redirect it\nrc=2\n"


@pytest.mark.smoke
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_started_without_stderr_still_writes_and_exits_as_usual(tree: Path, command: str) -> None:
    result = _run_closing(2, [*COMMANDS[command], "missing.txt"], tree)
    expected = run_readmany([*COMMANDS[command], "missing.txt"], cwd=tree)
    assert result.stdout == expected.stdout + f"rc={expected.returncode}\n".encode()


@pytest.mark.smoke
def test_stdin_lists_newline_and_nul_agree(tree: Path) -> None:
    by_line = run_readmany(["glob", "--compat", "--stdin"], cwd=tree, stdin=b"b.txt\na.txt\n")
    by_nul = run_readmany(["glob", "--compat", "--stdin", "-0"], cwd=tree, stdin=b"b.txt\0a.txt\0")
    assert by_line.returncode == by_nul.returncode == 0
    assert by_line.stdout == by_nul.stdout
    assert by_line.stdout.startswith(b"--- a.txt ---\n")  # sorted, whatever the input order


@pytest.mark.parametrize("command", ["", "many", "glob", "hashline"])
def test_help_documents_the_exit_statuses(command: str) -> None:
    result = run_readmany([command, "--help"] if command else ["--help"], env={"COLUMNS": "200"})
    assert result.returncode == 0
    text = " ".join(result.stdout.decode().split())
    assert "Exit status: 0 every requested file was read; 1 output was written" in text


@pytest.mark.smoke
def test_an_unknown_command_is_one_line() -> None:
    result = run_readmany(["bogus"])
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr == b"readmany: No such command 'bogus'.\n"
