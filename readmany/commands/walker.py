"""Where `readmany glob` gets its files: the walk, in a helper process where it pays.

With more than one CPU, the walk starts here; once it has found `_HEAD` files (a tree
too big to be done sooner than a second process starts), a helper process is forked and
carries the walk on from where it stands (the fork copies its state). The helper sends
the events down a pipe in batches, in output order; the main process reads, frames and
writes them, the first `_HEAD` first. When the main process falls behind (more than
`_LAG` messages sent that it has not finished), the helper reads the files of the next
batch itself and sends the results in their place, so both processes stay busy whatever
the mix of walking and reading a tree asks for. The output is the same either way: each
file is read by the same function, once, and written in the order the walk found it.

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
import functools
import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator

from readmany.errors import UsageError
from readmany.faces import Face
from readmany.invoke import StdinPaths
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

    from readmany.read.matched import (
        AssetFile,
        CandidateReader,
        Failed,
        MatchedLimits,
        MatchedRead,
        Measured,
        Skipped,
        TextFile,
    )
    from readmany.read.text import TextRead, Whole
    from readmany.select.candidates import Candidate, Event
    from readmany.select.git import GitSelection
    from readmany.select.walk import SelectRequest

# This module is imported before the fork and kept light: the stages are imported where
# they are used, so that each process imports its own while the other does the same.

# A result where the helper read the file (or, for --stats, measured it).
Item = tuple["Event", "MatchedRead | Measured | None"]


class GlobRequest(NamedTuple):
    """The flags of `readmany glob`, as the CLI parsed them."""

    patterns: tuple[str, ...]  # positional patterns, then --include
    excludes: tuple[str, ...] = ()
    use_default_excludes: bool = True
    use_gitignore: bool = True
    ignore_files: tuple[str, ...] = ()  # extra ignore-file names; .readmanyignore is implied
    recursive: bool = True
    root: str = "."
    absolute: bool = False
    # From --stdin: exact paths, never globs; a list, or `StdinPaths` read as the walk goes.
    literal_paths: Iterable[str] = ()
    face: Face = Face.reference()
    output: str | None = None  # the -o target: never read as input
    staged: bool = False  # the files staged for the next commit, as staged (git's index)
    changed: str | None = None  # the files that differ from this revision (the work tree)
    with_diff: bool = False  # one more section: the diff itself
    secrets: str = "off"  # --secrets: off, warn, skip or redact
    hook_id: str | None = None  # --hook-id: run as this pre-commit hook (with --staged)
    # -- context for a chat (the default face only) --
    format: str = "text"  # --format: text, markdown or xml
    line_numbers: bool = False  # -n
    tree: bool = False  # --tree: a directory tree of the files shown, first
    stats: bool = False  # --stats: what each file costs, instead of the files
    max_bytes: int | None = None  # the budget, as given (None: not given)
    max_lines: int | None = None
    max_tokens: int | None = None
    json: bool = False  # --json: its details say what each file takes, in tokens too

    @property
    def weighs(self) -> bool:
        """Whether each text is weighed as it is read (`TextFile.weight`): for a budget of
        tokens, or the tokens `--json` details give."""
        return self.json or self.max_tokens is not None

    @property
    def by_git(self) -> bool:
        """Whether git names the files (`--staged`, `--changed`), not a walk."""
        return self.staged or self.changed is not None

    @property
    def budgeted(self) -> bool:
        """Whether a budget was given."""
        return (self.max_bytes, self.max_lines, self.max_tokens) != (None, None, None)


_BATCH = 32  # events a message
_LAG = 2  # messages the main process may have waiting before the helper reads for it
_MESSAGE_BYTES = 1 << 18  # file contents a message carries, at most (and one file more)
_PIPE_BYTES = 1 << 20  # the most an unprivileged process may ask for, by default
_HEADER = 4  # bytes of a message's length, little-endian


def shown_path(root: str, rel: str, absolute: bool) -> str:
    """How a root-relative path is written: as it is, or absolute with `--absolute`."""
    if not absolute:
        return rel
    path = os.path.normpath(os.path.join(root, rel))
    return path + "/" if rel.endswith("/") else path


def select_request(request: GlobRequest) -> SelectRequest:
    from readmany.select.walk import SelectRequest

    return SelectRequest(
        root=request.root,
        patterns=request.patterns,
        literal_paths=request.literal_paths,
        excludes=request.excludes,
        use_default_excludes=request.use_default_excludes,
        use_gitignore=request.use_gitignore,
        ignore_files=request.ignore_files,
        recursive=request.recursive,
        compat=request.face.compat,
        outputs=output_paths(request.output),
        global_excludes=not request.face.compat,
    )


def output_paths(output: str | None) -> tuple[str, ...]:
    """The `-o` target as the walk may meet it: absolute, and with links resolved."""
    if not output:
        return ()
    absolute = os.path.abspath(output)
    try:
        real = os.path.realpath(absolute)
    except OSError:  # a link on the way swapped while it was resolved (EINVAL): the
        return (absolute,)  # write itself refuses it, or writes where it was checked
    return tuple(dict.fromkeys((absolute, real)))


def candidate_reader(request: GlobRequest) -> CandidateReader:
    """The read of a matched file, with the limits of the request's face."""
    from readmany.read.matched import CandidateReader, MatchedLimits
    from readmany.select.patterns import RequestedAssets

    face = request.face
    limits = MatchedLimits(
        max_lines=face.glob_max_lines,
        max_line_units=face.glob_max_line_units,
        max_file_bytes=face.glob_max_file_bytes,
        exact=not face.compat,
        sniff_typescript=not face.compat,
        max_svg_bytes=face.glob_max_svg_bytes,
    )
    requested = RequestedAssets(request.patterns)
    reader = CandidateReader(requested, limits, os.path.abspath(request.root))
    # Each process weighs what it reads, where the tokens are wanted; and for `--stats`
    # with a budget, measures it as it reads it.
    reader.weigh = request.weighs
    if request.stats and request.budgeted:
        from readmany.emit.stats import measure_for_stats

        reader.measure_as_read = measure_for_stats
    return reader


