"""Diagnostics: one line on stderr each, prefixed with the program name."""

from __future__ import annotations

import sys

from readmany.emit.quote import escape_controls


def error_line(message: str) -> None:
    """One diagnostic line on stderr, prefixed with the program name.

    Control characters (a file name can hold an escape sequence or a line break) are
    written escaped: nothing a name holds reaches the terminal raw or forges a line."""
    one_line = escape_controls(message) or "error"
    sys.stderr.write(f"readmany: {one_line}\n")
    sys.stderr.flush()
