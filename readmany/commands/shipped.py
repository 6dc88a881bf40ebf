"""`readmany completions SHELL` and `readmany man`: print a file shipped with the package.

The completion scripts and the man page are generated from the command-line definition
(`scripts/generate_docs.py`) into `completions/`, `man/` and the package's `data/`, the
same bytes in each; an install from a wheel has only the package, so the command prints
them from there.
"""

from __future__ import annotations

import os
import sys

from readmany.errors import EXIT_FILE_ERROR, EXIT_OK

# What each command prints: a file of `readmany/data/`.
SHIPPED = {
    "bash": "readmany.bash",
    "zsh": "_readmany",
    "fish": "readmany.fish",
    "man": "readmany.1",
}


def shipped_path(name: str) -> str:
    """Where the file `name` of `readmany/data/` is in this install."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", name)


def print_shipped(what: str) -> int:
    """Write the shipped file for `what` (a shell, or "man") to stdout, as it is."""
    from readmany.emit.messages import error_line

    path = shipped_path(SHIPPED[what])
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        error_line(f"{path}: {exc.strerror}: this install lacks the file; reinstall readmany")
        return EXIT_FILE_ERROR
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    return EXIT_OK
