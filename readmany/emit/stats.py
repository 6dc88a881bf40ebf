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
from collections.abc import Collection, Iterable

from readmany.frame.paths import header_path
from readmany.frame.tree import BRANCH, GAP, LAST_BRANCH, PIPE
from readmany.record import NamedTuple
from readmany.units import human_size

_tuple_new = tuple.__new__  # a record from a tuple in C, not through its Python `__new__`


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


class _Building:
    __slots__ = ("children", "files", "name", "path")

    def __init__(self, name: str, path: str) -> None:
        self.name = name
        self.path = path
        self.children: dict[str, _Building] = {}
        self.files: list[StatsNode] = []


class StatsTree:
    """The tree of `--stats`, made as the files come: `add` places a file in its directory
    at once (a run adds them while the walk goes on), `finish` sums the directories,
    orders them and applies the budget's marks. Files keep the order they were added in
    where their sizes tie."""

    __slots__ = ("_folders", "_made", "_top")

    def __init__(self) -> None:
        self._top = _Building(".", "")
        self._made = [self._top]  # every directory, each after the one it is in
        # Where each directory's files go, by its path: most files share one.
        self._folders = {"": self._top.files.append}

    def add(self, path: str, size: int, lines: int, tokens: int) -> None:
        """One file: its root-relative path and what it costs."""
        parent, _, name = path.rpartition("/")
        add = self._folders.get(parent)
        if add is None or not name:
            *directories, name = [part for part in path.split("/") if part] or [path]
            add = _directory(self._top, directories, self._made).files.append
            if parent == "/".join(directories):
                self._folders[parent] = add
        add(_tuple_new(StatsNode, (name, path, False, size, lines, tokens, 1, 0, 0, ())))

    def finish(self, omitted: Collection[str] = frozenset(), cut: str | None = None) -> StatsNode:
        """The root: per-directory sums, biggest first, `omitted` and `cut` marked
        (once: the tree is the root's from then on)."""
        made = self._made
        if omitted or cut is not None:
            for node in made:
                node.files = [
                    file._replace(omitted=1) if file.path in omitted
                    else file._replace(cut=1) if file.path == cut
                    else file
                    for file in node.files
                ]  # fmt: skip
        # Each directory after all it holds (no recursion: a path can be deeper than
        # Python's recursion limit).
        done: dict[str, StatsNode] = {}  # the directories made, by path, until taken
        for node in reversed(made):
            children = node.files
            if node.children:
                children += [done.pop(child.path) for child in node.children.values()]
            sums: tuple[int, ...]
            if len(children) == 1:  # a directory holding one other, as deep paths have
                sums = children[0][3:9]
            else:
                # By tokens, then bytes, biggest first (reverse keeps the sort stable: ties
                # keep the order given).
                children.sort(key=_BIGGEST_FIRST, reverse=True)
                # The sums of bytes, lines, tokens, files, omitted and cut (fields 3 to 8).
                columns = (
                    itertools.islice(zip(*children, strict=True), 3, 9) if children else _NO_SUMS
                )
                sums = tuple(map(sum, columns))
            fields = (node.name, node.path, True, *sums, tuple(children))
            done[node.path] = _tuple_new(StatsNode, fields)
        return done[self._top.path]


def build_stats(
    entries: Iterable[StatsEntry],
    omitted: Collection[str] = frozenset(),
    cut: str | None = None,
) -> StatsNode:
    """The tree of `entries`: per-directory sums, biggest first, budget marks applied."""
    tree = StatsTree()
    add = tree.add
    for path, size, lines, tokens in entries:
        add(path, size, lines, tokens)
    return tree.finish(omitted, cut)


def _directory(top: _Building, directories: list[str], made: list[_Building]) -> _Building:
    """The node of a directory, by its names from the root, made (and added to `made`)
    with those it is in if new."""
    node = top
    for directory in directories:
        child = node.children.get(directory)
        if child is None:
            path = f"{node.path}/{directory}" if node.path else directory
            child = node.children[directory] = _Building(directory, path)
            made.append(child)
        node = child
    return node


