"""The walk: include patterns and `--stdin` paths to an ordered stream of candidates.

The tree is walked with `os.scandir`, one directory at a time, entries sorted by name.
Include patterns are matched segment by segment as the walk goes down, so only
directories that some pattern can still match below are listed; directories that are
excluded or ignored are pruned before they are listed. Every file a pattern matched
ends up either as a candidate or as a skip record with its reason, except files removed
by exclude patterns, which are dropped silently.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence

from readmany.errors import UsageError
from readmany.record import NamedTuple
from readmany.select.boundary import (
    blocked,
    blocked_name,
    inside,
    is_secret_name,
    join_clean,
    links_to_credentials,
    rel_parts,
    self_or_above,
    stat_mode,
)
from readmany.select.candidates import (
    REASON_DANGLING_LINK,
    REASON_DEFAULT_EXCLUDE,
    REASON_EMPTY_DIRECTORY,
    REASON_EXCLUDED,
    REASON_IGNORED,
    REASON_LINK_OUTSIDE,
    REASON_LINKED_DIRECTORY,
    REASON_NO_MATCH,
    REASON_OUTPUT,
    REASON_OUTSIDE,
    REASON_SECRET_FILE,
    Candidate,
    Event,
    Skip,
)
from readmany.select.excludes import DEFAULT_EXCLUDES, Excludes
from readmany.select.ignore import GITIGNORE, IgnoreMatcher
from readmany.select.listing import DirectoryEntry, LeadsOutside, Lister, outside_entry
from readmany.select.patterns import (
    GLOBSTAR,
    Includes,
    Segment,
    check_listed,
    compile_includes,
    glob_segment,
)


class WalkRules(NamedTuple):
    """How the walk treats what is named and what it leaves out: the face's choice
    (`faces.Face`), given as values. The defaults are the reference's rules."""

    # `--stdin` paths kept in the order listed; else sorted in with the rest.
    listed_order: bool = False
    # Files named exactly (a literal pattern, a `--stdin` path) are read whatever the
    # ignore files and default excludes say, a link's target too; only `--exclude`, the
    # boundary and the kind leave them out. Else they are dropped like any other.
    named_paths_bypass_ignore: bool = False
    # Every path left out is reported with its reason (a pattern that matched nothing, a
    # default exclude, a link to a directory or to nothing, an empty listed directory,
    # a named file `--exclude` removed); else some are dropped silently.
    report_left_out: bool = False
    # A `--stdin` path asks for an asset (an image, a PDF) as a named one does.
    listed_paths_request_assets: bool = True
    # A listed link to a directory is walked into; else it is judged as a file.
    walk_listed_directory_links: bool = True
    # A pattern (or a listed directory) whose fixed directory is outside the root is
    # walked, each file below reported as outside; else it is refused as one entry, the
    # pattern itself, and never listed: no name from outside reaches the report.
    list_outside_directories: bool = True


class SelectRequest(NamedTuple):
    """What to select, relative to `root`."""

    root: str
    patterns: tuple[str, ...]
    # Exact paths (from stdin), never globs: any iterable, read once, as the walk goes.
    literal_paths: Iterable[str] = ()
    excludes: tuple[str, ...] = ()
    use_default_excludes: bool = True
    use_gitignore: bool = True
    ignore_files: tuple[str, ...] = ()
    recursive: bool = True
    rules: WalkRules = WalkRules()
    outputs: tuple[str, ...] = ()  # the `-o` target (absolute, and real): never selected
    # git's global excludes file (`core.excludesFile`) in a git tree (the reference's
    # rules read none).
    global_excludes: bool = True


_ASTRAL = "[\U00010000-\U0010ffff]"  # compiled on first use, by re's cache


def sort_key(rel: str) -> str:
    """Output order: UTF-16 code units, as JavaScript sorts strings.

    Code points and UTF-16 code units sort alike except for characters beyond U+FFFF,
    which UTF-16 writes as surrogates (below U+E000): only a string holding one is
    spelled out as code units. Everything else is its own key, at no cost.
    """
    if rel.isascii() or re.search(_ASTRAL, rel) is None:
        return rel
    import struct

    units = rel.encode("utf-16-le", "surrogatepass")
    return "".join(map(chr, struct.unpack(f"<{len(units) // 2}H", units)))


