"""The benchmark harness runs end to end on tiny trees and reports every row and target."""

from __future__ import annotations

import resource
import shlex
import shutil
import subprocess
import sys
import time
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
    ("sparse", "git ls-files -z \\| xargs -0 cat"),
    ("sparse", "git ls-files -z \\| python minimal_cat.py"),
    ("sparse", "readmany glob '**'"),
    ("sparse", "git ls-files -z \\| readmany glob --stdin -0"),
    ("babel-like", "git ls-files -z \\| xargs -0 cat"),
    ("babel-like", "git ls-files -z \\| python minimal_cat.py"),
    ("babel-like", "readmany glob '**'"),
    ("babel-like", "git ls-files -z \\| readmany glob --stdin -0"),
    ("babel-like", "readmany glob . --stats"),
    ("babel-like", "readmany glob . --max-tokens 100000"),
    ("numpy-like", "git ls-files -z \\| xargs -0 cat"),
    ("numpy-like", "git ls-files -z \\| python minimal_cat.py"),
    ("numpy-like", "readmany glob '**'"),
    ("numpy-like", "git ls-files -z \\| readmany glob --stdin -0"),
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
TREES = ["repo", "repo x10", "monorepo", "sparse", "babel-like", "numpy-like"]
for _tree in TREES:
    EXPECTED_TARGETS += [
        f"{_tree}: CPU of `readmany glob '**'` vs minimal Python",
        f"{_tree}, busy: `readmany glob '**'` vs floor",
        f"{_tree}: CPU of `--stdin -0` vs minimal Python",
        f"{_tree}, busy: `--stdin -0` vs floor",
        f"{_tree}: peak RSS of `readmany glob '**'`",
    ]
for _tree in ("repo", "babel-like"):
    EXPECTED_TARGETS += [
        f"{_tree}: CPU of `--stats` over `glob '**'`, a file",
        f"{_tree}: peak RSS of `--stats`",
        f"{_tree}: CPU of `--max-tokens 100000` over `glob '**'`, a file",
        f"{_tree}: peak RSS of `--max-tokens 100000`",
    ]
MATCHING_RULES = [
    "template, first 10",
    "template, first 130",
    "template, all",
    "babel-like's own",
    "numpy-like's own",
]
EXPECTED_TARGETS += [f"ignore matching, {rules}" for rules in MATCHING_RULES]


def _table(text: str, heading: str) -> list[list[str]]:
    """The cells of the markdown table under `## heading`, without its header rows."""
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][2:]
    # Split on cell borders, not on the escaped `\|` inside commands.
    return [
        [cell.strip().replace("\0", "\\|") for cell in row.replace("\\|", "\0").split("|")[1:-1]]
        for row in rows
    ]


@pytest.mark.slow  # the whole harness: every row idle, then again with a core kept busy
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
    # Each tree's rows ran idle and busy, with their CPU time; one file and start-up idle.
    section = written.split("## Timings\n", 1)[1]
    header = next(line for line in section.splitlines() if line.startswith("| tree |"))
    columns = [cell.strip() for cell in header.split("|")[1:-1]]
    for row in timings:
        if row[-1] != "ok":
            continue
        cells = dict(zip(columns, row, strict=True))
        assert float(cells["CPU s"]) > 0, row
        if row[0] in TREES:
            assert float(cells["busy median s"]) > 0 and float(cells["busy CPU s"]) > 0, row
        else:
            assert cells["busy median s"] == "—", row

    targets = _table(written, "Targets")
    assert [row[0] for row in targets] == EXPECTED_TARGETS
    for row in targets:
        assert row[3] in ("PASS", "FAIL") or row[3].startswith("N/A: "), row

    trees = _table(written, "Trees")
    assert [row[0].split(" (")[0] for row in trees] == TREES
    assert [row[1] for row in trees][:3] == ["40", "400", "200"]
    assert [row[3] for row in trees][2] == "100"

    # Ignore matching at a small project's, numpy's and the template's number of patterns,
    # and the babel- and numpy-like trees' own rules.
    matching = _table(written, "Ignore matching")
    assert [row[0] for row in matching] == MATCHING_RULES
    assert [row[1] for row in matching][:3] == ["10", "130", str(TEMPLATE_PATTERNS)]
    for row in matching:
        assert int(row[2]) > 40 and all(float(cell) > 0 for cell in row[3:]), row


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
    assert [len(row.busy.seconds) for row in rows] == [2 * bench_run.QUICK_RUNS, 2]
    assert all(row.status == "ok" and row.rss_kib > 0 for row in rows)


def test_cpu_time_counts_the_processes_a_command_waited_for(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import run as bench_run
    finally:
        sys.path.remove(str(BENCH))
    spin = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
    # The spinning grandchild is waited for by its shell, not by the benchmark.
    argv = ("sh", "-c", f"{shlex.quote(sys.executable)} -c {shlex.quote(spin)}; sleep 0.3")
    case = bench_run.Case("g", "k", "spin", "floor", argv, tmp_path)
    done = bench_run.run_once(case, tmp_path, timeout=30)
    assert done.failure is None
    assert 0.3 <= done.cpu < done.seconds, done


def test_the_busy_machine_has_a_process_on_a_core_and_stops_it(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import run as bench_run
    finally:
        sys.path.remove(str(BENCH))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with bench_run.busy_machine():
        time.sleep(0.5)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # reaped: counted here
    assert after.ru_utime - before.ru_utime > 0.05
