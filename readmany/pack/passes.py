"""The two passes of a planned `glob` run, as the budget sees them.

The first pass keeps, of each file shown, its place and the size of its block
(`FirstPass.add`): memory grows with the number of files, as a list of paths would, not
with their text. The plan is made of those sizes (`FirstPass.plan`): in the order of
value `rank` gives (`--order rank`, `given`), or smallest first while that shows more
files whole; at most one file cut to fill the rest; with room kept for what is written
around the blocks, the tree of the files shown and the closing notice naming the files
left out (`planner.plan_around`). The second pass (`SecondPass`) goes over the files in
output order, writing again those the plan shows: a file that no longer fits the size
it was planned with is left out then, and named with the others.

It reads and frames nothing: the run gives it the blocks it weighs, and `Frames`, what
it needs of the frame stage (the ends, what a cut takes at least, the notice's words).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterator, Sequence

from readmany.pack.budget import BudgetAsked, options_to_hold, planning_limits
from readmany.pack.plan import Budget, Entry, Packing
from readmany.pack.planner import everything, need_of, plan_around
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from readmany.merges import MergedCount
    from readmany.pack.plan import Block, CutHead, OutlineOf
    from readmany.rank import Ranking
    from readmany.select.candidates import Item

    class Frames(Protocol):
        """What the plan needs of the run's frames (`frame.planned.PlannedFrames`)."""

        def joint(self) -> tuple[int, int, float]: ...

        def ends_tokens(self, start: str, end: str) -> float: ...

        def ends(
            self,
            shown: Sequence[Item],
            note: str,
            plan: tuple[Sequence[int], int | None, Sequence[int]] | None = None,
            limits: Budget | None = None,
        ) -> tuple[str, str]: ...

        def new_plan(self) -> None: ...

        def least_frame(self) -> int: ...

        def least_frame_tokens(self) -> float: ...

        def left_out_note(
            self,
            omitted: Sequence[int],
            total: int,
            options: Sequence[str],
            *,
            max_bytes: int,
            max_tokens: float,
        ) -> str: ...

        @property
        def closely(self) -> CloseWeighing: ...

    class CloseWeighing(Protocol):
        """What weighs blocks on all of their text (`frame.planned.CloseWeights`)."""

        counted: dict[int, MergedCount]  # by position, the texts counted by their pieces

        def __call__(self, block: object, most: int | None = None) -> bool: ...


