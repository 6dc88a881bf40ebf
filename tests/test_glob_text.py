"""Text reading for glob: BOM-aware decoding, lossy marks, line and line-length limits."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st

import readmany.read.text as text_module
from readmany.read.text import (
    LINE_CUT_SUFFIX,
    TextRead,
    cut_line,
    decode_whole,
    detect_bom,
    read_text,
    text_of_bytes,
)


def read(data: bytes, max_lines: int = 2000, size: int | None = None) -> TextRead:
    return read_limited(data, max_lines=max_lines, size=size)


def read_limited(
    data: bytes, *, max_lines: int, max_units: int = 2000, size: int | None = None
) -> TextRead:
    with tempfile.TemporaryFile() as handle:
        handle.write(data)
        handle.flush()
        length = len(data) if size is None else size
        return read_text(handle.fileno(), length, max_lines=max_lines, max_units=max_units)


def model_cut(line: str, max_units: int) -> str:
    """Keep whole characters while they fit in `max_units` UTF-16 units."""
    if len(line.encode("utf-16-le")) <= 2 * max_units:
        return line
    kept, units = "", 0
    for char in line:
        width = 2 if ord(char) > 0xFFFF else 1
        if units + width > max_units:
            break
        kept, units = kept + char, units + width
    return kept + LINE_CUT_SUFFIX


def test_plain_utf8() -> None:
    assert read(b"# Fixture\n\nHello from README.\n") == TextRead(
        "# Fixture\n\nHello from README.\n", False, False
    )


@pytest.mark.parametrize(
    ("data", "body"),
    [
        (b"", ""),
        (b"\n", "\n"),
        (b"\n\n\n", "\n\n\n"),
        (b"no trailing newline", "no trailing newline"),
        (b"one\r\ntwo\r\nthree\r\n", "one\ntwo\nthree\n"),
        (b"one\rtwo\r", "one\rtwo\r"),
        (b"a\r\r\nb", "a\r\nb"),
        (b"\xef\xbb\xbfBOM line\n", "BOM line\n"),
        (b"\xff\xfe" + "utf16 text\r\n".encode("utf-16-le"), "utf16 text\n"),
        (b"\xfe\xff" + "utf16 be\n".encode("utf-16-be"), "utf16 be\n"),
        (b"\xff\xfe\x00\x00" + "utf32 le\n".encode("utf-32-le"), "utf32 le\n"),
        (b"\x00\x00\xfe\xff" + "utf32 be\n".encode("utf-32-be"), "utf32 be\n"),
        ("naïve 日本 😀\n".encode(), "naïve 日本 😀\n"),
        (b"text before NUL\x00after\n", "text before NUL\x00after\n"),
    ],
)
def test_decoding_and_line_endings(data: bytes, body: str) -> None:
    result = read(data)
    assert result.body == body
    assert result.truncated is False
    assert result.lossy is False


def test_invalid_utf8_is_replaced_and_marked_lossy() -> None:
    assert read("café crème\n".encode("latin-1")) == TextRead("caf\ufffd cr\ufffdme\n", False, True)


def test_truncated_utf8_sequence_at_the_end_is_lossy() -> None:
    assert read(b"ok \xe6\x97") == TextRead("ok \ufffd", False, True)


def test_odd_byte_after_utf16_is_dropped() -> None:
    assert read(b"\xff\xfe" + "ab".encode("utf-16-le") + b"c") == TextRead("ab", False, False)


def test_lossy_counts_only_what_is_shown() -> None:
    assert read(b"ok\n\xff\n", max_lines=1) == TextRead("ok", True, False)
    assert read(b"x" * 2500 + b"\xff\n") == TextRead(
        "x" * 2000 + LINE_CUT_SUFFIX + "\n", True, False
    )


def test_invalid_utf32_code_point_is_replaced() -> None:
    data = b"\xff\xfe\x00\x00" + "a".encode("utf-32-le") + b"\x00\x00\x11\x00"
    assert read(data) == TextRead("a\ufffd", False, True)


def test_a_character_split_across_chunks() -> None:
    lines = "a" * 15 + "\n"
    data = (lines * 4095 + "b" * 15 + "é").encode() + b"\xff tail\n"
    assert len(data[:65536].decode("utf-8", "ignore").encode()) == 65535
    result = read(data, max_lines=10_000)
    assert result == TextRead(lines * 4095 + "b" * 15 + "é\ufffd tail\n", False, True)


def test_crlf_split_across_chunks() -> None:
    data = b"x" + (b"a" * 14 + b"\r\n") * 4096 + b"b\n"
    assert data[65535:65537] == b"\r\n"
    assert read(data, max_lines=10_000).body == "x" + ("a" * 14 + "\n") * 4096 + "b\n"


# --- line limits (spec sections 7 and 13, items 5 and 6) ---


def numbered(count: int, newline: bool = True) -> bytes:
    text = "\n".join(f"L{i}" for i in range(1, count + 1))
    return (text + ("\n" if newline else "")).encode()


def test_exactly_2000_terminated_lines_are_whole() -> None:
    assert read(numbered(2000)) == TextRead(numbered(2000).decode(), False, False)


def test_2000_lines_without_final_newline_are_whole() -> None:
    assert read(numbered(2000, newline=False)).truncated is False


def test_1999_lines_are_whole() -> None:
    assert read(numbered(1999)).body == numbered(1999).decode()


def test_2001_lines_keep_2000_without_final_newline() -> None:
    result = read(numbered(2001))
    assert result == TextRead(numbered(2000, newline=False).decode(), True, False)


def test_an_empty_line_2001_counts() -> None:
    assert read(numbered(2000) + b"\n").truncated is True
    assert read(numbered(2000) + b"\r").truncated is True
    assert read(numbered(2000) + b"\r\n").truncated is True


def test_2500_lines() -> None:
    data = "".join(f"line {i}\n" for i in range(1, 2501)).encode()
    result = read(data)
    assert result.truncated is True
    assert result.body == "\n".join(f"line {i}" for i in range(1, 2001))


def test_reading_stops_after_the_line_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    got: list[int] = []
    real_pread = os.pread

    def pread(fd: int, count: int, offset: int) -> bytes:
        data = real_pread(fd, count, offset)
        got.append(len(data))
        return data

    monkeypatch.setattr(os, "pread", pread)
    result = read_limited(b"x\n" * 100 + b"y" * 5_000_000, max_lines=100)
    assert result == TextRead("\n".join(["x"] * 100), True, False)
    assert sum(got) == 65536  # one chunk, not the whole file


def test_a_long_line_is_cut_at_2000_units() -> None:
    result = read(b"x" * 2500 + b"\nshort\n")
    assert result == TextRead("x" * 2000 + "... [truncated]\nshort\n", True, False)


def test_a_line_of_2000_is_untouched() -> None:
    assert read(b"y" * 2000 + b"\n") == TextRead("y" * 2000 + "\n", False, False)


def test_a_cut_never_splits_a_surrogate_pair() -> None:
    result = read(("a" + "\U0001f600" * 1500 + "\n").encode())
    assert result.body == "a" + "\U0001f600" * 999 + LINE_CUT_SUFFIX + "\n"
    assert result.truncated is True


def test_astral_line_of_exactly_2000_units_is_untouched() -> None:
    assert cut_line("\U0001f600" * 1000) is None
    assert cut_line("\U0001f600" * 1000 + "a") == "\U0001f600" * 1000 + LINE_CUT_SUFFIX


def test_a_huge_single_line_is_cut() -> None:
    assert read(b"z" * 3_000_000) == TextRead("z" * 2000 + LINE_CUT_SUFFIX, True, False)


def test_the_file_is_read_as_it_was_when_opened() -> None:
    # Bytes past the size it had when opened (a log being written) are not read.
    assert read(b"ab\ncd\nef\n", size=4) == TextRead("ab\nc", False, False)


@pytest.mark.slow
@settings(max_examples=scaled(300), deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "é", "\U0001f600", "\n", "\r", "\r\n", "\x00", "b" * 7]),
        max_size=40,
    ).map("".join)
)
def test_agrees_with_a_whole_text_model(text: str) -> None:
    """Two lines of at most 6 units kept, against splitting the whole text at once."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()  # a final newline ends the last line; it starts no new one
    cut = [model_cut(line, 6) for line in lines]
    if len(lines) > 2:
        expected = TextRead("\n".join(cut[:2]), True, False)
    else:
        ending = "\n" if text.replace("\r\n", "\n").endswith("\n") else ""
        expected = TextRead("\n".join(cut) + ending, cut != lines, False)
    assert read_limited(text.encode(), max_lines=2, max_units=6) == expected


