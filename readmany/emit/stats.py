"""`--stats`: what the selection costs, as a tree with a row per file and per directory.

Each row has bytes, lines and estimated tokens; a directory's are the sums of the files
under it. Within a directory the biggest come first (by tokens, then bytes; ties keep the
order given), files and directories mixed, and the root row at the top holds the total.
Given the files a budget leaves out (and the one it cuts), rows are marked: a file
`[omitted]` or `[cut]`, a directory `[omitted]` when all of it is left out, else
`[k of n files omitted]`. Rendered as aligned text for a terminal, or as JSON data.

What each row says is measured by the read stage (`read.measure.measure_for_stats`).
"""

from __future__ import annotations

import itertools
import operator
import struct
from array import array
from collections.abc import Collection, Iterable, Iterator

from readmany.frame.paths import header_path
from readmany.frame.tree import BRANCH, GAP, LAST_BRANCH, PIPE
from readmany.record import NamedTuple
from readmany.units import human_size


class StatsEntry(NamedTuple):
    """One file of the selection, with its measure."""

    path: str
    bytes: int
    lines: int
    tokens: int


class StatsNode(NamedTuple):
    """A file or a directory of the stats tree; a directory's numbers sum its files'."""

    name: str  # the last component; the root's is "."
    path: str  # relative, "/"-separated; the root's is ""
    is_directory: bool
    bytes: int
    lines: int
    tokens: int
    files: int  # files in it (1 for a file)
    omitted: int  # of those, left out by the budget
    cut: int  # of those, the one cut to fill the budget (0 or 1)
    children: tuple[StatsNode, ...] = ()


class StatsTree:
    """The tree of `--stats`, made as the files come: `add` places a file in its directory
    at once (a run adds them while the walk goes on), `finish` sums the directories and
    applies the budget's marks (`SummedTree`), whose rows are drawn biggest first within
    each directory. Files keep the order they were added in where their
    sizes tie, and come before the directories beside them.

    It holds no object a file: a file is its directory's index, its name (each name
    once, however many files bear it) and its numbers, in arrays; its path is its
    directory's and its name joined (kept apart only where it is written otherwise, as
    `a//b`). A directory is its path (its name the end of it) and the one it is in."""

    __slots__ = ("_directories", "_dirs", "_name", "_names", "_numbers", "_parent", "_paths")

    def __init__(self) -> None:
        # Directories, by index (the root's is 0, each after the one it is in).
        self._directories: dict[str, int] = {"": 0}  # by path
        self._dirs: list[str] = [""]  # their paths
        self._parent = array("l", (-1,))
        # Files, by index: name; directory, bytes, lines and tokens, four numbers a file.
        self._names: dict[str, str] = {}  # each name once
        self._name: list[str] = []
        self._numbers = bytearray()  # packed as an array of "q" holds them
        self._paths: dict[int, str] = {}  # a path its directory and name do not spell

    def add(self, path: str, size: int, lines: int, tokens: int) -> None:
        """One file: its root-relative path and what it costs."""
        parent, _, name = path.rpartition("/")
        index = self._directories.get(parent) if name else None
        if index is None:
            *directories, name = [part for part in path.split("/") if part] or [path]
            index = self._directory(directories)
            if path != _joined(self._dirs[index], name):
                self._paths[len(self._name)] = path
        elif not parent and len(name) != len(path):  # "/name"
            self._paths[len(self._name)] = path
        self._name.append(self._names.setdefault(name, name))
        self._numbers += _FOUR(index, size, lines, tokens)  # no call a number

    def _directory(self, directories: list[str]) -> int:
        """The index of a directory, by its names from the root, made with those it is in
        if new."""
        index, path = 0, ""
        found = self._directories
        for name in directories:
            path = f"{path}/{name}" if path else name
            child = found.get(path)
            if child is None:
                child = found[path] = len(self._dirs)
                self._dirs.append(path)
                self._parent.append(index)
            index = child
        return index

    def finish(self, omitted: Collection[str] = frozenset(), cut: str | None = None) -> SummedTree:
        """The tree with per-directory sums and `omitted` and `cut` marked (once: the
        files are the tree's from then on)."""
        self._directories = {}  # no file comes after
        numbers, self._numbers = self._numbers, bytearray()  # the tree's columns from now
        return SummedTree(
            self._name,
            self._names,
            numbers,
            self._dirs,
            self._parent,
            self._paths,
            omitted,
            cut,
        )


