"""Errors a user can cause, each mapped to one line on stderr and an exit code."""

from __future__ import annotations

import errno
import os

EXIT_OK = 0
EXIT_FILE_ERROR = 1
EXIT_USAGE = 2
EXIT_STALE = 3  # edit: the snapshot an edit was made from is gone; re-read and retry


class UsageError(Exception):
    """Bad arguments, a bad pattern, too many files: exit 2 with nothing on stdout."""


class StdoutClosed(Exception):
    """The reader of stdout went away (`| head`): stop quietly.

    Not an OSError, so that no CLI library turns EPIPE into an exit status of its own.
    """


class OutputError(Exception):
    """Writing the output failed (no space left, an I/O error): one line, exit 1."""


def errno_text(code: str) -> str:
    """The system's words for an errno name (`EACCES`: "Permission denied"); the name
    itself for one the system does not know."""
    number = getattr(errno, code, None)
    return os.strerror(number) if isinstance(number, int) else code
