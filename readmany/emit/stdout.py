"""Standard output, written in large pieces (the `-o` file is `emit.target`)."""

from __future__ import annotations

import os


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
