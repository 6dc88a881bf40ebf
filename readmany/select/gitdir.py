"""Whether the git directory git found for a work tree is that work tree's own.

A `.git` file can point anywhere on the machine: a tree unpacked from an archive can name
another repository, whose index, history and objects `--staged` and `--with-diff` would
then dump. `foreign_git_dir` judges the git directory `select/git.py`'s `Git` found (its
place, what names it back, what in it is a link or borrowed from elsewhere) before any
listing runs. It runs no git: a few `lstat` calls, two directories' entries and a few
small files read, never through a link.
"""

from __future__ import annotations

import os

from readmany.record import NamedTuple


class Repository(NamedTuple):
    """Where git keeps what `root` belongs to, every path absolute."""

    git_dir: str
    top: str  # the work tree's top directory
    prefix: str  # the root below `top`: "" or "sub/dir/"
    objects: str  # the object directory
    index_file: str  # the index (`GIT_INDEX_FILE` when the caller set one)
    hash_length: int  # hex digits of an object id: 40 (SHA-1) or 64 (SHA-256)


def foreign_git_dir(found: Repository) -> str:
    """Why the git directory git found is not the work tree's own (a clause naming it), or "".

    A `.git` file names the git directory (`gitdir: PATH`), and a tree unpacked from an
    archive can point it at another repository on the machine, whose index, history and
    objects `--staged` and `--with-diff` would then dump. It is the work tree's own when it
    is the `.git` directory itself; a linked worktree's (`.git/worktrees/NAME`, whose
    `gitdir` file names this `.git` file back, and whose `commondir` leads to the `.git`
    holding `worktrees/`); or a git directory that names this work tree in `core.worktree`
    (a submodule's `.git/modules/NAME`) or lies inside it. Not: another work tree's `.git`,
    another worktree's directory, a `.git` directory with a `commondir`, or a separate git
    directory (`git init --separate-git-dir`) that does not name this work tree. Then what
    git would read in it must be its own (`_borrowed`): no index, objects, refs or `HEAD`
    that is a link, no alternates. A caller who sets `GIT_DIR` chose the repository: it is
    not judged.
    """
    if "GIT_DIR" in os.environ or "GIT_COMMON_DIR" in os.environ:
        return ""
    dot_git = os.path.join(found.top, ".git")
    points = f"{dot_git} points at {found.git_dir}"
    try:
        info = os.lstat(dot_git)
    except OSError:
        return f"{points}, not found where git found it"
    try:
        return _git_dir_mismatch(found, dot_git, info, points)
    except OSError:  # a link on the way swapped while it was resolved
        return f"{points}, a directory that changed while it was looked at"


def _git_dir_mismatch(found: Repository, dot_git: str, info: os.stat_result, points: str) -> str:
    """`foreign_git_dir`'s verdict once `.git` was found (`points`: the clause naming
    both); OSError where a link on the way to it cannot be followed."""
    import stat

    git_dir = os.path.realpath(found.git_dir)
    common = git_dir
    if stat.S_ISDIR(info.st_mode):
        if os.path.realpath(dot_git) != git_dir:
            return f"{points}, another directory"
        if os.path.lexists(os.path.join(git_dir, "commondir")):
            return f"{points}, a git directory whose commondir leads to another repository's"
    elif os.path.lexists(os.path.join(git_dir, "gitdir")):
        back = _read_small(os.path.join(git_dir, "gitdir"))
        back = os.path.join(git_dir, back) if back else ""
        if not back or os.path.realpath(back) != os.path.realpath(dot_git):
            return f"{points}, the git directory of another worktree"
        holder = os.path.dirname(git_dir)
        named = _read_small(os.path.join(git_dir, "commondir"))
        common = os.path.realpath(os.path.join(git_dir, named)) if named else ""
        if os.path.basename(holder) != "worktrees" or common != os.path.dirname(holder):
            return (
                f"{points}, a worktree's git directory whose commondir leads to another "
                "repository's"
            )
    elif os.path.basename(git_dir) == ".git":
        return f"{points}, the git directory of another work tree"
    elif os.path.lexists(os.path.join(git_dir, "commondir")):
        return f"{points}, a git directory whose commondir leads to another repository's"
    elif not _names_work_tree(git_dir, os.path.realpath(found.top)):
        return (
            f"{points}, a git directory that does not name this work tree as its own "
            f"(to use it, run: git --git-dir={git_dir} config core.worktree {found.top})"
        )
    return _borrowed(found, git_dir, common)


