"""Text as `readmany glob` shows it: BOM-aware decoding, at most 2000 lines of 2000 units.

The file is decoded as it is read, in chunks, and reading stops as soon as a line beyond
the limit shows up, so memory is bounded by the limits, not by the file. A file is read
as it was when opened: up to its size then, even if it grows meanwhile. Lines end at
`\\n` or `\\r\\n` (a lone `\\r` is kept); a line longer than 2000 UTF-16 code units is cut
to 2000 (1999 where the cut would split a surrogate pair) plus `... [truncated]`.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Iterator

from readmany.limits import GLOB_MAX_LINE_UNITS, GLOB_MAX_LINES
from readmany.read.safe import chunks
from readmany.record import NamedTuple
from readmany.units import utf8_len

LINE_CUT_SUFFIX = "... [truncated]"


# (BOM, codec); the UTF-32 marks come first, as FF FE 00 00 also starts with FF FE.
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


_BOM_BYTES = max(len(bom) for bom, _ in _BOMS)
_BOM_STARTS = frozenset(bom[:1] for bom, _ in _BOMS)


class TextRead(NamedTuple):
    """A decoded text. `lossy`: bytes not valid in the encoding show as U+FFFD in `body`.

    `total_lines` is known where a text was cut to a number of whole lines (the default
    face's `--max-file-lines`): `body` then holds its first lines, each with its newline.
    """

    body: str
    truncated: bool = False
    lossy: bool = False
    total_lines: int = 0


def detect_bom(head: bytes) -> tuple[str, int]:
    """The codec a file's first bytes announce and the length of the mark (UTF-8, 0 if none)."""
    if head[:1] not in _BOM_STARTS:
        return "utf-8", 0
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec, len(bom)
    return "utf-8", 0


class _Decoder:
    """An incremental decoder that notes whether it had to replace invalid bytes."""

    def __init__(self, codec: str) -> None:
        self._codec = codec
        self._decoder = codecs.getincrementaldecoder(codec)("strict")
        self.lossy = False

    def decode(self, data: bytes, final: bool = False) -> str:
        if self.lossy:
            return self._decoder.decode(data, final)
        state = self._decoder.getstate()
        try:
            return self._decoder.decode(data, final)
        except UnicodeDecodeError:
            self.lossy = True
            self._decoder = codecs.getincrementaldecoder(self._codec)("replace")
            self._decoder.setstate(state)
            return self._decoder.decode(data, final)

    def finish(self) -> str:
        if self._codec == "utf-8":
            return self.decode(b"", final=True)
        return ""  # a trailing incomplete UTF-16/32 unit is dropped


def cut_line(line: str, max_units: int = GLOB_MAX_LINE_UNITS) -> str | None:
    """`line` cut to `max_units` UTF-16 code units plus the suffix, or None if it fits."""
    if len(line) * 2 <= max_units:
        return None
    units = line.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * max_units:
        return None
    kept = units[: 2 * max_units]
    if 0xD800 <= int.from_bytes(kept[-2:], "little") <= 0xDBFF:
        kept = kept[:-2]  # never split a surrogate pair
    return kept.decode("utf-16-le", "surrogatepass") + LINE_CUT_SUFFIX


class _Lines:
    """Splits decoded text into lines, keeping at most `max_lines` of them."""

    def __init__(self, max_lines: int, max_units: int) -> None:
        self._max_lines = max_lines
        self._max_units = max_units
        # A line is kept up to this many characters: enough to cut it and to know it is
        # longer than the limit.
        self._keep = max_units + 1
        self.lines: list[str] = []
        self.full = False  # a line beyond the limit was seen: stop reading
        self.cut = False  # some line was shortened
        self._parts: list[str] = []
        self._kept = 0
        self._pending_cr = False

    def feed(self, text: str) -> None:
        if self.full or not text:
            return
        if self._pending_cr:
            text = "\r" + text
            self._pending_cr = False
        if text.endswith("\r"):
            text = text[:-1]
            self._pending_cr = True  # the `\n` of a CRLF may come with the next chunk
        pieces = text.replace("\r\n", "\n").split("\n")
        self._add(pieces[0])  # continues the line begun in an earlier chunk
        if len(pieces) > 1:
            self._end_line()
            if self.full:
                return
            whole = pieces[1:-1]
            room = self._max_lines - len(self.lines)
            if len(whole) > room:
                del whole[room:]
                self.full = True
            self._extend(whole)
            if self.full:
                return
            self._add(pieces[-1])
        if self._pending_cr and len(self.lines) >= self._max_lines:
            self.full = True

    def _extend(self, lines: list[str]) -> None:
        if not lines:
            return
        if max(map(len, lines)) * 2 <= self._max_units:
            self.lines.extend(lines)  # no line can be too long
            return
        for line in lines:
            shortened = cut_line(line, self._max_units)
            if shortened is not None:
                line = shortened
                self.cut = True
            self.lines.append(line)

    def _add(self, piece: str) -> None:
        if not piece or self.full:
            return
        if len(self.lines) >= self._max_lines:
            self.full = True
            return
        room = self._keep - self._kept
        if len(piece) > room:
            piece = piece[:room]
        if piece:
            self._parts.append(piece)
            self._kept += len(piece)

    def _end_line(self) -> None:
        if len(self.lines) >= self._max_lines:
            self.full = True
            return
        line = "".join(self._parts)
        shortened = cut_line(line, self._max_units)
        if shortened is not None:
            line = shortened
            self.cut = True
        self.lines.append(line)
        self._parts = []
        self._kept = 0

    def finish(self) -> str:
        """The body: kept lines joined with `\\n`, the final newline kept if not cut off."""
        if self._pending_cr:
            self._pending_cr = False
            self._add("\r")
        if self.full:
            return "\n".join(self.lines)
        if self._parts:
            self._end_line()  # the last line, without a newline
            return "\n".join(self.lines)
        if not self.lines:
            return ""
        return "\n".join(self.lines) + "\n"


def read_text(
    fd: int, size: int, *, max_lines: int = GLOB_MAX_LINES, max_units: int = GLOB_MAX_LINE_UNITS
) -> TextRead:
    """Read the first `size` bytes of an open file (its size when opened) as text."""
    lines = _Lines(max_lines, max_units)
    decoder: _Decoder | None = None
    for data in chunks(fd, size):
        if decoder is None:
            codec, skip = detect_bom(data)
            decoder = _Decoder(codec)
            data = data[skip:]
        lines.feed(decoder.decode(data))
        if lines.full:
            break
    else:
        if decoder is not None:
            lines.feed(decoder.finish())
    body = lines.finish()
    # Lossy as shown: an invalid byte past the kept lines does not count.
    lossy = decoder is not None and decoder.lossy and "\ufffd" in body
    return TextRead(body, lines.full or lines.cut, lossy)


_SAFE_CHARACTERS = GLOB_MAX_LINE_UNITS // 2  # so many characters can never pass the limit
# A run this long with no line break: first at the start, then after any `\n` (a search
# for a pattern that starts with a literal character jumps from one `\n` to the next).
_LONG_RUN = f"[^\n]{{{_SAFE_CHARACTERS + 1}}}"
_LONG_LATER_RUN = "\n" + _LONG_RUN  # both compiled on first use, by re's cache


# A run of `2 * _WINDOW - 1` characters or more without a line break covers one whole
# window of the text cut into `_WINDOW`-character pieces; looking for a break in each
# piece is a few short searches, where the expressions above would scan every character.
_WINDOW = (_SAFE_CHARACTERS + 2) // 2


def _may_have_long_line(text: str) -> bool:
    """Whether a line may be over the limit in UTF-16 units (the careful path decides)."""
    size = len(text)
    if size <= _SAFE_CHARACTERS:
        return False
    find = text.find
    for start in range(0, size - _WINDOW + 1, _WINDOW):
        if find("\n", start, start + _WINDOW) < 0:
            break  # a piece without a break: some line may be long
    else:
        return False
    return re.match(_LONG_RUN, text) is not None or re.search(_LONG_LATER_RUN, text) is not None


def text_of_bytes(data: bytes) -> TextRead:
    """`data`, a whole file already read, as text: the same result as `read_text`.

    Most source files are valid UTF-8 without a BOM, under the line limits: for them
    the body is the decoded text with CRLF made LF, found without splitting lines.
    """
    codec, skip = detect_bom(data)
    if codec == "utf-8":
        try:
            text = data[skip:].decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            if "\r" in text:
                text = text.replace("\r\n", "\n")
            if len(text) < GLOB_MAX_LINES:
                within = True  # too short to hold that many line breaks
            else:
                breaks = text.count("\n")
                within = breaks < GLOB_MAX_LINES or (
                    breaks == GLOB_MAX_LINES and text.endswith("\n")
                )
            if within and not _may_have_long_line(text):
                return TextRead(text)
    lines = _Lines(GLOB_MAX_LINES, GLOB_MAX_LINE_UNITS)
    decoder = _Decoder(codec)
    lines.feed(decoder.decode(data[skip:]))
    if not lines.full:
        lines.feed(decoder.finish())
    body = lines.finish()
    return TextRead(body, lines.full or lines.cut, decoder.lossy and "\ufffd" in body)


def decode_whole(data: bytes) -> TextRead:
    """All of `data` as text, BOM-aware, without line limits (SVG is shown whole)."""
    codec, skip = detect_bom(data)
    decoder = _Decoder(codec)
    text = decoder.decode(data[skip:]) + decoder.finish()
    return TextRead(text, False, decoder.lossy)


def exact_text(data: bytes, max_lines: int | None = None) -> TextRead:
    """`data` as the text it holds, line breaks and all (the default face): BOM-aware,
    invalid bytes as U+FFFD; cut after `max_lines` lines where there are more."""
    codec, skip = detect_bom(data)
    try:
        text = data[skip:].decode(codec)
        lossy = False
    except UnicodeDecodeError:
        text = data[skip:].decode(codec, "replace")
        lossy = True
    if max_lines is None or len(text) <= max_lines:
        return TextRead(text, lossy=lossy)  # too short to hold more lines than that
    total = text.count("\n") + (not text.endswith("\n"))
    if total <= max_lines:
        return TextRead(text, lossy=lossy)
    end = -1
    for _ in range(max_lines):
        end = text.find("\n", end + 1)
    body = text[: end + 1]
    return TextRead(body, True, lossy and "\ufffd" in body, total)


def unchanged(data: bytes, max_lines: int | None = None) -> bool:
    """Whether `exact_text(data, max_lines)` is `data` itself, decoded: no byte order
    mark, ASCII or valid UTF-8, not cut by lines. Then the text written is `data` as it
    is (`encode_output` of the text gives it back), and nothing need decode it to show
    it. Checked on the bytes: a newline is the same byte in UTF-8 and in the text."""
    if data[:1] in _BOM_STARTS and detect_bom(data)[1]:
        return False
    if max_lines is not None and len(data) > max_lines:
        total = data.count(b"\n") + (not data.endswith(b"\n"))
        if total > max_lines:
            return False
    if data.isascii():
        return True
    try:
        data.decode("utf-8")  # validated; the text is dropped
    except UnicodeDecodeError:
        return False
    return True


EXACT_CHUNK = 1 << 20  # bytes decoded at a time by `read_exact`


class Whole(NamedTuple):
    """What a text read by `read_exact` with `keep` holds in all, of which only the first
    characters were kept: its UTF-8 bytes and newlines as shown (the body, cut by lines
    where it was), and the estimated tokens of the file's bytes (negative: not weighed)."""

    bytes: int
    newlines: int
    lines: int  # newlines, and one for a last line without one
    weight: float = -1.0


def read_exact(
    fd: int, size: int, max_lines: int | None = None, keep: int | None = None
) -> tuple[TextRead, Whole | None]:
    """`exact_text` of the first `size` bytes of an open file, decoded a chunk at a time,
    so that the text is the only copy of the file held (never its bytes and its text at
    once). `keep`: hold at most the body's first `keep` characters; the `Whole` then says
    what the body holds in all (None where all of it was kept)."""
    decoder = _ChunkDecoder(fd, size)
    # Grown in place: `+=` on a local string nothing else refers to reallocates it,
    # which for a large one moves no bytes.
    body = ""
    held = 0  # characters of the body held
    body_bytes = 0
    body_newlines = 0
    all_newlines = 0  # in the whole text, past a cut by lines too
    at_limit = False  # the body has its `max_lines` lines: what follows is past the cut
    past = False  # text was found past the cut
    ends_newline = False
    lossy_body = False
    dropped = False  # some of the body was not held (`keep`)
    body_ends_newline = False
    for piece in decoder:
        breaks = piece.count("\n")
        all_newlines += breaks
        ends_newline = piece.endswith("\n")
        if at_limit:
            past = True
            continue
        if max_lines is not None and body_newlines + breaks >= max_lines:
            end = -1
            for _ in range(max_lines - body_newlines):
                end = piece.find("\n", end + 1)
            past = end + 1 < len(piece)
            piece = piece[: end + 1]
            breaks = max_lines - body_newlines
            at_limit = True
        body_bytes += len(piece) if piece.isascii() else utf8_len(piece)
        if piece:
            body_ends_newline = piece.endswith("\n")
        body_newlines += breaks
        if decoder.lossy and not lossy_body:
            lossy_body = "\ufffd" in piece
        if keep is not None and held + len(piece) > keep:
            piece = piece[: max(0, keep - held)]
            dropped = True
        if piece:
            body += piece
            held += len(piece)
    whole = None
    if dropped:
        whole = Whole(
            body_bytes, body_newlines, body_newlines + (not body_ends_newline)
        )  # never empty
    if past:
        return TextRead(body, True, lossy_body, all_newlines + (not ends_newline)), whole
    return TextRead(body, lossy=decoder.lossy), whole


class _ChunkDecoder:
    """The text of an open file's first `size` bytes, a decoded chunk at a time, BOM-aware;
    `lossy` once an invalid byte was replaced."""

    def __init__(self, fd: int, size: int) -> None:
        self._fd = fd
        self._size = size
        self._decoder: _Decoder | None = None

    @property
    def lossy(self) -> bool:
        return self._decoder is not None and self._decoder.lossy

    def __iter__(self) -> Iterator[str]:
        first = b""  # the first bytes, until they are enough to tell a BOM
        for data in chunks(self._fd, self._size, EXACT_CHUNK):
            if self._decoder is None:
                first += data
                if len(first) < _BOM_BYTES:
                    continue
                codec, skip = detect_bom(first)
                self._decoder = _Decoder(codec)
                data, first = first[skip:], b""
            piece = self._decoder.decode(data)
            if piece:
                yield piece
        if self._decoder is None:
            if not first:
                return
            codec, skip = detect_bom(first)
            self._decoder = _Decoder(codec)
            first = first[skip:]
        piece = self._decoder.decode(first, final=True)
        if piece:
            yield piece


def file_weight(fd: int, size: int) -> float:
    """`tokens.data_weight` of the file's first `size` bytes, read from the file: only
    the windows it weighs are read."""
    from readmany.tokens import QUICK_SAMPLE_BYTES, sample_spans, weight_of_sample

    spans = sample_spans(size, QUICK_SAMPLE_BYTES)
    sample = b"".join(os.pread(fd, end - start, start) for start, end in spans)
    return weight_of_sample(sample, size)
