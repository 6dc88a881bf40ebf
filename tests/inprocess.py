"""Run `readmany` inside the test process, as the installed command would run.

`run_in_process` calls `readmany.__main__.main(argv)` as the console script does, with
what a new process would have been given: standard input, output and error on
descriptors 0, 1 and 2 (a pipe holding the input; output and error in unlinked files,
appended to as a pipe is, and read back as bytes); `sys.stdin`, `sys.stdout` and
`sys.stderr` made on them as the interpreter makes its own (encoding, errors, buffering
as PYTHONUNBUFFERED says, `.buffer`, `.fileno()`); the environment, the working
directory and `sys.argv`. Those, the umask and every signal's handler are put back
after the call. The exit status is what `main` returns, or what a `SystemExit` carries.
The script's `entry()`, which ends with `os._exit`, is not used: its one other step,
the last flush, is done here. A run past its timeout is stopped by SIGALRM.

What stays different from a new process is checked, so that no test relies on it:
modules are imported once for all runs (nothing may be read from the environment at
import time), and what the interpreter reads when it starts (`_START_UP`, the locale)
cannot change for one run. A run that leaves a descriptor open, a thread running, a
child process unwaited, a signal handler, the environment, the working directory or
the umask changed fails the test: in a process of its own that would go unseen, but it
is a defect all the same (the MCP server runs the commands in one long-lived process).

A test that needs a real process (signals, terminals, `os._exit`, another user, timing,
threads of the test running beside the command) runs the installed command instead:
mark it `@pytest.mark.smoke`.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType

# What the interpreter (or typer, on import) reads at start-up and the run would see:
# one process cannot change these for one run.
_START_UP = (
    "PYTHONIOENCODING",
    "PYTHONUTF8",
    "PYTHONWARNINGS",
    "PYTHONDEVMODE",
    "PYTHONOPTIMIZE",
    "TYPER_USE_RICH",
    "TERMINAL_WIDTH",
    "_TYPER_FORCE_DISABLE_TERMINAL",
)
_PIPE_BYTES = 1 << 20  # the most an unprivileged process may ask a pipe to hold (Linux)


class _Timeout(BaseException):
    """Raised by the alarm: a BaseException, so that `main` does not report it as a bug."""


def run_in_process(
    args: Sequence[str | os.PathLike[str]],
    cwd: str | Path | None = None,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    argv0: str = "readmany",
) -> subprocess.CompletedProcess[bytes]:
    """`readmany ARGS`, run here; what `subprocess.run(..., capture_output=True)` returns."""
    argv = [os.fsdecode(arg) for arg in args]
    if env is not None:
        _check_start_up(env)
    if cwd is not None and not os.path.isdir(cwd):
        raise FileNotFoundError(2, "No such file or directory", str(cwd))
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(_capture_file())
        err = stack.enter_context(_capture_file())
        stack.enter_context(_process_state(argv0, argv, cwd, env))
        stack.enter_context(_standard_streams(stdin or b"", out, err))
        try:
            with _alarm(timeout):
                code = _main(argv)
        except _Timeout:
            _flush()
            raise subprocess.TimeoutExpired(
                [argv0, *argv], timeout, _contents(out), _contents(err)
            ) from None
        _flush()
        return subprocess.CompletedProcess(
            [argv0, *argv], code, stdout=_contents(out), stderr=_contents(err)
        )


def _main(argv: list[str]) -> int:
    from readmany.__main__ import main

    try:
        return main(list(argv))
    except SystemExit as exc:  # as the interpreter turns it into a status
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code & 0xFF
        sys.stderr.write(f"{exc.code}\n")
        return 1


def _flush() -> None:
    # `entry()`'s last step: the reader may be gone, and then there is nothing to say.
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()


def _check_start_up(env: dict[str, str]) -> None:
    for name in _START_UP:
        if env.get(name) != os.environ.get(name):
            _refuse(name)
    # The locale sets the streams' encoding at start-up; without one, or with C or POSIX,
    # the interpreter takes UTF-8, as here.
    locale = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or "C"
    if locale not in ("C", "POSIX") and not locale.lower().replace("-", "").endswith("utf8"):
        _refuse(f"the locale {locale!r}")


def _refuse(what: str) -> None:
    raise AssertionError(
        f"{what} is read when the interpreter starts: a run in the test process cannot "
        "change it; mark the test @pytest.mark.smoke"
    )


@contextlib.contextmanager
def _capture_file() -> Iterator[int]:
    """An unlinked file opened for appending: writes through any descriptor on it, or
    through `/dev/stdout` opened again, land after each other in order, as in a pipe."""
    import fcntl

    fd, name = tempfile.mkstemp(prefix="readmany-capture-")
    try:
        os.unlink(name)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
        yield fd
    finally:
        os.close(fd)


def _contents(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""


def _input_descriptor(data: bytes) -> int:
    """A descriptor to read `data` from, then the end: a pipe, as `subprocess.run` gives,
    when a pipe holds it all; else an unlinked file."""
    import fcntl

    read_end, write_end = os.pipe()
    try:
        if len(data) > 1 << 16:
            with contextlib.suppress(OSError):
                fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        if len(data) <= fcntl.fcntl(write_end, fcntl.F_GETPIPE_SZ):
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view) :]
            return read_end
    finally:
        os.close(write_end)
    os.close(read_end)
    fd, name = tempfile.mkstemp(prefix="readmany-input-")
    os.unlink(name)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _stream(fd: int, name: str, like: object, errors: str) -> io.TextIOWrapper:
    """A standard stream on `fd`, made as the interpreter makes it at start-up for a
    descriptor that is no terminal: newline "\\n"; stdout and stderr buffered, stderr by
    the line, unless PYTHONUNBUFFERED is set (then written through, unbuffered)."""
    writing = fd != 0
    raw = io.FileIO(fd, "wb" if writing else "rb", closefd=False)
    raw.name = name  # type: ignore[misc]  # as the interpreter names it
    unbuffered = writing and bool(os.environ.get("PYTHONUNBUFFERED"))
    buffer: io.RawIOBase | io.BufferedIOBase = raw
    if not unbuffered:
        buffer = io.BufferedWriter(raw) if writing else io.BufferedReader(raw)
    stream = io.TextIOWrapper(
        buffer,  # type: ignore[arg-type]
        encoding=getattr(like, "encoding", None) or "utf-8",
        errors=getattr(like, "errors", None) or errors,
        newline="\n",
        line_buffering=fd == 2 and not unbuffered,
        write_through=unbuffered,
    )
    stream.mode = "w" if writing else "r"  # type: ignore[misc]
    return stream


@contextlib.contextmanager
def _standard_streams(data: bytes, out: int, err: int) -> Iterator[None]:
    """Descriptors 0, 1 and 2 and `sys.stdin`, `sys.stdout`, `sys.stderr` for one run."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    made: list[io.TextIOWrapper] = []
    try:
        given = _input_descriptor(data)
        try:
            os.dup2(given, 0)
        finally:
            os.close(given)
        os.dup2(out, 1)
        os.dup2(err, 2)
        made = [
            _stream(0, "<stdin>", sys.__stdin__, "strict"),
            _stream(1, "<stdout>", sys.__stdout__, "strict"),
            _stream(2, "<stderr>", sys.__stderr__, "backslashreplace"),
        ]
        sys.stdin, sys.stdout, sys.stderr = made
        yield
    finally:
        for stream in (sys.stdout, sys.stderr, *made):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                stream.flush()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        for stream in made:
            with contextlib.suppress(OSError, ValueError):
                stream.close()  # closefd=False: the descriptors stay
        for fd, copy in enumerate(saved):
            os.dup2(copy, fd)
            os.close(copy)


