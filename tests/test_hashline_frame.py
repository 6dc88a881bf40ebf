"""readmany.frame.hashline: rows, windows, compaction, truncation and notices."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readmany.frame.hashline import (
    INVALID_HEADER_PATH,
    HashlineFrame,
    frame_hashline,
    frame_rows,
    header_row,
    window_bounds,
)
from readmany.read.hashline import HashlineError, LongLine, decode_lines, line_anchor, scan_file

TAG = "47DEQpj8"
HEADER = f"@file f.txt#{TAG}"
COMPACT_NOTE = "shown compactly. Their anchors hash the full original lines"


def frame(lines: list[str], offset: int | None = None, limit: int | None = None) -> HashlineFrame:
    return frame_hashline("f.txt", TAG, lines, offset, limit)


def rows_of(lines: list[str], first: int = 1) -> str:
    return "\n".join(f"{n}#{line_anchor(t)}|{t}" for n, t in enumerate(lines, first))


# --- rows and windows --------------------------------------------------------------------


def test_rows_keep_text_verbatim() -> None:
    lines = ["\tx  ", "a\x00b", "a\x0bb\x0cc", "\u2028", ""]
    result = frame(lines)
    assert result.text == HEADER + "\n" + rows_of(lines)
    assert result.text.split("\n")[1] == "1#" + line_anchor("x") + "|\tx  "


def test_duplicate_anchors_are_shown_as_is() -> None:
    assert frame(["a b", "ab"]).text == f"{HEADER}\n1#tre|a b\n2#tre|ab"


def test_facts_of_a_whole_file() -> None:
    result = frame(["a", "b", ""])
    assert (result.first_line, result.shown_lines, result.total_lines) == (1, 3, 3)
    assert (result.next_offset, result.compacted, result.truncated_by) == (None, (), None)


def test_header_path_may_hold_hash_and_spaces() -> None:
    assert frame_hashline("src/a#b c.ts", TAG, ["x"]).text.split("\n")[0] == (
        f"@file src/a#b c.ts#{TAG}"
    )


@pytest.mark.parametrize("path", ["", "a\nb", "a\rb", "a\r\n"])
def test_header_refuses_empty_or_multiline_paths(path: str) -> None:
    with pytest.raises(HashlineError) as error:
        header_row(path, TAG)
    assert str(error.value) == INVALID_HEADER_PATH
    assert INVALID_HEADER_PATH == (
        "Invalid file header path. Expected one non-empty path without line breaks."
    )


@pytest.mark.parametrize(
    ("total", "offset", "limit", "bounds"),
    [
        (6, None, None, (0, 6)),
        (6, 2, 2, (1, 3)),
        (6, 6, None, (5, 6)),
        (6, 4, 100, (3, 6)),
        (6, None, 1, (0, 1)),
        (1, 1, None, (0, 1)),
    ],
)
def test_window_bounds(
    total: int, offset: int | None, limit: int | None, bounds: tuple[int, int]
) -> None:
    assert window_bounds(total, offset, limit) == bounds


@pytest.mark.parametrize(("total", "offset"), [(6, 7), (1, 2), (3, 100)])
def test_offset_beyond_end_is_refused_with_a_period(total: int, offset: int) -> None:
    with pytest.raises(HashlineError) as error:
        window_bounds(total, offset, None)
    assert str(error.value) == f"Offset {offset} is beyond end of file ({total} lines total)."


def test_window_rows_carry_absolute_numbers() -> None:
    lines = ["l1", "l2", "l3", "l4", "l5", ""]
    result = frame(lines, 2, 2)
    assert result.text == (
        f"{HEADER}\n{rows_of(['l2', 'l3'], 2)}\n\n[3 more lines in file. Use offset=4 to continue.]"
    )
    assert (result.first_line, result.shown_lines, result.next_offset) == (2, 2, 4)


def test_window_ending_at_eof_has_no_notice() -> None:
    result = frame(["l1", "l2", "l3"], 2, 2)
    assert result.text == f"{HEADER}\n{rows_of(['l2', 'l3'], 2)}"
    assert result.next_offset is None


def test_one_more_line_is_still_plural() -> None:
    assert frame(["a", "b", "c"], None, 2).text.endswith(
        "\n\n[1 more lines in file. Use offset=3 to continue.]"
    )


# --- compaction --------------------------------------------------------------------------


def room_for_text(number: int = 1) -> int:
    """The longest line text that line `number` can show whole under HEADER."""
    return 51200 - (len(HEADER) + 1) - len(f"{number}#abc|")


def test_row_exactly_at_the_limit_is_whole_one_more_byte_is_compact() -> None:
    fits = "x" * room_for_text()
    assert frame([fits]).text == f"{HEADER}\n1#{line_anchor(fits)}|{fits}"
    over = fits + "x"
    result = frame([over])
    assert result.text == (
        f"{HEADER}\n1#{line_anchor(over)}|{'x' * 500}... [truncated]\n\n[Lines 1 {COMPACT_NOTE}.]"
    )
    assert result.compacted == (1,)


def test_compaction_threshold_counts_utf8_bytes() -> None:
    # 2-byte characters: half as many fit.
    fits = "é" * (room_for_text() // 2)
    assert frame([fits]).compacted == ()
    assert frame([fits + "é"]).compacted == (1,)


def test_compact_anchor_hashes_the_full_line() -> None:
    line = "x" * 60_000 + "tail"
    row = frame([line]).text.split("\n")[1]
    assert row.startswith(f"1#{line_anchor(line)}|")
    assert line_anchor(line) != line_anchor("x" * 500)


def test_compaction_cuts_500_utf16_units_and_never_a_code_point() -> None:
    emoji = "\U0001f600"
    odd = frame(["a" + emoji * 13000]).text.split("\n")[1]
    assert odd == f"1#{line_anchor('a' + emoji * 13000)}|a{emoji * 249}\ufffd... [truncated]"
    even = frame([emoji * 13000]).text.split("\n")[1]
    assert even == f"1#{line_anchor(emoji * 13000)}|{emoji * 250}... [truncated]"


def test_compaction_counts_bmp_characters_as_one_unit() -> None:
    line = "日" * 20000
    assert frame([line]).text.split("\n")[1] == f"1#{line_anchor(line)}|{'日' * 500}... [truncated]"


def test_several_compacted_lines_are_listed() -> None:
    big = "z" * 52000
    result = frame([big, "short", big, "x"])
    assert result.text.endswith(f"\n\n[Lines 1, 3 {COMPACT_NOTE}.]")
    assert result.compacted == (1, 3)


def test_compaction_and_more_lines_share_one_notice() -> None:
    result = frame(["y" * 53248, "short", "last"], None, 2)
    assert result.text == (
        f"{HEADER}\n1#{line_anchor('y' * 53248)}|{'y' * 500}... [truncated]\n"
        f"2#{line_anchor('short')}|short\n\n"
        f"[Lines 1 {COMPACT_NOTE}. 1 more lines in file. Use offset=3 to continue.]"
    )
    assert result.next_offset == 3


def test_long_line_rows_frame_like_the_lines_they_stand_for() -> None:
    line = "ab\t" * 20_000
    long = LongLine(line[:500], line_anchor(line), len(line))
    assert frame_rows("f.txt", TAG, ["a", long, "b"], 3) == frame(["a", line, "b"])


# --- truncation --------------------------------------------------------------------------


def test_1999_rows_fill_a_page_without_truncation() -> None:
    lines = ["x"] * 1999
    result = frame(lines)
    assert result.text == HEADER + "\n" + rows_of(lines)
    assert result.truncated_by is None


def test_2000_rows_are_cut_to_1999_by_lines() -> None:
    lines = ["x"] * 2000
    result = frame(lines)
    assert result.text == (
        HEADER
        + "\n"
        + rows_of(lines[:1999])
        + "\n\n[Showing 1999 anchored lines. Use offset=2000 to continue.]"
    )
    assert (result.shown_lines, result.next_offset, result.truncated_by) == (1999, 2000, "lines")


def test_truncation_by_lines_from_an_offset() -> None:
    lines = [str(n) for n in range(1, 5001)]
    result = frame(lines, 1001, 3000)
    assert result.text.endswith("\n\n[Showing 1999 anchored lines. Use offset=3000 to continue.]")
    assert result.text.split("\n")[1] == f"1001#{line_anchor('1001')}|1001"


def test_limit_of_exactly_1999_is_not_truncated() -> None:
    lines = ["x"] * 3000
    result = frame(lines, None, 1999)
    assert result.text.endswith("\n\n[1001 more lines in file. Use offset=2000 to continue.]")
    assert result.truncated_by is None


def _lines_filling(total_bytes: int) -> list[str]:
    """Lines whose framed text (header, rows, LFs) is exactly `total_bytes` bytes."""
    lines = []
    used = len(HEADER)
    number = 1
    while True:
        punctuation = len(f"{number}#abc|") + 1
        left = total_bytes - used - punctuation
        if left <= 1000:
            lines.append("q" * left)
            return lines
        lines.append("q" * 1000)
        used += punctuation + 1000
        number += 1


def test_exactly_51200_bytes_are_not_truncated() -> None:
    lines = _lines_filling(51200)
    result = frame(lines)
    assert len(result.text.encode()) == 51200
    assert result.truncated_by is None


def test_one_byte_more_is_truncated_by_bytes() -> None:
    lines = _lines_filling(51201)
    result = frame(lines)
    shown = len(lines) - 1
    assert result.text == (
        HEADER
        + "\n"
        + rows_of(lines[:shown])
        + f"\n\n[Showing {shown} anchored lines, 50.0KB limit. Use offset={shown + 1} to continue.]"
    )
    assert (result.shown_lines, result.next_offset, result.truncated_by) == (
        shown,
        shown + 1,
        "bytes",
    )


def test_byte_truncation_keeps_whole_rows() -> None:
    lines = ["a" * 20000, "b" * 20000, "c" * 20000, ""]
    result = frame(lines)
    assert result.text == (
        HEADER
        + "\n"
        + rows_of(lines[:2])
        + "\n\n[Showing 2 anchored lines, 50.0KB limit. Use offset=3 to continue.]"
    )


def test_truncation_drops_the_compaction_notice() -> None:
    big = "z" * 60000
    by_lines = frame([big] + ["x"] * 2100)
    assert by_lines.compacted == (1,)
    assert by_lines.text.endswith("\n\n[Showing 1999 anchored lines. Use offset=2000 to continue.]")
    assert COMPACT_NOTE not in by_lines.text
    by_bytes = frame([big] + ["w" * 30000] * 3)
    assert by_bytes.text.endswith(
        "\n\n[Showing 2 anchored lines, 50.0KB limit. Use offset=3 to continue.]"
    )
    assert COMPACT_NOTE not in by_bytes.text


def test_truncation_wins_over_more_lines() -> None:
    result = frame(["x"] * 3000, None, 2500)
    assert result.text.endswith("\n\n[Showing 1999 anchored lines. Use offset=2000 to continue.]")


# --- rows that stop early ----------------------------------------------------------------


def test_rows_may_stop_where_nothing_more_could_be_shown() -> None:
    lines = ["v" * 1000] * 200
    assert frame_rows("f.txt", TAG, lines[:60], 200) == frame(lines)


def test_rows_that_stop_too_early_are_refused() -> None:
    with pytest.raises(ValueError, match="end before"):
        frame_rows("f.txt", TAG, ["a", "b"], 5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 70_000), min_size=1, max_size=120), st.data())
def test_streamed_rows_frame_like_the_whole_file(lengths: list[int], draw: st.DataObject) -> None:
    """The scan's keep rule never drops a row a read could show."""
    offset = draw.draw(st.integers(1, len(lengths)), label="offset")
    limit = draw.draw(st.one_of(st.none(), st.integers(1, 130)), label="limit")
    data = "\n".join(chr(97 + n % 26) * size for n, size in enumerate(lengths)).encode()
    lines = decode_lines(data)
    scan = scan_file([data[i : i + 65536] for i in range(0, len(data), 65536)], offset - 1, limit)
    streamed = frame_rows("f.txt", TAG, scan.rows, scan.total_lines, offset=offset, limit=limit)
    assert streamed == frame(lines, offset, limit)
