"""Paths, names and contents made safe for a terminal.

A file name can hold an escape sequence that retitles the window or clears the screen,
or a line break that forges a diagnostic line. `for_terminal` writes such a name as the
block headers do, as a JSON string (see `readmany.frame.paths`), with every character a
terminal or a line-splitting reader acts on escaped: C0 and C1 controls, DEL, U+2028 and
U+2029, the bidirectional overrides that reorder what is shown, and lone surrogates
(undecodable bytes). `escape_controls` escapes the same characters in a whole line
without quoting it: the last guard before a line is written to stderr.

A file's contents can hold the same sequences, and one that sets the clipboard (OSC 52)
or hides a line behind a carriage return is no less harmful. `TerminalGuard` is standard
output when it is a terminal: what a terminal acts on is written as an escape (`\u001b`,
`\r`), line breaks and tabs as they are. Output to a pipe or a file is never changed.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.emit.sink import Writer

# Compiled on first use, by re's cache: most names are printable ASCII.
_UNSAFE = "[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def for_terminal(name: str) -> str:
    """`name` as it is when harmless, else as a JSON string with the unsafe characters escaped."""
    if name.isascii() and name.isprintable() and not name.startswith('"'):
        return name
    if not name.startswith('"') and re.search(_UNSAFE, name) is None:
        return name
    inner = name.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escape_controls(inner) + '"'


def escape_controls(line: str) -> str:
    """`line` with each unsafe character written as `\\n`, `\\t`, … or `\\uXXXX`."""
    if line.isascii() and line.isprintable():
        return line
    return re.sub(_UNSAFE, _escape, line)


def _escape(match: re.Match[str]) -> str:
    return _escaped(match.group())


def _escaped(char: str) -> str:
    """One unsafe character as `\\n`, `\\t`, … or `\\uXXXX`."""
    return _SHORT.get(char) or f"\\u{ord(char):04x}"


# What a terminal acts on, as UTF-8: C0 controls but tab and line feed, a carriage return
# that does not end a line, DEL, C1 controls, the bidirectional marks and overrides.
_TERMINAL_UNSAFE = (
    rb"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]|\r(?!\n)"
    rb"|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
)


def guard_terminal(stream: Writer) -> Writer:
    """`stream` as every command writes standard output: behind a `TerminalGuard` when it
    is a terminal (a file's name or lines must not act on it), as it is into a pipe or a
    file, byte for byte."""
    try:
        terminal = bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        terminal = False
    return TerminalGuard(stream) if terminal else stream


class TerminalGuard:
    """Standard output on a terminal: the bytes a terminal acts on are written as escapes."""

    def __init__(self, stream: Writer) -> None:
        self._stream = stream
        self._unsafe = re.compile(_TERMINAL_UNSAFE)

    def write(self, data: bytes) -> object:
        if self._unsafe.search(data) is not None:
            data = self._unsafe.sub(_escape_bytes, data)
        return self._stream.write(data)

    def flush(self) -> None:
        self._stream.flush()


def _escape_bytes(match: re.Match[bytes]) -> bytes:
    return _escaped(match.group().decode("utf-8")).encode("ascii")
