"""`readmany hashline`: one file, every line tagged with its anchor, bound to a snapshot.

As the reference does it (spec/hashline.md §7): errors of the plain read come first, images
and files this process may not write get the plain read's output, and a writable text file
is hashed, decoded and framed from one pass over its bytes, so the tag always matches the
lines shown. That pass streams: memory stays bounded by what one read can show, whatever
the file's size.

Without `--compat`, the path is taken literally, notices end with the command that
continues (`readmany hashline PATH --offset N`) and a file that cannot be opened is named
as given (`frame.notices`).
"""

from __future__ import annotations

import os

from readmany.choices import Secrets
from readmany.emit.outcome import FileStat, Outcome, Tally
from readmany.emit.render import present
from readmany.emit.sink import Sink
from readmany.errors import EXIT_FILE_ERROR
from readmany.frame import notices
from readmany.frame.hashline import frame_rows, plain_text, plain_window
from readmany.limits import HASHLINE_MAX_ANCHORED_BYTES, UNSIZED_READ_BYTES
from readmany.read import images
from readmany.read.classify import credentials_name
from readmany.read.guard import credentials_refusal, secrets_refusal
from readmany.read.hashline import HashlineError, not_utf8_message, scan_file
from readmany.read.line_range import (
    WHOLE_FILE_LIMIT,
    ReadStyle,
    failure_message,
    format_size,
    read_tool,
    resolve_path,
)
from readmany.read.safe import (
    OpenFailure,
    chunks,
    open_beneath,
    open_regular,
    read_all,
    read_prefix,
    settle_size,
)
from readmany.record import NamedTuple
from readmany.request.hashline import HashlineRequest
from readmany.select.boundary import secret_file_refusal, target_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

READ_CHUNK = 1 << 18
MAX_ANCHORED_BYTES = HASHLINE_MAX_ANCHORED_BYTES


def main(request: HashlineRequest) -> int:
    """`readmany hashline` with its request: run and presented."""
    return present(lambda sink: run_hashline(request, sink), request.presentation)


def run_hashline(request: HashlineRequest, sink: Sink) -> Outcome:
    """Write the hashline read of one file to `sink`, or fail as a whole with nothing written."""
    try:
        cwd = os.getcwd()
    except OSError as exc:
        return _failure(f"the current directory cannot be read: {exc.strerror}")
    absolute = resolve_path(request.path, cwd, rewrite=request.face.rewrite_paths)
    # The default face never reads a secret file (by its name or its link's target's);
    # an `.npmrc` or `.pypirc` is one when it holds a token (judged once it is open).
    credentials = None
    if request.face.refuse_secret_files:
        target = target_name(absolute)
        refusal = secret_file_refusal(request.path, target)
        if refusal is not None:
            return _failure(refusal)
        credentials = credentials_name(request.path) or (target and credentials_name(target))
    try:
        if request.root is None:
            fd, st = open_regular(absolute)
        else:
            fd, st = open_beneath(absolute, request.root)
    except OpenFailure as failure:
        if request.face.shell_notices:
            return _failure(notices.read_problem(request.path, failure.code, failure.kind))
        return _failure(failure_message(failure))
    try:
        fd, st = settle_size(fd, st, UNSIZED_READ_BYTES)  # procfs, sysfs: read to the end
        # A file the checks read is read once: they judge the bytes then shown.
        held = None
        if (credentials is not None or request.secrets != Secrets.OFF) and (
            st.st_size <= MAX_ANCHORED_BYTES
        ):
            held = read_all(fd, st.st_size)
        # These files are small: read whole, within the anchored limit (`held` None for
        # a larger one, too big for a hashline read: refused as such). What is judged is
        # what is then shown: the bytes read once from the descriptor.
        text = None if held is None else held.decode("utf-8", "replace")
        if credentials is not None and text is not None:
            refusal = credentials_refusal(request.path, credentials, text)
            if refusal is not None:
                return _failure(refusal)
        warning = None
        if request.secrets != Secrets.OFF and text is not None:
            warning = secrets_refusal(request.path, request.secrets, text)
            if warning is not None and request.secrets == Secrets.SKIP:
                return _failure(warning)
        is_image = images.sniff_image(read_prefix(fd, images.IMAGE_SNIFF_BYTES)) is not None
        writable = os.access(absolute, os.W_OK)
        if is_image or not writable:
            shown = _plain_read(request, absolute, cwd, fd, st.st_size, writable, held)
        else:
            shown = _anchored_read(request, fd, st.st_size, held)
    except OSError as exc:
        return _failure(f"EIO: {exc.strerror or 'i/o error'}, read '{absolute}'")
    finally:
        os.close(fd)
    if isinstance(shown, Outcome):
        return shown
    # Written only now, outside the read's error handling: a closed stdout is the CLI's.
    size = sink.write(shown.text)
    details = {**shown.details, "bytes": size, "estimatedTokens": round(sink.tokens)}
    problems = () if warning is None else (warning,)
    stats = Tally.of([FileStat(request.path, "read", size)])
    return Outcome(details, stats=stats, problems=problems)