def held_chars(request: GlobRequest, limits: MatchedLimits) -> int | None:
    """How much of a long text a budgeted run's first pass holds (`read_matched`'s `keep`,
    `matched.held_text`), in whichever process reads it; None: all of it."""
    if not request.budgeted:
        return None
    from readmany.limits import CUT_BYTES_PER_TOKEN
    from readmany.read.matched import held_text

    plain = (
        request.format == "text"
        and not request.line_numbers
        and request.secrets == "off"
        and not request.stats
    )
    return held_text(
        limits,
        max_bytes=request.max_bytes,
        max_tokens=request.max_tokens,
        bytes_per_token=CUT_BYTES_PER_TOKEN,
        plain=plain,
    )


class Selection:
    """The events of the walk, each with the result of reading it where that is done."""

    diff: str | None = None  # the diff of a git selection, with `--with-diff`

    @property
    def root(self) -> str:
        """The root, absolute: known once the walk has begun (a bad request raises here)."""
        raise NotImplementedError

    def __iter__(self) -> Iterator[Item]:
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

    def __init__(
        self, request: GlobRequest, started: tuple[str, Iterator[Event]] | None = None
    ) -> None:
        self._request = request
        self._started = started  # the root and the events, when the walk has begun

    def _start(self) -> tuple[str, Iterator[Event]]:
        if self._started is None:
            from readmany.select.walk import iter_selection

            self._started = iter_selection(select_request(self._request))
        return self._started

    @property
    def root(self) -> str:
        return self._start()[0]

    def __iter__(self) -> Iterator[Item]:
        for event in self._start()[1]:
            yield event, None

    def when_waiting(self, flush: Callable[[], None]) -> None:
        if isinstance(self._request.literal_paths, StdinPaths):
            self._request.literal_paths.on_wait = flush