def test_detect_bom() -> None:
    assert detect_bom(b"\xff\xfe\x00\x00x") == ("utf-32-le", 4)
    assert detect_bom(b"\xff\xfex\x00") == ("utf-16-le", 2)
    assert detect_bom(b"\xef\xbb\xbf") == ("utf-8", 3)
    assert detect_bom(b"plain") == ("utf-8", 0)


def test_decode_whole_keeps_the_text_as_it_is() -> None:
    svg = b"\xef\xbb\xbf<svg>\r\n<rect/>\r\n</svg>\r\n"
    assert decode_whole(svg) == TextRead("<svg>\r\n<rect/>\r\n</svg>\r\n", False, False)
    assert decode_whole(b"\xe9") == TextRead("\ufffd", False, True)


@pytest.mark.slow
@settings(max_examples=scaled(300), deadline=None)
@given(
    data=st.lists(
        st.sampled_from(
            [b"a", "é".encode(), "\U0001f600".encode(), b"\n", b"\r", b"\xff", b"b" * 7]
        ),
        max_size=40,
    ).map(b"".join),
    cuts=st.lists(st.integers(min_value=1, max_value=9), max_size=30),
)
def test_chunk_boundaries_do_not_change_the_result(data: bytes, cuts: list[int]) -> None:
    def pieces(fd: int, size: int) -> Iterator[bytes]:
        position = 0
        for step in [*cuts, size]:
            if position >= size:
                return
            yield data[position : position + step]
            position += step

    whole = read_limited(data, max_lines=3, max_units=6)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(text_module, "chunks", pieces)
        assert read_limited(data, max_lines=3, max_units=6) == whole


