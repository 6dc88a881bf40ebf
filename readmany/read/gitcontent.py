"""What git holds, read: the staged bytes of `--staged` and the diff of `--with-diff`.

The select stage (`select/git.py`) lists the files git names; this module reads their
contents. A staged file's bytes come from the index (`index_blobs`): a work-tree copy
whose blob id is the staged one, else `git cat-file --batch`. The diff is made by git
from the index and objects alone, in an empty temporary work tree (`diff_text`); for
`--changed` the work-tree side of each change is read here, beneath the root's
descriptor, no link followed, and given to git as blobs. Every git call goes through the
select stage's runner (`Git`, `gitcommand`): no program a repository's configuration
names runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence

from readmany.errors import UsageError
from readmany.select.git import (
    INDEX_DIFF,
    MODE_GITLINK,
    MODE_LINK,
    WORK_TREE_DIFF,
    Change,
    Git,
    GitEntry,
    GitFailed,
    GitSelection,
    absolute_root,
    empty_tree,
    first_line,
    git_command,
    missing_git,
    raw_changes,
    resolve_revision,
    withheld,
)
from readmany.select.gitcommand import environment

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

    from readmany.read.safe import Boundary, OpenFailure

_BLOB_CHUNK = 1 << 20

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


def diff_text(
    root: str,
    *,
    staged: bool,
    rev: str | None = None,
    paths: Sequence[str] | None = None,
    header: Callable[[str], str],
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
    Text that is not UTF-8 is decoded with replacement characters. `header` writes a
    path as a block header writes it (`frame.paths.header_path`), in the line saying
    why a file's changes are left out.
    """
    root = absolute_root(root)
    git = Git(root, "--with-diff")
    try:
        if staged:
            against = git.open("HEAD") or empty_tree(git)
            return _staged_diff(git, against, paths)
        if rev is None:
            raise ValueError("diff_text needs staged=True or a revision")
        return _work_tree_diff(git, resolve_revision(git, rev), paths, header)
    except GitFailed as failed:
        raise UsageError(f"--with-diff: git diff failed: {failed.message}") from None


def _staged_diff(git: Git, against: str, paths: Sequence[str] | None) -> str:
    """`git diff --cached AGAINST`, git at the top of an empty work tree."""
    whole = False
    if paths is None:
        listed = raw_changes(git.run([*INDEX_DIFF, against]))
        paths = [p for c in listed for p in (c.rel, c.source) if p]
        whole = not any(withheld(path) for path in paths)
    kept = sorted({os.fsencode(p) for p in paths if not withheld(p)})
    if not whole and not kept:
        return ""
    with _Sealed(git) as sealed:
        return sealed.diff(against, None if whole else kept)


def _work_tree_diff(
    git: Git, commit: str, paths: Sequence[str] | None, header: Callable[[str], str]
) -> str:
    """`git diff COMMIT`, its work-tree side read here (`_Sealed.stage_work_tree`)."""
    named = [] if paths is None else [p for p in paths if not withheld(p)]
    if paths is not None and not named:
        return ""
    changes = [
        change
        for change in raw_changes(git.run([*WORK_TREE_DIFF, commit, "--", *named]))
        if not withheld(change.rel)
    ]
    # Only what changed now, and not the boundary's files, whatever the caller asked for.
    kept = sorted(
        {os.fsencode(p) for c in changes for p in (c.rel, c.source) if p and not withheld(p)}
    )
    if not kept:
        return ""
    with _Sealed(git) as sealed:
        notes = sealed.stage_work_tree(commit, changes, header)
        # The notes first: `--secrets` drops a left-out file's lines up to the next header.
        return "".join(notes) + sealed.diff(commit, kept)


# `_DIFF_OUTPUT` where git runs at the top of an empty work tree: `--relative=PREFIX`.
_SEALED_OUTPUT = tuple(option for option in _DIFF_OUTPUT if option != "--relative")


class _Sealed:
    """git run on the repository of `root` with an empty temporary work tree, so that
    nothing it shows can come from the real one; for `--changed`, with a temporary index
    and object directory too (the repository's objects as their alternate), which hold
    the work-tree files read here. Removed on leaving (`with`)."""

    def __init__(self, git: Git) -> None:
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

    def stage_work_tree(
        self, commit: str, changes: Iterable[Change], header: Callable[[str], str]
    ) -> list[str]:
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
                if mode != MODE_GITLINK:
                    try:
                        mode, oid = self._work_tree_blob(boundary, change.rel, mode)
                    except OpenFailure as failure:
                        notes.append(_left_out_line(header(change.rel), failure))
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
            return MODE_LINK, self._write_blob([os.fsencode(target)], len(os.fsencode(target)))
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


def _left_out_line(shown: str, failure: OpenFailure) -> str:
    from readmany.read.safe import refusal_text

    reason = refusal_text(failure) or (
        f"not a regular file ({failure.kind})" if failure.kind else f"not read ({failure.code})"
    )
    return f"[its changes are left out: {shown}: {reason}]\n"


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
_WORK_TREE_FLAGS = (
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
        fd = os.open(path, _WORK_TREE_FLAGS)
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

    def chunks(self, size: int = _BLOB_CHUNK) -> Iterator[bytes]:
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
                git_command(["cat-file", "--batch"]),
                cwd=self._root,
                env=environment(self._root),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError:
            raise missing_git("--staged") from None
        return self._process

    def _discard(self) -> None:
        """Drop the rest of the blob git is sending, and the newline after it."""
        if not self._sending:
            return
        while self._left:
            count = min(_BLOB_CHUNK, self._left)
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
            message = first_line(process.stderr.read())
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
