"""Hashline framing: `@file path#TAG`, then `N#abc|text` per line, within the read limits.

A pure function of a file's lines: it selects the offset/limit window, shows rows too long
for the byte limit compactly (the anchor still hashes the whole line), cuts the text at
2000 lines (header included) or 50 KiB, and appends the continuation notice
(spec/hashline.md §1, §5, §6): the reference's (`Use offset=N to continue.`), or, for the
default face, the command that continues (`readmany hashline PATH --offset N`). The
plain read (an image, a file this process may not write) is the reference's read's
text; the default face words its notice here too (`plain_text`).
"""

from __future__ import annotations

from collections.abc import Sequence

from readmany.frame import notices
from readmany.frame.paths import header_path
from readmany.limits import HASHLINE_MAX_BYTES, HASHLINE_MAX_LINES, READ_MAX_BYTES
from readmany.read.hashline import (
    COMPACT_UNITS,
    HashlineError,
    LongLine,
    Row,
    line_anchor,
)
from readmany.record import NamedTuple
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.read.line_range import ToolRead

TRUNCATION_MARK = "... [truncated]"
INVALID_HEADER_PATH = "Invalid file header path. Expected one non-empty path without line breaks."
_BYTE_LIMIT = f"{HASHLINE_MAX_BYTES / 1024:.1f}KB"
_ROW_PUNCTUATION = len("#abc|")


class HashlineFrame(NamedTuple):
    """The framed text and the facts a caller reports about it."""

    text: str  # no trailing newline
    first_line: int  # 1-based number of the first row: the offset that was read
    shown_lines: int  # rows in `text`, the header not counted
    total_lines: int
    next_offset: int | None  # the `offset=` the notice names, if it names one
    compacted: tuple[int, ...]  # line numbers shown compactly, noted or not
    truncated_by: str | None  # "lines", "bytes" or None


def header_row(path: str, tag: str, *, refuse_line_breaks: bool = True) -> str:
    """`@file <path>#<tag>`, the path written as every header writes it
    (`paths.header_path`: a JSON string when it holds a control or line-break character,
    a byte that is not UTF-8, or starts with `"`), so no name can forge a row. A path
    must be non-empty; with `refuse_line_breaks` (the reference's rule) free of CR and LF."""
    if not path or (refuse_line_breaks and ("\n" in path or "\r" in path)):
        raise HashlineError(INVALID_HEADER_PATH)
    return f"@file {header_path(path)}#{tag}"


def window_bounds(total_lines: int, offset: int | None, limit: int | None) -> tuple[int, int]:
    """The 0-based [start, end) of the lines `offset`/`limit` select.

    Raises HashlineError when the offset is past the last line.
    """
    start = (offset or 1) - 1
    if start >= total_lines:
        raise HashlineError(f"Offset {offset} is beyond end of file ({total_lines} lines total).")
    end = total_lines if limit is None else min(total_lines, start + limit)
    return start, end


def frame_hashline(
    path: str,
    tag: str,
    lines: Sequence[str],
    offset: int | None = None,
    limit: int | None = None,
    *,
    refuse_line_breaks: bool = True,
) -> HashlineFrame:
    """Frame a file given as all of its lines (`readmany.read.hashline.decode_lines`).

    Raises HashlineError for an offset past the last line or an unusable header path.
    """
    start = (offset or 1) - 1
    # More rows than HASHLINE_MAX_LINES can never be shown; the window needs only their count.
    return frame_rows(
        path,
        tag,
        lines[start : start + HASHLINE_MAX_LINES],
        len(lines),
        offset=offset,
        limit=limit,
        refuse_line_breaks=refuse_line_breaks,
    )


