"""The pack stage: plans, the switch rule, partial cutting, omitted files."""

from __future__ import annotations

from functools import partial

import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from readmany.frame.heredoc import frame_heredoc
from readmany.frame.pages import cut_heredoc_head
from readmany.pack import Budget, Entry, cut_block, pack_blocks
from readmany.record import NamedTuple


def candidate(index: int, body: str, ok: bool = True, path: str | None = None) -> Entry:
    name = path or f"f{index}.txt"
    text = body if ok else f"[Error: {body}]"
    cut = partial(cut_heredoc_head, name, index + 1, text) if ok else None
    return Entry(index, name, frame_heredoc(name, text, index + 1), ok, cut)


class Sized(NamedTuple):
    """A block known by its size alone."""

    text: str
    bytes: int
    lines: int


def lines(count: int, width: int = 9) -> str:
    return "\n".join(f"{n:0{width}d}" for n in range(count))


def test_everything_fits_in_request_order() -> None:
    items = [candidate(0, "a"), candidate(1, "b")]
    packing = pack_blocks(items)
    assert packing.plan.strategy == "request-order"
    assert not packing.switched
    assert packing.plan.full == {0, 1}
    assert packing.as_json(items) == {
        "strategy": "request-order",
        "switchedForCoverage": False,
        "fullIncludedCount": 2,
        "fullIncludedSuccessCount": 2,
        "omittedPaths": [],
    }


def test_counts_error_blocks_in_full_but_not_as_success() -> None:
    items = [candidate(0, "a"), candidate(1, "boom", ok=False), candidate(2, "c")]
    packing = pack_blocks(items)
    assert packing.plan.full_count == 3
    assert packing.plan.full_success == 2


def test_request_order_stops_at_first_misfit_smallest_first_skips() -> None:
    budget = Budget(max_bytes=400, max_lines=2000)
    items = [candidate(0, "x" * 100), candidate(1, "y" * 300), candidate(2, "z")]
    packing = pack_blocks(items, budget)
    # request order: f0 fits, f1 does not -> stop; smallest first: f2, f0 fit -> 2 > 1.
    assert packing.switched
    assert packing.plan.strategy == "smallest-first"
    assert packing.plan.full == {0, 2}
    shown = [b.text.splitlines()[0] for b in packing.blocks(items)]
    assert shown[0] == "@f0.txt" and shown[-1] == "@f2.txt"  # request order kept


def test_tie_keeps_request_order() -> None:
    budget = Budget(max_bytes=300, max_lines=2000)
    items = [candidate(0, "x" * 200), candidate(1, "y" * 200), candidate(2, "m", ok=False)]
    packing = pack_blocks(items, budget)
    assert not packing.switched
    assert packing.plan.strategy == "request-order"


def test_partial_goes_to_first_remaining_candidate_that_can_take_one() -> None:
    budget = Budget(max_bytes=1500, max_lines=100)
    items = [candidate(0, lines(80)), candidate(1, "g" * 900, ok=False), candidate(2, lines(50))]
    packing = pack_blocks(items, budget)
    assert packing.plan.full == {0}
    assert packing.plan.partial_index == 2  # the error cannot be cut, so it is passed over
    assert packing.omitted == (1,)
    partial_block = packing.plan.partial
    assert partial_block is not None
    assert items[0].block.bytes + 2 + partial_block.bytes <= 1500
    assert packing.as_json(items)["partialIncludedPath"] == "f2.txt"


def test_partial_respects_both_limits_and_keeps_the_header() -> None:
    item = candidate(0, lines(200, width=20), path="src/big.txt")
    block = cut_block(item, room_bytes=1500, room_lines=40)
    assert block is not None
    assert block.lines <= 40 and block.bytes <= 1500
    assert block.text.startswith("@src/big.txt\n<<'")
    body = block.text.split("\n")[2:-1]
    assert body == lines(len(body), width=20).split("\n")  # a head of whole lines


def test_partial_impossible_for_errors_and_tiny_rooms() -> None:
    assert cut_block(candidate(0, "boom", ok=False), 10_000, 100) is None
    assert cut_block(candidate(0, lines(10)), 10_000, 3) is None  # no line for the body
    assert cut_block(candidate(0, lines(10)), 31, 100) is None  # under 32 bytes


def test_partial_retries_when_the_frame_overshoots() -> None:
    long_path = "d/" + "x" * 150 + "/f.txt"
    item = candidate(0, lines(100), path=long_path)
    block = cut_block(item, room_bytes=600, room_lines=100)
    assert block is not None and block.bytes <= 600


