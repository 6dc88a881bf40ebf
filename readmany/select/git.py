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
hook. The repository must be the work tree's own, as `gitdir.py` judges it. This module
lists files and reads no file's contents: the staged bytes, the work-tree side of a diff
and the diff of `--with-diff` are read by `read/gitcontent.py`, with the runner kept here
(`Git`).

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
from readmany.select.gitdir import Repository, foreign_git_dir
from readmany.select.walk import sort_key

REASON_SUBMODULE = "submodule"
REASON_NESTED_REPOSITORY = "nested repository"
# The index holds a link's target path, not a file: following it would read another
# file (maybe unstaged, maybe outside the root) and call it this one.
REASON_SYMLINK = "symlink"
REASON_UNMERGED = "unmerged"


STATUS_UNTRACKED = "?"

MODE_LINK = 0o120000
MODE_GITLINK = 0o160000


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
        return [path for path in dict.fromkeys(paths) if not withheld(path)]


def _event_key(event: Event) -> str:
    return sort_key(event.rel)


# --- running git --------------------------------------------------------------------------


def git_command(args: Sequence[str]) -> list[str]:
    return git_argv(args)


class GitFailed(Exception):
    def __init__(self, returncode: int, stderr: bytes, stdout: bytes = b"") -> None:
        super().__init__(returncode)
        self.returncode = returncode
        self.message = first_line(stderr)
        self.stdout = stdout


def first_line(stderr: bytes) -> str:
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.strip():
            return line.strip().removeprefix("fatal: ").removeprefix("error: ")
    return "git failed"


def missing_git(option: str) -> UsageError:
    return UsageError(f"{option} runs git, and no `git` command was found: install git")


class Git:
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
        """git's stdout, run in the root (or `cwd`); `GitFailed` when it fails."""
        import subprocess

        if self._env is None:
            self._env = environment(self.root)
        env = {**self._env, **extra_env} if extra_env else self._env
        try:
            done = subprocess.run(
                git_command(args), cwd=cwd or self.root, env=env, input=stdin, capture_output=True
            )
        except FileNotFoundError:
            raise missing_git(self.option) from None
        except NotADirectoryError:  # the root, not git: the caller checked it
            raise UsageError(f"{self.option}: {self.root} is not a directory") from None
        except OSError as exc:  # a command line or environment too long for the system
            raise UsageError(f"{self.option}: git could not be run: {exc.strerror}") from None
        if done.returncode != 0:
            raise GitFailed(done.returncode, done.stderr, done.stdout)
        return done.stdout

    def repository(self) -> Repository:
        """The repository whose work tree holds the root, checked to be that work tree's
        own (`gitdir.foreign_git_dir`)."""
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
        except GitFailed as failed:
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
            foreign = foreign_git_dir(found)
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


def _branch_names(git: Git, most: int = 5) -> list[str]:
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
    except GitFailed:
        return []
    names = [
        line[1:] + (" (checked out)" if line.startswith("*") else "")
        for line in out.decode("utf-8", "replace").splitlines()
    ]
    return names[:most] + (["…"] if len(names) > most else [])


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


def empty_tree(git: Git) -> str:
    """The empty tree's id, in the repository's hash (SHA-1 or SHA-256)."""
    return git.run(["hash-object", "-t", "tree", "--stdin"]).decode("ascii").strip()


def resolve_revision(git: Git, rev: str) -> str:
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
    except GitFailed as failed:
        reason = "no common commit" if failed.returncode == 1 else failed.message
        raise UsageError(f"--changed {rev}: no merge base of {base} and HEAD ({reason})") from None
    return merge_base.decode("ascii").strip()


def git_directory(where: str, option: str) -> str:
    """The git directory of the repository `where` is in, as `git rev-parse --git-dir`
    names it (`.git` at the top of a work tree; an absolute path elsewhere, in a linked
    work tree and in a submodule), held to be the work tree's own as `--staged` holds it
    (`gitdir.foreign_git_dir`)."""
    git = Git(where, option)
    try:
        out = git.run(["rev-parse", "--git-dir"])
    except GitFailed as failed:
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


class Change(NamedTuple):
    status: str  # the letter, without a score
    mode: int  # the new side's
    oid: str  # the new side's
    rel: str
    source: str  # the old path of a rename or copy, else ""


def raw_changes(out: bytes) -> Iterator[Change]:
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
        yield Change(letter, int(new_mode, 8), new_oid.decode("ascii"), rel, source)


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


