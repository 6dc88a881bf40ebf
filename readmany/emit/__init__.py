"""The emit stage: content to stdout (or an atomically written file), diagnostics to stderr.

Content is streamed: a command writes its text in chunks through a `Sink` and finishes
with the details. In JSON mode the content string is escaped chunk by chunk, so memory
stays flat however much is written.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable

from readmany.record import NamedTuple
from readmany.units import encode_output, utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any, Protocol

# Compiled on first use (by re's own cache): most runs never meet a surrogate.
_SURROGATE = "[\ud800-\udfff]"


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
    Output: text mode `<content>\\n`; JSON mode
    `{"content": "<content>", "details": {...}, "attachments": [...]}\\n`.
    """

    def __init__(
        self,
        stream: Writer,
        *,
        json_mode: bool,
        on_file: Callable[[str, int | None], None] | None = None,
    ) -> None:
        self._stream = stream
        self.json_mode = json_mode
        self._on_file = on_file
        self.bytes_written = 0  # UTF-8 bytes of content, not of the JSON wrapping
        self._started = False

    def _put(self, text: str) -> None:
        self._stream.write(encode_output(text))

    def write(self, text: str) -> int:
        """Write a piece of content; return its size in bytes (UTF-8, as written)."""
        if not text:
            return 0
        if self.json_mode:
            if not self._started:
                self._put('{"content": "')
                self._started = True
            self._put(_json_string_body(text))
            size = utf8_len(text)
        else:
            data = encode_output(text)
            self._stream.write(data)
            size = len(data)
        self.bytes_written += size
        return size

    def file_done(self, path: str, total: int | None = None) -> None:
        """Tell the progress display that one more file (of `total`, where known) is done."""
        if self._on_file is not None:
            self._on_file(path, total)

    def finish(self, details: dict[str, Any], attachments: list[Attachment] | None = None) -> None:
        if self.json_mode:
            if not self._started:
                self._put('{"content": "')
            tail = {
                "details": details,
                "attachments": [a.as_json() for a in attachments or []],
            }
            rest = _escape_surrogates(_json_dumps(tail))
            self._put('", ' + rest[1:] + "\n")
        else:
            self._put("\n")
        self._stream.flush()


def _json_string_body(text: str) -> str:
    return _escape_surrogates(_json_dumps(text)[1:-1])


def _json_dumps(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def _escape_surrogates(encoded: str) -> str:
    """Lone surrogates (undecodable file names) as `\\uXXXX`, keeping the JSON valid UTF-8."""
    if encoded.isascii():
        return encoded
    return re.sub(_SURROGATE, lambda m: f"\\u{ord(m.group()):04x}", encoded)


class GatheredWriter:
    """Writes to a file descriptor in large pieces without copying them together first.

    Pieces are kept as they come and handed to `os.writev` once `limit` bytes are
    waiting (at most `IOV_MAX` pieces a call), so the kernel copies each piece once.
    """

    def __init__(self, fd: int, limit: int = 1 << 18) -> None:
        self._fd = fd
        self._limit = limit
        self._pieces: list[bytes] = []
        self._waiting = 0
        self.closed = False

    def write(self, data: bytes, /) -> int:
        if data:
            self._pieces.append(data)
            self._waiting += len(data)
            if self._waiting >= self._limit:
                self.flush()
        return len(data)

    def flush(self) -> None:
        pieces, self._pieces, self._waiting = self._pieces, [], 0
        first = 0
        while first < len(pieces):
            written = os.writev(self._fd, pieces[first : first + _IOV_MAX])
            while first < len(pieces) and written >= len(pieces[first]):
                written -= len(pieces[first])  # gone out whole
                first += 1
            if written:
                pieces[first] = pieces[first][written:]  # gone out in part: the rest waits

    def close(self) -> None:
        """Write what waits; the descriptor stays open (it is stdout)."""
        if not self.closed:
            self.closed = True
            self.flush()


def _iov_max() -> int:
    try:
        return max(16, os.sysconf("SC_IOV_MAX"))
    except (AttributeError, ValueError, OSError):
        return 16


_IOV_MAX = _iov_max()


class AtomicFile:
    """A file written to a temporary name beside the target and renamed on commit.

    A failed or interrupted run (no `commit()`) leaves nothing behind.
    """

    def __init__(self, target: str) -> None:
        self.target = target
        import tempfile

        directory = os.path.dirname(os.path.abspath(target))
        fd, self._tmp = tempfile.mkstemp(
            prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=directory
        )
        self.stream: IO[bytes] = os.fdopen(fd, "wb")

    def commit(self) -> None:
        self.stream.flush()
        os.fsync(self.stream.fileno())
        self.stream.close()
        mode = 0o666 & ~_umask()
        os.chmod(self._tmp, mode)
        os.replace(self._tmp, self.target)

    def discard(self) -> None:
        if not self.stream.closed:
            self.stream.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def error_line(message: str) -> None:
    """One diagnostic line on stderr, prefixed with the program name."""
    one_line = " ".join(message.splitlines()) or "error"
    sys.stderr.write(f"readmany: {one_line}\n")
    sys.stderr.flush()
