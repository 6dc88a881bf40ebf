"""A budget of tokens planned with the estimate alone: for the most estimated tokens whose
bound of the real count (`tokens.real_at_most`) is within it (`bounded`).

The bound depends on the plan (one large block, or many small ones), so the plan is made
for a budget, its bound taken, and made again for more or fewer estimated tokens, as
`tokenizer.fit` does with a real count. The files it shows whole that take much of the
budget are weighed on more of their text, and the plan made again if that moves it.
"""

from __future__ import annotations

import math

from readmany.pack.budget import planning_limits

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.pack.passes import FirstPass, Frames
    from readmany.pack.plan import Packing

BOUND_PLANS = 6  # plans made at most for the most a budget of tokens holds (`bounded`)
BOUND_FILL = 0.98  # of the budget: a plan whose bound reaches it is not made larger
BOUND_BACK = 0.99  # a plan over is made again this much under the budget it was over by
CLOSE_SHARE = 32  # a file shown whole that takes 1/32 of a budget of tokens is weighed closely
CLOSE_ROUNDS = 2  # and the plan made again, at most this many times


def _complete(packing: Packing) -> bool:
    """Whether a plan shows every file whole: a larger one shows no more."""
    plan = packing.plan
    return not packing.omitted and plan.partial_index is None and not plan.outlined


def bounded(
    first: FirstPass, frames: Frames, max_tokens: int, least_outline: tuple[int, float]
) -> tuple[Packing, str, str]:
    """The plan for the most estimated tokens whose real count is at most
    `max_tokens` by `tokens.real_at_most` (`_within`). The files it shows whole that
    take a large share of it (`CLOSE_SHARE`) are then weighed on more of their text
    (`Frames.closely`), and the plan made again with their new estimates, up
    to `CLOSE_ROUNDS` times: their error is most of the output's."""
    from readmany.tokens import FILE_ERROR, QUICK_SAMPLE_BYTES, SUM_ERROR

    # first for what a plan of about nine blocks alike would be bounded by: most
    # plans are near it (each plan made costs; a larger one may outline more files)
    guess = int(max_tokens / (1 + SUM_ERROR + FILE_ERROR / 3))
    made = _within(first, frames, max_tokens, least_outline, guess)
    for _ in range(CLOSE_ROUNDS):
        large = max_tokens / CLOSE_SHARE
        moved = False
        for entry in first.entries:
            block = entry.block
            if (
                entry.position in made[0].plan.full
                and entry.position not in first.closed
                and block.tokens >= large
                and block.bytes > QUICK_SAMPLE_BYTES
            ):
                first.closed[entry.position] = block.tokens
                moved = frames.closely(block) or moved
        if not moved or _still(first, made, frames, max_tokens):
            break
        # from the budget planned last: the estimates moved a little
        planned = int(first.limits.max_tokens) if first.limits is not None else None
        made = _within(first, frames, max_tokens, least_outline, planned)
    return made


def _still(
    first: FirstPass, made: tuple[Packing, str, str], frames: Frames, max_tokens: int
) -> bool:
    """Whether a plan stands with the estimates weighed closely: its bound is still
    within the budget, and near it (or it shows everything), so that no plan made
    again would show more. It is then the plan for what it now shows, if that is more
    than it was planned for (`details.tokenizer.planned`)."""
    assert first.limits is not None
    packing, start, end = made
    bound = bound_of(first, made, frames)
    if bound > max_tokens or (bound < max_tokens * BOUND_FILL and not _complete(packing)):
        return False
    shown = sum(block.tokens for block in packing.blocks(first.entries))
    joints = frames.joint()[2] * max(0, len(packing.blocks(first.entries)) - 1)
    shown += joints + frames.ends_tokens(start, end)
    if shown > first.limits.max_tokens:
        first.limits = first.limits._replace(max_tokens=float(math.ceil(shown)))
    return True


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
        made = first.plan(frames, planned, least_outline=least_outline)
        bound = bound_of(first, made, frames)
        if bound <= max_tokens:
            if best is None or bound > best[0]:
                best = bound, planned, made
            if bound >= max_tokens * BOUND_FILL or _complete(made[0]):
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
    if best is None:  # none within: what is within whatever the plan holds
        return first.plan(frames, planning_budget(max_tokens), least_outline=least_outline)
    _, planned, made = best
    assert first.budget is not None
    first.limits = planning_limits(first.budget, planned)
    return made


def bound_of(first: FirstPass, made: tuple[Packing, str, str], frames: Frames) -> float:
    """The most real tokens the output of a plan (`made`: the packing, its start and
    its end) holds, by `tokens.real_at_most` of its blocks' estimates, its joints'
    and its ends'."""
    from readmany.tokens import real_at_most

    packing, start, end = made
    weights = [block.tokens for block in packing.blocks(first.entries)]
    joints = frames.joint()[2] * max(0, len(weights) - 1)
    return real_at_most([*weights, joints, frames.ends_tokens(start, end)])
