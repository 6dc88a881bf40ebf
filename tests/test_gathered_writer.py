"""The stdout writer: pieces gathered and written with writev, partial writes resumed."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import readmany.emit.stdout as targets
from readmany.emit.stdout import GatheredWriter


def _pieces() -> list[bytes]:
    return [f"{n:05d}".encode() * (n % 50) for n in range(3000)]


def test_every_byte_arrives_in_order_through_a_small_pipe() -> None:
    read_end, write_end = os.pipe()
    received = bytearray()

    def drain() -> None:
        while chunk := os.read(read_end, 1000):  # slowly: writev is cut short often
            received.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    writer = GatheredWriter(write_end, limit=10_000)
    for piece in _pieces():
        assert writer.write(piece) == len(piece)
    writer.close()
    os.close(write_end)
    reader.join()
    os.close(read_end)
    assert bytes(received) == b"".join(_pieces())


def test_partial_writes_and_the_piece_limit_are_honoured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT)
    calls: list[int] = []
    real_writev = os.writev

    def stingy(descriptor: int, buffers: list[bytes]) -> int:
        calls.append(len(buffers))
        assert len(calls) < 100_000, "the writer makes no progress"
        whole = b"".join(buffers)
        return real_writev(descriptor, [whole[: max(1, len(whole) // 3)]])

    monkeypatch.setattr(targets, "_IOV_MAX", 7)
    monkeypatch.setattr(os, "writev", stingy)
    writer = GatheredWriter(fd, limit=1 << 30)  # everything waits for the close
    for piece in _pieces():
        writer.write(piece)
    writer.close()
    writer.close()  # a second close writes nothing more
    os.close(fd)
    assert target.read_bytes() == b"".join(_pieces())
    assert max(calls) <= 7


def test_a_closed_reader_is_a_broken_pipe() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    writer = GatheredWriter(write_end, limit=1)
    with pytest.raises(BrokenPipeError):
        writer.write(b"x")
    os.close(write_end)
