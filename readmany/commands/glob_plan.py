"""`readmany glob` with a budget, `--tree` or `--stats`: measure every file, then write.

Without these, `glob` streams (`commands.glob.run_glob`). A budget (`--max-bytes`,
`--max-lines`, `--max-tokens`) and `--tree` need every file known before the first one is
written, so the run has two passes over the selection:

1. Each file is read as the streaming run reads it (same checks, same reports), framed
   as it would be written, and measured; its text is then dropped. What stays per file is
   its candidate, its place and the size of its block: memory grows with the number of
   files, as a list of paths would, not with their text.
2. The planner (`pack.pack_blocks`, the one `many` uses) chooses: files in output order
   while they fit, or smallest first where that shows more of them whole, output order
   kept; at most one file cut to fill the rest. The files shown are read again and written,
   the tree of them first; a closing notice names the files left out. The tree and the
   notice are output too: the plan is made again with room kept for them until they fit.

The texts of the first pass are kept for the second while they fit in the budget (and
`KEEP_BYTES`), the smallest first: memory holds at most a budget's worth of text, and the
files a plan shows are mostly those. They are written as they were measured. Any other
file shown is read again: one that changed between the passes is written only while it
stays within the size it was planned with; a bigger one is left out then, and named with
the others. Files from git's index (`--staged`) are read again from the index.

`--tree` alone needs no sizes: its first pass only finds which files are shown, by their
name and first bytes (the text too where `--secrets` or a credentials file needs it).

`--stats` writes, instead of the files, a tree of what each costs (`emit.stats`): bytes and
lines counted from the file's bytes without decoding them, tokens estimated. With a budget,
the files and directories the plan leaves out or cuts are marked.
"""

from __future__ import annotations

import contextlib
import heapq
import math
from collections.abc import Callable, Iterator, Sequence

from readmany.commands import stdin_only
from readmany.commands.glob_files import shown_files
from readmany.commands.glob_request import (
    GlobRequest,
    candidate_reader,
    held_chars,
    open_selection,
)
from readmany.emit.outcome import Outcome
from readmany.emit.report import LEFT_OUT, Report, git_kind
from readmany.emit.sink import Sink
from readmany.frame import weigh
from readmany.frame.formats import framing_for
from readmany.frame.formats import measured as size_of
from readmany.frame.leftout import LeftOutNames, left_out_note
from readmany.frame.sectioncut import LEAST_NOTE, Cut, SectionCutter
from readmany.frame.sections import (
    diff_block,
    diff_label,
    diff_tokens,
    text_block,
    text_block_measure,
    text_block_tokens,
)
from readmany.pack import (
    PARTIAL_BYTE_SLACK,
    Budget,
    Entry,
    Packing,
)
from readmany.pack.budget import BudgetAsked, options_to_hold
from readmany.pack.planner import everything, need_of, plan_around
from readmany.read.classify import ASSET_KINDS, credentials_name
from readmany.read.glob_file import (
    AssetFile,
    Failed,
    MeasuredFile,
    Skipped,
    TextFile,
    whole_cost,
    with_total,
)
from readmany.record import NamedTuple
from readmany.select.candidates import Candidate, shown_path
from readmany.select.lookahead import Selection
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.emit.stats import StatsTree
    from readmany.rank import Ranking
    from readmany.read.glob_file import CandidateReader, MatchedRead
    from readmany.read.measure import Cost
    from readmany.read.text import TextRead

KEEP_BYTES = 8 << 20  # of framed text kept from the first pass for the second, at most
KEEP_BYTES_PER_TOKEN = 8  # ... and with a budget of tokens, this many bytes a token
TREE_LEFT_OUT_SHARE = 20  # the tree names files left out in at most 5% of the budget


class Item(NamedTuple):
    """A file the selection shows (or the diff), as the first pass found it."""

    ordinal: int  # its place among the selection's events
    candidate: Candidate | None  # None: the diff of --with-diff
    rel: str
    path: str  # as shown


def budget_of(request: GlobRequest) -> BudgetAsked | None:
    if not request.budgeted:
        return None
    return BudgetAsked(request.max_bytes, request.max_lines, request.max_tokens)


# --- the first pass ---------------------------------------------------------------------


class _Source:
    """Reads a file of the first pass again: from where it is, or from git's index."""

    def __init__(self, request: GlobRequest, selection: Selection, reader: CandidateReader):
        self._reader = reader
        self._selection = selection if request.staged else None
        # The staged files read again from the index: a walk of git's batch, which holds
        # a process and its pipes until it is closed.
        self._walk: Iterator[tuple[object, MatchedRead | MeasuredFile | None]] | None = None
        self._at = -1

    def read(self, item: Item, keep: int | None = None) -> MatchedRead | None:
        assert item.candidate is not None
        if self._selection is None:
            return self._reader(item.candidate, item.path, keep)
        if self._walk is None or self._at >= item.ordinal:
            self.close()
            self._walk = iter(self._selection)
            self._at = -1
        for _event, done in self._walk:
            self._at += 1
            if self._at == item.ordinal:
                return None if isinstance(done, MeasuredFile) else done
        return None

    def close(self) -> None:
        """End the walk of the index begun for the files read again (its git process)."""
        walk, self._walk = self._walk, None
        close = getattr(walk, "close", None)  # a generator's
        if close is not None:
            close()


