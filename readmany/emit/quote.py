"""Paths and names made safe for a terminal before they reach stderr.

A file name can hold an escape sequence that retitles the window or clears the screen,
or a line break that forges a diagnostic line. `for_terminal` writes such a name as the
block headers do, as a JSON string (see `readmany.frame.paths`), with every character a
terminal or a line-splitting reader acts on escaped: C0 and C1 controls, DEL, U+2028 and
U+2029, the bidirectional overrides that reorder what is shown, and lone surrogates
(undecodable bytes). `escape_controls` escapes the same characters in a whole line
without quoting it: the last guard before a line is written.
"""

from __future__ import annotations

import re

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
    char = match.group()
    return _SHORT.get(char) or f"\\u{ord(char):04x}"
