"""What became of each file `many` was asked for, said after the run: each file's fate
(read, cut, left out, failed) with its stderr line, the advice that holds everything or
continues, the files `--stop-on-error` did not read, the budget in its options' words; and
the blocks shown written, each file's `--json` record."""

from __future__ import annotations

from collections.abc import Sequence

from readmany.emit.outcome import FileStat, Outcome
from readmany.emit.sink import Sink
from readmany.errors import EXIT_FILE_ERROR
from readmany.frame import notices, weigh
from readmany.frame.pages import Shown, parts_of, spec_of
from readmany.limits import NO_LIMIT
from readmany.pack import SEPARATOR
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.frame.heredoc import Block
    from readmany.frame.pages import Asked
    from readmany.pack import Block as Packed
    from readmany.pack import Budget, Entry, Packing
    from readmany.pack.budget import BudgetAsked
    from readmany.read.line_range import ToolRead


NOT_READ_REASON = "not read after an error (--stop-on-error)"


NOT_READ_NAMED = 20  # more files than this not read are counted on stderr, not named


def not_read_line(failed: str, files: Sequence[Asked], carry: Sequence[str]) -> str:
    """The stderr line naming the files --stop-on-error did not read."""
    names = [file.path for file in files]
    if len(files) > NOT_READ_NAMED:
        return notices.not_read(failed, names, None)
    command = notices.many_command([spec_of(f) for f in files], carry)
    return notices.not_read(failed, names, command)


def budget_words(asked: BudgetAsked, budget: Budget) -> str:
    """The budget as the options that set it: `--max-bytes 50 --max-lines 3`."""
    words = asked.options()
    if not words:
        return f"the default, {budget.max_bytes} bytes and {budget.max_lines} lines"
    return " ".join(words)


def truncation_detail(record: dict[str, Any]) -> dict[str, Any] | None:
    """The read's truncation record, when it cut: without the text it kept, and with
    null for a budget dimension nobody set."""
    if not record["truncated"]:
        return None
    unset = {"maxLines", "maxBytes"}
    return {
        key: None if key in unset and value == NO_LIMIT else value
        for key, value in record.items()
        if key != "content"
    }


class Fate(NamedTuple):
    stat: FileStat
    note: str | None  # a stderr line when the budget took something


def fates_of(entries: Sequence[Entry], packing: Packing) -> list[Fate]:
    fates = []
    for entry in entries:
        block: Packed | None
        if entry.position in packing.plan.full:
            block = entry.block
        elif entry.position == packing.plan.partial_index:
            block = packing.plan.partial
        else:
            block = None
        if not entry.ok:
            shown_bytes = block.bytes if block is not None else 0
            fates.append(Fate(FileStat(entry.path, "error", shown_bytes, "read failed"), None))
        elif block is None:
            note = f"{entry.path}: left out by the budget"
            fates.append(Fate(FileStat(entry.path, "omitted", 0, "left out by the budget"), note))
        elif isinstance(block, Shown) and block.last < block.first:
            note = f"{entry.path}: line {block.first} is longer than the budget holds"
            if block.show is not None:  # the continue command goes on after it
                note += f"; show it with: {block.show}"
            fates.append(Fate(FileStat(entry.path, "cut", block.bytes, "cut by the budget"), note))
        elif isinstance(block, Shown) and block.next_spec is not None:
            note = (
                f"{entry.path}: lines {block.first}-{block.last} of {block.total} shown, "
                "cut by the budget"
            )
            fates.append(Fate(FileStat(entry.path, "cut", block.bytes, "cut by the budget"), note))
        else:
            fates.append(Fate(FileStat(entry.path, "read", block.bytes), None))
    return fates


def advice_of(rest: Sequence[str], raise_to: Sequence[str], carry: Sequence[str] = ()) -> str:
    """One stderr line: the budget that holds everything, and the command that continues
    (when `rest` is given: too many files for one command line are left to --json)."""
    budget = f"to read all at once: {' '.join(raise_to)}" if raise_to else ""
    if not rest:
        return budget or "the files left out are listed in the --json details"
    lead = f"{budget}; or " if budget else ""
    return f"{lead}continue with: {notices.many_command(rest, carry)}"


def reference_stats(candidates: Sequence[Entry], packing: Packing) -> list[FileStat]:
    stats = []
    partial_block = packing.plan.partial
    for c in candidates:
        shown = c.position in packing.plan.full
        if not c.ok:
            stats.append(FileStat(c.path, "error", c.block.bytes if shown else 0, "read failed"))
        elif shown:
            stats.append(FileStat(c.path, "read", c.block.bytes))
        elif c.position == packing.plan.partial_index and partial_block is not None:
            stats.append(FileStat(c.path, "cut", partial_block.bytes, "cut to fit the budget"))
        else:
            stats.append(FileStat(c.path, "omitted", 0, "over the budget"))
    return stats


def reference_notes(
    omitted: Sequence[int], partial_index: int | None, candidates: Sequence[Entry]
) -> list[str]:
    notes = []
    if partial_index is not None:
        notes.append(f"{candidates[partial_index].path}: cut to fit the budget")
    notes.extend(f"{candidates[i].path}: omitted, over the budget" for i in omitted)
    return notes


def nothing_listed(sink: Sink) -> Outcome:
    """`--stdin` that listed no path: nothing written (with `--json`, empty content)."""
    details = {"processedCount": 0, "successCount": 0, "errorCount": 0, "files": []}
    return Outcome(details, exit_code=EXIT_FILE_ERROR, problems=(notices.NOTHING_LISTED,))


def write_blocks(sink: Sink, shown: Sequence[Packed]) -> None:
    """The blocks shown, joined by `SEPARATOR`; each weighed as a budget of tokens weighs
    it (frame and body apart), where the sink counts tokens."""
    for number, block in enumerate(shown):
        tokens = None
        if sink.weigh:
            tokens = block.tokens + (weigh(SEPARATOR) if number else 0.0)
        parts = parts_of(block)
        sink.write_all((SEPARATOR, *parts) if number else parts, tokens)


def file_detail(
    path: str, result: ToolRead, block: Block | Shown, *, weigh: bool
) -> dict[str, Any]:
    """A file's record of `--json` details; its tokens are weighed only with `weigh` (the
    details are written), else they are 0."""
    detail: dict[str, Any] = {"path": path, "ok": result.ok}
    if result.error is not None:
        detail["error"] = result.error
    else:
        detail["imageCount"] = result.image_count
        if result.truncation is not None:
            detail["truncation"] = result.truncation.as_json()
    detail["bytes"] = block.bytes
    detail["lines"] = block.lines
    detail["estimatedTokens"] = round(block.tokens) if weigh else 0
    return detail
