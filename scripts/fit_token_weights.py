#!/usr/bin/env python3
"""Fit the weights of `readmany.tokens.estimate_tokens_for` to the recorded token counts.

    python scripts/fit_token_weights.py           # fitted weights, errors, per-kind table

Reads the two tables record_token_counts.py makes: tests/fixtures/token_counts.json (text
samples, texts included) and tests/fixtures/token_counts_repos.json (files of real
repositories, their counted features only). Fits one weight per counted feature by least
squares on the relative error, the two tables weighing the same (a sample weighs as much
as files / samples files: the samples hold the unusual texts, data, whitespace and other
scripts, that real repositories have few of), and prints the weights to
paste into readmany/tokens.py; then the errors of the byte rule and of the weights in the
module now, on each table; the error on each repository's files of weights fitted without
them (leave one repository out) and on each sample of weights fitted without it; and the
error per kind of sample and per repository.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from readmany.tokens import WEIGHTS, estimate_tokens, token_features

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
FIXTURE = FIXTURES / "token_counts.json"
REPOS_FIXTURE = FIXTURES / "token_counts_repos.json"


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix·x = vector, by Gaussian elimination with partial pivoting."""
    size = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        if rows[column][column] == 0:
            raise ValueError(f"feature {column} is never counted: it cannot be fitted")
        for row in range(size):
            if row != column:
                factor = rows[row][column] / rows[column][column]
                rows[row] = [a - factor * b for a, b in zip(rows[row], rows[column], strict=True)]
    return [rows[i][size] / rows[i][i] for i in range(size)]


def fit(
    features: Sequence[Sequence[float]],
    tokens: Sequence[int],
    importance: Sequence[float] | None = None,
) -> list[float]:
    """Non-negative weights minimising the sum of squared relative errors, each row's
    times its `importance` (1 each by default).

    A feature whose weight comes out negative is left out (weight 0) and the rest is
    fitted again, until no weight is negative: a count never makes a text cheaper.
    """
    width = len(features[0])
    kept = list(range(width))
    importance = importance or [1.0] * len(tokens)
    while True:
        fitted = _least_squares([[row[i] for i in kept] for row in features], tokens, importance)
        if min(fitted) >= 0:
            weights = [0.0] * width
            for index, weight in zip(kept, fitted, strict=True):
                weights[index] = weight
            return weights
        kept = [index for index, weight in zip(kept, fitted, strict=True) if weight >= 0]


def _least_squares(
    features: Sequence[Sequence[float]], tokens: Sequence[int], importance: Sequence[float]
) -> list[float]:
    width = len(features[0])
    normal = [[0.0] * width for _ in range(width)]
    right = [0.0] * width
    for row, count, weight in zip(features, tokens, importance, strict=True):
        scaled = [value / count for value in row]
        for i in range(width):
            right[i] += weight * scaled[i]  # (row/count) · (count/count)
            for j in range(width):
                normal[i][j] += weight * scaled[i] * scaled[j]
    return solve(normal, right)


def relative_error(estimate: float, tokens: int) -> float:
    return abs(estimate - tokens) / tokens


class Row:
    """A sample or a file: where from, what it counts, its tokens and bytes."""

    def __init__(self, group: str, features: list[float], tokens: int, size: int) -> None:
        self.group = group  # a sample's kind, or a file's repository
        self.features = features
        self.tokens = tokens
        self.bytes = size


def load() -> tuple[list[Row], list[Row]]:
    """The samples (features counted from their texts) and the repositories' files."""
    samples = json.loads(FIXTURE.read_text(encoding="utf-8"))["samples"]
    sample_rows = []
    for sample in samples:
        data = sample["text"].encode("utf-8")
        features = token_features(data, len(data))
        sample_rows.append(Row(sample["kind"], features, sample["tokens"], len(data)))
    files = json.loads(REPOS_FIXTURE.read_text(encoding="utf-8"))["files"]
    file_rows = [Row(f["repo"], f["features"], f["tokens"], f["bytes"]) for f in files]
    return sample_rows, file_rows


