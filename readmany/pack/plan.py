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

A ranked plan (`ranked`) may also show a file as its outline (`Entry.outline`, what the
file defines by line number, made by the command on first ask). It goes through the
files in the ranked order: a file that fits whole is whole, one that does not is its
outline where that fits, the first that fits neither is cut (a quarter of the budget
kept for it), the rest is left out; bulk files are outlined or cut only after.
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
    # A file's outline as a block, by the file's position, made on first ask; None when
    # it has none. One for every file a run may outline: a file holds no object for it.
    OutlineOf = Callable[[int], Block | None]

SEPARATOR = "\n\n"
SEPARATOR_BYTES = 2
SEPARATOR_LINES = 1
PARTIAL_MIN_BYTES = 32
PARTIAL_BYTE_SLACK = 96
PARTIAL_ATTEMPTS = 16
# Outlines asked for in a row that do not fit, after which no more is asked for: each is a
# read and a parse (about 0.5 ms a file, 3 ms a large C file), and the files further down
# are worth less. (16 before: a plan that fills more of the budget leaves room to ask
# more, and the numpy-like tree at 100k parsed 40 outlines to show one.)
OUTLINE_MISSES = 8


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
    outline: OutlineOf | None = None  # its outline, where a ranked plan may show one


class Plan(NamedTuple):
    strategy: str
    full: frozenset[int]
    full_success: int
    partial_index: int | None = None
    partial: Block | None = None
    outlined: tuple[tuple[int, Block], ...] = ()  # (position, outline block), by position

    @property
    def full_count(self) -> int:
        return len(self.full)

    def outline_of(self, position: int) -> Block | None:
        """The outline block shown for the file at `position`, if it is outlined."""
        for at, block in self.outlined:
            if at == position:
                return block
        return None


