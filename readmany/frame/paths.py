"""How a path is written in a block header so that no path can forge a header.

A path is written as it is, unless it holds a control character (newline, carriage
return, tab, NUL, ESC …) or starts with a double quote: then it is written as a JSON
string, `"dir/a\\nb.txt"`. A reader tells the two forms apart by the leading quote.
"""

from __future__ import annotations

import re

_NEEDS_QUOTING = r'[\x00-\x1f\x7f]|^"'  # compiled on first use, by re's cache


def header_path(path: str) -> str:
    if path.isascii() and path.isprintable() and not path.startswith('"'):
        return path  # the common case, decided without a regular expression
    if re.search(_NEEDS_QUOTING, path) is None:
        return path
    import json

    return json.dumps(path, ensure_ascii=False)
