"""Rendering a run: its content to stdout, `-o` or the clipboard, then stderr's report.

`present` is the one place a command's `Outcome` becomes an exit status: the failure or
problems as stderr lines, the summary on a terminal, the notices otherwise.
"""

from __future__ import annotations

import contextlib
import errno
import io
import sys
from collections.abc import Callable

from readmany.emit.messages import error_line
from readmany.emit.outcome import Outcome, Tally
from readmany.emit.sink import Sink
from readmany.errors import EXIT_FILE_ERROR, OutputError, StdoutClosed, UsageError
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

    from readmany.emit.clipboard import Clipboard
    from readmany.emit.sink import Writer
    from readmany.emit.target import OutputTarget


class Presentation(NamedTuple):
    """Where the content goes and how much is said about it on stderr: the options every
    command shares (`--json`, `-o`, `--quiet`, `--copy`)."""

    json_mode: bool = False
    output: str | None = None
    quiet: bool = False
    copy: bool = False


_STDOUT_BUFFER = 1 << 18
_WRITE_ERRNOS = frozenset(
    getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO") if hasattr(errno, name)
)


def present(command: Callable[[Sink], Outcome], how: Presentation) -> int:
    """Run `command` into stdout, a file or the clipboard; report; return the exit status."""
    clipboard = None
    if how.copy:
        from readmany.emit.clipboard import find_clipboard

        clipboard = find_clipboard()
    target: OutputTarget | None = None
    if how.output is not None:
        from readmany.emit.target import open_output

        try:
            target = open_output(how.output)  # checked and opened before any work
        except OSError as exc:
            raise UsageError(f"-o {how.output}: {exc.strerror}") from None
    captured = io.BytesIO() if clipboard is not None else None
    outputs = [s for s in (target.stream if target else None, captured) if s is not None]
    stdout: IO[bytes] | None = None
    stream: Writer
    if outputs:
        stream = _Tee(outputs)
    else:
        from readmany.emit.quote import guard_terminal

        stream = guard_terminal(stdout := _standard_output())
    interactive = not how.quiet and _stderr_is_terminal()
    progress = None
    if interactive:
        from readmany.emit.summary import ProgressBar

        progress = ProgressBar()
    sink = Sink(
        stream,
        json_mode=how.json_mode,
        on_file=progress.tick if progress else None,
        # The tokens of the output are said in the details, the summary and --copy's note.
        weigh=how.json_mode or interactive or clipboard is not None,
    )
    try:
        try:
            outcome = command(sink)
        finally:
            if progress is not None:
                progress.close()
        if outcome.failure is not None:
            error_line(outcome.failure)
            if target is not None:
                target.discard()
            return outcome.exit_code or EXIT_FILE_ERROR
        sink.finish(outcome.details, list(outcome.attachments))
        if target is not None:
            if outcome.exit_code != 0 and sink.bytes_written == 0 and not how.json_mode:
                target.discard()  # a failed run that wrote nothing keeps the last dump
            else:
                target.commit()
    except BrokenPipeError:
        raise StdoutClosed from None
    except OutputError as exc:
        if target is not None:
            target.discard()
        error_line(str(exc))
        return EXIT_FILE_ERROR
    except OSError as exc:
        if not is_write_failure(exc):
            raise
        # A full disk, a quota, a file too large, a device that fails: the output could
        # not be written, which is no bug (the reads report their own failures).
        if target is not None:
            target.discard()
        where = f"-o {how.output}" if how.output is not None else "standard output"
        return output_failed(where, exc)
    except BaseException:
        if target is not None:
            target.discard()
        raise
    finally:
        if stdout is not None and stdout is not sys.stdout.buffer:
            # What was written so far goes out even when the run failed; closing (not
            # the descriptor) leaves nothing for a later flush to trip over.
            with contextlib.suppress(OSError, ValueError):
                stdout.close()
    for line in outcome.problems:
        error_line(line)
    if interactive:
        from readmany.emit.summary import print_summary

        print_summary(outcome.stats or Tally(), sink.bytes_written, sink.tokens)
    elif not how.quiet:
        for line in outcome.notices:
            error_line(line)
    if not how.quiet:
        for line in outcome.advice:
            error_line(line)
    if clipboard is not None and captured is not None:
        copied = _copy(clipboard, captured.getvalue(), sink.bytes_written, sink.tokens)
        return copied or outcome.exit_code
    return outcome.exit_code


def is_write_failure(exc: OSError) -> bool:
    """Whether `exc` is the output failing (a full disk, a quota, a file too large, a
    device that fails), not a bug."""
    return exc.errno in _WRITE_ERRNOS


def output_failed(where: str, exc: OSError) -> int:
    """Say that the output could not be written, in one line; the exit status."""
    error_line(f"{where}: cannot write the output: {(exc.strerror or str(exc)).lower()}")
    return EXIT_FILE_ERROR


def _standard_output() -> IO[bytes]:
    """Standard output, written in large pieces: one system call a section would be
    thousands. A stdout the program was started without is a usage error."""
    if sys.stdout is None:
        raise UsageError("standard output is closed: redirect it, or use -o FILE")
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return sys.stdout.buffer  # not a file (a test's capture): as it is
    sys.stdout.flush()
    return open(descriptor, "wb", buffering=_STDOUT_BUFFER, closefd=False)


def _copy(clipboard: Clipboard, data: bytes, content_bytes: int, tokens: float) -> int:
    from readmany.emit.clipboard import ClipboardError

    try:
        used = clipboard.copy(data)
    except ClipboardError as exc:
        error_line(str(exc))
        return EXIT_FILE_ERROR
    error_line(used.report(f"{content_bytes} bytes (~{round(tokens)} tokens)"))
    return 0


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (OSError, ValueError):
        return False


class _Tee:
    """Writes go to every one of the streams."""

    def __init__(self, streams: list[IO[bytes]]) -> None:
        self._streams = streams

    def write(self, data: bytes, /) -> int:
        for stream in self._streams:
            stream.write(data)
        return len(data)

    def flush(self) -> None:
        for stream in self._streams:
            stream.flush()
