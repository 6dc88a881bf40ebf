"""How a path is written in a block header so that no path can forge a header.

A path is written as it is, unless it holds a character some reader takes for a control
or a line break (C0 and C1 controls, DEL, U+2028, U+2029) or a terminal for a change of
direction (the bidirectional marks, overrides and isolates), a byte that is not UTF-8 (a
lone surrogate, as Python holds it), or starts with a double quote: then it is written as
a JSON string, `"dir/a\\nb.txt"`, with those characters escaped as `\\uXXXX` (JSON
itself would leave C1, DEL, U+2028/9 and lone surrogates raw), so the output stays UTF-8
and the name can be read back. A reader tells the two forms apart by the leading quote.
"""

from __future__ import annotations

import re

# Compiled on first use, by re's cache: most paths are printable ASCII.
# The bidirectional marks, embeddings, overrides and isolates (U+200E, U+200F, U+202A-E,
# U+2066-9) too: on a terminal they turn the rest of the line around, so that a name
# shows as another (`emit.quote` escapes the same on stderr).
_NEEDS_QUOTING = '[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]|^"'
_RAW_IN_JSON = "[\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"


def header_path(path: str) -> str:
    if path.isascii() and path.isprintable() and not path.startswith('"'):
        return path  # the common case, decided without a regular expression
    if re.search(_NEEDS_QUOTING, path) is None:
        return path
    return quoted(path)


def quoted(path: str) -> str:
    """`path` as a JSON string, every control and line-break character escaped."""
    import json

    text = json.dumps(path, ensure_ascii=False)
    if text.isascii() and "\x7f" not in text:
        return text
    return re.sub(_RAW_IN_JSON, _unicode_escape, text)


def _unicode_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"