@pytest.mark.slow
@settings(max_examples=scaled(400), deadline=None)
@given(
    parts=st.lists(
        st.sampled_from(
            [b"a", "é".encode(), "\U0001f600".encode(), b"\n", b"\r", b"\r\n", b"\xff",
             b"\xef\xbb\xbf", b"\xff\xfe", b"x" * 999, b"y" * 1001, "😀".encode() * 700,
             b"\n" * 1999]
        ),
        max_size=12,
    )
)  # fmt: skip
def test_whole_bytes_read_equals_the_streamed_read(parts: list[bytes]) -> None:
    data = b"".join(parts)
    assert text_of_bytes(data) == read(data)


@pytest.mark.parametrize("lines", [1999, 2000, 2001])
@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b""])
def test_whole_bytes_read_at_the_line_limit(lines: int, ending: bytes) -> None:
    data = b"\n".join(b"L%d" % n for n in range(lines)) + ending
    assert text_of_bytes(data) == read(data)


@pytest.mark.slow
@settings(max_examples=scaled(300), deadline=None)
@given(
    runs=st.lists(st.integers(min_value=0, max_value=2600), min_size=1, max_size=8),
    lead=st.integers(min_value=0, max_value=600),
)
def test_long_line_check_finds_every_run_over_the_safe_length(runs: list[int], lead: int) -> None:
    # Runs of every length around the window size, at every offset from the start.
    text = "a" * lead + "\n".join("x" * run for run in runs)
    longest = max(map(len, text.split("\n")))
    assert text_module._may_have_long_line(text) == (longest > text_module._SAFE_CHARACTERS)


@pytest.mark.parametrize("run", [1000, 1001])
def test_long_line_check_at_every_offset(run: int) -> None:
    # The shortest long line, starting at each offset of the window the check steps by.
    for offset in range(1, 1100):
        text = "a\n" * (offset // 2) + "\n" * (offset % 2) + "x" * run + "\nend"
        assert text_module._may_have_long_line(text) == (run > 1000), offset
