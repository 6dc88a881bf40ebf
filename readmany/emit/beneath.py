"""Writing beneath a directory descriptor, as the read opens beneath the root's.

The directory a write goes to is opened once, one path component at a time from a
directory already held open, with `O_NOFOLLOW`: a component that is a link, or is
swapped for one, ends the walk (`LinkOnTheWay`). Every later step (the temporary file,
the rename over the old file, the removal of a temporary left over) names a file in that
directory by its descriptor, so a directory swapped for a link meanwhile changes nothing
of where the bytes go: the kernel's `openat` and `renameat` resolve one name, in the
directory opened, and follow no link at the end of it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

from readmany.read.safe import NOFOLLOW

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# A directory only passed through is opened O_PATH: it needs search permission alone.
_PASS_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | NOFOLLOW | _CLOEXEC
# The directory written in is opened for reading where it may be, so it can be fsync'd.
_HOLD_FLAGS = os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW | _CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | _CLOEXEC
_TEMP_TRIES = 100
TEMP_NAME_CHARS = 100
"""Of a file's name, in its temporary file's name: the rest must fit NAME_MAX (255)."""


class LinkOnTheWay(Exception):
    """A component on the way to the directory written in is a symbolic link.

    `walked` is the path up to and including it, as the parts given spell it.
    """

    def __init__(self, walked: str) -> None:
        super().__init__(walked)
        self.walked = walked


def open_directory(start: int, parts: Sequence[str]) -> int:
    """A new descriptor of the directory `parts` lead to from the directory `start`.

    No link is followed (`LinkOnTheWay`); `..` goes up as the kernel takes it, from the
    directory reached; `""` and `.` are no step. Raises OSError for any other failure
    (`ENOENT`, `ENOTDIR`, `EACCES`). The caller closes the descriptor.
    """
    steps = [part for part in parts if part not in ("", ".")]
    walked: list[str] = []
    parent = start
    try:
        for index, part in enumerate(steps):
            walked.append(part)
            last = index == len(steps) - 1
            fd = _open_step(parent, part, "/".join(walked), hold=last)
            if parent != start:
                os.close(parent)
            parent = fd
        if parent == start:
            return _open_step(start, ".", ".", hold=True)
        return parent
    except BaseException:
        if parent != start:
            os.close(parent)
        raise


def _open_step(parent: int, part: str, walked: str, *, hold: bool) -> int:
    for flags in (_HOLD_FLAGS, _PASS_FLAGS) if hold else (_PASS_FLAGS,):
        try:
            return os.open(part, flags, dir_fd=parent)
        except PermissionError:
            if flags == _PASS_FLAGS:
                raise
            continue  # readable it is not, searchable it may be: held without fsync
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and is_link(parent, part):
                raise LinkOnTheWay(walked) from None
            raise
    raise AssertionError("unreachable")  # pragma: no cover


def is_link(directory: int, name: str) -> bool:
    """Whether `name` in `directory` is a symbolic link (one `fstatat`, no link followed)."""
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode)
    except OSError:
        return False


def create_temporary(directory: int, name: str, mode: int = 0o600) -> tuple[int, str]:
    """A new file beside `name` in `directory`: (its descriptor, its name).

    Created exclusively (`O_EXCL`, `O_NOFOLLOW`): nothing planted under the name, file or
    link, is ever written through. Raises OSError.
    """
    for _ in range(_TEMP_TRIES):
        temporary = temporary_name(name)
        try:
            return os.open(temporary, _TEMP_FLAGS, mode, dir_fd=directory), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free name for a temporary file")


def temporary_name(name: str) -> str:
    """`.NAME.RANDOM.tmp`: hidden, beside the file, and never a name the file could have."""
    return f".{name[:TEMP_NAME_CHARS]}.{os.urandom(6).hex()}.tmp"


def replace(directory: int, temporary: str, name: str) -> None:
    """Rename `temporary` over `name`, both in `directory` (`renameat`): atomic, and a
    link at `name` is replaced, never followed."""
    os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)


def remove(directory: int, name: str) -> None:
    """Unlink `name` in `directory` if it is there; never raises."""
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=directory)


def sync(directory: int) -> None:
    """fsync a directory renamed into, so the new name survives a crash; never raises
    (a directory held without read permission cannot be synced)."""
    with contextlib.suppress(OSError):
        os.fsync(directory)


class Directories:
    """Directories beneath a root held open: each opened once (`open_directory`, no link
    followed) and kept, by its parts, until `close`.

    The root itself is opened as named, its links followed: it is the user's own.
    Raises OSError when it cannot be opened.
    """

    def __init__(self, root: str) -> None:
        try:
            self.root_fd = os.open(root, _HOLD_FLAGS & ~NOFOLLOW)
        except PermissionError:
            self.root_fd = os.open(root, _PASS_FLAGS & ~NOFOLLOW)
        self._held: dict[tuple[str, ...], int] = {}

    def open(self, parts: Sequence[str]) -> int:
        """The descriptor of the directory `parts` lead to from the root (see
        `open_directory`); held until `close`, so the caller never closes it."""
        key = tuple(parts)
        fd = self._held.get(key)
        if fd is None:
            fd = self._held[key] = open_directory(self.root_fd, key)
        return fd

    def close(self) -> None:
        for fd in self._held.values():
            os.close(fd)
        self._held.clear()
        if self.root_fd >= 0:
            os.close(self.root_fd)
            self.root_fd = -1