class FirstPass:
    """What the first pass keeps of the files shown (`items`; with a budget, the blocks
    they make, `entries`), and the plan made of it. `order`, `patterns`, `prefer`: how
    a budget ranks the files (`rank.rank`); `lines`, `tokens`: the budget counts lines,
    tokens (only then are they counted in a block)."""

    def __init__(
        self,
        budget: BudgetAsked | None,
        *,
        order: str,
        patterns: Sequence[str],
        prefer: Sequence[str],
        lines: bool,
        tokens: bool,
    ) -> None:
        self.budget = budget
        self.items: list[Item] = []
        self.entries: list[Entry] = []
        self._lines = lines
        self.tokens = tokens
        self.by_value = ByValue(order, patterns, prefer)
        self._need: tuple[int, int, float] | None = None
        self.limits: Budget | None = None  # of the last plan: the budget as planned
        self._ends_before: Budget | None = None  # what the last plan's start and end took
        # the entries weighed closely (`pack.bounded`): their estimates from 512 bytes
        self.closed: dict[int, float] = {}
        # the bound of every file whole (`need`), and how many blocks were counted then
        self._bound_of_all: tuple[int, float] | None = None

    def shown(self, item: Item) -> None:
        """A file shown, with no block weighed (`--tree` alone)."""
        self.items.append(item)

    def add(
        self,
        item: Item,
        block: Block,
        *,
        cut: CutHead | None,
        least: int,
        sample: str | None,
        outline: OutlineOf | None = None,
    ) -> None:
        """A file shown, and its block's size (`cut`: how to cut it, None if it is not);
        `least`: what a cut of it takes at least; `sample`: the start of its text, where
        the ranking reads the names it imports (None: not a text); `outline`: its outline
        as a block, made on first ask (None: it is never outlined)."""
        self.by_value.note(item.rel, sample)
        position = len(self.entries)
        self.items.append(item)
        self.entries.append(Entry(position, item.path, block, True, cut, least, outline))

    def past(self, least: tuple[int, int, float]) -> bool:
        """Whether a block of at least `least` (bytes, newlines, tokens; 0 where not
        counted) can never be shown whole in the budget."""
        if self.budget is None:
            return False
        limits = self.budget.limits
        size, newlines, tokens = least
        return size > limits.max_bytes or newlines > limits.max_lines or tokens > limits.max_tokens

    # -- the plan --

    def plan(
        self,
        frames: Frames,
        planned: int | None = None,
        *,
        least_outline: tuple[int, float] = (0, 0.0),
    ) -> tuple[Packing, str, str]:
        """The packing, and the start (tree) and end (closing notice) written around it.
        A budget of tokens is planned with the estimate for `planned` tokens: by default
        `tokens.planning_budget` of it, within it whatever the plan holds (the most whose
        bound is within it: `pack.bounded`); `least_outline`: what an outline takes at
        least (bytes, tokens; 0 bytes: none is shown)."""
        budget = self.budget
        if budget is None:  # --tree alone: everything
            shown = everything(len(self.items))
            return shown, *self.ends(shown, frames)
        self.limits = planning_limits(budget, planned)
        frames.new_plan()
        made = plan_around(
            self.entries,
            self.limits,
            lambda packing: self.ends(packing, frames),
            frames.ends_tokens,
            joint=frames.joint(),
            least_cut=frames.least_frame(),
            least_cut_tokens=frames.least_frame_tokens(),
            first_kept=bool(self.items) and self.items[-1].candidate is None,
            least_outline=least_outline,
            ends_before=self._ends_before,
            **self.by_value.ranked(self.entries, self.items),
        )
        start, end = made[1], made[2]
        if made[0].omitted:  # the room a plan for another budget will keep first
            self._ends_before = Budget(
                utf8_len(start) + utf8_len(end) + 1,
                start.count("\n") + end.count("\n") + 1,
                frames.ends_tokens(start, end),
            )
        return made

    def ends(self, packing: Packing, frames: Frames) -> tuple[str, str]:
        """The start and the end written around what `packing` shows."""
        plan = packing.plan
        shown = sorted({*plan.full, *(position for position, _ in plan.outlined)})
        if plan.partial_index is not None:
            shown = sorted({*shown, plan.partial_index})
        note = self.left_out_note(packing.omitted, frames) if packing.omitted else ""
        shown_items = [self.items[i] for i in shown]
        if self.budget is None:
            return frames.ends(shown_items, note)
        # with a budget, the tree marks what the plan leaves out, cuts and outlines
        outlined = [position for position, _ in plan.outlined]
        return frames.ends(
            shown_items, note, (packing.omitted, plan.partial_index, outlined), self.limits
        )

    def left_out_note(self, omitted: Sequence[int], frames: Frames) -> str:
        """The closing notice: what the budget left out, and the budget that holds all;
        its share of a budget of tokens is of the budget less the estimate's margin."""
        assert self.budget is not None
        limits = planning_limits(self.budget)
        if self.limits is not None and self.limits.max_tokens < limits.max_tokens:
            limits = self.limits
        return frames.left_out_note(
            omitted,
            len(self.entries),
            self.options_to_hold(frames),
            max_bytes=limits.max_bytes,
            max_tokens=limits.max_tokens,
        )

    def options_to_hold(self, frames: Frames) -> list[str]:
        """The budget options, among those given, that would show every file whole."""
        assert self.budget is not None
        return options_to_hold(self.need(frames), self.budget.limits, plain_below_k=True)

    def need(self, frames: Frames) -> tuple[int, int, float]:
        """Bytes, lines and tokens (the most real ones: `bound_of_blocks`; 0 without a
        budget of tokens) of an output that shows every file whole. The tokens are
        bounded again only once more blocks were counted (`Frames.closely`)."""
        if not self.entries:
            return 0, 0, 0.0
        if self._need is None:
            start, end = frames.ends(self.items, "")
            ends_tokens = frames.ends_tokens(start, end) if self.tokens else None
            blocks = [entry.block for entry in self.entries]
            self._need = need_of(blocks, frames.joint(), start, end, ends_tokens)
        need_bytes, need_lines, need_tokens = self._need
        counted = len(frames.closely.counted)
        if need_tokens and (self._bound_of_all is None or self._bound_of_all[0] != counted):
            shown = [(entry.position, entry.block) for entry in self.entries]
            bound = bound_of_blocks(shown, frames, frames.ends(self.items, ""))
            self._bound_of_all = counted, bound
        bounded = self._bound_of_all
        return need_bytes, need_lines, bounded[1] if need_tokens and bounded else 0.0

    # -- the second pass --

    def outgrew(self, position: int, block: str, tokens: Callable[[], float] | None) -> bool:
        """Whether the block written again at `position` takes more than it was planned
        with; `tokens` weighs it where it may have changed in tokens too."""
        planned = self.entries[position].block
        if utf8_len(block) > planned.bytes or (self._lines and block.count("\n") > planned.lines):
            return True  # it grew since it was measured
        # weighed as the first pass weighed it, on 512 bytes, whether or not weighed closely
        return tokens is not None and tokens() > self.closed.get(position, planned.tokens)

    def details(self, packing: Packing, late: Sequence[int]) -> dict[str, Any]:
        """`details.packing`: the plan as written, the files left out while writing too."""
        plan = packing.plan
        omitted = sorted({*packing.omitted, *late})
        details = Packing(
            plan._replace(full=plan.full - set(late), full_success=len(plan.full) - len(late)),
            packing.switched,
            tuple(omitted),
        ).as_json(self.entries)
        if self.by_value.ranking is not None:  # --order rank or given: why each was left out
            details["omittedReasons"] = self.by_value.reasons(self.items, omitted)
        return details


