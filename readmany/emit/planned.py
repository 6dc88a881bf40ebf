"""A planned `glob` run's second pass, written: each block the plan shows, in output
order, read again where its text was not kept (`read/again.py`), checked against the
size it was planned with (`pack/passes.py`: a file that grew since is left out and
named with the others), framed (`frame/planned.py`), written to the sink and reported;
then the closing notice, and what the plan left out in `details.packing`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from readmany.emit.report import LEFT_OUT
from readmany.frame import weigh
from readmany.frame.sectioncut import Cut
from readmany.frame.sections import OutlineBlock
from readmany.pack.passes import SecondPass, nothing_fits
from readmany.read.glob_file import AssetFile, TextFile, with_total

CHANGED = "changed while the parts were written, left out"  # a part's file that grew

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.emit.report import Report
    from readmany.emit.sink import Sink
    from readmany.frame.planned import PlannedFrames
    from readmany.pack.parts import Share
    from readmany.pack.passes import FirstPass
    from readmany.pack.plan import Entry, Packing
    from readmany.read.again import Texts


class PlannedWriter:
    """The second pass of a planned run: the files the plan shows read again (or as
    kept, `texts`), each checked against the size it was planned with (`first`), framed
    (`frames`), written to `sink` and reported to `report`; `count`: the exact tokenizer
    that fitted the plan, which says what a file that fits no budget takes."""

    def __init__(
        self,
        first: FirstPass,
        frames: PlannedFrames,
        texts: Texts,
        sink: Sink,
        report: Report,
        count: Callable[[str], int] | None = None,
    ) -> None:
        self.sink, self.report = sink, report
        self.first, self.frames, self.texts = first, frames, texts
        self.items, self.entries = first.items, first.entries
        self.tokens = frames.tokens
        self.count = count  # the exact tokenizer that fitted a budget of tokens, if one did

    def rendered(self, packing: Packing, start: str, end: str) -> str:
        """The text `write` would write for this plan, as stdout has it (what an exact
        tokenizer counts): see `_buffered`."""
        return self._buffered(lambda writer: writer.write(packing, start, end, _nowhere))

    def rendered_part(self, part: Sequence[Share], start: str, number: int) -> str:
        """The text `write_part` would write for part `number` (see `_buffered`)."""
        return self._buffered(lambda writer: writer.write_part(part, start, number, set()))

    def _buffered(self, write: Callable[[PlannedWriter], None]) -> str:
        """What `write` writes with a writer of its own: to a buffer, reported to no one,
        the texts kept for the second pass kept."""
        import io

        from readmany.emit.report import Report
        from readmany.emit.sink import Sink

        buffer = io.BytesIO()
        sink = Sink(buffer, json_mode=False, weigh=False)
        report = Report(self.report.root, keep_records=False, reference_reasons=False)
        self.texts.keeping = True
        try:
            write(PlannedWriter(self.first, self.frames, self.texts, sink, report))
        finally:
            self.texts.keeping = False
        sink.finish({})
        return buffer.getvalue().decode("utf-8", "replace")

    def write_part(self, part: Sequence[Share], start: str, number: int, counted: set[int]) -> None:
        """Write part `number` of `--parts`: `start` (its head), its blocks (a whole file
        read again, or a piece framed again at its place: xml numbers a part's documents
        from 1), its end; each file written added to `counted`."""
        framing, report, sink = self.frames.framing, self.report, self.sink
        index = 0
        for share in part:
            position = share.position
            item = self.items[position]
            prefix = start if index == 0 else framing.joint
            piece = share.piece
            if piece is not None:
                index += 1
                framed = framing.block(item.path, piece.head, index, note=piece.note)
                weighed = None
                if sink.weigh:  # as the plan weighed it: the frame and the lines apart
                    tokens = framing.tokens(item.path, piece.head, index, note=piece.note, cut=True)
                    weighed = weigh(prefix) + tokens
                size = sink.write(prefix + framed, weighed)
                lines = (piece.first, piece.last, piece.total)
                report.piece(item.path, size, sink.last_tokens, lines, number)
                counted.add(position)
                continue
            block, result = self.again(position, index + 1)
            if block is None:  # changed since it was measured: said, not written
                report.left_out([item.path])
                report.budget_notes.append(f"{item.path}: {CHANGED}")
                continue
            index += 1
            weighed = None
            if sink.weigh:
                weighed = weigh(prefix) + self.frames.block_tokens(position, result, index, None)
            size = sink.write(prefix + block, weighed)
            counted.add(position)
            if item.candidate is None:
                report.diff = self.frames.diff
            elif isinstance(result, TextFile):
                report.text(item.path, result, size, sink.last_tokens, part=number)
            elif isinstance(result, AssetFile):
                report.asset(item.path, result, size, sink.last_tokens, part=number)
        if index == 0:
            sink.write(start)
        sink.write(framing.end(True))

    def write(
        self, packing: Packing, start: str, end: str, not_shown: Callable[[str, Any], None]
    ) -> None:
        """Read the files shown again and write them, between `start` (the tree) and `end`
        (the closing notice); `not_shown` reports a file no longer shown (`--tree` alone)."""
        self._not_shown = not_shown
        sink, report, frames = self.sink, self.report, self.frames
        second = SecondPass(packing, len(self.items))
        cut = second.cut if isinstance(second.cut, Cut) else None
        blocks = second.blocks(self._again, self._cut(cut), self._outline)
        for position, index, block, result in blocks:
            prefix = start if index == 1 else frames.framing.joint
            item = self.items[position]
            weighed = None
            if sink.weigh and isinstance(result, OutlineBlock):
                framing = frames.framing
                outline = framing.outline_tokens(item.path, result.body, index, result.note)
                weighed = weigh(prefix) + outline
            elif sink.weigh:
                at = cut if position == second.cut_position else None
                weighed = weigh(prefix) + frames.block_tokens(position, result, index, at)
            size = sink.write(prefix + block, weighed)
            tokens = sink.last_tokens
            if isinstance(result, OutlineBlock):
                report.outlined(item.path, result, size, tokens)
            elif item.candidate is None:
                report.diff = frames.diff
            elif isinstance(result, TextFile):
                if position == second.cut_position and cut is not None:
                    report.cut(item.path, result, size, tokens, cut.shown)
                else:
                    report.text(item.path, result, size, tokens)
            elif isinstance(result, AssetFile):
                report.asset(item.path, result, size, tokens)
        report.left_out([self.items[position].path for position in second.left_out])
        if not self.entries:  # --tree alone
            sink.write(end)
            return
        late = second.late
        report.left_out([self.items[position].path for position in late])
        omitted = second.omitted()
        if late:  # the closing notice again, with the files left out while writing
            note = self.first.left_out_note(omitted, frames)
            end = frames.framing.end(bool(second.written), note)
        sink.write(end)
        if omitted:
            kinds = self.first.by_value.kind_words(self.items, omitted)
            tree = self.frames.trees.drawn
            line = frames.left_out().line(omitted, len(self.entries), kinds, tree=tree)
            report.budget_notes.append(f"{LEFT_OUT} {line}")
        report.details["packing"] = self.first.details(packing, late)
        if self.frames.trees.drawn and second.written:  # --tree: what it lists, marked
            marks = self.frames.trees.marks(packing.omitted, packing.plan.partial_index)
            files = [item for item in self.items if item.candidate is not None]
            report.details["tree"] = {
                "paths": [item.path for item in files],
                "marks": {item.path: marks[item.rel] for item in files if item.rel in marks},
            }
        if self.entries and not second.written and not report.any_shown:
            report.problems.append(
                nothing_fits(
                    self.first,
                    lambda e: frames.newlines(e.position, e.block.lines, e.cut_head is not None),
                    lambda e: frames.weighed(e.position, self._again),
                    self._counted if self.count is not None else None,
                )
            )

    def _counted(self, entry: Entry) -> int | None:
        """The tokens of the block of `entry`, framed first, counted by `count`, where
        that count refused it; None where the estimate did (`tokenizer.fit` plans for at
        most `tokenizer.MOST` times the budget, so it never counted a block estimated
        past that; nor is a long file read whole to be counted), or where it can no
        longer be framed as it was measured."""
        from readmany.tokenizer import MOST

        budget = self.first.budget
        assert self.count is not None and budget is not None and budget.max_tokens
        if entry.block.tokens > MOST * budget.max_tokens:
            return None
        block, _ = self._again(entry.position, 1)
        return None if block is None else self.count(block)

    def _cut(self, cut: Cut | None) -> Callable[[int, int], tuple[str, TextFile | None]]:
        """The block of the file the plan cut so, and its text as read."""

        def cut_block(position: int, index: int) -> tuple[str, TextFile | None]:
            assert cut is not None
            held = self.texts.text_of(position)
            block = self.frames.cut_block(position, cut, index)
            return block, with_total(held) if held is not None else None

        return cut_block

    def again(self, position: int, index: int) -> tuple[str | None, Any]:
        """The block of the file at `position` written again, the `index`-th (`_again`):
        what `--parts` writes a whole file with."""
        return self._again(position, index)

    def _outline(self, position: int, index: int, planned: Any) -> tuple[str, OutlineBlock]:
        """The block of a file shown as its outline, framed at its place (`index`)."""
        assert isinstance(planned, OutlineBlock)
        path = self.items[position].path
        return self.frames.framing.outline_block(path, planned.body, index, planned.note), planned

    def _again(self, position: int, index: int) -> tuple[str | None, Any]:
        """The block of a file read again; None if it is no longer shown, or (with a
        budget) no longer fits the size it was planned with."""
        item = self.items[position]
        if item.candidate is None:
            return self.frames.diff_block(index), None
        result, kept = self.texts.again(position)
        if not isinstance(result, (TextFile, AssetFile)):
            if not self.entries and result is not None:  # --tree alone: no budget to name
                self._not_shown(item.path, result)
            return None, None
        block = self.frames.written(item, result, index)
        if not self.entries:
            return block, result
        tokens = None
        if self.tokens and not kept and isinstance(result, TextFile):
            text = result.text
            tokens = lambda: self.frames.text_tokens(item, text, index)  # noqa: E731
        return (None, None) if self.first.outgrew(position, block, tokens) else (block, result)


def _nowhere(path: str, result: Any) -> None:
    """A file no longer shown, in a render: reported to no one."""
