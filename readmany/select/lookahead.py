"""The look-ahead: the walk, in a helper process where it pays, a step ahead of the reads.

With more than one CPU, the walk starts here; once it has found `_HEAD` files (a tree
too big to be done sooner than a second process starts), a helper process is forked and
carries the walk on from where it stands (the fork copies its state). The helper sends
the events down a pipe in batches, in output order; the main process reads, frames and
writes them, the first `_HEAD` first. When the main process falls behind (more than
`_LAG` messages sent that it has not finished), the helper reads the files of the next
batch itself and sends the results in their place, so both processes stay busy whatever
the mix of walking and reading a tree asks for. The output is the same either way: each
file is read by the same function, once, and written in the order the walk found it.

The select stage reads no file: what the helper does to a file, and how a read result
travels down the pipe, are given by the command that wires the stages (`Source`).

The helper writes nothing but the pipe (its stdin, stdout and stderr are /dev/null).
A problem in it comes down the pipe and is raised in the main process as if the walk
had run there; the main process waits for the helper before it returns, and kills it
when it stops early (`| head`, Ctrl-C, an error).

`READMANY_PROCESSES=1` keeps everything in one process; `READMANY_PROCESSES=2` (or any
other value) forks the helper at the start, before the first file is found, whatever the
size of the walk.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Callable, Iterator

from readmany.errors import UsageError
from readmany.record import NamedTuple
from readmany.select.candidates import shown_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any, Protocol

    from readmany.select.candidates import Candidate, Event

    class Listed(Protocol):
        """A `--stdin` list read as the walk goes (`request.inputs.StdinPaths`)."""

        on_wait: Callable[[], None] | None

        def own_descriptor(self) -> None: ...

        def few(self, count: int) -> bool: ...


# This module is imported before the fork and kept light: the stages are imported where
# they are used, so that each process imports its own while the other does the same.

# An event of the walk, with the result of reading (or measuring) it where that was done.
Found = tuple["Event", "Any"]


class Source(NamedTuple):
    """What the look-ahead walks and what it does to a file, given by the wiring."""

    # The walk begun: the root (absolute) and its events in output order.
    walk: Callable[[], tuple[str, Iterator[Event]]]
    # What the helper does to a file for a lagging main process (read or measure it),
    # made in the helper when first needed: called with the candidate and its shown path.
    read_ahead: Callable[[], Callable[[Candidate, str], Any]]
    # A read result as plain tuples down the pipe (marshal), back, and about its bytes.
    pack: Callable[[Any], tuple[Any, ...]]
    unpack: Callable[[tuple[Any, ...]], Any]
    packed_size: Callable[[tuple[Any, ...]], int]
    absolute: bool = False  # paths shown absolute (`--absolute`)
    listed: Listed | None = None  # a `--stdin` list, read as the walk goes
    # git names the files: a selection of them, in whichever process lists them.
    from_git: Callable[[], Selection] | None = None
    git_here: bool = False  # git's files are listed in this process (the diff, a plan)
    root: str = "."  # as given, and the patterns: whether they name files alone
    patterns: tuple[str, ...] = ()


_EVENTS_A_MESSAGE = 32  # events a message
_LAG = 2  # messages the main process may have waiting before the helper reads for it
_MESSAGE_BYTES = 1 << 18  # file contents a message carries, at most (and one file more)
_PIPE_BYTES = 1 << 20  # the most an unprivileged process may ask for, by default
_HEADER = 4  # bytes of a message's length, little-endian


class Selection:
    """The events of the walk, each with the result of reading it where that is done."""

    diff: str | None = None  # the diff of a git selection, with `--with-diff`

    @property
    def root(self) -> str:
        """The root, absolute: known once the walk has begun (a bad request raises here)."""
        raise NotImplementedError

    def __iter__(self) -> Iterator[Found]:
        raise NotImplementedError

    def __enter__(self) -> Selection:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the walk (if it still runs) and release what it holds."""

    def when_waiting(self, flush: Callable[[], None]) -> None:
        """Call `flush` whenever the walk is about to wait for more `--stdin` paths, so
        that what was written so far goes out before the list ends."""


class InProcess(Selection):
    """The walk in this process; every file is read by the caller."""

    def __init__(self, source: Source, started: tuple[str, Iterator[Event]] | None = None) -> None:
        self._source = source
        self._started = started  # the root and the events, when the walk has begun

    def _start(self) -> tuple[str, Iterator[Event]]:
        if self._started is None:
            self._started = self._source.walk()
        return self._started

    @property
    def root(self) -> str:
        return self._start()[0]

    def __iter__(self) -> Iterator[Found]:
        for event in self._start()[1]:
            yield event, None

    def when_waiting(self, flush: Callable[[], None]) -> None:
        if self._source.listed is not None:
            self._source.listed.on_wait = flush


