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
import itertools
import math
import sys
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence

from readmany.commands.glob import (
    LEFT_OUT,
    Report,
    continue_with,
    diff_block,
    diff_label,
    diff_tokens,
    git_kind,
    reserved_label,
    text_block,
    text_block_measure,
    text_block_tokens,
)
from readmany.commands.glob_request import (
    GlobRequest,
    candidate_reader,
    held_chars,
    open_selection,
)
from readmany.emit.outcome import Outcome
from readmany.emit.sink import Sink
from readmany.frame import notices, weigh
from readmany.frame.formats import framing_for
from readmany.frame.formats import measured as size_of
from readmany.frame.paths import header_path, quoted
from readmany.limits import CUT_BYTES_PER_TOKEN
from readmany.pack import (
    PARTIAL_BYTE_SLACK,
    UNCOUNTED,
    Budget,
    Entry,
    Packing,
    Plan,
    by_size,
    pack_blocks,
)
from readmany.read.classify import ASSET_KINDS, credentials_name
from readmany.read.glob_file import (
    AssetFile,
    Failed,
    MeasuredFile,
    Skipped,
    TextFile,
    whole_cost,
)
from readmany.record import NamedTuple
from readmany.select.candidates import Candidate, Skip, shown_path
from readmany.select.lookahead import Selection
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.emit.stats import StatsTree
    from readmany.read.glob_file import CandidateReader, MatchedRead
    from readmany.read.measure import Cost
    from readmany.read.text import TextRead

NO_LIMIT = sys.maxsize  # a budget dimension nobody set
KEEP_BYTES = 8 << 20  # of framed text kept from the first pass for the second, at most
KEEP_BYTES_PER_TOKEN = 8  # ... and with a budget of tokens, this many bytes a token
NOTE_SHARE = 4  # the closing notice names files in at most a quarter of the budget
NOTE_WITHOUT_BYTES = 1 << 13  # ... or, in a budget of lines alone, in at most 8 KiB
PLAN_ATTEMPTS = 12  # plans made with more room kept for the tree and the notice
QUICK_ATTEMPTS = 3  # of those, the ones that keep just the room the last plan needed
SHOWN_NAMES = 3  # names in a notice too long to name them all


class Cut(NamedTuple):
    """The head of a file, framed with the notice that says how to see the rest."""

    text: str
    bytes: int
    lines: int
    head: str
    note: str
    shown: int  # lines shown
    tokens: float = 0.0  # estimated, with a budget of tokens


class Item(NamedTuple):
    """A file the selection shows (or the diff), as the first pass found it."""

    ordinal: int  # its place among the selection's events
    candidate: Candidate | None  # None: the diff of --with-diff
    rel: str
    path: str  # as shown


class Budgeted(NamedTuple):
    """The budget as given: what was asked, and the limits it makes."""

    max_bytes: int | None
    max_lines: int | None
    max_tokens: int | None

    @property
    def limits(self) -> Budget:
        return Budget(
            self.max_bytes or NO_LIMIT, self.max_lines or NO_LIMIT, self.max_tokens or UNCOUNTED
        )

    def options_for(self, need_bytes: int, need_lines: int, need_tokens: float) -> list[str]:
        """The options, among those given, that would hold `need_bytes`, `need_lines` and
        `need_tokens`."""
        options = []
        if self.max_tokens is not None and need_tokens > self.max_tokens:
            options.append(f"--max-tokens {_round_up(math.ceil(need_tokens), 1000)}")
        if self.max_bytes is not None and need_bytes > self.max_bytes:
            options.append(f"--max-bytes {_round_up(need_bytes, 1024)}")
        if self.max_lines is not None and need_lines > self.max_lines:
            options.append(f"--max-lines {need_lines}")
        return options


def _round_up(value: int, base: int) -> str:
    """`value` rounded up to a size `parse_size` reads: `812`, `13k`, `2M`."""
    if value < base:
        return str(value)
    if value < 10 * base * base:
        return f"{-(-value // base)}k"
    return f"{-(-value // (base * base))}M"


