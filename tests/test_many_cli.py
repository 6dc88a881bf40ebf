"""`readmany many` end to end, through the installed command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import readmany_command, run_readmany

from readmany import __version__
from readmany.frame.heredoc import block_tokens


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (tmp_path / "b.txt").write_text("one\ntwo\nthree")
    (tmp_path / "c:2:1").write_text("a file whose name looks like a range\n")
    (tmp_path / "dir").mkdir()
    return tmp_path


@pytest.mark.smoke
def test_version_both_ways() -> None:
    expected = f"readmany {__version__}\n".encode()
    assert run_readmany(["--version"]).stdout == expected
    module = subprocess.run(
        [sys.executable, "-m", "readmany", "--version"], capture_output=True, check=True
    )
    assert module.stdout == expected


@pytest.mark.smoke
def test_positional_files_and_ranges(tree: Path) -> None:
    result = run_readmany(["many", "--compat", "a.txt", "b.txt:2:1"], cwd=tree)
    assert result.returncode == 0
    assert result.stderr == b""
    assert result.stdout == (
        b"@a.txt\n<<'PINE_1_EF57FD'\nalpha\nbeta\ngamma\n\nPINE_1_EF57FD\n\n"
        b"@b.txt\n<<'MANGO_2_F07985'\ntwo\n\n[1 more lines in file. Use offset=3 to continue.]\n"
        b"MANGO_2_F07985\n"
    )


def test_existing_path_with_colons_is_literal(tree: Path) -> None:
    result = run_readmany(["many", "--compat", "c:2:1"], cwd=tree)
    assert b"a file whose name looks like a range" in result.stdout
    assert result.returncode == 0


def test_offset_only_suffix(tree: Path) -> None:
    result = run_readmany(["many", "--compat", "a.txt:3"], cwd=tree)
    assert result.stdout.split(b"\n")[2:4] == [b"gamma", b""]


@pytest.mark.smoke
def test_bad_files_give_error_blocks_and_exit_1(tree: Path) -> None:
    os.mkfifo(tree / "fifo")
    args = ["many", "--compat", "missing.txt", "dir", "fifo", "/dev/zero", "a.txt"]
    result = run_readmany(args, cwd=tree, timeout=20)
    assert result.returncode == 1
    out = result.stdout.decode()
    assert f"[Error: ENOENT: no such file or directory, access '{tree}/missing.txt']" in out
    assert "[Error: EISDIR: illegal operation on a directory, read]" in out
    assert f"[Error: Not a regular file (FIFO), refusing to read: {tree}/fifo]" in out
    assert "[Error: Not a regular file (character device), refusing to read: /dev/zero]" in out
    assert "alpha\nbeta\ngamma" in out
    errors = result.stderr.decode().splitlines()
    assert len(errors) == 4
    assert all(line.startswith("readmany: ") for line in errors)


@pytest.mark.smoke
def test_too_many_and_no_files_are_usage_errors(tree: Path) -> None:
    result = run_readmany(["many", "--compat", *["a.txt"] * 27], cwd=tree)
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr == (
        b"readmany: too many files: 27 given, at most 26 per call "
        b"(files: must NOT have more than 26 items)\n"
    )
    none = run_readmany(["many", "--compat"], cwd=tree)
    assert none.returncode == 2 and none.stdout == b""
    assert b"1 to 26 files" in none.stderr


def test_request_from_stdin_and_its_errors(tree: Path) -> None:
    request = {"files": [{"path": "b.txt", "offset": 3}], "stopOnError": False}
    result = run_readmany(
        ["many", "--compat", "--request", "-"], cwd=tree, stdin=json.dumps(request).encode()
    )
    assert result.stdout == b"@b.txt\n<<'PINE_1_F07985'\nthree\nPINE_1_F07985\n"
    mixed = run_readmany(["many", "--compat", "a.txt", "--request", "-"], cwd=tree, stdin=b"{}")
    assert mixed.returncode == 2 and mixed.stdout == b""
    broken = run_readmany(["many", "--compat", "--request", "-"], cwd=tree, stdin=b"{nope")
    assert broken.returncode == 2 and b"not valid JSON" in broken.stderr
    no_path = run_readmany(
        ["many", "--compat", "--request", "-"], cwd=tree, stdin=b'{"files": [{"offset": 1}]}'
    )
    assert no_path.stderr == b"readmany: request: files/0: must have required property 'path'\n"


def test_bad_option_values_are_one_line_usage_errors(tree: Path) -> None:
    for args in (
        ["many", "--compat", "a.txt", "--max-bytes", "x"],
        ["many", "--compat", "a.txt", "--max-lines", "0"],
    ):
        result = run_readmany(args, cwd=tree)
        assert result.returncode == 2
        assert result.stdout == b""
        assert result.stderr.count(b"\n") == 1 and result.stderr.startswith(b"readmany: ")


@pytest.mark.smoke
def test_stdin_path_lists(tree: Path) -> None:
    lines = run_readmany(["many", "--compat", "--stdin"], cwd=tree, stdin=b"a.txt\nb.txt\n")
    nul = run_readmany(["many", "--compat", "--stdin", "-0"], cwd=tree, stdin=b"a.txt\0b.txt\0")
    assert lines.returncode == nul.returncode == 0
    assert lines.stdout == nul.stdout
    assert lines.stdout.count(b"\n@") == 1


def test_json_output(tree: Path) -> None:
    result = run_readmany(["many", "--compat", "a.txt", "missing", "--json"], cwd=tree)
    report = json.loads(result.stdout)
    assert result.returncode == 1
    assert set(report) == {"content", "details", "attachments"}
    assert report["details"]["errorCount"] == 1
    # The first block is the content up to the second one (after the separator).
    first_block = report["content"].split("\n\n@missing")[0]
    assert report["details"]["files"][0]["estimatedTokens"] == round(block_tokens(first_block))
    assert report["details"]["files"][0]["bytes"] == len(first_block.encode())
    assert result.stdout.endswith(b"}\n")


def test_budget_omissions_are_reported_on_stderr(tree: Path) -> None:
    (tree / "big.txt").write_text("x" * 99 + "\n" + ("y" * 99 + "\n") * 3)
    # Smallest first gets a.txt in whole; big.txt cannot even be cut into what is left.
    result = run_readmany(["many", "--compat", "big.txt", "a.txt", "--max-bytes", "200"], cwd=tree)
    assert result.stdout.startswith(b"@a.txt\n")
    assert result.stderr == b"readmany: big.txt: omitted, over the budget\n"
    alone = run_readmany(["many", "--compat", "big.txt", "--max-bytes", "200"], cwd=tree)
    assert alone.stdout.endswith(b"\n" + b"x" * 99 + b"\nPINE_1_77DB9C\n")
    assert alone.stderr == b"readmany: big.txt: cut to fit the budget\n"
    quiet = run_readmany(
        ["many", "--compat", "big.txt", "a.txt", "--max-bytes", "200", "-q"], cwd=tree
    )
    assert quiet.stderr == b"" and quiet.stdout == result.stdout


def test_output_file_is_written_atomically(tree: Path) -> None:
    target = tree / "out" / "dump.txt"
    target.parent.mkdir()
    result = run_readmany(["many", "--compat", "a.txt", "-o", str(target)], cwd=tree)
    assert result.returncode == 0 and result.stdout == b""
    assert target.read_bytes() == run_readmany(["many", "--compat", "a.txt"], cwd=tree).stdout
    failed = run_readmany(
        ["many", "--compat", *["a.txt"] * 27, "-o", str(tree / "out" / "no.txt")], cwd=tree
    )
    assert failed.returncode == 2
    assert sorted(os.listdir(target.parent)) == ["dump.txt"]  # no half file, no temp file


@pytest.mark.smoke
def test_closed_stdout_ends_quietly(tree: Path) -> None:
    (tree / "big.txt").write_text(("w" * 99 + "\n") * 600)
    command = " ".join(readmany_command())
    many = f"{command} many {'big.txt ' * 26} --max-bytes 9999999 --max-lines 9999999"
    script = f'{many} | head -1; echo "${{PIPESTATUS[0]}}" >&2'
    result = subprocess.run(
        ["bash", "-c", script], cwd=tree, capture_output=True, timeout=30, check=False
    )
    assert result.stdout == b"@big.txt\n"
    assert result.stderr == b"0\n"  # readmany's own exit status; no traceback, no noise


@pytest.mark.smoke
def test_unreadable_cwd_is_a_usage_error(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = f"cd {gone} && rmdir {gone} && {' '.join(readmany_command())} many a.txt"
    result = subprocess.run(["bash", "-c", script], capture_output=True, check=False)
    assert result.returncode == 2
    assert result.stderr.startswith(b"readmany: ") and result.stderr.count(b"\n") == 1


@pytest.mark.parametrize(
    "spec",
    # Decimal digits are 0-9: other scripts' digits (Arabic-Indic here) were read as them.
    ["a.txt:0:-1", "a.txt:x", "a.txt:", "a.txt:1:2:3", "a.txt:-1", "a.txt:\u0661:\u0662"],
)
@pytest.mark.parametrize("face", [["--compat"], []])
def test_bad_ranges_are_usage_errors(tree: Path, spec: str, face: list[str]) -> None:
    result = run_readmany(["many", *face, spec], cwd=tree)
    assert result.returncode == 2
    assert result.stdout == b""
    assert (
        result.stderr
        == (
            f"readmany: bad range in {spec!r}: use FILE:OFFSET or FILE:OFFSET:LIMIT "
            "with OFFSET and LIMIT as decimal numbers\n"
        ).encode()
    )


def test_a_missing_file_with_a_range_is_a_missing_file(tree: Path) -> None:
    result = run_readmany(["many", "--compat", "missing.txt:3:1", "a.txt"], cwd=tree)
    assert result.returncode == 1
    assert b"[Error: ENOENT: no such file or directory" in result.stdout


def test_an_internal_error_is_one_line_and_exit_70(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import readmany.__main__ as entry
    import readmany.fastargs

    def broken(args: list[str]) -> None:
        raise ValueError("boom")

    monkeypatch.setattr(readmany.fastargs, "parse", broken)
    monkeypatch.delenv("READMANY_DEBUG", raising=False)
    assert entry.main(["many", "--compat", "a.txt"]) == 70
    assert capsys.readouterr().err == (
        "readmany: internal error: ValueError: boom "
        "(please report it; READMANY_DEBUG=1 shows the traceback)\n"
    )
    monkeypatch.setenv("READMANY_DEBUG", "1")
    with pytest.raises(ValueError, match="boom"):
        entry.main(["many", "--compat", "a.txt"])
