"""Reading the staged files: `select.git.staged`, `read.gitcontent` + one `cat-file --batch`.

The floor is `git ls-files -z` and a Python loop that opens and reads each listed file
from the work tree. Both run in this process, on the benchmark's repository tree with
every file staged (an unborn `HEAD`, so the whole index is new): with the objects loose
as `git add` leaves them, then packed, then with every work-tree file edited after
staging (so that every blob comes from `cat-file`).

    python bench/git_staged.py [--out DIR] [--files N] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_trees import GIT_ENV, RepoSpec, build_repo_tree

from readmany.read.gitcontent import index_blobs
from readmany.select.git import staged


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def read_staged(root: str) -> tuple[int, int]:
    files = size = 0
    with index_blobs(staged(root)) as blobs:
        for blob in blobs:
            files += 1
            size += len(blob.read())
    return files, size


def _listed(root: str) -> list[bytes]:
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    return [name for name in listing.stdout.split(b"\0") if name]


def read_listed(root: str) -> tuple[int, int]:
    files = size = 0
    for name in _listed(root):
        with open(os.path.join(os.fsencode(root), name), "rb") as handle:
            size += len(handle.read())
        files += 1
    return files, size


def best_of(runs: int, work: Callable[[str], tuple[int, int]], root: str) -> tuple[float, float]:
    """The median and the fastest of `runs` timed calls, after one untimed call."""
    work(root)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work(root)
        times.append(time.perf_counter() - started)
    return statistics.median(times), min(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--files", type=int, default=RepoSpec.files)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)
    root = args.out / ".trees" / "staged-repo"
    if root.exists():
        shutil.rmtree(root)
    build_repo_tree(root, RepoSpec(args.files))
    shutil.rmtree(root / ".git")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    listed, staged_ = read_listed(str(root)), read_staged(str(root))
    assert listed == staged_, (listed, staged_)
    sys.stdout.write(f"{listed[0]} staged files, {listed[1] / 2**20:.1f} MiB\n")
    for state in ("loose", "packed", "edited"):
        if state == "packed":
            _git(root, "repack", "-a", "-d", "-q")
        elif state == "edited":
            for name in _listed(str(root)):
                with open(os.path.join(os.fsencode(root), name), "ab") as handle:
                    handle.write(b"\n")
        ours = best_of(args.runs, read_staged, str(root))
        floor = best_of(args.runs, read_listed, str(root))
        sys.stdout.write(
            f"{state}: staged+cat-file {ours[0] * 1000:.1f} ms (best {ours[1] * 1000:.1f}), "
            f"ls-files+read {floor[0] * 1000:.1f} ms (best {floor[1] * 1000:.1f}), "
            f"ratio {ours[0] / floor[0]:.2f} (best {ours[1] / floor[1]:.2f})\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
