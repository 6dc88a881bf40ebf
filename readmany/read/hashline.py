"""File tags and line anchors: the snapshot checks a hashline edit is verified against.

A *file tag* names one snapshot of a file's bytes; a *line anchor* is three letters that
change when a line's content (other than ASCII whitespace) changes. Lines are numbered
after strict UTF-8 decoding, removal of up to two leading BOMs and CRLF / CR → LF
normalisation. spec/hashline.md §2 to §4 defines all of it; this module is its executable
form for readers and editors alike, and imports only the standard library.

`scan_file` is the streaming form of the same rules, for files of any size: it hashes,
decodes and splits chunk by chunk and keeps only the lines a reader could show.
"""

from __future__ import annotations

import base64
import codecs
import hashlib
from collections.abc import Iterable

from readmany.limits import HASHLINE_MAX_BYTES, HASHLINE_MAX_LINES
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

TAG_LENGTH = 8
TAG_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

ANCHOR_WHITESPACE = " \t\n\r\v\f"
"""The only characters an anchor ignores: SPACE, TAB, LF, CR, VT, FF."""

FNV_OFFSET_BASIS = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
ANCHOR_VALUES = 26**3

# One read holds `limits.HASHLINE_MAX_LINES` lines (the header row included) and
# `limits.HASHLINE_MAX_BYTES` UTF-8 bytes at most.
COMPACT_UNITS = 500
"""UTF-16 code units kept of a row too long for the byte limit."""

BOM = "\ufeff"

_MASK64 = (1 << 64) - 1
_DELETE_WHITESPACE = str.maketrans("", "", ANCHOR_WHITESPACE)
_SURROGATES = range(0xD800, 0xE000)
_BOMS_REMOVED = 2  # one by the decoder, one more by the splitter


class HashlineError(ValueError):
    """A file or request that hashline refuses; `str(error)` is the exact message."""


def not_utf8_message(path: str) -> str:
    """The refusal for a file that is not strict UTF-8."""
    return f"Cannot use hashline tools on {path}: the file is not valid UTF-8."


# --- tags --------------------------------------------------------------------------------


def file_tag(data: bytes) -> str:
    """The snapshot tag of a file's exact bytes: base64url(SHA-256)[:8]."""
    return tag_of_digest(hashlib.sha256(data).digest())


def tag_of_digest(digest: bytes) -> str:
    """The tag for a SHA-256 digest computed elsewhere (e.g. while streaming)."""
    return base64.urlsafe_b64encode(digest)[:TAG_LENGTH].decode("ascii")


def is_valid_tag(tag: str) -> bool:
    """Whether `tag` has a tag's form: eight characters of the base64url alphabet."""
    return len(tag) == TAG_LENGTH and all(char in TAG_ALPHABET for char in tag)


# --- anchors -----------------------------------------------------------------------------


def anchor_input(line: str) -> bytes:
    """The bytes an anchor hashes: `line` without the six ASCII whitespace chars, UTF-8.

    A lone surrogate (possible in a Python string, never in a decoded file) counts as
    U+FFFD, as a JavaScript encoder writes it.
    """
    kept = line.translate(_DELETE_WHITESPACE)
    try:
        return kept.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if ord(c) in _SURROGATES else c for c in kept).encode("utf-8")


def fnv1a_64(data: bytes, state: int = FNV_OFFSET_BASIS) -> int:
    """FNV-1a 64 over `data`, continuing from `state` so input can arrive in pieces."""
    for byte in data:
        state = ((state ^ byte) * FNV_PRIME) & _MASK64
    return state