def _handlers() -> dict[int, object]:
    found = {}
    for number in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError):
            found[number] = signal.getsignal(number)
    return found


def _descriptors() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def _children() -> set[str]:
    words: set[str] = set()
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError), open(f"/proc/self/task/{task}/children") as file:
            words.update(file.read().split())
    return words


@contextlib.contextmanager
def _process_state(
    argv0: str, argv: list[str], cwd: str | Path | None, env: dict[str, str] | None
) -> Iterator[None]:
    """The environment, working directory, `sys.argv`, umask and signal handlers of a
    new process for one run, then those of the test again; what the run left changed
    that a process of its own would have taken with it fails the test."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_argv = sys.argv
    mask = os.umask(0o022)
    os.umask(mask)
    handlers = _handlers()
    descriptors = _descriptors()
    children = _children()
    threads = threading.active_count()
    leaks: list[str] = []
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        given_env = dict(os.environ)
        if cwd is not None:
            os.chdir(cwd)
        given_cwd = os.getcwd()
        sys.argv = [argv0, *argv]
        yield
        if dict(os.environ) != given_env:
            leaks.append("changed os.environ")
        if os.getcwd() != given_cwd:
            leaks.append(f"left the working directory at {os.getcwd()}")
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        if dict(os.environ) != saved_env:
            os.environ.clear()
            os.environ.update(saved_env)
        if os.umask(mask) != mask:
            leaks.append("changed the umask")
        for number, handler in handlers.items():
            if signal.getsignal(number) is not handler and handler is not None:
                leaks.append(f"left a handler for {signal.Signals(number).name}")
                signal.signal(number, handler)  # type: ignore[arg-type]
    opened = _descriptors() - descriptors
    if opened:
        leaks.append("left descriptors open: " + ", ".join(_describe(fd) for fd in opened))
    if _children() - children:
        leaks.append("left a child process unwaited")
    if threading.active_count() != threads:
        leaks.append("left a thread running")
    if leaks:
        raise AssertionError("readmany, run in-process, " + "; ".join(leaks))


def _describe(fd: str) -> str:
    try:
        return f"{fd} ({os.readlink(f'/proc/self/fd/{fd}')})"
    except OSError:
        return fd


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(number: int, frame: FrameType | None) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
