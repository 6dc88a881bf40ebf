"""Exclude patterns: the default list and `--exclude`, matched by shape where they can be."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable

from readmany.select.boundary import inside, rel_parts
from readmany.select.patterns import compile_paths, expand_braces, is_magic

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


class Excludes:
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
            pattern = _normalised(raw)
            if os.path.isabs(pattern) and inside(os.path.normpath(pattern), root):
                pattern = "/".join(rel_parts(os.path.normpath(pattern), root)) or "**"
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
        # No pattern at all (no `--exclude`): the walk asks nothing of it.
        self.empty = not (self._dir_names or self._names or suffixes or files)

    def file_excluded(self, rel: str, *, parents_checked: bool = False) -> bool:
        """Whether an exclude drops the file `rel`.

        `parents_checked`: a walk got here, so no directory above was pruned.
        """
        parent, _, name = rel.rpartition("/")
        checks_parents = self._dir_names and parent and not parents_checked
        if checks_parents and not self._dir_names.isdisjoint(parent.lower().split("/")):
            return True
        return self.walked_file_excluded(rel, name)

    def walked_file_excluded(self, rel: str, name: str) -> bool:
        """`file_excluded(rel, parents_checked=True)` for a file the walk found, `name`
        being the last component of `rel`."""
        lower = name.lower()
        if lower in self._names or (self._suffixes and lower.endswith(self._suffixes)):
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


def _normalised(pattern: str) -> str:
    """`./a/b.txt`, `a/./x`, `a/../a/x` and `./dir/` as the paths they name: `.` and
    `..` segments resolved as a path is (a trailing slash kept)."""
    parts = pattern.split("/")
    if "." not in parts and ".." not in parts:
        return pattern
    normal = posixpath.normpath(pattern)
    if normal == ".":
        return "**"
    return normal + "/" if pattern.endswith("/") else normal
