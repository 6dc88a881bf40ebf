"""Selection by git: the files staged in the index, or changed since a revision.

Git runs as the `git` command, never through a shell, with `-z` on every listing: a path
comes back as its bytes (no `core.quotePath` escapes), whatever characters it holds, and
is decoded as `os.fsdecode` decodes a directory listing. Listings use the plumbing
(`rev-parse`, `diff-index`, `ls-files`, `cat-file`), whose output configuration does not
restyle; the work tree is compared by the porcelain `git diff` (which refreshes stale stat
information in memory, where `diff-index` would report such files as changed), with every
option that shapes its output given explicitly.

Every call is built by `gitcommand` (`git_argv`, `environment`): no program a
repository's configuration names runs, and the caller's `GIT_DIR`, `GIT_WORK_TREE` and
`GIT_INDEX_FILE` are kept (a pre-commit hook run by `git commit -a` must read the
temporary index about to be committed). `GIT_OPTIONAL_LOCKS=0`: a listing never takes the
index lock to save refreshed stat data, so it cannot collide with the commit that runs the
hook. The repository must be the work tree's own (`_foreign_git_dir`). The diff of
`--with-diff` is made from the index and objects alone (`diff_text`).

The root may be a subdirectory of the work tree: git runs in it, and `--relative` (diff)
or the current directory (ls-files) limits every listing to it, with paths relative to
it. A file renamed from outside the root into it is therefore listed as added.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from readmany.errors import UsageError
from readmany.record import NamedTuple
from readmany.select.boundary import blocked_name, is_secret_name
from readmany.select.candidates import (
    REASON_DELETED,
    REASON_LINK_OUTSIDE,
    REASON_OUTSIDE,
    REASON_SECRET_FILE,
    Candidate,
    Event,
    Skip,
)
from readmany.select.gitcommand import DIFF_PROGRAMS_OFF, environment, git_argv
from readmany.select.walk import sort_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

    from readmany.read.safe import Boundary, OpenFailure

REASON_SUBMODULE = "submodule"
REASON_NESTED_REPOSITORY = "nested repository"
# The index holds a link's target path, not a file: following it would read another
# file (maybe unstaged, maybe outside the root) and call it this one.
REASON_SYMLINK = "symlink"
REASON_UNMERGED = "unmerged"


STATUS_UNTRACKED = "?"

_MODE_LINK = 0o120000
_MODE_GITLINK = 0o160000

_CHUNK = 1 << 20

_DIFF_OUTPUT = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--submodule=short",
    "-O/dev/null",  # the default order, whatever diff.orderFile says
    "-M",
    "--relative",
)
_ARGV_BUDGET = 24_000 if os.name == "nt" else 100_000  # bytes of paths per git call


class GitEntry(NamedTuple):
    """A file git lists: `rel` relative to the root with `/`, `path` absolute.

    `status` is git's letter (`A`, `C`, `M`, `R`, `T`), or `?` for an untracked file;
    `mode` is the mode git records (0 for an untracked file); `oid` the staged blob, or
    "" when the content is the work tree's; `source` the old path of a rename or copy
    (relative to the root; "" when there is none or it lies outside the root).
    """

    rel: str
    path: str
    status: str
    mode: int = 0
    oid: str = ""
    source: str = ""


class GitSelection(NamedTuple):
    """What `staged` or `changed` selected, each list in output order (`sort_key`)."""

    root: str  # absolute
    entries: tuple[GitEntry, ...]  # the files to read
    skipped: tuple[Skip, ...]  # deleted, submodules, links in the index, the boundary
    from_index: bool  # content comes from the index (`index_blobs`), not the work tree

    def events(self) -> Iterator[Event]:
        """Entries as candidates and the skips, merged in output order: the select stream.

        A candidate is not `named`: the asset rules apply to staged and changed files.
        """
        import heapq

        candidates: Iterator[Event] = (Candidate(entry.rel, entry.path) for entry in self.entries)
        skipped: Iterable[Event] = self.skipped
        yield from heapq.merge(candidates, skipped, key=_event_key)

    def filtered(self, keep: Callable[[str], bool]) -> GitSelection:
        """Only the entries and skips whose `rel` `keep` accepts (patterns, the `-o` file)."""
        return self._replace(
            entries=tuple(entry for entry in self.entries if keep(entry.rel)),
            skipped=tuple(skip for skip in self.skipped if keep(skip.rel)),
        )

    def diff_paths(self) -> list[str]:
        """The paths a diff of this selection covers: every listed path and rename source,
        not the files the boundary refuses (their lines would leak through the diff)."""
        paths = [entry.rel for entry in self.entries]
        paths += [entry.source for entry in self.entries if entry.source]
        paths += [skip.rel for skip in self.skipped if skip.reason != REASON_OUTSIDE]
        return [path for path in dict.fromkeys(paths) if not _withheld(path)]


def _event_key(event: Event) -> str:
    return sort_key(event.rel)


# --- running git --------------------------------------------------------------------------


def _command(args: Sequence[str]) -> list[str]:
    return git_argv(args)


class _GitFailed(Exception):
    def __init__(self, returncode: int, stderr: bytes, stdout: bytes = b"") -> None:
        super().__init__(returncode)
        self.returncode = returncode
        self.message = _first_line(stderr)
        self.stdout = stdout


def _first_line(stderr: bytes) -> str:
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.strip():
            return line.strip().removeprefix("fatal: ").removeprefix("error: ")
    return "git failed"


def _missing_git(option: str) -> UsageError:
    return UsageError(f"{option} runs git, and no `git` command was found: install git")


class _Git:
    """git asked about the repository at `root` for one option's work: every call with
    the same argv and environment (`gitcommand`), the configuration's filter drivers read
    once, and the repository (`repository`) asked once."""

    def __init__(self, root: str, option: str) -> None:
        self.root = root
        self.option = option
        self._env: dict[str, str] | None = None
        self._repository: Repository | None = None

    def run(
        self,
        args: Sequence[str],
        stdin: bytes = b"",
        *,
        cwd: str | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> bytes:
        """git's stdout, run in the root (or `cwd`); `_GitFailed` when it fails."""
        import subprocess

        if self._env is None:
            self._env = environment(self.root)
        env = {**self._env, **extra_env} if extra_env else self._env
        try:
            done = subprocess.run(
                _command(args), cwd=cwd or self.root, env=env, input=stdin, capture_output=True
            )
        except FileNotFoundError:
            raise _missing_git(self.option) from None
        except NotADirectoryError:  # the root, not git: the caller checked it
            raise UsageError(f"{self.option}: {self.root} is not a directory") from None
        except OSError as exc:  # a command line or environment too long for the system
            raise UsageError(f"{self.option}: git could not be run: {exc.strerror}") from None
        if done.returncode != 0:
            raise _GitFailed(done.returncode, done.stderr, done.stdout)
        return done.stdout

    def repository(self) -> Repository:
        """The repository whose work tree holds the root, checked to be that work tree's
        own (`_foreign_git_dir`)."""
        if self._repository is None:
            self.open(None)
        assert self._repository is not None
        return self._repository

    def open(self, rev: str | None) -> str | None:
        """Check that the root is in a work tree, its repository its own (`repository`);
        the commit or tree `rev` names (verified), or None when it names none (an unborn
        `HEAD`, or a bad revision). One `git rev-parse` asks both."""
        known = self._repository is not None
        option, root = self.option, self.root
        args = ["rev-parse"] if known else list(_REPOSITORY_QUESTIONS)
        if rev is not None:
            args += ["--verify", "-q", rev]
        unresolved = False
        try:
            out = self.run(args)
        except _GitFailed as failed:
            answered = known or failed.stdout.count(b"\n") >= _REPOSITORY_ANSWERS
            if failed.returncode == 1 and rev is not None and answered:
                out, unresolved = failed.stdout, True  # --verify -q: the revision does not resolve
            elif failed.stdout.startswith(b"false\n"):
                raise UsageError(
                    f"{option} needs a git work tree, and {root} is inside a .git directory"
                ) from None
            else:
                raise UsageError(
                    f"{option} needs a git work tree, and {root} is not in one ({failed.message})"
                ) from None
        lines = os.fsdecode(out).split("\n")
        if not known:
            if lines[0] != "true" or len(lines) <= _REPOSITORY_ANSWERS:
                raise UsageError(
                    f"{option} needs a git work tree, and {root} is inside a .git directory"
                )
            git_dir, top, prefix, objects, index_file, object_format = lines[1:7]
            hash_length = 64 if object_format == "sha256" else 40
            found = Repository(git_dir, top, prefix, objects, index_file, hash_length)
            foreign = _foreign_git_dir(found)
            if foreign:
                raise UsageError(
                    f"{option}: {foreign}: readmany reads only a work tree's own repository "
                    "(set GIT_DIR to name another on purpose)"
                )
            self._repository = found
            lines = lines[_REPOSITORY_ANSWERS:]
        if rev is None or unresolved:
            return None
        return lines[0].strip() or None


