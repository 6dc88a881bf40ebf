"""`readmany edit`'s files: anchored edits checked, then written safely beneath the root.

The edit itself is `edit.anchored` (pure, bytes to bytes). Here each file is opened
beneath a descriptor of the root, every directory on the way opened once with no link
followed (`readmany.emit.beneath`), and a FIFO or a device is refused as the read tool
refuses it; every file of a request is checked before any is written, each new file is
staged as a temporary file beside it (fsync'd, mode and owner kept), every file is re-read
just before the writes, and then the temporary files are renamed into place. Every one of
those steps names the file in the directory's descriptor, so a directory swapped for a
link meanwhile leads no byte out of the root. A file with several hard links is written
in place instead, since a rename would split it from its other names.

No file outside the root is written, whatever leads there (`..`, an absolute path, a link),
nor one in a git directory (its config and hooks run as code at the next git command),
under a name the walk never reads beneath (`node_modules`), or that is a secret file by
its name: an edit request can come from a model, and is trusted no more than a pattern.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

from readmany.edit.anchored import (
    STALE,
    EditError,
    EditRequest,
    EditResult,
    FileEdit,
    apply_edits,
    changed_spans,
    normalize_tag,
    unified_diff,
)
from readmany.emit import beneath
from readmany.emit.messages import error_line
from readmany.emit.sink import Sink
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK, EXIT_STALE, EXIT_USAGE, UsageError
from readmany.frame.hashline import frame_hashline, header_row
from readmany.frame.paths import header_path
from readmany.limits import HASHLINE_MAX_ANCHORED_BYTES as MAX_ANCHORED_BYTES
from readmany.read.hashline import HashlineError, decode_lines
from readmany.read.line_range import failure_message, format_size, resolve_path
from readmany.read.safe import ECHANGED, OpenFailure, open_regular_in, read_all, refuse_root
from readmany.record import NamedTuple
from readmany.select.boundary import (
    blocked_name,
    inside,
    is_secret_name,
    rel_parts,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.emit.sink import Writer

CHANGED_MESSAGE = "The file changed while the edit was being prepared. Re-read it and retry."
SHOW_CONTEXT = 2
SPAN_GAP = "..."


class EditRun(NamedTuple):
    """One `readmany edit`, as the CLI parsed it."""

    request: EditRequest
    cwd: str
    root: str = "."  # every file written is inside it, links resolved
    dry_run: bool = False
    show: bool = False
    json_mode: bool = False
    quiet: bool = False


# --- the run -----------------------------------------------------------------------------


class _Target(NamedTuple):
    """A file whose edit checked out: where it is and what it becomes."""

    edit: FileEdit
    real: str  # the file itself, every link resolved: what is written
    st: os.stat_result
    result: EditResult
    directory: int  # a descriptor of its directory, reached from the root with no link
    name: str  # its name in that directory


class _Refusal(NamedTuple):
    path: str
    message: str
    exit_code: int


_EXIT_OF_KIND = {STALE: EXIT_STALE}


def run_edit(run: EditRun, stream: Writer) -> int:
    """Check every file, then write them all (or, with --dry-run, diff them); report."""
    files = run.request.files
    several = len(files) > 1
    refusals: list[_Refusal] = []
    for file in files:  # every tag's form before any file is touched
        try:
            normalize_tag(file.hash)
        except EditError as error:
            refusals.append(_Refusal(file.path, str(error), EXIT_USAGE))
    if refusals:
        return _refuse(refusals, several, len(files))
    try:
        root = os.path.realpath(os.path.join(run.cwd, run.root))
        directories = beneath.Directories(root)
    except OSError as exc:
        raise UsageError(f"--root {run.root}: {(exc.strerror or str(exc)).lower()}") from None
    try:
        return _edit_beneath(run, stream, root, directories)
    finally:
        directories.close()


def _edit_beneath(run: EditRun, stream: Writer, root: str, directories: beneath.Directories) -> int:
    files = run.request.files
    several = len(files) > 1
    prepared = [_prepare(file, run, root, directories) for file in files]
    refusals = [item for item in prepared if isinstance(item, _Refusal)]
    targets = [item for item in prepared if isinstance(item, _Target)]
    refusals += _named_twice(targets)
    if refusals:
        return _refuse(refusals, several, len(files))
    if run.dry_run:
        diff = "".join(
            unified_diff(target.result, shown=header_path(target.edit.path)) for target in targets
        )
        return _report(run, stream, targets, [], diff.removesuffix("\n"))

    staged: dict[int, str] = {}  # index in targets -> its temporary file
    try:
        for index, target in enumerate(targets):
            if target.result.changed and target.st.st_nlink == 1:
                try:
                    staged[index] = _stage(target)
                except OSError as exc:
                    where = os.path.dirname(target.real)
                    message = f"cannot write a temporary file in {where}: {exc.strerror}"
                    refusal = _Refusal(target.edit.path, message, EXIT_FILE_ERROR)
                    return _refuse([refusal], several, len(files))
        for target in targets:
            if not _unchanged_on_disk(target):
                refusal = _Refusal(target.edit.path, CHANGED_MESSAGE, EXIT_STALE)
                return _refuse([refusal], several, len(files))
        done: list[_Target] = []
        for index, target in enumerate(targets):
            if target.result.changed:
                try:
                    _commit(target, staged.pop(index, None), run.quiet)
                except OSError as exc:
                    error_line(f"writing {target.edit.path} failed: {exc.strerror}")
                    return _partial(run, stream, targets, done)
            done.append(target)
    finally:
        for index, temporary in staged.items():
            beneath.remove(targets[index].directory, temporary)
    _sync_directories(targets)
    return _report(run, stream, done, [], _feedback(run, done))


def _prepare(
    file: FileEdit, run: EditRun, root: str, directories: beneath.Directories
) -> _Target | _Refusal:
    """Read one file and apply its edit; nothing is written.

    Whether it may be written is checked before it is opened, on the file itself (every
    link resolved): that path is the one written. It is then opened beneath the root's
    descriptor, one directory at a time with no link followed, so that what is read and
    later written is the file at that path, inside the root: a link swapped in since it
    was resolved is a change (exit 3), never followed."""
    # Literal, as every path of the default face: `@a.py` is the file `@a.py`, never `a.py`;
    # `..` is left to the system, which takes it after a link (the boundary judges `real`).
    absolute = resolve_path(file.path, run.cwd, rewrite=False)
    try:
        real = os.path.realpath(absolute)
        refused = boundary_refusal(file.path, os.path.normpath(absolute), real, root)
    except OSError:  # a link on the way was swapped while it was being resolved (EINVAL)
        return _Refusal(file.path, CHANGED_MESSAGE, EXIT_STALE)
    if refused is not None:
        return _Refusal(file.path, refused, EXIT_USAGE)
    if file.path.endswith(("/", "/.")) and not os.path.isdir(real):
        # Written as a directory's name: as the read refuses it, never `a.txt` itself.
        failure = OpenFailure("ENOTDIR", file.path)
        return _Refusal(file.path, failure_message(failure), EXIT_FILE_ERROR)
    opened = _open_beneath(directories, rel_parts(real, root), absolute)
    if isinstance(opened, OpenFailure):
        if opened.code == ECHANGED:
            return _Refusal(file.path, CHANGED_MESSAGE, EXIT_STALE)
        return _Refusal(file.path, failure_message(opened), EXIT_FILE_ERROR)
    directory, name, fd, st = opened
    try:
        if not os.access(name, os.W_OK, dir_fd=directory):
            return _Refusal(
                file.path, failure_message(OpenFailure("EACCES", absolute)), EXIT_FILE_ERROR
            )
        if st.st_size > MAX_ANCHORED_BYTES:
            return _Refusal(
                file.path,
                f"Cannot use hashline tools on {file.path}: the file is "
                f"{format_size(st.st_size)}, over the {format_size(MAX_ANCHORED_BYTES)} limit.",
                EXIT_USAGE,
            )
        if run.show:
            # A path no header can show is refused before writing.
            header_row(file.path, "", refuse_line_breaks=False)
        data = read_all(fd, st.st_size)
    except HashlineError as error:
        return _Refusal(file.path, str(error), EXIT_USAGE)
    except OSError as exc:
        return _Refusal(
            file.path, f"EIO: {exc.strerror or 'i/o error'}, read '{absolute}'", EXIT_FILE_ERROR
        )
    finally:
        os.close(fd)
    try:
        result = apply_edits(data, file)
    except EditError as error:
        return _Refusal(file.path, str(error), _EXIT_OF_KIND.get(error.kind, EXIT_USAGE))
    return _Target(file, real, st, result, directory, name)


def _open_beneath(
    directories: beneath.Directories, parts: list[str], absolute: str
) -> tuple[int, str, int, os.stat_result] | OpenFailure:
    """(directory, name, fd, stat) of the regular file at root-relative `parts`, opened
    with no link followed; or why not (`ECHANGED` for a link met on the way)."""
    if not parts:
        return OpenFailure("EISDIR", absolute, "directory")  # the root itself
    try:
        directory = directories.open(parts[:-1])
    except beneath.LinkOnTheWay:
        return OpenFailure(ECHANGED, absolute)
    except OSError as exc:
        return OpenFailure(errno.errorcode.get(exc.errno or 0, "EIO"), absolute)
    try:
        fd, st = open_regular_in(directory, parts[-1], absolute)
    except OpenFailure as failure:
        return failure
    return directory, parts[-1], fd, st


def boundary_refusal(given: str, absolute: str, real: str, root: str) -> str | None:
    """Why the file `given` names may not be written (one line saying what to do), or None.

    `absolute` is the path as given made absolute, `real` the file with every link
    resolved (what would be written), `root` the real root. A reason `--root` cannot
    lift is given first, so that following the advice never meets a second refusal.
    """
    never = _never_written(given, absolute, real, root)
    if never is not None or inside(real, root):
        return never
    fix = "run readmany from the file's project, or give --root DIR"
    if real == absolute:
        return f"{given} is outside the root {root}: {fix}"
    return f"{given} leads to {real}, outside the root {root}: {fix}"


def _never_written(given: str, absolute: str, real: str, root: str) -> str | None:
    """Why a file may not be written wherever the root is, or None: the walk's boundary
    (`readmany.select.boundary`, and `refuse_root` for a git directory), checked on the path
    as given and on the file itself, as the walk checks a link and its target."""
    if refuse_root(os.path.dirname(real)) is not None:
        return _git_refusal(given, "inside a git directory")
    kind = is_secret_name(os.path.basename(absolute)) or is_secret_name(os.path.basename(real))
    if kind is not None:
        return (
            f"{given} is a secret file by its name ({kind}), which readmany edit never "
            "writes: edit it with another tool"
        )
    for path in (absolute, real):
        parts = rel_parts(path, root) if inside(path, root) else []
        for index, part in enumerate(parts):
            if blocked_name(part):
                where = f"{'named' if index == len(parts) - 1 else 'under'} {part}"
                if part.rstrip(". ").lower() == ".git":  # a `.git` file points git elsewhere
                    return _git_refusal(given, where)
                return (
                    f"{given} is {where}, where readmany edit writes nothing: edit it with "
                    "another tool"
                )
    return None


def _git_refusal(given: str, where: str) -> str:
    """git runs what its config and hooks say at its next command: not for an edit to set."""
    return (
        f"{given} is {where}, where readmany edit writes nothing (git's config and hooks "
        "run as code): change it with git itself"
    )


def _named_twice(targets: list[_Target]) -> list[_Refusal]:
    """Two entries for one file would each undo the other: refused."""
    seen: dict[tuple[int, int], str] = {}
    refusals = []
    for target in targets:
        key = (target.st.st_dev, target.st.st_ino)
        if key in seen:
            message = (
                f"{target.edit.path} is {seen[key]} again: put all edits of a file "
                "in one entry of the request"
            )
            refusals.append(_Refusal(target.edit.path, message, EXIT_USAGE))
        else:
            seen[key] = target.edit.path
    return refusals


def _refuse(refusals: list[_Refusal], several: bool, count: int) -> int:
    """Report refused files (nothing was written) and return the exit status.

    A retry after a re-read can only help when every refusal is stale, so exit 3 only
    then; an invalid request outranks a file that could not be read.
    """
    for refusal in refusals:
        error_line(f"{refusal.path}: {refusal.message}" if several else refusal.message)
    if count > 1:
        error_line(f"nothing was written: {len(refusals)} of {count} files could not be edited")
    codes = {refusal.exit_code for refusal in refusals}
    for code in (EXIT_USAGE, EXIT_FILE_ERROR, EXIT_STALE):
        if code in codes:
            return code
    return EXIT_FILE_ERROR


def _partial(run: EditRun, stream: Writer, targets: list[_Target], done: list[_Target]) -> int:
    """A write failed: say which files were written and which not; report the written."""
    finished = {id(target) for target in done}
    missing = [target.edit.path for target in targets if id(target) not in finished]
    written = [target.edit.path for target in done if target.result.changed]
    if written:
        error_line(
            f"partial edit: written: {', '.join(written)}; not written: {', '.join(missing)}"
        )
        _report(run, stream, done, missing, _feedback(run, done))
    elif len(targets) > 1:
        error_line("nothing was written")
    return EXIT_FILE_ERROR


# --- writing -----------------------------------------------------------------------------


def _stage(target: _Target) -> str:
    """The new bytes in a temporary file beside the target, fsync'd, mode and owner kept;
    its name in the target's directory."""
    fd, temporary = beneath.create_temporary(target.directory, target.name)
    try:
        _write_all(fd, target.result.after)
        if os.geteuid() in (0, target.st.st_uid):
            with contextlib.suppress(OSError):
                os.fchown(fd, target.st.st_uid, target.st.st_gid)
        os.fchmod(fd, stat.S_IMODE(target.st.st_mode))
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        beneath.remove(target.directory, temporary)
        raise
    os.close(fd)
    return temporary


