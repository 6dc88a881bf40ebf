"""The `-o FILE` target: checked before any work, written without replacing what it must not.

- a regular file, or a name not taken yet, is written to a temporary file beside it
  (created with `O_EXCL`, so nothing planted there is written through) and renamed over it
  on commit, keeping the old file's mode and owner where the process may;
- the directory it is written in is opened once, and the temporary file, the rename and
  any removal name files in that descriptor (`readmany.emit.beneath`): a relative path's
  directory is reached from the current directory one part at a time, no link followed,
  so a directory swapped for a link after the check is refused, never written through;
  an absolute path's directory is opened as named, links and all (they are the user's);
- a symbolic link is followed only where the system keeps its own (`/dev/stdout`,
  `/dev/fd/N`); any other, and a relative path through a linked directory, is a usage
  error: a link planted in a repository must not have the dump replace or create a file
  elsewhere, or overwrite a device;
- a block device (a disk) is a usage error;
- a FIFO or a device is opened and written in place, never replaced (a FIFO without a
  reader is an error at once, not a hang);
- a directory, an empty name, a missing directory, a socket are usage errors.

The temporary file is removed on every way out: an exception, a failed write (the close
that follows may fail again: it is unlinked anyway), and every signal that ends a process
and can be caught (SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU
and the rest of `_HANDLED_SIGNALS`), whose handlers, installed while the target is open,
remove it before the signal takes its usual course. Only SIGKILL (and a crash of the
interpreter) can leave it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat

from readmany.emit import beneath
from readmany.errors import OutputError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from types import FrameType
    from typing import IO, Any

    _Handler = Any  # what signal.getsignal returns

# Every signal whose default action ends the process, that can be caught, and that comes
# from outside rather than from a fault of the process itself (SIGSEGV, SIGBUS …). An
# ignored one stays ignored: SIGXFSZ is, by Python itself, unless a caller set it back;
# SIGPIPE is left out, Python ignoring it so that a closed pipe is an error to handle.
_HANDLED_SIGNALS = tuple(
    getattr(signal, name)
    for name in (
        "SIGTERM",
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGUSR1",
        "SIGUSR2",
        "SIGALRM",
        "SIGVTALRM",
        "SIGPROF",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGIO",
        "SIGPWR",
    )
    if hasattr(signal, name)
)

# A directory only started from: it is passed through, never read.
_DIRECTORY_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


def _kind(mode: int) -> str:
    from readmany.read.safe import file_kind

    return f"a {file_kind(mode)}"


def _usage(path: str, problem: str) -> UsageError:
    return UsageError(f"-o {path}: {problem}")


class OutputPlan:
    """What writing `-o path` will do, decided by `check_output` before any work.

    `final` is the file written (a link's target, resolved); `in_place` says it is a FIFO
    or device, opened as it is; `existing` its stat, or None for a new file.
    """

    def __init__(self, path: str, final: str, existing: os.stat_result | None) -> None:
        self.path = path
        self.final = final
        self.existing = existing
        # A FIFO or device; or what /dev/stdout leads to, the file the shell opened for us
        # (written at its end, where it was opened: not replaced beside the shell's back).
        self.in_place = existing is not None and (
            not stat.S_ISREG(existing.st_mode) or _system_link(path)
        )


def check_output(path: str) -> OutputPlan:
    """Check an `-o` argument; raise `UsageError` (one line) for one that cannot be written."""
    if not path:
        raise UsageError("-o: the file name is empty: give a file name, or leave out -o")
    if path.endswith("/"):
        raise _usage(path, "is a directory name: give a file name")
    if "\0" in path:
        raise _usage(path.replace("\0", "\\0"), "a file name cannot hold a NUL byte")
    _refuse_linked_directory(path)
    try:
        existing: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise _usage(path, (exc.strerror or str(exc)).lower()) from None
    if os.path.islink(path) and not _system_link(path):
        # A link a repository planted (`context.txt -> ~/.bashrc`, or to a disk) would
        # have the dump replace or create a file, or overwrite a device, anywhere.
        raise _usage(
            path,
            f"is a symbolic link{_link_target(path)}: readmany writes through no link "
            "but /dev/stdout, /dev/stderr and /dev/fd/N; name the file itself",
        )
    try:
        final = os.path.realpath(path)
    except OSError:  # a link on the way swapped while it was resolved (EINVAL)
        raise _usage(path, "changed while it was being checked: run again") from None
    if existing is None:
        # The directory as the system sees it: `missing/../ctx.txt` names none.
        parent = os.path.dirname(path) or "."
        if not os.path.isdir(parent):
            raise _usage(path, f"no such directory: {parent}")
        return OutputPlan(path, final, None)
    if stat.S_ISDIR(existing.st_mode) or path.endswith("/"):
        raise _usage(path, "is a directory: give a file name")
    if stat.S_ISSOCK(existing.st_mode):
        raise _usage(path, "is a socket: readmany writes files, FIFOs and devices")
    if stat.S_ISBLK(existing.st_mode):
        raise _usage(path, "is a block device (a disk): readmany writes files, FIFOs and devices")
    return OutputPlan(path, final, existing)


def _system_link(path: str) -> bool:
    """One of the system's links to this process's own descriptors (`/dev/stdout`,
    `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`), which no repository can plant; not
    any other path under `/dev` (`/dev/shm` holds files anyone may link from)."""
    absolute = os.path.abspath(path)
    if absolute in ("/dev/stdout", "/dev/stderr"):
        return True
    for directory in ("/dev/fd/", "/proc/self/fd/"):
        if absolute.startswith(directory) and absolute[len(directory) :].isdigit():
            return True
    return False


def _refuse_linked_directory(path: str) -> None:
    """A relative `-o` path must not pass through a directory that is a link: a repository
    can plant `out -> ~/.config/autostart` as well as a file link. (An absolute path is
    the user's own, links and all: `/tmp` is one on some systems.)"""
    if os.path.isabs(path):
        return
    walked = ""
    for part in os.path.dirname(path).split("/"):
        walked = f"{walked}/{part}" if walked else part
        if part in ("", ".", ".."):
            continue
        if os.path.islink(walked):
            raise _linked_directory(path, walked, _link_target(walked))


def _linked_directory(path: str, walked: str, target: str = "") -> UsageError:
    return _usage(
        path,
        f"{walked} is a symbolic link{target}: readmany writes through no link; "
        "name the directory itself",
    )


def _link_target(path: str) -> str:
    """` (to TARGET)`, or nothing when the link is gone already (swapped back)."""
    try:
        return f" (to {os.readlink(path)})"
    except OSError:
        return ""


def _open_directory(path: str) -> int:
    """A descriptor of the directory `path` is written in, opened once: a relative path's
    part by part from the current directory with no link followed, an absolute path's
    as named. Raises UsageError (one line) when it cannot be opened."""
    directory = os.path.dirname(path)
    absolute = os.path.isabs(path)
    try:
        start = os.open(directory if absolute else ".", _DIRECTORY_FLAGS)
        try:
            return beneath.open_directory(start, () if absolute else directory.split("/"))
        finally:
            os.close(start)
    except beneath.LinkOnTheWay as link:
        raise _linked_directory(path, link.walked) from None
    except (FileNotFoundError, NotADirectoryError):
        raise _usage(path, f"no such directory: {directory or '.'}") from None
    except OSError as exc:
        raise _usage(path, (exc.strerror or str(exc)).lower()) from None


class OutputTarget:
    """An open `-o` target. Write to `stream`; then `commit()` or `discard()` (idempotent).

    `temp_path` is the temporary file while it exists (None when writing in place), and
    `identities()` the (device, inode) pairs of the temporary and the final file, so that
    the selection can leave them out.
    """

    def __init__(self, plan: OutputPlan) -> None:
        self.plan = plan
        self.path = plan.path
        self.temp_path: str | None = None
        self._dir_fd: int | None = None
        self._temp_name = ""
        self._temp_identity: tuple[int, int] | None = None
        self._name = os.path.basename(plan.path)
        self._previous: dict[int, _Handler] = {}
        self._done = False
        if plan.in_place and _system_link(plan.path):
            fd = self._open_in_place()
        else:
            self._dir_fd = _open_directory(plan.path)
            if plan.in_place:
                try:
                    fd = self._open_in_place()
                finally:
                    self._release()  # written through its descriptor: the directory is done
            else:
                fd = self._create_temp()
        self.stream: IO[bytes] = os.fdopen(fd, "wb")

    # -- opening --

    def _open_in_place(self) -> int:
        existing = self.plan.existing
        assert existing is not None
        fifo = stat.S_ISFIFO(existing.st_mode)
        flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
        if fifo:
            flags |= os.O_NONBLOCK  # no reader: ENXIO at once, instead of waiting forever
        if stat.S_ISREG(existing.st_mode):
            flags |= os.O_APPEND  # `>>` as well as `>`: after what the file holds
        try:
            if self._dir_fd is None:
                # The path as given: `/dev/stdout` leads to this process's own
                # descriptor, which its resolved name (`pipe:[…]`) does not.
                fd = os.open(self.path, flags)
            else:  # no link swapped in since the check, at the end or on the way
                flags |= getattr(os, "O_NOFOLLOW", 0)
                fd = os.open(self._name, flags, dir_fd=self._dir_fd)
        except OSError as exc:
            if fifo and exc.errno == errno.ENXIO:
                raise _usage(self.path, "the FIFO has no reader: start the reader first") from None
            raise _usage(self.path, (exc.strerror or str(exc)).lower()) from None
        now = os.fstat(fd).st_mode
        if stat.S_IFMT(now) != stat.S_IFMT(existing.st_mode):  # swapped since the check
            os.close(fd)
            raise _usage(self.path, "changed while it was being opened: run again")
        if fifo:
            os.set_blocking(fd, True)  # a reader is there: writes may now wait for it
        return fd

    def _create_temp(self) -> int:
        assert self._dir_fd is not None
        self._install_handlers()
        try:
            fd, temp_name = beneath.create_temporary(self._dir_fd, self._name)
        except FileExistsError:
            self._release()
            raise _usage(self.path, "cannot create a temporary file beside it") from None
        except OSError as exc:
            self._release()
            raise _usage(self.path, (exc.strerror or str(exc)).lower()) from None
        self._temp_name = temp_name
        self.temp_path = os.path.join(os.path.dirname(self.plan.final), temp_name)
        st = os.fstat(fd)
        self._temp_identity = (st.st_dev, st.st_ino)
        return fd

    # -- what the selection leaves out --

    def identities(self) -> frozenset[tuple[int, int]]:
        """(device, inode) of the temporary file and of the final file where they exist."""
        found = set()
        if self._temp_identity is not None:
            found.add(self._temp_identity)
        existing = self.plan.existing
        if existing is not None:
            found.add((existing.st_dev, existing.st_ino))
        return frozenset(found)

    def paths(self) -> frozenset[str]:
        """The temporary file's path (while it exists) and the final file's, links resolved."""
        found = {self.plan.final}
        if self.temp_path is not None:
            found.add(self.temp_path)
        return frozenset(found)

    def is_output(self, st: os.stat_result) -> bool:
        """Whether a file with this stat is the output or its temporary file."""
        return (st.st_dev, st.st_ino) in self.identities()

    # -- finishing --

    def commit(self) -> None:
        """Make the output final. On failure, the temporary file is gone and OutputError raised."""
        if self._done:
            return
        try:
            self.stream.flush()
            if self.temp_path is not None:
                fd = self.stream.fileno()
                self._take_over_mode(fd)
                os.fsync(fd)
            self.stream.close()
            if self.temp_path is not None:
                assert self._dir_fd is not None
                beneath.replace(self._dir_fd, self._temp_name, self._name)
                self.temp_path = None
        except OSError as exc:
            self.discard()
            raise OutputError(f"-o {self.path}: {(exc.strerror or str(exc)).lower()}") from None
        self._done = True
        self._release()

    def _take_over_mode(self, fd: int) -> None:
        existing = self.plan.existing
        if existing is None:
            os.fchmod(fd, 0o666 & ~_umask())
            return
        if (existing.st_uid, existing.st_gid) != (os.getuid(), os.getgid()):
            with contextlib.suppress(PermissionError):
                os.fchown(fd, existing.st_uid, existing.st_gid)  # before chmod: it clears set-id
        os.fchmod(fd, stat.S_IMODE(existing.st_mode))

    def discard(self) -> None:
        """Close and remove the temporary file; never raises. Idempotent."""
        if self._done:
            return
        self._done = True
        with contextlib.suppress(OSError, ValueError):
            self.stream.close()  # flushing may fail again (ENOSPC): the descriptor is closed
        self._remove_temp()
        self._release()

    def _remove_temp(self) -> None:
        if self.temp_path is not None and self._dir_fd is not None:
            beneath.remove(self._dir_fd, self._temp_name)
        self.temp_path = None

    def _release(self) -> None:
        self._restore_handlers()
        if self._dir_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._dir_fd)
            self._dir_fd = None

    # -- signals --

    def _install_handlers(self) -> None:
        for number in _HANDLED_SIGNALS:
            try:
                previous = signal.getsignal(number)
                if previous is signal.SIG_IGN or previous is None:
                    continue  # ignored (nohup): stays ignored; None: set outside Python
                signal.signal(number, self._on_signal)
            except ValueError:
                return  # not the main thread: no handlers, the exception paths remain
            self._previous[number] = previous

    def _restore_handlers(self) -> None:
        previous, self._previous = self._previous, {}
        for number, handler in previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(number, handler)

    def _on_signal(self, number: int, frame: FrameType | None) -> None:
        handler = self._previous.get(number, signal.SIG_DFL)
        self._remove_temp()
        self._restore_handlers()
        if callable(handler):
            handler(number, frame)  # Python's own SIGINT handler raises KeyboardInterrupt
            return
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)  # the usual end: killed by this signal