class ByValue:
    """How the first pass ranks its files (`--order rank` or `given`; `smallest`: it
    does not): with `rank`, the names each text imports, kept instead of the text
    (`imports`, each set once); the ranking (`rank.rank`), made once for the plans."""

    def __init__(self, order: str, patterns: Sequence[str], prefer: Sequence[str]) -> None:
        self._order, self._patterns, self._prefer = order, patterns, prefer
        self._reads_imports = order == "rank"
        self.imports: list[frozenset[str] | None] = []  # by entry (None: not a text)
        self._import_sets: dict[frozenset[str], frozenset[str]] = {}
        self.ranking: Ranking | None = None
        self._made: dict[str, Any] | None = None

    def note(self, rel: str, sample: str | None) -> None:
        """The next entry's path and the start of its text (None: not a text)."""
        names = None
        if self._reads_imports and sample is not None:
            names = _imported(rel, sample, self._import_sets)
        self.imports.append(names)

    def ranked(self, entries: Sequence[Entry], items: Sequence[Item]) -> dict[str, Any]:
        """With `--order rank` or `given`, the entries by value (`rank.rank`) and the
        plan's name: what `plan_around` takes them in. None for `smallest`. Made once:
        the plans made again for another budget take the same."""
        if self._made is not None:
            return self._made
        if self._order == "smallest" or not entries:
            self._made = {}
            return self._made
        from readmany.rank import rank
        from readmany.select.patterns import first_match, pattern_indexes

        files = [e for e in entries if items[e.position].candidate is not None]
        rels = [items[e.position].rel for e in files]
        named = [i for i, e in enumerate(files) if items[e.position].candidate.named]  # type: ignore[union-attr]
        self.ranking = rank(
            rels,
            [e.block.bytes for e in files],
            patterns=pattern_indexes(rels, self._patterns),
            named=named,
            imports=[self.imports[e.position] for e in files],
            prefer=first_match(self._prefer),
            order=self._order,
        )
        ranked = [files[i] for i in self.ranking.order]
        diff = [e for e in entries if items[e.position].candidate is None]
        # By rank, bulk files (licenses, lock files, generated, CI, large data) are
        # outlined or cut only once the others are placed; the first other file that fits
        # neither whole nor outlined is cut.
        cut_first: frozenset[int] = frozenset()
        deferred: frozenset[int] = frozenset()
        if self._order == "rank":
            kinds = self.ranking.kinds
            bulk = {i for i, kind in enumerate(kinds) if kind == "bulk"}
            deferred = frozenset(e.position for i, e in enumerate(files) if i in bulk)
            cut_first = frozenset(e.position for i, e in enumerate(files) if i not in bulk)
        self._made = {
            "ranked": diff + ranked,
            "strategy": self._order,
            "cut_first": cut_first,
            "deferred": deferred,
        }
        return self._made

    def reasons(self, items: Sequence[Item], omitted: Sequence[int]) -> dict[str, str]:
        """Why each file left out was ranked where it was (`--order rank`, `given`)."""
        if self.ranking is None:
            return {}
        reasons = self.ranking.reasons
        return {items[p].path: reasons[at] for p, at in _ranked_at(items, omitted)}

    def kind_words(self, items: Sequence[Item], omitted: Sequence[int]) -> list[str]:
        """The kind of each file left out, in a word ("test", "CI"); none unranked."""
        if self.ranking is None or not self.ranking.words:
            return []
        return [self.ranking.words[at] for _, at in _ranked_at(items, omitted)]


def _ranked_at(items: Sequence[Item], omitted: Sequence[int]) -> list[tuple[int, int]]:
    """Each file of `omitted` (not the diff) and its place among the files ranked."""
    files = [p for p, item in enumerate(items) if item.candidate is not None]
    at = {position: index for index, position in enumerate(files)}
    return [(p, at[p]) for p in omitted if p in at]


