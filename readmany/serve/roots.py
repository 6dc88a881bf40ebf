"""Where the tools' paths may lead: inside the roots, by the walk's boundary rules."""

from __future__ import annotations

import os

from readmany.read.classify import credentials_name
from readmany.read.line_range import resolve_path
from readmany.select.boundary import (
    blocked,
    inside,
    rel_parts,
    secret_file_refusal,
    secret_file_words,
    target_name,
)


class ToolFailed(Exception):
    """A call the tool refuses, in one line that says how to fix it."""


def root_refusal(root: str) -> str | None:
    """Why `root` cannot be served (not a directory, the whole file system, the home
    directory or one that holds it, a git directory), or None."""
    from readmany.read.safe import refuse_root

    if not os.path.isdir(root):
        return f"--root {root!r} is not a directory"
    real = os.path.realpath(root)
    if real == "/":
        return f"--root {root}: is the whole file system: give a project's directory"
    home = os.path.expanduser("~")
    if home not in ("", "~", "/"):
        real_home = os.path.realpath(home)
        if real == real_home:
            return f"--root {root}: is your home directory: give a project's directory"
        if inside(real_home, real):  # /home: every user's keys and configuration
            return f"--root {root}: holds your home directory: give a project's directory"
    return refuse_root(root)


def nested_refusal(roots: list[str]) -> str | None:
    """Why these real roots cannot be served together (one inside another: its files
    would be found twice, under two names), or None."""
    for outer in roots:
        for inner in roots:
            if inner != outer and inside(inner, outer):
                return f"--root {inner} is inside --root {outer}: give one of them"
    return None


class Roots:
    """The directories the tools may read; the first is the working directory."""

    def __init__(self, roots: tuple[str, ...]) -> None:
        self.roots = roots
        self.cwd = roots[0]

    def root_of(self, path: str, *, rewrite: bool) -> str:
        """The root `path` lies in, as the read resolves it (`rewrite`: the read tool's
        `@`, `~` and Unicode spaces), judged by the walk's rules: no `..`, nothing
        outside a root, no link out of it, nothing under .git or node_modules, no
        secret file by name. Raises ToolFailed."""
        if "\0" in path:
            raise ToolFailed(f"{path!r}: a path cannot hold a NUL character")
        if ".." in path.replace("\\", "/").split("/"):
            raise ToolFailed(f"{path}: '..' is not allowed: give a path inside {self._names()}")
        absolute = resolve_path(path, self.cwd, rewrite=rewrite)
        root = next((r for r in self.roots if inside(absolute, r)), None)
        if root is None:
            raise ToolFailed(f"{path}: outside the roots: give a path inside {self._names()}")
        try:
            real = os.path.realpath(absolute)
        except OSError as exc:  # a link swapped as it was followed
            raise ToolFailed(f"{path}: cannot follow the link ({exc.strerror}): not read") from None
        if not inside(real, root):
            raise ToolFailed(f"{path}: a link that leads out of the root {root}: not read")
        refusal = secret_file_refusal(path, target_name(absolute))
        if refusal is not None:
            raise ToolFailed(refusal)
        if blocked(rel_parts(absolute, root)) or blocked(rel_parts(real, root)):
            raise ToolFailed(f"{path}: inside .git, .env or node_modules: not read")
        kind = credentials_name(path) or credentials_name(real)
        if kind is not None and _holds_credentials(kind, real):
            raise ToolFailed(secret_file_words(path, "it holds a token or password"))
        return root

    def file_root(self, path: str) -> str:
        """The root of a path a read tool opens as a file (`read`, `read_many`), as
        `root_of` judges it with the read tool's rewriting. A path written as a
        directory's (`a.txt/`, `a.txt/.`) that leads to a file is refused, as the command
        line's open refuses it: the read tool's resolving would drop the slash."""
        root = self.root_of(path, rewrite=True)
        if path.endswith(("/", "/.")):
            real = os.path.realpath(resolve_path(path, self.cwd, rewrite=True))
            if os.path.lexists(real) and not os.path.isdir(real):
                from readmany.frame.notices import read_problem

                raise ToolFailed(read_problem(path, "ENOTDIR"))
        return root

    def _names(self) -> str:
        return " or ".join(self.roots)


_CREDENTIALS_BYTES = 1 << 20  # an .npmrc or .pypirc is a few lines


def _holds_credentials(kind: str, real: str) -> bool:
    """Whether the `.npmrc` or `.pypirc` at `real` holds a token or password, as glob
    judges it (one that cannot be read is left to the read to report)."""
    from readmany.read.safe import OpenFailure, open_regular, read_prefix
    from readmany.read.secrets import holds_credentials

    try:
        fd, _st = open_regular(real)
    except (OpenFailure, OSError):
        return False
    try:
        text = read_prefix(fd, _CREDENTIALS_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    finally:
        os.close(fd)
    return holds_credentials(kind, text)
