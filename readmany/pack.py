"""The pack stage: which blocks fit a combined line/byte budget, whole or cut.

Two plans are computed over the same candidates: request order (stop at the first block
that does not fit) and smallest first (skip what does not fit). Each then gives the first
remaining candidate in request order that can take it a partial block. Smallest first
wins only when it includes strictly more successful files in full.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from readmany.frame.heredoc import Block
from readmany.read.tool import truncate_head
from readmany.record import NamedTuple

SEPARATOR = "\n\n"
SEPARATOR_BYTES = 2
SEPARATOR_LINES = 1
PARTIAL_MIN_BYTES = 32
PARTIAL_BYTE_SLACK = 96
PARTIAL_ATTEMPTS = 16


class Budget(NamedTuple):
    max_bytes: int = 51200
    max_lines: int = 2000


class Candidate(NamedTuple):
    """A processed file: its full block, and its body if it may be cut (errors may not)."""

    position: int  # 0-based request position
    path: str
    block: Block
    body: str | None
    ok: bool
    reframe: Callable[[str], Block]  # frames a cut body as this file's block


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

    def blocks(self, candidates: Sequence[Candidate]) -> list[Block]:
        """The included blocks, in request order."""
        shown: list[Block] = []
        for candidate in candidates:
            if candidate.position in self.plan.full:
                shown.append(candidate.block)
            elif candidate.position == self.plan.partial_index and self.plan.partial is not None:
                shown.append(self.plan.partial)
        return shown

    def as_json(self, candidates: Sequence[Candidate]) -> dict[str, object]:
        by_position = {c.position: c for c in candidates}
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


class _Usage:
    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.bytes = 0
        self.lines = 0
        self.sections = 0

    def separator(self) -> tuple[int, int]:
        return (SEPARATOR_BYTES, SEPARATOR_LINES) if self.sections else (0, 0)

    def fits(self, block: Block) -> bool:
        sep_bytes, sep_lines = self.separator()
        return (
            self.bytes + sep_bytes + block.bytes <= self.budget.max_bytes
            and self.lines + sep_lines + block.lines <= self.budget.max_lines
        )

    def add(self, block: Block) -> None:
        sep_bytes, sep_lines = self.separator()
        self.bytes += sep_bytes + block.bytes
        self.lines += sep_lines + block.lines
        self.sections += 1


def pack_blocks(candidates: Sequence[Candidate], budget: Budget | None = None) -> Packing:
    """Choose what is shown whole, what is cut, what is omitted."""
    budget = budget or Budget()
    in_order = _plan("request-order", candidates, candidates, budget, stop_at_misfit=True)
    by_size = sorted(candidates, key=lambda c: (c.block.bytes, c.block.lines, c.position))
    smallest = _plan("smallest-first", candidates, by_size, budget, stop_at_misfit=False)
    switched = smallest.full_success > in_order.full_success
    plan = smallest if switched else in_order
    omitted = tuple(
        c.position
        for c in candidates
        if c.position not in plan.full and c.position != plan.partial_index
    )
    return Packing(plan, switched, omitted)


def _plan(
    strategy: str,
    candidates: Sequence[Candidate],
    visit: Sequence[Candidate],
    budget: Budget,
    *,
    stop_at_misfit: bool,
) -> Plan:
    usage = _Usage(budget)
    full: set[int] = set()
    success = 0
    for candidate in visit:
        if usage.fits(candidate.block):
            usage.add(candidate.block)
            full.add(candidate.position)
            success += candidate.ok
        elif stop_at_misfit:
            break
    for candidate in candidates:
        if candidate.position in full:
            continue
        sep_bytes, sep_lines = usage.separator()
        room_bytes = budget.max_bytes - usage.bytes - sep_bytes
        room_lines = budget.max_lines - usage.lines - sep_lines
        if room_bytes <= 0 or room_lines <= 0:
            break
        partial = cut_block(candidate, room_bytes, room_lines)
        if partial is not None:
            return Plan(strategy, frozenset(full), success, candidate.position, partial)
    return Plan(strategy, frozenset(full), success)


def cut_block(candidate: Candidate, room_bytes: int, room_lines: int) -> Block | None:
    """The largest head of the body that, framed, fits the room; None if none can."""
    if candidate.body is None:
        return None
    body_lines = room_lines - 3
    if body_lines < 1 or room_bytes < PARTIAL_MIN_BYTES:
        return None
    body_bytes = max(1, room_bytes - PARTIAL_BYTE_SLACK)
    for _ in range(PARTIAL_ATTEMPTS):
        kept = truncate_head(candidate.body, body_lines, body_bytes).content
        if not kept:
            return None
        block = candidate.reframe(kept)
        if block.lines <= room_lines and block.bytes <= room_bytes:
            return block
        if block.lines > room_lines and body_lines > 1:
            body_lines = max(1, body_lines - (block.lines - room_lines))
        if block.bytes > room_bytes and body_bytes > 1:
            body_bytes = max(1, body_bytes - (block.bytes - room_bytes) - 8)
    return None