def open_selection(source: Source) -> Selection:
    """The files of a source: from git, or the walk in a helper process where that is
    possible and useful, else in this one."""
    from_git = source.from_git
    if from_git is not None and (source.git_here or not _use_helper()):
        # The diff is the main process's to write; a plan reads staged files twice.
        return from_git()
    helper = _use_helper()
    if helper is _AT_ONCE or (helper and from_git is not None):
        try:
            return Helper(source)
        except OSError:
            pass  # no process or pipe to be had (EAGAIN, EMFILE …): walk here instead
    if not helper or from_git is not None:
        return InProcess(source)
    if source.listed is not None:  # a list that may come slowly
        if _walks_enough(source, source.listed):
            try:
                return Helper(source)
            except OSError:
                pass
        return InProcess(source)
    # Walk here first: a small tree is done before a second process would have started.
    root, events = source.walk()
    head = list(itertools.islice(events, _HEAD))
    if len(head) == _HEAD:
        try:
            return Helper(source, started=(root, events), head=head)
        except OSError:
            pass
    return InProcess(source, started=(root, itertools.chain(head, events)))


_HEAD = 256  # events walked here before the helper is forked to walk the rest
_AT_ONCE = 2  # `_use_helper()`: READMANY_PROCESSES=2 (not 1) asks for the helper at once


def _walks_enough(source: Source, paths: Listed) -> bool:
    """Whether a `--stdin` list (`paths`, with the source's patterns) has walking to
    overlap with reading: a short list of files named exactly is read sooner than a second
    process starts. The list is not walked ahead here: its paths may come slowly, and the
    first files are written as they come."""
    root = source.root
    if any(not os.path.isfile(os.path.join(root, pattern)) for pattern in source.patterns):
        return True
    return not paths.few(_FEW_FILES)  # reads the start of the list (the rest waits)


_FEW_FILES = 64


def _use_helper() -> int:
    """0: one process; 1: a helper where the walk proves long; `_AT_ONCE`: a helper now."""
    wanted = os.environ.get("READMANY_PROCESSES", "")
    if wanted == "1" or not hasattr(os, "fork"):
        return 0
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return 0  # forking a process with threads can leave a lock held in the child
    if wanted:
        return _AT_ONCE
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return int(cpus > 1)


# --- the messages ---------------------------------------------------------------------
# Plain tuples, written with marshal: ("root", root), ("items", [item, ...]), ("end",),
# ("usage", message), ("error", message) or ("wait",) (the walk waits for `--stdin`).
# An item is (event,) or (event, result), the result as `Source.pack` makes it:
# ("s", rel, reason, failed) is a skip, ("c", *candidate) a candidate (its fields).


# --- the helper -----------------------------------------------------------------------


class Helper(Selection):
    """The walk in a forked helper process (see the module's description)."""

    def __init__(
        self,
        source: Source,
        started: tuple[str, Iterator[Event]] | None = None,
        head: list[Event] | None = None,
    ) -> None:
        """`started`: the walk begun here, for the helper to go on with; `head`: the
        events it found so far, which this process yields first."""
        import mmap

        # How many messages the main process has finished: shared, written by it alone.
        self._done = mmap.mmap(-1, 8)
        self._finished = memoryview(self._done).cast("q")
        try:
            read_end, write_end = os.pipe()
        except OSError:
            self._release()
            raise
        _widen(write_end)
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()  # nothing buffered is written twice
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            self._release()
            raise
        if pid == 0:  # the helper
            _helper(source, read_end, write_end, self._finished, started)  # never returns
        os.close(write_end)
        self._pid: int | None = pid
        self._pipe = os.fdopen(read_end, "rb", buffering=1 << 16)
        # The walk begun here goes on in the helper alone (its state was copied).
        self._root: str | None = started[0] if started is not None else None
        self._head = head or []
        self._on_wait: Callable[[], None] | None = None
        self._unpack = source.unpack

    def _receive(self) -> Any:
        import marshal

        header = self._pipe.read(_HEADER)
        if len(header) < _HEADER:
            self._fail()
        size = int.from_bytes(header, "little")
        body = self._pipe.read(size)
        if len(body) < size:
            self._fail()
        message = marshal.loads(body)
        if message[0] == "usage":
            raise UsageError(message[1])
        if message[0] == "error":
            raise RuntimeError(f"in the walking process: {message[1]}")
        return message

    def _fail(self) -> None:
        status = self._reap()
        raise RuntimeError(f"the walking process ended without finishing ({status})")

    @property
    def root(self) -> str:
        if self._root is None:
            message = self._receive()
            if message[0] != "root":
                raise RuntimeError(f"the walking process sent {message[0]!r} first")
            self._root = str(message[1])
        return self._root

    def __iter__(self) -> Iterator[Found]:
        from readmany.select.candidates import Candidate, Skip

        assert self.root
        head, self._head = self._head, []
        for event in head:
            yield event, None
        finished = self._finished
        while True:
            message = self._receive()
            if message[0] == "end":
                break
            if message[0] == "wait":
                if self._on_wait is not None:
                    self._on_wait()
                continue
            for packed in message[1]:
                event = packed[0]
                if event[0] == "s":
                    yield Skip(event[1], event[2], event[3]), None
                elif len(packed) == 1:
                    yield Candidate(*event[1:]), None
                else:
                    yield Candidate(*event[1:]), self._unpack(packed[1])
            finished[0] += 1
        self._reap()

    def when_waiting(self, flush: Callable[[], None]) -> None:
        self._on_wait = flush

    def _reap(self) -> str:
        """Wait for the helper; describe how it ended."""
        if self._pid is None:
            return "already reaped"
        pid, self._pid = self._pid, None
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            return f"killed by signal {os.WTERMSIG(status)}"
        return f"exit status {os.waitstatus_to_exitcode(status)}"

    def close(self) -> None:
        if self._pid is not None:
            import signal

            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            self._reap()
        self._pipe.close()
        self._release()

    def _release(self) -> None:
        self._finished.release()
        self._done.close()


