"""Deterministic benchmark trees, built locally from a seeded random generator.

Two kinds of tree, each a git work tree with one commit (so `git ls-files` lists the kept
files):

- a repository-like tree: source files of realistic sizes in nested directories, nested
  `.gitignore` files with ignored build output, logs, a virtualenv and a `node_modules`,
  editor and tool leftovers among the sources, and some images and binaries;
- a monorepo-scale tree: many small packages under `packages/`, plus a large `node_modules`
  that the root `.gitignore` ignores.

Each root `.gitignore` holds about 300 patterns in the style of the templates real
projects start from (see ignore_rules.py), and some directories have small ones of
their own, as in numpy.

The same spec always gives the same bytes, the same paths and the same commit id.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

from ignore_rules import BABEL_RULES, NESTED_RULES, TEMPLATE_RULES, first_patterns

# Bump when a generator changes, so that cached trees are rebuilt.
TREE_FORMAT = 3

ONE_FILE = "one.txt"

WORDS = (
    "alpha", "anchor", "batch", "buffer", "cache", "cursor", "delta", "draft", "event",
    "field", "filter", "frame", "gamma", "graph", "handle", "index", "kernel", "label",
    "ledger", "matrix", "merge", "node", "offset", "packet", "parse", "pivot", "queue",
    "range", "record", "render", "route", "sample", "scope", "shard", "signal", "slice",
    "socket", "store", "stream", "table", "token", "trace", "value", "vector", "window",
    "worker", "yield", "zone",
)  # fmt: skip

# (extension, weight, comment prefix) of the tracked text files in the repository-like tree.
SOURCE_KINDS = (
    (".py", 28, "#"),
    (".ts", 16, "//"),
    (".tsx", 6, "//"),
    (".js", 8, "//"),
    (".go", 6, "//"),
    (".rs", 5, "//"),
    (".c", 3, "//"),
    (".h", 3, "//"),
    (".md", 8, ""),
    (".json", 5, ""),
    (".yaml", 4, "#"),
    (".toml", 2, "#"),
    (".css", 3, "/*"),
    (".sh", 2, "#"),
    (".txt", 1, ""),
)

TOP_DIRS = ("src", "lib", "services", "web", "tools", "tests", "docs", "scripts", "pkg")

REPO_GITIGNORE = """\
# build output
/build/
dist/
*.log
*.tmp
.venv/
node_modules/
__pycache__/
coverage/
.env
"""

COMPONENT_GITIGNORE = """\
generated/
*.snap
!keep.snap
/local.json
"""

MONOREPO_GITIGNORE = """\
node_modules/
dist/
*.log
.turbo/
"""

PACKAGE_GITIGNORE = """\
coverage/
*.tsbuildinfo
"""

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


@dataclass(frozen=True)
class RepoSpec:
    """A repository-like tree: `files` tracked files, plus about a quarter as many ignored."""

    files: int = 3000
    seed: int = 1
    dir_files: int = 12  # tracked text files for each directory that holds sources


@dataclass(frozen=True)
class MonorepoSpec:
    """A monorepo: `kept_files` tracked files, plus `ignored_files` in `node_modules/`."""

    kept_files: int = 100_000
    ignored_files: int = 50_000
    seed: int = 2


@dataclass(frozen=True)
class TreeInfo:
    """What was built: counts and sizes of the kept (tracked) and ignored files."""

    kind: str
    kept_files: int
    kept_bytes: int
    ignored_files: int
    ignored_bytes: int
    one_file: str  # a small kept text file, relative to the root
    commit: str


class TreeWriter:
    """Writes files under a root and counts them as kept or ignored."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.kept_files = 0
        self.kept_bytes = 0
        self.ignored_files = 0
        self.ignored_bytes = 0
        self._made_dirs: set[str] = set()

    def write(self, relpath: str, data: bytes | str, *, ignored: bool = False) -> None:
        raw = data.encode() if isinstance(data, str) else data
        parent = os.path.dirname(relpath)
        if parent and parent not in self._made_dirs:
            os.makedirs(self.root / parent, exist_ok=True)
            self._made_dirs.add(parent)
        with open(self.root / relpath, "wb") as handle:
            handle.write(raw)
        if ignored:
            self.ignored_files += 1
            self.ignored_bytes += len(raw)
        else:
            self.kept_files += 1
            self.kept_bytes += len(raw)

    def info(self, kind: str, commit: str) -> TreeInfo:
        """What this writer wrote, as the tree built."""
        return TreeInfo(
            kind=kind,
            kept_files=self.kept_files,
            kept_bytes=self.kept_bytes,
            ignored_files=self.ignored_files,
            ignored_bytes=self.ignored_bytes,
            one_file=ONE_FILE,
            commit=commit,
        )


