"""Writes under a racing attacker: `edit` and `-o` write nothing outside the root while a
directory on the way is swapped, again and again, for a link that leads out.

A child process exchanges `repo/sub` (a directory) with `repo/subx` (a link to a
directory outside the repository) as fast as it can, with `renameat2(RENAME_EXCHANGE)`,
so that `sub` is a directory one moment and the link the next; where the call is missing
it renames the pair in turn instead (`swap_mode` says which ran), which leaves moments
with no `sub` at all. Meanwhile the real entry point runs the command 500 times in this
process (100 unless READMANY_TESTS_FULL=1, and more until one has passed the swap). After
each try nothing outside may have changed; no try may exit 70 or say more than one line;
and when the swapping stops no temporary file is left anywhere. The swapper stops by
itself after a while should the test die first.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import scaled

from readmany.__main__ import main
from readmany.read.hashline import file_tag, line_anchor

TRIES = scaled(500)  # a fifth of it unless READMANY_TESTS_FULL=1
FULL_TRIES = 500


def _tries(codes: dict[int, int]) -> Iterator[int]:
    """TRIES tries, and more, up to FULL_TRIES, until one of them exited 0 (`codes`)."""
    for number in range(FULL_TRIES):
        if number >= TRIES and codes.get(0, 0):
            return
        yield number


_LIFETIME = 120  # seconds: the swapper's own limit, should this process die first

_SWAPPER = textwrap.dedent(
    """
    import ctypes, os, sys, time

    first, second, lifetime = sys.argv[1], sys.argv[2], float(sys.argv[3])
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    a, b = os.fsencode(first), os.fsencode(second)

    def exchange():
        if renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")

    def rename_pair():
        os.rename(first, first + ".real")
        os.rename(second, first)
        os.rename(first, second)
        os.rename(first + ".real", first)

    swap = exchange
    try:
        if renameat2 is None:
            raise OSError("no renameat2")
        exchange()
        exchange()
    except OSError:
        swap = rename_pair
    print("exchange" if swap is exchange else "rename pair", flush=True)
    end = time.monotonic() + lifetime
    while time.monotonic() < end:
        for _ in range(100):
            swap()
        if os.getppid() == 1:  # the test is gone
            break
    """
)


class Swapper:
    """The child swapping `sub` and `subx` in `repo` while it runs."""

    def __init__(self, repo: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _SWAPPER, "sub", "subx", str(_LIFETIME)],
            cwd=repo,
            stdout=subprocess.PIPE,
        )
        assert self.process.stdout is not None
        self.mode = self.process.stdout.readline().decode().strip()
        assert self.mode in ("exchange", "rename pair")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """`repo/sub/` and `repo/subx -> outside/`; the current directory is `repo`."""
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (repo / "subx").symlink_to(tmp_path / "outside")
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        yield repo
    finally:
        os.chdir(cwd)


def _stray_temporaries(*directories: Path) -> list[str]:
    return [
        f"{directory.name}/{name}"
        for directory in directories
        for name in os.listdir(directory)
        if name.endswith(".tmp")
    ]


def _one_line(err: str) -> bool:
    return err.count("\n") <= 1


VICTIM = b"a\n"


@pytest.mark.slow
def test_edit_writes_nothing_outside_the_root_while_a_directory_is_swapped(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = repo.parent / "outside"
    (outside / "victim.conf").write_bytes(VICTIM)  # the same bytes: the tag matches both
    (repo / "sub" / "victim.conf").write_bytes(VICTIM)
    real_sub = os.open(repo / "sub", os.O_RDONLY | os.O_DIRECTORY)
    argv = [
        "edit",
        f"sub/victim.conf#{file_tag(VICTIM)}",
        "--replace",
        f"1#{line_anchor('a')}",
        "--content",
        "X",
        "--root",
        str(repo),
    ]
    written_outside = bad_exits = many_lines = 0
    codes: dict[int, int] = {}
    swapper = Swapper(repo)
    try:
        for _ in _tries(codes):
            code = main(argv)
            _, err = capsys.readouterr()
            codes[code] = codes.get(code, 0) + 1
            bad_exits += code not in (0, 1, 2, 3)
            many_lines += not _one_line(err)
            if (outside / "victim.conf").read_bytes() != VICTIM:
                written_outside += 1
                (outside / "victim.conf").write_bytes(VICTIM)
            fd = os.open("victim.conf", os.O_WRONLY | os.O_TRUNC, dir_fd=real_sub)
            os.write(fd, VICTIM)
            os.close(fd)
    finally:
        swapper.stop()
        os.close(real_sub)
    left = _stray_temporaries(outside, *(p for p in repo.iterdir() if not p.is_symlink()))
    summary = (written_outside, left, bad_exits, many_lines)
    assert summary == (0, [], 0, 0), (swapper.mode, codes)
    assert codes.get(0, 0) > 0, codes  # the race was run, not refused wholesale
    assert sorted(os.listdir(outside)) == ["victim.conf"]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["glob", "many", "hashline"])
def test_output_writes_nothing_outside_while_its_directory_is_swapped(
    repo: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    outside = repo.parent / "outside"
    (repo / "a.txt").write_bytes(b"alpha\n")
    written_outside = bad_exits = many_lines = 0
    codes: dict[int, int] = {}
    swapper = Swapper(repo)
    try:
        for _ in _tries(codes):
            code = main([command, "a.txt", "-o", "sub/ctx.txt", "-q"])
            _, err = capsys.readouterr()
            codes[code] = codes.get(code, 0) + 1
            bad_exits += code not in (0, 2)
            many_lines += not _one_line(err)
            if os.listdir(outside):
                written_outside += 1
                for name in os.listdir(outside):
                    os.unlink(outside / name)
    finally:
        swapper.stop()
    real_sub = repo / ("sub" if not (repo / "sub").is_symlink() else "subx")
    summary = (written_outside, _stray_temporaries(real_sub), bad_exits, many_lines)
    assert summary == (0, [], 0, 0), (swapper.mode, codes)
    assert codes.get(0, 0) > 0, codes
    assert b"alpha" in (real_sub / "ctx.txt").read_bytes()