def withheld(rel: str) -> bool:
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
        if not oid and (mode in (0, MODE_LINK)) and os.path.islink(path):
            # Read from the work tree through a link: the walk's boundary for links.
            refusal = self._link_refusal(path)
            if refusal is not None:
                self.skipped[rel] = Skip(rel, refusal)
                return
        self.entries[rel] = GitEntry(rel, path, status, mode, oid, source)

    def _link_refusal(self, path: str) -> str | None:
        """Why a link may not be read (its target outside the root, or refused), if so."""
        try:
            real = os.path.realpath(path)
            root_real = os.path.realpath(self.root)
        except OSError as exc:  # a link on the way swapped while it was followed
            return f"Read error: cannot follow the link: {exc.strerror or exc}"
        if real != root_real and not real.startswith(root_real.rstrip("/") + "/"):
            return REASON_LINK_OUTSIDE
        if _refused(os.path.relpath(real, root_real).replace(os.sep, "/")):
            return REASON_OUTSIDE
        return None

    def skip(self, rel: str, reason: str) -> None:
        if rel not in self.entries:
            self.skipped[rel] = Skip(rel, REASON_OUTSIDE if _refused(rel) else reason)

    def change(self, change: Change, *, from_index: bool) -> None:
        if change.status == "D":
            # Whatever the path (a `.env` unstaged with `git rm --cached`), nothing of it
            # goes into the commit or the dump: a deletion, not a refusal.
            if change.rel not in self.entries:
                self.skipped[change.rel] = Skip(change.rel, REASON_DELETED)
        elif change.mode == MODE_GITLINK:
            self.skip(change.rel, REASON_SUBMODULE)
        elif change.status == "U":
            if from_index:
                self.skip(change.rel, REASON_UNMERGED)  # no single staged version
            else:
                self.file(change.rel, change.status, change.mode)
        elif from_index and change.mode == MODE_LINK:
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


def absolute_root(root: str) -> str:
    absolute = os.path.abspath(root)
    if not os.path.isdir(absolute):
        raise UsageError(f"root is not a directory: {root}")
    return absolute


def staged(root: str) -> GitSelection:
    """The files staged in the index against `HEAD` (all of them when `HEAD` is unborn).

    Entries carry the staged blob's id: read their content with `index_blobs`. Deleted
    files, submodules, links in the index and unmerged paths are skipped with a reason.
    """
    root = absolute_root(root)
    git = Git(root, "--staged")
    tree = git.open("HEAD^{tree}") or empty_tree(git)
    try:
        out = git.run([*INDEX_DIFF, tree])
    except GitFailed as failed:
        raise UsageError(f"--staged: git diff-index failed: {failed.message}") from None
    collected = _Collector(root)
    for change in raw_changes(out):
        collected.change(change, from_index=True)
    return collected.selection(from_index=True)


def changed(root: str, rev: str) -> GitSelection:
    """The files that differ between `rev` and the work tree, staged or not, and the
    untracked files no ignore rule covers; `BASE...` starts from the merge base of BASE
    and HEAD. Entries name work-tree files (no `oid`): read them from their `path`. A
    link is skipped as the walk skips it when its target is outside the root or refused
    (git lists no path below a link to a directory: only the last part can be a link)."""
    root = absolute_root(root)
    git = Git(root, "--changed")
    commit = resolve_revision(git, rev)
    try:
        diff = git.run([*WORK_TREE_DIFF, commit])
        untracked = git.run(["ls-files", "-z", "--others", "--exclude-standard"])
    except GitFailed as failed:
        raise UsageError(f"--changed {rev}: git failed: {failed.message}") from None
    collected = _Collector(root)
    for change in raw_changes(diff):
        collected.change(change, from_index=False)
    for name in untracked.split(b"\0"):
        if name.endswith(b"/"):  # a repository of its own, not added as a submodule
            collected.skip(os.fsdecode(name), REASON_NESTED_REPOSITORY)
        elif name:
            collected.file(os.fsdecode(name), STATUS_UNTRACKED)
    return collected.selection(from_index=False)


# The work tree against a revision, as `changed` lists it (submodules by their commit
# alone: a dirty one is not asked, which would run `git status` in it).
WORK_TREE_DIFF = (
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
INDEX_DIFF = ("diff-index", "--cached", "--raw", "-z", "--no-abbrev", "-M", "--relative")


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
            git_command(["ls-files", "-z", "--", name]),
            cwd=directory,
            env=environment(directory),
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        return False
    return done.returncode == 0 and done.stdout != b""


# --- the patterns over git's paths ------------------------------------------------------


def _git_patterns(patterns: Sequence[str], root: str) -> list[str]:
    """The patterns as git's paths are matched: a directory means what is below it."""
    found = []
    for pattern in patterns:
        directory = os.path.isdir(os.path.join(root, pattern))
        found.append(pattern.rstrip("/") + "/**" if directory else pattern)
    return found


def unmatched_patterns(patterns: Sequence[str], selection: GitSelection) -> list[str]:
    """The patterns, as given, that match none of the paths git named (read or not)."""
    if not patterns:
        return []
    from readmany.select.patterns import compile_paths

    paths = [entry.rel for entry in selection.entries]
    paths += [skip.rel.rstrip("/") for skip in selection.skipped]
    unmatched = []
    for given, pattern in zip(patterns, _git_patterns(patterns, selection.root), strict=True):
        matcher = compile_paths([pattern])
        if not any(matcher.match(path) for path in paths):
            unmatched.append(given)
    return unmatched


def path_filter(
    patterns: Sequence[str], root: str, output: str | None
) -> Callable[[str], bool] | None:
    """Which of git's paths to keep: those the patterns match (a directory means what is
    below it), never the `-o` file (`output`, as given); None to keep them all."""
    found = _git_patterns(patterns, root)
    shown_output = None
    if output:
        shown_output = os.path.relpath(os.path.abspath(output), root).replace(os.sep, "/")
    if not found and shown_output is None:
        return None
    matcher = None
    if found:
        from readmany.select.patterns import compile_paths

        matcher = compile_paths(found)

    def keep(rel: str) -> bool:
        return rel != shown_output and (matcher is None or matcher.match(rel))

    return keep
