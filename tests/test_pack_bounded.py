"""`pack.bounded`: the plan for a budget of tokens without a tokenizer, chosen among the
plans made for more or fewer estimated tokens by the bound of their real count."""

from __future__ import annotations

import random
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from helpers import run_readmany

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


def _low_reading_tree(root: Path, notes: bool = False) -> Path:
    """300 lines of 40 random emoji: the estimate reads it about 48 times low; `notes`:
    and a text it reads well."""
    root.mkdir()
    rng = random.Random(1)
    lines = ("".join(chr(rng.randrange(0x1F300, 0x1F700)) for _ in range(40)) for _ in range(300))
    (root / "e.txt").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    if notes:
        text = "".join(f"Step {i}: read the file, then write it back.\n" for i in range(400))
        (root / "m.txt").write_text(text, encoding="utf-8")
    return root


def test_text_the_estimate_reads_far_low_is_never_written_over_the_budget(
    tmp_path: Path,
) -> None:
    # No plan made for the estimate's search was within: the plans made again for half
    # the tokens until one is (glob, many), the splits searched further (--parts). Each
    # had written the plan for the estimate's margin alone: 27,671 tokens at 20,000
    # with -n, 15,759 at 10,000 for many, one part of 26,996 at 3,000.
    from readmany.tokenizer import count

    tree = _low_reading_tree(tmp_path / "one")
    both = _low_reading_tree(tmp_path / "two", notes=True)
    for args, budget in (
        (["glob", ".", "-n", "--tokenizer", "estimate"], 20_000),
        (["glob", ".", "--tokenizer", "estimate", "--format", "xml", "-n"], 5_000),
        (["many", "e.txt"], 10_000),
        (["many", "e.txt", "m.txt"], 3_000),  # the most between: it had shown nothing
    ):
        where = both if "m.txt" in args else tree
        result = run_readmany([*args, "--max-tokens", str(budget), "-q"], cwd=where)
        written = count(result.stdout.decode())
        assert 0.5 * budget <= written <= budget, (args, written)
    for budget in (10_000, 5_000):  # at 5,000 the search's bracket finds none: a scan does
        result = run_readmany(
            ["glob", ".", "--parts", "--tokenizer", "estimate", "--max-tokens", str(budget)],
            cwd=tree,
        )
        assert result.returncode == 0, result.stderr
        parts = re.split(r"(?=\[Part \d+ of \d+)", result.stdout.decode())
        assert len([part for part in parts if part]) > 2
        assert all(count(part) <= budget for part in parts if part)
    # where no split is within, a clear error: nothing over is written
    result = run_readmany(
        ["glob", ".", "--parts", "--tokenizer", "estimate", "--max-tokens", "3000"], cwd=tree
    )
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode() == (
        "readmany: --parts: no split of the selection has every part within 3000 tokens "
        "when counted: raise --max-tokens\n"
    )


def test_many_names_a_budget_that_holds_text_the_estimate_reads_far_low(tmp_path: Path) -> None:
    # The budget that would show every file is of their counts by pieces and merges, not
    # of their estimates: three files of emoji (10,000 real tokens) were said to fit 3k.
    from readmany.tokenizer import count

    rng = random.Random(2)
    names = ["a.txt", "b.txt", "c.txt"]
    for name in names:
        text = "".join(
            "".join(chr(rng.randrange(0x1F300, 0x1F700)) for _ in range(12)) + "\n"
            for _ in range(120)
        )
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = run_readmany(["many", *names, "--max-tokens", "3000"], cwd=tmp_path)
    said = re.search(r"to read all at once: --max-tokens (\d+)k", result.stderr.decode())
    assert said is not None, result.stderr
    budget = int(said.group(1)) * 1000
    result = run_readmany(["many", *names, "--max-tokens", str(budget)], cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    whole = sum(count((tmp_path / name).read_text(encoding="utf-8")) for name in names)
    assert whole <= count(result.stdout.decode()) <= budget <= 1.3 * whole
