"""readmany.read.hashline: tags, anchors, decoding, splitting and the streaming scan."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from readmany.limits import HASHLINE_MAX_BYTES, HASHLINE_MAX_LINES
from readmany.read.hashline import (
    ANCHOR_WHITESPACE,
    COMPACT_UNITS,
    LongLine,
    anchor_input,
    anchor_of_hash,
    decode_lines,
    decode_text,
    file_tag,
    fnv1a_64,
    is_valid_tag,
    line_anchor,
    normalize_line_breaks,
    scan_file,
    split_lines,
    tag_of_digest,
)

SIX = " \t\n\r\x0b\x0c"


# --- tags --------------------------------------------------------------------------------


def test_tag_of_empty_file() -> None:
    assert file_tag(b"") == "47DEQpj8"


def test_tag_hashes_exact_bytes() -> None:
    assert file_tag(b"const value = 1;\nexport default value;\n") == "5CeleQP4"
    assert file_tag(b"one\r\ntwo\r\n") == "b0eSsmX-"
    assert file_tag(b"one\ntwo\n") != file_tag(b"one\r\ntwo\r\n")
    assert file_tag(b"\xef\xbb\xbfone\ntwo\n") != file_tag(b"one\ntwo\n")


def test_tag_uses_url_safe_alphabet() -> None:
    # SHA-256 of this input starts with bytes whose base64 holds '-' (V5's tag).
    assert "-" in file_tag(b"one\r\ntwo\r\n")
    assert all(c not in "+/=" for c in file_tag(b"one\r\ntwo\r\n"))


def test_tag_of_digest_matches_file_tag() -> None:
    data = b"x" * 100_000
    assert tag_of_digest(hashlib.sha256(data).digest()) == file_tag(data)


@pytest.mark.parametrize(
    ("tag", "valid"),
    [
        ("47DEQpj8", True),
        ("b0eSsmX-", True),
        ("u_t56CIW", True),
        ("47DEQpj", False),
        ("47DEQpj8a", False),
        ("47DEQpj+", False),
        ("47DEQpj/", False),
        ("47DEQpj=", False),
        ("47DEQ pj", False),
        ("47DEQpjé", False),
        ("", False),
    ],
)
def test_is_valid_tag(tag: str, valid: bool) -> None:
    assert is_valid_tag(tag) is valid


# --- anchors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "anchor"),
    [
        ("", "zyb"),
        ("hello", "avr"),
        ("hello world", "vnd"),
        ("hello  \tworld", "vnd"),
        ("const value = 1;", "gzo"),
        ("}", "inw"),
        ("\t}", "inw"),
        ("return x;", "fdq"),
        ("   \t\x0b\x0c", "zyb"),
        ("a\u00a0b", "scy"),
        ("\u3000ab", "jjd"),
        ("ab", "tre"),
    ],
)
def test_line_anchor_spec_vectors(line: str, anchor: str) -> None:
    assert line_anchor(line) == anchor


@pytest.mark.parametrize(
    ("data", "value"),
    [(b"", 0xCBF29CE484222325), (b"a", 0xAF63DC4C8601EC8C), (b"foobar", 0x85944171F73967E8)],
)
def test_fnv1a_64_standard_vectors(data: bytes, value: int) -> None:
    assert fnv1a_64(data) == value


def test_fnv1a_64_continues_from_a_state() -> None:
    assert fnv1a_64(b"bar", fnv1a_64(b"foo")) == fnv1a_64(b"foobar")


@pytest.mark.parametrize(
    ("value", "letters"),
    [(0, "aaa"), (1, "aab"), (26, "aba"), (676, "baa"), (17575, "zzz"), (17576, "aaa")],
)
def test_anchor_of_hash_is_three_base26_digits(value: int, letters: str) -> None:
    assert anchor_of_hash(value) == letters


def test_anchor_reduces_the_full_64_bit_value() -> None:
    # A bit slice (low 16 bits) would give another answer for this hash.
    value = 0xCBF29CE484222325
    assert anchor_of_hash(value) == "zyb"
    assert value % 17576 != (value & 0xFFFF) % 17576


def test_anchor_input_keeps_unicode_spaces() -> None:
    assert anchor_input(" a\u00a0\u2003\u0085\u200bb\t") == "a\u00a0\u2003\u0085\u200bb".encode()


def test_anchor_of_lone_surrogate_is_that_of_replacement_char() -> None:
    assert line_anchor("x\ud83d") == line_anchor("x\ufffd")


def _reference_anchor(line: str) -> str:
    """Independent formulation: the six are ASCII, so drop their bytes from the UTF-8."""
    data = bytes(b for b in line.encode("utf-8") if b not in b" \t\n\r\x0b\x0c")
    h = 14695981039346656037
    for byte in data:
        h = ((h ^ byte) * 1099511628211) % 2**64
    v = h % 17576
    return "".join(chr(97 + d) for d in (v // 676, v // 26 % 26, v % 26))


texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)


def test_anchor_whitespace_is_exactly_the_six() -> None:
    assert set(ANCHOR_WHITESPACE) == set(SIX)


@given(texts)
def test_anchor_matches_reference(line: str) -> None:
    assert line_anchor(line) == _reference_anchor(line)


@given(texts, st.lists(st.tuples(st.integers(0, 40), st.sampled_from(SIX)), max_size=8))
def test_inserting_the_six_never_changes_anchor(line: str, inserts: list[tuple[int, str]]) -> None:
    changed = line
    for position, char in inserts:
        changed = changed[:position] + char + changed[position:]
    assert anchor_input(changed) == anchor_input(line)
    assert line_anchor(changed) == line_anchor(line)


@given(
    texts,
    st.integers(0, 40),
    st.characters(exclude_categories=["Cs"]).filter(lambda c: c not in SIX),
)
def test_inserting_anything_else_changes_anchor_input(line: str, position: int, char: str) -> None:
    changed = line[:position] + char + line[position:]
    assert len(anchor_input(changed)) == len(anchor_input(line)) + len(char.encode("utf-8"))
    assert anchor_input(changed) != anchor_input(line)


# --- decoding and splitting --------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"\x80",
        b"ok\xff",
        b"\xc0\xaf",  # overlong '/'
        b"\xed\xa0\x80",  # encoded surrogate
        b"\xe6\x97",  # truncated sequence
        b"\xf4\x90\x80\x80",  # above U+10FFFF
    ],
)
def test_decode_text_is_strict(data: bytes) -> None:
    with pytest.raises(UnicodeDecodeError):
        decode_text(data)


def test_decode_text_keeps_nul_and_controls() -> None:
    assert decode_text(b"a\x00b\x01\x7f") == "a\x00b\x01\x7f"


def test_decode_text_removes_one_bom() -> None:
    bom = b"\xef\xbb\xbf"
    assert decode_text(bom + bom + b"x") == "\ufeffx"


@pytest.mark.parametrize(
    ("data", "lines"),
    [
        (b"", [""]),
        (b"\n", ["", ""]),
        (b"a\nb", ["a", "b"]),
        (b"a\nb\n", ["a", "b", ""]),
        (b"one\r\ntwo\r\n", ["one", "two", ""]),
        (b"a\rb\rc", ["a", "b", "c"]),
        (b"a\r\nb\nc\rd", ["a", "b", "c", "d"]),
        (b"\r\r\n", ["", "", ""]),
        (b"\n\r", ["", "", ""]),
        (b"\xef\xbb\xbf\xef\xbb\xbfx\n", ["x", ""]),
        (b"\xef\xbb\xbf\xef\xbb\xbf\xef\xbb\xbfx", ["\ufeffx"]),
        (b"a\xef\xbb\xbfb", ["a\ufeffb"]),
        (b"\xef\xbb\xbffirst\r\nsecond\r\n", ["first", "second", ""]),
        ("a\x0bb\x0cc\x1cd\x1de\x1ef\x85g\u2028h\u2029i".encode(), None),
    ],
)
def test_decode_lines(data: bytes, lines: list[str] | None) -> None:
    expected = lines if lines is not None else [data.decode()]
    assert decode_lines(data) == expected


def test_split_lines_drops_one_bom_of_text() -> None:
    assert split_lines("\ufeff\ufeffa\r\nb") == ["\ufeffa", "b"]


def test_normalize_line_breaks() -> None:
    assert normalize_line_breaks("a\r\nb\rc\n\r\n\r") == "a\nb\nc\n\n\n"


# --- streaming scan ----------------------------------------------------------------------


def _chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


tricky = st.lists(
    st.sampled_from(["a", "é", "😀", "\r", "\n", "\r\n", "\ufeff", " ", "\x0b"]), max_size=40
).map("".join)


@st.composite
def chunked_files(draw: st.DrawFn) -> tuple[bytes, list[bytes]]:
    data = draw(tricky).encode("utf-8")
    cuts = draw(st.lists(st.integers(0, len(data)), max_size=10))
    return data, _chunked(data, cuts)


@pytest.mark.parametrize(
    "chunks",
    [
        [b"a\r", b"\nb"],  # CRLF split
        [b"a\r", b"", b"\nb"],
        [b"a\r", b"\r\nb"],
        [b"\xef\xbb\xbf", b"\xef\xbb\xbf", b"\xef\xbb\xbfx"],  # BOMs one per chunk
        [b"\xef\xbb", b"\xbf\xef", b"\xbb\xbfx\r", b"\n"],
        [b"\xf0\x9f", b"\x98\x80\r", b"\xf0\x9f\x98\x80\n"],  # a code point split
    ],
)
def test_scan_across_chunk_boundaries(chunks: list[bytes]) -> None:
    data = b"".join(chunks)
    scan = scan_file(chunks)
    assert list(scan.rows) == decode_lines(data)
    assert scan.total_lines == len(decode_lines(data))


@given(chunked_files(), st.integers(0, 70), st.integers(1, 70))
def test_scan_matches_whole_file_rules(
    file: tuple[bytes, list[bytes]], start: int, limit: int
) -> None:
    data, chunks = file
    lines = decode_lines(data)
    scan = scan_file(chunks, start, limit)
    assert scan.valid_utf8
    assert scan.tag == file_tag(data)
    assert scan.size == len(data)
    assert scan.total_lines == len(lines)
    assert scan.raw_lines == data.count(b"\n") + 1
    assert scan.start == start
    assert list(scan.rows) == lines[start : start + limit]


@given(chunked_files())
def test_scan_without_limit_keeps_every_line_of_a_small_file(
    file: tuple[bytes, list[bytes]],
) -> None:
    data, chunks = file
    assert list(scan_file(chunks).rows) == decode_lines(data)


@pytest.mark.parametrize("data", [b"ok\n\x80\ntwo", b"\xe6\x97", b"a\r\n\xed\xa0\x80"])
def test_scan_of_invalid_utf8_still_hashes_and_counts(data: bytes) -> None:
    scan = scan_file([data[:1], data[1:]])
    assert not scan.valid_utf8
    assert scan.tag == file_tag(data)
    assert scan.raw_lines == data.count(b"\n") + 1
    assert scan.rows == ()


def test_scan_of_nothing_is_one_empty_line() -> None:
    scan = scan_file([])
    assert (scan.tag, scan.total_lines, scan.raw_lines, scan.rows) == ("47DEQpj8", 1, 1, ("",))


def test_scan_keeps_a_long_line_as_head_and_anchor() -> None:
    line = "ab c\t" * 30_000  # 150 000 bytes
    data = ("short\n" + line + "\nend").encode()
    scan = scan_file(_chunked(data, list(range(0, len(data), 4096))))
    short, long, end = scan.rows
    assert (short, end) == ("short", "end")
    assert long == LongLine(line[:COMPACT_UNITS], line_anchor(line), len(line))


def test_scan_line_just_at_the_byte_limit_is_kept_whole() -> None:
    line = "x" * HASHLINE_MAX_BYTES
    assert scan_file([line.encode()]).rows == (line,)
    assert isinstance(scan_file([line.encode() + b"x"]).rows[0], LongLine)


def test_scan_keeps_at_most_max_lines_rows() -> None:
    data = b"x\n" * 5000
    scan = scan_file([data], 10)
    assert scan.total_lines == 5001
    assert len(scan.rows) == HASHLINE_MAX_LINES


def test_scan_stops_keeping_once_rows_exceed_the_byte_limit() -> None:
    # Each 1000-byte row costs at least 500 bytes shown: 103 of them pass 51200.
    data = (b"y" * 1000 + b"\n") * 300
    scan = scan_file([data])
    assert len(scan.rows) == 103
    assert scan.total_lines == 301
