"""The content stream: text as it is, or one JSON object escaped chunk by chunk.

Content is streamed: a command writes its text in chunks through a `Sink` and finishes
with the details. In JSON mode the content string is escaped chunk by chunk, so memory
stays flat however much is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from readmany.frame import weigh
from readmany.record import NamedTuple
from readmany.units import SURROGATE, encode_output, utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

# Compiled on first use (by re's own cache): most runs never meet a surrogate.
_SLICE = 1 << 20  # characters of a long text encoded at a time


if TYPE_CHECKING:

    class Writer(Protocol):
        """A binary output stream: stdout's buffer, an open file, a tee."""

        def write(self, data: bytes, /) -> object: ...

        def flush(self) -> None: ...


class Attachment(NamedTuple):
    """An image, PDF or other asset that was requested: shown in JSON, not in text."""

    path: str
    mime_type: str
    data: str  # base64

    def as_json(self) -> dict[str, str]:
        return {"path": self.path, "mimeType": self.mime_type, "data": self.data}


class Sink:
    """Where content goes. Text mode writes it as is; JSON mode wraps it in an object.

    Usage: `write()` any number of times, then `finish(details, attachments)` once.
    Output: text mode `<content>\\n` (nothing at all for no content); JSON mode
    `{"content": "<content>", "details": {...}, "attachments": [...]}\\n`.
    """

    def __init__(
        self,
        stream: Writer,
        *,
        json_mode: bool,
        on_file: Callable[[str, int | None], None] | None = None,
        weigh: bool | None = None,
    ) -> None:
        self._stream = stream
        self.json_mode = json_mode
        self._on_file = on_file
        self.bytes_written = 0  # UTF-8 bytes of content, not of the JSON wrapping
        # With `weigh` (by default in JSON mode, whose details say it), the estimated
        # tokens of the content (`tokens.text_weight` of each piece written, summed), and
        # of the last piece.
        self.weigh = json_mode if weigh is None else weigh
        self.tokens = 0.0
        self.last_tokens = 0.0
        self._started = False

    def _put(self, text: str) -> None:
        self._stream.write(encode_output(text))

    def write(self, text: str, tokens: float | None = None) -> int:
        """Write a piece of content; return its size in bytes (UTF-8, as written).
        `tokens`: its estimated tokens, where the caller weighed its parts (a frame apart
        from a long text: weighed together, the frame would count as often as the text's
        sample is scaled); else, with `weigh`, it is weighed here."""
        return self.write_all((text,), tokens)

    def write_all(self, pieces: Iterable[str], tokens: float | None = None) -> int:
        """Write pieces of content one after the other, as one (`write`): a frame and a
        long text are written without being joined into a copy of both first."""
        if self.weigh and tokens is None:
            pieces = list(pieces)  # weighed after they are written
        size = 0
        short: list[str] = []  # short pieces, joined into one write
        held = 0
        for text in pieces:
            if len(text) < _SLICE and held + len(text) <= _SLICE:
                short.append(text)
                held += len(text)
                continue
            if short:
                size += self._write_text("".join(short))
                short.clear()
            if len(text) < _SLICE:
                short.append(text)
                held = len(text)
            else:
                size += self._write_text(text)
                held = 0
        if short:
            size += self._write_text("".join(short))
        if not size:
            return 0
        self.bytes_written += size
        if self.weigh:
            if tokens is None:
                tokens = sum(weigh(text) for text in pieces)
            self.last_tokens = tokens
            self.tokens += tokens
        return size

    def write_as_read(self, head: str, data: bytes, tail: str) -> int:
        """`write_all((head, text, tail))` of a text kept as the bytes it was read as
        (`TextFile.data`, its exact UTF-8): in text mode the bytes go out as they are,
        never decoded, with the frame in the same write."""
        if self.json_mode or self.weigh:
            return self.write_all((head, data.decode("utf-8"), tail))
        first, last = encode_output(head), encode_output(tail)
        size = len(first) + len(data) + len(last)
        if len(data) < _SLICE:
            self._stream.write(b"".join((first, data, last)))
        else:  # a long text is not copied to join it to its frame
            self._stream.write(first)
            self._stream.write(data)
            self._stream.write(last)
        self.bytes_written += size
        return size

    def _write_text(self, text: str) -> int:
        """Write `text` a slice at a time: a long text is never encoded (or escaped) into
        one more copy of itself, and the memory a write takes stays `_SLICE` bytes."""
        if not text:
            return 0
        if self.json_mode and not self._started:
            self._put('{"content": "')
            self._started = True
        size = 0
        for start in range(0, len(text), _SLICE):
            part = text[start : start + _SLICE] if len(text) > _SLICE else text
            if self.json_mode:
                self._put(_json_string_body(part))
                size += utf8_len(part)
            else:
                data = encode_output(part)
                self._stream.write(data)
                size += len(data)
        return size

    def flush(self) -> None:
        """Let what was written so far go out now (the run is about to wait for input)."""
        self._stream.flush()

    def file_done(self, path: str, total: int | None = None) -> None:
        """Tell the progress display that one more file (of `total`, where known) is done."""
        if self._on_file is not None:
            self._on_file(path, total)

    def finish(self, details: dict[str, Any], attachments: list[Attachment] | None = None) -> None:
        if self.json_mode:
            if not self._started:
                self._put('{"content": "')
            # Written a value at a time: an array of a record per file (`JsonArray`)
            # is copied from its text, never built into one string.
            write = self._stream.write
            write(b'", "details": {')
            for index, (key, value) in enumerate(details.items()):
                write(json_text(key) + b": " if not index else b", " + json_text(key) + b": ")
                pieces = getattr(value, "pieces", None)
                if pieces is not None:
                    for piece in pieces():
                        write(piece)
                else:
                    write(json_text(value))
            write(b'}, "attachments": ')
            write(json_text([a.as_json() for a in attachments or []]))
            write(b"}\n")
        elif self.bytes_written:
            self._put("\n")  # no content, no line: an empty result is an empty stdout
        self._stream.flush()


def json_text(value: object) -> bytes:
    """`value` as JSON, as the document writes it (UTF-8, lone surrogates escaped)."""
    return encode_output(_escape_surrogates(_json_dumps(value)))


def _json_string_body(text: str) -> str:
    return _escape_surrogates(_json_dumps(text)[1:-1])


def _json_dumps(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def _escape_surrogates(encoded: str) -> str:
    """Lone surrogates (undecodable file names) as `\\uXXXX`, keeping the JSON valid UTF-8."""
    if encoded.isascii():
        return encoded
    return re.sub(SURROGATE, lambda m: f"\\u{ord(m.group()):04x}", encoded)