def _read_small(path: str) -> str:
    """The stripped text of a small regular file git keeps (`gitdir`, `commondir`, `HEAD`),
    never through a link; "" when there is none."""
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, flags)
    except OSError:
        return ""
    try:
        return os.fsdecode(os.read(fd, 4096)).strip()
    except OSError:
        return ""
    finally:
        os.close(fd)


def _names_work_tree(git_dir: str, top: str) -> bool:
    """Whether the git directory lies inside the work tree at `top`, or its configuration
    names `top` in `core.worktree` (as git keeps a submodule's `.git/modules/NAME`)."""
    if git_dir.startswith(top.rstrip(os.sep) + os.sep):
        return True
    from readmany.limits import CONFIG_MAX_BYTES
    from readmany.select.gitconfig import config_values
    from readmany.select.smallfile import read_regular

    data = read_regular(os.path.join(git_dir, "config"), CONFIG_MAX_BYTES)
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else ""
    named = [value for key, value in config_values(text) if key == "core.worktree"]
    return (
        bool(named)
        and named[-1] is not None
        and (os.path.realpath(os.path.join(git_dir, named[-1])) == top)
    )


# What git reads in a git directory that is not a link: in the directory itself, and (in a
# linked worktree) in the common directory. A link there could be another repository's.
_OWN_PATHS = ("HEAD",)
_COMMON_PATHS = (
    "objects",
    "objects/info",
    "objects/pack",
    "refs",
    "refs/heads",
    "refs/tags",
    "packed-refs",
    "info",
    "commondir",
)


_LEADS_OUT = ", which can lead into another repository"


def _borrowed(found: Repository, git_dir: str, common: str) -> str:
    """What git would read from another repository through the git directory (`git_dir`,
    its common directory `common`), as a clause, or "": a link among the
    files and directories git reads (a few `lstat` calls, and the entries of `objects` and
    `objects/pack`, where a loose-object directory or a pack could be linked), the index or
    objects git names elsewhere, or an alternates file (`GIT_ALTERNATE_OBJECT_DIRECTORIES`
    is never passed on: `gitcommand`)."""
    import stat

    def linked(path: str) -> bool:
        try:
            return stat.S_ISLNK(os.lstat(path).st_mode)
        except OSError:
            return False

    head_ref = _read_small(os.path.join(git_dir, "HEAD")).removeprefix("ref:").strip()
    ref_paths: list[tuple[str, str]] = []
    if head_ref.startswith("refs/") and ".." not in head_ref.split("/"):
        parts = head_ref.split("/")
        base = common if parts[1] in ("heads", "tags", "remotes") else git_dir
        ref_paths = [(base, "/".join(parts[: n + 1])) for n in range(len(parts))]
    checks = [(git_dir, name) for name in _OWN_PATHS] + [(common, name) for name in _COMMON_PATHS]
    for base, name in [*checks, *ref_paths]:
        if linked(os.path.join(base, name)):
            return f"{os.path.join(base, name)} is a symbolic link{_LEADS_OUT}"
    if "GIT_INDEX_FILE" not in os.environ:
        index = os.path.join(git_dir, "index")
        if linked(index) or os.path.realpath(found.index_file) != index:
            return f"{index} is a symbolic link{_LEADS_OUT}"
    objects = os.path.join(common, "objects")
    if "GIT_OBJECT_DIRECTORY" not in os.environ and os.path.realpath(found.objects) != objects:
        return f"{git_dir} keeps its objects in {found.objects}, another repository's"
    for name in ("objects/info/alternates", "info/alternates"):
        if os.path.lexists(os.path.join(common, name)):
            return f"{os.path.join(common, name)} borrows another repository's objects"
    for directory in (objects, os.path.join(objects, "pack")):
        try:
            with os.scandir(directory) as entries:
                link = next((entry.name for entry in entries if entry.is_symlink()), None)
        except OSError:
            continue
        if link is not None:
            return f"{os.path.join(directory, link)} is a symbolic link{_LEADS_OUT}"
    return ""
