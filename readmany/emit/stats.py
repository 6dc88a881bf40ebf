"""`--stats`: what the selection costs, as a tree with a row per file and per directory.

Each row has bytes, lines and estimated tokens; a directory's are the sums of the files
under it. Within a directory the biggest come first (by tokens, then bytes; ties keep the
order given), files and directories mixed, and the root row at the top holds the total.
Given the files a budget leaves out (and the one it cuts), rows are marked: a file
`[omitted]` or `[cut]`, a directory `[omitted]` when all of it is left out, else
`[k of n files omitted]`. Rendered as aligned text for a terminal, or as JSON data.

What is measured (`measure`): bytes and lines exactly, of the file as stored, from its
raw bytes without decoding (lines are `\\n` counted, plus a last line without one);
tokens are estimated (`tokens.estimate_tokens_for`). The file as `glob` shows it can
differ slightly: a BOM and the CR of CRLF are dropped, UTF-16 is shown as UTF-8, invalid
UTF-8 as U+FFFD, and text may be cut to the line limits.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Collection, Iterable

from readmany.frame.paths import header_path
from readmany.frame.tree import BRANCH, GAP, LAST_BRANCH, PIPE
from readmany.record import NamedTuple
from readmany.tokens import (
    SAMPLE_BYTES,
    estimate_tokens_for,
    sample_of,
    sample_spans,
    weight_of_sample,
)
from readmany.units import human_size


class Measure(NamedTuple):
    """What a file costs: bytes as stored, lines, estimated tokens."""

    bytes: int
    lines: int
    tokens: int


def measure(data: bytes) -> Measure:
    """Bytes and lines of raw bytes, exactly, and their estimated tokens."""
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return Measure(len(data), lines, estimate_tokens_for(data))


def measure_chunks(chunks: Iterable[bytes], size: int, sample_bytes: int = SAMPLE_BYTES) -> Measure:
    """`measure` of a file read in chunks, keeping only the bytes the estimate weighs.

    `size` is the file's size when opened (the chunks stop there, or earlier if it
    shrank); the result equals `measure` of the chunks joined when they come to `size`
    (weighed by `sample_bytes`, as `tokens.estimate_tokens_for` takes it).
    """
    spans = sample_spans(size, sample_bytes)
    kept: list[bytes] = []
    newlines = 0
    offset = 0
    last = b""
    for chunk in chunks:
        end = offset + len(chunk)
        newlines += chunk.count(b"\n")
        for start, stop in spans:
            if start < end and stop > offset:
                kept.append(chunk[max(start - offset, 0) : stop - offset])
        offset = end
        last = chunk[-1:] or last
    lines = newlines + (1 if offset and last != b"\n" else 0)
    if not offset:
        return Measure(0, 0, 0)
    return Measure(offset, lines, max(1, round(weight_of_sample(b"".join(kept), offset))))


# What `--stats` weighs of each file for its tokens: 8 windows of 64 bytes over 512. The
# estimate of a file then differs from that of all of it by 4.2% on average (readmany's
# own sources: 18% at most; a directory's sum by about 1%), and on the recorded samples
# (tests/fixtures/token_counts.json) is off by 6.1% instead of 4.0%. The estimate is most
# of the time `--stats` spends on a file, and its time goes with the bytes weighed: 1 KiB
# (4.4% on the samples) made `--stats` 5% slower on the benchmark's repo tree.
STATS_SAMPLE_BYTES = 1 << 9


def measure_for_stats(chunks: Iterable[bytes], size: int) -> Measure:
    """`measure_chunks` weighing `STATS_SAMPLE_BYTES`: what `--stats` shows of a file."""
    parts = iter(chunks)
    first = next(parts, b"")
    if len(first) < size:
        return measure_chunks(itertools.chain((first,), parts), size, STATS_SAMPLE_BYTES)
    # The whole file in one chunk, as most are: the same measure, without the windows' loop.
    if not first:
        return Measure(0, 0, 0)
    lines = first.count(b"\n") + (not first.endswith(b"\n"))
    sample = sample_of(first, STATS_SAMPLE_BYTES)
    return Measure(len(first), lines, max(1, round(weight_of_sample(sample, len(first)))))


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
    __slots__ = ("children", "files")

    def __init__(self) -> None:
        self.children: dict[str, _Building] = {}
        self.files: list[tuple[str, StatsEntry]] = []


def build_stats(
    entries: Iterable[StatsEntry],
    omitted: Collection[str] = frozenset(),
    cut: str | None = None,
) -> StatsNode:
    """The tree of `entries`: per-directory sums, biggest first, budget marks applied."""
    top = _Building()
    folders = {"": top}  # each directory's node, by its path: most files share one
    for entry in entries:
        parent, _, name = entry.path.rpartition("/")
        node = folders.get(parent)
        if node is None or not name:
            *directories, name = [part for part in entry.path.split("/") if part] or [entry.path]
            node = top
            for directory in directories:
                child = node.children.get(directory)
                if child is None:
                    child = node.children[directory] = _Building()
                node = child
            if parent == "/".join(directories):
                folders[parent] = node
        node.files.append((name, entry))
    return _finish(top, frozenset(omitted), cut)


def _finish(top: _Building, omitted: frozenset[str], cut: str | None) -> StatsNode:
    # Post-order without recursion: a path can be deeper than Python's recursion limit.
    done: dict[int, StatsNode] = {}
    stack: list[tuple[_Building, str, str, bool]] = [(top, ".", "", False)]
    while stack:
        node, name, path, expanded = stack.pop()
        if not expanded:
            stack.append((node, name, path, True))
            for directory, child in node.children.items():
                stack.append(
                    (child, directory, f"{path}/{directory}" if path else directory, False)
                )
            continue
        children = [
            StatsNode(
                file_name, entry.path, False, entry.bytes, entry.lines, entry.tokens, 1,
                int(entry.path in omitted), int(entry.path == cut),
            )
            for file_name, entry in node.files
        ]  # fmt: skip
        children += [done.pop(id(child)) for child in node.children.values()]
        # By tokens, then bytes, biggest first (reverse keeps the sort stable: ties keep
        # the order given).
        children.sort(key=_BIGGEST_FIRST, reverse=True)
        # The sums of bytes, lines, tokens, files, omitted and cut (fields 3 to 8).
        sums = [sum(column) for column in itertools.islice(zip(*children, strict=True), 3, 9)]
        sums = sums or [0] * 6  # an empty root
        sizes, lines, tokens, files, left_out, cuts = sums
        done[id(node)] = StatsNode(
            name, path, True, sizes, lines, tokens, files, left_out, cuts, tuple(children)
        )
    return done[id(top)]


_BIGGEST_FIRST = operator.itemgetter(5, 3)  # tokens, bytes


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


def _rows(root: StatsNode) -> list[tuple[StatsNode, str]]:
    """Every node with its tree-drawn name, depth first, biggest first."""
    rows = [(root, f". ({root.files} {'file' if root.files == 1 else 'files'})")]
    add = rows.append
    # (indent, children, next index): a directory's place is kept while one below is drawn.
    stack: list[tuple[str, tuple[StatsNode, ...], int]] = [("", root.children, 0)]
    while stack:
        indent, children, index = stack.pop()
        count = len(children)
        while index < count:
            child = children[index]
            index += 1
            branch, more = (LAST_BRANCH, GAP) if index == count else (BRANCH, PIPE)
            name = header_path(child.name)
            if child.is_directory:
                add((child, f"{indent}{branch}{name}/"))
                if index < count:
                    stack.append((indent, children, index))
                stack.append((indent + more, child.children, 0))
                break
            add((child, indent + branch + name))
    return rows


def stats_text(root: StatsNode) -> str:
    """The tree as aligned columns (size, lines, ~tokens, name, mark), `\\n`-ended."""
    rows = _rows(root)
    sizes = ["size", *(human_size(node.bytes) for node, _ in rows)]
    counts = ["lines", *(f"{node.lines:,}" for node, _ in rows)]
    tokens = ["tokens", *(f"~{node.tokens:,}" for node, _ in rows)]
    labels = ["path", *(label for _, label in rows)]
    marks = ["", *(mark(node) if node.omitted or node.cut else "" for node, _ in rows)]
    widths = tuple(max(map(len, column)) for column in (sizes, counts, tokens))
    row = "{:>%d}  {:>%d}  {:>%d}  {}  {}" % widths  # noqa: UP031 - one format, made once
    lines = map(row.format, sizes, counts, tokens, labels, marks)
    # An unmarked row ends with its label: the two spaces before the empty mark go.
    return "\n".join(lines).replace("  \n", "\n").removesuffix("  ") + "\n"


def stats_json(root: StatsNode) -> dict[str, object]:
    """The tree as JSON-ready data (camelCase keys, as `--json` details have)."""
    top: dict[str, object] = {}
    stack = [(root, top)]
    while stack:
        node, data = stack.pop()
        data.update(
            name=node.name,
            path=node.path,
            type="directory" if node.is_directory else "file",
            bytes=node.bytes,
            lines=node.lines,
            estimatedTokens=node.tokens,
        )
        if node.is_directory:
            children: list[dict[str, object]] = [{} for _ in node.children]
            data.update(
                files=node.files, omittedFiles=node.omitted, cutFiles=node.cut, children=children
            )
            stack.extend(zip(node.children, children, strict=True))
        else:
            data.update(omitted=bool(node.omitted), cut=bool(node.cut))
    return top
