"""How the estimate a budget of tokens plans with compares with a real count.

    python bench/token_budget.py ROOT [ROOT ...] [--budgets 2000,10000,50000,100000]
                                 [--formats text,markdown,xml] [--tokenizer o200k]

Needs the tokens extra (`pip install 'readmany[tokens]'`). Two tables:

- per file: each text file's estimate (`tokens.estimate_tokens_for`, and `text_weight`
  on the 512 bytes a budget weighs) against its real count: how often the estimate is
  under and by how much;
- per budgeted output: `readmany glob ROOT --max-tokens N --format F` run in process,
  its stdout counted for real: the real count over the budget (over 1.0 is a budget
  broken) and the budget filled.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from readmany.tokenizer import counter, fit
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


def budgeted(root: Path, budget: int, fmt: str) -> str:
    argv = ["glob", ".", "--max-tokens", str(budget), "--format", fmt, "-q"]
    done = subprocess.run(
        [sys.executable, "-m", "readmany", *argv], cwd=root, capture_output=True, check=False
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"readmany {' '.join(argv)} in {root}: {done.stderr.decode()}")
    return done.stdout.decode("utf-8", "surrogateescape")


def _render(root: Path, fmt: str, planned: int) -> str:
    return budgeted(root, max(planned, 1), fmt)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--budgets", default="2000,10000,50000,100000")
    parser.add_argument("--formats", default="text,markdown,xml")
    parser.add_argument("--tokenizer", default="o200k")
    parser.add_argument("--margin", type=float, default=0.0, help="also plan for N * MARGIN")
    parser.add_argument("--fit", action="store_true", help="also fit with the real count")
    parser.add_argument("--files-only", action="store_true")
    args = parser.parse_args(argv)
    count = counter(args.tokenizer)
    columns = ["plain"] + (["margin"] if args.margin else []) + (["fit"] if args.fit else [])
    worst = dict.fromkeys(columns, 0.0)
    least = dict.fromkeys(columns, 9.0)
    for root in args.roots:
        files = text_files(root)
        print(f"## {root} ({len(files)} text files)\n")
        print(per_file(files, count))
        if args.files_only:
            continue
        whole = sum(count(text) for _, text in files)
        heads = " | ".join(f"{c} real / budget" for c in columns)
        print(f"\n| budget | format | {heads} |\n|{' --- |' * (2 + len(columns))}")
        for budget in (int(b) for b in args.budgets.split(",")):
            for fmt in args.formats.split(","):
                ratios = {"plain": count(budgeted(root, budget, fmt)) / budget}
                if args.margin:
                    planned = int(budget * args.margin)
                    ratios["margin"] = count(budgeted(root, planned, fmt)) / budget
                cells = [f"{ratios[c]:.3f}" for c in ratios]
                if args.fit:
                    fitted = fit(partial(_render, root, fmt), budget, count)
                    ratios["fit"] = fitted.real / budget
                    cells.append(f"{ratios['fit']:.3f} ({fitted.passes} renders)")
                for column, ratio in ratios.items():
                    worst[column] = max(worst[column], ratio)
                    if whole > budget * 1.2:  # the files allow filling it
                        least[column] = min(least[column], ratio)
                print(f"| {budget} | {fmt} | {' | '.join(cells)} |")
        print()
    if not args.files_only:
        for column in columns:
            print(
                f"{column}: highest real / budget {worst[column]:.3f}, "
                f"least filled {least[column]:.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
