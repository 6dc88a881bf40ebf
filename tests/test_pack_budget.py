"""The pack stage's budget words and its fit loop: once each, for `many` and `glob`."""

from __future__ import annotations

from readmany.limits import NO_LIMIT
from readmany.pack import UNCOUNTED, Budget
from readmany.pack.budget import BudgetAsked, options_to_hold, size_at_least, size_exactly
from readmany.pack.fit import NOTHING, fit, less


def test_sizes_are_rounded_up_as_each_command_words_them() -> None:
    # many: any size in k or M, never a plain number.
    assert size_at_least(812) == "1k"
    assert size_at_least(0) == "1"
    assert size_at_least(180 * 1024 - 5) == "180k"
    assert size_at_least(10 * 1024 * 1024 - 10) == "10M"
    # glob's closing notice: under one k as its number, k up to ten M.
    assert size_at_least(812, plain_below_k=True) == "812"
    assert size_at_least(10 * 1024 * 1024 - 10, plain_below_k=True) == "10240k"
    assert size_at_least(12_345_678, plain_below_k=True) == "12M"
    assert size_at_least(10_001, 1000) == "11k"


def test_sizes_given_are_said_back_as_they_read() -> None:
    assert size_exactly(2048, 1024) == "2k"
    assert size_exactly(3 << 20, 1024) == "3M"
    assert size_exactly(2049, 1024) == "2049"
    assert size_exactly(10_000, 1000) == "10k"
    assert BudgetAsked(2048, 30, 10_000).options() == (
        "--max-bytes 2k",
        "--max-lines 30",
        "--max-tokens 10k",
    )
    assert BudgetAsked().options() == ()


def test_the_options_that_hold_everything_name_only_the_dimensions_passed() -> None:
    limits = BudgetAsked(max_bytes=1000).limits
    assert limits == Budget(1000, NO_LIMIT, UNCOUNTED)
    assert options_to_hold((5000, 900, 1e9), limits) == ["--max-bytes 5k"]
    assert options_to_hold((500, 900, 1e9), limits) == []
    tokens = BudgetAsked(max_tokens=100, max_lines=10).limits
    assert options_to_hold((5, 11, 100.5), tokens) == ["--max-tokens 1k", "--max-lines 11"]
    assert options_to_hold((5, 11, 100.5), tokens, plain_below_k=True) == [
        "--max-tokens 101",
        "--max-lines 11",
    ]


def test_fit_keeps_room_until_the_cost_fits_and_says_when_it_cannot() -> None:
    budget = Budget(100, 10, UNCOUNTED)
    rooms: list[Budget] = []

    def grows(room: Budget) -> tuple[int, Budget]:
        rooms.append(room)
        return len(rooms), Budget(10 * len(rooms), 1, 0.0)  # needs more each time

    value, fits = fit(budget, grows, keep=NOTHING, attempts=3)
    assert (value, fits) == (3, False)  # the last plan, after every attempt
    assert [room.max_bytes for room in rooms] == [100, 90, 80]

    rooms.clear()
    value, fits = fit(budget, grows, keep=NOTHING, attempts=20)
    assert fits is False and value is None  # the room kept outgrew the budget

    def settles(room: Budget) -> tuple[Budget, Budget]:
        return room, Budget(30, 2, 0.0)

    value, fits = fit(budget, settles, keep=Budget(1, 1, 0.0), attempts=5)
    assert fits and value == Budget(70, 8, UNCOUNTED)


def test_fit_hurries_after_some_attempts() -> None:
    kept: list[int] = []

    def creeping(room: Budget) -> tuple[None, Budget]:
        kept.append(1000 - room.max_bytes)
        return None, Budget(1000 - room.max_bytes + 1, 0, 0.0)

    fit(Budget(1000, 10, UNCOUNTED), creeping, keep=Budget(1, 0, 0.0), attempts=6, hurry_after=2)
    assert kept == [1, 2, 3, 6, 12, 24]
    assert less(Budget(5, 5, 1.0), Budget(5, 6, 0.0)) is None
