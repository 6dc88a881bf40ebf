"""`--tokenizer` (readmany/tokenizer.py): exact counts with the tokens extra, the
estimate without it, and `fit`, the renders that bring a budgeted output within a
budget by its real count."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from readmany import tokenizer
from readmany.errors import UsageError
from readmany.tokenizer import Fitted, count, counter, fit
from readmany.tokens import estimate_tokens_for

FIXTURES = Path(__file__).parent / "fixtures"


def test_o200k_matches_the_recorded_counts() -> None:
    # tests/fixtures/token_counts.json: counted by js-tiktoken's o200k_base.
    samples = json.loads((FIXTURES / "token_counts.json").read_text())["samples"]
    assert len(samples) > 50
    assert [count(s["text"], "o200k") for s in samples] == [s["tokens"] for s in samples]


def test_cl100k_differs_from_o200k() -> None:
    text = "Привет, мир! これは日本語のテキストです。" * 20
    assert count(text, "cl100k") != count(text, "o200k")
    assert count("hello world", "cl100k") == 2


def test_special_tokens_are_counted_as_text() -> None:
    assert count("<|endoftext|>", "o200k") > 1


def test_estimate_is_tokens_estimate() -> None:
    text = "def walk(root):\n    return [root]\n" * 50
    assert count(text, "estimate") == estimate_tokens_for(text.encode())
    assert count("", "estimate") == 0


def test_unknown_tokenizer_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown tokenizer 'gpt2': use one of o200k"):
        counter("gpt2")


def test_the_package_itself_is_not_imported() -> None:
    counter("o200k")
    assert "bpe_openai" not in sys.modules  # its 1.4 s import of every vocabulary


def test_without_the_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "bpe_openai" else real_find_spec(name, *a),
    )
    monkeypatch.setattr(tokenizer, "_counters", {})
    monkeypatch.setattr(tokenizer, "_bindings", None)
    assert not tokenizer.available()
    assert tokenizer.default() == "estimate"
    with pytest.raises(UsageError, match=r"pip install 'readmany\[tokens\]'"):
        counter("o200k")
    assert counter("estimate")("word") == 1


class Packer:
    """A budgeted output as a planner makes it: files whole in order while their
    estimates fit the planning budget; each file's real count off its estimate."""

    def __init__(self, seed: int, files: int, bias: float) -> None:
        rng = random.Random(seed)
        self.files = []
        for _ in range(files):
            real = int(rng.lognormvariate(5, 1.2)) + 5
            self.files.append((real, real / (bias * rng.uniform(0.8, 1.25))))
        self.renders = 0

    def render(self, planned: int) -> str:
        self.renders += 1
        spent = 0.0
        kept = []
        for real, estimate in self.files:
            if spent + estimate <= planned:
                spent += estimate
                kept.append(real)
        return " ".join(f"<{real}>" for real in kept)

    @staticmethod
    def count(text: str) -> int:
        return sum(int(part[1:-1]) for part in text.split())


@pytest.mark.parametrize("bias", [0.85, 1.0, 1.2])
@pytest.mark.parametrize("budget", [1000, 10000, 100000])
@pytest.mark.parametrize("seed", range(4))
def test_fit_is_never_over_and_fills(bias: float, budget: int, seed: int) -> None:
    packer = Packer(seed, 3000, bias)
    fitted = fit(packer.render, budget, packer.count)
    assert fitted.real <= budget
    assert fitted.real == packer.count(fitted.text)
    assert fitted.real >= 0.9 * budget
    assert fitted.passes == packer.renders <= tokenizer.PASSES


def test_fit_stops_at_once_when_the_first_render_fills() -> None:
    fitted = fit(lambda planned: "x" * planned, 100, len)
    assert fitted == Fitted("x" * 100, 100, 100, 1)


def test_fit_when_nothing_fits_returns_the_smallest() -> None:
    # The output never goes under 50 (a notice), the budget is 10: nothing fits.
    fitted = fit(lambda planned: "n" * (50 + planned), 10, len)
    assert fitted.planned == 0 and fitted.real == 50


def test_fit_halves_past_its_passes_until_one_fits() -> None:
    # Real tokens grow as the square of the plan: the scaling undershoots the shrinking.
    def render(planned: int) -> str:
        return "y" * (planned * planned // 10)

    fitted = fit(render, 1000, len, passes=2)
    assert fitted.real <= 1000
    assert fitted.text == render(fitted.planned)


def test_planning_budget_keeps_a_larger_margin_for_a_small_budget() -> None:
    from readmany.tokens import (
        LARGE_BUDGET,
        SAFE_FRACTION,
        SMALL_BUDGET,
        SMALL_FRACTION,
        planning_budget,
    )

    assert planning_budget(100_000) == int(100_000 * SAFE_FRACTION) < 100_000
    assert planning_budget(LARGE_BUDGET) == int(LARGE_BUDGET * SAFE_FRACTION)
    assert planning_budget(1_000) == int(1_000 * SMALL_FRACTION)
    assert planning_budget(SMALL_BUDGET) == int(SMALL_BUDGET * SMALL_FRACTION)
    assert planning_budget(1) == 1
    # between, the fraction grows with the budget, and the planning budget with it
    fractions = [planning_budget(b) / b for b in range(SMALL_BUDGET, LARGE_BUDGET + 1, 500)]
    assert fractions == sorted(fractions)
    assert SMALL_FRACTION < planning_budget(6_000) / 6_000 < SAFE_FRACTION


def test_the_safe_fraction_covers_the_recorded_samples() -> None:
    # Of the recorded samples (real o200k counts), packed by their estimate into the
    # planning budget, the real count stays within the budget, for budgets of every size.
    from readmany.tokens import estimate_tokens_for, planning_budget

    samples = json.loads((FIXTURES / "token_counts.json").read_text())["samples"]
    sized = [(estimate_tokens_for(s["text"].encode()), s["tokens"]) for s in samples]
    total = sum(real for _, real in sized)
    for budget in range(200, total, 97):
        room = planning_budget(budget)
        spent = real_spent = 0
        for estimate, real in sized:
            if spent + estimate <= room:
                spent += estimate
                real_spent += real
        assert real_spent <= budget, budget