def frame_rows(
    path: str,
    tag: str,
    rows: Sequence[Row],
    total_lines: int,
    *,
    offset: int | None = None,
    limit: int | None = None,
    command_path: str | None = None,
    refuse_line_breaks: bool = True,
) -> HashlineFrame:
    """Frame the lines from `offset` on, of a file of `total_lines` lines.

    `rows` may stop early where the rows it holds already exceed what one read can show
    (`HASHLINE_MAX_LINES` rows or `HASHLINE_MAX_BYTES` bytes): later rows could never be shown. With
    `command_path`, notices name the command that continues, for that path.
    `refuse_line_breaks=False` writes a name with a line break quoted, as other headers do.
    """
    start, end = window_bounds(total_lines, offset, limit)
    header = header_row(path, tag, refuse_line_breaks=refuse_line_breaks)
    header_bytes = utf8_len(header)
    room = HASHLINE_MAX_BYTES - (header_bytes + 1)
    wanted = min(end - start, HASHLINE_MAX_LINES)

    # Step A: size every row that could be shown, compacting the ones over the byte limit.
    texts: list[tuple[int, Row, bool]] = []  # line number, row, compact
    sizes = [header_bytes]
    compacted: list[int] = []
    for number, row in enumerate(rows[:wanted], start + 1):
        punctuation = len(str(number)) + _ROW_PUNCTUATION
        full = row.utf8_len if isinstance(row, LongLine) else utf8_len(row)
        compact = punctuation + full > room
        if compact:
            compacted.append(number)
            full = utf8_len(_compact_text(row))
        texts.append((number, row, compact))
        sizes.append(punctuation + full)

    # Step B: head truncation of header + rows, by whole lines.
    within_bytes = sum(sizes) + len(sizes) - 1 <= HASHLINE_MAX_BYTES
    if len(texts) < wanted and within_bytes:
        raise ValueError(f"rows from line {start + 1} end before what a read can show")
    fits = 1 + (end - start) <= HASHLINE_MAX_LINES and within_bytes
    kept = len(sizes)
    truncated_by: str | None = None
    if not fits:
        kept, truncated_by = _head_lines(sizes)

    out = [header] if kept else []
    for number, row, compact in texts[: max(kept - 1, 0)]:
        out.append(_row_text(number, row, compact))
    text = "\n".join(out)

    # Step C: notices.
    if command_path is not None:
        return _framed_for_people(
            command_path, text, start, end, kept, total_lines, limit, compacted, truncated_by
        )
    if truncated_by is not None:
        shown = max(kept - 1, 0)
        next_offset: int | None = start + shown + 1
        limit_note = "" if truncated_by == "lines" else f", {_BYTE_LIMIT} limit"
        notice = (
            f"Showing {shown} anchored lines{limit_note}. Use offset={next_offset} to continue."
        )
        return HashlineFrame(
            f"{text}\n\n[{notice}]",
            start + 1,
            shown,
            total_lines,
            next_offset,
            tuple(compacted),
            truncated_by,
        )
    parts = []
    if compacted:
        numbers = ", ".join(str(n) for n in compacted)
        parts.append(f"Lines {numbers} shown compactly. Their anchors hash the full original lines")
    next_offset = None
    if end < total_lines:
        next_offset = end + 1
        parts.append(
            f"{total_lines - end} more lines in file. Use offset={next_offset} to continue"
        )
    if parts:
        text += "\n\n[" + ". ".join(parts) + ".]"
    return HashlineFrame(
        text, start + 1, end - start, total_lines, next_offset, tuple(compacted), None
    )