class Packing(NamedTuple):
    """The chosen plan, and the `details.packing` value that reports it."""

    plan: Plan
    switched: bool
    omitted: tuple[int, ...]

    def blocks(self, entries: Sequence[Entry]) -> list[Block]:
        """The included blocks, in request order."""
        return [block for _, block in self.shown(entries)]

    def shown(self, entries: Sequence[Entry]) -> list[tuple[int, Block]]:
        """The included blocks with their positions, in request order."""
        shown: list[tuple[int, Block]] = []
        outlines = dict(self.plan.outlined)
        for entry in entries:
            if entry.position in self.plan.full:
                shown.append((entry.position, entry.block))
            elif entry.position == self.plan.partial_index and self.plan.partial is not None:
                shown.append((entry.position, self.plan.partial))
            elif entry.position in outlines:
                shown.append((entry.position, outlines[entry.position]))
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
        if self.plan.outlined:
            details["outlinedPaths"] = [by_position[i].path for i, _ in self.plan.outlined]
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
    deferred: Collection[int] = (),
    least_outline: int = 0,
    least_outline_tokens: float = 0.0,
) -> Packing:
    """Choose what is shown whole, what is cut, what is omitted.

    `joint` is the (bytes, lines) between two blocks, and `joint_tokens` its tokens (by
    default those of `SEPARATOR`, weighed when the budget counts tokens); `least_cut`,
    bytes no cut block can take less of (a smaller room left is not offered to any file;
    each entry's own `least_cut` is checked too), and `least_cut_tokens` its tokens;
    `smallest`, `by_size(entries)` if it is known already.

    `ranked`: the entries by value, best first (`rank.rank`'s order): then one plan
    only, `strategy`, that goes through them in that order: a file that fits whole is
    whole; one that does not is shown as its outline (`Entry.outline`) where that fits;
    the first of `cut_first` (positions: `rank`'s files of more value than bulk) that
    fits neither is cut, up to a `CUT_SHARE`th of the budget kept for it; the rest is
    left out. The files of `deferred` (bulk) are taken only whole in that pass, and
    outlined or cut only after (`_by_value`). An outline is asked for only while
    `least_outline` bytes (and `least_outline_tokens`, for a budget of tokens) are left:
    what one takes at least.
    """
    budget = budget or Budget()
    if not budget.counts_tokens:
        joint_tokens = 0.0
    elif joint_tokens is None:
        from readmany.tokens import text_weight

        joint_tokens = text_weight(SEPARATOR)
    joints = (*joint, joint_tokens)
    if ranked is not None:
        least = (least_outline, least_outline_tokens if budget.counts_tokens else 0.0)
        plan = _by_value(
            strategy,
            ranked,
            budget,
            joints,
            least_cut=least_cut,
            least_cut_tokens=least_cut_tokens,
            cut_first=cut_first,
            deferred=deferred,
            least_outline=least,
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
    outlined = {position for position, _ in plan.outlined}
    return tuple(
        c.position
        for c in entries
        if c.position not in plan.full
        and c.position != plan.partial_index
        and c.position not in outlined
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


CUT_SHARE = 4  # the first ranked file that fits neither whole nor outlined keeps a quarter
CUT_TRIES = 3  # files offered that room in turn when the one before could not be cut
CUT_OVER_OUTLINE = 4  # an outlined file is cut instead where its head is 4 times the outline


def _by_value(
    strategy: str,
    ranked: Sequence[Entry],
    budget: Budget,
    joint: tuple[int, int, float],
    *,
    least_cut: int,
    least_cut_tokens: float,
    cut_first: Collection[int],
    deferred: Collection[int],
    least_outline: tuple[int, float],
) -> Plan:
    """The plan of files taken by value, in `ranked` order: each whole where it fits,
    else as its outline where that fits (at once: a large central file keeps its outline
    rather than lose it to the small files ranked below it), else, for the first of
    `cut_first` that fits neither, a cut with room kept for it (`_place`); the rest is
    left out. Where that file cannot be cut after all (one line, or a room too small for
    its first line), the next that fits neither is offered the room instead, up to
    `CUT_TRIES`; then no room is kept, and the first file left that can be cut fills
    what is left, as it does when every file of `cut_first` found a place."""
    passed: set[int] = set()  # offered the room and could not be cut
    for _ in range(CUT_TRIES):
        placed = _place(ranked, budget, joint, cut_first, passed, deferred, least_outline)
        if placed.cut is None:
            break
        entry, room = placed.cut
        room_bytes, room_lines, room_tokens = room
        too_little = room_bytes < least_cut or room_tokens < max(least_cut_tokens, 1.0)
        partial = None
        if room_bytes > 0 and room_lines > 0 and not too_little:
            partial = cut_block(entry, room_bytes, room_lines, room_tokens)
        if partial is not None:
            full, success, _ = placed.taken
            return Plan(
                strategy, frozenset(full), success, entry.position, partial, placed.outlined
            )
        passed.add(entry.position)
    else:
        placed = _place(ranked, budget, joint, (), (), deferred, least_outline)
    return _cut_into(
        strategy,
        ranked,
        placed.taken,
        least_cut=least_cut,
        least_cut_tokens=least_cut_tokens,
        outlined=placed.outlined,
    )


class _Placed(NamedTuple):
    """What `_place` placed: the files whole (and the room left after them and the
    outlines, its joint counted), the outlines by position, and the file to cut with
    its room (None: none was kept)."""

    taken: _Taken
    outlined: tuple[tuple[int, Block], ...]
    cut: tuple[Entry, Budget] | None


def _place(
    ranked: Sequence[Entry],
    budget: Budget,
    joint: tuple[int, int, float],
    cut_first: Collection[int],
    passed: Collection[int],
    deferred: Collection[int],
    least_outline: tuple[int, float],
) -> _Placed:
    """Each file of `ranked` in turn: whole if it fits, else its outline if that fits
    (not for `deferred` files, outlined only once every other file is placed), else, for
    the first of `cut_first` (not `passed`) that can take a cut, the room of its cut is
    kept: what is left when it comes, at most a `CUT_SHARE`th of the budget, and at the
    end what the files after it left too. Outlines are asked for only while
    `least_outline` (bytes, tokens) is left, and not after `OUTLINE_MISSES` in a row
    that did not fit (each is a read and a parse)."""
    counting = budget.counts_tokens
    room_bytes, room_lines, room_tokens = budget
    joint_bytes, joint_lines, joint_tokens = 0, 0, 0.0  # none before the first block
    least_bytes, least_tokens = least_outline
    full: set[int] = set()
    success = 0
    outlined: list[tuple[int, Block]] = []
    cut: Entry | None = None
    kept = Budget(0, 0, 0.0)
    misses = 0

    def fits(block: Block) -> bool:
        return (
            block.bytes + joint_bytes <= room_bytes
            and block.lines + joint_lines <= room_lines
            and (block.tokens if counting else 0.0) + joint_tokens <= room_tokens
        )

    def outline_of(entry: Entry) -> Block | None:
        nonlocal misses
        if entry.outline is None or least_bytes <= 0 or misses >= OUTLINE_MISSES:
            return None
        if room_bytes - joint_bytes < least_bytes or room_tokens - joint_tokens < least_tokens:
            return None
        block = entry.outline(entry.position)
        if block is None:
            return None
        if fits(block):
            misses = 0
            return block
        misses += 1
        return None

    def cut_room() -> Budget | None:
        """The room kept for a cut here: what is left, at most a share of the budget."""
        kept = Budget(
            min(room_bytes - joint_bytes, budget.max_bytes // CUT_SHARE),
            min(room_lines - joint_lines, budget.max_lines // CUT_SHARE),
            min(room_tokens - joint_tokens, budget.max_tokens / CUT_SHARE)
            if counting
            else room_tokens,
        )
        return kept if kept.max_bytes > 0 and kept.max_lines > 0 else None

    for rest, bulk in ((ranked, False), (ranked, True)):
        if bulk and cut is not None:
            break  # the room left is the cut's
        for entry in rest:
            position = entry.position
            if position in full or (bulk and position not in deferred):
                continue
            block: Block | None = entry.block
            shown_whole = not bulk and block is not None and fits(block)
            if not shown_whole and (bulk or position not in deferred):
                block = outline_of(entry)
            elif not shown_whole:
                block = None
            if block is not None:
                room_bytes -= block.bytes + joint_bytes
                room_lines -= block.lines + joint_lines
                room_tokens -= (block.tokens if counting else 0.0) + joint_tokens
                joint_bytes, joint_lines, joint_tokens = joint
                if shown_whole:
                    full.add(position)
                    success += entry.ok
                else:
                    outlined.append((position, block))
                continue
            if (
                cut is None
                and position in cut_first
                and position not in passed
                and entry.cut_head is not None
            ):
                room = cut_room()
                if room is not None and entry.least_cut <= room.max_bytes:
                    cut, kept = entry, room
                    room_bytes -= kept.max_bytes + joint_bytes
                    room_lines -= kept.max_lines + joint_lines
                    room_tokens -= (kept.max_tokens if counting else 0.0) + joint_tokens
                    joint_bytes, joint_lines, joint_tokens = joint
    outlined.sort(key=lambda shown: shown[0])
    if cut is not None:
        left = Budget(
            room_bytes + kept.max_bytes,
            room_lines + kept.max_lines,
            room_tokens + kept.max_tokens if counting else room_tokens,
        )
        return _Placed(_Taken(full, success, left), tuple(outlined), (cut, left))
    left = Budget(room_bytes - joint_bytes, room_lines - joint_lines, room_tokens - joint_tokens)
    return _Placed(_Taken(full, success, left), tuple(outlined), None)


def _cut_into(
    strategy: str,
    entries: Sequence[Entry],
    taken: _Taken,
    *,
    least_cut: int,
    least_cut_tokens: float = 0.0,
    outlined: tuple[tuple[int, Block], ...] = (),
) -> Plan:
    """The plan of `taken`, with the first file of `entries` not taken (nor `outlined`)
    that can be cut to fill the room left."""
    full, success, (room_bytes, room_lines, room_tokens) = taken
    too_little = room_bytes < least_cut or room_tokens < max(least_cut_tokens, 1.0)
    if room_bytes <= 0 or room_lines <= 0 or too_little:
        return Plan(strategy, frozenset(full), success, outlined=outlined)
    shown = {position for position, _ in outlined}
    for entry in entries:
        if entry.position in full or entry.position in shown or entry.least_cut > room_bytes:
            continue
        partial = cut_block(entry, room_bytes, room_lines, room_tokens)
        if partial is not None:
            return Plan(strategy, frozenset(full), success, entry.position, partial, outlined)
    # None: the room left goes to the first outlined file (by value) whose head shows far
    # more than its outline: a file alone past the budget is shown as its head, the most
    # of it the budget holds, not as a few lines of outline.
    outlines = dict(outlined)
    for entry in entries:
        outline = outlines.get(entry.position)
        if outline is None:
            continue
        counting = room_tokens != UNCOUNTED
        partial = cut_block(
            entry,
            room_bytes + outline.bytes,
            room_lines + outline.lines,
            room_tokens + outline.tokens if counting else room_tokens,
        )
        if partial is not None and partial.bytes >= CUT_OVER_OUTLINE * outline.bytes:
            rest = tuple(shown for shown in outlined if shown[0] != entry.position)
            return Plan(strategy, frozenset(full), success, entry.position, partial, rest)
        break  # the first outlined file alone: the others are worth less
    return Plan(strategy, frozenset(full), success, outlined=outlined)


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