def estimate(weights: Sequence[float], row: Row) -> int:
    """`estimate_tokens_for` of the row's text, from its counts."""
    return max(1, round(sum(w * f for w, f in zip(weights, row.features, strict=True))))


def summary(
    label: str, errors: Sequence[float], rows: Sequence[Row], guesses: Sequence[int]
) -> str:
    total = sum(r.tokens for r in rows)
    bias = (sum(guesses) - total) / total
    ordered = sorted(errors)
    return (
        f"{label:34} mean |error| {sum(errors) / len(errors):6.1%}"
        f"  median {ordered[len(ordered) // 2]:6.1%}  90% {ordered[len(ordered) * 9 // 10]:6.1%}"
        f"  sum {bias:+6.1%}"
    )


def fit_tables(samples: Sequence[Row], files: Sequence[Row]) -> list[float]:
    """`fit` of both tables, each weighing the same in all."""
    share = len(files) / len(samples) if samples and files else 1.0
    rows = [*samples, *files]
    importance = [share] * len(samples) + [1.0] * len(files)
    return fit([r.features for r in rows], [r.tokens for r in rows], importance)


def main() -> int:
    samples, files = load()
    weights = fit_tables(samples, files)
    print("WEIGHTS = {")
    for name, weight in zip(WEIGHTS, weights, strict=True):
        print(f'    "{name}": {float(f"{weight:.3g}")!r},')
    print("}")

    now = list(WEIGHTS.values())
    for table, rows in (("samples", samples), ("repository files", files)):
        for label, guesses in (
            ("bytes/4", [estimate_tokens(row.bytes) for row in rows]),
            ("estimate_tokens_for", [estimate(now, row) for row in rows]),
        ):
            errors = [relative_error(g, r.tokens) for g, r in zip(guesses, rows, strict=True)]
            print(summary(f"{table}: {label}", errors, rows, guesses))

    # Out of sample: each repository's files by weights fitted without them; each sample
    # by weights fitted without it (the files all kept).
    held_out: list[float] = []
    for repo in sorted({r.group for r in files}):
        held = fit_tables(samples, [r for r in files if r.group != repo])
        mine = [r for r in files if r.group == repo]
        guesses = [estimate(held, r) for r in mine]
        errors = [relative_error(g, r.tokens) for g, r in zip(guesses, mine, strict=True)]
        held_out += errors
        rule = [relative_error(estimate_tokens(r.bytes), r.tokens) for r in mine]
        print(summary(f"left out: {repo} ({len(mine)} files)", errors, mine, guesses)
              + f"  (bytes/4 {sum(rule) / len(rule):.1%})")  # fmt: skip
    print(f"{'left out, every repository':34} mean |error| {sum(held_out) / len(held_out):6.1%}")
    loo = []
    totals = [sum(column) for column in zip(*(r.features for r in samples + files), strict=True)]
    for index, row in enumerate(samples):
        if any(value > total / 2 for value, total in zip(row.features, totals, strict=True)):
            continue  # most of some feature's count: too little left to learn it from
        held = fit_tables([r for i, r in enumerate(samples) if i != index], files)
        loo.append(relative_error(estimate(held, row), row.tokens))
    mean = sum(loo) / len(loo)
    print(f"{'left out, every sample':34} mean |error| {mean:6.1%}  max {max(loo):6.1%}")

    by_kind: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for row in samples:
        by_kind[row.group].append(
            (
                relative_error(estimate_tokens(row.bytes), row.tokens),
                relative_error(estimate(now, row), row.tokens),
            )
        )
    print(f"\n{'kind':16} {'n':>3} {'bytes/4':>8} {'fitted':>8}")
    for kind, pairs in sorted(by_kind.items()):
        rough_mean = sum(p[0] for p in pairs) / len(pairs)
        fine_mean = sum(p[1] for p in pairs) / len(pairs)
        print(f"{kind:16} {len(pairs):3} {rough_mean:8.1%} {fine_mean:8.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