_State = frozenset[tuple[int, int]]


def _closure(patterns: Sequence[tuple[Segment, ...]], states: Iterable[tuple[int, int]]) -> _State:
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


def _step(patterns: Sequence[tuple[Segment, ...]], states: _State, name: str) -> _Step:
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


def _matches_below(patterns: Sequence[tuple[Segment, ...]], step: _Step) -> bool:
    """Whether the patterns match what a directory holds without knowing its names: a
    pattern names the directory (`node_modules/**`, `dist/*.js`), or matches any name
    below it (`.`, `src/`, `**`, `**/*`). A directory left out (a default exclude, ignored)
    is reported only then: `**/*.py` says nothing of a `node_modules/` it never looks into."""
    if step.below_link:  # states reached by the directory's name itself
        return True
    return any(all(map(_any_name, patterns[pi][si:])) for pi, si in step.below)


def _any_name(segment: Segment) -> bool:
    return segment.globstar or (segment.text == "*" and not segment.exact)


def _first(item: tuple[str, object, object, object, object]) -> str:
    return item[0]


def _blocked_directory(rel_dir: str) -> bool:
    return blocked_name(rel_dir.rpartition("/")[2])


def _event_key(event: Event) -> str:
    return sort_key(event.rel)


class _Verdicts:
    """What the walk makes of a path it reaches, a file or a directory: a candidate, a
    skip with its reason, or nothing (an `--exclude` drops it silently). The rules that
    decide, the excludes, ignore files and `-o` targets, and what is known of the
    directories above (`blocked_dirs`)."""

    def __init__(self, root: str, root_real: str, request: SelectRequest) -> None:
        self.root = root
        self.root_real = root_real
        self.rules = rules = request.rules
        # Reported, or bypassed by a named path, the default excludes stay apart.
        self.defaults: Excludes | None = None
        if not request.use_default_excludes:
            self.excludes = Excludes(request.excludes, root)
        elif not (rules.report_left_out or rules.named_paths_bypass_ignore):
            self.excludes = Excludes((*DEFAULT_EXCLUDES, *request.excludes), root)
        else:
            self.excludes = Excludes(request.excludes, root)
            self.defaults = Excludes(DEFAULT_EXCLUDES, root)
        self.outputs = frozenset(request.outputs)
        # A file can be the output (or its temporary file) only by one of these names.
        self.output_names = frozenset(os.path.basename(out) for out in request.outputs)
        self.output_temps = tuple(
            (os.path.dirname(out) + "/." + os.path.basename(out) + ".", ".tmp")
            for out in request.outputs
        )
        self.ignores = IgnoreMatcher(
            root,
            use_gitignore=request.use_gitignore,
            ignore_files=request.ignore_files,
            global_excludes=request.global_excludes,
        )
        self.blocked_dirs: dict[str, bool] = {}
        self._root_slash = root.rstrip("/") + "/"
        self._root_real_slash = root_real.rstrip("/") + "/"

    # -- files --

    def refused(self, rel: str) -> bool:
        """Whether a segment of `rel` is one no file may be read under (or named)."""
        parent, _, name = rel.rpartition("/")
        if blocked_name(name):
            return True
        return self_or_above(self.blocked_dirs, parent, _blocked_directory)

    def accept(
        self, rel: str, path: str, *, is_link: bool, via_link: bool, regular: bool = False
    ) -> Event:
        """A file matched and not excluded: a candidate, or a skip with its reason."""
        if self.outputs and self.is_output(path, linked=is_link or via_link):
            return Skip(rel, REASON_OUTPUT)
        if not is_link and not via_link:  # the common case: no link to resolve
            if self.refused(rel):
                return Skip(rel, REASON_OUTSIDE)
            if is_secret_name(rel):
                return Skip(rel, REASON_SECRET_FILE)
            return Candidate(rel, path, regular)
        try:
            real = os.path.realpath(path)
        except OSError as exc:  # a link that cannot be followed (EACCES, …)
            return _unfollowed(rel, exc)
        return self.accept_real(rel, path, real, is_link=is_link, regular=regular)

    def accept_real(
        self,
        rel: str,
        path: str,
        real: str | None,
        *,
        is_link: bool,
        regular: bool,
        named: bool = False,
        requested: bool = False,
    ) -> Event:
        """As `accept`, `real` being the resolved path where links may be on the way."""
        real_rel = rel
        if real is not None:
            if not inside(real, self.root_real):
                return Skip(rel, REASON_LINK_OUTSIDE) if is_link else Skip(rel, REASON_OUTSIDE)
            real_rel = (
                real[len(self._root_real_slash) :]
                if real.startswith(self._root_real_slash)
                else "/".join(rel_parts(real, self.root_real))
            )
            bypass = named and self.rules.named_paths_bypass_ignore
            ignored_target = is_link and real_rel and not bypass
            if ignored_target and self.ignores.is_path_ignored(real_rel, False):
                return Skip(rel, REASON_IGNORED)
        if self.refused(rel) or (real_rel != rel and blocked(real_rel.split("/"))):
            return Skip(rel, REASON_OUTSIDE)
        if is_secret_name(rel) or (
            real_rel != rel and (is_secret_name(real_rel) or links_to_credentials(rel, real_rel))
        ):
            return Skip(rel, REASON_SECRET_FILE)
        if is_link and self.rules.report_left_out and real is not None:
            # Not a file, so not a failed read: a link to a directory, or to nothing.
            try:
                if stat.S_ISDIR(os.stat(real).st_mode):
                    return Skip(rel, REASON_LINKED_DIRECTORY)
            except (FileNotFoundError, NotADirectoryError):
                return Skip(rel, REASON_DANGLING_LINK)
            except OSError:
                pass  # unreadable, a loop: the read says so
        linked = real_rel if real is not None and (is_link or real_rel != rel) else None
        return Candidate(rel, path, regular, requested, linked)

    def is_output(self, path: str, *, linked: bool) -> bool:
        """Whether `path` is the `-o` target or the temporary file it is written to.

        Without a link on the way (`linked`), only a file of the target's name can be it:
        the common case costs a set lookup, not a `realpath` a file."""
        named = linked or path.rpartition("/")[2] in self.output_names
        if named and (path in self.outputs or _real_or_none(path) in self.outputs):
            return True
        return any(
            path.startswith(head) and path.endswith(tail) for head, tail in self.output_temps
        )

    def outside(self, directory: str) -> bool:
        """Whether a directory a pattern or a listed path starts from lies outside the
        root (by its path, and where its links lead): the default face never lists it, so
        no name below it is reported."""
        if inside(directory, self.root) and not os.path.islink(directory):
            return False  # a link to a directory (`lnk`) is judged by where it leads
        try:
            return not inside(os.path.realpath(directory), self.root_real)
        except (OSError, ValueError):
            return True

    def relative(self, path: str) -> str:
        if path.startswith(self._root_slash):
            return path[len(self._root_slash) :]
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    # -- what the walk finds --

    def may_enter(
        self, rel: str, inside: bool, *, is_dir: bool, quiet: bool = False
    ) -> bool | Skip:
        """True to walk into a directory; False or a skip record (ignored) not to."""
        if not self.excludes.empty and self.excludes.dir_pruned(rel):
            return False
        if self.defaults is not None and self.defaults.dir_pruned(rel):
            # `.git` is the repository's own store, never a file of the project.
            if quiet or rel.rpartition("/")[2].lower() == ".git":
                return False
            return Skip(rel + "/", REASON_DEFAULT_EXCLUDE)
        if not inside or rel == ".":
            return True
        if self.ignores.is_ignored(rel, is_dir):
            # A matched link to an ignored directory was reported already, as a file.
            return False if quiet else Skip(rel + "/", REASON_IGNORED)
        return True

    def leaf(
        self,
        rel: str,
        path: str,
        inside: bool,
        *,
        is_link: bool,
        via_link: bool,
        regular: bool = False,
    ) -> Event | None:
        if not self.excludes.empty and self.excludes.file_excluded(rel, parents_checked=inside):
            return None
        if self.defaults is not None and self.defaults.file_excluded(rel, parents_checked=inside):
            return Skip(rel, REASON_DEFAULT_EXCLUDE)
        if not inside:
            return Skip(rel, REASON_OUTSIDE)
        if self.ignores.is_ignored(rel, False):
            return Skip(rel, REASON_IGNORED)
        return self.accept(rel, path, is_link=is_link, via_link=via_link, regular=regular)

    def plain_file(
        self, rel: str, name: str, path: str, regular: bool, parent_refused: bool
    ) -> Event | None:
        """`leaf` for a file of the root's tree that is no link, found by no link, the
        directories above it walked (so not pruned) and `parent_refused` judged once for
        them all: the same decisions, in the same order, each name split once."""
        excludes = self.excludes
        if not excludes.empty and excludes.walked_file_excluded(rel, name):
            return None
        defaults = self.defaults
        if defaults is not None and defaults.walked_file_excluded(rel, name):
            return Skip(rel, REASON_DEFAULT_EXCLUDE)
        if self.ignores.is_ignored(rel, False):
            return Skip(rel, REASON_IGNORED)
        if self.outputs and self.is_output(path, linked=False):
            return Skip(rel, REASON_OUTPUT)
        if parent_refused or blocked_name(name):
            return Skip(rel, REASON_OUTSIDE)
        if is_secret_name(name):
            return Skip(rel, REASON_SECRET_FILE)
        return Candidate(rel, path, regular)


