"""What a `many` plan leaves to read: the arguments that read what it does not show (each
file's next lines, or the file again), and what an output showing every file whole
would take (the options that hold everything are made from it)."""

from __future__ import annotations

import math
import os
from bisect import bisect_right
from collections.abc import Sequence

from readmany.pack.plan import SEPARATOR, SEPARATOR_BYTES, SEPARATOR_LINES, Budget, Entry, Packing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from readmany.pack.plan import Block

    class RequestedLines(Protocol):
        """A file as `many` is asked for it: its path and the lines asked for."""

        @property
        def path(self) -> str: ...

        @property
        def offset(self) -> float | None: ...

        @property
        def limit(self) -> float | None: ...

    class ContinuedBlock(Block, Protocol):
        @property
        def next_spec(self) -> str | None: ...

        def parts(self) -> tuple[str, ...]: ...

    class FramedFile(Protocol):
        """A requested file as it was framed (`frame.pages.Piece`)."""

        @property
        def block(self) -> ContinuedBlock: ...

        @property
        def spec(self) -> str: ...

        @property
        def need_bytes(self) -> int: ...

        @property
        def need_lines(self) -> int: ...

        @property
        def need_tokens(self) -> float: ...


UNREAD_MARGIN = 1.2  # what is not read is counted at this much the density of what is


def rest_specs(
    entries: Sequence[Entry],
    pieces: Sequence[FramedFile],
    packing: Packing,
    files: Sequence[RequestedLines],
) -> list[str]:
    """`readmany many` arguments that read what this packing does not show, in order.

    A file left out whose lines an earlier request of the same file asked for (`a.py
    a.py`) is not named again: they are shown, or read by the argument before it."""
    rest = []
    asked: dict[str, LinesAsked] = {}  # the lines of each file accounted for
    for entry, piece, file in zip(entries, pieces, files, strict=True):
        if not entry.ok:  # an error block: reading it again reads nothing
            continue
        lines = _lines_asked(file)
        same = asked.get(path := os.path.normpath(file.path))
        if same is None:
            same = asked[path] = LinesAsked()
        if entry.position in packing.plan.full:
            spec = piece.block.next_spec
        elif entry.position == packing.plan.partial_index:
            partial = packing.plan.partial
            spec = getattr(partial, "next_spec", None)
        elif lines is not None and same.covers(*lines):
            spec = None
        else:
            spec = piece.spec
        if spec is not None:
            rest.append(spec)
        if lines is not None:
            same.add(*lines)
    return rest


class LinesAsked:
    """The lines of one file asked for so far: sorted ranges of whole lines, apart and
    not touching (lines 1-5 and 6-9 are one range, 1-9), so that a request asked again is
    found in one range by bisection and adds nothing."""

    __slots__ = ("_ends", "_starts")

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[float] = []  # the last line of each range (may be infinite)

    def covers(self, first: int, last: float) -> bool:
        """Whether every line `first`-`last` has been asked for."""
        if last < first:
            return True
        index = bisect_right(self._starts, first) - 1
        return index >= 0 and self._ends[index] >= last

    def add(self, first: int, last: float) -> None:
        """Count the lines `first`-`last` as asked for."""
        starts, ends = self._starts, self._ends
        low = bisect_right(starts, first) - 1  # the last range that starts at or before
        if low >= 0 and ends[low] + 1 >= first:  # it reaches or touches `first`
            first = starts[low]
        else:
            low += 1
        high = low  # the ranges from `low` that start at or before the line after `last`
        while high < len(starts) and starts[high] <= last + 1:
            last = max(last, ends[high])
            high += 1
        starts[low:high] = [first]
        ends[low:high] = [last]

    def ranges(self) -> list[tuple[int, float]]:
        """The ranges, in order."""
        return list(zip(self._starts, self._ends, strict=True))


def _lines_asked(file: RequestedLines) -> tuple[int, float] | None:
    """The first and last line a request asks for (the last may be infinite); None for
    an offset or limit that is no whole number (read as the reference reads it)."""
    offset, limit = file.offset, file.limit
    first = 1 if offset is None else _whole(offset)
    if first is None:
        return None
    first = max(first, 1)
    if limit is None:
        return first, math.inf
    count = _whole(limit)
    return None if count is None or count < 1 else (first, first + count - 1)


def _whole(value: float) -> int | None:
    if isinstance(value, int):
        return value
    return int(value) if math.isfinite(value) and value.is_integer() else None


def need_of_pieces(
    pieces: Sequence[FramedFile], budget: Budget, *, bounded: bool = False
) -> tuple[int, int, float]:
    """Bytes, lines and tokens of an output that shows every file whole (tokens, only
    for a budget of tokens: a file cut is weighed whole where its read kept every line
    asked for; one read in part, at its block's tokens a byte, with `UNREAD_MARGIN` more
    for what was not read). `bounded`: the tokens are the bound of the real count of
    those estimates (`tokens.real_at_most`), which a budget planned so needs; a block's
    tokens are then its count by its pieces and merges (`merges.count`), not its
    estimate (2,000 lines of emoji, which the estimate reads 48 times low, had been
    said to need 5k, and 5k showed 47 of them)."""
    count = len(pieces)
    separators = max(count - 1, 0)
    tokens = 0.0
    if budget.counts_tokens:
        from readmany.merges import count as count_merged
        from readmany.tokens import real_at_most, text_weight

        weights = [separators * text_weight(SEPARATOR)]
        counted = []
        for piece in pieces:
            block = piece.block
            if piece.need_tokens >= 0:  # weighed whole
                weights.append(piece.need_tokens)
                continue
            unread = piece.need_bytes - block.bytes
            weight = block.tokens
            if bounded:  # counted in the parts it is held in, a token a seam between two
                parts = [count_merged(part) for part in block.parts()]
                weights.append(len(parts) - 1)
                if unread <= 0:  # held whole: its count
                    counted += parts
                    continue
                weight = sum(part.tokens for part in parts)
            if unread > 0:
                weight += UNREAD_MARGIN * weight * unread / max(block.bytes, 1)
            weights.append(weight)
        tokens = real_at_most(weights, counted) if bounded else sum(weights)
    return (
        sum(p.need_bytes for p in pieces) + separators * SEPARATOR_BYTES,
        sum(p.need_lines for p in pieces) + separators * SEPARATOR_LINES,
        tokens,
    )