class SummedTree:
    """The tree of `--stats` once every file is in (`StatsTree.finish`): the directories
    summed, the budget's marks applied; its rows drawn (`pieces`) and its nodes made for
    `--json` (`tree`). A directory's numbers follow the files' in the same arrays: the
    directory `d` is row `files + d`. Each directory's children are put in order only
    while it is drawn."""

    __slots__ = (
        "_bytes",
        "_dir",
        "_dirs",
        "_lines",
        "_marks",
        "_name",
        "_names",
        "_paths",
        "_sums",
        "_tokens",
        "_within",
    )

    def __init__(
        self,
        name: list[str],
        names: dict[str, str],
        numbers: bytearray,
        dirs: list[str],
        parent: array[int],
        paths: dict[int, str],
        omitted: Collection[str],
        cut: str | None,
    ) -> None:
        self._name, self._names, self._dirs, self._paths = name, names, dirs, paths
        count, directories = len(name), len(dirs)
        packed = memoryview(numbers).cast("q")  # each file's four numbers, not copied
        each = (_column(packed[at::4]) for at in range(4))
        self._dir, self._bytes, self._lines, self._tokens = each
        packed.release()
        numbers.clear()
        marks = bytearray()
        if omitted or cut is not None:
            marks = bytearray(count)
            for file in range(count):
                path = self._path(file)
                if path in omitted:
                    marks[file] = 1
                elif path == cut:
                    marks[file] = 2
        self._marks = bytes(marks)
        # Each directory's files, then its directories, in the order they came.
        files, file_starts = _grouped(self._dir, directories, 0)
        subdirectories, directory_starts = _grouped(parent, directories, 1)
        subdirectories = array("l", [count + below for below in subdirectories])  # as rows
        self._within = (files, file_starts, subdirectories, directory_starts)
        # The sums of bytes, lines, tokens (after the files'), files, omitted and cut; a
        # directory's own files first, then those below it, each directory before the
        # one it is in.
        zeros = bytes(8 * directories)
        counts, left_out, cuts = (array("q", zeros) for _ in range(3))
        columns = (self._bytes, self._lines, self._tokens)
        for column in columns:
            column.frombytes(zeros)
        sizes, lines, tokens = columns
        for directory in range(directories):
            start, end = file_starts[directory], file_starts[directory + 1]
            if start == end:
                continue
            mine = files[start:end]
            row = count + directory
            sizes[row] = sum(map(sizes.__getitem__, mine))
            lines[row] = sum(map(lines.__getitem__, mine))
            tokens[row] = sum(map(tokens.__getitem__, mine))
            counts[directory] = end - start
            if marks:
                marked = bytes(map(marks.__getitem__, mine))
                left_out[directory] = marked.count(1)
                cuts[directory] = marked.count(2)
        for directory in range(directories - 1, 0, -1):
            up, row = parent[directory], count + directory
            sizes[count + up] += sizes[row]
            lines[count + up] += lines[row]
            tokens[count + up] += tokens[row]
            counts[up] += counts[directory]
            left_out[up] += left_out[directory]
            cuts[up] += cuts[directory]
        self._sums = (counts, left_out, cuts)

    def _path(self, file: int) -> str:
        return self._paths.get(file) or _joined(self._dirs[self._dir[file]], self._name[file])

    @property
    def files(self) -> int:
        """The files in the tree."""
        return self._sums[0][0]

    @property
    def marked(self) -> bool:
        """Whether a budget marks some row."""
        _counts, omitted, cut = self._sums
        return bool(omitted[0] or cut[0])

    def _children(self, directory: int) -> list[int]:
        """A directory's children, biggest first (by tokens, then bytes; ties keep the
        order given), by row."""
        files, file_starts, subdirectories, directory_starts = self._within
        rows = files[file_starts[directory] : file_starts[directory + 1]].tolist()
        start, end = directory_starts[directory], directory_starts[directory + 1]
        if start < end:
            rows += subdirectories[start:end]  # their rows
        return rows if len(rows) < 2 else _biggest_first(rows, self._tokens, self._bytes)

    def _mark_of(self, row: int) -> str:
        """A row's budget mark."""
        count = len(self._name)
        if row < count:
            mark = self._marks[row] if self._marks else 0
            return "[omitted]" if mark == 1 else "[cut]" if mark == 2 else ""
        files, omitted, cut = (column[row - count] for column in self._sums)
        return _mark(files, omitted, cut)

    def drawn(self) -> Iterator[tuple[list[int], list[str]]]:
        """Every row, depth first, biggest first, and its tree-drawn name, written as
        `paths.header_path` writes it, `_ROWS` at a time. Most trees have no name it
        changes: they are drawn as they are, unless a name holds a quote or a character
        that is not printable."""
        quoting = not (_plain("".join(self._names)) and _plain("".join(self._dirs)))
        count, files = len(self._name), self.files
        file_names, paths = self._name, self._dirs
        rows, labels = [count], [f". ({files} {'file' if files == 1 else 'files'})"]
        row_add, label_add = rows.append, labels.append
        children_of = self._children
        # (indent, children left to draw, how many): a directory's place is kept while
        # one below is drawn.
        top = children_of(0)
        stack = [("", iter(top), len(top))]
        while stack:
            if len(rows) >= _ROWS:
                yield rows, labels
                rows, labels = [], []
                row_add, label_add = rows.append, labels.append
            indent, children, left = stack.pop()
            branch, last = indent + BRANCH, indent + LAST_BRANCH
            for row in children:
                left -= 1
                row_add(row)
                if row < count:
                    name = file_names[row]
                    label_add((branch if left else last) + (header_path(name) if quoting else name))
                    continue
                path = paths[row - count]
                name = path[path.rfind("/") + 1 :]  # a directory's name ends its path
                if quoting:
                    name = header_path(name)
                below = children_of(row - count)
                if left:
                    label_add(f"{branch}{name}/")
                    stack.append((indent, children, left))
                    stack.append((indent + PIPE, iter(below), len(below)))
                else:
                    label_add(f"{last}{name}/")
                    stack.append((indent + GAP, iter(below), len(below)))
                break
        yield rows, labels

    def pieces(self) -> Iterator[str]:
        """The tree as aligned columns (size, lines, ~tokens, name, mark), `\\n`-ended, a
        piece of rows at a time: the text is never held whole."""
        widths = _widths(self._bytes, self._lines, self._tokens)
        heading = "{:>%d}  {:>%d}  {:>%d}  path\n" % widths  # noqa: UP031 - made once
        yield heading.format("size", "lines", "tokens")
        row = "{:>%d}  {:>%d,}  {:>%d}  {}\n" % widths  # noqa: UP031 - made once
        marked = self.marked
        for rows, labels in self.drawn():
            if marked:
                labels = [
                    f"{label}  {mark}" if mark else label
                    for label, mark in zip(labels, map(self._mark_of, rows), strict=True)
                ]
            # `units.human_size` of each row, written out: a call a row costs as much as
            # the rest.
            sizes = [
                f"{size} B"
                if size < 1024
                else f"{size / 1024:.1f} KB"
                if size < 1 << 20
                else human_size(size)
                for size in map(self._bytes.__getitem__, rows)
            ]
            # The numbers are formatted by one template each, the rows by one more: a
            # call a row costs more than the formatting it does.
            tokens = ("~{:,}\n" * len(rows)).format(*map(self._tokens.__getitem__, rows))
            fields = itertools.chain.from_iterable(
                zip(
                    sizes,
                    map(self._lines.__getitem__, rows),
                    tokens.split("\n"),
                    labels,
                    strict=False,  # the tokens' last is what follows the last newline
                )
            )
            yield (row * len(rows)).format(*fields)

    def tree(self) -> StatsNode:
        """The whole tree as nodes (what `--json` writes)."""
        count = len(self._name)
        sizes, lines, tokens = self._bytes, self._lines, self._tokens
        done: dict[int, StatsNode] = {}  # the directories made, until taken
        for directory in range(len(self._dirs) - 1, -1, -1):
            children = []
            for row in self._children(directory):
                if row >= count:
                    children.append(done.pop(row - count))
                    continue
                mark = self._marks[row] if self._marks else 0
                fields = (
                    self._name[row],
                    self._path(row),
                    False,
                    sizes[row],
                    lines[row],
                    tokens[row],
                    1,
                    int(mark == 1),
                    int(mark == 2),
                    (),
                )
                children.append(_tuple_new(StatsNode, fields))
            path, row = self._dirs[directory], count + directory
            sums = (column[directory] for column in self._sums)
            made = (
                path[path.rfind("/") + 1 :] if path else ".",
                path,
                True,
                sizes[row],
                lines[row],
                tokens[row],
                *sums,
                tuple(children),
            )
            done[directory] = _tuple_new(StatsNode, made)
        return done[0]


