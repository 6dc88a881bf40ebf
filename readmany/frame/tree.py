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
"""

from __future__ import annotations

from collections.abc import Iterable

from readmany.frame.paths import header_path

BRANCH = "├── "
LAST_BRANCH = "└── "
PIPE = "│   "
GAP = "    "


class _Directory:
    __slots__ = ("children",)

    def __init__(self) -> None:
        # (name, is directory) -> subdirectory, or None for a file; insertion-ordered.
        self.children: dict[tuple[str, bool], _Directory | None] = {}


def render_tree(paths: Iterable[str], root: str = ".") -> str:
    """The tree of `paths` (relative, `/`-separated) under a first line `root`, `\\n`-ended.

    Empty components are dropped, so a leading `/` or a doubled `//` changes nothing.
    """
    top = _Directory()
    for path in paths:
        *directories, name = [part for part in path.split("/") if part] or [path]
        node = top
        for directory in directories:
            child = node.children.setdefault((directory, True), _Directory())
            assert child is not None
            node = child
        node.children.setdefault((name, False), None)
    lines = [root]
    _draw(top, lines)
    return "\n".join(lines) + "\n"


def _draw(top: _Directory, lines: list[str]) -> None:
    # Iterative: a path can be deeper than Python's recursion limit.
    stack = [("", iter(top.children.items()), len(top.children))]
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
        lines.append(f"{indent}{branch}{header_path(name)}{'/' if is_directory else ''}")
        if child is not None:
            stack.append((indent + more, iter(child.children.items()), len(child.children)))
