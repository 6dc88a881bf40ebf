"""Where content is written: standard output in large pieces, or a file given with `-o`."""

from __future__ import annotations

import contextlib
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO


class GatheredWriter:
    """Writes to a file descriptor in large pieces without copying them together first.

    Pieces are kept as they come and handed to `os.writev` once `limit` bytes are
    waiting (at most `IOV_MAX` pieces a call), so the kernel copies each piece once.
    """

    def __init__(self, fd: int, limit: int = 1 << 18) -> None:
        self._fd = fd
        self._limit = limit
        self._pieces: list[bytes] = []
        self._waiting = 0
        self.closed = False

    def write(self, data: bytes, /) -> int:
        if data:
            self._pieces.append(data)
            self._waiting += len(data)
            if self._waiting >= self._limit:
                self.flush()
        return len(data)

    def flush(self) -> None:
        pieces, self._pieces, self._waiting = self._pieces, [], 0
        first = 0
        while first < len(pieces):
            written = os.writev(self._fd, pieces[first : first + _IOV_MAX])
            while first < len(pieces) and written >= len(pieces[first]):
                written -= len(pieces[first])  # gone out whole
                first += 1
            if written:
                pieces[first] = pieces[first][written:]  # gone out in part: the rest waits

    def close(self) -> None:
        """Write what waits; the descriptor stays open (it is stdout)."""
        if not self.closed:
            self.closed = True
            self.flush()


def _iov_max() -> int:
    try:
        return max(16, os.sysconf("SC_IOV_MAX"))
    except (AttributeError, ValueError, OSError):
        return 16


_IOV_MAX = _iov_max()


class AtomicFile:
    """A file written to a temporary name beside the target and renamed on commit.

    A failed or interrupted run (no `commit()`) leaves nothing behind.
    """

    def __init__(self, target: str) -> None:
        self.target = target
        import tempfile

        directory = os.path.dirname(os.path.abspath(target))
        fd, self._tmp = tempfile.mkstemp(
            prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=directory
        )
        self.stream: IO[bytes] = os.fdopen(fd, "wb")

    def commit(self) -> None:
        self.stream.flush()
        os.fsync(self.stream.fileno())
        self.stream.close()
        mode = 0o666 & ~_umask()
        os.chmod(self._tmp, mode)
        os.replace(self._tmp, self.target)

    def discard(self) -> None:
        if not self.stream.closed:
            self.stream.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
