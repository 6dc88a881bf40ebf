"""The command line: flags to a request value, the command run, the exit code chosen.

No reading, framing or packing happens here. Each command builds its request, opens the
output (stdout, or a file written atomically with `-o`), runs, and reports on stderr.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from readmany import __version__
from readmany.commands import Outcome
from readmany.emit import AtomicFile, Sink, Writer, error_line
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK, EXIT_USAGE, UsageError

if TYPE_CHECKING:
    from readmany.clipboard import Clipboard

EXIT_CODES_HELP = (
    "Exit status: 0 every requested file was read; 1 output was written but some file "
    "could not be read; 2 usage error (bad arguments, bad pattern, too many files), "
    "nothing on stdout."
)

app = typer.Typer(
    name="readmany",
    help=(
        "Read many files at once and write them as one framed text: heredoc batches "
        "under a budget (many), glob concatenation honouring .gitignore (glob), or "
        "snapshot-bound hashline anchors (hashline)."
    ),
    epilog=EXIT_CODES_HELP,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

JsonOpt = Annotated[
    bool, typer.Option("--json", help="Write one JSON object: content, details, attachments.")
]
OutputOpt = Annotated[
    Path | None,
    typer.Option(
        "--output", "-o", metavar="FILE", help="Write to FILE (atomically) instead of stdout."
    ),
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="No notes or summary on stderr; errors still.")
]
CopyOpt = Annotated[
    bool,
    typer.Option(
        "--copy",
        help="Put the output on the clipboard (wl-copy, xclip, xsel, pbcopy or OSC 52) "
        "instead of stdout.",
    ),
]


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"readmany {__version__}\n")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Read many files at once: batch, glob, hashline."""


@app.command(
    "many",
    epilog=(
        "Examples:\n\n"
        "  readmany many src/a.py src/b.py:40:120\n\n"
        "  readmany many --request request.json --json\n\n" + EXIT_CODES_HELP
    ),
)
def many_command(
    files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="FILE[:OFFSET[:LIMIT]]...",
            help="Files to read, 1 to 26; OFFSET is the 1-based first line, LIMIT a line count.",
            show_default=False,
        ),
    ] = None,
    request: Annotated[
        str | None,
        typer.Option(
            "--request",
            metavar="FILE|-",
            help='The tool\'s argument object as JSON: {"files": [{"path", "offset", '
            '"limit"}], "stopOnError": …}.',
        ),
    ] = None,
    stop_on_error: Annotated[
        bool, typer.Option("--stop-on-error", help="Stop after the first file that fails.")
    ] = False,
    max_bytes: Annotated[
        int, typer.Option("--max-bytes", min=1, help="Combined byte budget of the output.")
    ] = 51200,
    max_lines: Annotated[
        int, typer.Option("--max-lines", min=1, help="Combined line budget of the output.")
    ] = 2000,
    stdin: Annotated[
        bool, typer.Option("--stdin", help="Read more FILE arguments from stdin, one a line.")
    ] = False,
    null: Annotated[
        bool, typer.Option("-0", "--null", help="With --stdin: NUL-separated (find -print0).")
    ] = False,
    json_mode: JsonOpt = False,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
    copy: CopyOpt = False,
) -> None:
    """Batch read: each file in a heredoc block, packed under a combined budget."""
    from dataclasses import replace

    from readmany.commands.many import (
        ManyRequest,
        check_file_count,
        parse_file_spec,
        parse_request_object,
        run_many,
    )
    from readmany.pack import Budget

    cwd = _cwd()
    specs = list(files or [])
    if stdin:
        specs.extend(_stdin_paths(null))
    if request is not None:
        if specs:
            raise UsageError("--request cannot be mixed with FILE arguments or --stdin")
        parsed = parse_request_object(_load_json(request), cwd)
        value = replace(parsed, stop_on_error=parsed.stop_on_error or stop_on_error)
    else:
        check_file_count(len(specs))
        value = ManyRequest(
            tuple(parse_file_spec(spec, cwd) for spec in specs),
            stop_on_error=stop_on_error,
            cwd=cwd,
        )
    value = replace(value, budget=Budget(max_bytes=max_bytes, max_lines=max_lines))
    _finish(lambda sink: run_many(value, sink), Presentation(json_mode, output, quiet, copy))


@app.command(
    "glob",
    epilog=(
        "Examples:\n\n"
        "  readmany glob 'src/**/*.py' --exclude '**/test_*'\n\n"
        "  git ls-files -z | readmany glob --stdin -0\n\n" + EXIT_CODES_HELP
    ),
)
def glob_command(
    patterns: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PATTERN...",
            help="Globs, file names or directories, relative to the root.",
            show_default=False,
        ),
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option("--include", metavar="PATTERN", help="Another pattern (repeatable)."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", metavar="PATTERN", help="Leave out matches (repeatable)."),
    ] = None,
    no_default_excludes: Annotated[
        bool,
        typer.Option(
            "--no-default-excludes", help="Drop the default excludes (node_modules, .git, …)."
        ),
    ] = False,
    no_gitignore: Annotated[
        bool, typer.Option("--no-gitignore", help="Do not honour .gitignore files.")
    ] = False,
    ignore_file: Annotated[
        list[str] | None,
        typer.Option(
            "--ignore-file",
            metavar="NAME",
            help="Another ignore file at the root, gitignore syntax (repeatable); "
            ".readmanyignore is always honoured.",
        ),
    ] = None,
    no_recursive: Annotated[
        bool,
        typer.Option("--no-recursive", help="A directory means only the files directly in it."),
    ] = False,
    root: Annotated[
        Path, typer.Option("--root", metavar="DIR", help="The root: files outside are refused.")
    ] = Path("."),
    absolute: Annotated[
        bool, typer.Option("--absolute", help="Show absolute paths in separators.")
    ] = False,
    stdin: Annotated[
        bool, typer.Option("--stdin", help="Read more paths from stdin, one a line.")
    ] = False,
    null: Annotated[
        bool, typer.Option("-0", "--null", help="With --stdin: NUL-separated (git ls-files -z).")
    ] = False,
    json_mode: JsonOpt = False,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
    copy: CopyOpt = False,
) -> None:
    """Glob read: matching files concatenated with --- path --- separators."""
    from readmany.commands.glob import GlobRequest, run_glob

    if not root.is_dir():
        raise UsageError(f"--root {str(root)!r} is not a directory")
    literal = tuple(_stdin_paths(null)) if stdin else ()
    value = GlobRequest(
        patterns=tuple(patterns or ()) + tuple(include or ()),
        excludes=tuple(exclude or ()),
        use_default_excludes=not no_default_excludes,
        use_gitignore=not no_gitignore,
        ignore_files=tuple(ignore_file or ()),
        recursive=not no_recursive,
        root=str(root),
        absolute=absolute,
        literal_paths=literal,
    )
    if not value.patterns and not stdin:
        raise UsageError("no pattern given: name at least one PATTERN (or use --stdin)")
    _finish(lambda sink: run_glob(value, sink), Presentation(json_mode, output, quiet, copy))


