"""The fast path: a well-formed command line runs without importing Typer.

Start-up time is a feature of a command-line tool, and Typer (with what it imports) costs
more than the rest of a small run. This parser reads the table generated from the Typer
app (`readmany.argtable`) and accepts only what it is sure of; everything else — help,
a bad value, an unknown option, anything unusual — returns None and goes to the Typer
app, which gives the help text or the exact error. A test checks that both parse every
accepted command line to the same values.
"""

from __future__ import annotations

from readmany.argtable import ARGUMENTS, DEFAULTS, OPTIONS
from readmany.numbers import whole_number


def parse(args: list[str]) -> tuple[str, dict[str, object]] | None:
    """(command, keyword arguments for its invoker), or None to let Typer decide."""
    if not args or args[0] not in OPTIONS:
        return None
    command, rest = args[0], args[1:]
    options = OPTIONS[command]
    values: dict[str, object] = dict(DEFAULTS[command])
    positional: list[str] = []
    index = 0
    while index < len(rest):
        token = rest[index]
        index += 1
        if token == "--":
            positional.extend(rest[index:])
            break
        if not token.startswith("-") or token == "-":
            positional.append(token)
            continue
        flag, has_inline, inline = token.partition("=")
        if flag not in options or (has_inline and not flag.startswith("--")):
            return None
        name, kind, minimum = options[flag]
        if kind == "flag":
            if has_inline:
                return None
            values[name] = True
            continue
        if has_inline:
            raw = inline
        elif index < len(rest) and (rest[index] == "-" or not rest[index].startswith("-")):
            raw = rest[index]
            index += 1
        else:
            return None  # a missing value, or one that looks like an option
        converted = _convert(kind, raw, minimum)
        if converted is None:
            return None
        if kind == "list":
            previous = values[name]
            values[name] = [*previous, raw] if isinstance(previous, list) else [raw]
        else:
            values[name] = converted
    if not _place_arguments(command, positional, values):
        return None
    return command, values


def _convert(kind: str, raw: str, minimum: int | None) -> object | None:
    if kind == "int":
        number = whole_number(raw)
        if number is None or (minimum is not None and number < minimum):
            return None  # Typer's parser says what is wrong
        return number
    if kind == "size":  # handed on as given; a value the command would refuse goes to Typer
        from readmany.errors import UsageError
        from readmany.request.given import parse_size

        try:
            parse_size(raw, "")
        except UsageError:
            return None
    return raw


def _place_arguments(command: str, positional: list[str], values: dict[str, object]) -> bool:
    arguments = ARGUMENTS[command]
    for name, kind, required in arguments:
        if kind == "list":
            values[name] = positional or None
            positional = []
        elif positional:
            values[name] = positional.pop(0)
        elif required:
            return False
    return not positional
