"""Opening files without ever blocking, and without leaving the root.

`open_regular` opens a path as it is. It checks with stat that the path is a regular
file, opens it with O_NONBLOCK (so a FIFO swapped in meanwhile cannot hang the open) and
checks again with fstat that what was opened is a regular file.

`Boundary.open` opens a root-relative path beneath a descriptor of the root, one
component at a time with O_NOFOLLOW, so that a file or directory swapped for a link
between the walk and the read is refused, never read: where the walk saw no link, any
link is a change; where it followed links, they are followed here too, but only while
they stay inside the root, and to where the walk found them to lead.
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
    `ESPECIAL` for a FIFO, device or socket; from `Boundary.open` also `EOUTSIDE` for a
    path that leads out of the root and `ECHANGED` for one that changed since the walk);
    `kind` names the special file type.
    """

    def __init__(self, code: str, path: str, kind: str = "") -> None:
        super().__init__(code, path, kind)
        self.code = code
        self.path = path
        self.kind = kind

    def __str__(self) -> str:
        return f"{self.code}: {self.path}"


def file_kind(mode: int) -> str:
    """What a file of this mode is, in words (`FIFO`, `socket`, `character device` …)."""
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
            raise OpenFailure("ESPECIAL", path, file_kind(st.st_mode))
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise OpenFailure(_errno_name(exc), path) from None
    # O_NONBLOCK stays set: it has no effect on a regular file.
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped between stat and open
            kind = file_kind(st.st_mode)
            raise OpenFailure("EISDIR" if kind == "directory" else "ESPECIAL", path, kind)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def open_regular_in(directory: int, name: str, path: str) -> tuple[int, os.stat_result]:
    """Open the regular file `name` in the directory `directory` read-only, following no
    link; return (fd, stat). `path` is what failures name. As `open_regular`, a FIFO or
    device is refused before it is opened. Raises OpenFailure: `ECHANGED` for a link (the
    caller resolved every link on the way: one there now was swapped in since)."""
    try:
        st = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except OSError as exc:
        raise OpenFailure(_errno_name(exc), path) from None
    if stat.S_ISLNK(st.st_mode):
        raise OpenFailure(ECHANGED, path)
    if not stat.S_ISREG(st.st_mode):
        kind = file_kind(st.st_mode)
        raise OpenFailure("EISDIR" if kind == "directory" else "ESPECIAL", path, kind)
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=directory)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OpenFailure(ECHANGED, path) from None
        raise OpenFailure(_errno_name(exc), path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped between the stat and the open
            kind = file_kind(st.st_mode)
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


def chunks(fd: int, size: int, chunk_size: int = CHUNK, start: int = 0) -> Iterator[bytes]:
    """The file's first `size` bytes in chunks (fewer if it shrank), from `start` on: see
    `read_all`."""
    position = start
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


# -- opening beneath the root --

EOUTSIDE = "EOUTSIDE"
ECHANGED = "ECHANGED"
_REFUSALS = {
    EOUTSIDE: "refused: it leads outside the root",
    ECHANGED: "refused: it changed after it was listed",
}
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # 0 where the system has none
_FILE_FLAGS = _OPEN_FLAGS | NOFOLLOW
# O_PATH: a directory is only passed through, never read, so it needs no read permission
# beyond search and costs less to open.
_DIR_FLAGS = (
    getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
)
_MAX_LINKS = 40  # as the kernel's own limit for one path
_CACHED_DIRECTORIES = 32


def refusal_text(failure: OpenFailure) -> str | None:
    """The one-line reason for an `EOUTSIDE` or `ECHANGED` refusal; None for other codes."""
    return _REFUSALS.get(failure.code)


class Boundary:
    """A root held open by a descriptor, beneath which files are opened.

    The descriptors of the directories most recently passed through are kept, so that
    the files of one directory cost one `openat` each. Close it when done (or use `with`).
    """

    def __init__(self, root: str) -> None:
        try:
            self._root_fd = os.open(root, _DIR_FLAGS & ~NOFOLLOW)
        except OSError as exc:
            raise OpenFailure(_errno_name(exc), root) from None
        self.root = root
        try:
            self.root_real = os.path.realpath(root)
        except OSError as exc:  # a link on its way swapped while it was resolved
            os.close(self._root_fd)
            raise OpenFailure(_errno_name(exc), root) from None
        self._directories: dict[str, int] = {}

    def __enter__(self) -> Boundary:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in self._directories.values():
            os.close(fd)
        self._directories.clear()
        if self._root_fd >= 0:
            os.close(self._root_fd)
            self._root_fd = -1

    def open(
        self,
        rel: str,
        *,
        real: str | None = None,
        expected: tuple[int, int] | None = None,
    ) -> tuple[int, os.stat_result]:
        """Open the regular file at root-relative `rel`; return (fd, stat).

        `real`: where the walk found `rel` to lead (root-relative, links resolved) when a
        link was on its way; then links are followed, inside the root, and must lead
        there. Without it, no link is followed. `expected`: the (st_dev, st_ino) the walk
        saw. Raises OpenFailure; `EOUTSIDE` and `ECHANGED` say the path changed.
        """
        if real is not None:
            fd = self._open_resolved(rel, real)
        else:
            directory, _, name = rel.rpartition("/")
            if name in ("", ".", "..") or _dotted(directory):
                raise OpenFailure(EOUTSIDE, rel)
            parent = self._directory(directory, rel) if directory else self._root_fd
            fd = self._open_file(parent, name, rel)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                kind = file_kind(st.st_mode)
                raise OpenFailure("EISDIR" if kind == "directory" else "ESPECIAL", rel, kind)
            if expected is not None and (st.st_dev, st.st_ino) != expected:
                raise OpenFailure(ECHANGED, rel)
        except BaseException:
            os.close(fd)
            raise
        return fd, st

    def readlink(self, rel: str) -> str:
        """The target of the link at root-relative `rel`, its directories opened as `open`
        opens them (no link followed); OpenFailure `EINVAL` when it is no link."""
        directory, _, name = rel.rpartition("/")
        if name in ("", ".", "..") or _dotted(directory):
            raise OpenFailure(EOUTSIDE, rel)
        parent = self._directory(directory, rel) if directory else self._root_fd
        try:
            return os.readlink(name, dir_fd=parent)
        except OSError as exc:
            raise OpenFailure(_errno_name(exc), rel) from None

    def _open_file(self, parent: int, name: str, rel: str) -> int:
        try:
            return os.open(name, _FILE_FLAGS, dir_fd=parent)
        except OSError as exc:
            if exc.errno == errno.ELOOP and _is_link(name, parent):
                raise OpenFailure(ECHANGED, rel) from None  # a link where the walk saw none
            if exc.errno == errno.ENXIO:  # a socket cannot be opened: say what it is
                raise OpenFailure("ESPECIAL", rel, "socket") from None
            raise OpenFailure(_errno_name(exc), rel) from None

    def _directory(self, directory: str, rel: str) -> int:
        """The descriptor of a root-relative directory, opened part by part, no link followed."""
        fd = self._directories.get(directory)
        if fd is not None:
            return fd
        # Up to the nearest directory held open (or the root), then down part by part.
        from readmany.select.listing import nearest_held

        parent, below = nearest_held(directory, self._directories, self._root_fd)
        for path in below:
            name = path.rpartition("/")[2]
            try:
                fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
            except OSError as exc:
                if exc.errno in (errno.ENOTDIR, errno.ELOOP) and _is_link(name, parent):
                    raise OpenFailure(ECHANGED, rel) from None
                raise OpenFailure(_errno_name(exc), rel) from None
            if len(self._directories) >= _CACHED_DIRECTORIES:
                oldest = next(iter(self._directories))
                os.close(self._directories.pop(oldest))
            self._directories[path] = parent = fd
        return parent

    def _open_resolved(self, rel: str, real: str) -> int:
        """Open `rel` following links as the walk did, never above the root; it must be `real`."""
        pending = [part for part in reversed(rel.split("/")) if part not in ("", ".")]
        trail: list[str] = []  # the root-relative path reached so far, links resolved
        held: list[int] = []  # the descriptors of `trail`'s directories
        links = 0
        try:
            while pending:
                part = pending.pop()
                if part == "..":
                    if not trail:
                        raise OpenFailure(EOUTSIDE, rel)
                    trail.pop()
                    os.close(held.pop())
                    continue
                parent = held[-1] if held else self._root_fd
                last = not pending
                try:
                    fd = os.open(part, _FILE_FLAGS if last else _DIR_FLAGS, dir_fd=parent)
                except OSError as exc:
                    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise OpenFailure(_errno_name(exc), rel) from None
                    try:
                        target = os.readlink(part, dir_fd=parent)
                    except OSError:
                        raise OpenFailure(_errno_name(exc), rel) from None
                    links += 1
                    if links > _MAX_LINKS:
                        raise OpenFailure("ELOOP", rel) from None
                    if target.startswith("/"):
                        inside = _relative_inside(target, self.root_real)
                        if inside is None:
                            raise OpenFailure(EOUTSIDE, rel) from None
                        for fd in held:
                            os.close(fd)
                        held.clear()
                        trail.clear()
                        target = inside
                    pending.extend(p for p in reversed(target.split("/")) if p not in ("", "."))
                    continue
                if last:
                    trail.append(part)
                    if "/".join(trail) != real:
                        os.close(fd)
                        raise OpenFailure(ECHANGED, rel)
                    return fd
                held.append(fd)
                trail.append(part)
            raise OpenFailure("EISDIR", rel, "directory")  # `rel` led to the root itself
        finally:
            for fd in held:
                os.close(fd)


def _dotted(directory: str) -> bool:
    """Whether a walk-made relative directory holds a `.` or `..` part (it never should)."""
    if "." not in directory:
        return False
    return any(part in ("", ".", "..") for part in directory.split("/"))


def _is_link(name: str, parent: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _relative_inside(path: str, root_real: str) -> str | None:
    """`path` relative to `root_real` when it lies beneath it (`""` for the root), else None."""
    path = os.path.normpath(path)
    if path == root_real:
        return ""
    prefix = root_real.rstrip("/") + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None


def open_beneath(path: str, root: str) -> tuple[int, os.stat_result]:
    """Open the regular file at absolute `path` beneath `root`'s descriptor (`Boundary`),
    for a caller that judged `path` to lie inside `root`: links are followed only while
    they stay inside it, and only to where they lead now; a directory swapped for a link
    since, or a path that leads out, is refused (`EOUTSIDE`, `ECHANGED`), never read.
    Raises OpenFailure."""
    root = os.path.abspath(root)
    absolute = os.path.normpath(path)
    rel = _relative_inside(absolute, os.path.normpath(root))
    if rel is None or not rel:
        raise OpenFailure(EOUTSIDE if rel is None else "EISDIR", path)
    try:
        root_real = os.path.realpath(root)
        real = os.path.realpath(absolute)
    except OSError as exc:  # a link on the way swapped while it was resolved
        raise OpenFailure(_errno_name(exc), path) from None
    real_rel = _relative_inside(real, root_real)
    if real_rel is None:
        raise OpenFailure(EOUTSIDE, path)
    with Boundary(root) as boundary:
        boundary.root_real = root_real
        try:
            return boundary.open(rel, real=real_rel if real_rel != rel else None)
        except OpenFailure as failure:
            raise OpenFailure(failure.code, path, failure.kind) from None


# -- files that do not know their size --


def read_unsized(fd: int, cap: int) -> bytes:
    """Read from the current offset until the end, at most `cap` bytes.

    For files whose stat size is 0 but which have contents (procfs, sysfs): read what is
    there, bounded, instead of taking the size at its word. A read that would block ends it.
    """
    parts = []
    got = 0
    while got < cap:
        try:
            chunk = os.read(fd, min(CHUNK, cap - got))
        except BlockingIOError:
            break
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def settle_size(fd: int, st: os.stat_result, cap: int) -> tuple[int, os.stat_result]:
    """A regular file whose size says 0 as a file that knows its size: read to its end
    (at most `cap` bytes; more raises EFBIG), its contents copied to a nameless temporary
    file, whose descriptor and stat are returned (`fd` is then closed). Any other file,
    and one that is really empty, is returned as it is."""
    if st.st_size != 0 or not stat.S_ISREG(st.st_mode):
        return fd, st
    data = read_unsized(fd, cap + 1)
    if not data:
        return fd, st
    if len(data) > cap:
        raise OSError(errno.EFBIG, f"its size says 0, and it holds more than {cap} bytes")
    from readmany.scratch import anonymous_file

    copy = anonymous_file()
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(copy, view) :]
        settled = os.fstat(copy)
    except BaseException:
        os.close(copy)
        raise
    os.close(fd)
    return copy, settled


def read_upto(fd: int, st: os.stat_result, cap: int) -> bytes:
    """The file's contents, at most `cap` bytes: by its size, or until the end when it says 0."""
    if st.st_size == 0:
        return read_unsized(fd, cap)
    return read_prefix(fd, min(st.st_size, cap))


# -- the root itself --


def refuse_root(root: str) -> str | None:
    """A one-line refusal for a root inside (or at) a git directory, else None.

    A git directory is one named `.git`, or one holding `HEAD`, `objects/` and `refs/` (a
    bare repository): reading it would show the repository's configuration and objects.
    """
    real = os.path.realpath(root)
    parts = real.split("/")
    if ".git" in parts:
        return f"--root {root}: is inside a .git directory: give the work tree's root"
    path = real
    while True:
        if (
            os.path.isfile(os.path.join(path, "HEAD"))
            and os.path.isdir(os.path.join(path, "objects"))
            and os.path.isdir(os.path.join(path, "refs"))
        ):
            return f"--root {root}: is inside a git repository's own directory: give a work tree"
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
