"""How a count of merges (`merges.count`) bounds the real count: `tokens.SPLIT_ERROR`.

    python scripts/fit_merge_bound.py ROOT [ROOT ...]

Needs the tokens extra (bpe-openai). For each text file under each ROOT (a git work
tree's tracked files, else every file; UTF-8, not over 1 MB, no NUL), its real
o200k_base count is set against the bound a budget takes of its `merges.count`,

    known + other + (1 + SPLIT_ERROR) * split

and printed, by root and in all: the files counted, those over their bound, the most
real / count, and how full a budget of that bound is for a file alone (real / bound
at the 1st, 10th and 50th percentile of files of 1,000 tokens or more).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from readmany.merges import MergedCount
from readmany.merges import count as count_merged
from readmany.tokenizer import counter
from readmany.tokens import SPLIT_ERROR

MAX_BYTES = 1 << 20


def paths(root: Path) -> list[Path]:
    if (root / ".git").exists():
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True
        ).stdout.decode("utf-8", "surrogateescape")
        return [root / name for name in sorted(listed.split("\0")) if name]
    found = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in {".git", "__pycache__", "node_modules"})
        found += [Path(directory) / name for name in sorted(names)]
    return found


def texts(root: Path) -> list[tuple[str, str]]:
    found = []
    for path in paths(root):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if not data or len(data) > MAX_BYTES or b"\0" in data:
            continue
        try:
            found.append((str(path.relative_to(root)), data.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return found


def bound(merged: MergedCount) -> float:
    return merged.known + merged.other + (1 + SPLIT_ERROR) * merged.split


def report(name: str, rows: list[tuple[int, MergedCount]]) -> str:
    over = sum(real > bound(merged) for real, merged in rows)
    most = max((real / merged.tokens for real, merged in rows if merged.tokens), default=0.0)
    full = sorted(real / bound(merged) for real, merged in rows if real >= 1000)
    fill = " ".join(f"{full[int(len(full) * at)]:.3f}" for at in (0.01, 0.1, 0.5)) if full else ""
    return f"| {name} | {len(rows)} | {over} | {most:.3f} | {fill} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    args = parser.parse_args()
    count = counter("o200k")
    every: list[tuple[int, MergedCount]] = []
    print("| root | files counted | over the bound | most real / count | filled p1 p10 p50 |")
    print("| --- | ---: | ---: | ---: | --- |")
    for root in args.roots:
        rows = []
        for _, text in texts(root):
            rows.append((count(text), count_merged(text)))
        every += rows
        print(report(root.name, rows))
    print(report("all", every))


if __name__ == "__main__":
    main()
