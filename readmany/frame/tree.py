"""A directory tree of the files shown (`--tree`), drawn as `tree` draws one.

    .
    ├── README.md
    ├── src/
    │   ├── app.py
    │   └── util/
    │       └── text.py
    └── tests/
        └── test_app.py

Entries keep the order in which the paths are given, each directory where its first file
comes: given in output order, the tree lists the files in the order the output shows
them (for sorted paths, that is sorted order with a directory at its sorted place, not
directories first). A directory ends with `/`. A name is written as a header writes a
path (`paths.header_path`): as a JSON string when it holds a control character or starts
with `"`, so a name cannot break a line of the tree.

Given `marks` (a budget's: `--tree` lists the whole selection), a file the output does not
show whole carries its mark after its name, `[left out]`, `[cut]` or `[outline]`; a
directory whose files are all left out is one line, `docs/ [left out: 12 files]`, not a
line a file (a tree of a large selection under a small budget would take the budget).
A name that ends with `]` is then written as a JSON string, so no name reads as a mark.
Where naming each file left out would take too much of the budget, they are folded: one
line at the end of their directory, `[left out: 254 files]` (`fold`).

    .
    ├── README.md
    ├── docs/ [left out: 12 files]
    └── src/
        ├── api.py [cut]
        └── app.py
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from readmany.frame.paths import header_path, quoted

BRANCH = "├── "
LAST_BRANCH = "└── "
PIPE = "│   "
GAP = "    "

OMITTED = "left out"
CUT = "cut"
OUTLINE = "outline"
MARKS = (OMITTED, CUT, OUTLINE)


class _Directory:
    __slots__ = ("children", "files", "left_out")

    def __init__(self) -> None:
        # (name, is directory) -> subdirectory, or the file's mark ("" for none);
        # insertion-ordered.
        self.children: dict[tuple[str, bool], _Directory | str] = {}
        self.files = 0  # files beneath it, and of those, left out
        self.left_out = 0


def render_tree(
    paths: Iterable[str],
    root: str = ".",
    marks: Mapping[str, str] | None = None,
    *,
    fold: bool = False,
) -> str:
    """The tree of `paths` (relative, `/`-separated) under a first line `root`, `\\n`-ended.

    Empty components are dropped, so a leading `/` or a doubled `//` changes nothing.
    `marks`: a path's mark (one of `MARKS`), for the paths not shown whole. `fold`: the
    files left out of a directory are one line at its end, `[left out: 254 files]`, not a
    line each (the shorter tree, for a budget the longer one would take too much of).
    """
    top = _Directory()
    for path in paths:
        *directories, name = [part for part in path.split("/") if part] or [path]
        mark = marks.get(path, "") if marks else ""
        node = top
        node.files += 1
        node.left_out += mark == OMITTED
        for directory in directories:
            child = node.children.setdefault((directory, True), _Directory())
            assert isinstance(child, _Directory)
            node = child
            node.files += 1
            node.left_out += mark == OMITTED
        node.children.setdefault((name, False), mark)
    lines = [root]
    _draw(top, lines, marked=bool(marks), fold=fold)
    return "\n".join(lines) + "\n"


def _name(name: str, marked: bool) -> str:
    if marked and name.endswith("]"):
        return quoted(name)  # not to be read as a mark
    return header_path(name)


def _children(
    node: _Directory, fold: bool
) -> list[tuple[tuple[str, bool], _Directory | str | None]]:
    """A directory's entries as drawn: with `fold`, its files left out as one (None)."""
    if not fold:
        return list(node.children.items())
    entries: list[tuple[tuple[str, bool], _Directory | str | None]] = []
    folded = 0
    for key, child in node.children.items():
        if child == OMITTED:
            folded += 1
        else:
            entries.append((key, child))
    if folded:
        entries.append(((_left_out(folded), False), None))
    return entries


def _left_out(files: int) -> str:
    return f"[{OMITTED}: {files} file{'s' if files != 1 else ''}]"


def _draw(top: _Directory, lines: list[str], *, marked: bool, fold: bool) -> None:
    # Iterative: a path can be deeper than Python's recursion limit.
    first = _children(top, fold)
    stack = [("", iter(first), len(first))]
    while stack:
        indent, children, left = stack[-1]
        entry = next(children, None)
        if entry is None:
            stack.pop()
            continue
        (name, is_directory), child = entry
        left -= 1
        stack[-1] = (indent, children, left)
        branch, more = (LAST_BRANCH, GAP) if left == 0 else (BRANCH, PIPE)
        if child is None:  # the files left out, folded
            lines.append(f"{indent}{branch}{name}")
            continue
        line = f"{indent}{branch}{_name(name, marked)}{'/' if is_directory else ''}"
        if isinstance(child, _Directory):
            if marked and child.left_out == child.files:
                lines.append(f"{line} {_left_out(child.files)}")
                continue
            lines.append(line)
            entries = _children(child, fold)
            stack.append((indent + more, iter(entries), len(entries)))
        else:
            lines.append(f"{line} [{child}]" if child else line)