class FromGit(Selection):
    """The files git names (`--staged`, `--changed REV`), filtered by the patterns.

    Staged files are read here, from the index (what the commit will hold); changed
    files are read by the caller, from the work tree, like the files of a walk.
    """

    def __init__(self, request: GlobRequest) -> None:
        from readmany.select import git

        self._request = request
        root = os.path.abspath(request.root)
        if request.staged:
            selection = git.staged(root)
        else:
            assert request.changed is not None
            selection = git.changed(root, request.changed)
        keep = _git_filter(request, selection.root)
        self._selection = selection.filtered(keep) if keep is not None else selection
        # The patterns that match none of git's paths: said as a pattern that matched
        # nothing (exit status 1), as a walk says it.
        self._unmatched = _unmatched_patterns(request, selection)
        if request.with_diff:
            # An empty diff is no section: nothing staged is then said as without the
            # diff (`nothing is staged`), not shown as an empty section.
            self.diff = (
                git.diff_text(
                    selection.root,
                    staged=request.staged,
                    rev=request.changed,
                    paths=self._selection.diff_paths(),
                )
                or None
            )

    @property
    def root(self) -> str:
        return self._selection.root

    def __iter__(self) -> Iterator[Item]:
        from readmany.select.candidates import REASON_NO_MATCH, Skip

        yield from self._items()
        for pattern in self._unmatched:
            yield Skip(pattern, REASON_NO_MATCH, failed=True), None

    def _items(self) -> Iterator[Item]:
        from readmany.select.candidates import Candidate

        if not self._selection.from_index:
            for event in self._selection.events():
                yield event, None
            return
        from readmany.select.git import index_blobs

        request = self._request
        reader = candidate_reader(request)
        with index_blobs(self._selection) as batch:
            blobs = iter(batch)  # one a candidate, in the same order
            for event in self._selection.events():
                if not isinstance(event, Candidate):
                    yield event, None
                    continue
                blob = next(blobs)
                shown = shown_path(self.root, event.rel, request.absolute)
                yield event, reader.blob(event.rel, shown, blob)


def _git_patterns(request: GlobRequest, root: str) -> list[str]:
    """The patterns as git's paths are matched: a directory means what is below it."""
    patterns = []
    for pattern in request.patterns:
        directory = os.path.isdir(os.path.join(root, pattern))
        patterns.append(pattern.rstrip("/") + "/**" if directory else pattern)
    return patterns


def _unmatched_patterns(request: GlobRequest, selection: GitSelection) -> list[str]:
    """The patterns, as given, that match none of the paths git named (read or not)."""
    if not request.patterns:
        return []
    from readmany.select.patterns import compile_paths

    paths = [entry.rel for entry in selection.entries]
    paths += [skip.rel.rstrip("/") for skip in selection.skipped]
    unmatched = []
    patterns = _git_patterns(request, selection.root)
    for given, pattern in zip(request.patterns, patterns, strict=True):
        matcher = compile_paths([pattern])
        if not any(matcher.match(path) for path in paths):
            unmatched.append(given)
    return unmatched


def _git_filter(request: GlobRequest, root: str) -> Callable[[str], bool] | None:
    """Which of git's paths to keep: those the patterns match (a directory means what is
    below it), never the `-o` file; None to keep them all."""
    patterns = _git_patterns(request, root)
    output = None
    if request.output:
        output = os.path.relpath(os.path.abspath(request.output), root).replace(os.sep, "/")
    if not patterns and output is None:
        return None
    matcher = None
    if patterns:
        from readmany.select.patterns import compile_paths

        matcher = compile_paths(patterns)

    def keep(rel: str) -> bool:
        return rel != output and (matcher is None or matcher.match(rel))

    return keep


