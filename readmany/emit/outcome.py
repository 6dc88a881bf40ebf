"""What a run produced: each file's fate (`FileStat`), their count (`Tally`) and the
command's result (`Outcome`), which the CLI turns into the exit code and stderr lines."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable

from readmany.emit.sink import Attachment
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class FileStat(NamedTuple):
    """One file's fate, for the summary: `read`, `cut`, `outlined`, `omitted`, `skipped`
    or `error`."""

    path: str
    status: str
    bytes: int = 0  # bytes of output it took (0 when not shown)
    reason: str = ""


class Tally:
    """What a run did to its files, counted as it goes: the summary's material.

    Memory stays bounded however many files pass: counts, a few examples per reason,
    the first errors and the largest files, never a record per file.
    """

    EXAMPLES = 3
    ERRORS = 5
    LARGEST = 3

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.reasons: Counter[str] = Counter()  # of files not shown: skipped, omitted
        self.examples: dict[str, list[str]] = {}  # reason -> the first few paths
        self.errors: list[str] = []
        self.largest: list[tuple[int, str]] = []  # a heap of the largest shown files

    def add(self, stat: FileStat) -> None:
        self.counts[stat.status] += 1
        if stat.status in ("skipped", "omitted", "cut"):
            reason = stat.reason or stat.status
            if stat.status != "cut":
                self.reasons[reason] += 1
            examples = self.examples.setdefault(reason, [])
            if len(examples) < self.EXAMPLES:
                examples.append(stat.path)
        if stat.status == "error" and len(self.errors) < self.ERRORS:
            self.errors.append(stat.path)
        if stat.bytes and stat.status in ("read", "cut"):
            self._consider(stat.bytes, stat.path)

    def add_many(self, paths: list[str], status: str, reason: str) -> None:
        """`add(FileStat(path, status, 0, reason))` for each path, at once (thousands of
        files a budget leaves out); `status` is "skipped" or "omitted"."""
        if not paths:
            return
        self.counts[status] += len(paths)
        self.reasons[reason] += len(paths)
        examples = self.examples.setdefault(reason, [])
        examples.extend(paths[: self.EXAMPLES - len(examples)])

    def add_read(self, path: str, size: int) -> None:
        """`add(FileStat(path, "read", size))`, for the common case, without the record."""
        self.counts["read"] += 1
        if size:
            self._consider(size, path)

    def _consider(self, size: int, path: str) -> None:
        """Keep the file among the largest shown, if it is one of them."""
        entry = (size, path)
        if len(self.largest) < self.LARGEST:
            heapq.heappush(self.largest, entry)
        elif entry > self.largest[0]:
            heapq.heapreplace(self.largest, entry)

    def largest_files(self) -> list[tuple[str, int]]:
        """(path, bytes) of the largest shown files, largest first."""
        ranked = sorted(self.largest, key=lambda e: (-e[0], e[1]))
        return [(path, size) for size, path in ranked]

    @classmethod
    def of(cls, stats: Iterable[FileStat]) -> Tally:
        tally = cls()
        for stat in stats:
            tally.add(stat)
        return tally


class Outcome(NamedTuple):
    """What a command produced, besides the content already written to the sink.

    `failure` set means nothing is to be written at all (the command failed as a
    whole, e.g. hashline's offset beyond the end): the CLI prints it as one stderr line,
    discards any output and exits with `exit_code`.
    """

    details: dict[str, Any]
    exit_code: int = 0
    attachments: tuple[Attachment, ...] = ()
    problems: tuple[str, ...] = ()  # read failures, one stderr line each
    notices: tuple[str, ...] = ()  # skipped / cut / omitted, one line each
    advice: tuple[str, ...] = ()  # what to run next, said after the notices or the summary
    failure: str | None = None
    stats: Tally | None = None  # for the summary