@app.command(
    "hashline",
    epilog=(
        "Examples:\n\n"
        "  readmany hashline src/a.py\n\n"
        "  readmany hashline src/a.py --offset 2000 --limit 100 --json\n\n" + EXIT_CODES_HELP
    ),
)
def hashline_command(
    file: Annotated[str, typer.Argument(metavar="FILE", help="The file to read.")],
    offset: Annotated[
        int | None, typer.Option("--offset", min=1, help="1-based first line.")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Lines to show.")] = None,
    json_mode: JsonOpt = False,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
    copy: CopyOpt = False,
) -> None:
    """Hashline read: @file path#TAG, then N#abc|line for every line."""
    from readmany.commands.hashline import HashlineRequest, run_hashline

    value = HashlineRequest(file, offset, limit)
    _finish(lambda sink: run_hashline(value, sink), Presentation(json_mode, output, quiet, copy))


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError as exc:
        raise UsageError(f"the current directory cannot be read: {exc.strerror}") from None


def _stdin_paths(null: bool) -> list[str]:
    data = sys.stdin.buffer.read()
    separator = b"\0" if null else b"\n"
    paths = []
    for raw in data.split(separator):
        if not null:
            raw = raw.removesuffix(b"\r")
        if raw:
            paths.append(os.fsdecode(raw))
    return paths


def _load_json(source: str) -> Any:
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


@dataclass(frozen=True)
class Presentation:
    """Where the content goes and how much is said about it on stderr."""

    json_mode: bool
    output: Path | None
    quiet: bool
    copy: bool


def _finish(command: Callable[[Sink], Outcome], how: Presentation) -> NoReturn:
    clipboard = None
    if how.copy:
        from readmany.clipboard import find_clipboard

        clipboard = find_clipboard()
    target: AtomicFile | None = None
    if how.output is not None:
        try:
            target = AtomicFile(str(how.output))
        except OSError as exc:
            raise UsageError(f"-o {how.output}: {exc.strerror}") from None
    captured = io.BytesIO() if clipboard is not None else None
    outputs = [s for s in (target.stream if target else None, captured) if s is not None]
    stream: Writer = _Tee(outputs) if outputs else sys.stdout.buffer
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
            raise typer.Exit(outcome.exit_code or EXIT_FILE_ERROR)
        sink.finish(outcome.details, list(outcome.attachments))
        if target is not None:
            target.commit()
    except BrokenPipeError:
        # Not an OSError any more: the CLI library would turn EPIPE into exit status 1.
        raise StdoutClosed from None
    except BaseException:
        if target is not None:
            target.discard()
        raise
    for line in outcome.problems:
        error_line(line)
    if interactive:
        from readmany.summary import print_summary

        print_summary(outcome.stats, sink.bytes_written)
    elif not how.quiet:
        for line in outcome.notices:
            error_line(line)
    if clipboard is not None and captured is not None:
        _copy(clipboard, captured.getvalue(), sink.bytes_written)
    raise typer.Exit(outcome.exit_code)


def _copy(clipboard: Clipboard, data: bytes, content_bytes: int) -> None:
    from readmany.clipboard import ClipboardError
    from readmany.tokens import estimate_tokens

    try:
        clipboard.copy(data)
    except ClipboardError as exc:
        error_line(str(exc))
        raise typer.Exit(EXIT_FILE_ERROR) from None
    tokens = estimate_tokens(content_bytes)
    error_line(f"copied {content_bytes} bytes (~{tokens} tokens) with {clipboard.name}")


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


class StdoutClosed(Exception):
    """The reader of stdout went away (`| head`): stop quietly."""


def run(args: list[str]) -> int:
    """Run the command line; return the exit code. Never lets a traceback out for users."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args, prog_name="readmany", standalone_mode=False)
    except UsageError as exc:
        error_line(str(exc))
        return EXIT_USAGE
    except typer.Exit as exc:
        return exc.exit_code
    except StdoutClosed:
        raise BrokenPipeError from None
    except typer.Abort:
        sys.stderr.write("\n")
        return 130
    except Exception as exc:
        click_code = getattr(exc, "exit_code", None)
        if hasattr(exc, "format_message") and isinstance(click_code, int):
            error_line(exc.format_message())
            return EXIT_USAGE if click_code == 2 else click_code
        raise
    return code if isinstance(code, int) else EXIT_OK


__all__ = ["EXIT_FILE_ERROR", "app", "run"]
