"""The select stage: patterns, excludes and ignore files to an ordered list of candidates.

The tree is walked with `os.scandir`, one directory at a time, entries sorted by name.
Include patterns are matched segment by segment as the walk goes down, so only
directories that some pattern can still match below are listed; directories that are
excluded or ignored are pruned before they are listed. Every file a pattern matched
ends up either as a candidate or as a skip record with its reason, except files removed
by exclude patterns, which are dropped silently.
"""

from __future__ import annotations

import heapq
import itertools
import os
import re
import stat
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence

from readmany.errors import UsageError
from readmany.events import (
    REASON_IGNORED,
    REASON_LINK_OUTSIDE,
    REASON_OUTSIDE,
    Candidate,
    Event,
    Skip,
)
from readmany.ignore import GITIGNORE, IgnoreMatcher
from readmany.patterns import compile_paths, compile_segment, expand_braces, is_magic
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.patterns import NameMatcher

DEFAULT_EXCLUDES: tuple[str, ...] = (
    "**/node_modules/**",
    "**/.git/**",
    "**/bower_components/**",
    "**/.svn/**",
    "**/.hg/**",
    "**/.vscode/**",
    "**/.idea/**",
    "**/dist/**",
    "**/build/**",
    "**/coverage/**",
    "**/__pycache__/**",
    "**/*.bin",
    "**/*.exe",
    "**/*.dll",
    "**/*.so",
    "**/*.dylib",
    "**/*.class",
    "**/*.jar",
    "**/*.war",
    "**/*.zip",
    "**/*.tar",
    "**/*.gz",
    "**/*.bz2",
    "**/*.rar",
    "**/*.7z",
    "**/*.pak",
    "**/*.rpa",
    "**/*.doc",
    "**/*.docx",
    "**/*.xls",
    "**/*.xlsx",
    "**/*.ppt",
    "**/*.pptx",
    "**/*.odt",
    "**/*.ods",
    "**/*.odp",
    "**/*.pyc",
    "**/*.pyo",
    "**/.DS_Store",
    "**/.env",
)


# Segments a path may not contain even when nothing excludes them (compared without case,
# trailing dots and spaces removed).
_BLOCKED_SEGMENTS = frozenset((".git", ".env", "node_modules"))


class SelectRequest(NamedTuple):
    """What to select, relative to `root`."""

    root: str
    patterns: tuple[str, ...]
    literal_paths: tuple[str, ...] = ()  # exact paths (from stdin), never globs
    excludes: tuple[str, ...] = ()
    use_default_excludes: bool = True
    use_gitignore: bool = True
    ignore_files: tuple[str, ...] = ()
    recursive: bool = True


class Selection(NamedTuple):
    root: str  # absolute
    candidates: tuple[Candidate, ...]  # in output order
    skipped: tuple[Skip, ...]  # outside the root first, then ignored, each sorted


_ASTRAL = "[\U00010000-\U0010ffff]"  # compiled on first use, by re's cache


def sort_key(rel: str) -> str:
    """Output order: UTF-16 code units, as JavaScript sorts strings.

    Code points and UTF-16 code units sort alike except for characters beyond U+FFFF,
    which UTF-16 writes as surrogates (below U+E000): only a string holding one is
    spelled out as code units. Everything else is its own key, at no cost.
    """
    if rel.isascii() or re.search(_ASTRAL, rel) is None:
        return rel
    units = rel.encode("utf-16-le", "surrogatepass")
    return "".join(map(chr, struct.unpack(f"<{len(units) // 2}H", units)))


# --- include patterns ---------------------------------------------------------------------


class _Segment(NamedTuple):
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


_GLOBSTAR = _Segment("**", globstar=True)


def _glob_segment(text: str) -> _Segment:
    if text == "**":
        return _GLOBSTAR
    return _Segment(text, matcher=compile_segment(text))


