"""The benchmark harness runs end to end on tiny trees and reports every row and target."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
# The template's pattern lines (bench/ignore_rules.py), counted as the report counts them.
TEMPLATE_PATTERNS = 342

EXPECTED_ROWS = [
    ("repo", "git ls-files -z \\| xargs -0 cat"),
    ("repo", "git ls-files -z \\| python minimal_cat.py"),
    ("repo", "readmany glob '**'"),
    ("repo", "git ls-files -z \\| readmany glob --stdin -0"),
    ("repo", "readmany glob . --stats"),
    ("repo", "readmany glob . --max-tokens 100000"),
    ("repo", "files-to-prompt ."),
    ("repo", "repomix --stdout --style plain"),
    ("repo x10", "git ls-files -z \\| xargs -0 cat"),
    ("repo x10", "git ls-files -z \\| python minimal_cat.py"),
    ("repo x10", "readmany glob '**'"),
    ("repo x10", "git ls-files -z \\| readmany glob --stdin -0"),
    ("monorepo", "git ls-files -z \\| xargs -0 cat"),
    ("monorepo", "git ls-files -z \\| python minimal_cat.py"),
    ("monorepo", "readmany glob '**'"),
    ("monorepo", "git ls-files -z \\| readmany glob --stdin -0"),
    ("monorepo", "readmany glob '**' --json"),
    ("one file", "cat one.txt"),
    ("one file", "python minimal_cat.py one.txt"),
    ("one file", "readmany many one.txt"),
    ("one file", "readmany glob '**' (the file alone in a directory)"),
    ("one file", "files-to-prompt one.txt"),
    ("one file", "repomix --stdout --style plain --include one.txt"),
    ("start-up", "python -c pass"),
    ("start-up", "readmany --version"),
]

EXPECTED_TARGETS = [
    "repo: `readmany glob '**'` vs minimal Python",
    "repo: `readmany glob '**'` vs floor",
    "repo x10: `readmany glob '**'` vs minimal Python",
    "repo x10: `readmany glob '**'` vs floor",
    "monorepo: `readmany glob '**'` vs minimal Python",
    "monorepo: `readmany glob '**'` vs floor",
    "repo: `readmany glob '**'` vs files-to-prompt",
    "repo: `readmany glob '**'` vs repomix",
    "repo: `readmany glob . --stats` vs `readmany glob '**'`",
    "repo: `readmany glob . --max-tokens 100000` vs `readmany glob '**'`",
    "monorepo: `readmany glob --stdin -0` vs floor",
    "monorepo: `readmany glob --stdin -0` vs minimal Python",
    "monorepo: peak RSS of `--stdin -0` vs the walk's",
    "monorepo: peak RSS of `glob '**' --json` vs the text run's",
    "one file: `readmany glob '**'` over `python -c pass` (start-up)",
    "one file: `readmany many` vs files-to-prompt",
    "start-up: `readmany --version`",
    "repo: peak RSS of `readmany glob '**'`",
    "repo x10 vs repo: peak RSS growth of `readmany glob '**'`",
    "ignore matching, about 300 patterns",
]


def _table(text: str, heading: str) -> list[list[str]]:
    """The cells of the markdown table under `## heading`, without its header rows."""
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][2:]
    # Split on cell borders, not on the escaped `\|` inside commands.
    return [
        [cell.strip().replace("\0", "\\|") for cell in row.replace("\\|", "\0").split("|")[1:-1]]
        for row in rows
    ]


@pytest.mark.skipif(shutil.which("git") is None, reason="the benchmark trees are git work trees")
def test_tiny_benchmark_reports_every_row_and_target(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--tiny", "--runs", "1", "--skip-peers",
         "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = (tmp_path / "results.md").read_text()
    assert done.stdout == written

    timings = _table(written, "Timings")
    assert [(row[0], row[1].strip("`")) for row in timings] == EXPECTED_ROWS
    statuses = {(row[0], row[1].strip("`")): row[-1] for row in timings}
    for group, label in EXPECTED_ROWS:
        status = statuses[(group, label)]
        if "files-to-prompt" in label or "repomix" in label:
            assert status == "skipped: --skip-peers"
        elif "readmany" not in label:
            # The baselines always work; readmany's rows may fail, and then say why.
            assert status == "ok", (group, label, status)
        else:
            assert status == "ok" or status.startswith("failed: "), (group, label, status)

    targets = _table(written, "Targets")
    assert [row[0] for row in targets] == EXPECTED_TARGETS
    for row in targets:
        assert row[3] in ("PASS", "FAIL") or row[3].startswith("N/A: "), row

    trees = _table(written, "Trees")
    assert [row[1] for row in trees] == ["40", "400", "200"]
    assert [row[3] for row in trees][2] == "100"

    # Ignore matching at a small project's, numpy's and the template's number of patterns.
    matching = _table(written, "Ignore matching")
    assert [row[0] for row in matching] == ["10", "130", str(TEMPLATE_PATTERNS)]
    for row in matching:
        assert int(row[1]) > 40 and all(float(cell) > 0 for cell in row[2:]), row


def test_every_tree_has_template_rules_and_nested_ones(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import make_trees
    finally:
        sys.path.remove(str(BENCH))
    make_trees.build_repo_tree(tmp_path / "repo", make_trees.RepoSpec(200))
    make_trees.build_monorepo_tree(tmp_path / "mono", make_trees.MonorepoSpec(800, 50))
    for tree in ("repo", "mono"):
        root_rules = (tmp_path / tree / ".gitignore").read_text()
        assert root_rules.startswith(make_trees.TEMPLATE_RULES)
        nested = [p for p in (tmp_path / tree).rglob(".gitignore") if p.parent != tmp_path / tree]
        assert {p.read_text() for p in nested} & set(make_trees.NESTED_RULES), tree


def test_a_run_that_hangs_is_killed_at_the_timeout(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import run as bench_run
    finally:
        sys.path.remove(str(BENCH))
    hang = bench_run.Case(
        group="g",
        key="k",
        label="sleep",
        role="floor",
        argv=("sh", "-c", "sleep 30"),
        cwd=tmp_path,
        producer=("sh", "-c", "sleep 30"),
    )
    result = bench_run.run_once(hang, tmp_path, timeout=0.5)
    assert result.failure == "timed out after 0.5 s"
    assert result.seconds < 20  # killed, not waited for
    quick = bench_run.Case("g", "k", "true", "floor", ("sh", "-c", "echo hi"), tmp_path)
    done = bench_run.run_once(quick, tmp_path, timeout=30)
    assert done.failure is None
    assert done.out_bytes == 3


def test_a_quick_command_runs_more_often_than_a_slow_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import run as bench_run
    finally:
        sys.path.remove(str(BENCH))
    monkeypatch.setattr(bench_run, "QUICK_SECONDS", 0.3)
    quick = bench_run.Case("g", "q", "quick", "floor", ("sh", "-c", "true"), tmp_path)
    slow = bench_run.Case("g", "s", "slow", "floor", ("sh", "-c", "sleep 0.4"), tmp_path)
    rows = bench_run.measure_group([quick, slow], 2, tmp_path, timeout=30)
    assert [len(row.times) for row in rows] == [2 * bench_run.QUICK_RUNS, 2]
    assert all(row.status == "ok" and row.rss_kib > 0 for row in rows)