def open_selection(request: GlobRequest) -> Selection:
    """The files of a request: from git, or the walk in a helper process where that is
    possible and useful, else in this one."""
    by_git = request.by_git
    planned = request.budgeted or request.tree or request.stats
    if by_git and (request.with_diff or planned or not _use_helper()):
        # The diff is the main process's to write; a plan reads staged files twice.
        return FromGit(request)
    helper = _use_helper()
    if helper is _AT_ONCE or (helper and by_git):
        try:
            return Helper(request)
        except OSError:
            pass  # no process or pipe to be had (EAGAIN, EMFILE …): walk here instead
    if not helper or by_git:
        return InProcess(request)
    if isinstance(request.literal_paths, StdinPaths):  # a list that may come slowly
        if _walks_enough(request, request.literal_paths):
            try:
                return Helper(request)
            except OSError:
                pass
        return InProcess(request)
    # Walk here first: a small tree is done before a second process would have started.
    from readmany.select.walk import iter_selection

    root, events = iter_selection(select_request(request))
    head = list(itertools.islice(events, _HEAD))
    if len(head) == _HEAD:
        try:
            return Helper(request, started=(root, events), head=head)
        except OSError:
            pass
    return InProcess(request, started=(root, itertools.chain(head, events)))


_HEAD = 256  # events walked here before the helper is forked to walk the rest
_AT_ONCE = 2  # `_use_helper()`: READMANY_PROCESSES=2 (not 1) asks for the helper at once


def _walks_enough(request: GlobRequest, paths: StdinPaths) -> bool:
    """Whether a `--stdin` list (`paths`, with the request's patterns) has walking to
    overlap with reading: a short list of files named exactly is read sooner than a second
    process starts. The list is not walked ahead here: its paths may come slowly, and the
    first files are written as they come."""
    root = request.root
    if any(not os.path.isfile(os.path.join(root, pattern)) for pattern in request.patterns):
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
# An item is (event,) or (event, result):
# ("s", rel, reason, failed) is a skip, ("c", *candidate) a candidate (its fields).


@functools.cache
def _result_types() -> tuple[
    type[TextFile], type[TextRead], type[AssetFile], type[Skipped], type[Failed], type[Measured]
]:
    """The read stage's result types, imported once (an import statement a file costs µs)."""
    from readmany.read.matched import AssetFile, Failed, Measured, Skipped, TextFile
    from readmany.read.text import TextRead

    return TextFile, TextRead, AssetFile, Skipped, Failed, Measured


@functools.cache
def _whole_type() -> type[Whole]:
    from readmany.read.text import Whole

    return Whole


def _pack_result(result: MatchedRead | Measured) -> tuple[Any, ...]:
    TextFile, _, AssetFile, Skipped, Failed, Measured = _result_types()
    if isinstance(result, Measured):
        return ("m", *result)
    if isinstance(result, TextFile):
        text = result.text
        whole = tuple(result.whole) if result.whole is not None else None
        return ("t", result.kind, *text, result.size, result.weight, result.cost, whole)
    if isinstance(result, AssetFile):
        return ("a", result.kind, result.mime_type, result.data, result.size)
    if isinstance(result, Skipped):
        return ("k", result.reason, result.category)
    if isinstance(result, Failed):
        return ("f", *result)
    raise TypeError(f"not a read result: {result!r}")


def _result_size(packed: tuple[Any, ...]) -> int:
    """About how many bytes a packed result holds."""
    if packed[0] == "t":
        return len(packed[2])  # the text
    if packed[0] == "a":
        return len(packed[3])  # the base64 data
    return 0


def _unpack_result(packed: tuple[Any, ...]) -> MatchedRead | Measured:
    TextFile, TextRead, AssetFile, Skipped, Failed, Measured = _result_types()
    tag = packed[0]
    if tag == "m":
        return Measured(*packed[1:])
    if tag == "t":
        size, weight, cost, whole = packed[-4:]
        held = _whole_type()(*whole) if whole is not None else None
        return TextFile(packed[1], TextRead(*packed[2:-4]), size, weight, cost, held)
    if tag == "a":
        return AssetFile(packed[1], packed[2], packed[3], packed[4])
    if tag == "k":
        return Skipped(packed[1], packed[2])
    return Failed(*packed[1:])


