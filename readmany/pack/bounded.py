"""A budget of tokens planned with the estimate alone: for the most estimated tokens whose
bound of the real count (`tokens.real_at_most`) is within it (`bounded`).

The bound depends on the plan (one large block, or many small ones), so the plan is made
for a budget, its bound taken, and made again for more or fewer estimated tokens, as
`tokenizer.fit` does with a real count. Before a plan's bound is taken, the files it
shows whole are counted as they are written (`Frames.closely`: by their pieces and
merges, bounded by that count), and the plan made again if that moved their estimates.
"""

from __future__ import annotations

from readmany.pack.budget import planning_limits

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    from readmany.pack.passes import FirstPass, Frames
    from readmany.pack.plan import Budget, Packing

    Made = TypeVar("Made")

BOUND_PLANS = 6  # plans made at most for the most a budget of tokens holds (`bounded`)
BOUND_FILL = 0.98  # of the budget: a plan whose bound reaches it is not made larger
BOUND_BACK = 0.99  # a plan over is made again this much under the budget it was over by
CLOSE_ROUNDS = 2  # and the plan made again, at most this many times for a budget
# Where no plan was within, the plans made again, each for half the estimated tokens of
# the one before: text the estimate reads 48 times low (random emoji), numbered with
# `-n` (its cut sized by the estimate, then counted), had been written as the plan for
# the estimate's margin alone, 14.6 times the budget.
SHRINK_PLANS = 24
SHRINK_BISECT = 4  # and between the first within and the one before, halved this often


def _complete(packing: Packing) -> bool:
    """Whether a plan shows every file whole: a larger one shows no more."""
    plan = packing.plan
    return not packing.omitted and plan.partial_index is None and not plan.outlined


def bounded(
    first: FirstPass, frames: Frames, max_tokens: int, least_outline: tuple[int, float]
) -> tuple[Packing, str, str]:
    """The plan for the most estimated tokens whose real count is at most
    `max_tokens` by `tokens.real_at_most` (`_within`); first for what a plan of about
    nine blocks alike would be bounded by: most plans are near it (each plan made
    costs; a larger one may outline more files)."""
    from readmany.tokens import FILE_ERROR, SUM_ERROR

    guess = int(max_tokens / (1 + SUM_ERROR + FILE_ERROR / 3))
    return _within(first, frames, max_tokens, least_outline, guess)


def _plan(
    first: FirstPass,
    frames: Frames,
    max_tokens: int,
    least_outline: tuple[int, float],
    planned: int,
) -> tuple[Packing, str, str]:
    """The plan for `planned` estimated tokens, with the files it shows whole counted as
    they are written (`Frames.closely`); made again with their new estimates, up to
    `CLOSE_ROUNDS` times. Each file is counted once a run, the first time a plan shows
    it whole: what that costs grows with the budget, not with the selection."""
    made = first.plan(frames, planned, least_outline=least_outline)
    for _ in range(CLOSE_ROUNDS):
        moved = False
        full = made[0].plan.full
        for entry in first.entries:
            if entry.position in full and entry.position not in first.closed:
                first.closed[entry.position] = entry.block.tokens
                moved = frames.closely(entry.block, max_tokens) or moved
        if not moved:
            break
        made = first.plan(frames, planned, least_outline=least_outline)
    return made