class _Includes(NamedTuple):
    """Compiled include patterns: walks (anchor directory → patterns) and literal files."""

    walks: dict[str, list[tuple[_Segment, ...]]]
    # Files named exactly: (absolute normalised path, a regular file, a symbolic link);
    # None, None for a path from `--stdin`, looked at only when the stream reaches it.
    literals: list[tuple[str, bool | None, bool | None]]


_AddWalk = Callable[[str, Sequence[_Segment]], None]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _rel_parts(path: str, root: str) -> list[str]:
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    return [] if rel == "." else rel.split("/")


def _first(item: tuple[str, object, object, object, object]) -> str:
    return item[0]


def _join_clean(root: str, rel: str) -> str:
    """`normpath(join(root, rel))` for a normalised `root`, quicker for a plain `rel`."""
    plain = rel[0] not in "./" and rel[-1] != "/" and "//" not in rel and "/." not in rel
    if plain and os.sep == "/":
        return f"{root}/{rel}" if root != "/" else f"/{rel}"
    return os.path.normpath(os.path.join(root, rel))


def _stat_mode(path: str, *, follow: bool = True) -> int | None:
    try:
        return os.stat(path, follow_symlinks=follow).st_mode
    except (OSError, ValueError):
        return None


def _compile_includes(
    patterns: Sequence[str], literal_paths: Sequence[str], root: str, recursive: bool
) -> _Includes:
    walks: dict[str, list[tuple[_Segment, ...]]] = {}
    literals: list[tuple[str, bool | None, bool | None]] = []
    below_dir = _GLOBSTAR if recursive else _glob_segment("*")

    def add_walk(anchor: str, segments: Sequence[_Segment]) -> None:
        walks.setdefault(anchor, []).append(tuple(segments))

    def add_directory(path: str) -> None:
        # A directory means the files under it; its own path is taken literally.
        if _inside(path, root):
            parts = _rel_parts(path, root)
            add_walk(root, [*(_Segment(p, exact=True) for p in parts), below_dir])
        else:
            add_walk(path, [below_dir])

    def add_existing(text: str, *, literal: bool) -> bool:
        target = os.path.normpath(os.path.join(root, text))
        own_mode = _stat_mode(target, follow=False)
        is_link = own_mode is not None and stat.S_ISLNK(own_mode)
        mode = _stat_mode(target) if is_link else own_mode
        if mode is not None and stat.S_ISDIR(mode):
            add_directory(target)
            return True
        regular = mode is not None and stat.S_ISREG(mode)
        if literal or regular:
            literals.append((target, regular, is_link))
            return True
        return False

    for raw in literal_paths:
        if "\0" in raw:
            raise UsageError(f"path contains a NUL character: {raw!r}")
        if raw:
            # Not looked at yet: a long list (`git ls-files`) starts streaming at once.
            literals.append((_join_clean(root, raw), None, None))

    for raw in patterns:
        if not raw:
            raise UsageError("empty pattern: a pattern must name at least one character")
        if "\0" in raw:
            raise UsageError(f"pattern contains a NUL character: {raw!r}")
        text = raw.replace("\\", "/")
        if add_existing(text, literal=False):
            continue
        for expansion in expand_braces(text):
            if expansion != text and add_existing(expansion, literal=False):
                continue
            _add_glob(expansion, root, add_walk)
    return _Includes(walks, literals)


def _add_glob(pattern: str, root: str, add_walk: _AddWalk) -> None:
    absolute = pattern.startswith("/")
    parts = pattern.split("/")
    if absolute:
        parts = parts[1:]
    if parts and parts[-1] == "":
        return  # only directories can match a trailing "/", and files are wanted
    parts = [p for p in parts if p not in ("", ".")]
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
    rest = [_glob_segment(p) for p in parts[first_magic:]]
    if _inside(anchor, root):
        # Inside the root every segment matches without case, as the walk goes.
        lead = [_glob_segment(p) for p in _rel_parts(anchor, root)]
        add_walk(root, [*lead, *rest])
    else:
        add_walk(anchor, rest)


