"""What a file costs, measured from its raw bytes: bytes, lines and estimated tokens.

What `--stats` shows of a file (`measure_for_stats`): bytes and lines exactly, of the file
as stored, from its raw bytes without decoding (lines are `\\n` counted, plus a last line
without one); tokens are estimated from `STATS_SAMPLE_BYTES` of it
(`tokens.weight_of_sample`). The file as `glob` shows it can differ slightly: a BOM and
the CR of CRLF are dropped, UTF-16 is shown as UTF-8, invalid UTF-8 as U+FFFD, and text
may be cut to the line limits.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from readmany.record import NamedTuple
from readmany.tokens import (
    QUICK_SAMPLE_BYTES,
    SAMPLE_BYTES,
    data_weight,
    estimate_tokens_for,
    sample_spans,
    weight_of_sample,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Cost(Protocol):
        """Bytes, lines and tokens: a `Measure`, or a file measured (`MeasuredFile`)."""

        @property
        def bytes(self) -> int: ...

        @property
        def lines(self) -> int: ...

        @property
        def tokens(self) -> int: ...


class Measure(NamedTuple):
    """What a file costs: bytes as stored, lines, estimated tokens."""

    bytes: int
    lines: int
    tokens: int


def measure(data: bytes) -> Measure:
    """Bytes and lines of raw bytes, exactly, and their estimated tokens."""
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return Measure(len(data), lines, estimate_tokens_for(data))


def measure_chunks(chunks: Iterable[bytes], size: int, sample_bytes: int = SAMPLE_BYTES) -> Measure:
    """`measure` of a file read in chunks, keeping only the bytes the estimate weighs.

    `size` is the file's size when opened (the chunks stop there, or earlier if it
    shrank); the result equals `measure` of the chunks joined when they come to `size`
    (weighed by `sample_bytes`, as `tokens.estimate_tokens_for` takes it).
    """
    spans = sample_spans(size, sample_bytes)
    kept: list[bytes] = []
    newlines = 0
    offset = 0
    last = b""
    for chunk in chunks:
        end = offset + len(chunk)
        newlines += chunk.count(b"\n")
        for start, stop in spans:
            if start < end and stop > offset:
                kept.append(chunk[max(start - offset, 0) : stop - offset])
        offset = end
        last = chunk[-1:] or last
    lines = newlines + (1 if offset and last != b"\n" else 0)
    if not offset:
        return Measure(0, 0, 0)
    return Measure(offset, lines, max(1, round(weight_of_sample(b"".join(kept), offset))))


# What `--stats` weighs of each file for its tokens: 8 windows of 64 bytes over 512. On
# numpy's text files the estimate is then off by 8.0% a file instead of 7.0% for all of
# it, and by 3.1% instead of 1.8% on their sum; on the recorded samples by 6.3% instead of
# 4.7%. The estimate is much of the time `--stats` spends on a file, and its time goes
# with the bytes weighed: 1 KiB made `--stats` 5% slower on the benchmark's repo tree.
STATS_SAMPLE_BYTES = QUICK_SAMPLE_BYTES
_EMPTY = Measure(0, 0, 0)
_tuple_new = tuple.__new__  # a record from a tuple in C, not through its Python `__new__`


def measure_for_stats(chunks: Iterable[bytes], size: int) -> Measure:
    """`measure_chunks` weighing `STATS_SAMPLE_BYTES`: what `--stats` shows of a file."""
    parts = iter(chunks)
    data = next(parts, b"")
    if len(data) < size:
        # Most files come whole, or as the head read to classify them and the rest: two
        # chunks are joined (a copy costs less than the windows' loop), more are streamed.
        second = next(parts, b"")
        if len(data) + len(second) != size:
            return measure_chunks(itertools.chain((data, second), parts), size, STATS_SAMPLE_BYTES)
        data += second
    # The whole file in one piece: the same measure, without the windows' loop.
    size = len(data)
    if not size:
        return _EMPTY
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    weight = data_weight(data, STATS_SAMPLE_BYTES)
    return _tuple_new(Measure, (size, lines, max(1, round(weight))))