def budget_of(request: GlobRequest) -> Budgeted | None:
    if not request.budgeted:
        return None
    return Budgeted(request.max_bytes, request.max_lines, request.max_tokens)


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
        self.framing = framing_for(
            request.format,
            line_numbers=request.line_numbers,
            reserved=reserved_label(request),
            guard=request.face.guard_sections,
        )
        self.reader = candidate_reader(request)
        self.source = _Source(request, selection, self.reader)
        self.items: list[Item] = []
        self.entries: list[Entry] = []
        self.costs: StatsTree | None = None  # with `stats`: the tree, made as files come
        self.diff: str | None = None
        self._last_text: tuple[int, TextFile | None] | None = None  # the last text cut
        self._files_in: Counter[str] | None = None  # files in each directory
        self._parent_of: list[str | None] | None = None  # each item's directory
        self._names: tuple[tuple[int, ...], list[str]] | None = None  # the last names
        self._need: tuple[int, int, float] | None = None
        self._written_cut: tuple[int, Cut] | None = None  # the cut the plan chose
        self._least_frame: int | None = None
        self._shown_names: dict[int, str] = {}  # position -> the file's name in a notice
        self._groups: dict[tuple[int, ...], list[str]] = {}  # positions -> their names
        self._base_names: dict[int, str | None] = {}  # position -> its name in a group
        self._by_size: list[Entry] | None = None  # the entries, the smallest first
        # Texts of the first pass kept for the second, the smallest first, within the
        # budget and `KEEP_BYTES`.
        self._kept: dict[int, TextFile] = {}
        self._kept_sizes: list[tuple[int, int]] = []  # a heap of (-bytes, position)
        self._kept_bytes = 0
        budget = budget_of(request)
        self._keep_bytes = 0
        if budget is not None and not request.stats:  # --stats writes no text
            limits = budget.limits
            by_tokens = limits.max_tokens * KEEP_BYTES_PER_TOKEN
            self._keep_bytes = int(min(limits.max_bytes, by_tokens, KEEP_BYTES))
        # Newlines are counted only for a budget of lines (counting them costs more than
        # framing a block): without one, a block's `lines` is 0. Tokens are estimated only
        # for a budget of tokens: without one, a block's `tokens` is 0.
        self.lines = request.max_lines is not None
        self.tokens = request.max_tokens is not None
        # Of a long text, the first pass holds only what a cut can show (`held_text`).
        self._hold = held_chars(request, self.reader.limits)

    # -- pass 1 --

    def gather(self, selection: Selection, *, sizes: bool, stats: bool) -> None:
        """Read the selection once and report what is not shown; of what is, keep
        - with `sizes` (a budget), its block framed and measured (`items`, `entries`);
        - with `stats`, what it costs as stored (`costs`), from its bytes, not decoded;
        - with neither (`--tree` alone), that it is shown (`items`), seen by its name and
          first bytes where its text cannot change that."""
        request, report = self.request, self.report
        absolute = request.absolute
        tree = not sizes and not stats
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
        for ordinal, (event, done) in enumerate(selection):
            if isinstance(event, Skip):
                report.selected_skip(event, absolute)
                continue
            rel = event.rel
            path = shown_path(report.root, rel, True) if absolute else rel
            self.sink.file_done(path)
            cost: MeasuredFile | None = None
            if isinstance(done, MeasuredFile):  # measured by the helper process
                cost, done = done, None
            elif measure is not None and not request.staged and not sizes:
                # (staged: measured as read; with a budget, a text is measured as it is
                # read, in whichever process reads it: `TextFile.cost`)
                measured = self.reader.measure(event, path, measure)
                if isinstance(measured, (Skipped, Failed)):
                    self._not_shown(path, measured)
                    continue
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
                continue
            item = Item(ordinal, event, rel, path)
            keep = self._hold if sizes and not credentials_name(rel) else None
            result = done if done is not None else self.reader(event, path, keep)
            if isinstance(result, TextFile):
                checked = report.checked(event.rel, path, result, request.secrets)
                if checked is None:
                    continue
                if stats:
                    self._cost(item, cost or self._stored_cost(event, path, checked))
                if sizes:
                    index = len(self.entries) + 1  # the most it can be
                    text = checked.text
                    size, lines, tokens = text_block_measure(  # its text weighed as read
                        self.framing,
                        report.root,
                        item.rel,
                        path,
                        text if checked.whole is None else text._replace(body=""),
                        index,
                        lines=self.lines,
                        tokens=self.tokens,
                        weight_of_text=checked.weight if checked.whole is None else 0.0,
                    )
                    if checked.whole is not None:  # only its start held: the frame and all
                        whole_bytes, whole_newlines, whole_tokens = whole_cost(checked)
                        size += whole_bytes
                        lines += whole_newlines if self.lines else 0
                        tokens += whole_tokens if self.tokens else 0.0
                    elif size <= self._keep_bytes:
                        self._keep(len(self.entries), checked, size)
                    self._add(item, (size, lines), text.body, cuttable=True, tokens=tokens)
                elif tree:
                    self.items.append(item)
            elif isinstance(result, AssetFile):
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
            elif result is not None:
                self._not_shown(path, result)
        self.diff = None if stats else report.checked_diff(request, selection.diff)
        if self.diff is not None:
            label = diff_label(request)
            item = Item(-1, None, label, label)
            if sizes:
                index = len(self.entries) + 1
                block = diff_block(self.framing, request, self.diff, index)
                tokens = (
                    diff_tokens(self.framing, request, self.diff, index) if self.tokens else 0.0
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
        """The estimated tokens of a text file's block (`glob.text_block_tokens`); `known`,
        its text's own if they were weighed as it was read."""
        return text_block_tokens(
            self.framing, self.report.root, item.rel, item.path, text, index, known
        )

    def _add(
        self, item: Item, size: tuple[int, int], body: str, *, cuttable: bool, tokens: float
    ) -> None:
        """Keep the size of a block (bytes, newlines, estimated tokens), not its text."""
        first_end = body.find("\n")
        first = body[: first_end + 1] if first_end >= 0 else body
        position = len(self.entries)
        first_bytes = utf8_len(first)
        block = _Block(self, position, size[0], size[1], first_bytes, tokens)
        if self.tokens and cuttable and size[0]:
            # About its first line's tokens, at the block's tokens a byte: only a bound that
            # spares reading a file again for a cut that cannot fit.
            block.first_tokens = tokens * first_bytes / size[0]
        self.items.append(item)
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
            self._least_frame = utf8_len(self.framing.block("", "", 1, note=_LEAST_NOTE))
        return self._least_frame

    def least_frame_tokens(self) -> float:
        """`least_frame` in tokens (0 without a budget of tokens)."""
        if not self.tokens:
            return 0.0
        return weigh(self.framing.block("", "", 1, note=_LEAST_NOTE))

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

    def plan(self, budget: Budgeted | None) -> tuple[Packing, str, str]:
        """The packing, and the start (tree) and end (closing notice) written around it."""
        entries = self.entries
        if budget is None:  # --tree alone: everything
            everything = Packing(_all(len(self.items)), False, ())
            return everything, *self._ends(everything, None)
        limits = budget.limits
        joint = size_of(self.framing.joint)
        joint_tokens = weigh(self.framing.joint) if self.tokens else 0.0
        least_tokens = self.least_frame_tokens()
        # The newline after the content ends its last line: a byte and a line.
        keep_bytes, keep_lines, keep_tokens = 1, 1, 0.0
        for attempt in range(PLAN_ATTEMPTS):
            room = Budget(
                limits.max_bytes - keep_bytes,
                limits.max_lines - keep_lines,
                limits.max_tokens - keep_tokens,
            )
            if room.max_bytes < 0 or room.max_lines < 0 or room.max_tokens < 0:
                break
            packing = self._pack(room, joint, joint_tokens, least_tokens)
            start, end = self._ends(packing, budget)
            cost_bytes = utf8_len(start) + utf8_len(end) + 1
            cost_lines = start.count("\n") + end.count("\n") + 1
            cost_tokens = self._ends_tokens(start, end)
            if cost_bytes <= keep_bytes and cost_lines <= keep_lines and cost_tokens <= keep_tokens:
                return packing, start, end
            if attempt >= QUICK_ATTEMPTS:  # still growing: keep more at once, to end soon
                cost_bytes, cost_lines, cost_tokens = (
                    max(cost_bytes, 2 * keep_bytes),
                    max(cost_lines, 2 * keep_lines),
                    max(cost_tokens, 2 * keep_tokens),
                )
            keep_bytes, keep_lines = max(keep_bytes, cost_bytes), max(keep_lines, cost_lines)
            keep_tokens = max(keep_tokens, cost_tokens)
        nothing = Packing(_none(), False, tuple(range(len(entries))))
        start, end = self._ends(nothing, budget)
        if (
            utf8_len(end) + 1 > limits.max_bytes
            or end.count("\n") + 1 > limits.max_lines
            or self._ends_tokens("", end) > limits.max_tokens
        ):
            end = ""  # not even the notice fits: it is said on stderr alone
        return nothing, start, end

    def _pack(
        self, room: Budget, joint: tuple[int, int], joint_tokens: float, least_tokens: float
    ) -> Packing:
        """`pack_blocks` of the entries in `room`. The diff of `--with-diff` comes first:
        it is what a review of the change is for, so where it fits, its room (and a joint)
        is kept before the files are packed, and it is shown whole whatever they take."""
        entries: Sequence[Entry] = self.entries
        diff = entries[-1] if self.diff is not None and entries else None
        reserved = None
        if diff is not None:
            block = diff.block
            reserved = Budget(
                room.max_bytes - block.bytes - joint[0],
                room.max_lines - block.lines - joint[1],
                room.max_tokens - block.tokens - joint_tokens,
            )
            if min(reserved.max_bytes, reserved.max_lines, reserved.max_tokens) < 0:
                reserved = None  # it does not fit: packed with the files, as one of them
            else:
                entries = entries[:-1]
        if self._by_size is None or len(self._by_size) != len(entries):
            self._by_size = by_size(entries)
        packing = pack_blocks(
            entries,
            reserved or room,
            joint=joint,
            joint_tokens=joint_tokens,
            least_cut=self.least_frame(),
            least_cut_tokens=least_tokens,
            smallest=self._by_size,
        )
        if reserved is None or diff is None:
            return packing
        plan = packing.plan
        full = plan.full | {diff.position}
        return packing._replace(plan=plan._replace(full=full, full_success=plan.full_success + 1))

    def _ends_tokens(self, start: str, end: str) -> float:
        """The tokens of the start, the end and the newline after the content (0 without
        a budget of tokens), each weighed as the sink weighs what it writes."""
        if not self.tokens:
            return 0.0
        return weigh(start) + weigh(end) + weigh("\n")

    def _ends(self, packing: Packing, budget: Budgeted | None) -> tuple[str, str]:
        plan = packing.plan
        shown = sorted(plan.full)
        if plan.partial_index is not None:
            shown = sorted({*shown, plan.partial_index})
        note = self._left_out_note(packing, budget) if packing.omitted else ""
        if not shown:
            return "", self.framing.end(False, note)
        tree = None
        if self.request.tree:
            tree = self.tree([self.items[i] for i in shown])
        return self.framing.start(tree), self.framing.end(True, note)

    def tree(self, items: Sequence[Item]) -> str:
        from readmany.frame.tree import render_tree

        files = [item.rel for item in items if item.candidate is not None]
        return render_tree(files, self.report.root if self.request.absolute else ".")

    def _left_out_note(self, packing: Packing, budget: Budgeted | None) -> str:
        """The closing notice: what the budget left out, and the budget that holds all.

        It names every file (`left_out_names`) where that takes at most a quarter of the
        budget (8 KiB where only lines are counted); else the first few and the count,
        else the count alone, the rest being named on stderr and in the `--json` details;
        else (a tiny budget) nothing."""
        assert budget is not None
        names = self.left_out_names(packing.omitted)
        options = budget.options_for(*self.need())
        tail = f" All {len(self.entries)} take {' '.join(options)}." if options else ""
        count = len(packing.omitted)
        files = f"{count} {'file' if count == 1 else 'files'}"
        first = ", ".join(names[:SHOWN_NAMES])
        forms = (
            f"[Left out by the budget: {', '.join(names)}.{tail}]",
            f"[Left out by the budget: {files}: {first}, … (all named on stderr and in "
            f"--json details.packing).{tail}]",
            f"[Left out by the budget: {files}.]",
        )
        limits = budget.limits
        share = NOTE_WITHOUT_BYTES  # a budget of lines alone
        token_share = limits.max_tokens / NOTE_SHARE
        if limits.max_bytes != NO_LIMIT:
            share = limits.max_bytes // NOTE_SHARE
        elif self.tokens:
            share = NO_LIMIT
        for form in forms:
            if utf8_len(form) <= share and (not self.tokens or weigh(form) <= token_share):
                return form
        return ""

    def left_out_names(self, omitted: Sequence[int]) -> list[str]:
        """The files left out, in output order: a directory whose files are all left out
        by its name (`docs/ (12 files)`), files next to each other in one directory
        together (`src/{a.py, b.py}`), other files by their path."""
        key = tuple(omitted)
        if self._names is not None and self._names[0] == key:
            return self._names[1]
        parents = self._parents()
        if self._files_in is None:
            self._files_in = _files_in(parent for parent in parents if parent is not None)
        files_in = self._files_in
        left_in = _files_in(parent for i in omitted if (parent := parents[i]) is not None)
        whole = {d for d, count in left_in.items() if count == files_in[d] and count > 1}
        highest: dict[str, str | None] = {}  # parent directory -> the highest left out whole
        names: list[str] = []
        named: set[str] = set()
        group_parent, group = "", list[int]()
        # Files next to each other in one directory come as one run: each run is judged
        # once, as its first file would be, and the others follow it.
        for parent, run in itertools.groupby(omitted, parents.__getitem__):
            if parent is None:  # the diff
                names.extend(self._grouped(group_parent, group))
                group_parent, group = "", []
                names.extend(_name(self.items[position].path) for position in run)
                continue
            if parent not in highest:
                highest[parent] = next((d for d in _ancestors(parent, True) if d in whole), None)
            directory = highest[parent]
            if directory is not None:
                if directory not in named:
                    named.add(directory)
                    names.extend(self._grouped(group_parent, group))
                    group_parent, group = "", []
                    names.append(f"{self._shown_dir(directory)} ({files_in[directory]} files)")
                continue
            if group and parent == group_parent:
                group.extend(run)
                continue
            names.extend(self._grouped(group_parent, group))
            group_parent, group = parent, list(run)
        names.extend(self._grouped(group_parent, group))
        self._names = key, names
        return names

    def _parents(self) -> list[str | None]:
        """Each item's directory ("" at the root); None for the diff."""
        if self._parent_of is None:
            self._parent_of = [
                item.rel.rpartition("/")[0] if item.candidate is not None else None
                for item in self.items
            ]
        return self._parent_of

    def _shown_dir(self, directory: str) -> str:
        return _name(shown_path(self.report.root, directory + "/", self.request.absolute))

    def _grouped(self, parent: str, positions: list[int]) -> list[str]:
        """Files of one directory: `dir/a.py`, or `dir/{a.py, b.py}` for more than one
        (kept: the plans made one after the other name mostly the same groups)."""
        if not positions:
            return []
        key = tuple(positions)
        grouped = self._groups.get(key)
        if grouped is None:
            grouped = self._groups[key] = self._group(parent, positions)
        return grouped

    def _group(self, parent: str, positions: list[int]) -> list[str]:
        if len(positions) == 1 or not parent:
            return [self._file_name(position) for position in positions]
        items = self.items
        names = [items[position].rel.rpartition("/")[2] for position in positions]
        if not _plain_names("/".join(names)):  # some name is quoted, or cannot be grouped
            names = [name for position in positions if (name := self._base_name(position))]
            if len(names) < len(positions):  # a brace or a comma would blur the group
                return [self._file_name(position) for position in positions]
        shown = _name(shown_path(self.report.root, parent + "/", self.request.absolute))
        return [f"{shown}{{{', '.join(names)}}}"]

    def _base_name(self, position: int) -> str | None:
        """A file's own name as a group names it; None if it cannot be in a group."""
        if position not in self._base_names:
            name = self.items[position].rel.rpartition("/")[2]
            self._base_names[position] = None if _BRACES.intersection(name) else _name(name)
        return self._base_names[position]

    def _file_name(self, position: int) -> str:
        """A file's path as a notice names it (kept: every plan names most files again)."""
        name = self._shown_names.get(position)
        if name is None:
            rel = self.items[position].rel
            name = self._shown_names[position] = _name(
                shown_path(self.report.root, rel, self.request.absolute)
            )
        return name

    def need(self) -> tuple[int, int, float]:
        """Bytes, lines and tokens of an output that shows every file whole (tokens 0
        without a budget of tokens)."""
        if self._need is not None:
            return self._need
        if not self.entries:
            return 0, 0, 0.0
        joint = self.framing.joint
        blocks = [entry.block for entry in self.entries]
        count = len(blocks)
        start = self.framing.start(self.tree(self.items) if self.request.tree else None)
        end = self.framing.end(True)
        need_bytes = sum(b.bytes for b in blocks) + (count - 1) * utf8_len(joint)
        need_lines = sum(b.lines for b in blocks) + (count - 1) * joint.count("\n")
        need_bytes += utf8_len(start) + utf8_len(end) + 1
        need_lines += start.count("\n") + end.count("\n") + 1
        need_tokens = 0.0
        if self.tokens:
            need_tokens = sum(b.tokens for b in blocks) + self._ends_tokens(start, end)
            need_tokens += (count - 1) * weigh(joint)
        self._need = need_bytes, need_lines, need_tokens
        return self._need

    # -- pass 2 --

    def write(self, packing: Packing, start: str, end: str) -> None:
        """Read the files shown again and write them, with the tree and the notice."""
        sink, report, framing = self.sink, self.report, self.framing
        plan = packing.plan
        late: list[int] = []
        left_out: list[str] = []
        index = 0
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
                result = _with_total(self.text_of(position))
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
        report.details["packing"] = details
        if self.entries and not index and not report.any_shown:
            report.problems.append(self._nothing_fits())

    def _block_tokens(self, position: int, result: object, index: int) -> float:
        """The estimated tokens of the block written at `position`, the `index`-th."""
        item = self.items[position]
        plan_cut = self._written_cut
        if item.candidate is None:
            assert self.diff is not None
            return diff_tokens(self.framing, self.request, self.diff, index)
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
            return diff_block(self.framing, self.request, self.diff, index), None
        kept = self._kept.pop(position, None)  # as checked and measured: written as it was
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
            return diff_tokens(self.framing, self.request, self.diff, position + 1)
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


_LEAST_NOTE = notices.showing(1, 1, 2, "readmany many :2")  # shorter than any cut's notice


class _Block:
    """A file's block as the planner sees it: its size, not its text (it is framed again
    when it is written); and `pack`'s way to cut it: the longest head of whole lines whose
    framed block fits, ending with the command that shows the rest."""

    __slots__ = (
        "bytes",
        "first_line",
        "first_tokens",
        "least",
        "least_tokens",
        "lines",
        "position",
        "run",
        "tokens",
    )
    text = ""

    def __init__(
        self, run: _Run, position: int, size: int, lines: int, first_line: int, tokens: float
    ) -> None:
        self.run = run
        self.position = position
        self.bytes = size
        self.lines = lines  # newlines in it
        self.tokens = tokens  # estimated, with a budget of tokens
        self.first_line = first_line  # bytes of the text's first line: a cut shows at least it
        self.first_tokens = 0.0  # ... and its tokens, with a budget of tokens
        self.least = 0  # bytes the block of one line takes at least; 0: not known yet
        self.least_tokens = -1.0  # ... and its tokens; negative: not known yet

    def __call__(self, max_lines: int, max_bytes: int) -> Cut | None:
        """The longest head within `max_lines` and `max_bytes` of text, framed."""
        room = max_bytes + PARTIAL_BYTE_SLACK  # as `pack` guesses the frame
        return self._cut(lambda _block: True, max_lines, max_bytes, room)

    def fill(self, room_lines: int, room_bytes: int, room_tokens: float = UNCOUNTED) -> Cut | None:
        """The longest head whose block fits `room_lines`, `room_bytes` and `room_tokens`
        (what `pack` asks of a cut that knows its frame)."""

        def fits(block: Cut) -> bool:
            return (
                block.bytes <= room_bytes
                and block.lines <= room_lines
                and block.tokens <= room_tokens
            )

        bound = room_bytes
        if room_tokens != UNCOUNTED:
            if self._least_tokens() > room_tokens:
                return None  # not even its first line: known without reading the file again
            # A head is searched for within so many bytes (a token is rarely more than
            # `CUT_BYTES_PER_TOKEN` of them): a long file is not split to its last line.
            bound = min(room_bytes, int(room_tokens * CUT_BYTES_PER_TOKEN))
        return self._cut(fits, room_lines, bound, room_bytes)

    def _least_tokens(self) -> float:
        """About the fewest tokens a cut of this file takes: its frame, with the shortest
        notice, and its first line."""
        if self.least_tokens < 0:
            self.least_tokens = weigh(self._least_frame()) + self.first_tokens
        return self.least_tokens

    def _least_frame(self) -> str:
        """This file's block with no line and the shortest notice: what any cut of it
        takes besides its lines."""
        run = self.run
        path = run.items[self.position].path
        return run.framing.block(path, "", self.position + 1, note=_LEAST_NOTE)

    def _cut(
        self, fits: Callable[[Cut], bool], max_lines: int, max_bytes: int, room: int
    ) -> Cut | None:
        run = self.run
        item = run.items[self.position]
        # The block of the first line alone is at least the frame of no line (with a
        # notice shorter than any, naming no path) and that line: when that cannot fit,
        # it is known without reading the file again.
        if not self.least:
            self.least = utf8_len(self._least_frame()) + self.first_line
        if self.least > room:
            return None
        result = run.text_of(self.position)
        if result is None:
            return None
        body = result.text.body
        total = _with_total(result).text.total_lines or body.count("\n") + (not body.endswith("\n"))
        ends, byte_ends = _line_ends(body, max_bytes)
        most = min(max_lines, bisect_right(byte_ends, max_bytes) - 1, total - 1)
        best = None
        low, high = 1, most  # the block grows with the lines it shows: search for the last
        while low <= high:
            count = (low + high) // 2
            block = self._framed(item, body[: ends[count]], count, total)
            if fits(block):
                best, low = block, count + 1
            else:
                high = count - 1
        return best

    def _framed(self, item: Item, head: str, count: int, total: int) -> Cut:
        run = self.run
        note = notices.showing(1, count, total, continue_with(run.report.root, item.rel, count + 1))
        index = self.position + 1
        text = run.framing.block(item.path, head, index, note=note)
        tokens = (
            run.framing.tokens(item.path, head, index, note=note, cut=True) if run.tokens else 0.0
        )
        return Cut(text, *size_of(text), head, note, count, tokens)


def _with_total(result: TextFile | None) -> Any:
    """The text, its count of lines that of all of it where only its start is held."""
    if result is None or result.whole is None:
        return result
    return result._replace(text=result.text._replace(total_lines=result.whole.lines))


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


def _line_ends(body: str, max_bytes: int) -> tuple[list[int], list[int]]:
    """Where each line ends (after its newline), in characters and in bytes: the lines
    within the first `max_bytes` bytes, and the one after them."""
    ends = [0]
    byte_ends = [0]
    at = body.find("\n")
    ascii_text = body.isascii()
    while at >= 0 and byte_ends[-1] <= max_bytes:
        ends.append(at + 1)
        if ascii_text:
            byte_ends.append(at + 1)
        else:
            byte_ends.append(byte_ends[-1] + utf8_len(body[ends[-2] : at + 1]))
        at = body.find("\n", at + 1)
    return ends, byte_ends


def _all(count: int) -> Plan:
    return Plan("request-order", frozenset(range(count)), count)


def _none() -> Plan:
    return Plan("request-order", frozenset(), 0)


_BRACES = frozenset("{},")


def _ancestors(directory: str, highest_first: bool = False) -> list[str]:
    """`a/b/c` gives `a/b/c`, `a/b`, `a` (or the other way round); `` gives nothing."""
    found = []
    while directory:
        found.append(directory)
        directory = directory.rpartition("/")[0]
    return found[::-1] if highest_first else found


def _files_in(parents: Iterable[str]) -> Counter[str]:
    """How many of the files in `parents` (their directories) each directory holds."""
    counts: Counter[str] = Counter()
    for parent, count in Counter(parents).items():
        for directory in _ancestors(parent):
            counts[directory] += count
    return counts


def _plain_names(joined: str) -> bool:
    """Whether every name of `joined` (names joined by `/`, which no name holds) is
    grouped as it is: `_base_name` would neither quote it nor refuse it. Thousands of
    names are looked at once, not one by one."""
    return (
        joined.isascii()
        and joined.isprintable()
        and not _UNPLAIN.intersection(joined)
        and not (joined.startswith(" ") or joined.endswith(" "))
        and "/ " not in joined
        and " /" not in joined
    )


_UNPLAIN = frozenset('{},"[')  # a brace or comma blurs a group; a quote or bracket is quoted


def _name(path: str) -> str:
    """A path as the notice names it: quoted where a comma list would blur it."""
    shown = header_path(path)
    if shown == path and (", " in path or path != path.strip() or path.startswith("[")):
        return quoted(path)
    return shown


# --- the runs ---------------------------------------------------------------------------


def run_planned(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """`glob` with a budget or `--tree`: measure, plan, write."""
    with selection or open_selection(request) as selection:
        report = Report(
            selection.root,
            keep_records=sink.json_mode,
            compat=False,
            git=git_kind(request),
            hook_id=request.hook_id,
        )
        run = _Run(request, sink, selection, report)
        with run.reader, contextlib.closing(run.source):
            budget = budget_of(request)
            run.gather(selection, sizes=budget is not None, stats=False)
            packing, start, end = run.plan(budget)
            run.write(packing, start, end)
    if not run.items and not report.any_shown:
        report.nothing_read_from(request)
    return report.outcome(sink.bytes_written, sink.tokens)


def _stats_advice(run: _Run, packing: Packing, budget: Budgeted) -> list[str]:
    """What `--stats` with a budget says on stderr, as the dump would: the lines the cut
    file would show, and the budget that shows every file whole."""
    said = []
    partial = packing.plan.partial
    if packing.plan.partial_index is not None and isinstance(partial, Cut):
        path = run.items[packing.plan.partial_index].path
        said.append(f"{path}: its first {partial.shown} lines would be shown, cut by the budget")
    options = budget.options_for(*run.need()) if packing.omitted or partial else []
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
            compat=False,
            git=git_kind(request),
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
                report.advice.extend(_stats_advice(run, packing, budget))
    assert run.costs is not None
    root = run.costs.finish(omitted, cut)
    if root.files:  # nothing read: nothing on stdout, as every run writes it
        sink.write(stats_text(root).removesuffix("\n"))
    if sink.json_mode:
        report.details["stats"] = stats_json(root)
    if not root.files:
        report.nothing_read_from(request)
    return report.outcome(sink.bytes_written, sink.tokens)