def _branch_names(git: _Git, most: int = 5) -> list[str]:
    """The local branches, the most recently committed first (at most `most`): what a
    revision that does not resolve could have meant (`master` for a `main` that is not)."""
    try:
        out = git.run(
            [
                "for-each-ref",
                "--sort=-committerdate",
                "--format=%(HEAD)%(refname:short)",
                "refs/heads",
            ]
        )
    except _GitFailed:
        return []
    names = [
        line[1:] + (" (checked out)" if line.startswith("*") else "")
        for line in out.decode("utf-8", "replace").splitlines()
    ]
    return names[:most] + (["…"] if len(names) > most else [])


class Repository(NamedTuple):
    """Where git keeps what `root` belongs to, every path absolute."""

    git_dir: str
    top: str  # the work tree's top directory
    prefix: str  # the root below `top`: "" or "sub/dir/"
    objects: str  # the object directory
    index_file: str  # the index (`GIT_INDEX_FILE` when the caller set one)
    hash_length: int  # hex digits of an object id: 40 (SHA-1) or 64 (SHA-256)


_REPOSITORY_QUESTIONS = (
    "rev-parse",
    "--path-format=absolute",
    "--is-inside-work-tree",
    "--absolute-git-dir",
    "--show-toplevel",
    "--show-prefix",
    "--git-path",
    "objects",
    "--git-path",
    "index",
    "--show-object-format",
)


