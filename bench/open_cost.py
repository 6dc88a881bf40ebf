"""What opening a file costs: by its path, and beneath the root's descriptor.

Opens (and closes) every kept file of the benchmark's repository-like tree, in the walk's
order, both ways, and prints the cost of one open in microseconds: `open_regular(path)`
(the path walked by the kernel, links followed) against `Boundary.open(rel)` (one `openat`
a component with O_NOFOLLOW, directory descriptors reused).

    python bench/open_cost.py [--out DIR] [--files N] [--rounds N] [--tree DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_trees  # noqa: E402

from readmany.read.safe import Boundary, open_regular  # noqa: E402
from readmany.select.walk import sort_key  # noqa: E402


def _best(run: object, rounds: int) -> float:
    assert callable(run)
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "out", help="where the tree goes")
    parser.add_argument("--files", type=int, default=make_trees.RepoSpec.files)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--tree", type=Path, help="measure this tree instead of building one")
    args = parser.parse_args(argv)
    if args.tree is not None:
        root = args.tree.resolve()
    else:
        root = args.out / ".trees" / f"open-{args.files}" / "repo"
        make_trees.ensure_tree(root, make_trees.RepoSpec(args.files), make_trees.build_repo_tree)
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
    ).stdout.decode()
    rels = sorted((rel for rel in listed.split("\0") if rel), key=sort_key)
    paths = [os.path.join(root, rel) for rel in rels]

    def by_path() -> None:
        for path in paths:
            fd, _ = open_regular(path, listed_regular=True)
            os.close(fd)

    def beneath_root() -> None:
        with Boundary(str(root)) as boundary:
            for rel in rels:
                fd, _ = boundary.open(rel)
                os.close(fd)

    by_path()  # warm the dentry cache
    before = _best(by_path, args.rounds) / len(rels) * 1e6
    after = _best(beneath_root, args.rounds) / len(rels) * 1e6
    print(f"tree: {root} ({len(rels)} files)")
    print(f"open_regular(path):  {before:5.2f} us a file")
    print(f"Boundary.open(rel):  {after:5.2f} us a file ({after - before:+.2f} us)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
