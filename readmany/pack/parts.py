"""The parts of `glob --parts`: the whole selection in numbered parts that each fit the
budget, in output order, every file in exactly one of them, or cut across several.

A pure function of the blocks' sizes, like the rest of the stage. Files are taken in
output order into the current part while they fit; a file that does not fit what is left
of it starts the next part. A file larger than a whole part is cut across parts by whole
lines: its first piece fills what is left of the current part, each next piece a part of
its own (`PieceOf`, handed by the command, frames the longest run of lines from a line on
that fits a room). A file that cannot be cut (an image's `data:` URL, the diff) and is
larger than a part, or a line larger than a part, fits no part: it is left out, and the
command says so.

What is written around each part's blocks (its head, which names what the other parts
hold, and its end) depends on the split; the split is made again with room kept for
them until they fit (`fit`), as a budget's plan is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from readmany.errors import UsageError
from readmany.limits import MAX_PARTS
from readmany.pack.fit import fit, less
from readmany.pack.plan import Budget, Entry
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.pack.plan import Block

    # The longest run of a file's lines from a first line on whose block fits a room,
    # framed as the `part`-th part's (0-based); None when not even one line fits.
    PieceOf = Callable[[int, int, Budget, int], "PieceBlock | None"]

PART_ATTEMPTS = 8  # splits made with more room kept for each part's head and end


class PieceBlock(NamedTuple):
    """A run of a file's lines as a block: what it costs framed, which lines it holds,
    and what frames it again where it is written (`head`, the lines; `note`)."""

    text: str  # "" (framed again where it is written)
    bytes: int
    lines: int
    tokens: float
    first: int  # 1-based, the first line it holds
    last: int  # the last line it holds
    total: int  # the file's lines
    head: str = ""
    note: str = ""


class Share(NamedTuple):
    """A file in a part: whole (`piece` None), or one piece of it."""

    position: int
    piece: PieceBlock | None = None


class Parts(NamedTuple):
    parts: tuple[tuple[Share, ...], ...]
    left_out: tuple[int, ...]  # fit no part: positions


class NoSplitWithin(UsageError):
    """No split has every part within the budget of tokens, when counted."""

    def __init__(self, budget: int) -> None:
        super().__init__(
            f"--parts: no split of the selection has every part within {budget} tokens "
            "when counted: raise --max-tokens"
        )


class TooManyParts(UsageError):
    """The selection takes more than `MAX_PARTS` parts of the budget."""

    def __init__(self) -> None:
        super().__init__(
            f"--parts: the selection takes more than {MAX_PARTS} parts of this budget: "
            "raise it, or select less"
        )


def chosen(found: Parts | None, part: int | None) -> Parts:
    """The parts a run writes, checked against `--part K`: a budget too small for a
    part's head and end, or a K past the last part, is the user's to change (one line)."""
    if found is None:
        raise UsageError("--parts: this budget holds no part's head and end: raise it")
    count = len(found.parts)
    if part is not None and part > count:
        said = f"{count} part" + ("" if count == 1 else "s")
        raise UsageError(
            f"--part {part}: the selection makes {said} of this budget: give --part 1 to {count}"
            if count
            else f"--part {part}: nothing to split"
        )
    return found


def split(
    entries: Sequence[Entry],
    room: Budget,
    *,
    joint: tuple[int, int, float],
    piece: PieceOf,
) -> Parts:
    """The entries in parts of at most `room` each (`joint` between two blocks)."""
    parts: list[list[Share]] = [[]]
    left_out: list[int] = []
    counting = room.counts_tokens
    left = room
    between = (0, 0, 0.0)  # the joint before the next block: none before a part's first

    def fits(block: Block, space: Budget) -> bool:
        tokens = block.tokens if counting else 0.0
        return (
            block.bytes + between[0] <= space.max_bytes
            and block.lines + between[1] <= space.max_lines
            and tokens + between[2] <= space.max_tokens
        )

    def take(block: Block) -> None:
        nonlocal left, between
        tokens = block.tokens if counting else 0.0
        left = Budget(
            left.max_bytes - block.bytes - between[0],
            left.max_lines - block.lines - between[1],
            left.max_tokens - tokens - between[2],
        )
        between = joint

    def next_part() -> None:
        nonlocal left, between
        if len(parts) >= MAX_PARTS:
            raise TooManyParts
        parts.append([])
        left, between = room, (0, 0, 0.0)

    for entry in entries:
        block = entry.block
        if fits(block, left):
            parts[-1].append(Share(entry.position))
            take(block)
            continue
        if parts[-1] and _fits_alone(block, room, counting):
            next_part()
            parts[-1].append(Share(entry.position))
            take(block)
            continue
        if entry.cut_head is None:
            left_out.append(entry.position)
            continue
        pieces = _cut_across(entry, piece, parts, left, between, room, next_part, take)
        if pieces is None:
            left_out.append(entry.position)
    return Parts(tuple(tuple(part) for part in parts if part), tuple(left_out))


def _fits_alone(block: Block, room: Budget, counting: bool) -> bool:
    tokens = block.tokens if counting else 0.0
    return (
        block.bytes <= room.max_bytes
        and block.lines <= room.max_lines
        and tokens <= room.max_tokens
    )


def _cut_across(
    entry: Entry,
    piece: PieceOf,
    parts: list[list[Share]],
    left: Budget,
    between: tuple[int, int, float],
    room: Budget,
    next_part: Callable[[], None],
    take: Callable[[Block], None],
) -> int | None:
    """Put `entry` in pieces: the first in what is left of the current part, each next
    in a part of its own. The number of pieces; None (nothing put) when a line of it
    fits no part."""
    first = 1
    placed: list[tuple[int, Share]] = []
    space = less(left, Budget(*between)) if parts[-1] else room
    while True:
        shown = piece(entry.position, first, space, len(parts) - 1) if space else None
        if shown is None:
            if not parts[-1]:
                # An empty part takes no line of it: a line longer than a part. The
                # pieces put are taken back.
                for number, share in placed:
                    parts[number].remove(share)
                while len(parts) > 1 and not parts[-1]:
                    parts.pop()
                return None
            next_part()
            space = room
            continue
        share = Share(entry.position, shown)
        parts[-1].append(share)
        placed.append((len(parts) - 1, share))
        take(shown)
        if shown.last >= shown.total:
            return len(placed)
        first = shown.last + 1
        next_part()
        space = room


def plan_parts(
    entries: Sequence[Entry],
    limits: Budget,
    *,
    joint: tuple[int, int, float],
    piece: PieceOf,
    ends: Callable[[Parts], Budget],
) -> Parts | None:
    """The split of `entries` in parts of `limits`, with room kept in each for what
    `ends(parts)` says its head and end take at most; None when no split fits. Raises
    `TooManyParts`."""

    def attempt(room: Budget) -> tuple[Parts, Budget]:
        parts = split(entries, room, joint=joint, piece=piece)
        return parts, ends(parts)

    parts, fits = fit(
        limits, attempt, keep=Budget(1, 1, 0.0), attempts=PART_ATTEMPTS, hurry_after=2
    )
    return parts if fits else None


COUNTED_SPLITS = 6  # splits made at most, each part counted, with an exact tokenizer
COUNTED_FILL = 0.95  # the largest part filling this much of the budget: no larger split
SHRINK_SPLITS = 16  # and while none is within, this many more at most
SCAN_STEP = 1.08  # then, none within, each split tried for this many times the tokens


def counted_split(
    split_for: Callable[[int | None], Parts | None],
    largest: Callable[[Parts], int],
    budget: int,
) -> tuple[Parts, int, int]:
    """The split (`split_for(planned)`, for `planned` estimated tokens a part) whose largest
    part, counted exactly (`largest`), is within the budget of tokens: first for the
    budget itself, then scaled by how far the largest part's count missed it, between
    the most that was within (or too few: no split, its heads do not fit; or one that
    leaves out files the first kept) and the least that was over (as `tokenizer.fit`
    plans a budget); the fewest parts of those within, with its largest part's count
    and the splits counted. Up to `COUNTED_SPLITS` splits, and while none is within, up
    to `SHRINK_SPLITS` more (text the estimate reads far low: a split for the estimate's
    margin alone had been written, a part 9 times the budget). Raises `NoSplitWithin`
    where none was."""
    planned = budget
    best: tuple[int, int, Parts] | None = None  # parts, the largest's count, the split
    low, high = 0, None  # the most planned that was within or too few, the least over
    renders = 0
    first_left_out: int | None = None
    for attempt in range(COUNTED_SPLITS + SHRINK_SPLITS):
        if attempt >= COUNTED_SPLITS and best is not None:
            break
        try:
            found = split_for(planned)
        except TooManyParts:
            if best is None and planned >= budget:  # parts of the whole budget: too many
                raise
            found = None  # too few tokens a part
        if found is not None and first_left_out is None:
            first_left_out = len(found.left_out)
        if found is None or len(found.left_out) > (first_left_out or 0):
            low = planned  # too few tokens a part
            following = (low + high) // 2 if high is not None else planned * 2
        else:
            renders += 1
            most = largest(found)
            if most <= budget:
                if best is None or len(found.parts) < best[0]:
                    best = len(found.parts), most, found
                if most >= budget * COUNTED_FILL:
                    break
                low = planned
                following = int(planned * budget / max(most, 1))
            else:
                high = planned
                following = int(planned * budget / most * 0.99)
        if high is not None and following >= high:
            following = (low + high) // 2
        if following <= low:
            if high is None or high - low <= 1:
                break
            following = (low + high) // 2
        planned = following
    # None within: more tokens a part need not make fewer parts (each part's head names
    # them all), so the splits above the most that was too few are tried in turn
    planned = low
    for _ in range(SHRINK_SPLITS if best is None else 0):
        planned = max(planned + 1, int(planned * SCAN_STEP))
        if planned >= budget:
            break
        try:
            found = split_for(planned)
        except TooManyParts:
            continue
        if found is not None and len(found.left_out) <= (first_left_out or 0):
            renders += 1
            most = largest(found)
            if most <= budget:
                best = len(found.parts), most, found
                break
    if best is None:
        raise NoSplitWithin(budget)
    return best[2], best[1], renders
