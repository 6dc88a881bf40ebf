"""What a `many` plan leaves to read: the specs that read it, and the lines of each file
already asked for (kept merged, so that a file named many times costs no more each time)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from itertools import pairwise
from types import FrameType, SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from readmany.pack import continuation
from readmany.pack.continuation import LinesAsked, rest_specs
from readmany.pack.plan import Entry, Packing, Plan

INF = float("inf")


def _within_by_definition(first: int, last: float, earlier: Sequence[tuple[int, float]]) -> bool:
    """Whether the lines `first`-`last` are all among the ranges `earlier`: walked in
    order from the smallest start, as it was defined before the ranges were kept merged."""
    reached: float = first - 1  # every line up to this one is covered
    for start, end in sorted(earlier):
        if start > reached + 1:
            break
        reached = max(reached, end)
    return reached >= last


_ranges = st.tuples(st.integers(1, 40), st.one_of(st.integers(0, 15), st.just(None))).map(
    lambda pair: (pair[0], INF if pair[1] is None else pair[0] + pair[1])
)


@given(st.lists(st.tuples(_ranges, _ranges), max_size=30))
def test_the_merged_ranges_cover_what_the_ranges_asked_cover(
    steps: list[tuple[tuple[int, float], tuple[int, float]]],
) -> None:
    asked = LinesAsked()
    earlier: list[tuple[int, float]] = []
    for (first, last), query in steps:
        assert asked.covers(*query) == _within_by_definition(*query, earlier)
        asked.add(first, last)
        earlier.append((first, last))
        kept = asked.ranges()
        # Sorted, apart and not touching: one range holds any lines covered at all.
        for (_, end), (start, _) in pairwise(kept):
            assert end + 1 < start
        for start, end in earlier:
            assert any(s <= start and end <= e for s, e in kept)
        for start, end in kept:
            assert _within_by_definition(start, end, earlier)


def test_a_file_asked_again_adds_nothing() -> None:
    asked = LinesAsked()
    for _ in range(1000):
        asked.add(1, 10)
    asked.add(11, 20)  # touching: one range
    asked.add(30, INF)
    assert asked.ranges() == [(1, 20), (30, INF)]
    assert asked.covers(5, 20)
    assert not asked.covers(5, 21)
    assert asked.covers(1000, INF)
    asked.add(15, 29)
    assert asked.ranges() == [(1, INF)]


def _left_out(count: int, *, limit: float | None) -> list[str]:
    """The specs `rest_specs` gives for `count` requests of one file, none shown."""
    files = [SimpleNamespace(path="a.txt", offset=None, limit=limit) for _ in range(count)]
    block: Any = SimpleNamespace(next_spec=None)
    pieces: Any = [SimpleNamespace(block=block, spec=f"a.txt#{i}") for i in range(count)]
    entries = [Entry(i, "a.txt", block, True, None) for i in range(count)]
    packing = Packing(Plan("request-order", frozenset(), 0), False, tuple(range(count)))
    return rest_specs(entries, pieces, packing, files)


def _lines_run(count: int) -> int:
    """Lines of `readmany.pack.continuation` run to find what is left of `count` requests
    of one file: the work done, counted rather than timed."""
    ran = 0

    def tracer(frame: FrameType, event: str, _arg: object) -> Any:
        nonlocal ran
        if frame.f_code.co_filename != continuation.__file__:
            return None
        if event == "line":
            ran += 1
        return tracer

    before = sys.gettrace()
    sys.settrace(tracer)
    try:
        _left_out(count, limit=5)
    finally:
        sys.settrace(before)
    return ran


def test_a_file_named_many_times_costs_the_same_each_time() -> None:
    # The first request is named again; the rest ask for lines it asked for already.
    assert _left_out(3, limit=5) == ["a.txt#0"]
    assert _left_out(3, limit=None) == ["a.txt#0"]
    # Four times the requests, four times the work (with all earlier ranges walked for
    # each request, as before they were kept merged, it was sixteen times).
    small, large = _lines_run(200), _lines_run(800)
    assert large <= 5 * small, (small, large)
