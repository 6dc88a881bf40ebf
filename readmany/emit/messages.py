"""Diagnostics: one line on stderr each, prefixed with the program name."""

from __future__ import annotations

import sys


def error_line(message: str) -> None:
    """One diagnostic line on stderr, prefixed with the program name."""
    one_line = " ".join(message.splitlines()) or "error"
    sys.stderr.write(f"readmany: {one_line}\n")
    sys.stderr.flush()
