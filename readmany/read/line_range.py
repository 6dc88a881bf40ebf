"""A range of a file's lines, as the read tool of coding agents (pi's `read`) reads it,
byte-exact: offset/limit, caps, notices.

`read_tool` reproduces it for one path: 1-based `offset`, `limit`, a head truncation at
2000 lines / 51200 bytes with its continuation notices, image detection by content, and
its error texts. Numbers are JavaScript numbers there, so fractional and negative values
are honoured the way JavaScript slices and prints them.

The default face reads the same way with `ReadStyle` changed: paths taken literally, the
caps set by the caller (`many`'s budget), no notices (the caller words them) and binary
files refused.

Memory stays bounded: small files are read whole; a file above `WHOLE_FILE_LIMIT` is
scanned twice in chunks (once to count lines, once to collect what is shown), so a 1 GiB
file costs no more memory than a small one.
"""

from __future__ import annotations

import codecs
import math
import os
from collections.abc import Iterator

from readmany.limits import (
    READ_MAX_BYTES,
    READ_MAX_LINES,
    UNSIZED_READ_BYTES,
    WHOLE_FILE_READ_BYTES,
)
from readmany.read import images
from readmany.read.safe import (
    CHUNK,
    OpenFailure,
    chunks,
    open_beneath,
    open_regular,
    read_all,
    read_prefix,
    refusal_text,
    settle_size,
)
from readmany.record import NamedTuple
from readmany.units import utf8_len

WHOLE_FILE_LIMIT = WHOLE_FILE_READ_BYTES

_UNICODE_SPACES = dict.fromkeys([0x00A0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], " ")

_ERRNO_TEXT = {
    "ENOENT": "no such file or directory",
    "EACCES": "permission denied",
    "EPERM": "operation not permitted",
    "ENOTDIR": "not a directory",
    "ELOOP": "too many symbolic links encountered",
    "ENAMETOOLONG": "name too long",
    "EIO": "i/o error",
}

Number = int | float


class Truncation(NamedTuple):
    """The head-truncation record, in the key order the reference reports it."""

    content: str
    truncated: bool
    truncated_by: str | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    first_line_exceeds_limit: bool
    max_lines: int = READ_MAX_LINES
    max_bytes: int = READ_MAX_BYTES

    def as_json(self) -> dict[str, object]:
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": False,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


class ToolRead(NamedTuple):
    """What the read tool returned for one path: text (with notices) or an error."""

    text: str = ""
    error: str | None = None
    image_count: int = 0
    mime_type: str | None = None
    truncation: Truncation | None = None
    size: int = 0  # bytes on disk
    file_lines: int = 0  # LF-separated pieces of the whole file (0 for an image)
    # What a caller needs to word its own notices and errors (the default face):
    first: int = 0  # 0-based index of the first selected line
    stop: int = 0  # 0-based index after the last selected line
    line_count: int = 0  # lines as people count them: a final newline ends a line
    first_line_bytes: int = 0  # of the first selected line
    error_code: str = ""  # errno name, `ESPECIAL`, `binary` or `offset`
    error_detail: str = ""  # the kind of a special file
    # Every line asked for, where the read cut them and `ReadStyle.keep_window` asks:
    # what a budget that shows them all would weigh.
    window: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class ReadStyle(NamedTuple):
    """How one read is done; the defaults are the reference's."""

    rewrite_paths: bool = True  # `@`, `~` and Unicode spaces rewritten as the tool does
    max_lines: int = READ_MAX_LINES
    max_bytes: int = READ_MAX_BYTES
    notices: bool = True  # the tool's notices in the text; else the text alone
    refuse_binary: bool = False  # a binary file (readmany.read.classify) is an error
    # With `count_trailing_empty=False`, the reference leaves uncounted an empty line that
    # ends the lines asked for even when it is a blank line of the file, not the empty
    # piece after its final newline (`a\n\n\nb` read 1:2 is "lines 1-1"); False counts
    # it wherever the file goes on after it.
    reference_window_end: bool = True
    keep_window: bool = False  # a cut read keeps every line asked for (`ToolRead.window`)


REFERENCE = ReadStyle()