def _lognormal_size(rng: random.Random, median: int, sigma: float, low: int, high: int) -> int:
    return max(low, min(high, int(rng.lognormvariate(math.log(median), sigma))))


def _ident(rng: random.Random) -> str:
    return f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"


def _code_line(rng: random.Random, prefix: str) -> str:
    indent = "    " * rng.randrange(0, 4)
    shape = rng.randrange(8)
    a, b, c = _ident(rng), _ident(rng), _ident(rng)
    if shape == 0 and prefix:
        return f"{indent}{prefix} {a} keeps {b} within {rng.randrange(1, 999)} steps\n"
    if shape == 1:
        return f"{indent}{a} = {b}({c}, {rng.randrange(1000)})\n"
    if shape == 2:
        return f"{indent}if {a} > {b}.{c}:\n"
    if shape == 3:
        return f"{indent}return {a}.{b}({c!r})\n"
    if shape == 4:
        return "\n"
    if shape == 5:
        return f"{indent}for {a} in {b}.{c}():\n"
    if shape == 6:
        return f'{indent}{a}["{b}"] = {c} + {rng.random():.6f}\n'
    return f"{indent}def {a}({b}, {c}):\n"


def _prose_line(rng: random.Random) -> str:
    count = rng.randrange(4, 16)
    return " ".join(rng.choice(WORDS) for _ in range(count)).capitalize() + ".\n"


def _line_pool(rng: random.Random, prefix: str, prose: bool, count: int) -> list[str]:
    if prose:
        return [_prose_line(rng) for _ in range(count)]
    return [_code_line(rng, prefix) for _ in range(count)]


def _text_body(rng: random.Random, pool: Sequence[str], size: int, header: str) -> str:
    """About `size` bytes: a header line, then a run of consecutive lines from the pool."""
    parts = [header]
    total = len(header)
    index = rng.randrange(len(pool))
    while total < size:
        line = pool[index]
        parts.append(line)
        total += len(line)
        index = (index + 1) % len(pool)
    return "".join(parts)