def _within(
    first: FirstPass,
    frames: Frames,
    max_tokens: int,
    least_outline: tuple[int, float],
    start: int | None,
) -> tuple[Packing, str, str]:
    """The plan for the most estimated tokens whose real count is at most
    `max_tokens` by `tokens.real_at_most`: first for `start`, by default
    `tokens.planning_budget` (within it whatever the plan holds), then for more or
    less, scaled by how far the bound fell short or went over, between the most
    planned that was within and the least that was not, up to `BOUND_PLANS` plans;
    the one whose bound is the highest."""
    from readmany.tokens import planning_budget

    planned = start or planning_budget(max_tokens)
    best: tuple[float, int, tuple[Packing, str, str]] | None = None
    low, high = 0, None
    for _ in range(BOUND_PLANS):
        made = _plan(first, frames, max_tokens, least_outline, planned)
        bound = bound_of(first, made, frames)
        if bound <= max_tokens:
            complete = _complete(made[0])
            # the fullest; a plan that shows everything whole before any (a cut's notice
            # can make one that shows less weigh more)
            if best is None or bound > best[0] or complete:
                best = bound, planned, made
            if bound >= max_tokens * BOUND_FILL or complete:
                break
            low = planned
            following = int(planned * max_tokens / max(bound, 1.0))
        else:
            high = planned
            following = int(planned * max_tokens / bound * BOUND_BACK)
        if high is not None and following >= high:
            following = (low + high) // 2
        if following <= low:
            break
        planned = following
    if best is None:  # none within: half as many estimated tokens, again and again
        return _shrunk(
            lambda planned: _plan(first, frames, max_tokens, least_outline, planned),
            lambda made: bound_of(first, made, frames) <= max_tokens,
            min(planned, planning_budget(max_tokens)),
        )
    _, planned, made = best
    assert first.budget is not None
    first.limits = planning_limits(first.budget, planned)
    return made


def _shrunk(make: Callable[[int], Made], within: Callable[[Made], bool], high: int) -> Made:
    """Where no plan was within (`high`, the last planned, was over): plans (`make`) for
    half the estimated tokens of the one before, until one is `within`; then between it
    and the one before, halved `SHRINK_BISECT` times, the most that is (made last: a
    plan leaves its limits behind). None within: the plan for the least, the least
    there is to show."""
    for _ in range(SHRINK_PLANS):
        low = high // 2
        made = make(low)
        if low <= 1 or within(made):
            break
        high = low
    else:
        return made
    best = made
    for _ in range(SHRINK_BISECT):
        middle = (low + high) // 2
        if middle <= low:
            break
        made = make(middle)
        if within(made):
            low, best = middle, made
        else:
            high = middle
    return best if best is made else make(low)


def bound_of(first: FirstPass, made: tuple[Packing, str, str], frames: Frames) -> float:
    """The most real tokens the output of a plan (`made`: the packing, its start and
    its end) holds, by `tokens.real_at_most` of its blocks' estimates (and counts, of
    the texts counted by their pieces, `merges.count`), its joints' and its ends'."""
    from readmany.pack.passes import bound_of_blocks

    packing, start, end = made
    return bound_of_blocks(packing.shown(first.entries), frames, (start, end), packing.plan.full)


def made_within(
    make: Callable[[Budget], Made],
    bound_of: Callable[[Made], float],
    budget: Budget,
    plans: int = 4,
) -> Made:
    """`make(budget)`, made again for fewer estimated tokens, scaled by how far the
    bound of its real count (`bound_of`) went over the budget's tokens, until it is
    within them (`many`, whose few files leave the estimate's error no room to cancel);
    after `plans` plans, each for half the tokens of the one before (`SHRINK_PLANS`),
    then the most between the one within and the one over before it (`SHRINK_BISECT`);
    none within, the last, the least there is to show."""
    made = make(budget)
    room = over = budget
    for attempt in range(plans + SHRINK_PLANS):
        bound = bound_of(made)
        if bound <= budget.max_tokens or room.max_tokens < 1:
            break
        scale = budget.max_tokens / bound * BOUND_BACK if attempt < plans - 1 else 0.5
        room, over = room._replace(max_tokens=room.max_tokens * scale), room
        made = make(room)
    else:
        return made
    if over is room or bound > budget.max_tokens:
        return made
    for _ in range(SHRINK_BISECT):  # between the one within and the one over before it
        middle = room._replace(max_tokens=(room.max_tokens + over.max_tokens) / 2)
        tried = make(middle)
        if bound_of(tried) <= budget.max_tokens:
            room, made = middle, tried
        else:
            over = middle
    return made


def bound_of_texts(texts: Sequence[str], joint_tokens: float) -> float:
    """The most real tokens `texts`, written one after the other with a joint between
    two, hold: each counted by its pieces and merges (`merges.count`), bounded
    (`tokens.real_at_most`), with the newline after them."""
    from readmany.merges import count
    from readmany.tokens import real_at_most

    joints = joint_tokens * max(0, len(texts) - 1)
    return real_at_most([joints, 1.0], [count(text) for text in texts])
