"""The hashline API: file tags, line anchors and the decoding they are defined on.

Importable by editors and readers alike (only the standard library is imported); the
implementation is the read stage's `readmany.read.hashline`, and the edit that checks
these anchors is `readmany.read.edit`.
"""

from __future__ import annotations

from readmany.read.hashline import (
    ANCHOR_VALUES,
    ANCHOR_WHITESPACE,
    BOM,
    COMPACT_UNITS,
    FNV_OFFSET_BASIS,
    FNV_PRIME,
    MAX_BYTES,
    MAX_LINES,
    TAG_ALPHABET,
    TAG_LENGTH,
    FileScan,
    HashlineError,
    LongLine,
    Row,
    anchor_input,
    anchor_of_hash,
    decode_lines,
    decode_text,
    file_tag,
    fnv1a_64,
    is_valid_tag,
    line_anchor,
    normalize_line_breaks,
    not_utf8_message,
    scan_file,
    split_lines,
    tag_of_digest,
)

__all__ = [
    "ANCHOR_VALUES",
    "ANCHOR_WHITESPACE",
    "BOM",
    "COMPACT_UNITS",
    "FNV_OFFSET_BASIS",
    "FNV_PRIME",
    "MAX_BYTES",
    "MAX_LINES",
    "TAG_ALPHABET",
    "TAG_LENGTH",
    "FileScan",
    "HashlineError",
    "LongLine",
    "Row",
    "anchor_input",
    "anchor_of_hash",
    "decode_lines",
    "decode_text",
    "file_tag",
    "fnv1a_64",
    "is_valid_tag",
    "line_anchor",
    "normalize_line_breaks",
    "not_utf8_message",
    "scan_file",
    "split_lines",
    "tag_of_digest",
]
