"""Parsed flags to a request value, a run and an exit status; no argument parsing here.

Both front ends call these functions with the same keyword arguments: the Typer app
(`readmany.cli`, for help, completion and error messages) and the fast path
(`readmany.fastargs`, for well-formed command lines, without importing Typer).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable

from readmany.commands import Outcome, Tally
from readmany.emit import AtomicFile, GatheredWriter, Sink, error_line
from readmany.errors import EXIT_FILE_ERROR, UsageError
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

    from readmany.clipboard import Clipboard
    from readmany.emit import Writer


class StdoutClosed(Exception):
    """The reader of stdout went away (`| head`): stop quietly.

    Not an OSError, so that no CLI library turns EPIPE into an exit status of its own.
    """


class Presentation(NamedTuple):
    """Where the content goes and how much is said about it on stderr."""

    json_mode: bool
    output: str | None
    quiet: bool
    copy: bool


def invoke_many(
    *,
    files: list[str] | None,
    request: str | None,
    stop_on_error: bool,
    max_bytes: int,
    max_lines: int,
    stdin: bool,
    null: bool,
    json_mode: bool,
    output: str | None,
    quiet: bool,
    copy: bool,
) -> int:
    from readmany.commands.many import (
        ManyRequest,
        check_file_count,
        parse_file_spec,
        parse_request_object,
        run_many,
    )
    from readmany.pack import Budget

    cwd = current_directory()
    specs = list(files or [])
    if stdin:
        specs.extend(stdin_paths(null))
    if request is not None:
        if specs:
            raise UsageError("--request cannot be mixed with FILE arguments or --stdin")
        parsed = parse_request_object(load_json(request), cwd)
        value = parsed._replace(stop_on_error=parsed.stop_on_error or stop_on_error)
    else:
        check_file_count(len(specs))
        value = ManyRequest(
            tuple(parse_file_spec(spec, cwd) for spec in specs),
            stop_on_error=stop_on_error,
            cwd=cwd,
        )
    value = value._replace(budget=Budget(max_bytes=max_bytes, max_lines=max_lines))
    how = Presentation(json_mode, output, quiet, copy)
    return present(lambda sink: run_many(value, sink), how)


def invoke_glob(
    *,
    patterns: list[str] | None,
    include: list[str] | None,
    exclude: list[str] | None,
    no_default_excludes: bool,
    no_gitignore: bool,
    ignore_file: list[str] | None,
    no_recursive: bool,
    root: str,
    absolute: bool,
    stdin: bool,
    null: bool,
    json_mode: bool,
    output: str | None,
    quiet: bool,
    copy: bool,
) -> int:
    from readmany.commands.walker import GlobRequest, open_selection

    if not os.path.isdir(root):
        raise UsageError(f"--root {root!r} is not a directory")
    value = GlobRequest(
        patterns=tuple(patterns or ()) + tuple(include or ()),
        excludes=tuple(exclude or ()),
        use_default_excludes=not no_default_excludes,
        use_gitignore=not no_gitignore,
        ignore_files=tuple(ignore_file or ()),
        recursive=not no_recursive,
        root=root,
        absolute=absolute,
        literal_paths=tuple(stdin_paths(null)) if stdin else (),
    )
    if not value.patterns and not stdin:
        raise UsageError("no pattern given: name at least one PATTERN (or use --stdin)")
    how = Presentation(json_mode, output, quiet, copy)
    # The walk starts first: in a helper process, it goes on while the rest is set up.
    with open_selection(value) as selection:
        from readmany.commands.glob import run_glob

        return present(lambda sink: run_glob(value, sink, selection), how)


def invoke_hashline(
    *,
    file: str,
    offset: int | None,
    limit: int | None,
    json_mode: bool,
    output: str | None,
    quiet: bool,
    copy: bool,
) -> int:
    from readmany.commands.hashline import HashlineRequest, run_hashline

    value = HashlineRequest(file, offset, limit)
    how = Presentation(json_mode, output, quiet, copy)
    return present(lambda sink: run_hashline(value, sink), how)


def invoke_edit(**values: Any) -> int:
    """`readmany edit`: its flags are checked and run by `readmany.commands.edit`."""
    from readmany.commands.edit import invoke_edit as edit

    return edit(**values)


INVOKERS: dict[str, Callable[..., int]] = {
    "many": invoke_many,
    "glob": invoke_glob,
    "hashline": invoke_hashline,
    "edit": invoke_edit,
}


def current_directory() -> str:
    try:
        return os.getcwd()
    except OSError as exc:
        raise UsageError(f"the current directory cannot be read: {exc.strerror}") from None


def stdin_paths(null: bool) -> list[str]:
    """Paths from stdin: one a line, or NUL-separated; empty entries are dropped."""
    data = sys.stdin.buffer.read()
    separator = b"\0" if null else b"\n"
    paths = []
    for raw in data.split(separator):
        if not null:
            raw = raw.removesuffix(b"\r")
        if raw:
            paths.append(os.fsdecode(raw))
    return paths


def load_json(source: str) -> Any:
    import json

    try:
        if source == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(source, "rb") as handle:
                text = handle.read()
    except OSError as exc:
        raise UsageError(f"--request {source}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"--request {source}: not valid JSON: {exc}") from None


_STDOUT_BUFFER = 1 << 18


def present(command: Callable[[Sink], Outcome], how: Presentation) -> int:
    """Run `command` into stdout, a file or the clipboard; report; return the exit status."""
    clipboard = None
    if how.copy:
        from readmany.clipboard import find_clipboard

        clipboard = find_clipboard()
    target: AtomicFile | None = None
    if how.output is not None:
        try:
            target = AtomicFile(how.output)
        except OSError as exc:
            raise UsageError(f"-o {how.output}: {exc.strerror}") from None
    captured = io.BytesIO() if clipboard is not None else None
    outputs = [s for s in (target.stream if target else None, captured) if s is not None]
    stdout: GatheredWriter | IO[bytes] | None = None
    stream: Writer
    if outputs:
        stream = _Tee(outputs)
    else:
        stream = stdout = _standard_output()
    interactive = not how.quiet and _stderr_is_terminal()
    progress = None
    if interactive:
        from readmany.summary import ProgressBar

        progress = ProgressBar()
    sink = Sink(stream, json_mode=how.json_mode, on_file=progress.tick if progress else None)
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
            target.commit()
    except BrokenPipeError:
        raise StdoutClosed from None
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
        from readmany.summary import print_summary

        print_summary(outcome.stats or Tally(), sink.bytes_written)
    elif not how.quiet:
        for line in outcome.notices:
            error_line(line)
    if clipboard is not None and captured is not None:
        return _copy(clipboard, captured.getvalue(), sink.bytes_written) or outcome.exit_code
    return outcome.exit_code


def _standard_output() -> GatheredWriter | IO[bytes]:
    """Standard output, written in large pieces: one system call a section would be
    thousands. A stdout the program was started without is a usage error."""
    if sys.stdout is None:
        raise UsageError("standard output is closed: redirect it, or use -o FILE")
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return sys.stdout.buffer  # not a file (a test's capture): as it is
    sys.stdout.flush()
    if hasattr(os, "writev"):
        return GatheredWriter(descriptor, _STDOUT_BUFFER)
    return open(descriptor, "wb", buffering=_STDOUT_BUFFER, closefd=False)


def _copy(clipboard: Clipboard, data: bytes, content_bytes: int) -> int:
    from readmany.clipboard import ClipboardError
    from readmany.tokens import estimate_tokens

    try:
        clipboard.copy(data)
    except ClipboardError as exc:
        error_line(str(exc))
        return EXIT_FILE_ERROR
    tokens = estimate_tokens(content_bytes)
    error_line(f"copied {content_bytes} bytes (~{tokens} tokens) with {clipboard.name}")
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
