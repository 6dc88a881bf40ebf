"""The block plan: which blocks fit a combined line/byte/token budget, whole or cut.

It knows blocks only by their text and size, and is handed a way to cut each one (the
command frames the head of a body); it imports neither the read nor the frame stage.
Blocks are joined by `SEPARATOR` unless the caller says what joins them (`joint`).
Tokens are counted only for a budget that has some (`Budget.max_tokens`): a block then
says what it is estimated to take (`tokens.text_weight`), unrounded.
Two plans are computed over the same entries: request order (stop at the first block
that does not fit) and smallest first (skip what does not fit). Smallest first wins only
when it includes strictly more successful files in full. The plan chosen then gives the
first remaining entry in request order that can take it a partial block (a cut is read
and framed: the other plan's is never made).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from readmany.limits import READ_MAX_BYTES, READ_MAX_LINES, UNCOUNTED
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Block(Protocol):
        """A framed file as the budget sees it: its text and what it costs."""

        @property
        def text(self) -> str: ...

        @property
        def bytes(self) -> int: ...

        @property
        def lines(self) -> int: ...

        @property
        def tokens(self) -> float: ...  # read only for a budget of tokens

    # Frames the longest head of a file's body within (lines, bytes) of body; None when
    # nothing of it fits.
    CutHead = Callable[[int, int], Block | None]

SEPARATOR = "\n\n"
SEPARATOR_BYTES = 2
SEPARATOR_LINES = 1
PARTIAL_MIN_BYTES = 32
PARTIAL_BYTE_SLACK = 96
PARTIAL_ATTEMPTS = 16


class Budget(NamedTuple):
    max_bytes: int = READ_MAX_BYTES
    max_lines: int = READ_MAX_LINES
    max_tokens: float = UNCOUNTED  # estimated tokens

    @property
    def counts_tokens(self) -> bool:
        return self.max_tokens != UNCOUNTED


class Entry(NamedTuple):
    """A processed file: its full block, and how to cut it if it may be cut (errors may not)."""

    position: int  # 0-based request position
    path: str
    block: Block
    ok: bool
    cut_head: CutHead | None
    least_cut: int = 0  # bytes its cut block takes at least: a smaller room is not offered


class Plan(NamedTuple):
    strategy: str
    full: frozenset[int]
    full_success: int
    partial_index: int | None = None
    partial: Block | None = None

    @property
    def full_count(self) -> int:
        return len(self.full)


class Packing(NamedTuple):
    """The chosen plan, and the `details.packing` value that reports it."""

    plan: Plan
    switched: bool
    omitted: tuple[int, ...]

    def blocks(self, entries: Sequence[Entry]) -> list[Block]:
        """The included blocks, in request order."""
        shown: list[Block] = []
        for entry in entries:
            if entry.position in self.plan.full:
                shown.append(entry.block)
            elif entry.position == self.plan.partial_index and self.plan.partial is not None:
                shown.append(self.plan.partial)
        return shown

    def as_json(self, entries: Sequence[Entry]) -> dict[str, object]:
        by_position = {c.position: c for c in entries}
        details: dict[str, object] = {
            "strategy": self.plan.strategy,
            "switchedForCoverage": self.switched,
            "fullIncludedCount": self.plan.full_count,
            "fullIncludedSuccessCount": self.plan.full_success,
        }
        if self.plan.partial_index is not None:
            details["partialIncludedPath"] = by_position[self.plan.partial_index].path
        details["omittedPaths"] = [by_position[i].path for i in self.omitted]
        return details


def pack_blocks(
    entries: Sequence[Entry],
    budget: Budget | None = None,
    *,
    joint: tuple[int, int] = (SEPARATOR_BYTES, SEPARATOR_LINES),
    joint_tokens: float | None = None,
    least_cut: int = 0,
    least_cut_tokens: float = 0.0,
    smallest: Sequence[Entry] | None = None,
    ranked: Sequence[Entry] | None = None,
    strategy: str = "rank",
    cut_first: Collection[int] = (),
) -> Packing:
    """Choose what is shown whole, what is cut, what is omitted.

    `joint` is the (bytes, lines) between two blocks, and `joint_tokens` its tokens (by
    default those of `SEPARATOR`, weighed when the budget counts tokens); `least_cut`,
    bytes no cut block can take less of (a smaller room left is not offered to any file;
    each entry's own `least_cut` is checked too), and `least_cut_tokens` its tokens;
    `smallest`, `by_size(entries)` if it is known already.

    `ranked`: the entries by value, best first (`rank.rank`'s order): then one plan
    only, `strategy`, that takes them whole in that order, passing over a file that does
    not fit, and cuts the first left in that order to fill the rest; but where the
    first that does not fit is one of `cut_first` (positions: `rank`'s files of more
    value than bulk), it is the one cut, its room kept (`_by_value`).
    """
    budget = budget or Budget()
    if not budget.counts_tokens:
        joint_tokens = 0.0
    elif joint_tokens is None:
        from readmany.tokens import text_weight

        joint_tokens = text_weight(SEPARATOR)
    joints = (*joint, joint_tokens)
    if ranked is not None:
        plan = _by_value(
            strategy,
            ranked,
            budget,
            joints,
            least_cut=least_cut,
            least_cut_tokens=least_cut_tokens,
            cut_first=cut_first,
        )
        return Packing(plan, False, _omitted(entries, plan))
    in_order = _take(entries, budget=budget, joint=joints, stop_at_misfit=True)
    visit = smallest if smallest is not None else by_size(entries)
    smallest_first = _take(visit, budget=budget, joint=joints, stop_at_misfit=False, ascending=True)
    switched = smallest_first.success > in_order.success
    # Only the plan chosen is given its cut: which one is chosen does not depend on it.
    taken = smallest_first if switched else in_order
    plan = _cut_into(
        "smallest-first" if switched else "request-order",
        entries,
        taken,
        least_cut=least_cut,
        least_cut_tokens=least_cut_tokens,
    )
    return Packing(plan, switched, _omitted(entries, plan))


def _omitted(entries: Sequence[Entry], plan: Plan) -> tuple[int, ...]:
    return tuple(
        c.position
        for c in entries
        if c.position not in plan.full and c.position != plan.partial_index
    )


def by_size(entries: Sequence[Entry]) -> list[Entry]:
    """The entries the smallest first (bytes, then lines); of two alike, the first first."""
    return sorted(entries, key=lambda c: (c.block.bytes, c.block.lines, c.position))


class _Taken(NamedTuple):
    """The files a plan takes whole, and the room they leave for one block more (its
    joint counted: none before the first block)."""

    full: set[int]
    success: int
    room: Budget


def _take(
    visit: Sequence[Entry],
    *,
    budget: Budget,
    joint: tuple[int, int, float],
    stop_at_misfit: bool,
    ascending: bool = False,
) -> _Taken:
    """The files `visit` takes whole while they fit: all of them, or up to the first that
    does not with `stop_at_misfit`. `ascending`: `visit` is sorted by bytes, so none after
    a file too big for the room can fit either."""
    full: set[int] = set()
    success = 0
    # The room left, before the joint that comes before any block but the first.
    room_bytes, room_lines, room_tokens = budget
    joint_bytes, joint_lines, joint_tokens = 0, 0, 0.0  # none before the first block
    counting = budget.counts_tokens
    for entry in visit:  # thousands of files: kept to plain arithmetic
        block = entry.block
        tokens = block.tokens if counting else 0.0
        if (
            block.bytes + joint_bytes <= room_bytes
            and block.lines + joint_lines <= room_lines
            and tokens + joint_tokens <= room_tokens
        ):
            room_bytes -= block.bytes + joint_bytes
            room_lines -= block.lines + joint_lines
            room_tokens -= tokens + joint_tokens
            joint_bytes, joint_lines, joint_tokens = joint
            full.add(entry.position)
            success += entry.ok
        elif stop_at_misfit or (ascending and block.bytes + joint_bytes > room_bytes):
            break
    room = Budget(room_bytes - joint_bytes, room_lines - joint_lines, room_tokens - joint_tokens)
    return _Taken(full, success, room)


CUT_SHARE = 4  # the first ranked file that does not fit keeps a quarter of the budget


def _by_value(
    strategy: str,
    ranked: Sequence[Entry],
    budget: Budget,
    joint: tuple[int, int, float],
    *,
    least_cut: int,
    least_cut_tokens: float,
    cut_first: Collection[int],
) -> Plan:
    """The plan of files taken by value: whole in `ranked` order while they fit; the
    first that does not, if it is one of `cut_first`, is offered a cut with room kept
    for it, rather than left out whole while files ranked below it fill the gaps.

    Its room is what is left when it comes, at most a `CUT_SHARE`th of the budget
    (a file bigger than the budget, ranked first, would otherwise take it all). The
    files ranked below it are taken whole in the rest of the room, passing over those
    that do not fit, and the cut gets what they leave. Where it cannot be cut (one
    line, not a text, or a room too small for its first line), it is passed over as
    the others are, and the first file left that can be cut fills the rest."""
    head = _take(ranked, budget=budget, joint=joint, stop_at_misfit=True)
    first = next((i for i, entry in enumerate(ranked) if entry.position not in head.full), None)
    if first is None:
        return Plan(strategy, frozenset(head.full), head.success)
    if ranked[first].position not in cut_first:
        return _passing_over(strategy, ranked, budget, joint, least_cut, least_cut_tokens)
    room = head.room
    kept = Budget(
        min(room.max_bytes, budget.max_bytes // CUT_SHARE),
        min(room.max_lines, budget.max_lines // CUT_SHARE),
        min(room.max_tokens, budget.max_tokens / CUT_SHARE) if budget.counts_tokens else 0.0,
    )
    rest = ranked[first + 1 :]
    after = _take(
        rest,
        budget=Budget(
            room.max_bytes - kept.max_bytes,
            room.max_lines - kept.max_lines,
            room.max_tokens - kept.max_tokens,
        ),
        joint=joint,
        stop_at_misfit=False,
    )
    left = Budget(
        after.room.max_bytes + kept.max_bytes,
        after.room.max_lines + kept.max_lines,
        after.room.max_tokens + kept.max_tokens,
    )
    taken = _Taken(head.full | after.full, head.success + after.success, left)
    plan = _cut_into(
        strategy, [ranked[first]], taken, least_cut=least_cut, least_cut_tokens=least_cut_tokens
    )
    if plan.partial_index is not None:
        return plan
    # It cannot be cut (one line, or not a text): passed over like the others.
    return _passing_over(strategy, ranked, budget, joint, least_cut, least_cut_tokens)


def _passing_over(
    strategy: str,
    ranked: Sequence[Entry],
    budget: Budget,
    joint: tuple[int, int, float],
    least_cut: int,
    least_cut_tokens: float,
) -> Plan:
    """Files whole in `ranked` order, passing over those that do not fit; the first
    left that can be cut fills the rest."""
    by_value = _take(ranked, budget=budget, joint=joint, stop_at_misfit=False)
    return _cut_into(
        strategy, ranked, by_value, least_cut=least_cut, least_cut_tokens=least_cut_tokens
    )


def _cut_into(
    strategy: str,
    entries: Sequence[Entry],
    taken: _Taken,
    *,
    least_cut: int,
    least_cut_tokens: float = 0.0,
) -> Plan:
    """The plan of `taken`, with the first file of `entries` not taken that can be cut
    to fill the room left."""
    full, success, (room_bytes, room_lines, room_tokens) = taken
    too_little = room_bytes < least_cut or room_tokens < max(least_cut_tokens, 1.0)
    if room_bytes <= 0 or room_lines <= 0 or too_little:
        return Plan(strategy, frozenset(full), success)
    for entry in entries:
        if entry.position in full or entry.least_cut > room_bytes:
            continue
        partial = cut_block(entry, room_bytes, room_lines, room_tokens)
        if partial is not None:
            return Plan(strategy, frozenset(full), success, entry.position, partial)
    return Plan(strategy, frozenset(full), success)


def cut_block(
    entry: Entry, room_bytes: int, room_lines: int, room_tokens: float = UNCOUNTED
) -> Block | None:
    """The largest head of the body that, framed, fits the room; None if none can.

    A `cut_head` that has a `fill(room_lines, room_bytes, room_tokens)` method is asked
    for that block itself: it knows its frame, where the attempts below only guess it.
    """
    if entry.cut_head is None:
        return None
    fill = getattr(entry.cut_head, "fill", None)
    if fill is not None:
        filled: Block | None = fill(room_lines, room_bytes, room_tokens)
        return filled
    body_lines = room_lines - 3
    if body_lines < 1 or room_bytes < PARTIAL_MIN_BYTES:
        return None
    body_bytes = max(1, room_bytes - PARTIAL_BYTE_SLACK)
    counting = room_tokens != UNCOUNTED
    for _ in range(PARTIAL_ATTEMPTS):
        block = entry.cut_head(body_lines, body_bytes)
        if block is None:
            return None
        over_tokens = block.tokens - room_tokens if counting else 0.0
        if block.lines <= room_lines and block.bytes <= room_bytes and over_tokens <= 0:
            return block
        if block.lines > room_lines and body_lines > 1:
            body_lines = max(1, body_lines - (block.lines - room_lines))
        if block.bytes > room_bytes and body_bytes > 1:
            body_bytes = max(1, body_bytes - (block.bytes - room_bytes) - 8)
        elif over_tokens > 0 and body_bytes > 1:  # as many bytes fewer as the excess takes
            excess = int(over_tokens * block.bytes / max(block.tokens, 1.0))
            body_bytes = max(1, min(body_bytes, block.bytes) - excess - 8)
    return None