def format_size(size: int) -> str:
    """`512B`, `50.0KB`, `1.5MB` as the reference writes sizes (toFixed(1) rounding)."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{_to_fixed1(size / 1024)}KB"
    return f"{_to_fixed1(size / (1024 * 1024))}MB"


def _to_fixed1(value: float) -> str:
    # JavaScript's toFixed rounds the exact binary value half up; so does Decimal here.
    from decimal import ROUND_HALF_UP, Decimal

    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def js_number(value: Number) -> str:
    """A number as JavaScript prints it (`3`, `2.5`, `-1`)."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    return str(value)


def resolve_path(path: str, cwd: str, *, rewrite: bool) -> str:
    """Resolve a request path the way the read tool does (`@`, unicode spaces, `~`);
    with `rewrite=False`, as the system does: relative to `cwd`, nothing rewritten.
    No default: every caller says which face it serves (`Face.rewrite_paths`), so a check
    never judges another file than the read that follows it shows."""
    if not rewrite:
        return os.path.join(cwd, path)
    path = path.translate(_UNICODE_SPACES)
    if path.startswith("@"):
        path = path[1:]
    if path == "~":
        path = os.path.expanduser("~")
    elif path.startswith("~/"):
        path = os.path.join(os.path.expanduser("~"), path[2:])
    return os.path.normpath(os.path.join(cwd, path))


def failure_message(failure: OpenFailure) -> str:
    """The reference's error text for a path that could not be opened."""
    refusal = refusal_text(failure)
    if refusal is not None:  # opened beneath a root: it left the root, or changed
        return f"{failure.path}: {refusal}"
    if failure.code == "EISDIR":
        return "EISDIR: illegal operation on a directory, read"
    if failure.code == "ESPECIAL":
        return f"Not a regular file ({failure.kind}), refusing to read: {failure.path}"
    text = _ERRNO_TEXT.get(failure.code, failure.code.lower())
    return f"{failure.code}: {text}, access '{failure.path}'"


def read_tool(
    path: str,
    offset: Number | None,
    limit: Number | None,
    cwd: str,
    *,
    count_trailing_empty: bool = True,
    data: bytes | None = None,
    style: ReadStyle = REFERENCE,
    root: str | None = None,
) -> ToolRead:
    """Read `path` like the read tool. Never raises for a per-file problem.

    `root`: a directory the caller judged the path to lie in; the file is then opened
    beneath it (`safe.open_beneath`), so that a directory swapped for a link after the
    judgement cannot lead the read out of it.

    `count_trailing_empty=False` is the newer tool's head truncation, which does not count
    the empty piece after a final newline. `data` is the file's content when the caller
    has already read it (the file is then not opened again).
    """
    absolute = resolve_path(path, cwd, rewrite=style.rewrite_paths)
    if data is not None:
        mime = images.sniff_image(data[: images.IMAGE_SNIFF_BYTES])
        if mime is not None:
            return _image(data[: images.IMAGE_SNIFF_BYTES], mime, len(data))
        if style.refuse_binary and _binary(data):
            return _binary_file(len(data))
        return _read_text(data, path, offset, limit, count_trailing_empty, len(data), style)
    try:
        fd, st = open_regular(absolute) if root is None else open_beneath(absolute, root)
    except OpenFailure as failure:
        return ToolRead(
            error=failure_message(failure), error_code=failure.code, error_detail=failure.kind
        )
    try:
        fd, st = settle_size(fd, st, UNSIZED_READ_BYTES)  # procfs, sysfs: read to the end
        if style.refuse_binary:  # as much as `is_binary` looks at
            from readmany.read.classify import BINARY_SNIFF_BYTES

            head = read_prefix(fd, BINARY_SNIFF_BYTES)
        else:
            head = read_prefix(fd, images.IMAGE_SNIFF_BYTES)
        mime = images.sniff_image(head[: images.IMAGE_SNIFF_BYTES])
        if mime is not None:
            return _image(head[: images.IMAGE_SNIFF_BYTES], mime, st.st_size)
        if style.refuse_binary and _binary(head):
            return _binary_file(st.st_size)
        if st.st_size <= WHOLE_FILE_LIMIT:
            content = read_all(fd, st.st_size)
            return _read_text(
                content, path, offset, limit, count_trailing_empty, len(content), style
            )
        return _read_streamed(fd, path, offset, limit, count_trailing_empty, st.st_size, style)
    except OSError as exc:
        return ToolRead(
            error=f"EIO: {exc.strerror or 'i/o error'}, read '{absolute}'", error_code="EIO"
        )
    finally:
        os.close(fd)