class _TreeWalk:
    """The walk of a directory tree by patterns, matched segment by segment as it goes
    down; noting which command-line patterns matched (`unmatched` holds those that did
    not yet)."""

    def __init__(self, verdicts: _Verdicts, unmatched: set[int]) -> None:
        self.verdicts = verdicts
        self.root = verdicts.root
        self.unmatched = unmatched

    def _listing(
        self, lister: Lister, directory: str, rel: str | None
    ) -> list[DirectoryEntry] | str:
        """The entries of a directory, or why it cannot be listed: beneath the root's
        descriptor, no link swapped in followed (`listing.py`), for a directory inside the
        root; by its path for one outside it (only where the face lists those). `rel`:
        its path below the root, for a directory of the root's tree reached by no link."""
        if rel is not None or inside(directory, self.root):
            try:
                return lister.entries(directory, rel)
            except LeadsOutside as exc:
                if not self.verdicts.rules.list_outside_directories:
                    return f"Read error: cannot list directory: {exc.strerror}"
                # the reference's face lists it, and judges each file in it as outside
        try:
            with os.scandir(directory) as it:
                listed = list(it)
            return [outside_entry(e) for e in listed]
        except OSError as exc:
            return f"Read error: cannot list directory: {exc.strerror or exc}"

    def events(
        self,
        anchor: str,
        patterns: Sequence[tuple[Segment, ...]],
        owners: Sequence[int] = (),
    ) -> Iterator[Event]:
        """The walk below `anchor`, depth first, in output order.

        A directory's entries are visited in the order of their paths: a directory
        sorts as its name plus `/`, so its subtree comes exactly where the sorted paths
        put it; a link to a directory that is matched itself comes twice, once as a
        name and once as a subtree.
        """
        start = _closure(patterns, ((pi, 0) for pi in range(len(patterns))))
        in_root = anchor == self.root
        lister = Lister(self.root, self.verdicts.root_real)
        alike: dict[_State, tuple[_Step | None, bool]] = {}
        # Paths found from an anchor outside the root may reach it through links.
        stack = [
            iter(
                self._directory_items(
                    lister, patterns, owners, in_root, anchor, "", start, not in_root, alike
                )
            )
        ]
        try:
            while stack:
                item = next(stack[-1], None)
                if item is None:
                    stack.pop()
                    continue
                if isinstance(item, (Candidate, Skip)):
                    yield item
                    continue
                directory, rel, states, via_link = item
                items = self._directory_items(
                    lister, patterns, owners, in_root, directory, rel, states, via_link, alike
                )
                stack.append(iter(items))
        finally:
            lister.close()

    def _directory_items(
        self,
        lister: Lister,
        patterns: Sequence[tuple[Segment, ...]],
        owners: Sequence[int],
        in_root: bool,
        directory: str,
        rel_dir: str,
        states: _State,
        via_link: bool,
        alike: dict[_State, tuple[_Step | None, bool]],
    ) -> Iterator[Event | tuple[str, str, _State, bool]]:
        """A directory's matched files as events, its subdirectories to enter as tuples.
        `alike`: of the walk's states, the step every name takes in them where all take
        the same (else None), and whether it matches below a directory's name."""
        entries = self._listing(lister, directory, rel_dir if in_root and not via_link else None)
        if isinstance(entries, str):
            yield Skip((rel_dir + "/") if rel_dir else "./", entries, failed=True)
            return
        verdicts = self.verdicts
        if in_root:
            verdicts.ignores.note_directory(rel_dir, any(e.name == GITIGNORE for e in entries))
        keyed: list[tuple[str, int, DirectoryEntry, _Step]] = []
        # Below a `**` with nothing after it, every name steps the same way: once will do
        # (and once a walk: most directories are in the same states).
        known = alike.get(states)
        if known is None:
            every = all(si == len(patterns[pi]) or patterns[pi][si].globstar for pi, si in states)
            step = _step(patterns, states, "") if every else None
            known = alike[states] = (step, step is not None and _matches_below(patterns, step))
        same_for_all, same_below = known
        for entry in entries:
            step = same_for_all or _step(patterns, states, entry.name)
            if not step.accepts and not step.below:
                continue
            is_link = entry.is_link
            if entry.is_directory:
                if step.below:
                    keyed.append((sort_key(entry.name + "/"), _DIRECTORY, entry, step))
                continue
            if step.accepts:
                keyed.append((sort_key(entry.name), _FILE, entry, step))
                if self.unmatched and owners:
                    self._note_matches(patterns, owners, states, entry.name)
            if is_link and step.below_link:
                keyed.append((sort_key(entry.name + "/"), _LINKED_DIRECTORY, entry, step))
        keyed.sort(key=lambda item: item[0])
        # Most files: in the root's tree, no link on the way (`plain_file`).
        plain = in_root and not via_link
        parent_refused: bool | None = None  # whether a directory above refuses its files
        prefix = directory + "/" if directory != "/" else "/"
        for _key, what, entry, step in keyed:
            path = prefix + entry.name
            if in_root:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            else:
                rel = os.path.relpath(path, self.root).replace(os.sep, "/")
            inside = in_root or not rel.startswith("../")
            if what == _DIRECTORY:
                below = same_below if same_for_all else _matches_below(patterns, step)
                verdict = verdicts.may_enter(rel, inside, is_dir=True, quiet=not below)
                if isinstance(verdict, Skip):
                    yield verdict
                elif verdict:
                    yield (path, rel, step.below, via_link)
            elif what == _FILE:
                is_link = entry.is_link
                regular = entry.is_file
                if plain and not is_link:
                    if parent_refused is None:
                        parent_refused = self_or_above(
                            verdicts.blocked_dirs, rel_dir, _blocked_directory
                        )
                    event = verdicts.plain_file(rel, entry.name, path, regular, parent_refused)
                else:
                    event = verdicts.leaf(
                        rel, path, inside, is_link=is_link, via_link=via_link, regular=regular
                    )
                if event is not None:
                    yield event
            elif entry.leads_to_directory:
                if not verdicts.rules.list_outside_directories and verdicts.outside(path):
                    # a link a pattern names (`lnk/**`) that leads out: never listed
                    yield Skip(rel, REASON_LINK_OUTSIDE)
                    continue
                verdict = verdicts.may_enter(rel, inside, is_dir=False, quiet=step.accepts)
                if isinstance(verdict, Skip):
                    yield verdict
                elif verdict:
                    yield (path, rel, step.below_link, True)
        if in_root:  # every directory below it is done too: its rules are not needed
            verdicts.ignores.leave_directory(rel_dir)
            verdicts.blocked_dirs.pop(rel_dir, None)  # nor what it was judged: memory flat

    def _note_matches(
        self,
        patterns: Sequence[tuple[Segment, ...]],
        owners: Sequence[int],
        states: _State,
        name: str,
    ) -> None:
        """Mark the command-line patterns that match `name` here as having matched."""
        for pi, si in states:
            segments = patterns[pi]
            if si >= len(segments):
                continue
            if segments[si].globstar:
                found = _closure(patterns, [(pi, si)])
            elif segments[si].matches(name):
                found = _closure(patterns, [(pi, si + 1)])
            else:
                continue
            if any(fi == pi and fs == len(segments) for fi, fs in found):
                self.unmatched.discard(owners[pi])


