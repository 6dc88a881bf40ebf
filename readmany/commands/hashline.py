"""`readmany hashline`: one file, every line tagged with its anchor, bound to a snapshot."""

from __future__ import annotations

from dataclasses import dataclass

from readmany.commands import Outcome
from readmany.emit import Sink


@dataclass(frozen=True)
class HashlineRequest:
    """The flags of `readmany hashline`, as the CLI parsed them."""

    path: str  # as given on the command line; shown in the header
    offset: int | None = None  # 1-based first line
    limit: int | None = None


def run_hashline(request: HashlineRequest, sink: Sink) -> Outcome:
    raise NotImplementedError("hashline is being built")