# --- exclude patterns ---------------------------------------------------------------------


class _Excludes:
    """Glob excludes: a file matching one is dropped; `X/**` prunes directories `X`.

    The common shapes (all the default excludes) are matched without a regular
    expression: `**/NAME/**` by a directory name, `**/*.EXT` by a suffix, `**/NAME` by a
    file name, all without case. Other patterns go to wcmatch.
    """

    def __init__(self, patterns: Iterable[str], root: str) -> None:
        self._dir_names: set[str] = set()
        self._names: set[str] = set()
        suffixes: list[str] = []
        files: list[str] = []
        prune: list[str] = []
        self._prune_all = False
        for raw in patterns:
            if not raw:
                continue
            pattern = raw
            if os.path.isabs(pattern) and _inside(os.path.normpath(pattern), root):
                pattern = "/".join(_rel_parts(os.path.normpath(pattern), root)) or "**"
            if pattern.endswith("/"):
                pattern += "**"  # `temp/` excludes the files under temp
            for expansion in expand_braces(pattern):
                simple = _simple_shape(expansion)
                if simple is None:
                    files.append(expansion)
                    if expansion == "**":
                        self._prune_all = True
                    elif expansion.endswith("/**"):
                        prune.append(expansion[:-3])
                elif simple[0] == "dir":
                    self._dir_names.add(simple[1])
                elif simple[0] == "suffix":
                    suffixes.append(simple[1])
                else:
                    self._names.add(simple[1])
        self._suffixes = tuple(suffixes)
        self._files = compile_paths(files) if files else None
        self._prune = compile_paths(prune) if prune else None

    def file_excluded(self, rel: str, *, parents_checked: bool = False) -> bool:
        """Whether an exclude drops the file `rel`.

        `parents_checked`: a walk got here, so no directory above was pruned.
        """
        lower = rel.lower()
        parent, _, name = lower.rpartition("/")
        if name in self._names or (self._suffixes and name.endswith(self._suffixes)):
            return True
        checks_parents = self._dir_names and parent and not parents_checked
        if checks_parents and not self._dir_names.isdisjoint(parent.split("/")):
            return True
        return self._files is not None and self._files.match(rel)

    def dir_pruned(self, rel: str) -> bool:
        if self._prune_all or rel.rsplit("/", 1)[-1].lower() in self._dir_names:
            return True
        return self._prune is not None and self._prune.match(rel)


def _simple_shape(pattern: str) -> tuple[str, str] | None:
    """("dir", name) for `**/name/**`, ("suffix", ".ext") for `**/*.ext`, ("name", name)
    for `**/name`, each lower-cased; None for anything else."""
    if not pattern.startswith("**/"):
        return None
    rest = pattern[3:]
    if rest.endswith("/**"):
        kind, rest = "dir", rest[:-3]
    elif rest.startswith("*."):
        kind, rest = "suffix", rest[1:]
    else:
        kind = "name"
    if not rest or "/" in rest or is_magic(rest):
        return None
    return kind, rest.lower()


# --- the walk -----------------------------------------------------------------------------

_State = frozenset[tuple[int, int]]


def _closure(patterns: Sequence[tuple[_Segment, ...]], states: Iterable[tuple[int, int]]) -> _State:
    """Add the states reached by letting a `**` match no segment at all."""
    out: set[tuple[int, int]] = set()
    for pi, si in states:
        out.add((pi, si))
        segments = patterns[pi]
        while si < len(segments) and segments[si].globstar:
            si += 1
            out.add((pi, si))
    return frozenset(out)


class _Step(NamedTuple):
    accepts: bool  # the path matches some pattern as a whole
    below: _State  # states for the entries of this directory
    below_link: _State  # the same, when this directory is a symbolic link


