"""The files a budget left out, named as `glob`'s closing notice names them: a directory
whose files are all left out by its name (`docs/ (12 files)`), files next to each other
in one directory together (`src/{a.py, b.py}`), other files by their path; and that
notice, in the first of its forms that fits its share of the budget."""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence

from readmany.frame import weigh
from readmany.frame.paths import header_path, quoted
from readmany.limits import NO_LIMIT
from readmany.units import utf8_len

NOTE_SHARE = 4  # the closing notice names files in at most a quarter of a budget of bytes
NOTE_TOKEN_SHARE = 20  # ... and in at most 5% of a budget of tokens
NOTE_WITHOUT_BYTES = 1 << 13  # ... or, in a budget of lines alone, in at most 8 KiB
SHOWN_NAMES = 3  # names in a notice too long to name them all
STDERR_CHARS = 240  # stderr names every file left out where that takes at most this ...
SHOWN_PLACES = 6  # ... else the places that hold the most of them, and their kinds


def left_out_note(
    names: Sequence[str],
    count: int,
    total: int,
    options: Sequence[str],
    *,
    max_bytes: int,
    max_tokens: float,
    tokens: bool,
) -> str:
    """The closing notice: the `count` files of `total` the budget left out (`names`),
    and the budget that holds all (`options`).

    It names every file where that takes at most a quarter of a budget of bytes and
    5% of a budget of tokens (8 KiB where only lines are counted); else the first few
    and the count, else the count alone, the rest being named in the `--json` details
    (and counted by place and kind on stderr); else (a tiny budget) nothing. `tokens`:
    the budget counts tokens (`max_tokens`)."""
    tail = f" All {total} take {' '.join(options)}." if options else ""
    files = f"{count} {'file' if count == 1 else 'files'}"
    first = ", ".join(names[:SHOWN_NAMES])
    forms = (
        f"[Left out by the budget: {', '.join(names)}.{tail}]",
        f"[Left out by the budget: {files}: {first}, … (all named in --json "
        f"details.packing).{tail}]",
        f"[Left out by the budget: {files}.]",
    )
    share = NOTE_WITHOUT_BYTES  # a budget of lines alone
    token_share = max_tokens / NOTE_TOKEN_SHARE
    if max_bytes != NO_LIMIT:
        share = max_bytes // NOTE_SHARE
    elif tokens:
        share = NO_LIMIT
    for form in forms:
        if utf8_len(form) <= share and (not tokens or weigh(form) <= token_share):
            return form
    return ""