def _unchanged_on_disk(target: _Target) -> bool:
    """Whether the file still holds the bytes the edit was made from: read again, in the
    directory held open, where a link swapped in is a change, never followed."""
    try:
        fd, st = open_regular_in(target.directory, target.name, target.real)
    except OpenFailure:
        return False
    try:
        return read_all(fd, st.st_size) == target.result.before and st.st_size == len(
            target.result.before
        )
    except OSError:
        return False
    finally:
        os.close(fd)


def _commit(target: _Target, temporary: str | None, quiet: bool) -> None:
    if temporary is not None:
        beneath.replace(target.directory, temporary, target.name)
        return
    _write_in_place(target)
    if not quiet:
        error_line(
            f"{target.edit.path} has {target.st.st_nlink} hard links: written in place "
            "(not atomically), so they stay one file"
        )


def _write_in_place(target: _Target) -> None:
    """Overwrite the file itself. Room for a larger file is taken first, so a full disk
    or a size limit fails before any byte changes."""
    data = target.result.after
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(target.name, flags, dir_fd=target.directory)
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (target.st.st_dev, target.st.st_ino):
            # Another file put under the name since it was read (a link to one elsewhere).
            raise OSError(errno.ESTALE, "the file was replaced meanwhile; none of it written")
        if len(data) > target.st.st_size:
            _reserve(fd, len(data))
        _write_all(fd, data)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _reserve(fd: int, size: int) -> None:
    import errno

    allocate = getattr(os, "posix_fallocate", None)
    if allocate is not None:
        try:
            allocate(fd, 0, size)
            return
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                raise
    os.ftruncate(fd, size)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    position = 0
    while position < len(view):
        position += os.pwrite(fd, view[position:], position)


