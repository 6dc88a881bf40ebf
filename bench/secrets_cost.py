"""What scanning contents for secrets costs: `readmany glob '**'` with the scan and without.

Both runs are whole processes over the benchmark's repository-like tree (3,000 files, built
by `make_trees.py`). With `--secrets` in the command line, its `warn` and `off` are
compared; before that, the scan is put in by a wrapper that runs `readmany.read.secrets.scan`
on every text a read returns and writes a warning line for each finding, as `warn` does.
The wrapper runs both sides, so that only the scan differs. Also printed: the scan alone,
in this process, over the same texts.

    python bench/secrets_cost.py [--out DIR] [--files N] [--runs N] [--tree DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_trees  # noqa: E402

# Runs readmany in this interpreter; with SCAN=1 every text read is scanned first.
_WRAPPER = """
import os, sys
if os.environ.get("SCAN") == "1":
    import readmany.read.glob_file as matched
    from readmany.read.secrets import scan
    plain = matched.read_matched
    def read_matched(path, rel, shown, requested, **options):
        result = plain(path, rel, shown, requested, **options)
        if isinstance(result, matched.TextFile):
            for finding in scan(result.text.body):
                sys.stderr.write(f"readmany: {shown}:{finding.line}: {finding.rule}\\n")
        return result
    matched.read_matched = read_matched
from readmany.__main__ import entry
sys.argv[0] = "readmany"
entry()
"""


def _has_secrets_option() -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "readmany", "glob", "--help"], capture_output=True, text=True
    )
    return "--secrets" in done.stdout


def _time(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, the walking helper's included) of one run."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = 0  # reaped above
    return wall, usage.ru_utime + usage.ru_stime


def _texts(root: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
    ).stdout
    texts = []
    for rel in listed.decode().split("\0"):
        if not rel or not (root / rel).is_file():
            continue  # a submodule is listed as a directory
        data = (root / rel).read_bytes()
        if b"\0" in data[:8000]:
            continue
        texts.append(data.decode("utf-8", "replace"))
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "out", help="where the tree goes")
    parser.add_argument("--files", type=int, default=make_trees.RepoSpec.files)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tree", type=Path, help="measure this tree instead of building one")
    args = parser.parse_args(argv)

    if args.tree is not None:
        root = args.tree.resolve()
    else:
        root = args.out / ".trees" / f"secrets-{args.files}" / "repo"
        make_trees.ensure_tree(root, make_trees.RepoSpec(args.files), make_trees.build_repo_tree)

    base = {k: v for k, v in os.environ.items() if k != "SCAN"}
    if _has_secrets_option():
        how = "--secrets warn / off"
        sides = {
            "off": (
                [sys.executable, "-m", "readmany", "glob", "-q", "--secrets", "off", "**"],
                base,
            ),
            "warn": (
                [sys.executable, "-m", "readmany", "glob", "-q", "--secrets", "warn", "**"],
                base,
            ),
        }
    else:
        how = "the wrapper (no --secrets option yet)"
        command = [sys.executable, "-c", _WRAPPER, "glob", "-q", "**"]
        sides = {"off": (command, {**base, "SCAN": "0"}), "warn": (command, {**base, "SCAN": "1"})}

    for side in sides.values():  # warm the page cache and the pattern cache
        _time(side[0], root, side[1])
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    for _ in range(args.runs):
        for name, (command, env) in sides.items():  # interleaved: drift hits both alike
            times[name].append(_time(command, root, env))

    from readmany.read.secrets import scan

    texts = _texts(root)
    size = sum(len(text) for text in texts)
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for text in texts:
            scan(text)
        best = min(best, time.perf_counter() - started)

    print(f"tree: {root} ({len(texts)} text files, {size / 2**20:.1f} MiB of text)")
    print(f"compared: {how}, {args.runs} runs each, medians")
    for index, what in enumerate(("wall", "cpu")):
        off, warn = (statistics.median(t[index] for t in times[name]) for name in ("off", "warn"))
        print(
            f"{what:4s}  off {off * 1000:7.1f} ms  warn {warn * 1000:7.1f} ms  "
            f"({(warn / off - 1) * 100:+.1f}%)"
        )
    print(
        f"scan alone, in process: {best * 1000:.1f} ms "
        f"({size / best / 2**20:.0f} MiB/s, {best / len(texts) * 1e6:.1f} us a file)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
