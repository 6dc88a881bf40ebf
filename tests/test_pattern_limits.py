"""A pattern nesting braces deeper than `limits.PATTERN_MAX_BRACE_DEPTH` is one line and
exit 2, wherever it is given (it was a RecursionError, exit 70)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_readmany

from readmany.errors import UsageError
from readmany.limits import PATTERN_MAX_BRACE_DEPTH
from readmany.select.patterns import check_brace_depth, expand_braces

DEEP = "{" * 300 + "a" + "}" * 300


@pytest.mark.parametrize(
    "args",
    [
        ["glob", DEEP],
        ["glob", "a.txt", "--exclude", DEEP],
        ["glob", "a.txt", "--include", DEEP],
        ["glob", "--compat", DEEP],
        ["glob", "--compat", "a.txt", "--exclude", DEEP],
    ],
    ids=["pattern", "exclude", "include", "compat", "compat-exclude"],
)
def test_deep_braces_are_a_usage_error(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    result = run_readmany(args, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f"readmany: pattern nests braces 300 deep, more than {PATTERN_MAX_BRACE_DEPTH}: {{{{{{"
    )
    assert lines[0].endswith("; write its alternatives as patterns of their own")


def test_the_limit_is_the_depth_not_the_count_of_braces(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    deepest = "{a," * PATTERN_MAX_BRACE_DEPTH + "a.txt" + "}" * PATTERN_MAX_BRACE_DEPTH
    result = run_readmany(["glob", deepest], cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.startswith(b"--- a.txt ---")
    many = ",".join(f"{{x{n},y}}" for n in range(100))  # 200 braces, one deep
    assert len(expand_braces("{" + many + "}")) > 1
    check_brace_depth("\\{" * 300 + "a")  # escaped braces nest nothing
    with pytest.raises(UsageError):
        check_brace_depth("{a," * (PATTERN_MAX_BRACE_DEPTH + 1) + "a")
