"""`pack.bounded`: the plan for a budget of tokens without a tokenizer, chosen among the
plans made for more or fewer estimated tokens by the bound of their real count."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from readmany.pack import bounded
from readmany.pack.budget import BudgetAsked


def _made(complete: bool) -> tuple[Any, str, str]:
    plan = SimpleNamespace(partial_index=None if complete else 7, outlined=(), full=set())
    return SimpleNamespace(plan=plan, omitted=()), "", ""


def test_a_plan_that_shows_everything_is_taken_over_one_that_weighs_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Planned for less, the last file is cut a line short, and the cut's notice makes
    # that plan's bound higher than that of the plan that shows every file whole: the
    # plan that shows everything is the one taken (click at the budget its notice named
    # had its lock file cut at line 1,660 of 1,661).
    budget = 482_000

    def plan(first: Any, frames: Any, max_tokens: int, least: Any, planned: int) -> Any:
        return _made(complete=planned >= 440_000)

    def bound_of(first: Any, made: Any, frames: Any) -> float:
        return 426_326.0 if bounded._complete(made[0]) else 426_350.0

    monkeypatch.setattr(bounded, "_plan", plan)
    monkeypatch.setattr(bounded, "bound_of", bound_of)
    first = SimpleNamespace(budget=BudgetAsked(max_tokens=budget), limits=None)
    packing, _, _ = bounded.bounded(first, None, budget, (0, 0.0))  # type: ignore[arg-type]
    assert bounded._complete(packing)
    assert first.limits.max_tokens >= 440_000
