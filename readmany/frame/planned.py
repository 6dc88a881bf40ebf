"""The frames of a planned `glob` run: each block measured as it would be written in the
first pass (its text then dropped), the cut offered to the plan (`sectioncut`), what is
written between and around the blocks (the tree: with a budget, of the whole selection,
what is not shown whole marked; the closing notice naming those left out), and each
block weighed as the sink weighs what it writes.

It is the run's side that frames: what the plan is given to weigh blocks and ends by,
and what the second pass writes with. The texts come from `read.again.Texts`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from readmany.frame import weigh
from readmany.frame.formats import GlobFraming, framing_for
from readmany.frame.formats import measured as size_of
from readmany.frame.leftout import LeftOutNames, left_out_note
from readmany.frame.sectioncut import LEAST_NOTE, Cut, SectionCutter
from readmany.frame.sections import (
    OutlineBlock,
    diff_block,
    diff_label,
    diff_tokens,
    outline_block,
    text_block,
    text_block_measure,
    text_block_tokens,
)
from readmany.read.glob_file import AssetFile, TextFile, whole_cost
from readmany.select.candidates import shown_path
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from readmany.merges import MergedCount
    from readmany.read.again import Texts
    from readmany.read.text import TextRead
    from readmany.select.candidates import Item

    class Limits(Protocol):
        """A budget as planned (`pack.plan.Budget`), as the tree weighs it."""

        @property
        def max_bytes(self) -> int: ...

        @property
        def max_tokens(self) -> float: ...


TREE_LEFT_OUT_SHARE = 20  # the tree names files left out in at most 5% of the budget


class PlannedFrames:
    """The framing of one planned run over its `items` (the first pass's, shared), with
    their texts from `texts`. `lines`, `tokens`: the budget counts lines, tokens (only
    then are a block's newlines counted, its tokens estimated: 0 without)."""

    counted = False  # no tokenizer counts the budget: a cut's head is counted by its pieces

    def __init__(
        self,
        form: str,
        *,
        line_numbers: bool,
        guard: bool,
        staged: bool,
        changed: str | None,
        with_diff: bool,
        root: str,
        absolute: bool,
        tree: bool,
        lines: bool,
        tokens: bool,
        items: Sequence[Item],
        texts: Texts,
        slack: int,
    ) -> None:
        self.label = diff_label(staged, changed)  # the diff's header
        self.framing = framing_for(
            form,
            line_numbers=line_numbers,
            reserved=self.label if with_diff else None,
            guard=guard,
        )
        # `text_size` of a start held is exact: no numbers, fence or escapes add to it.
        self.held_exactly = form == "text" and not line_numbers
        self._root, self._absolute = root, absolute
        self.lines = lines
        self.tokens = tokens
        self.slack = slack  # what `pack` guesses a frame takes
        self.items = items
        self.texts = texts
        self.diff: str | None = None  # the diff of --with-diff, once checked
        self._least_frame: int | None = None
        self.closely = CloseWeights(texts, self.framing, items, tokens=tokens)
        self._left_out: LeftOutNames | None = None  # the names of the files left out
        self.trees = PlannedTree(items, root if absolute else ".", tree=tree, tokens=tokens)

    @property
    def root(self) -> str:
        return self._root

    def named(self, position: int) -> tuple[str, str]:
        """The file at `position`: its path from the root, and as it is shown."""
        item = self.items[position]
        return item.rel, item.path

    def text_of(self, position: int) -> TextFile | None:
        return self.texts.text_of(position)

    # -- the first pass: blocks measured --

    def text_size(self, item: Item, result: TextFile, index: int) -> tuple[int, int, float]:
        """Bytes, newlines and estimated tokens of a text's block, the `index`-th, weighed
        as read; of a text whose start alone is held, the frame and all of the text (its
        size exactly where `held_exactly`, else at least)."""
        text = result.text
        size, lines, tokens = text_block_measure(
            self.framing,
            self._root,
            item.rel,
            item.path,
            text if result.whole is None else text._replace(body=""),
            index,
            lines=self.lines,
            tokens=self.tokens,
            weight_of_text=result.weight if result.whole is None else 0.0,
        )
        if result.whole is not None:  # only its start held: the frame and all
            whole_bytes, whole_newlines, whole_tokens = whole_cost(result)
            size += whole_bytes
            lines += whole_newlines if self.lines else 0
            tokens += whole_tokens if self.tokens else 0.0
        return size, lines, tokens

    def asset_size(self, path: str, result: AssetFile, index: int) -> tuple[int, int, float]:
        block = self.framing.data_url(path, result.mime_type, result.data, index)
        tokens = 0.0
        if self.tokens:
            tokens = self.framing.data_url_tokens(path, result.mime_type, result.data, index)
        return (*size_of(block), tokens)

    def diff_size(self, index: int) -> tuple[int, int, float]:
        assert self.diff is not None
        block = diff_block(self.framing, self.label, self.diff, index)
        tokens = diff_tokens(self.framing, self.label, self.diff, index) if self.tokens else 0.0
        return (*size_of(block), tokens)

    def block(
        self, item: Item, position: int, size: tuple[int, int, float], body: str, cuttable: bool
    ) -> tuple[SectionCutter, int]:
        """The block the plan weighs (bytes, newlines, estimated tokens; not its text),
        and what a cut of it takes at least (0: it is not cut)."""
        first_end = body.find("\n")
        first = body[: first_end + 1] if first_end >= 0 else body
        first_bytes = utf8_len(first)
        block = SectionCutter(self, position, size[0], size[1], first_bytes, size[2])
        if self.tokens and cuttable and size[0]:
            # About its first line's tokens, at the block's tokens a byte: only a bound that
            # spares reading a file again for a cut that cannot fit.
            block.first_tokens = size[2] * first_bytes / size[0]
        # What a cut takes at least, known without framing: the frame of no line for
        # an empty path, this path (shown whole, or longer when quoted) and a line.
        least = self.least_frame() + utf8_len(item.path) + block.first_line if cuttable else 0
        return block, least

    def least_frame(self) -> int:
        """Bytes every cut's block takes at least: the frame of no line, with the shortest
        notice, for an empty path (a path and a larger index only make it longer)."""
        if self._least_frame is None:
            self._least_frame = utf8_len(self.framing.block("", "", 1, note=LEAST_NOTE))
        return self._least_frame

    def least_frame_tokens(self) -> float:
        """`least_frame` in tokens (0 without a budget of tokens)."""
        return weigh(self.framing.block("", "", 1, note=LEAST_NOTE)) if self.tokens else 0.0

    # -- what is around the blocks --

    def joint(self) -> tuple[int, int, float]:
        """What is between two blocks: bytes, lines and (with a budget of tokens) tokens."""
        joint = self.framing.joint
        return (*size_of(joint), weigh(joint) if self.tokens else 0.0)

    def ends_tokens(self, start: str, end: str) -> float:
        """The tokens of the start, the end and the newline after the content (0 without
        a budget of tokens), each weighed as the sink weighs what it writes."""
        return weigh(start) + weigh(end) + weigh("\n") if self.tokens else 0.0

    def ends(
        self,
        shown: Sequence[Item],
        note: str,
        plan: tuple[Sequence[int], int | None, Sequence[int]] | None = None,
        limits: Limits | None = None,
    ) -> tuple[str, str]:
        """The tree and the closing `note` around `shown`; marked by a budget's `plan`."""
        if not shown:
            return "", self.framing.end(False, note)
        tree = self.trees.tree(shown) if plan is None else self.trees.marked(*plan, limits)
        return self.framing.start(tree), self.framing.end(True, note)

    def new_plan(self) -> None:  # a plan made anew: its trees may name those left out
        self.trees.folded = False

    def left_out_note(
        self,
        omitted: Sequence[int],
        total: int,
        options: Sequence[str],
        *,
        max_bytes: int,
        max_tokens: float,
    ) -> str:
        """The closing notice: what the budget left out, and the budget that holds all."""
        return left_out_note(
            self.left_out().names(omitted),
            len(omitted),
            total,
            options,
            max_bytes=max_bytes,
            max_tokens=max_tokens,
            tokens=self.tokens,
        )

    def left_out(self) -> LeftOutNames:
        """The files left out as the closing notice and stderr name them."""
        if self._left_out is None:
            root, absolute = self._root, self._absolute
            self._left_out = LeftOutNames(
                [item.rel if item.candidate is not None else None for item in self.items],
                [item.path for item in self.items],
                lambda rel: shown_path(root, rel, absolute),
            )
        return self._left_out

    # -- the second pass: blocks written and weighed --

    def text_block(self, item: Item, text: TextRead, index: int) -> str:
        return text_block(self.framing, self._root, item.rel, item.path, text, index)

    def written(self, item: Item, result: TextFile | AssetFile, index: int) -> str:
        """The block of a file read again, the `index`-th, as the second pass writes it."""
        if isinstance(result, TextFile):
            return self.text_block(item, result.text, index)
        return self.framing.data_url(item.path, result.mime_type, result.data, index)

    def diff_block(self, index: int) -> str:
        assert self.diff is not None
        return diff_block(self.framing, self.label, self.diff, index)

    def cut_block(self, position: int, cut: Cut, index: int) -> str:
        return self.framing.block(self.items[position].path, cut.head, index, note=cut.note)

    def block_tokens(self, position: int, result: object, index: int, cut: Cut | None) -> float:
        """The estimated tokens of the block written at `position`, the `index`-th;
        `cut`: the plan cut it so."""
        item = self.items[position]
        if item.candidate is None:
            assert self.diff is not None
            return diff_tokens(self.framing, self.label, self.diff, index)
        if isinstance(result, AssetFile):
            mime, data = result.mime_type, result.data
            return self.framing.data_url_tokens(item.path, mime, data, index)
        if cut is not None:
            return self.framing.tokens(item.path, cut.head, index, note=cut.note, cut=True)
        assert isinstance(result, TextFile)
        return self.text_tokens(item, result.text, index) + self.closely.moved.get(position, 0.0)

    def text_tokens(self, item: Item, text: TextRead, index: int, known: float = -1.0) -> float:
        """The estimated tokens of a text file's block (`sections.text_block_tokens`); `known`,
        its text's own if they were weighed as it was read."""
        return text_block_tokens(self.framing, self._root, item.rel, item.path, text, index, known)

    def weighed(self, position: int, again: Callable[[int, int], tuple[str | None, Any]]) -> float:
        """The estimated tokens of the block at `position`, weighed now (no budget of
        tokens weighed it in the first pass); `again` writes an asset's block again."""
        item = self.items[position]
        if item.candidate is None:
            return self.block_tokens(position, None, position + 1, None)
        text = self.texts.text_of(position)
        if text is None:  # an asset: its block is read again to be weighed
            block, _ = again(position, position + 1)
            return weigh(block or "")
        if text.whole is not None:  # only its start held: the frame, and all of the text
            frame = self.text_tokens(item, text.text._replace(body=""), position + 1, 0.0)
            return frame + whole_cost(text)[2]
        return self.text_tokens(item, text.text, position + 1)

    def newlines(self, position: int, counted: int, cuttable: bool) -> int:
        """The newlines of the block at `position`: `counted` by the first pass (with a
        budget of lines, or of a block not cut), else counted now."""
        if self.lines or not cuttable:
            return counted
        text = self.texts.text_of(position)
        if text is None:
            return counted
        held = text.text if text.whole is None else text.text._replace(body="")
        block = self.text_block(self.items[position], held, position + 1)
        return block.count("\n") + (text.whole.newlines if text.whole is not None else 0)


class CloseWeights:
    """Blocks weighed on all of their text (a budget of tokens, `pack.bounded`, does so
    for those that take much of it), rather than the first pass's 512 bytes, which
    misjudge a large file by 14% or more one time in five. A block is counted as it is
    written (by `framing`: framed, numbered with `-n`, escaped in xml) by its pieces and
    their merges (`merges.count`: the real count, a little more past its allowance of
    merges), and bounded by that count (`counted`); a text that cannot be counted so
    is weighed on up to `tokens.SAMPLE_BYTES` of it, 8 windows of 1 KiB (off by 14% or
    more one time in ten). `moved`: by position, how far each estimate moved, which the
    second pass adds to its weighing too."""

    def __init__(
        self, texts: Texts, framing: GlobFraming, items: Sequence[Item], *, tokens: bool
    ) -> None:
        self._texts = texts
        self._framing, self._items = framing, items
        self._tokens = tokens
        self.moved: dict[int, float] = {}
        self.counted: dict[int, MergedCount] = {}  # by position, the blocks counted

    def __call__(self, block: object, most: int | None = None) -> bool:
        """Weigh again the text of `block` (a `SectionCutter`) and move its estimate;
        whether it was (not a text held whole: it stays as it was). `most`: the budget's
        tokens, past which a long text is not counted on (`merges.count`)."""
        if not isinstance(block, SectionCutter) or not self._tokens:
            return False
        text = self._texts.whole(block.position)
        if text is None:
            return False
        from readmany.merges import count as count_merged

        body = text.text.body
        position = block.position
        written = self._framing.block(self._items[position].path, body, position + 1)
        counted = count_merged(written, most)  # the whole block: its frame too
        moved = counted.tokens - block.tokens
        self.counted[position] = counted
        block.tokens += moved
        self.moved[block.position] = moved
        return True


class PlannedTree:
    """The tree `--tree` draws of a planned run's `items` under `root`: without a budget,
    of the files shown; with one, of the whole selection, each file a plan does not show
    whole marked (`frame.tree`)."""

    def __init__(self, items: Sequence[Item], root: str, *, tree: bool, tokens: bool) -> None:
        self.items, self.root = items, root
        self.drawn = tree
        self.tokens = tokens
        self.folded = False  # the trees of this plan fold the files left out

    def tree(
        self, items: Sequence[Item], marks: dict[str, str] | None = None, *, fold: bool = False
    ) -> str | None:
        """The tree of `items` (None without `--tree`), each path's mark after it; `fold`:
        the files left out of a directory as one line."""
        if not self.drawn:
            return None
        from readmany.frame.tree import render_tree

        files = [item.rel for item in items if item.candidate is not None]
        return render_tree(files, self.root, marks, fold=fold)

    def marks(
        self, omitted: Sequence[int], cut: int | None, outlined: Sequence[int] = ()
    ) -> dict[str, str]:
        """The mark of each file a plan does not show whole, by its path from the root."""
        from readmany.frame.tree import CUT, OMITTED, OUTLINE

        items = self.items
        marks = {items[i].rel: OMITTED for i in omitted if items[i].candidate is not None}
        marks.update({items[i].rel: OUTLINE for i in outlined if items[i].candidate is not None})
        if cut is not None and items[cut].candidate is not None:
            marks[items[cut].rel] = CUT
        return marks

    def marked(
        self,
        omitted: Sequence[int],
        cut: int | None,
        outlined: Sequence[int],
        limits: Limits | None,
    ) -> str | None:
        """The tree of the whole selection for a plan, its files not shown whole marked:
        each file left out named while that takes at most `TREE_LEFT_OUT_SHARE` of the
        budget (`limits`, as planned), else a directory's files left out as one line
        (None without `--tree`)."""
        if not self.drawn:
            return None
        marks = self.marks(omitted, cut, outlined)
        if not omitted or limits is None:
            return self.tree(self.items, marks) or ""
        folded = self.tree(self.items, marks, fold=True) or ""
        if self.folded:
            return folded
        tree = self.tree(self.items, marks) or ""
        extra_bytes = utf8_len(tree) - utf8_len(folded)
        # Once folded, the trees of the attempts at one plan stay folded: each attempt
        # keeps more room, and a tree that grew again would undo that.
        self.folded = extra_bytes * TREE_LEFT_OUT_SHARE > limits.max_bytes or (
            self.tokens and (weigh(tree) - weigh(folded)) * TREE_LEFT_OUT_SHARE > limits.max_tokens
        )
        return folded if self.folded else tree


class Outlines:
    """The outlines a plan may show of the files it does not take whole: a file's text
    read again whole (`texts`), outlined (`read.outline`) and framed (`frames`) on first
    ask, at the most its place can be (`position + 1`: xml numbers it), and kept for the
    plans made again and for the second pass."""

    def __init__(self, frames: PlannedFrames, texts: Texts) -> None:
        self._frames = frames
        self._texts = texts
        self._made: dict[int, OutlineBlock | None] = {}
        self._least: tuple[int, float] | None = None

    def __call__(self, position: int) -> OutlineBlock | None:
        """The block of the file at `position` shown as its outline; None if it has none."""
        if position in self._made:
            return self._made[position]
        from readmany.read.outline import outline

        frames = self._frames
        item = frames.items[position]
        block = None
        text = self._texts.whole(position)
        if text is not None:
            shown = outline(item.rel, text.text.body)
            if shown is not None:
                block = outline_block(
                    frames.framing,
                    frames.root,
                    item.rel,
                    item.path,
                    shown,
                    position + 1,
                    file=(text.kind, text.size),
                    lines=frames.lines,
                    tokens=frames.tokens,
                )
        self._made[position] = block
        return block

    def least(self) -> tuple[int, float]:
        """Bytes and tokens (0 without a budget of tokens) every outline's block takes at
        least: the frame of one short entry, with the note, for an empty path."""
        if self._least is None:
            from readmany.frame.notices import outline_only

            framing = self._frames.framing
            least = framing.outline_block("", "1  x\n", 1, outline_only(1, ""))
            self._least = (utf8_len(least), weigh(least) if self._frames.tokens else 0.0)
        return self._least
