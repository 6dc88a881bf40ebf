"""`readmany glob` with a budget, `--tree` or `--stats`: measure every file, then write.

Without these, `glob` streams (`commands.glob.run_glob`). A budget and `--tree` need every
file known before the first one is written, so the run makes two passes over the
selection, wired here: the first reads each file as the streaming run does (same checks,
same reports) and keeps what the plan needs of it (`pack/passes.py`: its place and the
size of its block, measured by `frame/planned.py`; its text while it fits, by
`read/again.py`); the second writes the files the plan shows, read again where their text
was not kept. With `--outline`, a file the plan does not take whole is offered as its
outline (`frame.planned.Outlines`: read again whole, outlined, framed once). `--tree`
alone needs no sizes: its first pass only finds which files are
shown, by their name and first bytes (the text too where `--secrets` or a credentials file
needs it). `--stats` writes, instead of the files, a tree of what each costs
(`emit.stats`), from the bytes, not decoded; with a budget, what the plan leaves out or
cuts is marked.
"""

from __future__ import annotations

import contextlib

from readmany.choices import Tokenizer
from readmany.commands import glob_report
from readmany.commands.glob_files import shown_files
from readmany.commands.glob_request import candidate_reader, held_chars, open_selection
from readmany.emit.outcome import Outcome
from readmany.emit.planned import PlannedWriter
from readmany.emit.sink import Sink
from readmany.frame.planned import Outlines, PlannedFrames
from readmany.frame.sectioncut import Cut
from readmany.limits import OUTLINE_MAX_BYTES
from readmany.pack import PARTIAL_BYTE_SLACK, Entry, Packing
from readmany.pack.bounded import bounded
from readmany.pack.budget import BudgetAsked
from readmany.pack.passes import FirstPass
from readmany.read.again import (
    ReadAgain,
    Texts,
    first_look,
    keep_bytes,
    stored_cost,
    unmeasured,
)
from readmany.read.glob_file import (
    AssetFile,
    Failed,
    MeasuredFile,
    Skipped,
    TextFile,
)
from readmany.request.glob import GlobRequest
from readmany.select.candidates import Candidate, Item
from readmany.select.lookahead import Selection

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.emit.stats import StatsTree
    from readmany.read.glob_file import MatchedRead
    from readmany.read.measure import Cost


def budget_of(request: GlobRequest) -> BudgetAsked | None:
    if not request.budgeted:
        return None
    return BudgetAsked(request.max_bytes, request.max_lines, request.max_tokens)


