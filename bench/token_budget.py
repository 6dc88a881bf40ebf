"""Whether a budget of tokens holds: the real count of budgeted outputs, and the estimate.

    python bench/token_budget.py [ROOT ...] [--budgets 2000,10000,50000,100000]
        [--formats text,markdown,xml] [--tokenizers estimate,o200k]
        [--samples tests/fixtures/token_counts.json] [--files-only]

Needs the tokens extra (`pip install 'readmany[tokens]'`), which counts every output
(o200k_base). Tables:

- per budgeted output: `readmany glob ROOT --max-tokens N --format F --tokenizer T` run
  in process, for each tokenizer asked for (`estimate`: planned at `tokens.planning_budget`;
  `o200k`: counted and trimmed, `tokenizer.fit`), its output counted for real: the real
  count over the budget (over 1.0 is a budget broken);
- with `--samples`, each recorded sample alone under budgets that cut it and one that
  holds it;
- at the end, per tokenizer: the highest real / budget, the least filled where the files
  hold 1.2 times the budget, and the largest closing notice / budget;
- with `--files-only`, per file: each text file's estimate against its real count.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from readmany.tokenizer import counter
from readmany.tokens import estimate_tokens_for, text_weight

SKIP_DIRS = {".git", "node_modules", ".venv", "__pycache__"}


def text_files(root: Path, limit: int = 4000) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            path = Path(directory) / name
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if b"\0" in data[:4096] or len(data) > 2 << 20:
                continue
            try:
                found.append((str(path.relative_to(root)), data.decode("utf-8")))
            except UnicodeDecodeError:
                continue
            if len(found) >= limit:
                return found
    return found


def per_file(files: list[tuple[str, str]], count: object) -> str:
    real_of = count  # Callable[[str], int]
    rows = []
    for label, estimator in (
        ("estimate_tokens_for (8 KiB windows)", lambda t: estimate_tokens_for(t.encode())),
        ("text_weight (512 B, the budget's)", lambda t: text_weight(t)),
    ):
        under = 0
        worst = 0.0
        ratios: list[float] = []
        total_real = total_estimate = 0.0
        for _, text in files:
            real = real_of(text)  # type: ignore[operator]
            if real < 20:
                continue
            guess = float(estimator(text))
            ratios.append(real / max(guess, 1.0))
            total_real += real
            total_estimate += guess
            if guess < real:
                under += 1
                worst = max(worst, real / max(guess, 1.0) - 1)
        ratios.sort()
        n = len(ratios)
        p95 = ratios[int(n * 0.95)] if n else 0
        rows.append(
            f"| {label} | {n} | {under / max(n, 1):.0%} | {p95 - 1:+.1%} | {worst:+.0%} "
            f"| {total_real / max(total_estimate, 1) - 1:+.1%} |"
        )
    head = (
        "| estimator | files | under | real over estimate, 95th pct | worst | sum |\n"
        "| --- | --- | --- | --- | --- | --- |"
    )
    return "\n".join([head, *rows])


def budgeted(root: Path, budget: int, fmt: str, tokenizer: str, *patterns: str) -> str:
    """`readmany glob PATTERNS --max-tokens BUDGET --format FMT --tokenizer T` in `root`,
    run in process, its output as written."""
    import tempfile

    from readmany.__main__ import main as readmany

    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "out.txt"
        argv = ["glob", *(patterns or (".",)), "--max-tokens", str(budget), "--format", fmt]
        argv += ["--tokenizer", tokenizer, "-q", "-o", str(out)]
        cwd = os.getcwd()
        os.chdir(root)
        try:
            status = readmany(argv)
        finally:
            os.chdir(cwd)
        if status not in (0, 1):
            raise SystemExit(f"readmany {' '.join(argv)} in {root}: exit {status}")
        return out.read_text("utf-8", "surrogateescape") if out.exists() else ""


NOTICE = re.compile(r"\[Left out by the budget[^\n]*\]")


def notice_tokens(text: str, count: Callable[[str], int]) -> int:
    """The real tokens of the closing notice of an output (0: none)."""
    found = NOTICE.findall(text)
    return count(found[-1]) if found else 0


class Worst:
    """The highest real / budget, the least filled where the files allow filling, and
    the largest notice / budget, of each tokenizer's runs."""

    def __init__(self) -> None:
        self.over: dict[str, float] = {}
        self.fill: dict[str, float] = {}
        self.notice: dict[str, float] = {}
        self.runs: dict[str, int] = {}

    def add(self, name: str, real: int, budget: int, notice: int, fillable: bool) -> None:
        self.over[name] = max(self.over.get(name, 0.0), real / budget)
        self.notice[name] = max(self.notice.get(name, 0.0), notice / budget)
        self.runs[name] = self.runs.get(name, 0) + 1
        if fillable:
            self.fill[name] = min(self.fill.get(name, 9.0), real / budget)

    def report(self) -> str:
        return "\n".join(
            f"{name}: {self.runs[name]} runs, highest real / budget {self.over[name]:.3f}, "
            f"least filled {self.fill.get(name, 0.0):.3f} (where the files allow), "
            f"largest notice / budget {self.notice[name]:.3f}"
            for name in self.over
        )