_REPOSITORY_ANSWERS = 7  # lines: "true", then one for each path and the object format


def _foreign_git_dir(found: Repository) -> str:
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
    import stat

    dot_git = os.path.join(found.top, ".git")
    points = f"{dot_git} points at {found.git_dir}"
    try:
        info = os.lstat(dot_git)
    except OSError:
        return f"{points}, not found where git found it"
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
    from readmany.select.gitconfig import _read, config_values

    text = _read(os.path.join(git_dir, "config"))
    named = [value for key, value in config_values(text or "") if key == "core.worktree"]
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


def _empty_tree(git: _Git) -> str:
    """The empty tree's id, in the repository's hash (SHA-1 or SHA-256)."""
    return git.run(["hash-object", "-t", "tree", "--stdin"]).decode("ascii").strip()


def _resolve(git: _Git, rev: str) -> str:
    """The commit `rev` names (`BASE...`: the merge base of BASE and HEAD)."""
    if not rev or rev.startswith("-") or "\0" in rev or "\n" in rev:
        raise UsageError(f"--changed {rev!r}: not a revision (give a branch, tag or commit)")
    from_merge_base = rev.endswith("...")
    base = (rev[:-3] or "HEAD") if from_merge_base else rev
    if ".." in base:  # no ref name holds "..": a range, which has no single start
        raise UsageError(
            f"--changed {rev}: give one revision, or BASE... to start from the merge base "
            "of BASE and HEAD"
        )
    commit = git.open(f"{base}^{{commit}}")
    if commit is None:
        branches = _branch_names(git)
        names = [name.removesuffix(" (checked out)") for name in branches if name != "…"]
        others = [name for name in branches if not name.endswith(" (checked out)")]
        example = (others[0] if others and others[0] != "…" else None) or (
            names[0] if names else "main"
        )
        here = f"; branches here: {', '.join(branches)}" if branches else ""
        raise UsageError(
            f"--changed {rev}: unknown revision {base!r} (give a branch, tag or commit, "
            f"e.g. {example}, HEAD~1 or {example}...{here})"
        )
    if not from_merge_base:
        return commit
    try:
        merge_base = git.run(["merge-base", commit, "HEAD"])
    except _GitFailed as failed:
        reason = "no common commit" if failed.returncode == 1 else failed.message
        raise UsageError(f"--changed {rev}: no merge base of {base} and HEAD ({reason})") from None
    return merge_base.decode("ascii").strip()


def git_directory(where: str, option: str) -> str:
    """The git directory of the repository `where` is in, as `git rev-parse --git-dir`
    names it (`.git` at the top of a work tree; an absolute path elsewhere, in a linked
    work tree and in a submodule), held to be the work tree's own as `--staged` holds it
    (`_foreign_git_dir`)."""
    git = _Git(where, option)
    try:
        out = git.run(["rev-parse", "--git-dir"])
    except _GitFailed as failed:
        raise UsageError(
            f"{option} names the git directory, and {os.path.abspath(where)} is not in a "
            f"git repository ({failed.message})"
        ) from None
    found = os.fsdecode(out.removesuffix(b"\n"))
    if not found or "\n" in found:
        raise UsageError(f"{option}: git named no git directory")
    git.repository()  # refuses another repository's directory
    return found


# --- listings -----------------------------------------------------------------------------


class _Change(NamedTuple):
    status: str  # the letter, without a score
    mode: int  # the new side's
    oid: str  # the new side's
    rel: str
    source: str  # the old path of a rename or copy, else ""


def _raw_changes(out: bytes) -> Iterator[_Change]:
    """Parse `--raw -z`: `:old_mode new_mode old_oid new_oid STATUS NUL path NUL [path NUL]`."""
    fields = out.split(b"\0")
    fsdecode = os.fsdecode
    i = 0
    while i < len(fields) and fields[i].startswith(b":"):
        _, new_mode, _, new_oid, status = fields[i].split(b" ")
        letter = chr(status[0])
        if letter in ("R", "C"):
            source, rel = fsdecode(fields[i + 1]), fsdecode(fields[i + 2])
            i += 3
        else:
            source, rel = "", fsdecode(fields[i + 1])
            i += 2
        yield _Change(letter, int(new_mode, 8), new_oid.decode("ascii"), rel, source)


def _refused(rel: str) -> bool:
    """The boundary: a path through `.git`, `.env`, `node_modules` (as the walk refuses),
    or one that is not a plain path below the root. git never lists `../x`, `/x`, `a//b`
    or `a/./b`, but an index written by hand (a repository unpacked from an archive) can:
    such a path would be read outside the root, or shown under a forged name (`/x` too). A
    directory (a submodule, a nested repository) ends with `/`."""
    directory, _, name = rel.removesuffix("/").rpartition("/")
    if name in _NOT_NAMES or rel.startswith("/") or _dotted_directory(directory):
        return True
    return blocked_name(name) or (directory != "" and _refused_directory(directory))