def _png(rng: random.Random, size: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + rng.randbytes(max(0, size - 16))


def _jpeg(rng: random.Random, size: int) -> bytes:
    return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + rng.randbytes(max(0, size - 11))


def _binary(rng: random.Random, size: int) -> bytes:
    return b"\x7fELF\x02\x01\x01\x00" + rng.randbytes(max(0, size - 8))


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "gc.auto=0", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _commit_all(root: Path, out: TreeWriter) -> str:
    """Commit the tree; git must keep exactly the files written as kept."""
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--no-gpg-sign", "-m", "benchmark tree")
    tracked = _git(root, "ls-files", "-z").count("\0")
    if tracked != out.kept_files:
        raise RuntimeError(
            f"{root}: git tracks {tracked} files, the generator kept {out.kept_files}: "
            "an ignore rule and the tree disagree"
        )
    return _git(root, "rev-parse", "HEAD")


def _component_dirs(rng: random.Random, count: int) -> list[str]:
    dirs: list[str] = []
    for number in range(count):
        depth = rng.choice((1, 2, 2, 3, 3, 4))
        parts = [rng.choice(TOP_DIRS)]
        parts += [f"{rng.choice(WORDS)}{number % 7 if i == 0 else ''}" for i in range(depth - 1)]
        dirs.append("/".join(parts))
    return sorted(set(dirs))


def build_repo_tree(root: Path, spec: RepoSpec) -> TreeInfo:
    """A repository-like tree under `root` (which must not exist yet)."""
    rng = random.Random(spec.seed)
    root.mkdir(parents=True)
    out = TreeWriter(root)
    kinds = [kind for kind, _weight, _prefix in SOURCE_KINDS]
    weights = [weight for _kind, weight, _prefix in SOURCE_KINDS]
    prefixes = {kind: prefix for kind, _weight, prefix in SOURCE_KINDS}
    pools = {kind: _line_pool(rng, prefixes[kind], kind in (".md", ".txt"), 3000) for kind in kinds}

    out.write(".gitignore", TEMPLATE_RULES + "\n# This project\n" + REPO_GITIGNORE)
    out.write(ONE_FILE, _text_body(rng, pools[".txt"], 600, "A small file for one-file reads.\n"))
    out.write("README.md", _text_body(rng, pools[".md"], 6000, "# bench repository\n\n"))
    out.write(".github/workflows/ci.yml", _text_body(rng, pools[".yaml"], 1500, "name: ci\n"))
    out.write(".env", "SECRET=not-for-reading\n", ignored=True)
    out.write("package-lock.json", _text_body(rng, pools[".json"], 400_000, "{\n"))

    budget = max(1, spec.files - out.kept_files)
    image_count = max(1, budget // 60)
    binary_count = max(1, budget // 80)
    text_count = max(1, budget - image_count - binary_count)
    components = _component_dirs(rng, max(1, text_count // spec.dir_files))
    with_gitignore = components[:: max(1, len(components) // 20)]

    for number, component in enumerate(with_gitignore):
        variant = number % len(NESTED_RULES)
        out.write(f"{component}/.gitignore", NESTED_RULES[variant])
        if variant == 0:
            out.write(f"{component}/keep.snap", "re-included by a negated pattern\n")
            out.write(f"{component}/other.snap", "ignored snapshot\n", ignored=True)
            out.write(f"{component}/local.json", '{"local": true}\n', ignored=True)
            for index in range(3):
                body = _text_body(rng, pools[".ts"], 4000, "// generated\n")
                out.write(f"{component}/generated/gen_{index}.ts", body, ignored=True)
        elif variant == 1:
            out.write(f"{component}/fixtures/sample.out", "re-included below a `*.out`\n")
            out.write(f"{component}/_version.py", "version = '1.0'\n", ignored=True)
            out.write(f"{component}/12.tmp", "scratch\n", ignored=True)
            out.write(f"{component}/loops.c.src.out", "generated\n", ignored=True)
        else:
            out.write(f"{component}/_build/html/index.html", "<p>built</p>\n", ignored=True)
            out.write(f"{component}/objects.inv", "inventory\n", ignored=True)

    while out.kept_files < spec.files - image_count - binary_count:
        component = rng.choice(components)
        kind = rng.choices(kinds, weights)[0]
        name = f"{_ident(rng)}_{out.kept_files}{kind}"
        size = _lognormal_size(rng, 3000, 1.1, 40, 300_000)
        path = f"{component}/{name}"
        header = f"{prefixes[kind]} {path}\n" if prefixes[kind] else f"{path}\n"
        out.write(path, _text_body(rng, pools[kind], size, header))

    for index in range(image_count):
        size = _lognormal_size(rng, 20_000, 1.0, 200, 2_000_000)
        if index % 3:
            out.write(f"assets/img/picture_{index}.png", _png(rng, size))
        else:
            out.write(f"assets/img/photo_{index}.jpg", _jpeg(rng, size))
    for index in range(binary_count):
        size = _lognormal_size(rng, 30_000, 1.0, 100, 3_000_000)
        ext = (".so", ".dat", ".wasm", ".bin")[index % 4]
        out.write(f"vendor/native/blob_{index}{ext}", _binary(rng, size))

    _write_repo_ignored(rng, out, pools, components, max(4, spec.files // 4))
    return out.info("repo", _commit_all(root, out))


def _write_repo_ignored(
    rng: random.Random,
    out: TreeWriter,
    pools: dict[str, list[str]],
    components: Sequence[str],
    count: int,
) -> None:
    """Ignored files: build output, a venv and node_modules (which a walker prunes), and
    leftovers among the sources that each match a different kind of pattern."""
    leftovers = (
        "{ident}_{index}.pyc",  # *.py[codz]
        ".{ident}_{index}.py.swp",  # *.swp, [._]*.sw[a-p]
        "npm-debug.log.{index}",  # npm-debug.log*
        ".coverage.host{index}",  # .coverage.*
        "report.2024{index}.1200.{index}.0.json",  # report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json
        "{ident}_{index}.orig",  # *.orig
        "app_{index}.i686",  # *.i*86
        "#{ident}_{index}#",  # \#*\#
        ".#{ident}_{index}",  # .\#*
        "{ident}_{index}.ts~",  # *~
    )
    for index in range(count):
        where = index % 10
        if where >= 5:
            name = leftovers[(index // 10) % len(leftovers)].format(ident=_ident(rng), index=index)
            path = f"{rng.choice(components)}/{name}"
            out.write(path, _text_body(rng, pools[".txt"], 400, ""), ignored=True)
            continue
        if where == 0:
            path, kind, size = f"build/lib/{_ident(rng)}_{index}.py", ".py", 3000
        elif where == 1:
            package = f"{rng.choice(WORDS)}{index % 40}"
            path, kind, size = (
                f".venv/lib/python3.11/site-packages/{package}/m_{index}.py",
                ".py",
                2500,
            )
        elif where == 2:
            package = f"{rng.choice(WORDS)}-{index % 60}"
            path, kind, size = f"node_modules/{package}/lib/m_{index}.js", ".js", 1800
        elif where == 3:
            path, kind, size = f"{rng.choice(components)}/run_{index}.log", ".txt", 5000
        else:
            path, kind, size = f"web/dist/chunk_{index}.js", ".js", 20_000
        out.write(path, _text_body(rng, pools[kind], size, ""), ignored=True)


def build_monorepo_tree(root: Path, spec: MonorepoSpec) -> TreeInfo:
    """A monorepo under `root` (which must not exist yet): packages plus an ignored node_modules.

    File bodies come from a pool of a few thousand distinct texts, so that `git add` stays
    fast; readers still open, read and write every file.
    """
    rng = random.Random(spec.seed)
    root.mkdir(parents=True)
    out = TreeWriter(root)
    ts_pool = _line_pool(rng, "//", False, 4000)
    md_pool = _line_pool(rng, "", True, 2000)
    bodies = [
        _text_body(rng, ts_pool, _lognormal_size(rng, 1200, 0.9, 40, 64_000), "")
        for _ in range(max(1, min(2048, spec.kept_files // 8)))
    ]
    readmes = [
        _text_body(rng, md_pool, rng.randrange(300, 3000), "# package\n\n") for _ in range(64)
    ]

    out.write(".gitignore", TEMPLATE_RULES + "\n# This monorepo\n" + MONOREPO_GITIGNORE)
    out.write(ONE_FILE, _text_body(rng, md_pool, 600, "A small file for one-file reads.\n"))
    out.write("package.json", '{\n  "name": "bench-monorepo",\n  "private": true\n}\n')
    out.write("README.md", readmes[0])

    package = 0
    while out.kept_files < spec.kept_files:
        base = f"packages/{rng.choice(WORDS)}-{package:05d}"
        paths = [f"{base}/package.json", f"{base}/README.md", f"{base}/tsconfig.json"]
        if package % 10 == 0:
            paths.append(f"{base}/.gitignore")
        quota = min(rng.randrange(20, 80), spec.kept_files - out.kept_files)
        while len(paths) < quota:
            folder = ("src", "src", "src/lib", "src/util", "test")[rng.randrange(5)]
            paths.append(f"{base}/{folder}/{_ident(rng)}_{len(paths)}.ts")
        for path in paths[:quota]:
            name = path.rsplit("/", 1)[1]
            if name == "package.json":
                body = (
                    f'{{\n  "name": "@bench/{base.rsplit("/", 1)[1]}",\n  "version": "1.0.0"\n}}\n'
                )
            elif name == "README.md":
                body = rng.choice(readmes)
            elif name == ".gitignore":
                nested = (package // 10) % (len(NESTED_RULES) + 1)
                body = NESTED_RULES[nested - 1] if nested else PACKAGE_GITIGNORE
            elif name == "tsconfig.json":
                body = '{\n  "extends": "../../tsconfig.base.json"\n}\n'
            else:
                body = rng.choice(bodies)
            out.write(path, body)
        package += 1

    module = 0
    while out.ignored_files < spec.ignored_files:
        name = f"{rng.choice(WORDS)}-{module:05d}"
        base = f"node_modules/{name}"
        if module % 7 == 6:
            base = f"node_modules/{rng.choice(WORDS)}-{module - 1:05d}/node_modules/{name}"
        quota = min(rng.randrange(4, 16), spec.ignored_files - out.ignored_files)
        for index in range(quota):
            if index == 0:
                path, body = f"{base}/package.json", f'{{"name": "{name}"}}\n'
            elif index == 1:
                path, body = f"{base}/README.md", rng.choice(readmes)
            else:
                path, body = f"{base}/lib/{_ident(rng)}_{index}.js", rng.choice(bodies)
            out.write(path, body, ignored=True)
        module += 1

    return out.info("monorepo", _commit_all(root, out))


@dataclass(frozen=True)
class BabelSpec:
    """A monorepo of compiler plugins shaped like babel's: `files` tracked files, most of
    them test fixtures two or three to a directory, under `BABEL_RULES`."""

    files: int = 10_000
    seed: int = 4


def build_babel_tree(root: Path, spec: BabelSpec) -> TreeInfo:
    """A babel-shaped tree under `root` (which must not exist yet): packages with sources,
    built `lib/` output (ignored), fixtures of an input and an output a directory, some
    holding a `node_modules` that `!**/test/fixtures/**/node_modules` keeps, and an
    ignored root `node_modules`."""
    rng = random.Random(spec.seed)
    root.mkdir(parents=True)
    out = TreeWriter(root)
    js_pool = _line_pool(rng, "//", False, 3000)
    md_pool = _line_pool(rng, "", True, 1000)
    out.write(".gitignore", BABEL_RULES)
    out.write(ONE_FILE, _text_body(rng, md_pool, 600, "A small file for one-file reads.\n"))
    out.write("package.json", '{\n  "name": "babel-like",\n  "private": true\n}\n')
    out.write(".yarn/releases/yarn.cjs", _text_body(rng, js_pool, 20_000, "// yarn\n"))
    out.write(".yarn/cache/left.zip", "cache\n", ignored=True)
    package = 0
    while out.kept_files < spec.files:
        kind = ("plugin", "plugin", "preset", "helper", "runtime")[package % 5]
        base = f"packages/babel-{kind}-{rng.choice(WORDS)}-{package:04d}"
        out.write(f"{base}/package.json", f'{{"name": "@babel/{base[9:]}"}}\n')
        out.write(f"{base}/README.md", _text_body(rng, md_pool, 800, "# package\n\n"))
        for index in range(rng.randrange(1, 5)):
            body = _text_body(rng, js_pool, _lognormal_size(rng, 3000, 0.9, 200, 60_000), "")
            out.write(f"{base}/src/{_ident(rng)}_{index}.ts", body)
            out.write(f"{base}/lib/{_ident(rng)}_{index}.js", body, ignored=kind != "runtime")
        out.write(f"{base}/test/index.js", "runner();\n")
        for group in range(rng.randrange(1, 6)):
            group_dir = f"{base}/test/fixtures/{rng.choice(WORDS)}-{group}"
            for case in range(rng.randrange(2, 12)):
                case_dir = f"{group_dir}/{_ident(rng)}-{case}"
                size = _lognormal_size(rng, 300, 0.8, 20, 8000)
                out.write(f"{case_dir}/input.js", _text_body(rng, js_pool, size, ""))
                out.write(f"{case_dir}/output.js", _text_body(rng, js_pool, size, ""))
                if case % 4 == 0:
                    out.write(f"{case_dir}/options.json", '{"plugins": ["x"]}\n')
                if case % 9 == 1:
                    out.write(f"{case_dir}/actual.js", "stale\n", ignored=True)
                if case % 13 == 2:  # a resolver's fixture: its own node_modules, kept
                    module = f"{case_dir}/node_modules/{rng.choice(WORDS)}"
                    out.write(f"{module}/package.json", '{"main": "index.js"}\n')
                    out.write(f"{module}/index.js", "module.exports = 1;\n")
        out.write(f"{base}/test/tmp/run.tmp", "scratch\n", ignored=True)
        package += 1
    for index in range(max(4, spec.files // 10)):
        name = f"{rng.choice(WORDS)}-{index % 97}"
        out.write(f"node_modules/{name}/lib/m_{index}.js", "module.exports = 0;\n", ignored=True)
    return out.info("babel", _commit_all(root, out))


# numpy's nested ignore files: generated sources beside their templates, each subpackage's
# build output, the docs' own.
NUMPY_NESTED = (
    """\
# generated from the .src templates
/include/numpy/__multiarray_api.h
/include/numpy/_numpyconfig.h
*.c.src.out
_*_umath.c
!_keep_umath.c
""",
    """\
/build/
/source/reference/generated/
*.inv
""",
    *NESTED_RULES,
)

NUMPY_ROOT_EXTRA = """
# numpy's own
*.so
/numpy/version.py
numpy/__config__.py
**/_build/
.mesonpy-*/
"""


@dataclass(frozen=True)
class NumpySpec:
    """A scientific Python package shaped like numpy's: `files` tracked files in
    subpackages of a few dozen files each, a root `.gitignore` of 130 template patterns
    plus its own, and nested ignore files in subpackages and the docs."""

    files: int = 2400
    seed: int = 5


def build_numpy_tree(root: Path, spec: NumpySpec) -> TreeInfo:
    """A numpy-shaped tree under `root` (which must not exist yet)."""
    rng = random.Random(spec.seed)
    root.mkdir(parents=True)
    out = TreeWriter(root)
    py_pool = _line_pool(rng, "#", False, 3000)
    c_pool = _line_pool(rng, "//", False, 2000)
    md_pool = _line_pool(rng, "", True, 1000)
    out.write(".gitignore", first_patterns(130) + NUMPY_ROOT_EXTRA)
    out.write(ONE_FILE, _text_body(rng, md_pool, 600, "A small file for one-file reads.\n"))
    out.write("pyproject.toml", "[project]\nname = 'numpy-like'\n")
    out.write("numpy/version.py", "version = '2.0'\n", ignored=True)
    out.write("numpy/__config__.py", "config = {}\n", ignored=True)
    out.write(".mesonpy-x1/build.ninja", "rule cc\n", ignored=True)
    number = 0
    while out.kept_files < spec.files:
        sub = f"numpy/{rng.choice(WORDS)}{number}"
        nested = number % (len(NUMPY_NESTED) + 1)
        if nested:
            out.write(f"{sub}/.gitignore", NUMPY_NESTED[nested - 1])
            if nested == 1:
                out.write(f"{sub}/_keep_umath.c", _text_body(rng, c_pool, 2000, ""))
                out.write(f"{sub}/_x_umath.c", "generated\n", ignored=True)
                out.write(f"{sub}/include/numpy/_numpyconfig.h", "#define X\n", ignored=True)
            elif nested == 2:
                out.write(f"{sub}/build/x.html", "<p>built</p>\n", ignored=True)
        for where in ("", "/src", "/tests", "/tests/data"):
            for index in range(rng.randrange(3, 14)):
                kind = ".py" if where != "/src" else (".c", ".h", ".c.src")[index % 3]
                pool = py_pool if kind == ".py" else c_pool
                size = _lognormal_size(rng, 4000, 1.0, 100, 200_000)
                out.write(
                    f"{sub}{where}/{_ident(rng)}_{index}{kind}", _text_body(rng, pool, size, "")
                )
        out.write(f"{sub}/_build/lib/x_{number}.so", "\x7fELF", ignored=True)
        out.write(f"{sub}/m_{number}.cpython-311.so", "\x7fELF", ignored=True)
        number += 1
    for index in range(60):
        out.write(f"doc/source/page_{index}.rst", _text_body(rng, md_pool, 3000, "Page\n====\n"))
    out.write("doc/.gitignore", NUMPY_NESTED[1])
    out.write("doc/build/html/index.html", "<p>built</p>\n", ignored=True)
    return out.info("numpy", _commit_all(root, out))


Spec = TypeVar("Spec", RepoSpec, MonorepoSpec, BabelSpec, NumpySpec)


def ensure_tree(
    root: Path, spec: Spec, build: Callable[[Path, Spec], TreeInfo]
) -> tuple[TreeInfo, float, bool]:
    """The tree for `spec` at `root`: reused when a stamp beside it says it was built from
    the same spec, else (re)built. Returns the tree, its build time in seconds, and whether
    it was reused."""
    stamp = root.with_name(root.name + ".json")
    key = {"format": TREE_FORMAT, "kind": type(spec).__name__, "spec": asdict(spec)}
    if root.is_dir() and stamp.is_file():
        try:
            saved = json.loads(stamp.read_text())
        except ValueError:
            saved = {}
        if isinstance(saved, dict) and saved.get("key") == key:
            return TreeInfo(**saved["info"]), float(saved["seconds"]), True
    stamp.unlink(missing_ok=True)
    if root.exists():
        shutil.rmtree(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    info = build(root, spec)
    seconds = time.perf_counter() - started
    stamp.write_text(json.dumps({"key": key, "info": asdict(info), "seconds": seconds}))
    return info, seconds, False


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the benchmark trees under DIR.")
    parser.add_argument("dir", type=Path, help="where the trees go (DIR/repo, DIR/monorepo)")
    parser.add_argument("--repo-files", type=int, default=RepoSpec.files)
    parser.add_argument("--monorepo-files", type=int, default=MonorepoSpec.kept_files)
    parser.add_argument("--node-modules-files", type=int, default=MonorepoSpec.ignored_files)
    parser.add_argument("--only", choices=("repo", "monorepo"), help="build only this tree")
    args = parser.parse_args(argv)
    built: list[tuple[TreeInfo, float, bool]] = []
    if args.only in (None, "repo"):
        built.append(ensure_tree(args.dir / "repo", RepoSpec(args.repo_files), build_repo_tree))
    if args.only in (None, "monorepo"):
        spec = MonorepoSpec(args.monorepo_files, args.node_modules_files)
        built.append(ensure_tree(args.dir / "monorepo", spec, build_monorepo_tree))
    for info, seconds, reused in built:
        state = "reused" if reused else "built"
        sys.stdout.write(
            f"{info.kind}: {info.kept_files} kept files ({info.kept_bytes / 2**20:.1f} MiB), "
            f"{info.ignored_files} ignored, commit {info.commit[:12]}, "
            f"{state} in {seconds:.1f} s\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
