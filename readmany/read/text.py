"""Text as `readmany glob` shows it: BOM-aware decoding, at most 2000 lines of 2000 units.

The file is decoded as it is read, in chunks, and reading stops as soon as a line beyond
the limit shows up, so memory is bounded by the limits, not by the file. Lines end at
`\\n` or `\\r\\n` (a lone `\\r` is kept); a line longer than 2000 UTF-16 code units is cut
to 2000 (1999 where the cut would split a surrogate pair) plus `... [truncated]`.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass

MAX_LINES = 2000
MAX_LINE_UNITS = 2000
LINE_CUT_SUFFIX = "... [truncated]"

_CHUNK = 1 << 16

# (BOM, codec); the UTF-32 marks come first, as FF FE 00 00 also starts with FF FE.
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


@dataclass(frozen=True)
class TextRead:
    """A decoded text. `lossy`: bytes that were not valid in the encoding became U+FFFD."""

    body: str
    truncated: bool = False
    lossy: bool = False


def detect_bom(head: bytes) -> tuple[str, int]:
    """The codec a file's first bytes announce and the length of the mark (UTF-8, 0 if none)."""
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
        # A trailing incomplete UTF-16/32 unit is dropped.
        if self._decoder.getstate()[0]:
            self.lossy = True
        return ""


def cut_line(line: str, max_units: int = MAX_LINE_UNITS) -> str | None:
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
        self._long = False
        self._pending_cr = False

    def feed(self, text: str) -> None:
        if self.full or not text:
            return
        if self._pending_cr:
            self._pending_cr = False
            if text.startswith("\n"):
                self._end_line()
                text = text[1:]
            else:
                self._add("\r")
            if self.full:
                return
        pieces = text.split("\n")
        for piece in pieces[:-1]:
            self._add(piece.removesuffix("\r"))
            self._end_line()
            if self.full:
                return
        last = pieces[-1]
        if last.endswith("\r"):
            last = last[:-1]
            self._pending_cr = True  # the `\n` of a CRLF may come in the next chunk
            if len(self.lines) >= self._max_lines:
                self.full = True
        self._add(last)

    def _add(self, piece: str) -> None:
        if not piece or self.full:
            return
        if len(self.lines) >= self._max_lines:
            self.full = True
            return
        room = self._keep - self._kept
        if len(piece) > room:
            self._long = True
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
        self._long = False

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
    fd: int, *, max_bytes: int, max_lines: int = MAX_LINES, max_units: int = MAX_LINE_UNITS
) -> TextRead:
    """Read an open file from its start as text, within the line limits.

    At most `max_bytes` are read: a file that grew past the size limit since it was
    checked counts as truncated there.
    """
    data = os.read(fd, min(_CHUNK, max_bytes))
    codec, skip = detect_bom(data)
    decoder = _Decoder(codec)
    lines = _Lines(max_lines, max_units)
    total = len(data)
    grew = False
    lines.feed(decoder.decode(data[skip:]))
    while not lines.full:
        data = os.read(fd, min(_CHUNK, max_bytes - total)) if total < max_bytes else b""
        if not data:
            grew = total >= max_bytes and bool(os.read(fd, 1))
            if not grew:
                lines.feed(decoder.finish())
            break
        total += len(data)
        lines.feed(decoder.decode(data))
    body = lines.finish()
    return TextRead(body, lines.full or lines.cut or grew, decoder.lossy)


def decode_whole(data: bytes) -> TextRead:
    """All of `data` as text, BOM-aware, without line limits (SVG is shown whole)."""
    codec, skip = detect_bom(data)
    decoder = _Decoder(codec)
    text = decoder.decode(data[skip:]) + decoder.finish()
    return TextRead(text, False, decoder.lossy)
