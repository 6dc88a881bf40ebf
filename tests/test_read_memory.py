"""Memory stays a small multiple of what is written: a long file is framed and written
without a copy of the frame and the text joined, nor one encoded whole."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from readmany.__main__ import main

SIZE = 24 << 20  # one line, no line break: a file a read cannot cut into lines


@pytest.mark.parametrize(
    "args",
    [
        ["glob", "one.txt", "--max-file-size", "1G"],
        ["glob", "one.txt", "--max-file-size", "1G", "--json"],
    ],
    ids=["text", "json"],
)
def test_a_long_file_is_written_with_two_copies_at_most(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    (tmp_path / "one.txt").write_bytes(b"a" * SIZE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("READMANY_PROCESSES", "1")
    tracemalloc.start()
    try:
        status = main([*args, "-o", str(tmp_path / "out.txt"), "-q"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert status == 0
    assert (tmp_path / "out.txt").stat().st_size > SIZE
    # The text read and its framed block; not also the two joined, nor the bytes encoded.
    assert peak < 2.5 * SIZE, f"{peak / SIZE:.2f} times the file"


def test_many_holds_a_long_text_once_in_its_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One line read over many chunks: decoded as it comes, not also joined as bytes; its
    # block the one copy kept until it is written (no cutter's copy, no read's copy).
    (tmp_path / "one.txt").write_bytes(b"a" * SIZE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("READMANY_PROCESSES", "1")
    tracemalloc.start()
    try:
        status = main(["many", "one.txt", "--max-bytes", "1G", "-o", str(tmp_path / "out.txt")])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert status == 0
    assert (tmp_path / "out.txt").stat().st_size > SIZE
    assert peak < 2.5 * SIZE, f"{peak / SIZE:.2f} times the file"