def nothing_fits(
    first: FirstPass,
    newlines: Callable[[Entry], int],
    weighed: Callable[[Entry], float],
    counted: Callable[[Entry], int | None] | None = None,
) -> str:
    """What is said when no file fits the budget: the smallest, and what it takes;
    `newlines` and `weighed` count an entry's newlines and tokens where the first
    pass did not; `counted`, its tokens as the exact tokenizer that refused it counts
    them (then quoted, not the estimate)."""
    least = min(entry.block.bytes for entry in first.entries)
    smallest = min(
        (entry for entry in first.entries if entry.block.bytes == least),
        key=lambda entry: (entry.block.bytes, newlines(entry)),
    )
    size = smallest.block
    exact = counted(smallest) if counted is not None else None
    tokens = f"{exact}" if exact is not None else f"~{math.ceil(size.tokens)}"
    if exact is None and not first.tokens:
        tokens = f"~{math.ceil(weighed(smallest))}"
    return (
        f"no file fits the budget: the smallest, {smallest.path}, takes {size.bytes} "
        f"bytes, {newlines(smallest) + 1} lines ({tokens} tokens) as framed"
    )


def bound_of_blocks(
    shown: Sequence[tuple[int, Block]],
    frames: Frames,
    ends: tuple[str, str],
    whole: Collection[int] | None = None,
) -> float:
    """The most real tokens an output of the blocks `shown` (by position) holds, with
    their joints and its `ends` (start and end), by `tokens.real_at_most`. What is
    counted by its pieces (`merges.count`) is bounded by that count: a file shown whole
    (of `whole`; None: all are) once counted (`Frames.closely`), a cut's or an
    outline's block, the ends; the rest by its estimate."""
    from readmany.merges import count
    from readmany.tokens import real_at_most

    closely = frames.closely.counted
    # the joints, and the newline after the content (a token at most)
    weights = [frames.joint()[2] * max(0, len(shown) - 1), 1.0]
    counted = []
    for position, block in shown:
        if whole is None or position in whole:
            found = closely.get(position)
            if found is not None:  # counted as written (what is left: 0, or the frame's)
                weights.append(max(0.0, block.tokens - found.tokens))
                counted.append(found)
                continue
            weights.append(block.tokens)  # not counted: an asset, the diff, or not yet
        else:  # a cut's or an outline's block: its framed text is at hand
            counted.append(count(block.text))
    counted += [count(end) for end in ends]
    return real_at_most(weights, counted)


def _imported(rel: str, sample: str, sets: dict[frozenset[str], frozenset[str]]) -> frozenset[str]:
    """The names the start of a text imports (`rank.imported_names`), as the set of
    `sets` that holds the same: most files import what others import."""
    from readmany.rank import SAMPLE_CHARS, imported_names

    extension = rel.rpartition(".")[2].lower()
    names = frozenset(imported_names(sample[:SAMPLE_CHARS], extension))
    return sets.setdefault(names, names)


# A block written again, the `index`-th, of the file at `position`: its text (None: it is
# no longer shown, or no longer fits the size it was planned with) and what was read.
Again = Callable[[int, int], "tuple[str | None, Any]"]


class SecondPass:
    """The files a plan shows, in output order, each as `again` writes it again, or as
    the plan cut it (`cut_block`); those the plan leaves out are named in `left_out`,
    those that no longer fit in `late`."""

    def __init__(self, packing: Packing, count: int) -> None:
        plan = packing.plan
        self.packing = packing
        self.count = count
        self.cut: Block | None = None  # the cut the plan chose, at `cut_position`
        self.cut_position = -1
        if plan.partial_index is not None and plan.partial is not None:
            self.cut, self.cut_position = plan.partial, plan.partial_index
        self.outlined = dict(plan.outlined)  # position: the outline's block, as planned
        self.left_out: list[int] = []
        self.late: list[int] = []
        self.written = 0  # blocks written

    def blocks(
        self,
        again: Again,
        cut_block: Callable[[int, int], tuple[str, Any]],
        outline_block: Callable[[int, int, Block], tuple[str, Any]],
    ) -> Iterator[tuple[int, int, str, Any]]:
        """Each block shown: its position, its index, its text and what was read (an
        outline's: `outline_block` frames it at its place from the block planned)."""
        full = self.packing.plan.full
        for position in range(self.count):
            index = self.written + 1
            if position in full:
                block, result = again(position, index)
                if block is None:
                    self.late.append(position)
                    continue
            elif position == self.cut_position:
                block, result = cut_block(position, index)
            elif position in self.outlined:
                block, result = outline_block(position, index, self.outlined[position])
            else:
                self.left_out.append(position)
                continue
            self.written = index
            yield position, index, block, result

    def omitted(self) -> list[int]:
        """The files left out by the plan or while writing, in output order."""
        return sorted({*self.packing.omitted, *self.late})