def _binary(data: bytes) -> bool:
    """The rule `glob` skips binary files by (a NUL byte, many control characters)."""
    from readmany.read.classify import BINARY_SNIFF_BYTES, is_binary

    return is_binary(data[:BINARY_SNIFF_BYTES])


def _binary_file(size: int) -> ToolRead:
    return ToolRead(error="binary file", error_code="binary", size=size)


def _image(head: bytes, mime: str, size: int) -> ToolRead:
    note = images.resize_note(head, mime, size)
    text = f"Read image file [{mime}]" + (f"\n{note}" if note else "")
    return ToolRead(text=text, image_count=1, mime_type=mime, size=size)


class _Window(NamedTuple):
    """Which lines to show, in JavaScript's terms."""

    start: Number  # max(0, offset - 1), possibly fractional
    first: int  # slice start index
    stop: int  # slice end index (exclusive)
    user_limited: Number | None  # end - start when a limit was given


def _window(offset: Number | None, limit: Number | None, total: int) -> _Window | str:
    start: Number = max(0, offset - 1) if offset else 0
    if start >= total:
        return f"Offset {js_number(offset or 0)} is beyond end of file ({total} lines total)"
    first = _slice_index(start, total)
    if limit is None:
        return _Window(start, first, total, None)
    end = min(start + limit, total)
    return _Window(start, first, _slice_index(end, total), end - start)


def _slice_index(value: Number, length: int) -> int:
    """Array.prototype.slice's index rule: truncate, negatives count from the end."""
    if isinstance(value, float) and math.isnan(value):
        return 0
    index = math.trunc(value) if math.isfinite(value) else (length if value > 0 else -length)
    if index < 0:
        return max(length + index, 0)
    return min(index, length)


def _read_text(
    data: bytes,
    path: str,
    offset: Number | None,
    limit: Number | None,
    count_trailing_empty: bool,
    size: int,
    style: ReadStyle,
) -> ToolRead:
    lines = data.decode("utf-8", "replace").split("\n")
    counted = len(lines) - 1 if lines[-1] == "" else len(lines)
    window = _window(offset, limit, len(lines))
    if isinstance(window, str):
        return _past_the_end(window, size, len(lines), counted)
    selected = lines[window.first : window.stop] if window.stop > window.first else []
    if not style.reference_window_end and window.stop < len(lines):
        count_trailing_empty = True  # the window ends before the file: its last line is one
    head = _truncate_lines(selected, count_trailing_empty, style.max_lines, style.max_bytes)
    first_bytes = utf8_len(lines[window.first]) if window.first < len(lines) else 0
    read = _finish(head, window, len(lines), first_bytes, path, size, style, counted)
    if style.keep_window and head.truncated and read.error is None:
        read = read._replace(window="\n".join(selected))
    return read


def _past_the_end(message: str, size: int, total: int, counted: int) -> ToolRead:
    return ToolRead(
        error=message, size=size, file_lines=total, line_count=counted, error_code="offset"
    )


def _finish(
    head: Truncation,
    window: _Window,
    total: int,
    first_line_bytes: int,
    path: str,
    size: int,
    style: ReadStyle = REFERENCE,
    counted: int = 0,
) -> ToolRead:
    if not style.notices:
        return ToolRead(
            text="" if head.first_line_exceeds_limit else head.content,
            truncation=head,
            size=size,
            file_lines=total,
            first=window.first,
            stop=max(window.stop, window.first),
            line_count=counted,
            first_line_bytes=first_line_bytes,
        )
    shown_start = window.start + 1
    if head.first_line_exceeds_limit:
        text = (
            f"[Line {js_number(shown_start)} is {format_size(first_line_bytes)}, exceeds "
            f"{format_size(READ_MAX_BYTES)} limit. Use bash: sed -n '{js_number(shown_start)}p' "
            f"{path} | head -c {READ_MAX_BYTES}]"
        )
        return ToolRead(text=text, truncation=head, size=size, file_lines=total)
    if head.truncated:
        last = shown_start + head.output_lines - 1
        limit_note = (
            "" if head.truncated_by == "lines" else f" ({format_size(READ_MAX_BYTES)} limit)"
        )
        text = (
            f"{head.content}\n\n[Showing lines {js_number(shown_start)}-{js_number(last)} "
            f"of {total}{limit_note}. Use offset={js_number(last + 1)} to continue.]"
        )
        return ToolRead(text=text, truncation=head, size=size, file_lines=total)
    if window.user_limited is not None and window.start + window.user_limited < total:
        shown_end = window.start + window.user_limited
        text = (
            f"{head.content}\n\n[{js_number(total - shown_end)} more lines in file. "
            f"Use offset={js_number(shown_end + 1)} to continue.]"
        )
        return ToolRead(text=text, size=size, file_lines=total)
    return ToolRead(text=head.content, size=size, file_lines=total)