class _NamedPaths:
    """The paths named exactly (literal patterns, `--stdin` paths), in output order or as
    listed: each judged where it stands, a directory walked where it is named."""

    def __init__(
        self, verdicts: _Verdicts, tree: _TreeWalk, includes: Includes, recursive: bool
    ) -> None:
        self.verdicts = verdicts
        self.tree = tree
        self.literals = includes.literals
        self.recursive = recursive
        self.root = verdicts.root
        self._pruned: dict[str, bool] = {}
        self._real_directories: dict[str, str] = {}

    def _literal(
        self, path: str, rel: str, regular: bool, is_link: bool, *, listed: bool = False
    ) -> Event | None:
        """A path named exactly: `rel` is `relative(path)`; `listed`: from `--stdin`."""
        verdicts = self.verdicts
        if not inside(path, self.root):
            return None if verdicts.excludes.file_excluded(rel) else Skip(rel, REASON_OUTSIDE)
        parent = rel.rpartition("/")[0]
        # `_pruned_directory` judges every directory above, as a walk would have.
        excluded = self._pruned_directory(parent) or verdicts.excludes.file_excluded(
            rel, parents_checked=True
        )
        if verdicts.rules.named_paths_bypass_ignore:
            # Named means named: only `--exclude`, the boundary and the kind leave it out.
            if excluded:
                return Skip(rel, REASON_EXCLUDED)
            if verdicts.outputs and verdicts.is_output(path, linked=True):
                return Skip(rel, REASON_OUTPUT)
        elif excluded:
            return None
        elif verdicts.ignores.is_path_ignored(rel, False):
            return Skip(rel, REASON_IGNORED)
        # Resolve the directory once for all its files; only a link itself needs more.
        directory, _, name = path.rpartition("/")
        try:
            real = (
                os.path.realpath(path) if is_link else f"{self._real_directory(directory)}/{name}"
            )
        except OSError as exc:  # a link on the way that cannot be followed (EACCES, …)
            return _unfollowed(rel, exc)
        regular = regular and not is_link
        # Naming a file asks for it even as an asset; a `--stdin` list asks for no asset
        # (in the default face: a list is not a request to inline every image in it).
        requested = verdicts.rules.listed_paths_request_assets or not listed
        return verdicts.accept_real(
            rel, path, real, is_link=is_link, regular=regular, named=True, requested=requested
        )

    def _pruned_directory(self, rel_dir: str) -> bool:
        """Whether an exclude prunes `rel_dir` or a directory above it."""
        return self_or_above(self._pruned, rel_dir, self.verdicts.excludes.dir_pruned)

    def _real_directory(self, directory: str) -> str:
        """`realpath(directory)`, from its parent's below the root: one lstat, not one a part."""
        pending: list[tuple[str, str]] = []  # (directory, name): known from the parent's
        real = self._real_directories.get(directory)
        while real is None:
            parent, _, name = directory.rpartition("/")
            if directory == self.root:
                real = self.verdicts.root_real
            elif inside(parent, self.root) and name not in ("", ".", ".."):
                try:
                    linked = stat.S_ISLNK(os.lstat(directory).st_mode)
                except OSError:
                    linked = True  # missing: let realpath say what it would
                if not linked:
                    pending.append((directory, name))
                    directory = parent
                    real = self._real_directories.get(directory)
                    continue
                real = os.path.realpath(directory)
            else:
                real = os.path.realpath(directory)
            self._real_directories[directory] = real
        for below, name in reversed(pending):  # any depth: no recursion
            real = self._real_directories[below] = f"{real.rstrip('/')}/{name}"
        return real

    def in_order(self) -> Iterator[Event]:
        """The literal paths in output order (sorted as paths, not as events: less memory).

        A path from `--stdin` is looked at when its turn comes; a directory then means
        the files below it, walked and merged into the stream in order.
        """
        import heapq  # here: a walk by patterns alone needs no heap

        relative = self.verdicts.relative
        ordered = sorted(
            (
                (sort_key(rel), rel, path, regular, is_link)
                for path, regular, is_link in self.literals
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
                own_mode = stat_mode(path, follow=False)
                is_link = own_mode is not None and stat.S_ISLNK(own_mode)
                mode = stat_mode(path) if is_link else own_mode
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
        """The files below a directory named on the list (see `compile_includes`)."""
        below_dir = GLOBSTAR if self.recursive else glob_segment("*")
        if inside(path, self.root):
            parts = rel_parts(path, self.root)
            segments = (*(Segment(p, exact=True) for p in parts), below_dir)
            return self.tree.events(self.root, [segments])
        verdicts = self.verdicts
        if not verdicts.rules.list_outside_directories and verdicts.outside(path):
            return iter([Skip(verdicts.relative(path), REASON_OUTSIDE)])  # never listed
        return self.tree.events(path, [(below_dir,)])

    def as_listed(self, listed: Iterable[str]) -> Iterator[Event]:
        """The `--stdin` paths in the order given (the default face): a directory means
        the files below it, in output order, where it stands in the list."""
        verdicts = self.verdicts
        relative = verdicts.relative
        root = self.root
        memos = (verdicts.blocked_dirs, self._pruned, self._real_directories)
        for raw in listed:
            check_listed(raw)
            if not raw:
                continue
            if len(self._real_directories) > _DIRECTORY_MEMO:
                # A list is as long as it is: what is known of its directories is
                # forgotten now and then (a list from git names a directory's files
                # together, so little is looked at twice).
                for memo in memos:
                    memo.clear()
                verdicts.ignores.forget_directories()
            path = join_clean(root, raw)
            own_mode = stat_mode(path, follow=False)
            is_link = own_mode is not None and stat.S_ISLNK(own_mode)
            mode = stat_mode(path) if is_link else own_mode
            # A directory means the files below it; a link to one is an entry of its own
            # (git lists it so), not walked into by the default face: judged as a file.
            walk_in = verdicts.rules.walk_listed_directory_links or not is_link
            if mode is not None and stat.S_ISDIR(mode) and walk_in:
                found = False
                for below in self._directory_walk(path):
                    found = True
                    yield below
                if not found and verdicts.rules.report_left_out:  # a submodule not checked out
                    yield Skip(relative(path).rstrip("/") + "/", REASON_EMPTY_DIRECTORY)
                continue
            regular = mode is not None and stat.S_ISREG(mode)
            event = self._literal(path, relative(path), regular, is_link, listed=True)
            if event is not None:
                yield event


class _Selector:
    """Every matched file once, in output order: the walks by pattern and the named
    paths merged, then what matched nothing and the ignore files not read."""

    def __init__(self, request: SelectRequest) -> None:
        root = os.path.abspath(request.root)
        if not os.path.isdir(root):
            raise UsageError(f"root is not a directory: {request.root}")
        self.root = root
        try:
            root_real = os.path.realpath(root)
        except OSError as exc:  # a link on its way swapped while it was resolved
            raise UsageError(
                f"root cannot be resolved: {request.root}: {exc.strerror or exc}"
            ) from None
        rules = request.rules
        self.includes = compile_includes(
            request.patterns,
            request.literal_paths,
            root,
            request.recursive,
            keep_listed_order=rules.listed_order,
        )
        # Patterns that must still match something (reported: said which did not).
        self.unmatched: set[int] = set()
        self.patterns = request.patterns
        if rules.report_left_out:
            self.unmatched = set(range(len(request.patterns))) - self.includes.matched
        self.verdicts = _Verdicts(root, root_real, request)
        self.tree = _TreeWalk(self.verdicts, self.unmatched)
        self.named = _NamedPaths(self.verdicts, self.tree, self.includes, request.recursive)

    def events(self) -> Iterator[Event]:
        """Every matched file once, as a candidate or a skip, in output order."""
        sources = [self.named.in_order()] if self.includes.literals else []
        refused: dict[int, None] = {}
        verdicts = self.verdicts
        for anchor, patterns in sorted(self.includes.walks.items()):
            if not verdicts.rules.list_outside_directories and verdicts.outside(anchor):
                refused.update(dict.fromkeys(self.includes.owners[anchor]))
                continue
            sources.append(self.tree.events(anchor, patterns, self.includes.owners[anchor]))
        if refused:
            sources.append(iter(self._refused_patterns(refused)))
        merged: Iterator[Event]
        if len(sources) > 1:
            import heapq

            merged = heapq.merge(*sources, key=_event_key)
        else:
            merged = sources[0] if sources else iter(())
        previous: str | None = None
        listed = self.includes.listed
        if not listed:
            for event in merged:
                if event.rel != previous:  # the same path from two patterns: the first wins
                    previous = event.rel
                    yield event
        else:
            # What the listed paths must not repeat: a compact set, for a list can be long.
            from readmany.select.seen import SeenPaths

            seen = SeenPaths()
            try:
                for event in merged:
                    if event.rel != previous:
                        previous = event.rel
                        seen.add(event.rel)
                        yield event
                for event in self.named.as_listed(listed):
                    if seen.add(event.rel):
                        yield event
            finally:
                seen.close()
        for owner in sorted(self.unmatched):
            yield Skip(self.patterns[owner], REASON_NO_MATCH, failed=True)
        for problem in self.verdicts.ignores.problems:  # its rules were not applied: say so
            where = self.verdicts.relative(problem.path)
            yield Skip(where, f"ignore file not read ({problem.reason})")

    def _refused_patterns(self, owners: Iterable[int]) -> list[Skip]:
        """Each pattern whose fixed directory is outside the root, once, as it was given."""
        skips = {
            self.patterns[owner]: Skip(self.patterns[owner], REASON_OUTSIDE) for owner in owners
        }
        self.unmatched.difference_update(owners)
        return sorted(skips.values(), key=_event_key)


_DIRECTORY_MEMO = 4096  # directories known at most, while a `--stdin` list is read


def _real_or_none(path: str) -> str | None:
    """`realpath(path)`; None where a link on the way cannot be followed (it is being
    swapped, or loops): what then becomes of the path is the read's to say."""
    try:
        return os.path.realpath(path)
    except OSError:
        return None


def _unfollowed(rel: str, exc: OSError) -> Skip:
    """A path whose link could not be followed to see what it is: a failed read."""
    return Skip(rel, f"Read error: cannot follow the link: {exc.strerror or exc}", failed=True)


_FILE, _DIRECTORY, _LINKED_DIRECTORY = range(3)


def iter_selection(request: SelectRequest) -> tuple[str, Iterator[Event]]:
    """The root (absolute) and the matched files as a stream, in output order.

    The walk advances as the stream is consumed, so a caller reading each candidate as
    it comes holds no more than one directory listing per level of the tree.
    """
    selector = _Selector(request)
    return selector.root, selector.events()