_NOT_NAMES = frozenset(("", ".", ".."))


def _dotted_directory(directory: str) -> bool:
    return directory != "" and not _NOT_NAMES.isdisjoint(directory.split("/"))


def _refused_parts(directory: str) -> bool:
    return any(blocked_name(part) for part in directory.split("/"))


def _withheld(rel: str) -> bool:
    """Whether a diff may not show `rel`: the boundary's paths and secret files, whose
    lines would leak through the diff as they would through the file."""
    return _refused(rel) or is_secret_name(rel) is not None


@functools.lru_cache(maxsize=4096)
def _refused_directory(directory: str) -> bool:
    """`_refused` of a directory: remembered, as a listing names each one many times."""
    return _refused_parts(directory)


class _Collector:
    def __init__(self, root: str) -> None:
        self.root = root
        self._root_slash = root.rstrip("/") + "/"
        self.entries: dict[str, GitEntry] = {}
        self.skipped: dict[str, Skip] = {}

    def file(self, rel: str, status: str, mode: int = 0, oid: str = "", source: str = "") -> None:
        self.skipped.pop(rel, None)  # listed twice (deleted, yet untracked): it exists
        if _refused(rel):
            self.skipped[rel] = Skip(rel, REASON_OUTSIDE)
            return
        if is_secret_name(rel):
            self.skipped[rel] = Skip(rel, REASON_SECRET_FILE)
            return
        path = self._root_slash + rel
        if not oid and (mode in (0, _MODE_LINK)) and os.path.islink(path):
            # Read from the work tree through a link: the walk's boundary for links.
            refusal = self._link_refusal(path)
            if refusal is not None:
                self.skipped[rel] = Skip(rel, refusal)
                return
        self.entries[rel] = GitEntry(rel, path, status, mode, oid, source)

    def _link_refusal(self, path: str) -> str | None:
        """Why a link may not be read (its target outside the root, or refused), if so."""
        real = os.path.realpath(path)
        root_real = os.path.realpath(self.root)
        if real != root_real and not real.startswith(root_real.rstrip("/") + "/"):
            return REASON_LINK_OUTSIDE
        if _refused(os.path.relpath(real, root_real).replace(os.sep, "/")):
            return REASON_OUTSIDE
        return None

    def skip(self, rel: str, reason: str) -> None:
        if rel not in self.entries:
            self.skipped[rel] = Skip(rel, REASON_OUTSIDE if _refused(rel) else reason)

    def change(self, change: _Change, *, from_index: bool) -> None:
        if change.status == "D":
            # Whatever the path (a `.env` unstaged with `git rm --cached`), nothing of it
            # goes into the commit or the dump: a deletion, not a refusal.
            if change.rel not in self.entries:
                self.skipped[change.rel] = Skip(change.rel, REASON_DELETED)
        elif change.mode == _MODE_GITLINK:
            self.skip(change.rel, REASON_SUBMODULE)
        elif change.status == "U":
            if from_index:
                self.skip(change.rel, REASON_UNMERGED)  # no single staged version
            else:
                self.file(change.rel, change.status, change.mode)
        elif from_index and change.mode == _MODE_LINK:
            self.skip(change.rel, REASON_SYMLINK)
        else:
            oid = change.oid if from_index else ""
            self.file(change.rel, change.status, change.mode, oid, change.source)

    def selection(self, *, from_index: bool) -> GitSelection:
        entries = sorted(self.entries.values(), key=_entry_key)
        skipped = sorted(self.skipped.values(), key=_event_key)
        return GitSelection(self.root, tuple(entries), tuple(skipped), from_index)


def _entry_key(entry: GitEntry) -> str:
    return sort_key(entry.rel)


def _absolute_root(root: str) -> str:
    absolute = os.path.abspath(root)
    if not os.path.isdir(absolute):
        raise UsageError(f"root is not a directory: {root}")
    return absolute


def staged(root: str) -> GitSelection:
    """The files staged in the index against `HEAD` (all of them when `HEAD` is unborn).

    Entries carry the staged blob's id: read their content with `index_blobs`. Deleted
    files, submodules, links in the index and unmerged paths are skipped with a reason.
    """
    root = _absolute_root(root)
    git = _Git(root, "--staged")
    tree = git.open("HEAD^{tree}") or _empty_tree(git)
    try:
        out = git.run([*_INDEX_DIFF, tree])
    except _GitFailed as failed:
        raise UsageError(f"--staged: git diff-index failed: {failed.message}") from None
    collected = _Collector(root)
    for change in _raw_changes(out):
        collected.change(change, from_index=True)
    return collected.selection(from_index=True)