class _Run:
    """One planned run: the stages wired for the first pass (`FirstPass`, with the
    frames that measure and the texts kept), the plan, and the second pass."""

    def __init__(self, request: GlobRequest, sink: Sink, selection: Selection) -> None:
        self.request = request
        self.sink = sink
        self.report = report = glob_report(
            request, selection.root, json_mode=sink.json_mode, reference_reasons=False
        )
        budget = budget_of(request)
        # Newlines are counted only for a budget of lines (counting them costs more than
        # framing a block): without one, a block's `lines` is 0. Tokens are estimated only
        # for a budget of tokens: without one, a block's `tokens` is 0.
        self.lines = request.max_lines is not None
        self.tokens = request.max_tokens is not None
        self.first = FirstPass(
            budget,
            order=request.order,
            patterns=request.patterns,
            prefer=request.prefer,
            lines=self.lines,
            tokens=self.tokens,
        )
        self.reader = candidate_reader(request)
        self.source = ReadAgain(selection if request.staged else None, self.reader)
        kept = 0
        if budget is not None and not request.stats:  # --stats writes no text
            kept = keep_bytes(budget.limits.max_bytes, budget.limits.max_tokens)
        # Of a long text, the first pass holds only what a cut can show (`held_text`).
        self._hold = held_chars(request, self.reader.limits)
        self.texts = Texts(
            self.source,
            self.first.items,
            keep_bytes=kept,
            hold=self._hold,
            secrets=request.secrets,
        )
        self.frames = PlannedFrames(
            request.format,
            line_numbers=request.line_numbers,
            guard=request.face.guard_sections,
            staged=request.staged,
            changed=request.changed,
            with_diff=request.with_diff,
            root=report.root,
            absolute=request.absolute,
            tree=request.tree,
            lines=self.lines,
            tokens=self.tokens,
            items=self.first.items,
            texts=self.texts,
            slack=PARTIAL_BYTE_SLACK,
        )
        self.frames.counted = self.tokens and request.tokenizer is Tokenizer.ESTIMATE
        self.costs: StatsTree | None = None  # with `stats`: the tree, made as files come
        # --outline: a text file left out may be shown as its outline, made on first ask.
        self.outlines: Outlines | None = None
        if request.outline and budget is not None:
            self.outlines = Outlines(self.frames, self.texts)

    @property
    def items(self) -> list[Item]:
        return self.first.items

    @property
    def entries(self) -> list[Entry]:
        return self.first.entries

    # -- pass 1 --

    def gather(self, selection: Selection, *, sizes: bool, stats: bool) -> None:
        """Read the selection once and report what is not shown; of what is, keep
        - with `sizes` (a budget), its block framed and measured (`items`, `entries`);
        - with `stats`, what it costs as stored (`costs`), from its bytes, not decoded;
        - with neither (`--tree` alone), that it is shown (`items`), seen by its name and
          first bytes where its text cannot change that."""
        request, report = self.request, self.report
        tree = not sizes and not stats
        measure = None
        if stats or tree:
            from readmany.emit.stats import StatsTree
            from readmany.read.measure import measure_for_stats

            measure = measure_for_stats if stats else unmeasured
            if stats:
                self.costs = StatsTree()
        attachments = self.sink.json_mode
        add_cost = self.costs.add if self.costs is not None else None
        add_read = report.tally.add_read
        # The first pass reads a file's text where it must: to know whether it is shown
        # (a credentials file), or to report what it holds (`--secrets`).
        look_at = first_look(
            self.reader,
            measure,
            staged=request.staged,
            sizes=sizes,
            every_text=request.secrets != "off",
            attachments=attachments,
        )

        def look(
            ordinal: int, event: Candidate, path: str, done: MatchedRead | MeasuredFile | None
        ) -> tuple[bool, MeasuredFile | None, MatchedRead | None]:
            enough, cost, done = look_at(event, path, done)
            if isinstance(cost, (Skipped, Failed)):
                self._not_shown(path, cost)
            elif enough and cost is not None:
                if add_cost is not None:  # `_cost`, for thousands of files
                    add_cost(event.rel, cost.bytes, cost.lines, cost.tokens)
                    add_read(path, 0)
                else:
                    self.first.shown(Item(ordinal, event, event.rel, path))
            else:
                return False, cost, done
            return True, None, None

        shown = shown_files(
            selection,
            report,
            self.reader,
            secrets=request.secrets,
            absolute=request.absolute,
            sink=self.sink,
            look=look,
            hold=self._hold if sizes else None,
        )
        frames = self.frames
        for ordinal, event, path, result, cost in shown:
            item = Item(ordinal, event, event.rel, path)
            if stats:
                self._cost(item, cost or self._stored_cost(event, path, result))
            if isinstance(result, TextFile):
                if sizes:
                    position = len(self.entries)
                    size = frames.text_size(item, result, position + 1)
                    # Of a start held, a size only at least: as it is where even that
                    # is past the budget (no cut shows more than is held), else read
                    # again whole and measured exactly.
                    held = result.whole is not None and not frames.held_exactly
                    if held and not self.first.past(size):
                        result = self.texts.read_whole(position, item, result)
                        size = frames.text_size(item, result, position + 1)
                    if result.whole is None:
                        self.texts.keep(position, result, size[0])
                    self._add(item, size, result.text.body, cuttable=True)
                elif tree:
                    self.first.shown(item)
            elif attachments:  # an attachment, not content: no part of the budget
                report.attach(path, result)
            elif sizes:
                self._add(item, frames.asset_size(path, result, len(self.entries) + 1), "", False)
            elif tree:
                self.first.shown(item)
        frames.diff = (
            None if stats else report.checked_diff(selection.diff, request.secrets, frames.label)
        )
        if frames.diff is not None:
            item = Item(-1, None, frames.label, frames.label)
            if sizes:
                self._add(item, frames.diff_size(len(self.entries) + 1), frames.diff, False)
            else:
                self.first.shown(item)

    def _add(self, item: Item, size: tuple[int, int, float], body: str, cuttable: bool) -> None:
        """Keep the size of a block (bytes, newlines, estimated tokens), not its text."""
        position = len(self.entries)
        block, least = self.frames.block(item, position, size, body, cuttable)
        sample = body if cuttable else None
        # The outline of the file at a position, shared: a file holds nothing for it.
        outline = self.outlines if cuttable and size[0] <= OUTLINE_MAX_BYTES else None
        self.first.add(
            item,
            block,
            cut=block if cuttable else None,
            least=least,
            sample=sample,
            outline=outline,
        )

    def _cost(self, item: Item, cost: Cost) -> None:
        assert self.costs is not None
        self.costs.add(item.rel, cost.bytes, cost.lines, cost.tokens)
        self.report.tally.add_read(item.path, 0)

    def _stored_cost(self, event: Candidate, path: str, result: TextFile | AssetFile) -> Cost:
        return stored_cost(self.reader, event, path, result, staged=self.request.staged)

    def _not_shown(self, path: str, result: Skipped | Failed) -> None:
        if isinstance(result, Skipped):
            self.report.skip(path, result.reason, result.category)
        else:
            self.report.read_failed(path, result)

    # -- the plan --

    def plan(self, planned: int | None = None) -> tuple[Packing, str, str]:
        """The packing, and the start (tree) and end (closing notice) written around it;
        a budget of tokens planned for `planned` estimated tokens (by default, the most
        whose bound of the real count is within it: `pack.bounded`)."""
        least = self.outlines.least() if self.outlines is not None else (0, 0.0)
        if planned is None and self.request.max_tokens:
            return bounded(self.first, self.frames, self.request.max_tokens, least)
        return self.first.plan(self.frames, planned, least_outline=least)

    def fitted(self, budget: BudgetAsked) -> tuple[Packing, str, str]:
        """The plan whose output, counted by `--tokenizer`, fills the budget of tokens
        without going over (`tokenizer.fit`): planned with the estimate, rendered and
        counted, planned again for more or fewer estimated tokens."""
        from readmany.tokenizer import counter, fit

        assert budget.max_tokens is not None
        plans: dict[int, tuple[Packing, str, str]] = {}
        last: list[Packing] = []

        def render(planned: int) -> str:
            plans[planned] = planned_run = self.plan(planned)
            last[:] = [planned_run[0]]
            writer = PlannedWriter(self.first, self.frames, self.texts, self.sink, self.report)
            return writer.rendered(*planned_run)

        def complete() -> bool:  # every file shown whole: a larger plan shows no more
            plan = last[0].plan
            return not last[0].omitted and plan.partial_index is None and not plan.outlined

        count = counter(self.request.tokenizer)
        done = fit(render, budget.max_tokens, count, complete=complete)
        self.first.limits = self.first.limits and self.first.limits._replace(
            max_tokens=done.planned
        )
        self.report.details["tokenizer"] = {
            "name": self.request.tokenizer,
            "tokens": done.real,
            "budget": budget.max_tokens,
            "planned": done.planned,
            "renders": done.passes,
        }
        return plans[done.planned]

    # -- pass 2 --

    def write(self, packing: Packing, start: str, end: str) -> None:
        """Read the files shown again and write them, with the tree and the notice."""
        count = None
        if self.tokens and self.request.tokenizer is not Tokenizer.ESTIMATE:
            from readmany.tokenizer import counter

            count = counter(self.request.tokenizer)
        second = PlannedWriter(self.first, self.frames, self.texts, self.sink, self.report, count)
        second.write(packing, start, end, self._not_shown)


