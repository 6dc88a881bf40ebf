"""One parsed command line to a run and an exit status: where both parsers land.

The Typer app (`readmany.cli`: help, completion, exact error messages) and the fast path
(`readmany.fastargs`: well-formed command lines, without importing Typer) both parse a
command line into the values of the command function's parameters, by name, and call
`invoke`. Those values become the command's one typed request (`readmany.request`), and
the command's `main` runs it; a usage error becomes one stderr line and exit 2 here.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from readmany.errors import EXIT_USAGE, UsageError


def invoke(command: str, values: Mapping[str, object]) -> int:
    """Run `readmany COMMAND` with its parsed options; return the exit status."""
    from readmany.emit.messages import error_line
    from readmany.request import build

    name = f"readmany.commands.{command}"
    __import__(name)  # `importlib.import_module` would import `importlib` (and `warnings`)
    module = sys.modules[name]
    try:
        code: int = module.main(build(command, values))
    except UsageError as exc:
        error_line(str(exc))
        return EXIT_USAGE
    return code
