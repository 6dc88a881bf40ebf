"""One module per subcommand: each wires the stages (select → read → frame → pack → emit).

A command takes its request value and a `Sink`, writes its content through the sink and
returns an `Outcome`; the CLI turns the outcome into the exit code and stderr lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from readmany.emit import Attachment


@dataclass(frozen=True)
class FileStat:
    """One file's fate, for the summary: `read`, `cut`, `omitted`, `skipped` or `error`."""

    path: str
    status: str
    bytes: int = 0  # bytes of output it took (0 when not shown)
    reason: str = ""


@dataclass(frozen=True)
class Outcome:
    """What a command produced, besides the content already written to the sink.

    `failure` set means nothing is to be written at all (the command failed as a
    whole, e.g. hashline's offset beyond the end): the CLI prints it as one stderr line,
    discards any output and exits with `exit_code`.
    """

    details: dict[str, Any]
    exit_code: int = 0
    attachments: tuple[Attachment, ...] = ()
    problems: tuple[str, ...] = field(default=())  # read failures, one stderr line each
    notices: tuple[str, ...] = field(default=())  # skipped / cut / omitted, one line each
    failure: str | None = None
    stats: tuple[FileStat, ...] = ()
