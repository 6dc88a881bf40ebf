"""A pattern nesting braces deeper than `limits.PATTERN_MAX_BRACE_DEPTH` is one line and
exit 2, wherever it is given (it was a RecursionError, exit 70)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from helpers import run_readmany

from readmany.errors import UsageError
from readmany.limits import PATTERN_MAX_BRACE_DEPTH, PATTERN_MAX_CHARS
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


LONG = "a" * PATTERN_MAX_CHARS + "*.txt"


@pytest.mark.parametrize(
    "args",
    [
        ["glob", LONG],
        ["glob", "a.txt", "--exclude", LONG],
        ["glob", "a.txt", "--include", LONG],
        ["glob", "--compat", LONG],
        ["glob", "--compat", "a.txt", "--exclude", "{" + LONG + ",b}"],
        ["glob", "x\0" + LONG],
    ],
    ids=["pattern", "exclude", "include", "compat", "compat-exclude", "nul"],
)
def test_a_pattern_too_long_is_one_short_usage_line(tmp_path: Path, args: list[str]) -> None:
    """A pattern longer than `limits.PATTERN_MAX_CHARS` is refused before it is compiled:
    a 10 MB one took 72 s of CPU, and was echoed whole in the error."""
    (tmp_path / "a.txt").write_text("a\n")
    result = run_readmany(args, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and len(lines[0]) < 300
    assert (
        lines[0].startswith("readmany: pattern is ")
        and f"more than {PATTERN_MAX_CHARS:,}" in lines[0]
    )
    assert lines[0].endswith(
        "split it into shorter patterns, or list the paths on standard input (--stdin)"
    )


def test_a_pattern_at_the_limit_is_taken(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    longest = "{" + "x" * (PATTERN_MAX_CHARS - 8) + ",a}.txt"
    assert len(longest) == PATTERN_MAX_CHARS
    result = run_readmany(["glob", longest], cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.startswith(b"--- a.txt ---")


def test_a_configuration_s_pattern_too_long_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / ".readmany.toml").write_text(f'patterns = ["{LONG}"]\n')
    result = run_readmany(["glob"], cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    line = result.stderr.decode()
    assert line.startswith("readmany: .readmany.toml: patterns: pattern is ")
    assert line.count("\n") == 1 and len(line) < 300


def test_a_run_of_globstars_is_one(tmp_path: Path) -> None:
    from readmany.select.patterns import collapse_globstars, compile_includes

    assert collapse_globstars("**/**/**/x.py") == "**/x.py"
    assert collapse_globstars("a/**/**/b/**/**") == "a/**/b/**"
    assert collapse_globstars("x**/**y") == "x**/**y"  # no `**` segment in a run
    (tmp_path / "d" / "e").mkdir(parents=True)
    for name in ("x.py", "d/x.py", "d/e/x.py", "d/y.py"):
        (tmp_path / name).write_text(name)
    includes = compile_includes(["**/" * 500 + "x.py"], (), str(tmp_path), True)
    for walks in includes.walks.values():
        for segments in walks:
            texts = [segment.text for segment in segments]
            assert all(not (a == b == "**") for a, b in itertools.pairwise(texts))
    many = run_readmany(["glob", "--json", "**/" * 500 + "x.py"], cwd=tmp_path)
    one = run_readmany(["glob", "--json", "**/x.py"], cwd=tmp_path)
    assert json.loads(many.stdout)["content"] == json.loads(one.stdout)["content"]
    assert json.loads(one.stdout)["details"]["files"] == ["d/e/x.py", "d/x.py", "x.py"]


def test_a_thousand_and_one_excludes_are_taken_and_too_many_alternatives_one_line(
    tmp_path: Path,
) -> None:
    # wcmatch limits the patterns of one matcher, all together, to 1,000 by default: a
    # repository's configuration with 1,001 excludes made every run exit 70.
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "x7").write_text("x\n")
    excludes = ", ".join(f'"x{i}"' for i in range(1001))
    (tmp_path / ".readmany.toml").write_text(f"exclude = [{excludes}]\n")
    result = run_readmany(["glob", ".", "--json"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["details"]["files"] == [".readmany.toml", "a.txt"]
    from readmany.select.patterns import compile_paths

    matcher = compile_paths([f"x{i}" for i in range(1001)])
    assert matcher.match("x1000") and not matcher.match("y")
    with pytest.raises(UsageError, match="alternatives in all"):
        compile_paths(["{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}x" + str(i) for i in range(20)])