def open_output(path: str) -> OutputTarget:
    """Check `-o path` and open it for writing (see the module's description)."""
    return OutputTarget(check_output(path))


def open_part(path: str) -> OutputTarget:
    """`open_output` for one file of `--parts`: a part that cannot be opened is the
    user's `-o` to change (one line), as the first is."""
    try:
        return open_output(path)
    except OSError as exc:
        raise _usage(path, exc.strerror or str(exc)) from None


def refuse_as_input(target: OutputTarget | OutputPlan, paths: Iterable[str]) -> str | None:
    """A one-line refusal when one of the named input `paths` is the `-o` file itself.

    The same file is the same (device, inode), whatever the spelling or links.
    """
    if isinstance(target, OutputTarget):
        identities = target.identities()
    elif target.existing is not None:
        identities = frozenset({(target.existing.st_dev, target.existing.st_ino)})
    else:
        identities = frozenset()
    if not identities:
        return None
    for path in paths:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if (st.st_dev, st.st_ino) in identities:
            return f"{path}: is the -o output file: write the output elsewhere"
    return None


def named_input_check(output: str, root: str = ".") -> Callable[..., None]:
    """A check for each path a run names as input (relative to `root`): a usage error
    when it is the `-o` file itself, which the run would replace with its dump. Raises
    `UsageError` at once for an `-o` that cannot be written (`check_output`)."""
    plan = check_output(output)

    def check(named: str, resolved: str | None = None) -> None:
        """`named` as given; `resolved`, where it leads when not `root`/`named`."""
        where = resolved if resolved is not None else os.path.join(root, named)
        if refuse_as_input(plan, [where]) is not None:
            raise UsageError(
                f"-o {output}: that file is also named as input ({named}); "
                "write the output elsewhere"
            )

    return check


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def part_name(output: str, number: int) -> str:
    """The file part `number` is written to for `-o output`: `ctx.txt` -> `ctx.2.txt`,
    `ctx` -> `ctx.2`, `.ctx` -> `.ctx.2`."""
    directory, name = os.path.split(output)
    stem, extension = os.path.splitext(name)
    return os.path.join(directory, f"{stem}.{number}{extension}")


def part_names(output: str | None) -> tuple[str, ...]:
    """Every file `--parts` may write for `-o output` (none are read as input)."""
    if not output:
        return ()
    from readmany.limits import MAX_PARTS

    return tuple(part_name(output, number) for number in range(1, MAX_PARTS + 1))
