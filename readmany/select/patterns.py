"""The glob dialect's building blocks, importing wcmatch and bracex only when needed.

Most command lines use patterns that need neither (`**`, `src/**`, literal paths, the
default excludes), and start-up time is a feature of a command-line tool.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence

from readmany.errors import UsageError
from readmany.limits import PATTERN_MAX_BRACE_DEPTH, PATTERN_MAX_CHARS
from readmany.record import NamedTuple
from readmany.select.boundary import inside, join_clean, rel_parts, stat_mode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from wcmatch.fnmatch import WcMatcher as NameMatcher
    from wcmatch.glob import WcMatcher as PathMatcher

__all__ = [
    "NameMatcher",
    "PathMatcher",
    "RequestedAssets",
    "compile_includes",
    "compile_paths",
    "compile_segment",
]

EXPANSION_LIMIT = 1000
# Characters that can give a pattern segment a glob meaning. Erring towards "magic" only
# costs a compiled matcher; a literal name still matches itself.
_MAGIC = frozenset("*?[]\\(){}|!@+")


def is_magic(segment: str) -> bool:
    return not _MAGIC.isdisjoint(segment)


def check_length(pattern: str) -> None:
    """A usage error for a pattern longer than PATTERN_MAX_CHARS."""
    if len(pattern) > PATTERN_MAX_CHARS:
        raise UsageError(
            f"pattern is {len(pattern):,} characters long, more than {PATTERN_MAX_CHARS:,}: "
            f"{pattern[:60]}…; split it into shorter patterns, or list the paths on "
            "standard input (--stdin)"
        )


def expand_braces(pattern: str) -> list[str]:
    """`{a,b}` alternatives spelled out; a usage error past EXPANSION_LIMIT of them, or for
    a pattern too long (`check_length`)."""
    check_length(pattern)
    if "{" not in pattern:
        return [pattern]
    check_brace_depth(pattern)
    import bracex

    try:
        return bracex.expand(pattern, limit=EXPANSION_LIMIT)
    except bracex.ExpansionLimitException:
        raise UsageError(
            f"pattern expands to more than {EXPANSION_LIMIT} alternatives: {pattern}"
        ) from None


def check_brace_depth(pattern: str) -> None:
    """A usage error for braces nested deeper than PATTERN_MAX_BRACE_DEPTH: each level is
    a level of recursion in the expansion, and Python's stack ends (and for a pattern too
    long, `check_length`)."""
    check_length(pattern)
    if pattern.count("{") <= PATTERN_MAX_BRACE_DEPTH:
        return
    depth = deepest = 0
    escaped = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif char == "}" and depth:
            depth -= 1
    if deepest > PATTERN_MAX_BRACE_DEPTH:
        raise UsageError(
            f"pattern nests braces {deepest} deep, more than {PATTERN_MAX_BRACE_DEPTH}: "
            f"{pattern[:60]}{'…' if len(pattern) > 60 else ''}; write its alternatives "
            "as patterns of their own"
        )


def compile_segment(text: str) -> NameMatcher[str]:
    """A matcher for one name: no case, dotfiles match, extglob."""
    from wcmatch import fnmatch

    flags = fnmatch.IGNORECASE | fnmatch.DOTMATCH | fnmatch.EXTMATCH | fnmatch.FORCEUNIX
    return fnmatch.compile([text], flags=flags)


def collapse_globstars(pattern: str) -> str:
    """`pattern` with each run of `**` segments (`**/**/x`) written as one (`**/x`):
    `**/**` matches what `**` matches, and a run of them costs a matcher its square."""
    if "**/**" not in pattern:
        return pattern
    parts = pattern.split("/")
    kept = [p for i, p in enumerate(parts) if not (p == "**" and i and parts[i - 1] == "**")]
    return "/".join(kept)


def compile_paths(patterns: Sequence[str]) -> PathMatcher[str]:
    """A matcher for `/`-separated paths: `**`, no case, dotfiles match, extglob, braces."""
    from wcmatch import _wcparse, glob

    for pattern in patterns:
        check_brace_depth(pattern)
    flags = glob.GLOBSTAR | glob.DOTGLOB | glob.IGNORECASE | glob.EXTGLOB | glob.BRACE
    # wcmatch's limit is of the patterns once their braces are spelled out, all of them
    # together: each pattern counts, and EXPANSION_LIMIT more alternatives in all (a list
    # of 1,001 plain excludes went past its default of 1,000: exit 70).
    limit = len(patterns) + EXPANSION_LIMIT
    try:
        return glob.compile(
            [collapse_globstars(p) for p in patterns], flags=flags | glob.FORCEUNIX, limit=limit
        )
    except _wcparse.PatternLimitException:
        raise UsageError(
            f"the {len(patterns)} patterns expand to more than {limit} alternatives in all: "
            "write fewer, or fewer braces"
        ) from None


# --- include patterns, compiled for the walk ------------------------------------------


class Segment(NamedTuple):
    """One `/`-separated part of a pattern: `**`, a name, or a glob over one name."""

    text: str
    globstar: bool = False
    exact: bool = False  # a name taken from the file system: compared exactly
    matcher: NameMatcher[str] | None = None

    def matches(self, name: str) -> bool:
        if self.globstar:
            return True
        if self.exact or self.matcher is None:
            return name == self.text
        return self.matcher.match(name)


GLOBSTAR = Segment("**", globstar=True)


def glob_segment(text: str) -> Segment:
    if text == "**":
        return GLOBSTAR
    return Segment(text, matcher=compile_segment(text))


class Includes(NamedTuple):
    """Compiled include patterns: walks (anchor directory → patterns) and literal files."""

    walks: dict[str, list[tuple[Segment, ...]]]
    # For each pattern of a walk, the index of the command-line pattern it came from.
    owners: dict[str, list[int]]
    # Files named exactly: (absolute normalised path, a regular file, a symbolic link);
    # None, None for a path from `--stdin`, looked at only when the stream reaches it.
    literals: list[tuple[str, bool | None, bool | None]]
    # The `--stdin` paths as given (not yet joined to the root), read as the walk reaches
    # them when they keep their order (the default face); with `--compat` they are among
    # `literals`, sorted with them.
    listed: Iterable[str]
    # Command-line patterns that named an existing file: matched, whatever the walks find.
    matched: frozenset[int]


_AddWalk = Callable[[str, Sequence[Segment]], None]


def compile_includes(
    patterns: Sequence[str],
    literal_paths: Iterable[str],
    root: str,
    recursive: bool,
    *,
    keep_listed_order: bool = False,
) -> Includes:
    walks: dict[str, list[tuple[Segment, ...]]] = {}
    owners: dict[str, list[int]] = {}
    literals: list[tuple[str, bool | None, bool | None]] = []
    matched: set[int] = set()
    below_dir = GLOBSTAR if recursive else glob_segment("*")

    def add_walks_of(owner: int) -> _AddWalk:
        def add_walk(anchor: str, segments: Sequence[Segment]) -> None:
            walks.setdefault(anchor, []).append(tuple(segments))
            owners.setdefault(anchor, []).append(owner)

        return add_walk

    def add_directory(path: str, add_walk: _AddWalk) -> None:
        # A directory means the files under it; its own path is taken literally.
        if inside(path, root):
            parts = rel_parts(path, root)
            add_walk(root, [*(Segment(p, exact=True) for p in parts), below_dir])
        else:
            add_walk(path, [below_dir])

    def add_existing(text: str, owner: int) -> bool:
        target = os.path.normpath(os.path.join(root, text))
        own_mode = stat_mode(target, follow=False)
        is_link = own_mode is not None and stat.S_ISLNK(own_mode)
        mode = stat_mode(target) if is_link else own_mode
        if mode is not None and stat.S_ISDIR(mode):
            add_directory(target, add_walks_of(owner))
            return True
        if text.endswith("/"):
            return False  # `a.txt/`: a file is not a directory, as every shell command says
        if mode is not None and stat.S_ISREG(mode):
            literals.append((target, True, is_link))
            matched.add(owner)
            return True
        return False

    # In the order given, a path is looked at only when the stream reaches it: a long list
    # (`git ls-files`) starts streaming at once, and is never held whole. Sorted, it is.
    listed: Iterable[str] = literal_paths if keep_listed_order else ()
    if not keep_listed_order:
        for raw in literal_paths:
            check_listed(raw)
            if raw:
                literals.append((join_clean(root, raw), None, None))

    for owner, raw in enumerate(patterns):
        if not raw:
            raise UsageError(
                "empty pattern: '' names no file: give a path or a glob, such as a.txt, src/ "
                "or '**/*.py'"
            )
        check_length(raw)
        if "\0" in raw:
            raise UsageError(f"pattern contains a NUL character: {raw!r}")
        text = raw.replace("\\", "/")
        if add_existing(text, owner):
            continue
        if keep_listed_order:
            check_balanced(raw)
        for expansion in expand_braces(text):
            if expansion != text and add_existing(expansion, owner):
                continue
            _add_glob(expansion, root, add_walks_of(owner))
    return Includes(walks, owners, literals, listed, frozenset(matched))


def check_listed(raw: str) -> None:
    """A usage error for a listed path that no file can have."""
    if "\0" in raw:
        raise UsageError(f"path contains a NUL character: {raw!r}")


def check_balanced(pattern: str) -> None:
    """A usage error for a `[` that no `]` closes or braces that do not pair up."""
    depth = 0
    opened = -1
    for index, char in enumerate(pattern):
        if char == "[" and opened < 0:
            opened = index
        elif char == "]" and opened >= 0 and index > opened + 1:
            opened = -1
        elif char == "{" and opened < 0:
            depth += 1
        elif char == "}" and opened < 0:
            depth -= 1
            if depth < 0:
                break
    if opened >= 0 or depth:
        what = "a '[' without its ']'" if opened >= 0 else "unbalanced braces '{' '}'"
        raise UsageError(
            f"bad pattern {pattern!r}: {what}; quote the pattern, or escape the "
            "character as [[] or [{]"
        )


def _add_glob(pattern: str, root: str, add_walk: _AddWalk) -> None:
    absolute = pattern.startswith("/")
    parts = pattern.split("/")
    if absolute:
        parts = parts[1:]
    if parts and parts[-1] == "":
        return  # only directories can match a trailing "/", and files are wanted
    parts = [p for p in parts if p not in ("", ".")]
    parts = [p for i, p in enumerate(parts) if not (p == "**" and i and parts[i - 1] == "**")]
    if not parts:
        return
    first_magic = next(
        (i for i, p in enumerate(parts) if is_magic(p)),
        len(parts),
    )
    if first_magic == len(parts):
        # No glob characters, and (as tried before) no file or directory of that name:
        # it can still name a dangling link, a FIFO or a socket.
        first_magic = len(parts) - 1
    base = "/" if absolute else root
    anchor = os.path.normpath(os.path.join(base, *parts[:first_magic]))
    rest = [glob_segment(p) for p in parts[first_magic:]]
    if inside(anchor, root):
        # Inside the root every segment matches without case, as the walk goes.
        lead = [glob_segment(p) for p in rel_parts(anchor, root)]
        add_walk(root, [*lead, *rest])
    else:
        add_walk(anchor, rest)


# --- which assets the patterns ask for ----------------------------------------------------


class RequestedAssets:
    """Whether some pattern asks for an asset by its name or by its extension.

    Only a pattern's last component counts, compared without case: `*.png` and `*.PNG`
    ask for every PNG they match, `logo.png`, `logo.*` and `logo` ask for `logo.png`,
    `photo.*` for `photo.JPG`. A wildcard alone (`img/*`, `**`, a directory) asks for
    no asset. Matchers are compiled on the first asset asked about.
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        lasts: list[str] = []
        for pattern in patterns:
            text = pattern.replace("\\", "/").rstrip("/")
            try:
                expansions = expand_braces(text)
            except UsageError:
                expansions = [text]
            lasts.extend(expansion.rsplit("/", 1)[-1].lower() for expansion in expansions)
        # `*` and `**` alone name neither an extension nor a stem.
        unique = dict.fromkeys(last for last in lasts if last.strip("*"))
        # A name without glob characters matches only itself: a set lookup will do.
        self._exact = {last for last in unique if not is_magic(last)}
        self._magic = [last for last in unique if is_magic(last)]
        self._globs: list[tuple[str, NameMatcher[str]]] | None = None

    def __call__(self, name: str) -> bool:
        lower = name.lower()
        stem, ext = os.path.splitext(lower)
        if lower in self._exact or stem in self._exact:
            return True
        if self._globs is None:
            self._globs = [(last, compile_segment(last)) for last in self._magic]
        for last, matcher in self._globs:
            if last in (lower, stem):  # `[id].png` names itself, whatever `[id]` matches
                return True
            if not matcher.match(lower):
                continue
            if ext and last.endswith(ext):
                return True  # names the extension
            if last.startswith(stem + "."):
                return True  # names the stem
        return False


def pattern_indexes(rels: Sequence[str], patterns: Sequence[str]) -> list[int] | None:
    """The index of the first of `patterns` that matches each path (a directory matches
    what is under it; 0 where none does, as a path listed on --stdin): None for one."""
    if len(patterns) < 2:
        return None
    matchers: list[PathMatcher[str] | None] = []  # None: everything
    for pattern in patterns:
        pattern = pattern.removeprefix("./").rstrip("/")
        if pattern in ("", "."):
            matchers.append(None)  # everything
        else:
            matchers.append(compile_paths([pattern, pattern + "/**"]))
    indexes = []
    for rel in rels:
        found = 0
        for index, matcher in enumerate(matchers):
            if matcher is None or matcher.match(rel):
                found = index
                break
        indexes.append(found)
    return indexes


def first_match(patterns: Sequence[str]) -> Callable[[str], int | None] | None:
    """The index of the first `--prefer` glob that matches a path (None: none does)."""
    if not patterns:
        return None
    matchers = [compile_paths([pattern]) for pattern in patterns]

    def first(rel: str) -> int | None:
        for index, matcher in enumerate(matchers):
            if matcher.match(rel):
                return index
        return None

    return first
