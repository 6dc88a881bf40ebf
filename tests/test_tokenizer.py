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


def test_the_bound_of_one_block_is_its_worst_and_of_many_nears_their_shared_error() -> None:
    from readmany.tokens import FILE_ERROR, SUM_ERROR, planning_budget, real_at_most

    assert real_at_most([1000.0]) == pytest.approx(1000 * (1 + SUM_ERROR + FILE_ERROR))
    assert real_at_most([]) == 0
    # a hundred blocks alike: each one's own error is a tenth of their sum's
    assert real_at_most([10.0] * 100) == pytest.approx(1000 * (1 + SUM_ERROR + FILE_ERROR / 10))
    # what is planned whatever the plan holds is within the budget by the bound
    for budget in (1, 80, 1000, 2000, 100_000):
        assert real_at_most([float(planning_budget(budget))]) <= budget or budget == 1
    assert planning_budget(1) == 1


def test_the_bound_covers_the_recorded_samples() -> None:
    # Of the recorded samples (real o200k counts), each alone and packed in order while
    # the bound of their estimates (512 bytes of each, as a budget weighs them) is
    # within the budget, the real count stays within it, for budgets of every size.
    from readmany.tokens import real_at_most, text_weight

    samples = json.loads((FIXTURES / "token_counts.json").read_text())["samples"]
    sized = [(text_weight(s["text"]), s["tokens"]) for s in samples]
    for estimate, real in sized:
        assert real <= real_at_most([estimate])
    total = sum(real for _, real in sized)
    for budget in range(200, total, 97):
        taken: list[float] = []
        real_spent = 0
        for estimate, real in sized:
            if real_at_most([*taken, estimate]) <= budget:
                taken.append(estimate)
                real_spent += real
        assert real_spent <= budget, budget
