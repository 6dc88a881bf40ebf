"""What ranking a selection costs (readmany/rank.py), beside a plain `glob '**'`.

    python bench/rank_cost.py [--files 5000] [--runs 5] [--out DIR]

Builds (once, seeded) a tree of about `--files` files shaped like a repository of several
languages: packages of Python, TypeScript, Rust and Go modules that import each other and
a central module, tests, docs, examples, fixtures, a lock file, licenses, CI files and
large data files. Then it times, in CPU time (user + system), `readmany glob '**'` on it
(a whole process) and `rank()` over the same selection with each file's first
`SAMPLE_CHARS` characters (what a budget's planner has read already; reading them is not
timed), and prints both per file: the ranking's cost is what a ranked budget adds.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from readmany.rank import SAMPLE_CHARS, rank

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "walk",
    "scan",
    "parse",
    "render",
    "store",
    "cache",
    "query",
    "index",
    "node",
    "tree",
]


def _body(rng: random.Random, lines: int, line: str) -> str:
    return "".join(line.format(w=rng.choice(WORDS), n=rng.randrange(1000)) for _ in range(lines))


def build_tree(root: Path, files: int, seed: int = 28) -> int:
    """Write the tree under `root`; the number of files written."""
    rng = random.Random(seed)
    out: dict[str, str] = {
        "README.md": "# proj\n" + _body(rng, 80, "The {w} step {n}.\n"),
        "pyproject.toml": "[project]\nname = 'proj'\n",
        "package.json": '{"name": "proj"}\n',
        "Cargo.toml": "[package]\nname = 'proj'\n",
        "go.mod": "module ex.com/proj\n",
        "LICENSE": _body(rng, 200, "Permission {w} granted {n}.\n"),
        "LICENSE-APACHE": _body(rng, 200, "Apache {w} {n}.\n"),
        "uv.lock": _body(rng, 4000, "[[package]]\nname = '{w}{n}'\n"),
        "package-lock.json": _body(rng, 4000, '"{w}{n}": "1.0.{n}",\n'),
        "Cargo.lock": _body(rng, 2000, 'name = "{w}{n}"\n'),
        ".github/workflows/ci.yml": _body(rng, 40, "  - run: make {w}\n"),
        "proj/core.py": '"""The core."""\n' + _body(rng, 400, "def {w}_{n}(x):\n    return x\n"),
        "web/src/core.ts": _body(rng, 300, "export const {w}{n} = {n};\n"),
        "src/core.rs": _body(rng, 300, "pub fn {w}_{n}() {{}}\n"),
        "src/main.rs": "mod core;\nmod cli;\nuse crate::core::walk;\nfn main() {}\n",
        "src/cli.rs": "use crate::core;\n" + _body(rng, 100, "// {w} {n}\n"),
        "cmd/main.go": 'package main\n\nimport (\n\t"fmt"\n\t"ex.com/proj/core"\n)\n',
        "core/core.go": "package core\n" + _body(rng, 200, "func F{n}() {{}}\n"),
    }
    packages = max(1, files // 50)
    for p in range(packages):
        name = f"{WORDS[p % len(WORDS)]}{p}"
        for m in range(14):
            size = int(rng.lognormvariate(3.5, 1.0)) + 5
            imports = f"from proj import core\nfrom proj.{name} import m{(m + 1) % 14}\nimport os\n"
            out[f"proj/{name}/m{m}.py"] = imports + _body(rng, size, "def {w}{n}(a):\n    pass\n")
        for m in range(8):
            imports = f"import {{ a }} from '../core';\nimport {{ b }} from './c{(m + 3) % 8}';\n"
            out[f"web/src/{name}/c{m}.ts"] = imports + _body(
                rng, int(rng.lognormvariate(3.0, 1.0)) + 5, "export function {w}{n}() {{}}\n"
            )
        for m in range(6):
            out[f"src/{name}/r{m}.rs"] = "use crate::core::walk;\n" + _body(
                rng, int(rng.lognormvariate(3.0, 1.0)) + 5, "fn {w}_{n}() {{}}\n"
            )
        for m in range(4):
            out[f"core/{name}/g{m}.go"] = (
                f'package {name}\n\nimport (\n\t"ex.com/proj/core"\n)\n'
                + _body(rng, 30, "func {w}{n}() {{}}\n")
            )
        for m in range(8):
            out[f"tests/{name}/test_m{m}.py"] = f"from proj.{name} import m{m}\n" + _body(
                rng, 30, "def test_{w}{n}():\n    assert True\n"
            )
        out[f"docs/{name}.md"] = _body(rng, 60, "The {w} of {n}.\n")
        for m in range(8):
            out[f"tests/fixtures/{name}/case{m}.txt"] = f"input {m}\n"
        out[f"assets/{name}.svg"] = "<svg>" + _body(rng, 800, "<path d='M{n}'/>\n") + "</svg>\n"
    for rel, text in out.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return len(out)


def selection(root: Path) -> list[str]:
    """The tree's files in `glob`'s order (sorted by path), as a planner would have them."""
    found: list[str] = []
    for directory, dirs, names in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(directory, root)
        for name in names:
            found.append(name if rel == "." else f"{rel}/{name}")
    return sorted(found)


def cpu_of_glob(root: Path) -> float:
    """CPU seconds (user + system) of one `readmany glob '**'` on `root`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "readmany", "glob", "**"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_of_rank(paths: list[str], sizes: list[int], samples: list[str | None]) -> float:
    start = time.process_time()
    rank(paths, sizes, samples=samples)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / ".rank")
    args = parser.parse_args(argv)
    root = args.out / str(args.files)
    if not root.exists():
        build_tree(root, args.files)
    paths = selection(root)
    sizes = [(root / p).stat().st_size for p in paths]
    samples: list[str | None] = []
    for rel in paths:
        with open(root / rel, encoding="utf-8", errors="replace") as handle:
            samples.append(handle.read(SAMPLE_CHARS))
    ranks = sorted(cpu_of_rank(paths, sizes, samples) for _ in range(args.runs))
    globs = sorted(cpu_of_glob(root) for _ in range(args.runs))
    count = len(paths)
    print(f"tree: {count} files, {sum(sizes) / 1e6:.1f} MB ({root})")
    print(f"readmany glob '**': {globs[0] / count * 1e6:.1f} us CPU a file (best of {args.runs})")
    print(
        f"rank(), samples of {SAMPLE_CHARS} characters: {ranks[0] / count * 1e6:.1f} us CPU a file"
    )
    print(f"  median of {args.runs}: {ranks[len(ranks) // 2] / count * 1e6:.1f} us a file")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
