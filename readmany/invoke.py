"""One parsed command line to a run and an exit status: where both parsers land.

The Typer app (`readmany.cli`: help, completion, exact error messages) and the fast path
(`readmany.fastargs`: well-formed command lines, without importing Typer) both parse a
command line into the values of the command function's parameters, by name, and call
`invoke`. Each command module builds its one request value from those `Options` in its
`main`; usage errors become one stderr line and exit 2 here, and nowhere else.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from readmany.errors import EXIT_USAGE, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Options:
    """The parsed options of one command line, by parameter name, read with their type."""

    def __init__(self, values: Mapping[str, object]) -> None:
        self._values = values

    def flag(self, name: str) -> bool:
        return bool(self._values.get(name, False))

    def text(self, name: str) -> str | None:
        value = self._values.get(name)
        return value if isinstance(value, str) else None

    def texts(self, name: str) -> tuple[str, ...]:
        value = self._values.get(name)
        return tuple(value) if isinstance(value, (list, tuple)) else ()

    def number(self, name: str) -> int | None:
        value = self._values.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None


def invoke(command: str, values: Mapping[str, object]) -> int:
    """Run `readmany COMMAND` with its parsed options; return the exit status."""
    from importlib import import_module

    from readmany.emit.messages import error_line

    module = import_module(f"readmany.commands.{command}")
    try:
        code: int = module.main(Options(values))
    except UsageError as exc:
        error_line(str(exc))
        return EXIT_USAGE
    return code


def current_directory() -> str:
    try:
        return os.getcwd()
    except OSError as exc:
        raise UsageError(f"the current directory cannot be read: {exc.strerror}") from None


def read_stdin(option: str) -> bytes:
    """All of standard input, or a usage error naming the option that reads it."""
    stream = sys.stdin
    if stream is None or stream.closed:
        raise UsageError(f"standard input is closed, and {option} reads from it: give it input")
    try:
        return stream.buffer.read()
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"standard input cannot be read ({exc}), and {option} reads from it"
        ) from None


def stdin_paths(null: bool, *, quiet: bool = False) -> list[str]:
    """Paths from stdin: one a line, or NUL-separated; empty entries are dropped.

    A terminal on stdin is told what is awaited (nothing else would show that the
    program waits); NUL bytes in a line-separated list mean `-0` was forgotten.
    """
    if not quiet and sys.stdin is not None and _is_terminal(sys.stdin):
        sys.stderr.write("readmany: reading paths from stdin, one a line (Ctrl-D ends)\n")
        sys.stderr.flush()
    data = read_stdin("--stdin")
    if not null and b"\0" in data:
        raise UsageError("--stdin: the paths are NUL-separated: add -0 (--null)")
    separator = b"\0" if null else b"\n"
    paths = []
    for raw in data.split(separator):
        if not null:
            raw = raw.removesuffix(b"\r")
        if raw:
            paths.append(os.fsdecode(raw))
    return paths


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return callable(isatty) and bool(isatty())
    except (OSError, ValueError):
        return False


def read_input(source: str, option: str) -> bytes:
    """The bytes an option names: a file, or standard input for `-`."""
    if source == "-":
        return read_stdin(f"{option} -")
    try:
        with open(source, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise UsageError(f"{option} {source}: {exc.strerror}") from None


def load_json(source: str) -> Any:
    import json

    text = read_input(source, "--request")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"--request {source}: not valid JSON: {exc}") from None
    except RecursionError:
        raise UsageError(f"--request {source}: nested too deeply to be a request") from None