def _step(patterns: Sequence[tuple[_Segment, ...]], states: _State, name: str) -> _Step:
    by_name: set[tuple[int, int]] = set()
    by_star: set[tuple[int, int]] = set()
    for pi, si in states:
        segments = patterns[pi]
        if si >= len(segments):
            continue
        segment = segments[si]
        if segment.globstar:
            by_star.add((pi, si))
        elif segment.matches(name):
            by_name.add((pi, si + 1))
    named = _closure(patterns, by_name)
    starred = _closure(patterns, by_star)
    everything = named | starred
    # A `**` that matches nothing after a name (`dir/**` against `dir`) leaves the name
    # a directory: it does not make the name itself a match.
    accepts = any(si == len(patterns[pi]) for pi, si in (*by_name, *starred))

    def open_states(found: _State) -> _State:
        return frozenset((pi, si) for pi, si in found if si < len(patterns[pi]))

    # `**` never follows a symbolic link to a directory; a named segment does.
    return _Step(accepts, open_states(everything), open_states(named))


def _blocked(parts: Iterable[str]) -> bool:
    return any(_blocked_name(part) for part in parts)


def _blocked_name(part: str) -> bool:
    name = part.rstrip(". ").lower()
    if name in _BLOCKED_SEGMENTS:
        return True
    return name.startswith("gha-creds-") and name.endswith(".json")


def _self_or_above(known: dict[str, bool], rel_dir: str, judge: Callable[[str], bool]) -> bool:
    """Whether `judge` holds for `rel_dir` or a directory above it (below the root),
    the directories above judged first; every verdict is remembered in `known`."""
    if not rel_dir:
        return False
    verdict = known.get(rel_dir)
    if verdict is None:
        above = _self_or_above(known, rel_dir.rpartition("/")[0], judge)
        verdict = known[rel_dir] = above or judge(rel_dir)
    return verdict


def _event_key(event: Event) -> str:
    return sort_key(event.rel)


