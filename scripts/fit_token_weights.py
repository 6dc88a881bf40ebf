#!/usr/bin/env python3
"""Fit the weights of `readmany.tokens.estimate_tokens_for` to the recorded token counts.

    python scripts/fit_token_weights.py           # fitted weights, errors, per-kind table

Reads tests/fixtures/token_counts.json (made by record_token_counts.py), fits one weight
per counted feature by least squares on the relative error, and prints the weights to
paste into readmany/tokens.py, the errors of the byte rule and of the weights in the
module now (in-sample and leave-one-out), and the error per kind of sample.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from readmany.tokens import WEIGHTS, estimate_tokens, estimate_tokens_for, token_features

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "token_counts.json"


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


def fit(features: Sequence[Sequence[float]], tokens: Sequence[int]) -> list[float]:
    """Non-negative weights minimising the sum of squared relative errors.

    A feature whose weight comes out negative is left out (weight 0) and the rest is
    fitted again, until no weight is negative: a count never makes a text cheaper.
    """
    width = len(features[0])
    kept = list(range(width))
    while True:
        fitted = _least_squares([[row[i] for i in kept] for row in features], tokens)
        if min(fitted) >= 0:
            weights = [0.0] * width
            for index, weight in zip(kept, fitted, strict=True):
                weights[index] = weight
            return weights
        kept = [index for index, weight in zip(kept, fitted, strict=True) if weight >= 0]


def _least_squares(features: Sequence[Sequence[float]], tokens: Sequence[int]) -> list[float]:
    width = len(features[0])
    normal = [[0.0] * width for _ in range(width)]
    right = [0.0] * width
    for row, count in zip(features, tokens, strict=True):
        scaled = [value / count for value in row]
        for i in range(width):
            right[i] += scaled[i]  # (row/count) · (count/count)
            for j in range(width):
                normal[i][j] += scaled[i] * scaled[j]
    return solve(normal, right)


def relative_error(estimate: float, tokens: int) -> float:
    return abs(estimate - tokens) / tokens


def main() -> int:
    samples = json.loads(FIXTURE.read_text(encoding="utf-8"))["samples"]
    datas = [sample["text"].encode("utf-8") for sample in samples]
    tokens = [sample["tokens"] for sample in samples]
    features = [token_features(data, len(data)) for data in datas]
    weights = fit(features, tokens)
    print("WEIGHTS = {")
    for name, weight in zip(WEIGHTS, weights, strict=True):
        print(f'    "{name}": {float(f"{weight:.3g}")!r},')
    print("}")

    loo = []
    for left_out in range(len(samples)):
        rest = [i for i in range(len(samples)) if i != left_out]
        try:
            held = fit([features[i] for i in rest], [tokens[i] for i in rest])
        except ValueError:
            continue  # the only sample of some feature: nothing to learn it from
        guess = sum(w * f for w, f in zip(held, features[left_out], strict=True))
        loo.append(relative_error(guess, tokens[left_out]))

    rule = [estimate_tokens(len(data)) for data in datas]
    now = [estimate_tokens_for(data) for data in datas]
    count = len(samples)
    for label, estimates in (("bytes/4", rule), ("estimate_tokens_for", now)):
        errors = [relative_error(e, t) for e, t in zip(estimates, tokens, strict=True)]
        absolute = sum(abs(e - t) for e, t in zip(estimates, tokens, strict=True)) / count
        signed = sum((e - t) / t for e, t in zip(estimates, tokens, strict=True)) / count
        print(
            f"{label:20} mean |error| {sum(errors) / count:6.1%}  max {max(errors):6.1%}"
            f"  mean {absolute:6.1f} tokens  mean signed {signed:+6.1%}"
        )
    print(f"leave-one-out refit   mean |error| {sum(loo) / len(loo):6.1%}  max {max(loo):6.1%}")

    by_kind: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for sample, rough, fine, actual in zip(samples, rule, now, tokens, strict=True):
        by_kind[sample["kind"]].append(
            (relative_error(rough, actual), relative_error(fine, actual))
        )
    print(f"\n{'kind':16} {'n':>3} {'bytes/4':>8} {'fitted':>8}")
    for kind, pairs in sorted(by_kind.items()):
        rough_mean = sum(p[0] for p in pairs) / len(pairs)
        fine_mean = sum(p[1] for p in pairs) / len(pairs)
        print(f"{kind:16} {len(pairs):3} {rough_mean:8.1%} {fine_mean:8.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