def changed(root: str, rev: str) -> GitSelection:
    """The files that differ between `rev` and the work tree, staged or not, and the
    untracked files no ignore rule covers; `BASE...` starts from the merge base of BASE
    and HEAD. Entries name work-tree files (no `oid`): read them from their `path`. A
    link is skipped as the walk skips it when its target is outside the root or refused
    (git lists no path below a link to a directory: only the last part can be a link)."""
    root = _absolute_root(root)
    git = _Git(root, "--changed")
    commit = _resolve(git, rev)
    try:
        diff = git.run([*_WORK_TREE_DIFF, commit])
        untracked = git.run(["ls-files", "-z", "--others", "--exclude-standard"])
    except _GitFailed as failed:
        raise UsageError(f"--changed {rev}: git failed: {failed.message}") from None
    collected = _Collector(root)
    for change in _raw_changes(diff):
        collected.change(change, from_index=False)
    for name in untracked.split(b"\0"):
        if name.endswith(b"/"):  # a repository of its own, not added as a submodule
            collected.skip(os.fsdecode(name), REASON_NESTED_REPOSITORY)
        elif name:
            collected.file(os.fsdecode(name), STATUS_UNTRACKED)
    return collected.selection(from_index=False)


def diff_text(
    root: str, *, staged: bool, rev: str | None = None, paths: Sequence[str] | None = None
) -> str:
    """The diff for `--with-diff`: what `git diff --cached` (`staged`) or `git diff REV`
    shows, made by git from the index and objects alone, never from the work tree.

    git reads a work-tree file by its path when it diffs it (and, for a file whose stat
    matches the index, even in `git diff --cached`): a file or directory swapped for a
    link meanwhile would put the bytes of whatever it names, `/etc/shadow`, into the diff.
    So git runs in an empty temporary work tree (`_Sealed`). For `--changed`, the
    work-tree side of each change is read here, as the files are read (beneath the root's
    descriptor, no link followed), and given to git as blobs in a temporary index and
    object directory beside the repository's, never in it; a file that cannot be read so
    (a FIFO, a link put in a file's place) is left out of the diff with a line saying why.

    `paths` (relative to the root, taken literally) limits it, e.g. to
    `selection.diff_paths()` after the patterns filtered the selection; None means
    every path under the root. Files the boundary refuses are left out either way.
    Text that is not UTF-8 is decoded with replacement characters.
    """
    root = _absolute_root(root)
    git = _Git(root, "--with-diff")
    try:
        if staged:
            against = git.open("HEAD") or _empty_tree(git)
            return _staged_diff(git, against, paths)
        if rev is None:
            raise ValueError("diff_text needs staged=True or a revision")
        return _work_tree_diff(git, _resolve(git, rev), paths)
    except _GitFailed as failed:
        raise UsageError(f"--with-diff: git diff failed: {failed.message}") from None


def _staged_diff(git: _Git, against: str, paths: Sequence[str] | None) -> str:
    """`git diff --cached AGAINST`, git at the top of an empty work tree."""
    whole = False
    if paths is None:
        listed = _raw_changes(git.run([*_INDEX_DIFF, against]))
        paths = [p for c in listed for p in (c.rel, c.source) if p]
        whole = not any(_withheld(path) for path in paths)
    kept = sorted({os.fsencode(p) for p in paths if not _withheld(p)})
    if not whole and not kept:
        return ""
    with _Sealed(git) as sealed:
        return sealed.diff(against, None if whole else kept)


def _work_tree_diff(git: _Git, commit: str, paths: Sequence[str] | None) -> str:
    """`git diff COMMIT`, its work-tree side read here (`_Sealed.stage_work_tree`)."""
    named = [] if paths is None else [p for p in paths if not _withheld(p)]
    if paths is not None and not named:
        return ""
    changes = [
        change
        for change in _raw_changes(git.run([*_WORK_TREE_DIFF, commit, "--", *named]))
        if not _withheld(change.rel)
    ]
    # Only what changed now, and not the boundary's files, whatever the caller asked for.
    kept = sorted(
        {os.fsencode(p) for c in changes for p in (c.rel, c.source) if p and not _withheld(p)}
    )
    if not kept:
        return ""
    with _Sealed(git) as sealed:
        notes = sealed.stage_work_tree(commit, changes)
        # The notes first: `--secrets` drops a left-out file's lines up to the next header.
        return "".join(notes) + sealed.diff(commit, kept)


# The work tree against a revision, as `changed` lists it (submodules by their commit
# alone: a dirty one is not asked, which would run `git status` in it).
_WORK_TREE_DIFF = (
    "diff",
    "--raw",
    "-z",
    "--no-abbrev",
    *DIFF_PROGRAMS_OFF,
    "--ignore-submodules=dirty",
    "-M",
    "--relative",
)
# The index against a tree, as `staged` lists it.
_INDEX_DIFF = ("diff-index", "--cached", "--raw", "-z", "--no-abbrev", "-M", "--relative")
# `_DIFF_OUTPUT` where git runs at the top of an empty work tree: `--relative=PREFIX`.
_SEALED_OUTPUT = tuple(option for option in _DIFF_OUTPUT if option != "--relative")


