"""The cost of ignore matching alone, in microseconds a path, at 10, 130 and about 300 patterns.

    python bench/ignore_match.py TREE [--repeat N] [--json] [--own NAME]

Asks readmany's matcher about every file and directory of TREE (one of the benchmark
trees), the way a walk does: each directory once, then its entries, with a root
`.gitignore` of the first 10, the first 130 and all of the template's patterns (see
ignore_rules.py) and the tree's own nested `.gitignore` files. A fresh matcher each
round: `setup` is reading and parsing the ignore files, `µs/path` the questions (which
include what is done once a directory and each expression's compiling on first use).
For reference, the same questions to `pathspec.GitIgnoreSpec` over the root file's rules
alone (one `match_file` a path), where pathspec is installed. `--own NAME` measures the
tree's own root `.gitignore` instead (one row named NAME), as for the babel-shaped tree.
Times are CPU time of this process, steadier than wall-clock time on a shared machine;
the median of the rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ignore_rules import TEMPLATE_RULES, first_patterns, pattern_count

IgnoreMatcherType = Callable[..., object]


def _matcher_class() -> IgnoreMatcherType:
    """readmany's IgnoreMatcher, wherever this version keeps it (older ones: readmany.ignore)."""
    try:
        from readmany.select.ignore import IgnoreMatcher
    except ImportError:
        from readmany.ignore import IgnoreMatcher  # type: ignore[import-not-found,no-redef]
    return IgnoreMatcher


def tree_paths(tree: Path) -> tuple[list[tuple[str, bool]], list[str]]:
    """Every directory (with whether it holds a `.gitignore`) and file below `tree`
    (relative, `/`-separated), `.git` left out."""
    directories: list[tuple[str, bool]] = []
    files: list[str] = []
    for top, dirs, names in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        rel = os.path.relpath(top, tree).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        directories.append((prefix.rstrip("/"), ".gitignore" in names))
        files.extend(prefix + n for n in sorted(names))
    return directories, files


def _copy_ignore_files(tree: Path, into: Path, root_rules: str) -> None:
    """A tree of empty directories holding `tree`'s nested `.gitignore` files, and
    `root_rules` as its root one."""
    (into / ".git").mkdir(parents=True)
    for top, dirs, names in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".git"]
        rel = os.path.relpath(top, tree)
        if rel != "." and ".gitignore" in names:
            (into / rel).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(Path(top) / ".gitignore", into / rel / ".gitignore")
    (into / ".gitignore").write_text(root_rules)


def time_readmany(
    root: Path, directories: Sequence[tuple[str, bool]], files: Sequence[str]
) -> tuple[float, float]:
    """Seconds to set a new matcher up (read the ignore files), and for one walk's worth
    of questions."""
    matcher_class = _matcher_class()
    started = time.process_time()
    matcher = matcher_class(str(root))
    note_directory = matcher.note_directory  # type: ignore[attr-defined]
    for directory, has_gitignore in directories:
        note_directory(directory, has_gitignore)  # what a walk knows from the listing
    set_up = time.process_time()
    is_ignored = matcher.is_ignored  # type: ignore[attr-defined]
    for directory, _ in directories:
        if directory:
            is_ignored(directory, True)
    for file in files:
        is_ignored(file, False)
    return set_up - started, time.process_time() - set_up


def time_pathspec(
    rules: str, directories: Sequence[tuple[str, bool]], files: Sequence[str]
) -> tuple[float, float] | None:
    """The same for pathspec (root rules only), or None without it."""
    try:
        import pathspec
    except ImportError:
        return None
    started = time.process_time()
    spec = pathspec.GitIgnoreSpec.from_lines(rules.splitlines())
    set_up = time.process_time()
    match = spec.match_file
    for directory, _ in directories:
        if directory:
            match(directory + "/")
    for file in files:
        match(file)
    return set_up - started, time.process_time() - set_up


def measure(
    tree: Path, repeat: int, own: str | None = None
) -> list[dict[str, str | float | int | None]]:
    """The rows: the template's first 10, first 130 and all patterns as `tree`'s root
    rules; with `own`, one row of `tree`'s own root `.gitignore` instead, named `own`."""
    directories, files = tree_paths(tree)
    questions = len(directories) - 1 + len(files)
    results: list[dict[str, str | float | int | None]] = []
    rule_sets: list[tuple[str, str]] = [
        (f"template, first {count}", first_patterns(count)) for count in (10, 130)
    ]
    rule_sets.append(("template, all", TEMPLATE_RULES))
    if own is not None:
        rule_sets = [(own, (tree / ".gitignore").read_text())]
    for name, rules in rule_sets:
        with tempfile.TemporaryDirectory(prefix="readmany-ignore-bench-") as scratch:
            root = Path(scratch)
            _copy_ignore_files(tree, root, rules)
            ours = [time_readmany(root, directories, files) for _ in range(repeat)]
        theirs = [time_pathspec(rules, directories, files) for _ in range(repeat)]
        known = [t for t in theirs if t is not None]
        results.append(
            {
                "rules": name,
                "patterns": pattern_count(rules),
                "paths": questions,
                "readmany_setup_ms": statistics.median(t[0] for t in ours) * 1e3,
                "readmany_us": statistics.median(t[1] for t in ours) / questions * 1e6,
                "pathspec_setup_ms": statistics.median(t[0] for t in known) * 1e3
                if known
                else None,
                "pathspec_us": statistics.median(t[1] for t in known) / questions * 1e6
                if known
                else None,
            }
        )
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("tree", type=Path, help="a benchmark tree (bench/make_trees.py)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--json", action="store_true", help="print JSON, not a table")
    parser.add_argument(
        "--own",
        metavar="NAME",
        help="one row, NAME, of the tree's own root .gitignore instead of the template's",
    )
    args = parser.parse_args(argv)
    results = measure(args.tree, max(1, args.repeat), args.own)
    if args.json:
        sys.stdout.write(json.dumps(results) + "\n")
        return 0
    sys.stdout.write(
        "| rules | root patterns | paths | readmany setup ms | readmany µs/path "
        "| pathspec setup ms | pathspec µs/path |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    )
    for row in results:
        cells = [
            "—" if row[key] is None else f"{row[key]:.2f}"
            for key in ("readmany_setup_ms", "readmany_us", "pathspec_setup_ms", "pathspec_us")
        ]
        sys.stdout.write(
            f"| {row['rules']} | {row['patterns']} | {row['paths']} | " + " | ".join(cells) + " |\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
