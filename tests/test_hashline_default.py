"""`readmany hashline` without `--compat` (issue 12, rule 14): notices as commands."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from helpers import readmany_command, run_readmany, run_unprivileged, unprivileged_prefix

from readmany.read.hashline import file_tag, line_anchor

FIVE_THOUSAND = "".join(f"{n}\n" for n in range(1, 5001))


def rows(first: int, last: int) -> str:
    """Rows `first`..`last` of FIVE_THOUSAND (row 5001 is the empty last line)."""
    texts = FIVE_THOUSAND.split("\n")
    return "\n".join(
        f"{n}#{line_anchor(texts[n - 1])}|{texts[n - 1]}" for n in range(first, last + 1)
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "five.txt").write_text(FIVE_THOUSAND)
    return tmp_path


def test_a_long_file_continues_with_offset(tree: Path) -> None:
    result = run_readmany(["hashline", "five.txt"], cwd=tree)
    header = f"@file five.txt#{file_tag(FIVE_THOUSAND.encode())}"
    assert result.stdout.decode() == (
        f"{header}\n{rows(1, 1999)}\n\n"
        "[Showing lines 1-1999 of 5001. Continue with: readmany hashline five.txt --offset 2000]\n"
    )
    assert (result.returncode, result.stderr) == (0, b"")
    compat = run_readmany(["hashline", "--compat", "five.txt"], cwd=tree)
    assert compat.stdout.decode() == (
        f"{header}\n{rows(1, 1999)}\n\n"
        "[Showing 1999 anchored lines. Use offset=2000 to continue.]\n"
    )


def test_a_limit_continues_as_the_next_page_or_the_rest(tree: Path) -> None:
    page = run_readmany(["hashline", "five.txt", "--offset", "10", "--limit", "5"], cwd=tree)
    assert page.stdout.decode().split("\n")[-2:] == [
        "[Showing lines 10-14 of 5001. Continue with: "
        "readmany hashline five.txt --offset 15 --limit 5]",
        "",
    ]
    capped = run_readmany(["hashline", "five.txt", "--offset", "100", "--limit", "3000"], cwd=tree)
    assert capped.stdout.decode().split("\n")[-2:] == [
        "[Showing lines 100-2098 of 5001. Continue with: "
        "readmany hashline five.txt --offset 2099 --limit 1001]",
        "",
    ]
    end = run_readmany(["hashline", "five.txt", "--offset", "4999"], cwd=tree)
    assert end.stdout.decode().endswith(f"\n{rows(4999, 5001)}\n")


def test_following_the_continuations_gives_every_row_once(tree: Path) -> None:
    command = "readmany hashline five.txt"
    shown = []
    while command:
        result = run_readmany(shlex.split(command)[1:], cwd=tree)
        assert result.returncode == 0
        _header, *lines = result.stdout.decode()[:-1].split("\n")
        command = ""
        if lines[-1].startswith("[Showing"):
            command = lines[-1].partition("Continue with: ")[2][:-1]
            lines = lines[:-2]
        shown.extend(lines)
    assert "\n".join(shown) == rows(1, 5001)


def test_compacted_rows_are_still_named_with_the_continuation(tmp_path: Path) -> None:
    wide = "w" * 60_000
    (tmp_path / "wide.txt").write_text(f"a\n{wide}\nb\nc\n")
    result = run_readmany(["hashline", "wide.txt", "--limit", "2"], cwd=tmp_path)
    assert result.stdout.decode().split("\n")[1:] == [
        f"1#{line_anchor('a')}|a",
        f"2#{line_anchor(wide)}|{'w' * 500}... [truncated]",
        "",
        "[Lines 2 shown compactly. Their anchors hash the full original lines. "
        "Showing lines 1-2 of 5. Continue with: readmany hashline wide.txt --offset 3 --limit 2]",
        "",
    ]
    whole = run_readmany(["hashline", "wide.txt"], cwd=tmp_path)
    assert whole.stdout.decode().endswith(
        "\n\n[Lines 2 shown compactly. Their anchors hash the full original lines.]\n"
    )


def test_paths_are_literal_and_errors_name_them(tree: Path) -> None:
    (tree / "a b.txt").write_text("x\n")
    (tree / "dir").mkdir()
    cases = {
        "@five.txt": "readmany: @five.txt: no such file or directory\n",
        "a\u00a0b.txt": "readmany: a\u00a0b.txt: no such file or directory\n",
        "dir": "readmany: dir: is a directory; read its files with: readmany glob dir\n",
    }
    for path, message in cases.items():
        result = run_readmany(["hashline", path], cwd=tree)
        assert (result.returncode, result.stdout, result.stderr.decode()) == (1, b"", message)
    past = run_readmany(["hashline", "five.txt", "--offset", "5002"], cwd=tree)
    assert (
        past.stderr == b"readmany: five.txt: line 5002 is past the end of the file (5001 lines)\n"
    )
    compat = run_readmany(["hashline", "--compat", "@five.txt", "--limit", "1"], cwd=tree)
    assert compat.stdout.decode().startswith("@file @five.txt#")


@pytest.mark.smoke
def test_continuation_of_an_odd_name_runs_in_a_shell(tree: Path) -> None:
    (tree / "-my five.txt").write_text(FIVE_THOUSAND)
    result = run_readmany(["hashline", "--limit", "2", "--", "-my five.txt"], cwd=tree)
    notice = result.stdout.decode().split("\n")[-2]
    assert notice == (
        "[Showing lines 1-2 of 5001. Continue with: "
        "readmany hashline --offset 3 --limit 2 -- '-my five.txt']"
    )
    command = notice.partition("Continue with: ")[2][:-1]
    shell = " ".join(shlex.quote(w) for w in readmany_command()) + command[len("readmany") :]
    rest = subprocess.run(["sh", "-c", shell], cwd=tree, capture_output=True, check=False)
    assert rest.stdout.decode().split("\n")[1:3] == rows(3, 4).split("\n")


@pytest.mark.smoke
def test_a_read_only_file_continues_with_offset(shared_dir: Path) -> None:
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("running as root without setpriv/runuser: every file is writable")
    (shared_dir / "ro.txt").write_text(FIVE_THOUSAND)
    os.chmod(shared_dir / "ro.txt", 0o444)
    result = run_unprivileged(prefix, ["hashline", "ro.txt", "--json"], shared_dir)
    value = json.loads(result.stdout)
    assert value["content"] == (
        FIVE_THOUSAND[: FIVE_THOUSAND.index("\n2001\n")] + "\n\n[Showing lines 1-2000 of 5000. "
        "Continue with: readmany hashline ro.txt --offset 2001]"
    )
    assert value["details"]["nextOffset"] == 2001
    page = run_unprivileged(
        prefix, ["hashline", "ro.txt", "--offset", "4998", "--limit", "2"], shared_dir
    )
    assert page.stdout.decode() == (
        "4998\n4999\n\n"
        "[Showing lines 4998-4999 of 5000. Continue with: "
        "readmany hashline ro.txt --offset 5000 --limit 2]\n"
    )


def test_a_file_of_cr_line_ends_pages_by_the_lines_it_shows(tmp_path: Path) -> None:
    # Each CR ends a line as hashline shows it, so each line can be asked for; the
    # reference's own check counts LFs alone (`--compat` keeps it).
    (tmp_path / "cr.txt").write_bytes(b"one\rtwo\rthree\r")
    second = run_readmany(["hashline", "cr.txt", "--offset", "2", "--limit", "1"], cwd=tmp_path)
    assert second.returncode == 0
    rows = second.stdout.decode().splitlines()[1:]
    whole = run_readmany(["hashline", "cr.txt"], cwd=tmp_path).stdout.decode().splitlines()
    assert rows[0] == whole[2] == "2#nbl|two"
    past = run_readmany(["hashline", "cr.txt", "--offset", "5"], cwd=tmp_path)
    assert past.stderr == b"readmany: cr.txt: line 5 is past the end of the file (4 lines)\n"
    reference = run_readmany(["hashline", "--compat", "cr.txt", "--offset", "2"], cwd=tmp_path)
    assert reference.stderr == b"readmany: Offset 2 is beyond end of file (1 lines total)\n"


def test_an_image_is_named_with_the_command_that_gets_it(tmp_path: Path) -> None:
    png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")
    (tmp_path / "logo.png").write_bytes(png + b"\0" * 20)
    result = run_readmany(["hashline", "logo.png"], cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == (
        b"[Image file (image/png, 49B), not shown as text. "
        b"Get it as a data: URL with: readmany glob logo.png]\n"
    )
    compat = run_readmany(["hashline", "--compat", "logo.png"], cwd=tmp_path)
    assert compat.stdout.startswith(b"Read image file [image/png]")
