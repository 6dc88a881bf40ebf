"""The plan of a run that writes what it shows between a start and an end that depend
on the plan (`glob`'s tree of the files shown, and its closing notice naming the files
left out): both count in the budget, so the plan is made again with room kept for them
until they fit (`fit`). A block shown whatever the others take (the diff of
`--with-diff`, the last entry) has its room kept before the others are packed. The run
measures and frames; this module is handed the functions that say what the start and
the end are and what they weigh.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from readmany.pack.fit import cost_of, fit, less, with_reserved
from readmany.pack.plan import Budget, Entry, Packing, Plan, by_size, pack_blocks
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.pack.plan import Block

PLAN_ATTEMPTS = 12  # plans made with more room kept for the start and the end
QUICK_ATTEMPTS = 3  # of those, the ones that keep just the room the last plan needed


def everything(count: int) -> Packing:
    """The plan that shows all `count` entries (`--tree` alone: no budget)."""
    return Packing(Plan("request-order", frozenset(range(count)), count), False, ())


def plan_around(
    entries: Sequence[Entry],
    limits: Budget,
    ends: Callable[[Packing], tuple[str, str]],
    weigh_ends: Callable[[str, str], float],
    *,
    joint: tuple[int, int, float],
    least_cut: int,
    least_cut_tokens: float,
    first_kept: bool = False,
    ranked: Sequence[Entry] | None = None,
    strategy: str = "rank",
    cut_first: Collection[int] = (),
    deferred: Collection[int] = (),
    least_outline: tuple[int, float] = (0, 0.0),
    ends_before: Budget | None = None,
) -> tuple[Packing, str, str]:
    """The packing of `entries` in `limits`, with the start and the end `ends` gives for
    it. `weigh_ends(start, end)`: their tokens and the final newline's (0 without a budget
    of tokens); `joint`: what is between two blocks; `least_cut` and `least_cut_tokens`:
    what a cut block takes at least; `first_kept`: the last entry (the diff) is shown
    first, its room kept where it fits. When no plan fits, nothing is shown, and the end
    alone (the notice) where it fits. `ranked`: the entries by value, best first, taken
    in that order (`pack_blocks`'s plan `strategy`), with the outlines of those left
    while `least_outline` (bytes, tokens) is left (0 bytes: none), the first of
    `cut_first` that fits neither cut; `deferred` outlined or cut only after the rest.
    `ends_before`: what the start and the end of a plan made before for another budget
    took, the room first kept (the plans for one run's budgets name mostly the same
    files left out)."""
    smallest: dict[int, list[Entry]] = {}  # the entries packed, the smallest first
    kept = entries[-1] if first_kept and entries else None

    def packed(room: Budget) -> Packing:
        files: Sequence[Entry] = entries
        reserved = None
        if kept is not None:
            # where it does not fit, it is packed with the files, as one of them
            reserved = less(room, cost_of([kept.block], joint, tokens=True))
            if reserved is not None:
                files = entries[:-1]
        visit = None
        by_value = ranked
        if ranked is None:
            visit = smallest.get(len(files))
            if visit is None:
                visit = smallest[len(files)] = by_size(files)
        elif reserved is not None and kept is not None:
            by_value = [entry for entry in ranked if entry.position != kept.position]
        packing = pack_blocks(
            files,
            reserved or room,
            joint=joint[:2],
            joint_tokens=joint[2],
            least_cut=least_cut,
            least_cut_tokens=least_cut_tokens,
            smallest=visit,
            ranked=by_value,
            strategy=strategy,
            cut_first=cut_first,
            deferred=deferred,
            least_outline=least_outline[0],
            least_outline_tokens=least_outline[1],
        )
        if reserved is None or kept is None:
            return packing
        return with_reserved(packing, [kept])

    rooms: list[Budget] = []  # the room of each plan made

    def attempt(room: Budget) -> tuple[tuple[Packing, str, str], Budget]:
        rooms.append(room)
        packing = packed(room)
        start, end = ends(packing)
        cost = Budget(
            utf8_len(start) + utf8_len(end) + 1,  # and the newline after the content
            start.count("\n") + end.count("\n") + 1,
            weigh_ends(start, end),
        )
        return (packing, start, end), cost

    # The newline after the content ends its last line: a byte and a line.
    keep = ends_before or Budget(1, 1, 0.0)
    fitted, fits = fit(
        limits,
        attempt,
        keep=keep,
        attempts=PLAN_ATTEMPTS,
        hurry_after=QUICK_ATTEMPTS,
    )
    if fits and fitted is not None:
        return _roomier(fitted, limits, attempt, weigh_ends, rooms[-1])
    nothing = Packing(Plan("request-order", frozenset(), 0), False, tuple(range(len(entries))))
    start, end = ends(nothing)
    if (
        utf8_len(end) + 1 > limits.max_bytes
        or end.count("\n") + 1 > limits.max_lines
        or weigh_ends("", end) > limits.max_tokens
    ):
        end = ""  # not even the notice fits: it is said on stderr alone
    return nothing, start, end


def _roomier(
    fitted: tuple[Packing, str, str],
    limits: Budget,
    attempt: Callable[[Budget], tuple[tuple[Packing, str, str], Budget]],
    weigh_ends: Callable[[str, str], float],
    room: Budget,
) -> tuple[Packing, str, str]:
    """The plan made again from only the room its start and end take, where that shows
    more: `fit` hurries by keeping twice the room after a few attempts, and an end whose
    size falls as more is left out (a tree that folds the files left out) can leave a
    plan more room kept than it needs. `room`: what the plan was made in (the same
    room would make it again)."""
    packing, start, end = fitted
    if not packing.omitted:
        return fitted
    keep = Budget(
        utf8_len(start) + utf8_len(end) + 1,
        start.count("\n") + end.count("\n") + 1,
        weigh_ends(start, end),
    )
    if less(limits, keep) == room:
        return fitted
    again, fits = fit(limits, attempt, keep=keep, attempts=QUICK_ATTEMPTS + 1)
    # Made in more room, it shows as much or more: the same files, a longer cut.
    if fits and again is not None and len(again[0].omitted) <= len(packing.omitted):
        return again
    return fitted


def need_of(
    blocks: Sequence[Block],
    joint: tuple[int, int, float],
    start: str,
    end: str,
    ends_tokens: float | None,
) -> tuple[int, int, float]:
    """Bytes, lines and tokens of an output that shows every block whole, between
    `start` and `end` (and a final newline); `ends_tokens`, what those weigh, None
    without a budget of tokens (its tokens are then 0)."""
    count = len(blocks)
    joint_bytes, joint_lines, joint_tokens = joint
    need_bytes = sum(b.bytes for b in blocks) + (count - 1) * joint_bytes
    need_lines = sum(b.lines for b in blocks) + (count - 1) * joint_lines
    need_bytes += utf8_len(start) + utf8_len(end) + 1
    need_lines += start.count("\n") + end.count("\n") + 1
    need_tokens = 0.0
    if ends_tokens is not None:
        need_tokens = sum(b.tokens for b in blocks) + ends_tokens
        need_tokens += (count - 1) * joint_tokens
    return need_bytes, need_lines, need_tokens