_NO_SUMS = ((),) * 6  # an empty root's
_BIGGEST_FIRST = operator.itemgetter(5, 3)  # tokens, bytes
_BYTES = operator.itemgetter(3)
_NODE_TOKENS = operator.itemgetter(5)


def mark(node: StatsNode) -> str:
    """The budget's mark of a row, or "" when all of it fits."""
    if not node.is_directory:
        return "[omitted]" if node.omitted else "[cut]" if node.cut else ""
    if node.omitted and node.omitted == node.files:
        return "[omitted]"
    parts = []
    if node.omitted:
        parts.append(f"{node.omitted} of {node.files} files omitted")
    if node.cut:
        parts.append("1 cut")
    return f"[{', '.join(parts)}]" if parts else ""


def _rows(root: StatsNode, quoting: bool = False) -> tuple[list[StatsNode], list[str]]:
    """Every node and its tree-drawn name, depth first, biggest first.

    A name is written as `paths.header_path` writes it. Most trees have no name it
    changes: they are drawn first as they are, and all of them checked at once (none
    holds a quote or a character that is not printable); only when that fails are they
    drawn again, `quoting` each one.
    """
    nodes = [root]
    labels = [f". ({root.files} {'file' if root.files == 1 else 'files'})"]
    add_node, add_label = nodes.append, labels.append
    # (indent, children left to draw, how many): a directory's place is kept while one
    # below is drawn.
    stack = [("", iter(root.children), len(root.children))]
    while stack:
        indent, children, left = stack.pop()
        branch, last = indent + BRANCH, indent + LAST_BRANCH
        for child in children:
            left -= 1
            name = header_path(child.name) if quoting else child.name
            add_node(child)
            if child.is_directory:
                if left:
                    add_label(f"{branch}{name}/")
                    stack.append((indent, children, left))
                    stack.append((indent + PIPE, iter(child.children), len(child.children)))
                else:
                    add_label(f"{last}{name}/")
                    stack.append((indent + GAP, iter(child.children), len(child.children)))
                break
            add_label((branch if left else last) + name)
    if not quoting:
        names = "".join(map(_NAME, nodes))
        if '"' in names or not names.isprintable():
            return _rows(root, quoting=True)
    return nodes, labels


def stats_text(root: StatsNode) -> str:
    """The tree as aligned columns (size, lines, ~tokens, name, mark), `\\n`-ended."""
    nodes, labels = _rows(root)
    if root.omitted or root.cut:
        # Some rows are marked: a row's mark follows its label, after two spaces.
        labels = [
            f"{label}  {mark(node)}" if node.omitted or node.cut else label
            for node, label in zip(nodes, labels, strict=True)
        ]
    # `units.human_size` of each row, written out: a call a row costs as much as the rest.
    sizes = [
        f"{size} B"
        if size < 1024
        else f"{size / 1024:.1f} KB"
        if size < 1 << 20
        else human_size(size)
        for size in map(_BYTES, nodes)
    ]
    # The numbers are formatted by one template each, the whole text by one more: a call
    # a row costs more than the formatting it does.
    rows = len(nodes)
    tokens = ("~{:,}\n" * rows).format(*map(_NODE_TOKENS, nodes)).split("\n")
    tokens.pop()  # what follows the last
    lines = list(map(_LINES, nodes))
    widths = (
        max(4, max(map(len, sizes))),
        max(5, len(f"{max(lines):,}"), len(f"{min(lines):,}")),  # longest at either end
        max(6, max(map(len, tokens))),
    )
    heading = "{:>%d}  {:>%d}  {:>%d}  path\n" % widths  # noqa: UP031 - made once
    row = "{:>%d}  {:>%d,}  {:>%d}  {}\n" % widths  # noqa: UP031 - made once
    fields = itertools.chain.from_iterable(zip(sizes, lines, tokens, labels, strict=True))
    return (heading + row * rows).format("size", "lines", "tokens", *fields)


_LINES = operator.itemgetter(4)
_NAME = operator.itemgetter(0)


def stats_json(root: StatsNode) -> dict[str, object]:
    """The tree as JSON-ready data (camelCase keys, as `--json` details have)."""
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