class _Run:
    """One planned run: the first pass's items and blocks, the plan, the second pass."""

    def __init__(
        self, request: GlobRequest, sink: Sink, selection: Selection, report: Report
    ) -> None:
        self.request = request
        self.sink = sink
        self.report = report
        self.label = diff_label(request.staged, request.changed)  # the diff's header
        self.framing = framing_for(
            request.format,
            line_numbers=request.line_numbers,
            reserved=self.label if request.with_diff else None,
            guard=request.face.guard_sections,
        )
        self.reader = candidate_reader(request)
        self.source = _Source(request, selection, self.reader)
        self.items: list[Item] = []
        self.entries: list[Entry] = []
        self.costs: StatsTree | None = None  # with `stats`: the tree, made as files come
        self.diff: str | None = None
        self._last_text: tuple[int, TextFile | None] | None = None  # the last text cut
        self._need: tuple[int, int, float] | None = None
        self._left_out: LeftOutNames | None = None  # the names of the files left out
        self._written_cut: tuple[int, Cut] | None = None  # the cut the plan chose
        self._least_frame: int | None = None
        # Texts of the first pass kept for the second, the smallest first, within the
        # budget and `KEEP_BYTES`.
        self._kept: dict[int, TextFile] = {}
        self._kept_sizes: list[tuple[int, int]] = []  # a heap of (-bytes, position)
        self._kept_bytes = 0
        # With `--order rank`: the names each entry's text imports (None: not a text),
        # kept instead of the text, for `rank.rank`; and the ranking once made.
        self.ranks = request.order == "rank"
        self.imports: list[frozenset[str] | None] = []
        self.ranking: Ranking | None = None
        budget = budget_of(request)
        self._keep_bytes = 0
        if budget is not None and not request.stats:  # --stats writes no text
            limits = budget.limits
            by_tokens = limits.max_tokens * KEEP_BYTES_PER_TOKEN
            self._keep_bytes = int(min(limits.max_bytes, by_tokens, KEEP_BYTES))
        # Newlines are counted only for a budget of lines (counting them costs more than
        # framing a block): without one, a block's `lines` is 0. Tokens are estimated only
        # for a budget of tokens: without one, a block's `tokens` is 0.
        self.slack = PARTIAL_BYTE_SLACK  # what `pack` guesses a frame takes
        self.lines = request.max_lines is not None
        self.tokens = request.max_tokens is not None
        # Of a long text, the first pass holds only what a cut can show (`held_text`).
        self._hold = held_chars(request, self.reader.limits)
        self.limits: Budget | None = None  # of the last plan: the budget as planned
        self._rendering = False  # writing to count, not to the sink: kept texts stay
        self._fold = False  # the tree of the plans made folds the files left out

    @property
    def root(self) -> str:
        return self.report.root

    def named(self, position: int) -> tuple[str, str]:
        """The file at `position`: its path from the root, and as it is shown."""
        item = self.items[position]
        return item.rel, item.path

    # -- pass 1 --

    def gather(self, selection: Selection, *, sizes: bool, stats: bool) -> None:
        """Read the selection once and report what is not shown; of what is, keep
        - with `sizes` (a budget), its block framed and measured (`items`, `entries`);
        - with `stats`, what it costs as stored (`costs`), from its bytes, not decoded;
        - with neither (`--tree` alone), that it is shown (`items`), seen by its name and
          first bytes where its text cannot change that."""
        request, report = self.request, self.report
        tree = not sizes and not stats
        if self.ranks and sizes:
            from readmany.rank import SAMPLE_CHARS, imported_names
        measure = None
        if stats or tree:
            from readmany.emit.stats import StatsTree
            from readmany.read.measure import measure_for_stats

            measure = measure_for_stats if stats else _unmeasured
            if stats:
                self.costs = StatsTree()
        attachments = self.sink.json_mode
        # The first pass reads a file's text where it must: to know whether it is shown
        # (a credentials file), or to report what it holds (`--secrets`).
        every_text = request.secrets != "off"
        add_cost = self.costs.add if self.costs is not None else None
        add_read = report.tally.add_read

        def look(
            ordinal: int, event: Candidate, path: str, done: MatchedRead | MeasuredFile | None
        ) -> tuple[bool, MeasuredFile | None, MatchedRead | None]:
            """What is known of a file before it is read: enough, where it costs what
            it measures and its text cannot change whether it is shown."""
            rel = event.rel
            cost: MeasuredFile | None = None
            if isinstance(done, MeasuredFile):  # measured by the helper process
                cost, done = done, None
            elif measure is not None and not request.staged and not sizes:
                # (staged: measured as read; with a budget, a text is measured as it is
                # read, in whichever process reads it: `TextFile.cost`)
                measured = self.reader.measure(event, path, measure)
                if isinstance(measured, (Skipped, Failed)):
                    self._not_shown(path, measured)
                    return True, None, None
                cost = measured
            if (
                cost is not None
                and not sizes
                and not (every_text or credentials_name(rel))
                and not (attachments and cost.kind in ASSET_KINDS)
            ):
                if add_cost is not None:  # `_cost`, for thousands of files
                    add_cost(rel, cost.bytes, cost.lines, cost.tokens)
                    add_read(path, 0)
                else:
                    self.items.append(Item(ordinal, event, rel, path))
                return True, None, None
            return False, cost, done

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
        for ordinal, event, path, result, cost in shown:
            item = Item(ordinal, event, event.rel, path)
            if isinstance(result, TextFile):
                if stats:
                    self._cost(item, cost or self._stored_cost(event, path, result))
                if sizes:
                    index = len(self.entries) + 1  # the most it can be
                    text = result.text
                    size, lines, tokens = text_block_measure(  # its text weighed as read
                        self.framing,
                        report.root,
                        item.rel,
                        path,
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
                    elif size <= self._keep_bytes:
                        self._keep(len(self.entries), result, size)
                    names = None
                    if self.ranks:
                        extension = item.rel.rpartition(".")[2].lower()
                        names = frozenset(imported_names(text.body[:SAMPLE_CHARS], extension))
                    self._add(
                        item, (size, lines), text.body, cuttable=True, tokens=tokens, imports=names
                    )
                elif tree:
                    self.items.append(item)
            else:
                if stats:
                    self._cost(item, cost or self._stored_cost(event, path, result))
                if attachments:  # an attachment, not content: no part of the budget
                    report.attach(path, result)
                elif sizes:
                    index = len(self.entries) + 1
                    block = self.framing.data_url(path, result.mime_type, result.data, index)
                    tokens = 0.0
                    if self.tokens:
                        mime, data = result.mime_type, result.data
                        tokens = self.framing.data_url_tokens(path, mime, data, index)
                    self._add(item, size_of(block), "", cuttable=False, tokens=tokens)
                elif tree:
                    self.items.append(item)
        self.diff = (
            None if stats else report.checked_diff(selection.diff, request.secrets, self.label)
        )
        if self.diff is not None:
            item = Item(-1, None, self.label, self.label)
            if sizes:
                index = len(self.entries) + 1
                block = diff_block(self.framing, self.label, self.diff, index)
                tokens = (
                    diff_tokens(self.framing, self.label, self.diff, index) if self.tokens else 0.0
                )
                self._add(item, size_of(block), self.diff, cuttable=False, tokens=tokens)
            else:
                self.items.append(item)

    def _keep(self, position: int, text: TextFile, size: int) -> None:
        """Keep the text at `position` for the second pass while there is room: the
        largest kept goes when a smaller one needs its place."""
        self._kept[position] = text
        heapq.heappush(self._kept_sizes, (-size, position))
        self._kept_bytes += size
        while self._kept_bytes > self._keep_bytes:
            negative, dropped = heapq.heappop(self._kept_sizes)
            del self._kept[dropped]
            self._kept_bytes += negative

    def _stored_cost(self, event: Candidate, path: str, result: TextFile | AssetFile) -> Cost:
        """What a file read whole costs as stored (as `--stats` measures it): measured as
        it was read, or now; from what was read where it is not stored (git's index), or
        changed since."""
        if isinstance(result, TextFile) and result.cost is not None:
            return MeasuredFile(result.kind, *result.cost)
        if not self.request.staged:
            from readmany.read.measure import measure_for_stats

            measured = self.reader.measure(event, path, measure_for_stats)
            if isinstance(measured, MeasuredFile):
                return measured
        return _text_cost(result) if isinstance(result, TextFile) else _asset_cost(result)

    def _cost(self, item: Item, cost: Cost) -> None:
        assert self.costs is not None
        self.costs.add(item.rel, cost.bytes, cost.lines, cost.tokens)
        self.report.tally.add_read(item.path, 0)

    def _not_shown(self, path: str, result: Skipped | Failed) -> None:
        if isinstance(result, Skipped):
            self.report.skip(path, result.reason, result.category)
        else:
            self.report.read_failed(path, result)

    def _text_tokens(self, item: Item, text: TextRead, index: int, known: float = -1.0) -> float:
        """The estimated tokens of a text file's block (`sections.text_block_tokens`); `known`,
        its text's own if they were weighed as it was read."""
        return text_block_tokens(
            self.framing, self.report.root, item.rel, item.path, text, index, known
        )

    def _add(
        self,
        item: Item,
        size: tuple[int, int],
        body: str,
        *,
        cuttable: bool,
        tokens: float,
        imports: frozenset[str] | None = None,
    ) -> None:
        """Keep the size of a block (bytes, newlines, estimated tokens), not its text."""
        first_end = body.find("\n")
        first = body[: first_end + 1] if first_end >= 0 else body
        position = len(self.entries)
        first_bytes = utf8_len(first)
        block = SectionCutter(self, position, size[0], size[1], first_bytes, tokens)
        if self.tokens and cuttable and size[0]:
            # About its first line's tokens, at the block's tokens a byte: only a bound that
            # spares reading a file again for a cut that cannot fit.
            block.first_tokens = tokens * first_bytes / size[0]
        self.items.append(item)
        self.imports.append(imports)
        # What a cut takes at least, known without framing: the frame of no line for
        # an empty path, this path (shown whole, or longer when quoted) and a line.
        least = self.least_frame() + utf8_len(item.path) + block.first_line if cuttable else 0
        self.entries.append(
            Entry(position, item.path, block, True, block if cuttable else None, least)
        )

    # -- cutting --

    def least_frame(self) -> int:
        """Bytes every cut's block takes at least: the frame of no line, with the shortest
        notice, for an empty path (a path and a larger index only make it longer)."""
        if self._least_frame is None:
            self._least_frame = utf8_len(self.framing.block("", "", 1, note=LEAST_NOTE))
        return self._least_frame

    def least_frame_tokens(self) -> float:
        """`least_frame` in tokens (0 without a budget of tokens)."""
        if not self.tokens:
            return 0.0
        return weigh(self.framing.block("", "", 1, note=LEAST_NOTE))

    def text_of(self, position: int) -> TextFile | None:
        """The text of the entry at `position`: kept, or read again (the last one is kept)."""
        if self._last_text is not None and self._last_text[0] == position:
            return self._last_text[1]
        text = self._kept.get(position)
        if text is None:
            item = self.items[position]
            keep = self._hold if not credentials_name(item.rel) else None
            result = self.source.read(item, keep)
            text = self._recheck(item, result) if isinstance(result, TextFile) else None
        self._last_text = (position, text)
        return text

    def _recheck(self, item: Item, result: TextFile) -> TextFile | None:
        """The checks of the first pass, said nothing of again (they were reported)."""
        from readmany.read.secrets import holds_credentials, redact, scan

        body = result.text.body
        if credentials_name(item.rel) and holds_credentials(item.rel, body):
            return None
        mode = self.request.secrets
        if mode == "skip" and scan(body):
            return None
        if mode == "redact":
            masked = result.text._replace(body=redact(body)[0])
            return result._replace(text=masked, weight=-1.0)
        return result

    # -- the plan --

    def plan(
        self, budget: BudgetAsked | None, planned: int | None = None
    ) -> tuple[Packing, str, str]:
        """The packing, and the start (tree) and end (closing notice) written around it.
        A budget of tokens is planned with the estimate for `planned` tokens: by default
        `tokens.planning_budget` of it, the margin that keeps the real count within it."""
        if budget is None:  # --tree alone: everything
            shown = everything(len(self.items))
            return shown, *self._ends(shown, None)
        self.limits = _planning_limits(budget, planned)
        self._fold = False
        return plan_around(
            self.entries,
            self.limits,
            lambda packing: self._ends(packing, budget),
            self._ends_tokens,
            joint=self._joint(),
            least_cut=self.least_frame(),
            least_cut_tokens=self.least_frame_tokens(),
            first_kept=self.diff is not None,
            **self._ranked(),
        )

    def _ranked(self) -> dict[str, Any]:
        """With `--order rank` or `given`, the entries by value (`rank.rank`) and the
        plan's name: what `plan_around` takes them in. None for `smallest`."""
        request = self.request
        if request.order == "smallest" or not self.entries:
            return {}
        from readmany.rank import rank

        files = [e for e in self.entries if self.items[e.position].candidate is not None]
        rels = [self.items[e.position].rel for e in files]
        named = [i for i, e in enumerate(files) if self.items[e.position].candidate.named]  # type: ignore[union-attr]
        self.ranking = rank(
            rels,
            [e.block.bytes for e in files],
            patterns=_pattern_indexes(rels, request.patterns),
            named=named,
            imports=[self.imports[e.position] for e in files],
            prefer=_preferred(request.prefer),
            order=request.order,
        )
        ranked = [files[i] for i in self.ranking.order]
        diff = [e for e in self.entries if self.items[e.position].candidate is None]
        # By rank, the first file that does not fit is cut unless it is bulk.
        kinds = self.ranking.kinds
        cut_first = frozenset(
            entry.position
            for i, entry in enumerate(files)
            if request.order == "rank" and kinds[i] != "bulk"
        )
        return {"ranked": diff + ranked, "strategy": request.order, "cut_first": cut_first}

    def reasons(self, omitted: Sequence[int]) -> dict[str, str]:
        """Why each file left out was ranked where it was (`--order rank`, `given`)."""
        if self.ranking is None:
            return {}
        files = [p for p in range(len(self.entries)) if self.items[p].candidate is not None]
        at = {position: index for index, position in enumerate(files)}
        return {self.items[p].path: self.ranking.reasons[at[p]] for p in omitted if p in at}

    def _joint(self) -> tuple[int, int, float]:
        """What is between two blocks: bytes, lines and (with a budget of tokens) tokens."""
        joint = self.framing.joint
        return (*size_of(joint), weigh(joint) if self.tokens else 0.0)

    def _ends_tokens(self, start: str, end: str) -> float:
        """The tokens of the start, the end and the newline after the content (0 without
        a budget of tokens), each weighed as the sink weighs what it writes."""
        if not self.tokens:
            return 0.0
        return weigh(start) + weigh(end) + weigh("\n")

    def _ends(self, packing: Packing, budget: BudgetAsked | None) -> tuple[str, str]:
        plan = packing.plan
        shown = sorted(plan.full)
        if plan.partial_index is not None:
            shown = sorted({*shown, plan.partial_index})
        note = self._left_out_note(packing, budget) if packing.omitted else ""
        if not shown:
            return "", self.framing.end(False, note)
        tree = None
        if self.request.tree:  # the whole selection, what is not shown whole marked
            tree = self.marked_tree(packing)
        return self.framing.start(tree), self.framing.end(True, note)

    def tree(
        self, items: Sequence[Item], marks: dict[str, str] | None = None, *, fold: bool = False
    ) -> str:
        from readmany.frame.tree import render_tree

        files = [item.rel for item in items if item.candidate is not None]
        root = self.report.root if self.request.absolute else "."
        return render_tree(files, root, marks, fold=fold)

    def marked_tree(self, packing: Packing) -> str:
        """The tree of the whole selection for a plan, its files not shown whole marked:
        each file left out named while that takes at most `TREE_LEFT_OUT_SHARE` of the
        budget of tokens (or bytes), else a directory's files left out as one line."""
        marks = self.marks(packing)
        if not packing.omitted or self.limits is None:
            return self.tree(self.items, marks)
        folded = self.tree(self.items, marks, fold=True)
        if self._fold:
            return folded
        tree = self.tree(self.items, marks)
        limits = self.limits
        extra_bytes = utf8_len(tree) - utf8_len(folded)
        # Once folded, a plan's tree stays folded: the plans made one after the other
        # keep more room each time, and a tree that grew again would undo that.
        self._fold = extra_bytes * TREE_LEFT_OUT_SHARE > limits.max_bytes or (
            self.tokens and (weigh(tree) - weigh(folded)) * TREE_LEFT_OUT_SHARE > limits.max_tokens
        )
        return folded if self._fold else tree

    def marks(self, packing: Packing) -> dict[str, str]:
        """The tree's mark of each file a plan does not show whole, by its path from the
        root: left out, or cut."""
        from readmany.frame.tree import CUT, OMITTED

        items = self.items
        marks = {items[i].rel: OMITTED for i in packing.omitted if items[i].candidate}
        partial = packing.plan.partial_index
        if partial is not None and items[partial].candidate is not None:
            marks[items[partial].rel] = CUT
        return marks

    def _left_out_note(self, packing: Packing, budget: BudgetAsked | None) -> str:
        """The closing notice: what the budget left out, and the budget that holds all."""
        assert budget is not None
        limits = _planning_limits(budget, None)  # its share: of the budget with the margin
        if self.limits is not None and self.limits.max_tokens < limits.max_tokens:
            limits = self.limits
        return left_out_note(
            self.left_out_names(packing.omitted),
            len(packing.omitted),
            len(self.entries),
            _options_to_hold(self, budget),
            max_bytes=limits.max_bytes,
            max_tokens=limits.max_tokens,
            tokens=self.tokens,
        )

    def left_out_names(self, omitted: Sequence[int]) -> list[str]:
        """The files left out, in output order, as the closing notice names them."""
        if self._left_out is None:
            root, absolute = self.report.root, self.request.absolute
            self._left_out = LeftOutNames(
                [item.rel if item.candidate is not None else None for item in self.items],
                [item.path for item in self.items],
                lambda rel: shown_path(root, rel, absolute),
            )
        return self._left_out.names(omitted)

    def need(self) -> tuple[int, int, float]:
        """Bytes, lines and tokens of an output that shows every file whole (tokens 0
        without a budget of tokens)."""
        if self._need is not None:
            return self._need
        if not self.entries:
            return 0, 0, 0.0
        start = self.framing.start(self.tree(self.items) if self.request.tree else None)
        end = self.framing.end(True)
        ends_tokens = self._ends_tokens(start, end) if self.tokens else None
        blocks = [entry.block for entry in self.entries]
        self._need = need_of(blocks, self._joint(), start, end, ends_tokens)
        return self._need

    # -- pass 2 --

    def fitted(self, budget: BudgetAsked) -> tuple[Packing, str, str]:
        """The plan whose output, counted by `--tokenizer`, fills the budget of tokens
        without going over (`tokenizer.fit`): planned with the estimate, rendered and
        counted, planned again for more or fewer estimated tokens."""
        from readmany.tokenizer import counter, fit

        assert budget.max_tokens is not None
        plans: dict[int, tuple[Packing, str, str]] = {}

        last: list[Packing] = []

        def render(planned: int) -> str:
            plans[planned] = planned_run = self.plan(budget, planned)
            last[:] = [planned_run[0]]
            return self.rendered(*planned_run)

        def complete() -> bool:  # every file shown whole: a larger plan shows no more
            return not last[0].omitted and last[0].plan.partial_index is None

        count = counter(self.request.tokenizer)
        done = fit(render, budget.max_tokens, count, complete=complete)
        chosen = plans[done.planned]
        self.limits = _planning_limits(budget, done.planned)
        self.report.details["tokenizer"] = {
            "name": self.request.tokenizer,
            "tokens": done.real,
            "budget": budget.max_tokens,
            "planned": done.planned,
            "renders": done.passes,
        }
        return chosen

    def rendered(self, packing: Packing, start: str, end: str) -> str:
        """The text `write` would write for this plan, as stdout has it, written to a
        buffer and reported to no one."""
        import io

        buffer = io.BytesIO()
        sink = Sink(buffer, json_mode=False, weigh=False)
        report = Report(self.report.root, keep_records=False, reference_reasons=False)
        self._rendering = True
        try:
            self.write(packing, start, end, sink=sink, report=report)
        finally:
            self._rendering = False
        sink.finish({})
        return buffer.getvalue().decode("utf-8", "replace")

    def write(
        self,
        packing: Packing,
        start: str,
        end: str,
        *,
        sink: Sink | None = None,
        report: Report | None = None,
    ) -> None:
        """Read the files shown again and write them, with the tree and the notice."""
        sink, report, framing = sink or self.sink, report or self.report, self.framing
        plan = packing.plan
        late: list[int] = []
        left_out: list[str] = []
        index = 0
        self._written_cut = None
        if plan.partial_index is not None and isinstance(plan.partial, Cut):
            self._written_cut = (plan.partial_index, plan.partial)
        for position, item in enumerate(self.items):
            if position in plan.full:
                block, result = self._block_again(position, index + 1)
                if block is None:
                    late.append(position)
                    continue
            elif position == plan.partial_index and isinstance(plan.partial, Cut):
                cut = plan.partial
                block = framing.block(item.path, cut.head, index + 1, note=cut.note)
                held = self.text_of(position)
                result = with_total(held) if held is not None else None
            else:
                left_out.append(item.path)
                continue
            index += 1
            prefix = start if index == 1 else framing.joint
            weighed = None
            if sink.weigh:
                weighed = weigh(prefix) + self._block_tokens(position, result, index)
            size = sink.write(prefix + block, weighed)
            tokens = sink.last_tokens
            if item.candidate is None:
                report.diff = self.diff
            elif isinstance(result, TextFile):
                if position == plan.partial_index and isinstance(plan.partial, Cut):
                    report.cut(item.path, result, size, tokens, plan.partial.shown)
                else:
                    report.text(item.path, result, size, tokens)
            elif isinstance(result, AssetFile):
                report.asset(item.path, result, size, tokens)
        report.left_out(left_out)
        if not self.entries:  # --tree alone
            sink.write(end)
            return
        report.left_out([self.items[position].path for position in late])
        if late:
            end = self._late_end(packing, late, bool(index))
        sink.write(end)
        omitted = sorted({*packing.omitted, *late})
        if omitted:
            names = ", ".join(self.left_out_names(omitted))
            report.budget_notes.append(
                f"{LEFT_OUT} ({len(omitted)} of {len(self.entries)}): {names}"
            )
        details = Packing(
            plan._replace(full=plan.full - set(late), full_success=len(plan.full) - len(late)),
            packing.switched,
            tuple(omitted),
        ).as_json(self.entries)
        if self.ranking is not None:  # --order rank or given: why each was left out
            details["omittedReasons"] = self.reasons(omitted)
        report.details["packing"] = details
        if self.request.tree and index:  # the tree as written: every file, and its mark
            marks = self.marks(packing)
            report.details["tree"] = {
                "paths": [item.path for item in self.items if item.candidate is not None],
                "marks": {item.path: marks[item.rel] for item in self.items if item.rel in marks},
            }
        if self.entries and not index and not report.any_shown:
            report.problems.append(self._nothing_fits())

    def _block_tokens(self, position: int, result: object, index: int) -> float:
        """The estimated tokens of the block written at `position`, the `index`-th."""
        item = self.items[position]
        plan_cut = self._written_cut
        if item.candidate is None:
            assert self.diff is not None
            return diff_tokens(self.framing, self.label, self.diff, index)
        if isinstance(result, AssetFile):
            mime, data = result.mime_type, result.data
            return self.framing.data_url_tokens(item.path, mime, data, index)
        if plan_cut is not None and plan_cut[0] == position:
            cut = plan_cut[1]
            return self.framing.tokens(item.path, cut.head, index, note=cut.note, cut=True)
        assert isinstance(result, TextFile)
        return self._text_tokens(item, result.text, index)

    def _block_again(self, position: int, index: int) -> tuple[str | None, Any]:
        """The block of a file read again; None if it is no longer shown, or (with a
        budget) no longer fits the size it was planned with."""
        item = self.items[position]
        if item.candidate is None:
            assert self.diff is not None
            return diff_block(self.framing, self.label, self.diff, index), None
        # as checked and measured: written as it was (kept for the next render)
        kept = (self._kept.get if self._rendering else self._kept.pop)(position, None)
        result = kept or self.source.read(item)
        if isinstance(result, TextFile):
            checked = kept or self._recheck(item, result)
            if checked is None:
                return None, None
            block = text_block(
                self.framing, self.report.root, item.rel, item.path, checked.text, index
            )
            result = checked
        elif isinstance(result, AssetFile):
            block = self.framing.data_url(item.path, result.mime_type, result.data, index)
        else:
            if not self.entries and result is not None:  # --tree alone: no budget to name
                self._not_shown(item.path, result)
            return None, None
        if not self.entries:
            return block, result
        planned = self.entries[position].block
        if utf8_len(block) > planned.bytes or (self.lines and block.count("\n") > planned.lines):
            return None, None  # it grew since it was measured
        grew = (
            self.tokens
            and not kept
            and isinstance(result, TextFile)
            and self._text_tokens(item, result.text, index) > planned.tokens
        )
        if grew:
            return None, None  # it changed since it was measured, and takes more
        return block, result

    def _late_end(self, packing: Packing, late: list[int], started: bool) -> str:
        """The closing notice again, with the files left out while writing."""
        omitted = tuple(sorted({*packing.omitted, *late}))
        budget = budget_of(self.request)
        note = self._left_out_note(packing._replace(omitted=omitted), budget)
        return self.framing.end(started, note)

    def _nothing_fits(self) -> str:
        least = min(entry.block.bytes for entry in self.entries)
        smallest = min(
            (entry for entry in self.entries if entry.block.bytes == least),
            key=lambda entry: (entry.block.bytes, self._newlines(entry)),
        )
        size = smallest.block
        tokens = math.ceil(size.tokens if self.tokens else self._weighed(smallest))
        return (
            f"no file fits the budget: the smallest, {smallest.path}, takes {size.bytes} "
            f"bytes, {self._newlines(smallest) + 1} lines (~{tokens} tokens) as framed"
        )

    def _weighed(self, entry: Entry) -> float:
        """The estimated tokens of an entry's block, weighed now (no budget of tokens
        weighed it in the first pass)."""
        position = entry.position
        item = self.items[position]
        if item.candidate is None:
            assert self.diff is not None
            return diff_tokens(self.framing, self.label, self.diff, position + 1)
        text = self.text_of(position)
        if text is None:  # an asset: its block is read again to be weighed
            block, _ = self._block_again(position, position + 1)
            return weigh(block or "")
        if text.whole is not None:  # only its start held: the frame, and all of the text
            frame = self._text_tokens(item, text.text._replace(body=""), position + 1, 0.0)
            return frame + whole_cost(text)[2]
        return self._text_tokens(item, text.text, position + 1)

    def _newlines(self, entry: Entry) -> int:
        """The newlines of an entry's block: counted now if the first pass did not."""
        if self.lines or entry.cut_head is None:
            return entry.block.lines
        text = self.text_of(entry.position)
        if text is None:
            return entry.block.lines
        item = self.items[entry.position]
        held = text.text if text.whole is None else text.text._replace(body="")
        block = text_block(
            self.framing, self.report.root, item.rel, item.path, held, entry.position + 1
        )
        return block.count("\n") + (text.whole.newlines if text.whole is not None else 0)


def _pattern_indexes(rels: Sequence[str], patterns: Sequence[str]) -> list[int] | None:
    """The index of the first of `patterns` that matches each path (a directory matches
    what is under it; 0 where none does, as a path listed on --stdin): None for one."""
    if len(patterns) < 2:
        return None
    from readmany.select.patterns import compile_paths

    matchers: list[Any] = []  # None: everything
    for pattern in patterns:
        pattern = pattern.removeprefix("./").rstrip("/")
        if pattern in ("", "."):
            matchers.append(None)  # everything
        else:
            matchers.append(compile_paths([pattern, pattern + "/**"]))
    indexes = []
    for rel in rels:
        found = 0
        for index, matcher in enumerate(matchers):
            if matcher is None or matcher.match(rel):
                found = index
                break
        indexes.append(found)
    return indexes


def _preferred(patterns: Sequence[str]) -> Callable[[str], int | None] | None:
    """The index of the first `--prefer` glob that matches a path (None: none does)."""
    if not patterns:
        return None
    from readmany.select.patterns import compile_paths

    matchers = [compile_paths([pattern]) for pattern in patterns]

    def first(rel: str) -> int | None:
        for index, matcher in enumerate(matchers):
            if matcher.match(rel):
                return index
        return None

    return first


def _unmeasured(chunks: Iterator[bytes], size: int) -> Cost:
    """No measure (`--tree` alone): the file's size, nothing read."""
    from readmany.read.measure import Measure

    return Measure(size, 0, 0)


def _text_cost(result: TextFile) -> Cost:
    """What a text from git's index costs, measured from it as read."""
    from readmany.read.measure import measure_for_stats

    data = result.text.body.encode("utf-8", "surrogateescape")
    return measure_for_stats([data], len(data))


def _asset_cost(result: AssetFile) -> Cost:
    """What an asset from git's index costs: its size, and the tokens of its base64."""
    from readmany.read.measure import Measure
    from readmany.tokens import token_weight

    tokens = max(1, round(token_weight(result.data.encode("ascii")))) if result.data else 0
    return Measure(result.size, 0, tokens)


# --- the runs ---------------------------------------------------------------------------


def run_planned(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """`glob` with a budget or `--tree`: measure, plan, write."""
    with selection or open_selection(request) as selection:
        report = Report(
            selection.root,
            keep_records=sink.json_mode,
            reference_reasons=False,
            git=git_kind(request.staged, request.changed),
            stdin_only=stdin_only(request),
            hook_id=request.hook_id,
        )
        run = _Run(request, sink, selection, report)
        with run.reader, contextlib.closing(run.source):
            budget = budget_of(request)
            run.gather(selection, sizes=budget is not None, stats=False)
            if budget is not None and budget.max_tokens and request.tokenizer != "estimate":
                packing, start, end = run.fitted(budget)
            else:
                packing, start, end = run.plan(budget)
                if budget is not None and budget.max_tokens and run.limits is not None:
                    report.details["tokenizer"] = {
                        "name": "estimate",
                        "budget": budget.max_tokens,
                        "planned": int(run.limits.max_tokens),
                    }
            run.write(packing, start, end)
    if not run.items and not report.any_shown:
        report.nothing_read_from(request.staged, request.changed)
    return report.outcome(sink.bytes_written, sink.tokens)


def _options_to_hold(run: _Run, budget: BudgetAsked) -> list[str]:
    """The budget options, among those given, that would show every file whole: the
    estimated tokens as many real ones as a budget planned with the margin holds."""
    from readmany.tokens import planning_budget

    need_bytes, need_lines, need_tokens = run.need()
    if need_tokens and budget.max_tokens:  # the budget whose margin leaves room for them
        margin = planning_budget(budget.max_tokens) / budget.max_tokens
        need_tokens /= margin
    return options_to_hold((need_bytes, need_lines, need_tokens), budget.limits, plain_below_k=True)


def _planning_limits(budget: BudgetAsked, planned: int | None) -> Budget:
    """The limits a plan is made for: a budget of tokens as `planned` estimated tokens,
    by default `tokens.planning_budget` of it."""
    limits = budget.limits
    if budget.max_tokens is None:
        return limits
    if planned is None:
        from readmany.tokens import planning_budget

        planned = planning_budget(budget.max_tokens)
    return limits._replace(max_tokens=planned)


def _stats_advice(run: _Run, packing: Packing, budget: BudgetAsked) -> list[str]:
    """What `--stats` with a budget says on stderr, as the dump would: the lines the cut
    file would show, and the budget that shows every file whole."""
    said = []
    partial = packing.plan.partial
    if packing.plan.partial_index is not None and isinstance(partial, Cut):
        path = run.items[packing.plan.partial_index].path
        said.append(f"{path}: its first {partial.shown} lines would be shown, cut by the budget")
    options = _options_to_hold(run, budget) if packing.omitted or partial else []
    if options:
        said.append(f"all {len(run.entries)} files whole take {' '.join(options)}")
    return said


def run_stats(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """`glob --stats`: the tree of what each file costs, marked by the budget if one is given."""
    from readmany.emit.stats import stats_json, stats_text

    budget = budget_of(request)
    with selection or open_selection(request) as selection:
        report = Report(
            selection.root,
            keep_records=sink.json_mode,
            reference_reasons=False,
            git=git_kind(request.staged, request.changed),
            stdin_only=stdin_only(request),
            hook_id=request.hook_id,
        )
        run = _Run(request, sink, selection, report)
        with run.reader, contextlib.closing(run.source):
            run.gather(selection, sizes=budget is not None, stats=True)
            omitted: set[str] = set()
            cut = None
            if budget is not None:
                packing, _start, _end = run.plan(budget)
                omitted = {run.items[i].rel for i in packing.omitted}
                if packing.plan.partial_index is not None:
                    cut = run.items[packing.plan.partial_index].rel
                report.details["packing"] = packing.as_json(run.entries)
                if run.ranking is not None:
                    reasons = run.reasons(packing.omitted)
                    report.details["packing"]["omittedReasons"] = reasons
                report.advice.extend(_stats_advice(run, packing, budget))
    assert run.costs is not None
    root = run.costs.finish(omitted, cut)
    if root.files:  # nothing read: nothing on stdout, as every run writes it
        sink.write(stats_text(root).removesuffix("\n"))
    if sink.json_mode:
        report.details["stats"] = stats_json(root)
    if not root.files:
        report.nothing_read_from(request.staged, request.changed)
    return report.outcome(sink.bytes_written, sink.tokens)
