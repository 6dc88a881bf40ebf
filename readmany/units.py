"""Text measures shared by every stage: output bytes, UTF-16 code units.

Output text is encoded with `surrogateescape`, so a file name that was not valid UTF-8
(decoded by `os.fsdecode`) is written back as its original bytes. Any other lone
surrogate becomes U+FFFD, as JavaScript's UTF-8 encoder does.
"""

from __future__ import annotations

import re

_LONE_SURROGATE = "[\ud800-\udc7f\udd00-\udfff]"  # compiled on first use, by re's cache
# Any surrogate code point: text that no strict UTF-8 encoder takes as it is.
SURROGATE = "[\ud800-\udfff]"


def encode_output(text: str) -> bytes:
    """The exact bytes written for `text`."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return re.sub(_LONE_SURROGATE, "\ufffd", text).encode("utf-8", "surrogateescape")


BYTES_PER_TOKEN = 4  # the rule of thumb (see `readmany.tokens`)


def estimate_tokens(byte_count: int) -> int:
    """The rule of thumb's tokens for `byte_count` bytes: one a four, rounded up."""
    return -(-byte_count // BYTES_PER_TOKEN)


def utf8_len(text: str) -> int:
    """Bytes of `text` as written (see `encode_output`)."""
    return len(text) if text.isascii() else len(encode_output(text))


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, as a JavaScript string counts it."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def human_size(size: int) -> str:
    """`812 B`, `13.4 KB`, `2.0 MB`, `1.5 GB` (a row of `--stats` each: no loop)."""
    if size < 1024:
        return f"{size} B"
    value = size / 1024
    if value < 1024:
        return f"{value:.1f} KB"
    value /= 1024
    if value < 1024:
        return f"{value:.1f} MB"
    return f"{value / 1024:.1f} GB"
