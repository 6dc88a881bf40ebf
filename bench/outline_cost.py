"""What an outline costs (readmany/read/outline.py), per file and per MB, by language.

    python bench/outline_cost.py ROOT [ROOT ...] [--runs 3]

Reads every file under the roots whose extension a grammar reads (and Markdown), then
times `outline(path, text)` over them in CPU time, after one untimed run (the grammars'
import and first parse), and prints per language: files, MB, microseconds a file, ms a
MB, and the outline's size against the file's (bytes, and o200k tokens when the tokens
extra is installed). The first run's cost (loading a grammar) is printed apart.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from readmany.read.outline import EXTENSIONS, MARKDOWN_EXTENSIONS, outline, render

SKIP_DIRS = {".git", "node_modules", ".venv", "__pycache__"}


def sources(roots: list[Path]) -> list[tuple[str, str, str]]:
    """(language, path, text) of each file a grammar (or the Markdown rule) reads."""
    found: list[tuple[str, str, str]] = []
    for root in roots:
        for directory, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(names):
                extension = name.rpartition(".")[2].lower() if "." in name else ""
                language = EXTENSIONS.get(extension) or (
                    "markdown" if extension in MARKDOWN_EXTENSIONS else None
                )
                if language is None:
                    continue
                path = os.path.join(directory, name)
                try:
                    with open(path, encoding="utf-8") as handle:
                        text = handle.read()
                except (OSError, UnicodeDecodeError):
                    continue
                found.append((language, os.path.relpath(path, root), text))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    files = sources(args.roots)
    try:
        from readmany.tokenizer import counter

        count = counter("o200k")
    except Exception:  # the tokens extra is not installed: sizes in bytes only
        count = None
    by_language: dict[str, list[tuple[str, str]]] = {}
    for language, path, text in files:
        by_language.setdefault(language, []).append((path, text))
    print(
        "| language | files | MB | us a file | ms a MB | first use (ms) "
        "| outline / file, bytes | tokens |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    total_time = total_files = total_bytes = 0.0
    for language, group in sorted(by_language.items()):
        start = time.process_time()
        outline(*group[0])  # the grammar's import and first parse
        first = time.process_time() - start
        best = float("inf")
        for _ in range(args.runs):
            start = time.process_time()
            shown = [outline(path, text) for path, text in group]
            best = min(best, time.process_time() - start)
        size = sum(len(text.encode()) for _, text in group)
        rendered = [render(o) if o is not None else "" for o in shown]
        ratio_bytes = sum(len(r.encode()) for r in rendered) / max(size, 1)
        tokens = "-"
        if count is not None:
            real = sum(count(text) for _, text in group)
            tokens = f"{sum(count(r) for r in rendered) / max(real, 1):.1%}"
        print(
            f"| {language} | {len(group)} | {size / 1e6:.2f} | {best / len(group) * 1e6:.0f} "
            f"| {best / max(size / 1e6, 1e-9) * 1e3:.0f} | {first * 1e3:.1f} "
            f"| {ratio_bytes:.1%} | {tokens} |"
        )
        total_time += best
        total_files += len(group)
        total_bytes += size
    print(
        f"\nall: {total_files:.0f} files, {total_bytes / 1e6:.1f} MB: "
        f"{total_time / max(total_files, 1) * 1e6:.0f} us a file, "
        f"{total_time / max(total_bytes / 1e6, 1e-9) * 1e3:.0f} ms a MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