def test_nothing_fits_gives_empty_output() -> None:
    items = [candidate(0, "one line too big " * 10)]
    packing = pack_blocks(items, Budget(max_bytes=31, max_lines=2000))
    assert packing.blocks(items) == []
    assert packing.as_json(items)["omittedPaths"] == ["f0.txt"]


def test_line_budget_counts_separators() -> None:
    # Two 5-line blocks joined by one separator line: 11 lines.
    items = [candidate(0, "a\nb"), candidate(1, "c\nd")]
    assert pack_blocks(items, Budget(max_lines=11)).plan.full == {0, 1}
    assert pack_blocks(items, Budget(max_lines=10)).plan.full == {0}


@pytest.mark.slow
@settings(max_examples=scaled(300), deadline=None)
@given(
    sizes=st.lists(st.tuples(st.integers(1, 60), st.integers(0, 4)), max_size=12),
    max_bytes=st.integers(0, 300),
    max_lines=st.integers(0, 20),
)
def test_smallest_first_stops_at_the_first_file_too_big_as_a_full_visit_would(
    sizes: list[tuple[int, int]], max_bytes: int, max_lines: int
) -> None:
    from readmany.pack.plan import _take, by_size

    entries = [
        Entry(i, f"f{i}", Sized(f"{i}", size, lines), True, None)
        for i, (size, lines) in enumerate(sizes)
    ]
    plan = partial(
        _take,
        by_size(entries),
        budget=Budget(max_bytes, max_lines),
        joint=(2, 1, 0.0),
        stop_at_misfit=False,
    )
    assert plan(ascending=True) == plan(ascending=False)


class Weighed(NamedTuple):
    """A block known by its size and its estimated tokens."""

    text: str
    bytes: int
    lines: int
    tokens: float


def test_a_budget_of_tokens_counts_each_blocks_tokens_and_the_joints() -> None:
    # Two blocks of the same bytes: the one dense with tokens does not fit what the
    # other does; the joint between them takes its tokens too.
    light = Entry(0, "light", Weighed("l", 100, 1, 20.0), True, None)
    dense = Entry(1, "dense", Weighed("d", 100, 1, 60.0), True, None)
    both = pack_blocks([light, dense], Budget(10_000, 100, 81.0), joint_tokens=1.0)
    assert both.plan.full == {0, 1}
    short = pack_blocks([light, dense], Budget(10_000, 100, 80.5), joint_tokens=1.0)
    assert short.plan.full == {0} and short.omitted == (1,)
    # Smallest first is by bytes; tokens alone decide here that the dense one is left out.
    flipped = pack_blocks([dense, light], Budget(10_000, 100, 50.0))
    assert flipped.switched and flipped.plan.full == {light.position}
    # Without a budget of tokens, no block is asked for its tokens.
    sized = Entry(0, "sized", Sized("s", 100, 1), True, None)
    assert pack_blocks([sized], Budget(1000, 100)).plan.full == {0}


def test_a_cut_by_tokens_fits_the_tokens_left() -> None:
    # The heredoc cutter knows no tokens: the attempts shrink its bytes until the block's
    # tokens (weighed from its text) fit the room.
    from readmany.tokens import text_weight

    item = candidate(0, lines(400))
    whole = text_weight(item.block.text)
    block = cut_block(item, 100_000, 1000, whole / 4)
    assert block is not None
    assert block.tokens <= whole / 4
    assert block.tokens > whole / 8  # and takes most of it
    assert block.bytes < item.block.bytes


def test_a_ranked_plan_asks_the_runs_one_outline_function_by_position() -> None:
    # A run hands every entry the same outline function, which the plan calls with the
    # entry's position: no entry holds an object of its own for its outline.
    asked: list[int] = []

    def outline(position: int) -> Sized:
        asked.append(position)
        return Sized("outline", 30, 1)

    entries = [candidate(i, lines(50))._replace(outline=outline) for i in range(4)]
    budget = Budget(max_bytes=len(entries[0].block.text) + 100, max_lines=10_000)
    packing = pack_blocks(entries, budget, ranked=entries, least_outline=10)
    assert packing.plan.full == {0}
    outlined = [position for position, _block in packing.plan.outlined]
    assert outlined and asked[: len(outlined)] == outlined
    assert set(asked) <= {1, 2, 3}
