"""Opening files without ever blocking: FIFOs, devices and sockets are refused up front.

`open_regular` is the only way the readers open a file. It checks with stat that the
path is a regular file, opens it with O_NONBLOCK (so a FIFO swapped in meanwhile cannot
hang the open) and checks again with fstat that what was opened is a regular file.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator

CHUNK = 1 << 16
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


class OpenFailure(Exception):
    """Why a path could not be opened as a regular file.

    `code` is the errno name (`ENOENT`, `EACCES`, `ENOTDIR`, `EISDIR`, `ELOOP`, or
    `ESPECIAL` for a FIFO, device or socket); `kind` names the special file type.
    """

    def __init__(self, code: str, path: str, kind: str = "") -> None:
        super().__init__(code, path, kind)
        self.code = code
        self.path = path
        self.kind = kind

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


def open_regular(path: str, *, listed_regular: bool = False) -> tuple[int, os.stat_result]:
    """Open `path` read-only; return (fd, stat). Raises OpenFailure for anything else.

    `listed_regular`: a directory listing just said this is a regular file, so the stat
    before opening is skipped; the fstat after it still checks.
    """
    if not listed_regular:
        try:
            st = os.stat(path)
        except OSError as exc:
            raise OpenFailure(_errno_name(exc), path) from None
        if not stat.S_ISREG(st.st_mode):
            if stat.S_ISDIR(st.st_mode):
                raise OpenFailure("EISDIR", path, "directory")
            raise OpenFailure("ESPECIAL", path, _file_kind(st.st_mode))
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise OpenFailure(_errno_name(exc), path) from None
    # O_NONBLOCK stays set: it has no effect on a regular file.
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped between stat and open
            kind = _file_kind(st.st_mode)
            raise OpenFailure("EISDIR" if kind == "directory" else "ESPECIAL", path, kind)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_all(fd: int, size: int) -> bytes:
    """The file's first `size` bytes (its size when opened), or fewer if it shrank.

    Never more: a file that grows while it is read (a log being written) would otherwise
    never end. What is read is the file as it was when it was opened.
    """
    return read_prefix(fd, size)


def chunks(fd: int, size: int, chunk_size: int = CHUNK) -> Iterator[bytes]:
    """The file's first `size` bytes in chunks (fewer if it shrank): see `read_all`."""
    position = 0
    while position < size:
        chunk = os.pread(fd, min(chunk_size, size - position), position)
        if not chunk:
            return
        position += len(chunk)
        yield chunk


def read_prefix(fd: int, count: int) -> bytes:
    """Read up to `count` bytes from the start of an open file."""
    first = os.pread(fd, count, 0)
    if len(first) >= count or not first:
        return first  # one read is enough for a regular file, nearly always
    parts = [first]
    got = len(first)
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