def anchor_of_hash(value: int) -> str:
    """Three lowercase letters: `value mod 26³` in base 26, most significant first."""
    value %= ANCHOR_VALUES
    return chr(97 + value // 676) + chr(97 + value // 26 % 26) + chr(97 + value % 26)


def line_anchor(line: str) -> str:
    """The three-letter anchor of one decoded line (no line break inside)."""
    return anchor_of_hash(fnv1a_64(anchor_input(line)))


# --- decoding and splitting --------------------------------------------------------------


def decode_text(data: bytes) -> str:
    """Strict UTF-8 with one leading BOM removed. Raises UnicodeDecodeError."""
    text = data.decode("utf-8")
    return text[1:] if text.startswith(BOM) else text


def normalize_line_breaks(text: str) -> str:
    """CRLF, then any remaining lone CR, to LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_lines(text: str) -> list[str]:
    """Decoded text to lines: one more leading BOM dropped, breaks normalised, split on LF.

    Only LF (after normalisation) separates lines: VT, FF, NEL, U+2028 and the other
    characters `str.splitlines` would break on are ordinary text. A final newline leaves a
    final empty line, and empty text is one empty line.
    """
    if text.startswith(BOM):
        text = text[1:]
    return normalize_line_breaks(text).split("\n")


def decode_lines(data: bytes) -> list[str]:
    """A file's bytes to its numbered lines (index 0 is line 1). Raises UnicodeDecodeError."""
    return split_lines(decode_text(data))


# --- streaming ---------------------------------------------------------------------------


class LongLine(NamedTuple):
    """A line longer than `HASHLINE_MAX_BYTES`: it is always shown compactly, so only its start,
    its anchor (of the whole line) and its size are kept."""

    head: str  # the first COMPACT_UNITS code points, at least COMPACT_UNITS UTF-16 units
    anchor: str
    utf8_len: int


Row: TypeAlias = str | LongLine


class FileScan(NamedTuple):
    """One pass over a file: its tag, its line counts and the lines from `start` on.

    `rows` holds the lines from index `start` (0-based), up to `limit` of them, but only as
    many as a read could show: keeping stops once the kept rows number `HASHLINE_MAX_LINES` or
    would take more than `HASHLINE_MAX_BYTES` bytes of output, since no later row could be shown.
    `raw_lines` counts LF-separated pieces of the undecoded bytes (CR not a break).
    When `valid_utf8` is false, `rows` and `total_lines` are empty / 0.
    """

    tag: str
    size: int
    raw_lines: int
    total_lines: int
    valid_utf8: bool
    start: int
    rows: tuple[Row, ...]


def scan_file(chunks: Iterable[bytes], start: int = 0, limit: int | None = None) -> FileScan:
    """Hash, decode and split a file given as consecutive chunks of its bytes."""
    hasher = hashlib.sha256()
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    lines: _LineCollector | None = _LineCollector(start, limit)
    size = 0
    raw_breaks = 0
    for chunk in chunks:
        hasher.update(chunk)
        size += len(chunk)
        raw_breaks += chunk.count(b"\n")
        if lines is not None:
            try:
                lines.feed(decoder.decode(chunk))
            except UnicodeDecodeError:
                lines = None  # hashing and counting go on: an offset error comes first
    if lines is not None:
        try:
            lines.feed(decoder.decode(b"", True))
        except UnicodeDecodeError:
            lines = None
    tag = tag_of_digest(hasher.digest())
    if lines is None:
        return FileScan(tag, size, raw_breaks + 1, 0, False, start, ())
    total, rows = lines.finish()
    return FileScan(tag, size, raw_breaks + 1, total, True, start, rows)


class _LineBuffer:
    """One line arriving in pieces; past `HASHLINE_MAX_BYTES` only its head and hash are kept."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._hash: int | None = None
        self._head = ""

    def add(self, text: str) -> None:
        if not text:
            return
        self._size += len(text.encode("utf-8"))
        if self._hash is not None:
            self._hash = fnv1a_64(anchor_input(text), self._hash)
            return
        self._parts.append(text)
        if self._size > HASHLINE_MAX_BYTES:
            whole = "".join(self._parts)
            self._parts = []
            self._head = whole[:COMPACT_UNITS]
            self._hash = fnv1a_64(anchor_input(whole))

    def finish(self) -> Row:
        if self._hash is None:
            return "".join(self._parts)
        return LongLine(self._head, anchor_of_hash(self._hash), self._size)


class _LineCollector:
    """Splits decoded text as `split_lines` does, across chunk boundaries."""

    def __init__(self, start: int, limit: int | None) -> None:
        self._start = start
        self._stop = None if limit is None else start + limit
        self._boms = _BOMS_REMOVED
        self._after_cr = False  # the text so far ended in CR: an LF next is its pair
        self._index = 0  # 0-based number of the line being read
        self._rows: list[Row] = []
        self._cost = 0  # a lower bound of the output bytes of the kept rows
        self._keeping = True
        self._line: _LineBuffer | None = None
        self._open_line()

    def feed(self, text: str) -> None:
        if self._boms:
            skip = 0
            while skip < self._boms and text[skip : skip + 1] == BOM:
                skip += 1
            text = text[skip:]
            self._boms = self._boms - skip if not text else 0
        if not text:
            return
        if self._after_cr and text[0] == "\n":
            text = text[1:]
        self._after_cr = text.endswith("\r")
        text = normalize_line_breaks(text)
        breaks = text.count("\n")
        if self._line is None and (self._done() or self._index + breaks < self._start):
            self._index += breaks
            return
        # Split only as far as a line could still be kept; later breaks are only counted.
        wanted = max(self._start - self._index, 0) + HASHLINE_MAX_LINES - len(self._rows)
        if self._stop is not None:
            wanted = min(wanted, self._stop - self._index)
        pieces = text.split("\n", wanted)
        self._add(pieces[0])
        for piece in pieces[1:]:
            self._next_line()
            self._add(piece)
        if len(pieces) > wanted:
            self._index += pieces[-1].count("\n")

    def _add(self, piece: str) -> None:
        if self._line is not None:
            self._line.add(piece)

    def _done(self) -> bool:
        return not self._keeping or (self._stop is not None and self._index >= self._stop)

    def _open_line(self) -> None:
        if self._index >= self._start and not self._done():
            self._line = _LineBuffer()

    def _next_line(self) -> None:
        self._close_line()
        self._index += 1
        self._open_line()

    def _close_line(self) -> None:
        if self._line is None:
            return
        row = self._line.finish()
        self._line = None
        self._rows.append(row)
        # A shown row costs at least min(its size, COMPACT_UNITS) bytes: compaction keeps
        # COMPACT_UNITS UTF-16 units, each at least one byte.
        size = row.utf8_len if isinstance(row, LongLine) else len(row.encode("utf-8"))
        self._cost += min(size, COMPACT_UNITS)
        if len(self._rows) >= HASHLINE_MAX_LINES or self._cost > HASHLINE_MAX_BYTES:
            self._keeping = False

    def finish(self) -> tuple[int, tuple[Row, ...]]:
        self._close_line()
        return self._index + 1, tuple(self._rows)
