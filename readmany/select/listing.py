"""A directory of the root's tree listed beneath the root's descriptor.

The walk decides to enter `sub` when `sub` is a directory; an attacker may swap it for a
link that leads out of the root right after. DirectoryEntry by its path, the link would be
followed and names from outside the root reported as the root's. DirectoryEntry here, every
directory is opened from the root's descriptor part by part with `O_NOFOLLOW`, so a part
swapped for a link is refused (`Listing.failure`), never followed. A path that reached the
directory through a link the walk chose to follow (one that stays inside the root) is
resolved once, judged inside, and its resolved parts opened the same way: a swap after
that resolution is refused too.

Each entry is read while the directory's descriptor is open (`DirectoryEntry`): what a listed link
leads to is asked beneath that descriptor, not of a path that may have changed since.
"""

from __future__ import annotations

import errno
import os
import stat

from readmany.record import NamedTuple

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_LISTED_FLAGS = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_HELD = 32  # directory descriptors kept open, the most recent


class LeadsOutside(OSError):
    """The directory to list lies outside the root, or its links lead there now."""


class DirectoryEntry(NamedTuple):
    """A name of a listed directory, as it was when listed."""

    name: str
    is_link: bool
    is_directory: bool  # not a link, a directory
    is_file: bool  # not a link, a regular file
    leads_to_directory: bool  # a link whose target (asked beneath the listing) is a directory


class Lister:
    """Lists directories beneath `root`'s descriptor (opened once, on first use)."""

    def __init__(self, root: str, root_real: str) -> None:
        self.root = root.rstrip("/") or "/"
        self.root_real = root_real.rstrip("/") or "/"
        self._root_fd = -1
        self._held: dict[str, int] = {}

    def close(self) -> None:
        for fd in self._held.values():
            os.close(fd)
        self._held.clear()
        if self._root_fd >= 0:
            os.close(self._root_fd)
            self._root_fd = -1

    def entries(self, directory: str, rel: str | None = None) -> list[DirectoryEntry] | str:
        """The entries of `directory` (absolute, inside the root; `rel`, its path below the
        root where the caller knows it), or why it cannot be listed. Raises LeadsOutside
        for one whose links lead outside the root."""
        try:
            fd = self._open(directory, rel)
        except LeadsOutside:
            raise
        except OSError as exc:
            return f"Read error: cannot list directory: {exc.strerror or exc}"
        try:
            with os.scandir(fd) as it:
                listed = list(it)
        except OSError as exc:
            return f"Read error: cannot list directory: {exc.strerror or exc}"
        # Asked now, while `fd` is open: most answers are the listing's own (d_type).
        make = tuple.__new__
        entries: list[DirectoryEntry] = []
        for e in listed:
            try:
                link = e.is_symlink()
                folder = not link and e.is_dir(follow_symlinks=False)
                regular = not (link or folder) and e.is_file(follow_symlinks=False)
            except OSError:
                link = folder = regular = False
            leads = link and _leads_to_directory(e.name, fd)
            entries.append(make(DirectoryEntry, (e.name, link, folder, regular, leads)))
        return entries

    def _open(self, directory: str, rel: str | None) -> int:
        if self._root_fd < 0:
            self._root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        if rel is None:
            rel = _relative(directory, self.root)
        if rel is None:
            raise LeadsOutside(errno.EXDEV, "it lies outside the root")
        try:
            return self._open_parts(rel)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
        # A link on the way that the walk followed: where it leads now, if still inside.
        real_rel = _relative(os.path.realpath(directory), self.root_real)
        if real_rel is None:
            raise LeadsOutside(errno.EXDEV, "it leads outside the root")
        try:
            return self._open_parts(real_rel)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise OSError(exc.errno, "it changed while it was listed") from None
            raise

    def _open_parts(self, rel: str) -> int:
        """`rel` opened part by part from the nearest directory held, no link followed."""
        if not rel:
            return self._root_fd
        fd = self._held.get(rel)
        if fd is not None:
            return fd
        parent, below = nearest_held(rel, self._held, self._root_fd)
        for path in below:
            name = path.rpartition("/")[2]
            if name in ("", ".", ".."):
                raise OSError(errno.EINVAL, "not a plain path")
            fd = os.open(name, _LISTED_FLAGS, dir_fd=parent)
            if len(self._held) >= _HELD:
                os.close(self._held.pop(next(iter(self._held))))
            self._held[path] = parent = fd
        return parent


def nearest_held(rel: str, held: dict[str, int], root_fd: int) -> tuple[int, list[str]]:
    """The descriptor of `rel`'s nearest directory held open (or the root's), and the
    root-relative paths from there down to `rel`, outermost first: any depth, no
    recursion. (The walk's listing and `read.safe`'s opening both descend so.)"""
    below: list[str] = []
    above = rel
    while above:
        fd = held.get(above)
        if fd is not None:
            return fd, below[::-1]
        below.append(above)
        above = above.rpartition("/")[0]
    return root_fd, below[::-1]


def _relative(path: str, root: str) -> str | None:
    path = os.path.normpath(path)
    if path == root:
        return ""
    prefix = root if root == "/" else root + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None


def _leads_to_directory(name: str, fd: int) -> bool:
    """Whether the link `name` in the directory `fd` leads to a directory (asked beneath
    it); not when it cannot be followed (reported as the file it is listed as)."""
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=fd).st_mode)
    except OSError:
        return False


def outside_entry(entry: os.DirEntry[str]) -> DirectoryEntry:
    """An entry of a directory outside the root, listed by its path (where the face lists one)."""
    try:
        is_link = entry.is_symlink()
        is_directory = not is_link and entry.is_dir(follow_symlinks=False)
        is_file = not is_link and not is_directory and entry.is_file(follow_symlinks=False)
    except OSError:
        return DirectoryEntry(entry.name, False, False, False, False)
    leads = False
    if is_link:
        try:
            leads = entry.is_dir()
        except OSError:
            leads = False
    return DirectoryEntry(entry.name, is_link, is_directory, is_file, leads)