class LeftOutNames:
    """The names of files left out, of a run's files in output order: `rels` (None for
    a section that is no file, named by its path), `paths` as shown, and `shown`, how a
    root-relative path is shown. What it names is kept: the plans made one after the
    other name mostly the same files and groups."""

    def __init__(
        self, rels: Sequence[str | None], paths: Sequence[str], shown: Callable[[str], str]
    ) -> None:
        self._rels = rels
        self._paths = paths
        self._shown = shown
        # Each file's directory ("" at the root), each directory once; None for the diff.
        directories: dict[str, str] = {}
        self._parents: list[str | None] = []
        for rel in rels:
            parent = rel.rpartition("/")[0] if rel is not None else None
            if parent is not None:
                parent = directories.setdefault(parent, parent)
            self._parents.append(parent)
        # Each directory and the one above it ("" at the root), the deepest first: for
        # every plan's count, worked out once a run.
        self._up = _directories_above(directories)
        self._deepest_first = sorted(self._up, key=len, reverse=True)
        self._files_in = self._files_of(parent for parent in self._parents if parent is not None)
        self._names: tuple[tuple[int, ...], list[str]] | None = None  # the last names
        self._shown_names: dict[int, str] = {}  # position -> the file's name in a notice
        self._groups: dict[tuple[int, ...], list[str]] = {}  # positions -> their names
        self._base_names: dict[int, str | None] = {}  # position -> its name in a group

    def names(self, omitted: Sequence[int]) -> list[str]:
        """The files left out, in output order: a directory whose files are all left out
        by its name (`docs/ (12 files)`), files next to each other in one directory
        together (`src/{a.py, b.py}`), other files by their path."""
        key = tuple(omitted)
        if self._names is not None and self._names[0] == key:
            return self._names[1]
        parents = self._parents
        files_in = self._files_in
        left_in = self._files_of(parent for i in omitted if (parent := parents[i]) is not None)
        whole = {d for d, count in left_in.items() if count == files_in[d] and count > 1}
        highest: dict[str, str | None] = {}  # parent directory -> the highest left out whole
        names: list[str] = []
        named: set[str] = set()
        group_parent, group = "", list[int]()
        # Files next to each other in one directory come as one run: each run is judged
        # once, as its first file would be, and the others follow it.
        for parent, run in itertools.groupby(omitted, parents.__getitem__):
            if parent is None:  # the diff
                names.extend(self._grouped(group_parent, group))
                group_parent, group = "", []
                names.extend(_name(self._paths[position]) for position in run)
                continue
            directory = _highest(parent, whole, highest)
            if directory is not None:
                if directory not in named:
                    named.add(directory)
                    names.extend(self._grouped(group_parent, group))
                    group_parent, group = "", []
                    names.append(f"{self._shown_dir(directory)} ({files_in[directory]} files)")
                continue
            if group and parent == group_parent:
                group.extend(run)
                continue
            names.extend(self._grouped(group_parent, group))
            group_parent, group = parent, list(run)
        names.extend(self._grouped(group_parent, group))
        self._names = key, names
        return names

    def line(
        self, omitted: Sequence[int], total: int, kinds: Sequence[str] = (), *, tree: bool = False
    ) -> str:
        """What stderr says of the files left out, in one line: every name (as `names`)
        where that is short, else the places holding most of them (`test/ (120 files)`),
        how many of each kind (`kinds`, by file: "test", "CI"), and where all are named
        (`tree`: the output's tree marks them already)."""
        head = f"({len(omitted)} of {total}): "
        names = ", ".join(self.names(omitted))
        if len(names) <= STDERR_CHARS:
            return head + names
        places = self._places(omitted)
        shown = [
            f"{self._shown_dir(place)} ({files} file{'s' if files != 1 else ''})"
            if what == "directory"
            else (_name(self._shown(place)) if what == "file" else _name(place))
            for place, what, files in places[:SHOWN_PLACES]
        ]
        if len(places) > SHOWN_PLACES:
            shown.append(f"and {len(places) - SHOWN_PLACES} more")
        summary = head + ", ".join(shown)
        if kinds:
            counted = sorted(Counter(kinds).items(), key=lambda kind: (-kind[1], kind[0]))
            summary += "; by kind: " + ", ".join(f"{n} {kind}" for kind, n in counted)
        if tree:
            return (
                summary + "; marked in the tree, all named in --json details.packing.omittedPaths"
            )
        return summary + "; all named in --json details.packing.omittedPaths; --tree marks them"

    def _places(self, omitted: Sequence[int]) -> list[tuple[str, str, int]]:
        """Where the files left out are, most first: the directories at the top (or at
        the first depth where they are in more than one place) with their counts, the
        files beside them, and a section that is no file (the diff) by its path."""
        rels = [rel for position in omitted if (rel := self._rels[position]) is not None]
        # All files in one directory: the places are beneath it, one level below the
        # directory all of them share (found once, not a level at a time: a tree
        # thousands of directories deep is walked once).
        depth = _shared_depth(rel.rpartition("/")[0] for rel in rels) + 1
        counts: Counter[tuple[str, str]] = Counter()
        for position in omitted:
            rel = self._rels[position]
            if rel is None:
                counts[self._paths[position], "section"] += 1
                continue
            parts = rel.split("/", depth)
            if len(parts) > depth:
                counts["/".join(parts[:depth]), "directory"] += 1
            else:
                counts[rel, "file"] += 1
        ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        return [(place, what, files) for (place, what), files in ordered]

    def _files_of(self, parents: Iterable[str]) -> Counter[str]:
        """How many of the files in `parents` (their directories, of this run's files)
        each directory holds, the files beneath it included (`` is no directory)."""
        counts: Counter[str] = Counter(parents)
        del counts[""]
        up = self._up
        for directory in self._deepest_first:  # a directory before the one above it
            count = counts.get(directory)
            if count and (above := up[directory]):
                counts[above] += count
        return counts

    def _shown_dir(self, directory: str) -> str:
        return _name(self._shown(directory + "/"))

    def _grouped(self, parent: str, positions: list[int]) -> list[str]:
        """Files of one directory: `dir/a.py`, or `dir/{a.py, b.py}` for more than one
        (kept: the plans made one after the other name mostly the same groups)."""
        if not positions:
            return []
        key = tuple(positions)
        grouped = self._groups.get(key)
        if grouped is None:
            grouped = self._groups[key] = self._group(parent, positions)
        return grouped

    def _group(self, parent: str, positions: list[int]) -> list[str]:
        if len(positions) == 1 or not parent:
            return [self._file_name(position) for position in positions]
        rels = self._rels
        names = [str(rels[position]).rpartition("/")[2] for position in positions]
        if not _plain_names("/".join(names)):  # some name is quoted, or cannot be grouped
            names = [name for position in positions if (name := self._base_name(position))]
            if len(names) < len(positions):  # a brace or a comma would blur the group
                return [self._file_name(position) for position in positions]
        shown = _name(self._shown(parent + "/"))
        return [f"{shown}{{{', '.join(names)}}}"]

    def _base_name(self, position: int) -> str | None:
        """A file's own name as a group names it; None if it cannot be in a group."""
        if position not in self._base_names:
            name = str(self._rels[position]).rpartition("/")[2]
            self._base_names[position] = None if _BRACES.intersection(name) else _name(name)
        return self._base_names[position]

    def _file_name(self, position: int) -> str:
        """A file's path as a notice names it (kept: every plan names most files again)."""
        name = self._shown_names.get(position)
        if name is None:
            name = self._shown_names[position] = _name(self._shown(str(self._rels[position])))
        return name