def _sync_directories(targets: list[_Target]) -> None:
    """fsync the directories renamed into, so the new names survive a crash."""
    for directory in sorted({t.directory for t in targets if t.result.changed}):
        beneath.sync(directory)


# --- reporting ---------------------------------------------------------------------------


def _feedback(run: EditRun, done: list[_Target]) -> str:
    """Each file's result text; with --show, its new header and changed rows after it."""
    if not run.show:
        return "\n".join(_message(target) for target in done)
    return "\n\n".join(
        _message(target) + "\n" + show_rows(target.edit.path, target.result) for target in done
    )


def _message(target: _Target) -> str:
    """`Edited PATH (…)`, the name written as a header writes it: no name forges a row."""
    return target.result.message(header_path(target.edit.path))


def show_rows(path: str, result: EditResult) -> str:
    """`@file path#NEWTAG`, then the rows of each changed span with two lines around it,
    as `readmany hashline` frames them; `...` between spans that do not touch."""
    lines = decode_lines(result.after)
    out = [header_row(path, result.tag_after, refuse_line_breaks=False)]
    for index, (low, high) in enumerate(changed_spans(result, SHOW_CONTEXT)):
        if index:
            out.append(SPAN_GAP)
        first = low
        while first <= high:
            frame = frame_hashline(
                path, result.tag_after, lines, first, high - first + 1, refuse_line_breaks=False
            )
            if not frame.shown_lines:
                break
            out.extend(frame.text.split("\n")[1 : 1 + frame.shown_lines])
            first += frame.shown_lines
    return "\n".join(out)


def _report(
    run: EditRun, stream: Writer, done: list[_Target], missing: list[str], content: str
) -> int:
    if not run.json_mode and not content:
        return EXIT_OK  # a dry run that would change nothing: an empty diff
    entries = []
    for target in done:
        entry = target.result.as_json()
        ranges = entry.pop("ranges")
        entry["written"] = target.result.changed and not run.dry_run
        entry["ranges"] = ranges
        entries.append(entry)
    details: dict[str, Any]
    if run.request.listed:
        details = {"files": entries, "notWritten": missing}
    else:
        details = entries[0] if entries else {}
    sink = Sink(stream, json_mode=run.json_mode)
    sink.write(content)
    sink.finish(details)
    return EXIT_OK