class _Selector:
    def __init__(self, request: SelectRequest) -> None:
        root = os.path.abspath(request.root)
        if not os.path.isdir(root):
            raise UsageError(f"root is not a directory: {request.root}")
        self.root = root
        self.recursive = request.recursive
        self.root_real = os.path.realpath(root)
        self.includes = _compile_includes(
            request.patterns, request.literal_paths, root, request.recursive
        )
        excludes = (*DEFAULT_EXCLUDES, *request.excludes)
        self.excludes = _Excludes(
            excludes if request.use_default_excludes else request.excludes, root
        )
        self.ignores = IgnoreMatcher(
            root, use_gitignore=request.use_gitignore, ignore_files=request.ignore_files
        )
        self._blocked_dirs: dict[str, bool] = {}
        self._root_slash = root.rstrip("/") + "/"
        self._root_real_slash = self.root_real.rstrip("/") + "/"
        self._pruned: dict[str, bool] = {}
        self._ignored: dict[str, bool] = {}
        self._real_directories: dict[str, str] = {}

    # -- decisions --

    def _refused(self, rel: str) -> bool:
        """Whether a segment of `rel` is one no file may be read under (or named)."""
        parent, _, name = rel.rpartition("/")
        if _blocked_name(name):
            return True
        if not parent:
            return False
        known = self._blocked_dirs.get(parent)
        if known is None:
            known = self._blocked_dirs[parent] = self._refused(parent)
        return known

    def _accept(
        self, rel: str, path: str, *, is_link: bool, via_link: bool, regular: bool = False
    ) -> Event:
        """A file matched and not excluded: a candidate, or a skip with its reason."""
        if not is_link and not via_link:  # the common case: no link to resolve
            refused = self._refused(rel)
            return Skip(rel, REASON_OUTSIDE) if refused else Candidate(rel, path, regular)
        return self._accept_real(
            rel, path, os.path.realpath(path), is_link=is_link, regular=regular
        )

    def _accept_real(
        self,
        rel: str,
        path: str,
        real: str | None,
        *,
        is_link: bool,
        regular: bool,
        named: bool = False,
    ) -> Event:
        """As `_accept`, `real` being the resolved path where links may be on the way."""
        real_rel = rel
        if real is not None:
            if not _inside(real, self.root_real):
                return Skip(rel, REASON_LINK_OUTSIDE) if is_link else Skip(rel, REASON_OUTSIDE)
            real_rel = (
                real[len(self._root_real_slash) :]
                if real.startswith(self._root_real_slash)
                else "/".join(_rel_parts(real, self.root_real))
            )
            if is_link and real_rel and self.ignores.is_path_ignored(real_rel, False):
                return Skip(rel, REASON_IGNORED)
        if self._refused(rel) or (real_rel != rel and _blocked(real_rel.split("/"))):
            return Skip(rel, REASON_OUTSIDE)
        return Candidate(rel, path, regular, named)

    # -- literal paths --

    def _relative(self, path: str) -> str:
        if path.startswith(self._root_slash):
            return path[len(self._root_slash) :]
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def _literal(self, path: str, rel: str, regular: bool, is_link: bool) -> Event | None:
        """A path named exactly: `rel` is `_relative(path)`."""
        if not _inside(path, self.root):
            return None if self.excludes.file_excluded(rel) else Skip(rel, REASON_OUTSIDE)
        parent = rel.rpartition("/")[0]
        # `_pruned_directory` judges every directory above, as a walk would have.
        if self._pruned_directory(parent) or self.excludes.file_excluded(rel, parents_checked=True):
            return None
        if self._ignored_directory(parent) or self.ignores.is_ignored(rel, False):
            return Skip(rel, REASON_IGNORED)
        # Resolve the directory once for all its files; only a link itself needs more.
        directory, _, name = path.rpartition("/")
        real = os.path.realpath(path) if is_link else f"{self._real_directory(directory)}/{name}"
        regular = regular and not is_link
        return self._accept_real(rel, path, real, is_link=is_link, regular=regular, named=True)

    def _pruned_directory(self, rel_dir: str) -> bool:
        """Whether an exclude prunes `rel_dir` or a directory above it."""
        return _self_or_above(self._pruned, rel_dir, self.excludes.dir_pruned)

    def _ignored_directory(self, rel_dir: str) -> bool:
        """Whether an ignore file ignores `rel_dir` or a directory above it."""
        return _self_or_above(self._ignored, rel_dir, self._ignored_itself)

    def _ignored_itself(self, rel_dir: str) -> bool:
        return self.ignores.is_ignored(rel_dir, True)

    def _real_directory(self, directory: str) -> str:
        """`realpath(directory)`, from its parent's below the root: one lstat, not one a part."""
        real = self._real_directories.get(directory)
        if real is None:
            parent, _, name = directory.rpartition("/")
            if directory == self.root:
                real = self.root_real
            elif _inside(parent, self.root) and name not in ("", ".", ".."):
                try:
                    linked = stat.S_ISLNK(os.lstat(directory).st_mode)
                except OSError:
                    linked = True  # missing: let realpath say what it would
                if linked:
                    real = os.path.realpath(directory)
                else:
                    real = f"{self._real_directory(parent).rstrip('/')}/{name}"
            else:
                real = os.path.realpath(directory)
            self._real_directories[directory] = real
        return real

    def _literal_events(self) -> Iterator[Event]:
        """The literal paths in output order (sorted as paths, not as events: less memory).

        A path from `--stdin` is looked at when its turn comes; a directory then means
        the files below it, walked and merged into the stream in order.
        """
        relative = self._relative
        ordered = sorted(
            (
                (sort_key(rel), rel, path, regular, is_link)
                for path, regular, is_link in self.includes.literals
                for rel in (relative(path),)
            ),
            key=_first,  # stable: of two equal paths, the first given comes first
        )
        walks: list[tuple[str, int, Event, Iterator[Event]]] = []  # a heap, by path
        pushed = itertools.count()  # equal paths: the first pushed first, never compared

        def advance(walk: Iterator[Event]) -> None:
            event = next(walk, None)
            if event is not None:
                heapq.heappush(walks, (sort_key(event.rel), next(pushed), event, walk))

        for key, rel, path, regular, is_link in ordered:
            while walks and walks[0][0] < key:
                _, _, event, walk = heapq.heappop(walks)
                yield event
                advance(walk)
            if regular is None or is_link is None:
                own_mode = _stat_mode(path, follow=False)
                is_link = own_mode is not None and stat.S_ISLNK(own_mode)
                mode = _stat_mode(path) if is_link else own_mode
                if mode is not None and stat.S_ISDIR(mode):
                    advance(self._directory_walk(path))
                    continue
                regular = mode is not None and stat.S_ISREG(mode)
            named = self._literal(path, rel, regular, is_link)
            if named is not None:
                yield named
        while walks:
            _, _, event, walk = heapq.heappop(walks)
            yield event
            advance(walk)

    def _directory_walk(self, path: str) -> Iterator[Event]:
        """The files below a directory named on the list (see `_compile_includes`)."""
        below_dir = _GLOBSTAR if self.recursive else _glob_segment("*")
        if _inside(path, self.root):
            parts = _rel_parts(path, self.root)
            segments = (*(_Segment(p, exact=True) for p in parts), below_dir)
            return self._walk_events(self.root, [segments])
        return self._walk_events(path, [(below_dir,)])

    # -- walking --

    def _listing(self, directory: str) -> list[os.DirEntry[str]] | str:
        """The entries of a directory, or why it cannot be listed."""
        try:
            with os.scandir(directory) as it:
                return list(it)
        except OSError as exc:
            return f"Read error: cannot list directory: {exc.strerror or exc}"

    def _walk_events(
        self, anchor: str, patterns: Sequence[tuple[_Segment, ...]]
    ) -> Iterator[Event]:
        """The walk below `anchor`, depth first, in output order.

        A directory's entries are visited in the order of their paths: a directory
        sorts as its name plus `/`, so its subtree comes exactly where the sorted paths
        put it; a link to a directory that is matched itself comes twice, once as a
        name and once as a subtree.
        """
        start = _closure(patterns, ((pi, 0) for pi in range(len(patterns))))
        in_root = anchor == self.root
        # Paths found from an anchor outside the root may reach it through links.
        stack = [iter(self._directory_items(patterns, in_root, anchor, "", start, not in_root))]
        while stack:
            item = next(stack[-1], None)
            if item is None:
                stack.pop()
                continue
            if isinstance(item, (Candidate, Skip)):
                yield item
                continue
            directory, rel, states, via_link = item
            items = self._directory_items(patterns, in_root, directory, rel, states, via_link)
            stack.append(iter(items))

    def _directory_items(
        self,
        patterns: Sequence[tuple[_Segment, ...]],
        in_root: bool,
        directory: str,
        rel_dir: str,
        states: _State,
        via_link: bool,
    ) -> Iterator[Event | tuple[str, str, _State, bool]]:
        """A directory's matched files as events, its subdirectories to enter as tuples."""
        entries = self._listing(directory)
        if isinstance(entries, str):
            yield Skip((rel_dir + "/") if rel_dir else "./", entries, failed=True)
            return
        if in_root:
            self.ignores.note_directory(rel_dir, any(e.name == GITIGNORE for e in entries))
        keyed: list[tuple[str, int, os.DirEntry[str], _Step]] = []
        # Below a `**` with nothing after it, every name steps the same way: once will do.
        same_for_all = (
            _step(patterns, states, "")
            if all(si == len(patterns[pi]) or patterns[pi][si].globstar for pi, si in states)
            else None
        )
        for entry in entries:
            step = same_for_all or _step(patterns, states, entry.name)
            if not step.accepts and not step.below:
                continue
            is_link = entry.is_symlink()
            if not is_link and entry.is_dir(follow_symlinks=False):
                if step.below:
                    keyed.append((sort_key(entry.name + "/"), _DIRECTORY, entry, step))
                continue
            if step.accepts:
                keyed.append((sort_key(entry.name), _FILE, entry, step))
            if is_link and step.below_link:
                keyed.append((sort_key(entry.name + "/"), _LINKED_DIRECTORY, entry, step))
        keyed.sort(key=lambda item: item[0])
        for _key, what, entry, step in keyed:
            if in_root:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            else:
                rel = os.path.relpath(entry.path, self.root).replace(os.sep, "/")
            inside = in_root or not rel.startswith("../")
            if what == _DIRECTORY:
                verdict = self._may_enter(rel, inside, is_dir=True)
                if isinstance(verdict, Skip):
                    yield verdict
                elif verdict:
                    yield (entry.path, rel, step.below, via_link)
            elif what == _FILE:
                is_link = entry.is_symlink()
                regular = not is_link and entry.is_file(follow_symlinks=False)
                event = self._leaf(
                    rel, entry.path, inside, is_link=is_link, via_link=via_link, regular=regular
                )
                if event is not None:
                    yield event
            elif entry.is_dir():
                verdict = self._may_enter(rel, inside, is_dir=False, quiet=step.accepts)
                if isinstance(verdict, Skip):
                    yield verdict
                elif verdict:
                    yield (entry.path, rel, step.below_link, True)

    def _may_enter(
        self, rel: str, inside: bool, *, is_dir: bool, quiet: bool = False
    ) -> bool | Skip:
        """True to walk into a directory; False or a skip record (ignored) not to."""
        if self.excludes.dir_pruned(rel):
            return False
        if not inside or rel == ".":
            return True
        if self.ignores.is_ignored(rel, is_dir):
            # A matched link to an ignored directory was reported already, as a file.
            return False if quiet else Skip(rel + "/", REASON_IGNORED)
        return True

    def _leaf(
        self,
        rel: str,
        path: str,
        inside: bool,
        *,
        is_link: bool,
        via_link: bool,
        regular: bool = False,
    ) -> Event | None:
        if self.excludes.file_excluded(rel, parents_checked=inside):
            return None
        if not inside:
            return Skip(rel, REASON_OUTSIDE)
        if self.ignores.is_ignored(rel, False):
            return Skip(rel, REASON_IGNORED)
        return self._accept(rel, path, is_link=is_link, via_link=via_link, regular=regular)

    def events(self) -> Iterator[Event]:
        """Every matched file once, as a candidate or a skip, in output order."""
        sources = [self._literal_events()] if self.includes.literals else []
        for anchor, patterns in sorted(self.includes.walks.items()):
            sources.append(self._walk_events(anchor, patterns))
        merged = (
            heapq.merge(*sources, key=_event_key)
            if len(sources) > 1
            else iter(sources[0] if sources else ())
        )
        previous: str | None = None
        for event in merged:
            if event.rel != previous:  # the same path from two patterns: the first wins
                previous = event.rel
                yield event


_FILE, _DIRECTORY, _LINKED_DIRECTORY = range(3)


def iter_selection(request: SelectRequest) -> tuple[str, Iterator[Event]]:
    """The root (absolute) and the matched files as a stream, in output order.

    The walk advances as the stream is consumed, so a caller reading each candidate as
    it comes holds no more than one directory listing per level of the tree.
    """
    selector = _Selector(request)
    return selector.root, selector.events()


def select_files(request: SelectRequest) -> Selection:
    """Select the files to read, in output order, and the matched files to skip."""
    root, events = iter_selection(request)
    candidates: list[Candidate] = []
    outside: list[Skip] = []
    skips: list[Skip] = []
    for event in events:
        if isinstance(event, Candidate):
            candidates.append(event)
        elif event.reason == REASON_OUTSIDE:
            outside.append(event)
        else:
            skips.append(event)
    return Selection(root, tuple(candidates), (*outside, *skips))