def truncate_head(
    content: str, max_lines: int = READ_MAX_LINES, max_bytes: int = READ_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the top within `max_lines` and `max_bytes` (UTF-8)."""
    return _truncate_lines(content.split("\n"), True, max_lines, max_bytes)


def _truncate_lines(
    lines: list[str],
    count_trailing_empty: bool,
    max_lines: int = READ_MAX_LINES,
    max_bytes: int = READ_MAX_BYTES,
) -> Truncation:
    sizes = [utf8_len(line) for line in lines]
    total_bytes = sum(sizes) + max(len(lines) - 1, 0)
    counted = len(lines)
    if not count_trailing_empty and counted > 1 and lines[-1] == "":
        counted -= 1
    return _truncate_sized(lines, sizes, counted, total_bytes, max_lines, max_bytes)


def _truncate_sized(
    lines: list[str],
    sizes: list[int],
    total_lines: int,
    total_bytes: int,
    max_lines: int,
    max_bytes: int,
) -> Truncation:
    if total_lines <= max_lines and total_bytes <= max_bytes:
        content = "\n".join(lines)
        return Truncation(
            content, False, None, total_lines, total_bytes, total_lines, total_bytes, False,
            max_lines, max_bytes,
        )  # fmt: skip
    if sizes and sizes[0] > max_bytes:
        return Truncation(
            "", True, "bytes", total_lines, total_bytes, 0, 0, True, max_lines, max_bytes
        )
    kept = 0
    used = 0
    by = "lines"
    for index in range(min(total_lines, max_lines)):
        cost = sizes[index] + (1 if index else 0)
        if used + cost > max_bytes:
            by = "bytes"
            break
        kept += 1
        used += cost
    if kept >= max_lines and used <= max_bytes:
        by = "lines"
    content = "\n".join(lines[:kept])
    return Truncation(
        content, True, by, total_lines, total_bytes, kept, utf8_len(content), False,
        max_lines, max_bytes,
    )  # fmt: skip


# --- big files: two chunked passes, never more than the caps in memory -------------------


def _read_streamed(
    fd: int,
    path: str,
    offset: Number | None,
    limit: Number | None,
    count_trailing_empty: bool,
    size: int,
    style: ReadStyle = REFERENCE,
) -> ToolRead:
    total = _count_newlines(fd, size) + 1
    line_count = total - 1 if not size or os.pread(fd, 1, size - 1) == b"\n" else total
    window = _window(offset, limit, total)
    if isinstance(window, str):
        return _past_the_end(window, size, total, line_count)
    wanted = max(window.stop - window.first, 0)
    max_lines, max_bytes = style.max_lines, style.max_bytes
    # The head the caps let through, grown in place as its lines come (`+=` on a local
    # string nothing else holds): the text held once, never also as a list of its lines.
    content = ""
    kept = 0  # lines in `content`
    used = 0  # its UTF-8 bytes
    before_last = 0  # its length before its last line was added
    stopped = False  # a line did not fit: the head ends before it
    over_bytes_at = -1  # the line whose bytes did not fit, if that stopped it
    total_bytes = 0
    first_line_bytes = 0
    last_is_empty = False
    measured = _measured_lines(fd, size, window.first, wanted, max_bytes)
    for number, (text, nbytes) in enumerate(measured):
        if number == 0:
            first_line_bytes = nbytes
        total_bytes += nbytes + (1 if number else 0)
        last_is_empty = nbytes == 0
        if stopped:
            continue
        cost = nbytes + (1 if kept else 0)
        # One line past `max_lines` is held: a last empty one may not count.
        if kept > max_lines or used + cost > max_bytes or text is None:
            stopped = True
            if kept <= max_lines:
                over_bytes_at = kept
            continue
        before_last = len(content)
        if kept:
            content += "\n"
        content += text
        kept += 1
        used += cost
    counted = wanted
    if not style.reference_window_end and window.stop < total:
        count_trailing_empty = True  # the window ends before the file: its last line is one
    if not count_trailing_empty and counted > 1 and last_is_empty:
        counted -= 1
    if counted <= max_lines and total_bytes <= max_bytes:
        head = Truncation(
            content, False, None, counted, total_bytes, counted, total_bytes, False,
            max_lines, max_bytes,
        )  # fmt: skip
    elif first_line_bytes > max_bytes and wanted:
        head = Truncation("", True, "bytes", counted, total_bytes, 0, 0, True, max_lines, max_bytes)
    else:
        if kept > min(counted, max_lines):  # the last line held is one not counted
            content = content[:before_last]
            kept -= 1
            used = utf8_len(content)
        by = "bytes" if 0 <= over_bytes_at < min(counted, max_lines) else "lines"
        if kept >= max_lines and used <= max_bytes:
            by = "lines"
        head = Truncation(
            content, True, by, counted, total_bytes, kept, used, False, max_lines, max_bytes
        )  # fmt: skip
    return _finish(head, window, total, first_line_bytes, path, size, style, line_count)


def _count_newlines(fd: int, size: int) -> int:
    return sum(chunk.count(b"\n") for chunk in chunks(fd, size, CHUNK * 16))


def _measured_lines(
    fd: int, size: int, first: int, count: int, max_bytes: int = READ_MAX_BYTES
) -> Iterator[tuple[str | None, int]]:
    """Yield (text or None when too long to keep, UTF-8 length after decoding) per line.

    Decoding each line on its own equals decoding the whole file: a newline byte never
    belongs to a multi-byte sequence, so a replacement never spans lines.
    """
    if count <= 0:
        return
    line_number = 0
    produced = 0
    pending: list[bytes] = []
    # The line so far, decoded, once it spans chunks: grown in place (`+=` on a local
    # string nothing else holds), never also as a list of its pieces.
    grown: str | None = None
    pending_len = 0
    decoding: codecs.IncrementalDecoder | None = None
    measuring: codecs.IncrementalDecoder | None = None
    measured = 0
    position = 0
    while produced < count:
        chunk = os.pread(fd, min(CHUNK * 16, size - position), position) if position < size else b""
        at_eof = not chunk
        position += len(chunk)
        pieces = chunk.split(b"\n") if chunk else [b""]
        for index, piece in enumerate(pieces):
            ends_line = index < len(pieces) - 1 or at_eof
            if line_number >= first:
                if measuring is None and pending_len + len(piece) <= max_bytes:
                    pending_len += len(piece)
                    if not pending and grown is None:
                        pending.append(piece)
                    else:  # a line over chunks: decoded as it comes, held once as text
                        if decoding is None:
                            decoding = codecs.getincrementaldecoder("utf-8")("replace")
                            grown = decoding.decode(b"".join(pending))
                            pending = []
                        assert grown is not None
                        grown += decoding.decode(piece)
                else:
                    if measuring is None:
                        measuring = decoding or codecs.getincrementaldecoder("utf-8")("replace")
                        measured = _decoded_len(measuring, b"".join(pending), False)
                        measured += utf8_len(grown) if grown is not None else 0
                        pending = []
                        grown = None
                    measured += _decoded_len(measuring, piece, False)
            if not ends_line:
                continue
            if line_number >= first:
                if measuring is None:
                    if decoding is None:
                        text = b"".join(pending).decode("utf-8", "replace")
                    else:
                        assert grown is not None
                        grown += decoding.decode(b"", True)
                        text, grown = grown, None
                    yield text, utf8_len(text)
                else:
                    measured += _decoded_len(measuring, b"", True)
                    yield None, measured
                produced += 1
                if produced >= count:
                    return
            line_number += 1
            pending = []
            grown = None
            pending_len = 0
            decoding = None
            measuring = None
            measured = 0
        if at_eof:
            return


def _decoded_len(decoder: codecs.IncrementalDecoder, raw: bytes, final: bool) -> int:
    if raw.isascii() and not decoder.getstate()[0]:
        return len(raw)  # nothing pending and nothing to replace: as many bytes out as in
    return utf8_len(decoder.decode(raw, final))