# --- the helper -----------------------------------------------------------------------


class Helper(Selection):
    """The walk in a forked helper process (see the module's description)."""

    def __init__(
        self,
        request: GlobRequest,
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
            _helper(request, read_end, write_end, self._finished, started)  # never returns
        os.close(write_end)
        self._pid: int | None = pid
        self._pipe = os.fdopen(read_end, "rb", buffering=1 << 16)
        # The walk begun here goes on in the helper alone (its state was copied).
        self._root: str | None = started[0] if started is not None else None
        self._head = head or []
        self._on_wait: Callable[[], None] | None = None

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

    def __iter__(self) -> Iterator[Item]:
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
                    yield Candidate(*event[1:]), _unpack_result(packed[1])
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
    request: GlobRequest,
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
        if isinstance(request.literal_paths, StdinPaths):
            request.literal_paths.own_descriptor()  # the list is read here, not in the caller
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        _walk_and_send(request, pipe, finished, started)
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _walk_and_send(
    request: GlobRequest,
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
        _walk(request, send, finished, started)
    except UsageError as exc:
        send(("usage", str(exc)))
    except Exception as exc:
        send(("error", f"{type(exc).__name__}: {exc}"))
    else:
        send(("end",))


def _ahead(request: GlobRequest) -> Callable[[Candidate, str], MatchedRead | Measured]:
    """What the helper does to a file for a lagging main process: read it, or for
    `--stats` measure it (it must not decode), unless a budget needs the files decoded
    and framed anyway."""
    reader = candidate_reader(request)
    hold = held_chars(request, reader.limits)
    if hold is not None:  # a budget: of a long text, what a cut can show
        from readmany.read.classify import credentials_name

        return lambda candidate, shown: reader(
            candidate, shown, None if credentials_name(candidate.rel) else hold
        )
    if not request.stats or request.budgeted:
        return reader
    from readmany.emit.stats import measure_for_stats

    return lambda candidate, shown: reader.measure(candidate, shown, measure_for_stats)


def _walk(
    request: GlobRequest,
    send: Callable[[tuple[Any, ...]], None],
    finished: memoryview,
    started: tuple[str, Iterator[Event]] | None,
) -> None:
    from readmany.select.candidates import Skip

    items_found: Iterator[Item]
    if started is not None:  # begun in the main process, which knows the root
        root, events = started
        items_found = ((event, None) for event in events)
    elif request.by_git:
        found = FromGit(request)  # staged files come read: from the index, here
        root, items_found = found.root, iter(found)
    else:
        from readmany.select.walk import iter_selection

        root, events = iter_selection(select_request(request))
        items_found = ((event, None) for event in events)
    if started is None:
        send(("root", root))
    # What is done to a file for a lagging main process (imported when first needed).
    read_ahead_one: Callable[[Candidate, str], MatchedRead | Measured] | None = None
    absolute = request.absolute
    sent = 0
    batch: list[Item] = []

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
                result = _pack_result(done)
                items.append((packed, result))
                size += _result_size(result)
            elif read_ahead:
                if read_ahead_one is None:
                    read_ahead_one = _ahead(request)
                result = _pack_result(read_ahead_one(event, shown_path(root, event.rel, absolute)))
                items.append((packed, result))
                size += _result_size(result)
            else:
                items.append((packed,))
        send_items(items)
        batch.clear()

    if isinstance(request.literal_paths, StdinPaths):

        def wait() -> None:
            # The main process writes what it has before the walk waits for more paths.
            if batch:
                flush()
            send(("wait",))

        request.literal_paths.on_wait = wait
    try:
        for item in items_found:
            batch.append(item)
            if len(batch) >= _BATCH:
                flush()
    except UsageError:
        if batch:
            flush()  # the paths before a bad one are written, as in one process
        raise
    if batch:
        flush()
