"""What `glob --max-tokens` costs beside a plain `glob '**'`: ranking, and the tokenizer.

    python bench/budget_cost.py [--out DIR] [--runs 5] [--budget 100000] [--quick]

On the benchmark's realistic trees (`make_trees.py`: the repository-like tree and the
numpy-like one, built once and reused) and on the ranking's tree of several languages
(`rank_cost.py`), it runs, alternately (A B C D A B C D ...) so that the machine's load
falls on each alike, whole `readmany` processes:

- `glob '**'` (the baseline: every file written);
- `glob '**' --max-tokens N --order smallest --tokenizer estimate` (a budget, no ranking);
- `... --order rank --tokenizer estimate` (ranking);
- `... --order rank --tokenizer o200k` (ranking, and the output counted and trimmed:
  `tokenizer.fit`; needs the tokens extra).

It prints the median CPU time (user + system of the process) and wall time of each, and
what each step adds: ranking over the unranked budget, per file of the selection; the
tokenizer over the estimate, per file and per MB of output written (what it counts, once
a render: `details.tokenizer.renders`).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from make_trees import NumpySpec, RepoSpec, build_numpy_tree, build_repo_tree, ensure_tree
from rank_cost import build_tree as build_rank_tree

VARIANTS = {
    "glob '**'": [],
    "budget, smallest": ["--order", "smallest", "--tokenizer", "estimate"],
    "budget, rank": ["--order", "rank", "--tokenizer", "estimate"],
    "budget, rank, o200k": ["--order", "rank", "--tokenizer", "o200k"],
}


def run_once(root: Path, extra: list[str], budget: int) -> tuple[float, float, dict[str, object]]:
    """CPU and wall seconds of one `readmany glob '**' ...` in `root`, and its details."""
    argv = [sys.executable, "-m", "readmany", "glob", "**", "-q"]
    if extra:
        argv += ["--max-tokens", str(budget), *extra, "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=root, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)}: {done.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    details: dict[str, object] = {}
    if extra:
        value = json.loads(done.stdout)
        details = value["details"]
        details["contentBytes"] = len(value["content"].encode("utf-8", "surrogatepass"))
    return cpu, wall, details


def selected(root: Path) -> list[Path]:
    """The files `glob '**'` selects: git's, in a work tree (the ignored are not read)."""
    if (root / ".git").exists():
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
        ).stdout
        return [
            root / name for name in listed.decode("utf-8", "surrogateescape").split("\0") if name
        ]
    return [p for p in root.rglob("*") if p.is_file()]


def measure(root: Path, runs: int, budget: int) -> None:
    files = selected(root)
    count = len(files)
    cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
    wall: dict[str, list[float]] = {name: [] for name in VARIANTS}
    said: dict[str, dict[str, object]] = {}
    for _ in range(runs):
        for name, extra in VARIANTS.items():
            c, w, details = run_once(root, extra, budget)
            cpu[name].append(c)
            wall[name].append(w)
            said[name] = details
    median = {name: statistics.median(values) for name, values in cpu.items()}
    print(f"## {root.name}: {count} files, {sum(f.stat().st_size for f in files) / 1e6:.1f} MB\n")
    print("| run | CPU s (median) | wall s (median) |\n| --- | ---: | ---: |")
    for name in VARIANTS:
        print(f"| {name} | {median[name]:.3f} | {statistics.median(wall[name]):.3f} |")
    rank = median["budget, rank"] - median["budget, smallest"]
    budget_cost = median["budget, smallest"] - median["glob '**'"]
    tokenizer = median["budget, rank, o200k"] - median["budget, rank"]
    fitted = said["budget, rank, o200k"]
    fit = fitted.get("tokenizer")
    renders = int(fit.get("renders", 1)) if isinstance(fit, dict) else 1
    size = fitted.get("contentBytes", 0)
    written = (size if isinstance(size, int) else 0) / 1e6
    counted = written * int(renders)
    print()
    print(f"- a budget (unranked) over `glob '**'`: {budget_cost / count * 1e6:+.1f} us CPU a file")
    print(f"- ranking over the unranked budget: {rank / count * 1e6:+.1f} us CPU a file")
    print(
        f"- the o200k tokenizer over the estimate: {tokenizer / count * 1e6:+.1f} us CPU a file, "
        f"{tokenizer / max(counted, 1e-9) * 1e3:.0f} ms a MB counted ({renders} renders of "
        f"{written:.2f} MB)\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / ".budget")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="smaller trees, 3 runs")
    args = parser.parse_args(argv)
    scale = 5 if args.quick else 1
    runs = 3 if args.quick else args.runs
    repo, _, _ = ensure_tree(args.out / "repo", RepoSpec(5000 // scale), build_repo_tree)
    numpy, _, _ = ensure_tree(args.out / "numpy", NumpySpec(2400 // scale), build_numpy_tree)
    ranked = args.out / f"ranked-{5000 // scale}"
    if not ranked.exists():
        build_rank_tree(ranked, 5000 // scale)
    del repo, numpy
    for root in (args.out / "repo", args.out / "numpy", ranked):
        measure(root, runs, args.budget)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