class _Shown(NamedTuple):
    text: str
    details: dict[str, Any]


def _anchored_read(
    request: HashlineRequest, fd: int, size: int, held: bytes | None = None
) -> _Shown | Outcome:
    """The anchored read of the open file; `held`: its bytes, read already."""
    if size > MAX_ANCHORED_BYTES:
        return _failure(
            f"Cannot use hashline tools on {request.path}: the file is {format_size(size)}, "
            f"over the {format_size(MAX_ANCHORED_BYTES)} limit."
        )
    start = (request.offset or 1) - 1
    parts = (held,) if held is not None else chunks(fd, size, READ_CHUNK)
    scan = scan_file(parts, start, request.limit)
    # The plain read runs first in the reference, so its offset check (LF-separated
    # pieces of the raw bytes, no final period) decides before anything else. The default
    # face counts the lines it shows: a file whose lines end in CR alone has more of
    # them than LFs, and each can be asked for.
    if request.face.shell_notices:
        shown = scan.total_lines if scan.valid_utf8 else scan.raw_lines
        if start >= shown:
            return _failure(notices.past_the_end(request.path, str(request.offset), shown))
    elif start >= scan.raw_lines:
        return _failure(
            f"Offset {request.offset} is beyond end of file ({scan.raw_lines} lines total)"
        )
    if not scan.valid_utf8:
        return _failure(not_utf8_message(request.path))
    try:
        frame = frame_rows(
            request.path,
            scan.tag,
            scan.rows,
            scan.total_lines,
            offset=request.offset,
            limit=request.limit,
            command_path=request.path if request.face.shell_notices else None,
            refuse_line_breaks=request.face.header_line_breaks_refused,
        )
    except HashlineError as error:
        return _failure(str(error))
    return _Shown(
        frame.text,
        _details(
            request.path,
            scan.tag,
            frame.first_line,
            frame.shown_lines,
            frame.total_lines,
            frame.next_offset,
            writable=True,
        ),
    )


def _plain_read(
    request: HashlineRequest,
    absolute: str,
    cwd: str,
    fd: int,
    size: int,
    writable: bool,
    held: bytes | None = None,
) -> _Shown | Outcome:
    """The reference's plain read, unchanged: no header, no anchors, no tag; `held`: the
    file's bytes, read already."""
    # Read once where the tool would read whole; it streams big files itself.
    data = held
    if data is None and size <= WHOLE_FILE_LIMIT:
        data = read_all(fd, size)
    people = request.face.shell_notices
    result = read_tool(
        absolute,
        request.offset,
        request.limit,
        cwd,
        count_trailing_empty=False,
        data=data,
        style=ReadStyle(rewrite_paths=False, notices=not people, reference_window_end=not people),
    )
    if result.error is not None:
        if people and result.error_code == "offset":
            return _failure(
                notices.past_the_end(request.path, str(request.offset), result.line_count)
            )
        return _failure(result.error)
    total = result.file_lines
    start = (request.offset or 1) - 1
    shown, next_offset = plain_window(result, start, request.limit, total)
    text = plain_text(request.path, request.limit, result) if people else result.text
    return _Shown(
        text,
        _details(request.path, None, start + 1, shown, total, next_offset, writable=writable),
    )


def _details(
    path: str,
    tag: str | None,
    offset: int,
    shown: int,
    total: int,
    next_offset: int | None,
    *,
    writable: bool,
) -> dict[str, Any]:
    return {
        "path": path,
        "tag": tag,
        "offset": offset,
        "shownLines": shown,
        "totalLines": total,
        "nextOffset": next_offset,
        "writable": writable,
    }


def _failure(message: str) -> Outcome:
    return Outcome(details={}, exit_code=EXIT_FILE_ERROR, failure=message)