def _joined(directory: str, name: str) -> str:
    """A file's path from its directory's and its name."""
    return f"{directory}/{name}" if directory else name


def _widths(sizes: array[int], lines: array[int], tokens: array[int]) -> tuple[int, int, int]:
    """The widths of the columns of sizes, lines and tokens over every row."""
    longest = 0
    # A size's text grows with the size within each unit: its longest is that of the
    # largest size of some unit.
    for bound in (1024, 1 << 20, 1 << 30):
        below = max(filter(bound.__gt__, sizes), default=None)
        if below is not None:
            longest = max(longest, len(human_size(below)))
    longest = max(longest, len(human_size(max(sizes))))
    return (
        max(4, longest),
        max(5, len(f"{max(lines):,}"), len(f"{min(lines):,}")),
        max(6, len(f"~{max(tokens):,}"), len(f"~{min(tokens):,}")),
    )


def _plain(names: str) -> bool:
    """Whether names (or paths: names and "/") are drawn as they are."""
    return '"' not in names and names.isprintable()


def _column(numbers: memoryview) -> array[int]:
    """Numbers of a view, copied to an array of their own."""
    column = array("q")
    column.frombytes(numbers.tobytes())
    return column


def _grouped(keys: array[int], groups: int, first: int) -> tuple[array[int], array[int]]:
    """The indexes from `first` on, grouped by their key (`keys[index]`), in the order
    they came within a group; and where each group starts (one more: where the last
    ends). Counted, then placed: no list of the indexes is made."""
    counts = [0] * groups
    for key in itertools.islice(keys, first, None):
        counts[key] += 1
    starts = array("l", (0,))
    starts.extend(itertools.accumulate(counts))
    order = array("l", bytes(8 * (len(keys) - first)))
    place = starts.tolist()
    for index, key in enumerate(itertools.islice(keys, first, None), first):
        order[place[key]] = index
        place[key] += 1
    return order, starts