def trees(
    roots: list[Path],
    budgets: list[int],
    formats: list[str],
    tokenizers: list[str],
    count: Callable[[str], int],
    worst: Worst,
) -> None:
    for root in roots:
        files = text_files(root)
        whole = sum(count(text) for _, text in files)
        print(f"## {root} ({len(files)} text files, {whole} tokens)\n")
        heads = " | ".join(f"{t} real / budget" for t in tokenizers)
        print(f"| budget | format | {heads} |\n|{' --- |' * (2 + len(tokenizers))}")
        for budget in budgets:
            for fmt in formats:
                cells = []
                for name in tokenizers:
                    text = budgeted(root, budget, fmt, name)
                    real = count(text)
                    # the files allow filling it: they hold 1.2 times the budget
                    worst.add(name, real, budget, notice_tokens(text, count), whole > budget * 1.2)
                    cells.append(f"{real / budget:.3f}")
                print(f"| {budget} | {fmt} | {' | '.join(cells)} |")
        print()


def samples(
    path: Path,
    formats: list[str],
    tokenizers: list[str],
    count: Callable[[str], int],
    worst: Worst,
) -> None:
    """Each recorded sample alone, under budgets that cut it (half and nine tenths of its
    real count) and one that holds it."""
    import json
    import tempfile

    recorded = json.loads(path.read_text(encoding="utf-8"))["samples"]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for sample in recorded:
            name = Path(sample["path"]).name or sample["name"]
            (root / name).write_text(sample["text"], encoding="utf-8")
            real = count(sample["text"])
            for budget in (max(60, real // 2), max(80, real * 9 // 10), real * 2 + 200):
                for fmt in formats:
                    for tokenizer in tokenizers:
                        text = budgeted(root, budget, fmt, tokenizer, name)
                        got = count(text)
                        fillable = budget < real
                        worst.add(tokenizer, got, budget, notice_tokens(text, count), fillable)
                        if got > budget:
                            print(f"over: {name} {budget} {fmt} {tokenizer}: {got}")
            (root / name).unlink()
    print(f"{len(recorded)} recorded samples, 3 budgets each: {worst.report()}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--budgets", default="2000,10000,50000,100000")
    parser.add_argument("--formats", default="text,markdown,xml")
    parser.add_argument("--tokenizers", default="estimate,o200k", help="what --tokenizer runs")
    parser.add_argument("--count", default="o200k", help="what counts the output")
    parser.add_argument("--samples", type=Path, help="token_counts.json: each sample alone")
    parser.add_argument("--files-only", action="store_true")
    args = parser.parse_args(argv)
    count = counter(args.count)
    formats = args.formats.split(",")
    tokenizers = args.tokenizers.split(",")
    worst = Worst()
    if args.samples:
        samples(args.samples, formats, tokenizers, count, worst)
    if args.files_only:
        for root in args.roots:
            print(f"## {root}\n\n{per_file(text_files(root), count)}\n")
        return 0
    budgets = [int(b) for b in args.budgets.split(",")]
    trees(args.roots, budgets, formats, tokenizers, count, worst)
    print(worst.report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
