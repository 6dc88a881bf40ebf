"""`glob --max-tokens` is never over: `--tokenizer o200k|cl100k` counts the output and
trims until it fits (the default with the tokens extra); `estimate` plans with a margin
(the default without it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import run_readmany

from readmany import tokenizer
from readmany.tokenizer import count
from readmany.tokens import planning_budget


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for i in range(40):
        body = "".join(f"def f_{i}_{j}(x):\n    return x * {j}  # {i}\n\n" for j in range(30))
        (tmp_path / f"m{i:02}.py").write_text(body, encoding="utf-8")
    (tmp_path / "notes.md").write_text("Überblick: données, 数据, данные.\n" * 200, "utf-8")
    return tmp_path


def _json(tree: Path, *args: str) -> dict[str, Any]:
    result = run_readmany(["glob", ".", "--json", "-q", *args], cwd=tree)
    assert result.returncode == 0, result.stderr
    value: dict[str, Any] = json.loads(result.stdout)
    return value


@pytest.mark.parametrize("name", ["o200k", "cl100k"])
@pytest.mark.parametrize("form", ["text", "markdown", "xml"])
def test_an_exact_tokenizer_fills_the_budget_and_is_never_over(
    tree: Path, name: str, form: str
) -> None:
    for budget in (1500, 6000):
        args = ["--max-tokens", str(budget), "--tokenizer", name, "--format", form, "--tree"]
        said = _json(tree, *args)
        real = count(said["content"] + "\n", name)
        assert said["details"]["tokenizer"]["name"] == name
        assert said["details"]["tokenizer"]["tokens"] == real
        assert 0.9 * budget <= real <= budget
        plain = run_readmany(["glob", ".", *args, "-q"], cwd=tree).stdout.decode()
        assert count(plain, name) == real  # what is written is what was counted


def test_the_default_is_o200k_with_the_extra_and_the_estimate_without(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _json(tree, "--max-tokens", "3000")["details"]["tokenizer"]["name"] == "o200k"
    monkeypatch.setattr(tokenizer, "available", lambda: False)
    whole = _json(tree, "--max-tokens", "3000")
    said = whole["details"]["tokenizer"]
    assert said.keys() == {"name", "budget", "planned"}
    assert said["name"] == "estimate" and said["budget"] == 3000
    # planned in estimated tokens, at least one block's bound; what is written, within
    assert planning_budget(3000) <= said["planned"]
    assert 0.9 * 3000 <= count(whole["content"] + "\n") <= 3000
    result = run_readmany(["glob", ".", "--max-tokens", "3k", "--tokenizer", "o200k"], cwd=tree)
    assert result.returncode == 2
    assert result.stderr.decode() == (
        "readmany: --tokenizer o200k needs bpe-openai: pip install 'readmany[tokens]'\n"
    )


@pytest.mark.parametrize("budget", [800, 3000, 12000])
def test_the_estimate_plans_with_a_margin_and_is_never_over(tree: Path, budget: int) -> None:
    for form in ("text", "markdown", "xml"):
        args = ["--max-tokens", str(budget), "--tokenizer", "estimate", "--format", form]
        said = _json(tree, *args)
        planned = said["details"]["tokenizer"]["planned"]
        # at least what is within the budget whatever the plan holds; more where the
        # large files, counted by their pieces, are known to hold fewer real tokens than
        # estimated (then planned can pass the budget: it is in estimated tokens)
        assert planning_budget(budget) <= planned < budget * 1.1
        # to a percent or two: the plan counts what it shows by pieces and merges
        assert said["details"]["estimatedTokens"] <= planned * 1.02
        assert count(said["content"] + "\n", "o200k") <= budget


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--max-tokens", "1k", "--tokenizer", "gpt2"], "--tokenizer 'gpt2': give o200k, "),
        (["--tokenizer", "o200k"], "--tokenizer counts a budget of tokens: add --max-tokens N"),
        (["--compat", "--tokenizer", "o200k"], "--tokenizer is not part of --compat"),
    ],
)
def test_bad_tokenizers_say_how_to_fix_them(tree: Path, args: list[str], said: str) -> None:
    result = run_readmany(["glob", ".", *args], cwd=tree)
    assert result.returncode == 2
    assert said in result.stderr.decode()
    assert b"Traceback" not in result.stderr


def test_the_left_out_notice_takes_at_most_5_percent(tree: Path) -> None:
    for budget in (1000, 4000):
        content = _json(tree, "--max-tokens", str(budget))["content"]
        notice = content[content.rindex("[Left out by the budget") :]
        notice = notice[: notice.index("]") + 1]
        assert count(notice) <= budget * 0.05


@pytest.mark.parametrize("name", ["o200k", "estimate"])
def test_no_file_fits_quotes_the_count_that_refused_it(tmp_path: Path, name: str) -> None:
    # With an exact tokenizer it is its count that refused the file: that count is
    # quoted, not the estimate (which said "~N" whatever counted). A line of about 2.1k
    # tokens, estimated at 2.4k: within twice the budget, so planned and counted.
    body = "".join(f"Zq{i}x9 Kj{i * 7}w, Vb{i * 3}p; " for i in range(150)) + "\n"  # a line
    (tmp_path / "only.txt").write_text(body, encoding="utf-8")
    args = ["glob", "only.txt", "--max-tokens", "1500", "--tokenizer", name, "-q"]
    result = run_readmany(args, cwd=tmp_path)
    assert result.returncode == 1
    said = result.stderr.decode()
    quoted = said[said.index("lines (") + len("lines (") : said.index(" tokens) as framed")]
    whole = run_readmany(["glob", "only.txt", "-q"], cwd=tmp_path).stdout.decode()
    if name == "estimate":
        assert quoted.startswith("~")
        return
    block = whole[: whole.rindex("\n--- End of content ---")]  # the file's block, framed
    assert quoted == str(count(block))
