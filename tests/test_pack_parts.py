"""`pack.parts`: the whole selection in parts that each fit the budget, every file in
exactly one part or cut across several by whole lines, output order kept."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readmany.limits import MAX_PARTS, UNCOUNTED
from readmany.pack import Budget, Entry
from readmany.pack.parts import PieceBlock, TooManyParts, plan_parts, split

JOINT = (1, 0, 0.0)
FRAME = 10  # bytes a block takes besides its lines


class Sized:
    """A block of `size` bytes: a frame and lines of `line` bytes each."""

    def __init__(self, size: int) -> None:
        self.text = ""
        self.bytes = size
        self.lines = 0
        self.tokens = 0.0


def entries(files: list[tuple[int, bool]]) -> list[Entry]:
    """Entries of (bytes, cuttable)."""
    made = []
    for position, (size, cuttable) in enumerate(files):
        block = Sized(size)
        made.append(
            Entry(position, f"f{position}", block, True, (lambda *_: None) if cuttable else None)
        )
    return made


def piece_of(files: list[tuple[int, bool]], line: int = 5):
    """The pieces of a file whose text is lines of `line` bytes (its frame `FRAME`)."""

    def piece(position: int, first: int, room: Budget, part: int) -> PieceBlock | None:
        size = files[position][0] - FRAME
        total = -(-size // line)
        fitting = (room.max_bytes - FRAME) // line
        if fitting < 1:
            return None
        last = min(total, first - 1 + fitting)
        count = last - first + 1
        return PieceBlock("", FRAME + count * line, 0, 0.0, first, last, total)

    return piece


def cost(part, sizes) -> int:
    """The bytes of a part: its blocks and the joints between them."""
    blocks = [share.piece.bytes if share.piece else sizes[share.position][0] for share in part]
    return sum(blocks) + JOINT[0] * (len(blocks) - 1)


def covered(result, files) -> dict[int, list[tuple[int, int]]]:
    seen: dict[int, list[tuple[int, int]]] = {}
    for part in result.parts:
        for share in part:
            span = (share.piece.first, share.piece.last) if share.piece else (0, 0)
            seen.setdefault(share.position, []).append(span)
    return seen


def test_files_go_in_output_order_into_parts_that_each_fit() -> None:
    files = [(40, True), (40, True), (40, True), (15, True)]
    room = Budget(100, 10**9, UNCOUNTED)
    result = split(entries(files), room, joint=JOINT, piece=piece_of(files))
    assert [[s.position for s in part] for part in result.parts] == [[0, 1], [2, 3]]
    assert all(cost(part, files) <= 100 for part in result.parts)
    assert result.left_out == ()


def test_a_file_larger_than_a_part_is_cut_across_parts_by_whole_lines() -> None:
    files = [(50, True), (250, True), (20, True)]
    room = Budget(100, 10**9, UNCOUNTED)
    result = split(entries(files), room, joint=JOINT, piece=piece_of(files))
    spans = covered(result, files)
    assert spans[0] == [(0, 0)] and spans[2] == [(0, 0)]
    pieces = spans[1]
    assert len(pieces) >= 3
    # The pieces follow each other: every line once, in order.
    assert pieces[0][0] == 1 and pieces[-1][1] == 48
    for (_, last), (first, _) in itertools.pairwise(pieces):
        assert first == last + 1
    # The first piece fills what the first file left; each next piece is a part's first.
    assert [s.position for s in result.parts[0]] == [0, 1]
    for part in result.parts[1:-1]:
        assert [s.position for s in part] == [1]
    assert all(cost(part, files) <= 100 for part in result.parts)


def test_what_cannot_be_cut_and_fits_no_part_is_left_out_and_said() -> None:
    files = [(30, True), (500, False), (30, True)]
    room = Budget(100, 10**9, UNCOUNTED)
    result = split(entries(files), room, joint=JOINT, piece=piece_of(files))
    assert result.left_out == (1,)
    assert [[s.position for s in part] for part in result.parts] == [[0, 2]]


def test_a_line_longer_than_a_part_leaves_the_file_out_with_no_piece_shown() -> None:
    files = [(30, True), (400, True), (30, True)]
    room = Budget(100, 10**9, UNCOUNTED)
    result = split(entries(files), room, joint=JOINT, piece=piece_of(files, line=200))
    assert result.left_out == (1,)
    assert covered(result, files) == {0: [(0, 0)], 2: [(0, 0)]}


def test_too_many_parts_is_an_error_not_a_flood() -> None:
    files = [(90, True)] * (MAX_PARTS + 1)
    with pytest.raises(TooManyParts):
        split(entries(files), Budget(100, 10**9, UNCOUNTED), joint=JOINT, piece=piece_of(files))


def test_room_is_kept_for_each_parts_head_and_end() -> None:
    files = [(40, True)] * 6
    heads = []

    def ends(parts) -> Budget:
        heads.append(len(parts.parts))
        return Budget(10 * len(parts.parts), 0, 0.0)  # a head names every part

    result = plan_parts(
        entries(files), Budget(100, 10**9, UNCOUNTED), joint=JOINT, piece=piece_of(files), ends=ends
    )
    assert result is not None
    head = 10 * len(result.parts)
    assert all(cost(part, files) + head <= 100 for part in result.parts)
    assert len(heads) >= 2  # made again with the room the heads took


@settings(max_examples=150, deadline=None)
@given(
    # At most 10 files of 400 bytes in parts of 60: 80 parts at most, under MAX_PARTS.
    sizes=st.lists(st.tuples(st.integers(11, 400), st.booleans()), min_size=1, max_size=10),
    room=st.integers(60, 300),
)
def test_every_file_is_in_exactly_one_part_or_left_out_and_every_part_fits(sizes, room) -> None:
    budget = Budget(room, 10**9, UNCOUNTED)
    result = split(entries(sizes), budget, joint=JOINT, piece=piece_of(sizes))
    spans = covered(result, sizes)
    assert set(spans) | set(result.left_out) == set(range(len(sizes)))
    assert not set(spans) & set(result.left_out)
    for position, pieces in spans.items():
        if pieces != [(0, 0)]:
            total = -(-(sizes[position][0] - FRAME) // 5)
            lines = [n for first, last in pieces for n in range(first, last + 1)]
            assert lines == list(range(1, total + 1))
    for part in result.parts:
        assert part and cost(part, sizes) <= room
    order = [share.position for part in result.parts for share in part]
    assert order == sorted(order)
    for position in result.left_out:  # only what fits no part
        size, cuttable = sizes[position]
        assert size > room or cuttable