def _widen(pipe: int) -> None:
    """Let the pipe hold more (Linux): the helper then runs further ahead before it waits."""
    try:
        import fcntl

        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # the default size works, with less overlap


def _helper(
    source: Source,
    read_end: int,
    pipe: int,
    finished: memoryview,
    started: tuple[str, Iterator[Event]] | None,
) -> None:
    """The helper process: walk, send, read ahead when the main process lags; then exit.

    It never returns, and never unwinds into the code that forked it.
    """
    status = 0
    try:
        # Ctrl-C (KeyboardInterrupt) or the main process gone (BrokenPipeError) end it
        # below, at once and quietly.
        os.close(read_end)
        if source.listed is not None:
            source.listed.own_descriptor()  # the list is read here, not in the caller
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        _walk_and_send(source, pipe, finished, started)
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _walk_and_send(
    source: Source,
    pipe: int,
    finished: memoryview,
    started: tuple[str, Iterator[Event]] | None,
) -> None:
    import marshal

    def send(message: tuple[Any, ...]) -> None:
        body = marshal.dumps(message)
        pending = memoryview(len(body).to_bytes(_HEADER, "little") + body)
        while pending:  # a pipe takes a large message in parts
            pending = pending[os.write(pipe, pending) :]

    try:
        _walk(source, send, finished, started)
    except UsageError as exc:
        send(("usage", str(exc)))
    except Exception as exc:
        send(("error", f"{type(exc).__name__}: {exc}"))
    else:
        send(("end",))


def _walk(
    source: Source,
    send: Callable[[tuple[Any, ...]], None],
    finished: memoryview,
    started: tuple[str, Iterator[Event]] | None,
) -> None:
    from readmany.select.candidates import Skip

    items_found: Iterator[Found]
    if started is not None:  # begun in the main process, which knows the root
        root, events = started
        items_found = ((event, None) for event in events)
    elif source.from_git is not None:
        found = source.from_git()  # staged files come read: from the index, here
        root, items_found = found.root, iter(found)
    else:
        root, events = source.walk()
        items_found = ((event, None) for event in events)
    if started is None:
        send(("root", root))
    # What is done to a file for a lagging main process (imported when first needed).
    read_ahead_one: Callable[[Candidate, str], Any] | None = None
    absolute = source.absolute
    pack, packed_size = source.pack, source.packed_size
    sent = 0
    batch: list[Found] = []

    def send_items(items: list[tuple[Any, ...]]) -> None:
        nonlocal sent
        send(("items", items))
        sent += 1  # the main process counts the messages it has finished, too

    def flush() -> None:
        nonlocal read_ahead_one
        items: list[tuple[Any, ...]] = []
        size = 0
        read_ahead = sent - finished[0] > _LAG  # the main process lags
        for event, done in batch:
            if size > _MESSAGE_BYTES:  # a message holds so much text at most, and one file
                send_items(items)
                items, size = [], 0
            if isinstance(event, Skip):
                items.append((("s", event.rel, event.reason, event.failed),))
                continue
            packed = ("c", *event)
            if done is not None:
                result = pack(done)
                items.append((packed, result))
                size += packed_size(result)
            elif read_ahead:
                if read_ahead_one is None:
                    read_ahead_one = source.read_ahead()
                result = pack(read_ahead_one(event, shown_path(root, event.rel, absolute)))
                items.append((packed, result))
                size += packed_size(result)
            else:
                items.append((packed,))
        send_items(items)
        batch.clear()

    if source.listed is not None:

        def wait() -> None:
            # The main process writes what it has before the walk waits for more paths.
            if batch:
                flush()
            send(("wait",))

        source.listed.on_wait = wait
    try:
        for item in items_found:
            batch.append(item)
            if len(batch) >= _EVENTS_A_MESSAGE:
                flush()
    except UsageError:
        if batch:
            flush()  # the paths before a bad one are written, as in one process
        raise
    if batch:
        flush()