# --- the runs ---------------------------------------------------------------------------


def run_planned(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """`glob` with a budget or `--tree`: measure, plan, write."""
    with selection or open_selection(request) as selection:
        run = _Run(request, sink, selection)
        report = run.report
        with run.reader, contextlib.closing(run.source):
            budget = budget_of(request)
            run.gather(selection, sizes=budget is not None, stats=False)
            if (
                budget is not None
                and budget.max_tokens
                and request.tokenizer is not Tokenizer.ESTIMATE
            ):
                packing, start, end = run.fitted(budget)
            else:
                packing, start, end = run.plan()
                limits = run.first.limits
                if budget is not None and budget.max_tokens and limits is not None:
                    report.details["tokenizer"] = {
                        "name": "estimate",
                        "budget": budget.max_tokens,
                        "planned": int(limits.max_tokens),
                    }
            run.write(packing, start, end)
    if not run.items and not report.any_shown:
        report.nothing_read_from(request.staged, request.changed)
    return report.outcome(sink.bytes_written, sink.tokens)


def _stats_advice(run: _Run, packing: Packing) -> list[str]:
    """What `--stats` with a budget says on stderr, as the dump would: the lines the cut
    file would show, and the budget that shows every file whole."""
    said = []
    partial = packing.plan.partial
    if packing.plan.partial_index is not None and isinstance(partial, Cut):
        path = run.items[packing.plan.partial_index].path
        said.append(f"{path}: its first {partial.shown} lines would be shown, cut by the budget")
    options = run.first.options_to_hold(run.frames) if packing.omitted or partial else []
    if options:
        said.append(f"all {len(run.entries)} files whole take {' '.join(options)}")
    return said


def run_stats(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """`glob --stats`: the tree of what each file costs, marked by the budget if one is given."""
    from readmany.emit.stats import stats_json, stats_pieces, stats_text

    budget = budget_of(request)
    with selection or open_selection(request) as selection:
        run = _Run(request, sink, selection)
        report = run.report
        with run.reader, contextlib.closing(run.source):
            run.gather(selection, sizes=budget is not None, stats=True)
            omitted: set[str] = set()
            cut = None
            if budget is not None:
                packing, _start, _end = run.plan()
                omitted = {run.items[i].rel for i in packing.omitted}
                if packing.plan.partial_index is not None:
                    cut = run.items[packing.plan.partial_index].rel
                report.details["packing"] = packing.as_json(run.entries)
                if run.first.by_value.ranking is not None:
                    reasons = run.first.by_value.reasons(run.items, packing.omitted)
                    report.details["packing"]["omittedReasons"] = reasons
                report.advice.extend(_stats_advice(run, packing))
    assert run.costs is not None
    root = run.costs.finish(omitted, cut)
    if root.files and sink.weigh:  # nothing read: nothing on stdout, as every run writes it
        sink.write(stats_text(root).removesuffix("\n"))  # weighed whole
    elif root.files:  # a piece of rows at a time, each written alone: never held whole
        for piece in stats_pieces(root):
            sink.write(piece)
    if sink.json_mode:
        report.details["stats"] = stats_json(root)
    if not root.files:
        report.nothing_read_from(request.staged, request.changed)
    return report.outcome(sink.bytes_written, sink.tokens)