def _framed_for_people(
    path: str,
    text: str,
    start: int,
    end: int,
    kept: int,
    total_lines: int,
    limit: int | None,
    compacted: list[int],
    truncated_by: str | None,
) -> HashlineFrame:
    """The frame with the default face's notice: the lines shown, and the command that
    shows the next ones (the rest of what `limit` asked for, or the next page of it)."""
    shown = max(kept - 1, 0) if truncated_by is not None else end - start
    last = start + shown
    listed = [n for n in compacted if n <= last]
    before = ""
    if listed:
        numbers = ", ".join(str(n) for n in listed)
        before = f"Lines {numbers} shown compactly. Their anchors hash the full original lines. "
    next_offset: int | None = None
    if last < total_lines:
        next_offset = last + 1
        rest = limit if truncated_by is None else (end - last if limit is not None else None)
        next_command = notices.hashline_command(path, next_offset, rest)
        text += "\n\n" + notices.showing(start + 1, last, total_lines, next_command, before)
    elif before:
        text += f"\n\n[{before.rstrip()}]"
    return HashlineFrame(
        text, start + 1, shown, total_lines, next_offset, tuple(compacted), truncated_by
    )


def _head_lines(sizes: list[int]) -> tuple[int, str]:
    """How many whole lines fit in the hashline limits, and which limit stopped them."""
    used = 0
    for index, size in enumerate(sizes[:HASHLINE_MAX_LINES]):
        cost = size + (1 if index else 0)
        if used + cost > HASHLINE_MAX_BYTES:
            return index, "bytes"
        used += cost
    return min(len(sizes), HASHLINE_MAX_LINES), "lines"


def _row_text(number: int, row: Row, compact: bool) -> str:
    if isinstance(row, LongLine):
        return f"{number}#{row.anchor}|{_compact_text(row)}"
    text = _compact_text(row) if compact else row
    return f"{number}#{line_anchor(row)}|{text}"


def _compact_text(row: Row) -> str:
    """The first COMPACT_UNITS UTF-16 units and the mark.

    Where the cut falls inside a surrogate pair, the reference keeps a lone high
    surrogate, which its UTF-8 encoder writes as U+FFFD; so do we, directly.
    """
    head = row.head if isinstance(row, LongLine) else row[:COMPACT_UNITS]
    units = 0
    for index, char in enumerate(head):
        width = 2 if ord(char) > 0xFFFF else 1
        if units + width > COMPACT_UNITS:
            head = head[:index] + ("\ufffd" if units < COMPACT_UNITS else "")
            break
        units += width
    return head + TRUNCATION_MARK


def plain_text(path: str, limit: int | None, result: ToolRead) -> str:
    """The text of hashline's plain read (an image, a file it may not write) with the
    default face's notice: the lines shown and the command that continues."""
    from readmany.read.line_range import format_size

    truncation = result.truncation
    if truncation is None:  # an image
        return notices.image_not_shown(path, result.mime_type or "", format_size(result.size))
    first = result.first + 1
    total = result.line_count
    if truncation.first_line_exceeds_limit:
        name = path if not path.startswith("-") else "./" + path
        show = f"sed -n {first}p {notices.shell_word(name)}"
        notice = (
            f"[Line {first} is {format_size(result.first_line_bytes)}, more than one read "
            f"shows ({format_size(READ_MAX_BYTES)}). Show it with: {show}"
        )
        if first < total:
            next_command = notices.hashline_command(path, first + 1, limit)
            notice += f"; continue with: {next_command}"
        return notice + "]"
    last = min(first + truncation.output_lines - 1, total)
    window_last = min(result.stop, total)
    if last < window_last:
        rest = window_last - last if limit is not None else None
    elif limit is not None and last < total:
        rest = limit
    else:
        return result.text
    next_command = notices.hashline_command(path, last + 1, rest)
    return result.text + "\n\n" + notices.showing(first, last, total, next_command)


def plain_window(
    result: ToolRead, start: int, limit: int | None, total: int
) -> tuple[int, int | None]:
    """Lines shown and the offset the plain read's notice names (None if it names none)."""
    if result.image_count:
        return 0, None
    truncation = result.truncation
    if truncation is not None and truncation.first_line_exceeds_limit:
        return 0, None
    if truncation is not None and truncation.truncated:
        return truncation.output_lines, start + truncation.output_lines + 1
    end = total if limit is None else min(total, start + limit)
    return end - start, (end + 1 if limit is not None and end < total else None)