_BRACES = frozenset("{},")


# A directory's ancestors are walked once for all the directories below them
# (`LeftOutNames._files_of`, `_highest`), not once a directory: a chain thousands of
# directories deep costs what its names hold, not that times its depth (2,000 deep took
# 12 s to name the files a budget left out).


def _directories_above(directories: dict[str, str]) -> dict[str, str]:
    """Every directory of `directories` (each name its own string) and above them, and
    the one above each ("" at the top): each directory's name held once."""
    up: dict[str, str] = {}
    for directory in list(directories):
        while directory and directory not in up:
            above = directory.rpartition("/")[0]
            above = directories.setdefault(above, above)
            up[directory] = above
            directory = above
    return up


def _highest(directory: str, whole: Collection[str], highest: dict[str, str | None]) -> str | None:
    """The highest of `directory` and its ancestors in `whole`, or None; `highest` keeps
    what was found, for every directory on the way."""
    below: list[str] = []
    while directory and directory not in highest:
        below.append(directory)
        directory = directory.rpartition("/")[0]
    found = highest[directory] if directory else None
    for directory in reversed(below):
        if found is None and directory in whole:
            found = directory
        highest[directory] = found
    return found


def _shared_depth(directories: Iterable[str]) -> int:
    """How many levels of directory all of `directories` share (`a/b/c`, `a/b/d` share
    2; `a` and `` share none)."""
    ordered = sorted({directory + "/" for directory in directories})
    if not ordered or ordered[0] == "/":  # none, or a file at the top
        return 0
    shared = os.path.commonpath(ordered[:1] + ordered[-1:])  # what these share, all share
    return shared.count("/") + 1 if shared else 0


def _plain_names(joined: str) -> bool:
    """Whether every name of `joined` (names joined by `/`, which no name holds) is
    grouped as it is: `_base_name` would neither quote it nor refuse it. Thousands of
    names are looked at once, not one by one."""
    return (
        joined.isascii()
        and joined.isprintable()
        and not _UNPLAIN.intersection(joined)
        and not (joined.startswith(" ") or joined.endswith(" "))
        and "/ " not in joined
        and " /" not in joined
    )


_UNPLAIN = frozenset('{},"[')  # a brace or comma blurs a group; a quote or bracket is quoted


def _name(path: str) -> str:
    """A path as the notice names it: quoted where a comma list would blur it."""
    shown = header_path(path)
    if shown == path and (", " in path or path != path.strip() or path.startswith("[")):
        return quoted(path)
    return shown
