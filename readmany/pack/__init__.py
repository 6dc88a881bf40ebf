"""The pack stage: which blocks fit a combined line/byte/token budget, whole or cut.

It does no I/O and imports neither the read nor the frame stage: it knows blocks by
their text and size, and is handed the functions it needs (a cutter, a way to measure
what is written around the blocks). `plan` is the block plan; its names are the
stage's entry points, importable from here.
"""

from readmany.limits import UNCOUNTED
from readmany.pack.plan import (
    PARTIAL_ATTEMPTS,
    PARTIAL_BYTE_SLACK,
    PARTIAL_MIN_BYTES,
    SEPARATOR,
    SEPARATOR_BYTES,
    SEPARATOR_LINES,
    Budget,
    Entry,
    Packing,
    Plan,
    by_size,
    cut_block,
    pack_blocks,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.pack.plan import Block, CutHead

__all__ = [
    "PARTIAL_ATTEMPTS",
    "PARTIAL_BYTE_SLACK",
    "PARTIAL_MIN_BYTES",
    "SEPARATOR",
    "SEPARATOR_BYTES",
    "SEPARATOR_LINES",
    "UNCOUNTED",
    "Block",
    "Budget",
    "CutHead",
    "Entry",
    "Packing",
    "Plan",
    "by_size",
    "cut_block",
    "pack_blocks",
]
