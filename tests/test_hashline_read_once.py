"""`hashline --secrets warn|skip` reads the file once: the check judges the very bytes the
read then shows, and a file is not read twice to be checked and shown (issue 26)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from readmany.__main__ import main

SIZE = 200_000


def _bytes_read_of(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the bytes read from `path` (by any descriptor open on it) with `os.pread`."""
    inode = path.stat().st_ino
    counted = [0]
    real_pread = os.pread

    def pread(fd: int, count: int, offset: int) -> bytes:
        data = real_pread(fd, count, offset)
        if os.fstat(fd).st_ino == inode:
            counted[0] += len(data)
        return data

    monkeypatch.setattr(os, "pread", pread)
    return counted


@pytest.mark.parametrize("mode", ["warn", "skip"])
def test_the_secrets_check_and_the_read_read_the_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    line = "value = compute(1, 2, 3)  # nothing secret here\n"
    path = tmp_path / "big.py"
    path.write_text(line * (SIZE // len(line)))
    monkeypatch.chdir(tmp_path)
    counted = _bytes_read_of(path, monkeypatch)
    status = main(["hashline", "big.py", "--secrets", mode])
    out = capsys.readouterr().out
    assert status == 0
    assert "compute(1, 2, 3)" in out
    size = path.stat().st_size
    assert size <= counted[0] < 1.2 * size, f"{counted[0] / size:.2f} times the file read"


def test_what_is_judged_is_what_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The file changes after the check's read: the key the check saw is what is shown,
    # never a clean text judged and a key shown.
    path = tmp_path / "conf.py"
    key = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    path.write_text(f'TOKEN = "{key}"\n')
    monkeypatch.chdir(tmp_path)
    real_pread = os.pread
    reads = [0]

    def pread(fd: int, count: int, offset: int) -> bytes:
        data = real_pread(fd, count, offset)
        reads[0] += 1
        if reads[0] == 1:  # after the first read, the file is rewritten without the key
            path.write_text('TOKEN = "nothing"\n')
        return data

    monkeypatch.setattr(os, "pread", pread)
    status = main(["hashline", "conf.py", "--secrets", "warn"])
    captured = capsys.readouterr()
    assert status == 0
    assert "looks like a secret" in captured.err
    assert key in captured.out
