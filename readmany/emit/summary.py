"""The human side of a run, on stderr only: a progress bar on long runs, a summary after.

Both appear only when stderr is a terminal and `--quiet` is not given; `rich` is imported
only then. `NO_COLOR` is honoured (rich reads it).
"""

from __future__ import annotations

import time

from readmany.emit.outcome import Tally
from readmany.emit.quote import escape_controls
from readmany.units import human_size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROGRESS_AFTER_SECONDS = 1.0
PROGRESS_AFTER_FILES = 500


def summary_lines(tally: Tally, content_bytes: int, tokens: float) -> list[str]:
    """The summary as plain lines (rendered with colour by `print_summary`); `tokens`,
    the content's estimated tokens."""
    counts = tally.counts
    parts = [f"{counts['read']} read"]
    for status in ("cut", "outlined", "omitted", "skipped", "error"):
        if counts[status]:
            label = "errors" if status == "error" and counts[status] > 1 else status
            parts.append(f"{counts[status]} {label}")
    lines = [f"{', '.join(parts)} · {human_size(content_bytes)} · ~{round(tokens):,} tokens"]
    if tally.reasons:
        # Each reason with its count and the first few files: a file named on the
        # command line and not shown is named here, as it is when stderr is no terminal.
        listed = "; ".join(
            f"{reason} ({count}): {_examples(tally, reason, count)}"
            for reason, count in sorted(tally.reasons.items())
        )
        lines.append(f"not shown: {listed}")
    if tally.errors:
        more = " …" if counts["error"] > len(tally.errors) else ""
        lines.append("errors: " + ", ".join(tally.errors) + more)
    largest = tally.largest_files()
    if largest:
        lines.append("largest: " + ", ".join(f"{p} {human_size(b)}" for p, b in largest))
    return lines


def _examples(tally: Tally, reason: str, count: int) -> str:
    shown = tally.examples.get(reason, [])
    return ", ".join(shown) + (", …" if count > len(shown) else "")


def print_summary(tally: Tally, content_bytes: int, tokens: float) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(stderr=True, highlight=False)
    first, *rest = summary_lines(tally, content_bytes, tokens)
    console.print(Text("readmany: ", style="bold") + Text(escape_controls(first), style="green"))
    for line in rest:
        label, _, value = line.partition(": ")
        console.print(Text(f"  {label}: ", style="dim") + Text(escape_controls(value)))


class ProgressBar:
    """A transient progress bar that appears only once a run is long enough to need one."""

    def __init__(self) -> None:
        self._started_at = time.monotonic()
        self._count = 0
        self._progress: Any = None
        self._task: Any = None

    def tick(self, path: str, total: int | None) -> None:
        self._count += 1
        if self._progress is None:
            long_run = time.monotonic() - self._started_at >= PROGRESS_AFTER_SECONDS
            if not long_run and self._count < PROGRESS_AFTER_FILES:
                return
            self._start(total)
        self._progress.update(self._task, completed=self._count, total=total, path=path)

    def _start(self, total: int | None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self._progress = Progress(
            TextColumn("reading"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[path]}", style="dim"),
            console=Console(stderr=True),
            transient=True,
        )
        self._task = self._progress.add_task("read", total=total, path="")
        self._progress.start()

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
