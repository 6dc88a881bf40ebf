"""Room kept for what a budget must hold besides the blocks it packs.

Blocks shown whatever the others take (error blocks, the diff of `--with-diff`) have
their room kept before the others are packed (`reserve`); what is written around the
blocks (a tree, the closing notice naming what was left out) depends on the plan, so
the plan is made again with room kept for it until it fits the room kept (`fit`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from readmany.pack.plan import Budget, Entry, Packing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    from readmany.pack.plan import Block

    T = TypeVar("T")

NOTHING = Budget(0, 0, 0.0)  # a cost of nothing


def less(budget: Budget, cost: Budget) -> Budget | None:
    """What `budget` leaves after `cost`; None when it cannot hold it."""
    room = Budget(
        budget.max_bytes - cost.max_bytes,
        budget.max_lines - cost.max_lines,
        budget.max_tokens - cost.max_tokens,
    )
    if room.max_bytes < 0 or room.max_lines < 0 or room.max_tokens < 0:
        return None
    return room


def within(cost: Budget, room: Budget) -> bool:
    """Whether `cost` fits in `room` in every dimension."""
    return (
        cost.max_bytes <= room.max_bytes
        and cost.max_lines <= room.max_lines
        and cost.max_tokens <= room.max_tokens
    )


def cost_of(blocks: Iterable[Block], joint: tuple[int, int, float], *, tokens: bool) -> Budget:
    """What `blocks` take, each with a joint (`joint`: its bytes, lines and tokens);
    tokens are read only where the budget counts them (`tokens`)."""
    blocks = list(blocks)
    joint_bytes, joint_lines, joint_tokens = joint
    return Budget(
        sum(block.bytes + joint_bytes for block in blocks),
        sum(block.lines + joint_lines for block in blocks),
        sum(block.tokens + joint_tokens for block in blocks) if tokens else 0.0,
    )


def with_reserved(packing: Packing, reserved: Sequence[Entry]) -> Packing:
    """`packing` with the blocks whose room was kept before it was made shown whole."""
    if not reserved:
        return packing
    plan = packing.plan
    full = plan.full | {entry.position for entry in reserved}
    success = plan.full_success + sum(entry.ok for entry in reserved)
    return packing._replace(plan=plan._replace(full=full, full_success=success))


def fit(
    budget: Budget,
    attempt: Callable[[Budget], tuple[T, Budget]],
    *,
    keep: Budget,
    attempts: int,
    hurry_after: int | None = None,
) -> tuple[T | None, bool]:
    """Plan in `budget` less the room kept (`keep` at first) until what the plan needs
    besides its blocks fits the room kept.

    `attempt(room)` makes a plan in `room` and says what it needs besides (its cost). A
    plan whose cost is more than the room kept is made again with that much kept; after
    `hurry_after` attempts, at least twice as much, to end soon. The plan that fits and
    True; else, after `attempts`, the last plan and False; or None and False once the
    room kept leaves no room at all.
    """
    last: T | None = None
    for number in range(attempts):
        room = less(budget, keep)
        if room is None:
            return None, False
        last, cost = attempt(room)
        if within(cost, keep):
            return last, True
        if hurry_after is not None and number >= hurry_after:
            cost = Budget(
                max(cost.max_bytes, 2 * keep.max_bytes),
                max(cost.max_lines, 2 * keep.max_lines),
                max(cost.max_tokens, 2 * keep.max_tokens),
            )
        keep = Budget(
            max(keep.max_bytes, cost.max_bytes),
            max(keep.max_lines, cost.max_lines),
            max(keep.max_tokens, cost.max_tokens),
        )
    return last, False