class _Sealed:
    """git run on the repository of `root` with an empty temporary work tree, so that
    nothing it shows can come from the real one; for `--changed`, with a temporary index
    and object directory too (the repository's objects as their alternate), which hold
    the work-tree files read here. Removed on leaving (`with`)."""

    def __init__(self, git: _Git) -> None:
        import tempfile

        self.git = git
        self.root = git.root
        self.repo = repo = git.repository()
        self.place = tempfile.mkdtemp(prefix="readmany-diff-")
        self.work_tree = os.path.join(self.place, "work")
        os.mkdir(self.work_tree, 0o700)
        self.env = {"GIT_INDEX_FILE": repo.index_file}  # absolute: git runs elsewhere
        self.relative = [f"--relative={repo.prefix}"] if repo.prefix else []

    def __enter__(self) -> _Sealed:
        return self

    def __exit__(self, *exc_info: object) -> None:
        import shutil

        shutil.rmtree(self.place, ignore_errors=True)

    def pathspecs(self, paths: Iterable[bytes]) -> list[str]:
        """Root-relative paths as git sees them from the top of the work tree."""
        return [self.repo.prefix + os.fsdecode(path) for path in paths]

    def run(self, args: Sequence[str], stdin: bytes = b"") -> bytes:
        where = [f"--git-dir={self.repo.git_dir}", f"--work-tree={self.work_tree}"]
        return self.git.run([*where, *args], stdin, cwd=self.work_tree, extra_env=self.env)

    def diff(self, against: str, paths: Sequence[bytes] | None) -> str:
        """`git diff --cached AGAINST` of `paths` (None: every path), as text."""
        base = ["diff", *_SEALED_OUTPUT, *self.relative, "--cached", against, "--"]
        if paths is None:
            return self.run(base).decode("utf-8", "replace")
        return "".join(
            self.run([*base, *self.pathspecs(chunk)]).decode("utf-8", "replace")
            for chunk in _argv_chunks(paths)
        )

    def _own_index(self) -> str:
        """A temporary index and object directory, the repository's objects as its
        alternate: the object directory."""
        objects = os.path.join(self.place, "objects")
        os.mkdir(objects, 0o700)
        alternates = [self.repo.objects]
        if os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES"):
            alternates.append(os.environ["GIT_ALTERNATE_OBJECT_DIRECTORIES"])
        self.env = {
            "GIT_INDEX_FILE": os.path.join(self.place, "index"),
            "GIT_OBJECT_DIRECTORY": objects,
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.pathsep.join(alternates),
        }
        return objects

    def stage_work_tree(self, commit: str, changes: Iterable[_Change]) -> list[str]:
        """A temporary index of `commit`'s tree (its `.gitattributes` say what is binary,
        as for git's own diff) with each change's work-tree side, read beneath the root's
        descriptor; a line for each file left out (the index holds it as `commit` does)."""
        from readmany.read.safe import Boundary, OpenFailure

        self._own_index()
        self.run(["read-tree", commit])
        zero = "0" * self.repo.hash_length
        gone = b"0 " + zero.encode() + b"\t"
        lines: list[bytes] = []
        notes: list[str] = []
        with Boundary(self.root) as boundary:
            for change in changes:
                top_path = os.fsencode(self.repo.prefix + change.rel)
                if change.status == "D":
                    lines.append(gone + top_path)
                    continue
                mode, oid = change.mode, change.oid
                # Every side but a submodule's commit is read here: an id git lists for a
                # work-tree file need not be in the repository (`git add -N`).
                if mode != _MODE_GITLINK:
                    try:
                        mode, oid = self._work_tree_blob(boundary, change.rel, mode)
                    except OpenFailure as failure:
                        notes.append(_left_out_line(change.rel, failure))
                        continue
                if change.source and change.status == "R":
                    lines.append(gone + os.fsencode(self.repo.prefix + change.source))
                lines.append(b"%o %s\t%s" % (mode, oid.encode(), top_path))
        if lines:
            self.run(["update-index", "-z", "--index-info"], b"\0".join(lines) + b"\0")
        return notes

    def _work_tree_blob(self, boundary: Boundary, rel: str, mode: int) -> tuple[int, str]:
        """The mode and blob id of the work-tree file `rel`, its blob written."""
        from readmany.read.safe import ECHANGED, OpenFailure, chunks

        try:
            fd, info = boundary.open(rel)
        except OpenFailure as failure:
            if failure.code != ECHANGED:
                raise
            target = boundary.readlink(rel)  # a link: its target is what git stores
            return _MODE_LINK, self._write_blob([os.fsencode(target)], len(os.fsencode(target)))
        try:
            blob_mode = 0o100755 if mode == 0o100755 else 0o100644
            return blob_mode, self._write_blob(chunks(fd, info.st_size + 1), info.st_size, rel)
        finally:
            os.close(fd)

    def _write_blob(self, parts: Iterable[bytes], size: int, rel: str = "") -> str:
        """Write a loose object holding `parts` (`size` bytes) to the temporary objects."""
        import hashlib
        import zlib

        from readmany.read.safe import ECHANGED, OpenFailure

        header = b"blob %d\0" % size
        digest = hashlib.sha256() if self.repo.hash_length == 64 else hashlib.sha1()
        packer = zlib.compressobj(1)
        objects = self.env["GIT_OBJECT_DIRECTORY"]
        temporary = os.path.join(objects, "incoming")
        written = 0
        with open(temporary, "wb") as out:
            digest.update(header)
            out.write(packer.compress(header))
            for part in parts:
                written += len(part)
                if written > size:
                    break
                digest.update(part)
                out.write(packer.compress(part))
            out.write(packer.flush())
        if written != size:  # the file grew or shrank as it was read
            os.unlink(temporary)
            raise OpenFailure(ECHANGED, rel)
        oid = digest.hexdigest()
        directory = os.path.join(objects, oid[:2])
        os.makedirs(directory, exist_ok=True)
        os.replace(temporary, os.path.join(directory, oid[2:]))
        return oid


