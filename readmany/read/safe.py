"""Opening files without ever blocking: FIFOs, devices and sockets are refused up front.

`open_regular` is the only way the readers open a file. It opens with O_NONBLOCK (so a
FIFO without a writer cannot hang the open), checks with fstat that the thing opened is
a regular file, then clears O_NONBLOCK again.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass

CHUNK = 1 << 16


@dataclass(frozen=True)
class OpenFailure(Exception):
    """Why a path could not be opened as a regular file.

    `code` is the errno name (`ENOENT`, `EACCES`, `ENOTDIR`, `EISDIR`, `ELOOP`, or
    `ESPECIAL` for a FIFO, device or socket); `kind` names the special file type.
    """

    code: str
    path: str
    kind: str = ""

    def __str__(self) -> str:
        return f"{self.code}: {self.path}"


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def open_regular(path: str) -> tuple[int, os.stat_result]:
    """Open `path` read-only; return (fd, stat). Raises OpenFailure for anything else."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise OpenFailure(_errno_name(exc), path) from None
    if not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise OpenFailure("EISDIR", path, "directory")
        raise OpenFailure("ESPECIAL", path, _file_kind(st.st_mode))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise OpenFailure(_errno_name(exc), path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped between stat and open
            raise OpenFailure("ESPECIAL", path, _file_kind(st.st_mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_all(fd: int, size_hint: int) -> bytes:
    """Read an open file to its end (it may have grown or shrunk since fstat)."""
    parts: list[bytes] = []
    want = max(size_hint, 0) + 1
    while True:
        chunk = os.read(fd, max(want, CHUNK))
        if not chunk:
            break
        parts.append(chunk)
        want = CHUNK
    return b"".join(parts)


def read_prefix(fd: int, count: int) -> bytes:
    """Read up to `count` bytes from the start of an open file."""
    parts: list[bytes] = []
    got = 0
    while got < count:
        chunk = os.pread(fd, count - got, got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _errno_name(exc: OSError) -> str:
    if exc.errno is None:
        return "EIO"
    return errno.errorcode.get(exc.errno, "EIO")
