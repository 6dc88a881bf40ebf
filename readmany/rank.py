"""The order of value a budget takes files in: what a reader of the dump needs first.

A pure function of the selection (its paths in output order, their sizes, which pattern
matched each, which were named literally, and optionally a bounded prefix of each
file's text already read), with no I/O and no import of another stage: the pack stage,
or the command that plans a budget, calls `rank` and takes files in `Ranking.order`
while they fit; the output order stays the selection's.

`--order` chooses the rule (`choices.Order`):

- `rank` (the default face of `glob`): the files a `--prefer` pattern matches first (an
  earlier `--prefer` first), then the paths named on the command line, then by the
  pattern that matched (an earlier pattern first), then by kind (`KINDS`, best first):
  entry points (a README at the top, then manifests such as `pyproject.toml`,
  `Cargo.toml`, `package.json`, `BUILD_FILES` only at the top, then `main`/`cli`
  modules), source, other text (configuration, markup), tests, examples, benchmarks and
  docs (a `.pyi` stub beside its `.py` with them; the project's own, `PROJECT_DOC_STEMS`,
  after the others), then bulk (licenses, lock files, generated and
  vendored files, CI and tool configuration, fixtures, images in text (`.svg`), large
  data files). Where the selection holds more bytes of docs than of source (a
  documentation project, or a pattern that selects docs), its docs rank as source,
  before the rest of it (a site's code, examples), the pages that start a reader off
  (`DOC_START_STEMS`: index, introduction, getting started …) first and the shallower
  first. Within a kind,
  files most tied to the selection by imports first: how many others import a file
  (by its module name, or its directory's for `__init__.py`, `mod.rs`, `index.js`, found
  in the import lines of the others' first `SAMPLE_CHARS`) plus how many it imports (a
  module imported by few that ties many together, httpx's `_client.py`, ranks with the
  leaves many import); then the selection's order.
- `smallest`: the smallest first (bytes, then the selection's order): the rule of the
  reference tools, kept for `many` and `--compat`.
- `given`: the selection's order.

Each file gets a reason, the words `details.packing` uses to say why it was taken or
left out ("entry point (manifest)", "source, imported by 4 files, imports 2", "bulk
(lock file)").
Cost: a few microseconds a file (bench/rank_cost.py measures it on a generated tree).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from readmany.choices import Order
from readmany.record import NamedTuple

# The kinds, best first; a file's kind is its place in this tuple.
KINDS = ("entry", "source", "other", "secondary", "bulk")
ENTRY, SOURCE, OTHER, SECONDARY, BULK = range(len(KINDS))

SAMPLE_CHARS = 4096  # of a file's text, the prefix whose import lines are read ...
IMPORT_CHARS = 2048  # ... from the first import on, at most this many characters
DATA_BYTES = 16 << 10  # a data file (`DATA_EXTENSIONS`) over this size is bulk
AMBIGUOUS_NAME = 8  # a module name more files than this share credits none of them

SOURCE_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "pyx",
        "rs",
        "go",
        "js",
        "mjs",
        "cjs",
        "jsx",
        "ts",
        "tsx",
        "mts",
        "cts",
        "java",
        "kt",
        "kts",
        "scala",
        "c",
        "h",
        "cc",
        "cpp",
        "cxx",
        "hpp",
        "hh",
        "hxx",
        "cs",
        "rb",
        "php",
        "swift",
        "m",
        "mm",
        "sh",
        "bash",
        "zsh",
        "fish",
        "lua",
        "pl",
        "pm",
        "r",
        "jl",
        "ex",
        "exs",
        "erl",
        "hrl",
        "hs",
        "ml",
        "mli",
        "clj",
        "cljs",
        "dart",
        "vue",
        "svelte",
        "zig",
        "nim",
        "sql",
        "el",
        "fs",
        "fsx",
        "groovy",
        "gd",
        "v",
        "sv",
        "vhd",
        "ps1",
        "tcl",
        "elm",
        "cr",
    ]
)
DATA_EXTENSIONS = frozenset(
    [
        "svg",
        "json",
        "csv",
        "tsv",
        "xml",
        "txt",
        "dat",
        "ndjson",
        "jsonl",
        "geojson",
        "yaml",
        "yml",
        "ipynb",
        "html",
        "log",
        "po",
        "pot",
    ]
)
MANIFESTS = frozenset(
    [
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "cargo.toml",
        "package.json",
        "go.mod",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "gemfile",
        "composer.json",
        "cmakelists.txt",
        "meson.build",
        "deno.json",
        "mix.exs",
        "pubspec.yaml",
        "package.swift",
        "build.zig",
        "stack.yaml",
        "cabal.project",
        "dune-project",
        "project.clj",
        "build.sbt",
        "makefile",
        "justfile",
    ]
)
# Manifests written again in each directory they build: entry points only at the top.
BUILD_FILES = frozenset(("meson.build", "cmakelists.txt", "makefile", "justfile"))
ENTRY_STEMS = frozenset(("main", "__main__", "cli", "app", "server"))
# ... and these only near the top (`src/lib.rs`, `index.js`), not a package's in a subtree.
ROOT_ENTRY_STEMS = frozenset(("lib", "index", "mod"))
# A module named after its directory: `pkg/__init__.py` is imported as `pkg`.
PACKAGE_STEMS = frozenset(("__init__", "mod", "index", "lib"))
# The project's own history and house rules: after the tests, examples and docs (within
# their kind, `SECONDARY`, these come last).
PROJECT_DOC_STEMS = frozenset(
    [
        "changelog",
        "changes",
        "history",
        "news",
        "releases",
        "release-notes",
        "release_notes",
        "contributing",
        "code_of_conduct",
        "code-of-conduct",
        "security",
        "authors",
        "contributors",
        "maintainers",
        "governance",
        "support",
        "funding",
        "codeowners",
    ]
)
PROJECT_DOCS = "project docs"  # the word for them
# A documentation project's docs (where docs outweigh source in the selection, the docs
# are what a reader came for: they rank as source), the word for them; and the pages
# that start a reader off, which come first among them, the shallower first.
PROJECT_OF_DOCS = "docs (most of the text)"
DOCS_FIRST = 1 << 10  # what puts them before the source of their kind
DOC_START_STEMS = frozenset(
    [
        "index",
        "introduction",
        "intro",
        "overview",
        "getting-started",
        "getting_started",
        "quick-start",
        "quick_start",
        "quickstart",
        "tutorial",
        "guide",
        "readme",
    ]
)
STUB = "type stub"  # a `.pyi` beside its `.py`: the module's types again, ranked as docs
LOCK_NAMES = frozenset(
    [
        "package-lock.json",
        "npm-shrinkwrap.json",
        "pnpm-lock.yaml",
        "yarn.lock",
        "go.sum",
        "go.work.sum",
        "cargo.lock",
        "poetry.lock",
        "pipfile.lock",
        "uv.lock",
        "pdm.lock",
        "gemfile.lock",
        "composer.lock",
        "flake.lock",
        "bun.lockb",
        "mix.lock",
        "pubspec.lock",
        "podfile.lock",
        "packages.lock.json",
    ]
)
LICENSE_STEMS = ("license", "licence", "copying", "notice", "copyright", "unlicense", "patents")
CI_NAMES = frozenset(
    [
        ".gitlab-ci.yml",
        ".travis.yml",
        "appveyor.yml",
        ".appveyor.yml",
        "azure-pipelines.yml",
        "jenkinsfile",
        ".drone.yml",
        "bitbucket-pipelines.yml",
        ".cirrus.yml",
        "codecov.yml",
        ".codecov.yml",
        ".pre-commit-config.yaml",
        ".pre-commit-hooks.yaml",
        ".readthedocs.yaml",
        ".readthedocs.yml",
        "dependabot.yml",
        "renovate.json",
        ".mergify.yml",
    ]
)
# Directory names that make what is beneath them a kind, whatever its name says.
DIRECTORY_KINDS: dict[str, tuple[int, str]] = {
    **dict.fromkeys(
        ("test", "tests", "__tests__", "spec", "specs", "testing"), (SECONDARY, "test")
    ),
    **dict.fromkeys(
        ("example", "examples", "samples", "demo", "demos", "tutorial", "tutorials", "cookbook"),
        (SECONDARY, "example"),
    ),
    **dict.fromkeys(("bench", "benches", "benchmark", "benchmarks"), (SECONDARY, "benchmark")),
    **dict.fromkeys(
        ("doc", "docs", "documentation", "man", "site", "docs_src", "doc_src"), (SECONDARY, "docs")
    ),
    **dict.fromkeys(
        ("fixtures", "fixture", "testdata", "test_data", "__snapshots__", "snapshots",
         "golden", "goldens"),
        (BULK, "fixture"),
    ),
    **dict.fromkeys(
        ("vendor", "vendored", "third_party", "third-party", "thirdparty", "node_modules"),
        (BULK, "vendored"),
    ),
    **dict.fromkeys(
        ("dist", "build", "generated", "target", "_build", "__generated__"), (BULK, "generated")
    ),
    **dict.fromkeys(
        (".github", ".circleci", ".gitlab", ".buildkite", ".azure-pipelines", ".woodpecker"),
        (BULK, "CI"),
    ),
}  # fmt: skip
GENERATED_SUFFIXES = (
    ".min.js", ".min.css", ".map", ".pb.go", "_pb2.py", "_pb2_grpc.py", ".pb.h", ".pb.cc",
    ".generated.ts", ".generated.js", ".g.dart", ".designer.cs", "_generated.go", ".snap",
)  # fmt: skip
GENERATED_MARKERS = ("DO NOT EDIT", "@generated", "Code generated by", "autogenerated")
# What starts an import in each language, by extension: found with `str.find`, a scan
# of C a key (a regular expression or a loop over lines costs ten times as much).
_PYTHON = ("\nimport ", "\nfrom ")
_RUST = ("\nuse ", "\npub use ", "\nmod ", "\npub mod ", "\npub(crate) mod ")
_JS = ("\nimport ", "\nexport ", "require(")
_C = ("\n#include",)
IMPORT_KEYS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("py", "pyi", "pyx"), _PYTHON),
    "rs": _RUST,
    **dict.fromkeys(("js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "vue", "svelte"), _JS),
    **dict.fromkeys(("c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "m", "mm"), _C),
    **dict.fromkeys(
        ("go", "java", "kt", "kts", "scala", "groovy", "dart", "swift"), ("\nimport ",)
    ),
    "cs": ("\nusing ",),
    "rb": ("require",),
    "php": ("\nuse ", "require", "include"),
}
_NOT_MODULES = frozenset(
    [
        "import",
        "from",
        "use",
        "pub",
        "mod",
        "include",
        "require",
        "require_relative",
        "const",
        "let",
        "var",
        "export",
        "using",
        "crate",
        "as",
        "self",
        "super",
        "default",
        "type",
        "static",
        "std",
        "js",
        "ts",
        "py",
        "rs",
        "go",
        "h",
        "c",
    ]
)


class Ranking(NamedTuple):
    """The selection's positions by value, best first, and each position's kind and reason."""

    strategy: str  # an `Order`
    order: tuple[int, ...]
    kinds: tuple[str, ...]  # by position; "" when the rule does not look at kinds
    reasons: tuple[str, ...]  # by position
    words: tuple[str, ...] = ()  # by position: the kind in a word ("test", "CI"); () unranked


# Within a kind, before the count of imports: the README, then the manifests, then the
# entry modules; the project's own docs after the other docs, tests and examples.
_SUBORDER = {"entry point (README)": 0, "entry point (manifest)": 1, PROJECT_DOCS: 1}


def kind_of(path: str, size: int, sample: str | None = None) -> tuple[int, str]:
    """A file's kind (`ENTRY` … `BULK`) and the word for it, from its path, its size and
    the start of its text."""
    low = path.lower()
    directory, _, name = low.rpartition("/")
    stem, dot, extension = name.rpartition(".")
    if not dot:
        stem, extension = name, ""
    kind = -1
    word = ""
    if directory:
        for part in directory.split("/"):
            found = DIRECTORY_KINDS.get(part)
            if found is not None and found[0] > kind:
                kind, word = found
                if kind == BULK:
                    return kind, f"bulk ({word})"
    if name in LOCK_NAMES or extension == "lock":
        return BULK, "bulk (lock file)"
    is_source = extension in SOURCE_EXTENSIONS
    if not is_source and name.startswith(LICENSE_STEMS):
        return BULK, "bulk (license)"
    if name in CI_NAMES:
        return BULK, "bulk (CI)"
    if name.startswith(".") or directory.startswith(".") or "/." in directory:
        return BULK, "bulk (configuration)"  # .editorconfig, .eslintrc.js, .cargo/config.toml
    if name.endswith(GENERATED_SUFFIXES):
        return BULK, "bulk (generated)"
    if sample is not None and _generated(sample):
        return BULK, "bulk (generated)"
    if extension == "svg":  # an image, in text
        return BULK, "bulk (image)"
    if extension in DATA_EXTENSIONS and size > DATA_BYTES:
        return BULK, f"bulk (data, {size >> 10} KiB)"
    if kind == SECONDARY:
        return kind, word
    if is_source and (_test_name(stem, extension) or stem == "conftest"):
        return SECONDARY, "test"
    if name in MANIFESTS:
        if directory and name in BUILD_FILES:  # numpy has 20 meson.build, one a directory
            return OTHER, "build file"
        return ENTRY, "entry point (manifest)"
    if stem == "readme" or name == "readme":
        return (ENTRY, "entry point (README)") if not directory else (SECONDARY, "docs")
    if is_source:
        if stem in ENTRY_STEMS or (stem in ROOT_ENTRY_STEMS and directory.count("/") < 1):
            return ENTRY, f"entry point ({stem} module)"
        return SOURCE, "source"
    if stem in PROJECT_DOC_STEMS or name in PROJECT_DOC_STEMS:
        return SECONDARY, PROJECT_DOCS
    if extension in ("md", "rst", "adoc", "txt", "org"):
        return SECONDARY, "docs"
    return OTHER, "other"


def _test_name(stem: str, extension: str) -> bool:
    return (
        stem.startswith("test_")
        or stem.endswith(("_test", "_tests", ".test", ".spec", "_spec"))
        or (
            extension in ("java", "kt", "cs", "swift", "scala") and stem.endswith(("test", "tests"))
        )
    )


def _generated(sample: str) -> bool:
    head = sample[:512]
    return any(marker in head for marker in GENERATED_MARKERS)


def module_name(path: str) -> str:
    """The name other files import `path` by: its name less its extension (`express.json`
    for `express.json.js`, `types` for `types.d.ts`), or its directory's for a package's
    own file (`pkg/__init__.py`, `src/walk/mod.rs`, `lib/index.js`)."""
    directory, _, name = path.rpartition("/")
    stem = name.rpartition(".")[0] or name
    if stem.endswith(".d"):  # TypeScript's declarations: `types.d.ts` is imported as `types`
        stem = stem[:-2]
    if stem in PACKAGE_STEMS and directory:
        return directory.rpartition("/")[2]
    return stem


def imported_names(sample: str, extension: str) -> set[str]:
    """The names in the import lines of `sample`'s first `SAMPLE_CHARS` characters, for a
    file of `extension`: each word of `import a.b`, `from .c import d`, `use crate::e::f`,
    `mod g;`, `#include "h/i.h"`, `require('./j')`, `import k from "../l"`, and of Go's
    and Python's parenthesised lists. An import must start its line (JavaScript's
    `require` may stand anywhere)."""
    keys = IMPORT_KEYS.get(extension)
    if keys is None:
        return set()
    text = "\n" + sample[:SAMPLE_CHARS]
    find = text.find
    # Imports stand together near the top: only `IMPORT_CHARS` from the first are read.
    first = min([at for at in map(find, keys) if at >= 0], default=-1)
    if first < 0:
        return set()
    text = text[first : first + IMPORT_CHARS]
    find = text.find
    lines: list[str] = []
    for key in keys:
        start = find(key)
        while start >= 0:
            end = find("\n", start + 1)
            if end < 0:
                end = len(text)
            last = text[end - 1]
            if last == "(" or text.startswith("(", start + len(key)):
                close = find(")", start)  # the list of Go's `import (`, Python's `(a, b)`
                end = len(text) if close < 0 else close
            elif last == "{":  # JavaScript's `import {` … `} from "m"`
                brace = find("}", start)
                close = find("\n", brace) if brace >= 0 else -1
                end = len(text) if close < 0 else close
            line = text[start:end]
            if key != "\nexport " or " from " in line:
                lines.append(line)
            start = find(key, end)
    # Separators to spaces, then split: bytes.translate is a table lookup in C, where
    # str.translate or a regular expression costs ten times as much.
    words = "".join(lines).encode("utf-8", "surrogatepass").translate(_SEPARATORS).split()
    return {word.decode("utf-8", "replace") for word in words}.difference(_NOT_MODULES)


_SEPARATORS = bytes(
    byte if chr(byte).isalnum() or byte == 0x5F or byte >= 0x80 else 0x20 for byte in range(256)
)


class References(NamedTuple):
    """How each file of the selection is tied to the others by imports: how many import
    it (`imported_by`), how many of them it imports (`imports`)."""

    imported_by: list[int]
    imports: list[int]


def references(
    paths: Sequence[str],
    samples: Sequence[str | None] = (),
    *,
    imports: Sequence[Collection[str] | None] | None = None,
) -> References:
    """How many other files of the selection import each one, and how many it imports,
    by `module_name` (only source files are imported: `use crate::config` is not
    `.cargo/config.toml`).

    A name several files share (`utils`: `lib/utils.js`, `test/support/utils.js`) is
    the one whose directory the import names too (`require('./support/utils')`), else
    the one beside the importer, else each of them; where more than `AMBIGUOUS_NAME`
    files are so meant, none (a file's count costs no more than that however many files
    share a name). The names each file imports are `imported_names` of its
    sample, or given already as `imports` (a planner that keeps no text keeps them
    instead, as each is read).
    """
    by_name: dict[str, list[int]] = {}
    modules = frozenset(path for path in paths if path.endswith(".py"))
    for position, path in enumerate(paths):
        name = path.rpartition("/")[2]
        if name.rpartition(".")[2].lower() in SOURCE_EXTENSIONS:
            if path.endswith(".pyi") and path[:-1] in modules:
                continue  # an import of the module means its .py, not its stub
            by_name.setdefault(module_name(path), []).append(position)
    count = len(paths)
    imported_by = [0] * count
    imports_count = [0] * count
    if imports is None:
        imports = [
            imported_names(sample, path.rpartition(".")[2]) if sample else None
            for path, sample in zip(paths, samples, strict=False)  # () counts none
        ]
    shared = _Shared(paths, by_name)
    for position, names in enumerate(imports):
        if not names:
            continue
        # A file is reached by its own module name alone: no target is counted twice.
        found = 0
        here = None
        for name in names:
            targets = by_name.get(name)
            if targets is None:
                continue
            if len(targets) > 1:
                if here is None:
                    here = paths[position].rpartition("/")[0]
                targets = shared.meant(name, names, here)
            for target in targets:
                if target != position:
                    imported_by[target] += 1
                    found += 1
        imports_count[position] = found
    return References(imported_by, imports_count)


class _Shared:
    """The files that share a module name, by the directory an import names before it
    (`support` of `./support/utils`; `pkg` of `pkg.sub` for `pkg/sub/__init__.py`) and by
    their own directory: made on first ask, a name at a time."""

    def __init__(self, paths: Sequence[str], by_name: dict[str, list[int]]) -> None:
        self._paths = paths
        self._by_name = by_name
        self._index: dict[
            str, tuple[frozenset[str], dict[str, list[int]], dict[str, list[int]]]
        ] = {}

    def meant(self, name: str, names: Collection[str], here: str) -> list[int]:
        """Of the files named `name`, those an import of it from directory `here` (by a
        file importing `names`) means: the ones whose directory it names, else the ones
        beside it, else each; none where that is more than `AMBIGUOUS_NAME` files."""
        index = self._index.get(name)
        if index is None:
            index = self._index[name] = self._indexed(name)
        words, contexts, directories = index
        if not words.isdisjoint(names):  # C's loop over the smaller of the two
            meant = [target for word in words.intersection(names) for target in contexts[word]]
        else:
            meant = directories.get(here) or self._by_name[name]
        # Each list holds at most AMBIGUOUS_NAME (a longer one is held empty), and a file
        # names at most a few hundred words: a file costs no more when thousands share
        # a name and a directory's name (`d1/support/utils.js` … `d9999/support/utils.js`).
        return meant if len(meant) <= AMBIGUOUS_NAME else []

    def _indexed(
        self, name: str
    ) -> tuple[frozenset[str], dict[str, list[int]], dict[str, list[int]]]:
        contexts: dict[str, list[int]] = {}
        directories: dict[str, list[int]] = {}
        for target in self._by_name[name]:
            path = self._paths[target]
            directory = path.rpartition("/")[0]
            directories.setdefault(directory, []).append(target)
            if module_name(path) != path.rpartition("/")[2].rpartition(".")[0]:
                directory = directory.rpartition("/")[0]  # a package's own file
            contexts.setdefault(directory.rpartition("/")[2], []).append(target)
        for held in (contexts, directories):
            for key, targets in held.items():
                if len(targets) > AMBIGUOUS_NAME:
                    held[key] = []  # so many files share it that it means none of them
        return frozenset(contexts), contexts, directories


def rank(
    paths: Sequence[str],
    sizes: Sequence[int],
    *,
    patterns: Sequence[int] | None = None,
    named: Collection[int] = (),
    samples: Sequence[str | None] | None = None,
    imports: Sequence[Collection[str] | None] | None = None,
    prefer: Callable[[str], int | None] | None = None,
    order: str = "rank",
) -> Ranking:
    """The positions of `paths` by value, best first (see the module's rules).

    `patterns`: the index of the pattern that matched each file (an earlier one first);
    `named`: the positions of the paths named literally; `samples`: a prefix of each
    file's text (None where none was read; never more than is read already);
    `imports`: instead of samples, the `imported_names` of each (None where unknown);
    `prefer`: the index of the first `--prefer` pattern that matches a path, or None.
    """
    count = len(paths)
    if order == "given":
        return Ranking(order, tuple(range(count)), ("",) * count, ("selection order",) * count)
    if order == "smallest":
        by_size = tuple(sorted(range(count), key=sizes.__getitem__))  # stable: ties in order
        return Ranking(order, by_size, ("",) * count, ("smallest first",) * count)
    if order != "rank":
        raise ValueError(f"unknown order {order!r}: one of {', '.join(Order.words())}")
    sample_of = samples if samples is not None else (None,) * count
    if imports is not None:
        refs = references(paths, imports=imports)
    elif samples is not None:
        refs = references(paths, sample_of)
    else:
        refs = References([0] * count, [0] * count)
    imported_by, imports_count = refs
    named_set = frozenset(named)
    modules = frozenset(path for path in paths if path.endswith(".py"))
    last = count + 1
    keys: list[tuple[int, int, int, int, int, int, int]] = []
    kinds: list[str] = []
    reasons: list[str] = []
    words: list[str] = []
    shorts: dict[str, str] = {}
    found = [kind_of(paths[p], sizes[p], sample_of[p]) for p in range(count)]
    docs_project = _of_docs(found, sizes)
    for position in range(count):
        path = paths[position]
        kind, word = found[position]
        suborder = _SUBORDER.get(word, 2 if kind == ENTRY else 0)
        if kind <= SOURCE and path.endswith(".pyi") and path[:-1] in modules:
            kind, word = SECONDARY, STUB  # the module's own text is in the selection
        elif docs_project and word == "docs":
            kind, word = SOURCE, PROJECT_OF_DOCS
            stem = path.rpartition("/")[2].rpartition(".")[0].lower()
            # before the source: the site's code, a docs project's examples
            suborder = 2 * path.count("/") + (stem not in DOC_START_STEMS) - DOCS_FIRST
        preferred = prefer(path) if prefer is not None else None
        pattern = patterns[position] if patterns is not None else 0
        is_named = position in named_set
        imported = imported_by[position]
        importing = imports_count[position]
        keys.append(
            (
                last if preferred is None else preferred,
                0 if is_named else 1,
                pattern,
                kind,
                suborder,
                -(imported + importing),
                position,
            )
        )
        kinds.append(KINDS[kind])
        if preferred is not None:
            reason = f"preferred (--prefer {preferred + 1}), {word}"
        elif is_named:
            reason = f"named, {word}"
        else:
            reason = word
        if imported:
            reason += f", imported by {imported} file{'s' if imported != 1 else ''}"
        if importing:
            reason += f", imports {importing}"
        if pattern and not is_named:
            reason += f", pattern {pattern + 1}"
        reasons.append(reason)
        short = shorts.get(word)
        if short is None:
            short = shorts[word] = _short(word)
        words.append(short)
    ranked = tuple(sorted(range(count), key=keys.__getitem__))
    return Ranking(order, ranked, tuple(kinds), tuple(reasons), tuple(words))


def _of_docs(found: Sequence[tuple[int, str]], sizes: Sequence[int]) -> bool:
    """Whether the selection is a documentation project's: more bytes of docs than of
    source (modules, entry points among them)."""
    docs = source = 0
    for (kind, word), size in zip(found, sizes, strict=True):
        if word == "docs":
            docs += size
        elif kind == SOURCE or word.endswith(" module)"):
            source += size
    return docs > source


def _short(word: str) -> str:
    """A kind's word without what tells one file from another: `bulk (data, 20 KiB)` is
    `data`, `entry point (README)` is `entry point`."""
    if word.startswith("bulk ("):
        return word[6:-1].partition(",")[0]
    return word.partition(" (")[0]