_tuple_new = tuple.__new__  # a record from a tuple in C, not through its Python `__new__`
_FOUR = struct.Struct("@4q").pack  # a file's four numbers, as `array("q")` holds them


def build_stats(
    entries: Iterable[StatsEntry],
    omitted: Collection[str] = frozenset(),
    cut: str | None = None,
) -> SummedTree:
    """The tree of `entries`: per-directory sums, biggest first, budget marks applied."""
    tree = StatsTree()
    add = tree.add
    for path, size, lines, tokens in entries:
        add(path, size, lines, tokens)
    return tree.finish(omitted, cut)


def mark(node: StatsNode) -> str:
    """The budget's mark of a row, or "" when all of it fits."""
    if not node.is_directory:
        return "[omitted]" if node.omitted else "[cut]" if node.cut else ""
    return _mark(node.files, node.omitted, node.cut)


def _mark(files: int, omitted: int, cut: int) -> str:
    """A directory's mark: `[omitted]` when all of it is left out, else what is."""
    if omitted and omitted == files:
        return "[omitted]"
    parts = []
    if omitted:
        parts.append(f"{omitted} of {files} files omitted")
    if cut:
        parts.append("1 cut")
    return f"[{', '.join(parts)}]" if parts else ""


_ROWS = 1024  # rows formatted at once
_ROW = operator.itemgetter(3)


def _biggest_first(rows: list[int], tokens: array[int], sizes: array[int]) -> list[int]:
    """`rows` (two or more) by tokens, then bytes, biggest first; ties keep their order."""
    if len(rows) == 2:  # as most directories hold
        first, second = rows
        if (tokens[second], sizes[second]) > (tokens[first], sizes[first]):
            return [second, first]
        return rows
    keyed = sorted(
        zip(
            map(tokens.__getitem__, rows),
            map(sizes.__getitem__, rows),
            range(0, -len(rows), -1),  # the order given, first first
            rows,
            strict=False,  # the range is as long as the rows
        ),
        reverse=True,
    )
    return list(map(_ROW, keyed))


def stats_text(tree: SummedTree) -> str:
    """The tree as aligned columns (size, lines, ~tokens, name, mark), `\\n`-ended."""
    return "".join(tree.pieces())


def stats_pieces(tree: SummedTree) -> Iterator[str]:
    """`stats_text` a piece of rows at a time, its last newline left out (the output's
    end writes one): never held whole."""
    pieces = tree.pieces()
    last = next(pieces, "")
    for piece in pieces:
        yield last
        last = piece
    yield last.removesuffix("\n")


def stats_json(tree: SummedTree) -> dict[str, object]:
    """The tree as JSON-ready data (camelCase keys, as `--json` details have)."""
    root = tree.tree()
    below: list[tuple[StatsNode, list[dict[str, object]]]] = []
    top = _json_node(root, below)
    while below:  # no recursion: a path can be deeper than Python's recursion limit
        node, children = below.pop()
        children += [_json_node(child, below) for child in node.children]
    return top


def _json_node(
    node: StatsNode, below: list[tuple[StatsNode, list[dict[str, object]]]]
) -> dict[str, object]:
    """A node's data; a directory's children are left to fill, noted in `below`."""
    if not node.is_directory:
        return {
            "name": node.name,
            "path": node.path,
            "type": "file",
            "bytes": node.bytes,
            "lines": node.lines,
            "estimatedTokens": node.tokens,
            "omitted": bool(node.omitted),
            "cut": bool(node.cut),
        }
    children: list[dict[str, object]] = []
    below.append((node, children))
    return {
        "name": node.name,
        "path": node.path,
        "type": "directory",
        "bytes": node.bytes,
        "lines": node.lines,
        "estimatedTokens": node.tokens,
        "files": node.files,
        "omittedFiles": node.omitted,
        "cutFiles": node.cut,
        "children": children,
    }