def _left_out_line(rel: str, failure: OpenFailure) -> str:
    from readmany.frame.paths import header_path
    from readmany.read.safe import refusal_text

    reason = refusal_text(failure) or (
        f"not a regular file ({failure.kind})" if failure.kind else f"not read ({failure.code})"
    )
    return f"[its changes are left out: {header_path(rel)}: {reason}]\n"


def _argv_chunks(paths: Sequence[bytes]) -> Iterator[Sequence[bytes]]:
    """`paths` (sorted as git sorts: bytes) in runs short enough for one command line."""
    start, size = 0, 0
    for i, path in enumerate(paths):
        if size + len(path) + 1 > _ARGV_BUDGET and i > start:
            yield paths[start:i]
            start, size = i, 0
        size += len(path) + 1
    if start < len(paths):
        yield paths[start:]


def is_tracked(root: str, path: str) -> bool:
    """Whether git tracks (or has staged) the file at `path` (absolute, or relative to
    `root`), asked of the repository that holds it. False when no git or repository
    answers: then there is nothing to warn about."""
    import subprocess

    target = os.path.join(os.path.abspath(root), path)
    directory, name = os.path.split(target)
    if not name or not os.path.isdir(directory):
        return False
    try:
        done = subprocess.run(
            _command(["ls-files", "-z", "--", name]),
            cwd=directory,
            env=environment(directory),
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        return False
    return done.returncode == 0 and done.stdout != b""


# --- the staged content -------------------------------------------------------------------
#
# A staged file's bytes are the blob its id names. Most of the time the work tree holds
# the very same bytes (always, under pre-commit, which sets unstaged changes aside), and
# reading a file is several times cheaper than having git inflate a fresh loose object;
# so a work-tree file is read, hashed as git hashes a blob, and used only when its id
# is the staged one: the bytes are then the staged bytes, whatever links, filters
# (autocrlf, LFS) or later edits did to the work tree. Every other blob (a partially
# staged file, a filtered one, a file above `_WORK_TREE_LIMIT`) comes from one
# `git cat-file --batch`, started at the first such blob and asked one blob at a time.

_WORK_TREE_LIMIT = 4 << 20  # a verified copy is held whole: bounded per file
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO put in the file's place must not block the open
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _work_tree_copy(path: str, oid: str) -> bytes | None:
    """The bytes at `path` if they are exactly the blob `oid`, else None."""
    import stat

    try:
        fd = os.open(path, _OPEN_FLAGS)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _WORK_TREE_LIMIT:
            return None
        parts = []
        size = 0
        while size <= _WORK_TREE_LIMIT:  # read to the end: the file may have grown
            part = os.read(fd, max(info.st_size - size, 0) + 1)
            if not part:
                break
            parts.append(part)
            size += len(part)
    except OSError:
        return None
    finally:
        os.close(fd)
    data = parts[0] if len(parts) == 1 else b"".join(parts)
    if len(data) > _WORK_TREE_LIMIT or _blob_id(data, len(oid)) != oid:
        return None
    return data


def _blob_id(data: bytes, length: int) -> str:
    """git's object id of a blob holding `data` (SHA-1, or SHA-256 for 64 hex digits)."""
    import hashlib

    digest = hashlib.sha256() if length == 64 else hashlib.sha1()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


class IndexBlob:
    """One staged file: its size first, its bytes on demand.

    Only the blob the stream is at can be read; moving on drops what was not read (in
    chunks, when it comes from git): a file too large to want is never held. `missing`
    is the one per-file failure: the object is not in the repository (a broken or
    partial clone). Asking for the size may read the file (up to 4 MiB) to verify it.
    """

    __slots__ = ("_batch", "_data", "_head", "_missing", "_size", "entry")

    def __init__(self, entry: GitEntry, batch: IndexBlobs) -> None:
        self.entry = entry
        self._batch = batch
        self._data: bytes | None = None  # the verified work-tree copy
        self._size = -1  # not known yet
        self._missing = False
        self._head = b""  # bytes taken from the batch by `head`, not yet handed out

    def _resolve(self) -> None:
        """Find where the bytes come from: the work tree, verified, or the batch."""
        self._batch.check(self)
        if self._size >= 0 or self._missing:
            return
        data = _work_tree_copy(self.entry.path, self.entry.oid)
        if data is not None:
            self._data, self._size = data, len(data)
            return
        size = self._batch.request(self)
        if size is None:
            self._missing, self._size = True, 0
        else:
            self._size = size

    @property
    def size(self) -> int:
        self._resolve()
        return self._size

    @property
    def missing(self) -> bool:
        self._resolve()
        return self._missing

    def head(self, count: int) -> bytes:
        """The first `count` bytes (fewer in a shorter blob), leaving them to be read."""
        self._resolve()
        if self._data is not None:
            return self._data[:count]
        want = min(count, self._size) - len(self._head)
        if want > 0:
            self._head += self._batch.take(self, want)
        return self._head[:count]

    def read(self) -> bytes:
        """The whole blob (once)."""
        self._resolve()
        if self._data is not None:
            data, self._data = self._data, b""
            return data
        return b"".join(self.chunks(max(self._size, 1)))

    def chunks(self, size: int = _CHUNK) -> Iterator[bytes]:
        """The blob in pieces of at most `size` bytes (once)."""
        self._resolve()
        if self._data is not None:
            data, self._data = self._data, b""
            view = memoryview(data)
            for start in range(0, len(data), size):
                yield bytes(view[start : start + size])
            return
        head, self._head = self._head, b""
        batch = self._batch
        for start in range(0, len(head), size):
            yield head[start : start + size]
        while batch.left(self):
            yield batch.take(self, size)

    def _drop(self) -> None:
        self._data = None
        self._head = b""


class IndexBlobs:
    """The staged content of a selection's entries, in its order. Iterate once; close
    it (or use `with`) when stopping early, to end the batch."""

    def __init__(self, selection: GitSelection) -> None:
        if not selection.from_index:
            raise ValueError("index_blobs reads a staged selection; a changed one is on disk")
        self._root = selection.root
        self._entries = selection.entries
        self._process: subprocess.Popen[bytes] | None = None
        self._current: IndexBlob | None = None
        self._left = 0  # bytes of the current blob git has sent and nobody has read
        self._sending = False  # git is sending a blob: its bytes, then a newline

    def __enter__(self) -> IndexBlobs:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[IndexBlob]:
        try:
            for entry in self._entries:
                blob = self._current = IndexBlob(entry, self)
                yield blob
                self._current = None
                blob._drop()
                self._discard()
            self._finish()
        finally:
            self.close()

    def check(self, blob: IndexBlob) -> None:
        if blob is not self._current:
            raise RuntimeError(f"{blob.entry.rel}: the batch has moved past this blob")

    def request(self, blob: IndexBlob) -> int | None:
        """Ask git for `blob`: its size, or None when the object is missing."""
        process = self._process or self._start()
        assert process.stdin is not None and process.stdout is not None
        oid = blob.entry.oid.encode("ascii")
        try:
            process.stdin.write(oid + b"\n")
            process.stdin.flush()
        except BrokenPipeError:
            raise self._failure() from None
        header = process.stdout.readline().split()
        if len(header) == 2 and header[1] == b"missing":
            return None
        if len(header) != 3 or header[0] != oid:
            raise self._failure()
        self._left, self._sending = int(header[2]), True
        return self._left

    def left(self, blob: IndexBlob) -> int:
        self.check(blob)
        return self._left

    def take(self, blob: IndexBlob, count: int) -> bytes:
        """Up to `count` more bytes of `blob`, the one the stream is at."""
        self.check(blob)
        count = min(count, self._left)
        data = self._read_exactly(count)
        self._left -= count
        return data

    def _start(self) -> subprocess.Popen[bytes]:
        import subprocess

        try:
            self._process = subprocess.Popen(
                _command(["cat-file", "--batch"]),
                cwd=self._root,
                env=environment(self._root),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError:
            raise _missing_git("--staged") from None
        return self._process

    def _discard(self) -> None:
        """Drop the rest of the blob git is sending, and the newline after it."""
        if not self._sending:
            return
        while self._left:
            count = min(_CHUNK, self._left)
            self._read_exactly(count)
            self._left -= count
        if self._read_exactly(1) != b"\n":
            raise self._failure()
        self._sending = False

    def _finish(self) -> None:
        """End the batch, if one ran: git exits at the end of its input."""
        process = self._process
        if process is None:
            return
        assert process.stdin is not None
        process.stdin.close()
        if process.wait() != 0:
            raise self._failure()

    def _read_exactly(self, count: int) -> bytes:
        assert self._process is not None and self._process.stdout is not None
        data = self._process.stdout.read(count)
        if len(data) != count:
            raise self._failure()
        return data

    def _failure(self) -> UsageError:
        """git stopped answering as `--batch` answers: say what it said."""
        message = "it stopped answering"
        process = self._process
        if process is not None and process.stderr is not None:
            if process.poll() is None:
                process.kill()
            process.wait()
            message = _first_line(process.stderr.read())
        return UsageError(f"--staged: git cat-file failed: {message}")

    def close(self) -> None:
        """Stop the batch (a no-op once it has ended)."""
        process, self._process, self._current = self._process, None, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def index_blobs(selection: GitSelection) -> IndexBlobs:
    """The staged content of `selection` (from `staged`), one `IndexBlob` an entry."""
    return IndexBlobs(selection)
