"""`readmany glob --parts`: the whole selection in numbered parts that each fit the budget.

The first pass is the planned run's (`glob_plan._Run.gather`): every file read, framed and
measured. `pack.parts` splits the blocks, in output order, into parts of the budget, with
room kept in each for its head (`notices.part_head`: "part 2 of 5", what this part and
every other holds) and its end. A file larger than a part is cut across parts by whole
lines (`Pieces`), each piece noting its lines and the parts that hold the rest; together
the parts hold every file once. A file that fits no part (a line, an image or the diff
larger than a part) is left out and said, on stderr and in `details.parts`. A budget of
tokens is split with each part rendered and counted and the split made again until
every part is within it (`pack.parts.counted_split`): counted exactly with a
`--tokenizer`, else by its pieces and merges (`merges.at_most`: the real count or more).

Where they go: `-o ctx.txt` writes `ctx.1.txt`, `ctx.2.txt`, … (each as `-o` writes a
file: `emit.target`), none on stdout; without `-o`, stdout (or `--copy`) gets them one
after the other. `--part K` writes part K alone (to `ctx.K.txt` with `-o`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from readmany.choices import Tokenizer
from readmany.commands.glob_plan import _Run, budget_of
from readmany.commands.glob_request import open_selection
from readmany.emit.outcome import Outcome
from readmany.emit.pieces import Pieces
from readmany.emit.planned import PlannedWriter
from readmany.emit.sink import Sink
from readmany.emit.target import part_name
from readmany.frame import notices, weigh
from readmany.pack import Budget
from readmany.pack.budget import planning_limits
from readmany.pack.parts import Parts, chosen, counted_split, plan_parts
from readmany.request.glob import GlobRequest
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.select.lookahead import Selection

IN_ANOTHER_PART = "in the other parts"
FITS_NO_PART = "fits no part of the budget"
HEAD_SHARE = 4  # a part's head names the others in at most 1/HEAD_SHARE of the budget


class _Written:
    """What the parts run wrote, for the report."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.counted: set[int] = set()


def _heads(run: _Run, parts: Parts) -> list[str]:
    """The head line of each part: what it and every other part holds, within a quarter
    of the budget (`HEAD_SHARE`)."""
    held = []
    for part in parts.parts:
        shares = []
        for share in part:
            path = run.items[share.position].path
            piece = share.piece
            shares.append((path, piece.first, piece.last) if piece is not None else (path, 0, 0))
        held.append(shares)
    count = len(parts.parts)
    limits = budget_of(run.request)
    assert limits is not None
    room = limits.limits
    most = room.max_bytes
    if room.counts_tokens:  # characters: a token is about 4 of them in a list of paths
        most = min(most, int(room.max_tokens * 3))
    most = max(1, most // HEAD_SHARE)
    return [notices.part_head(number, count, held, most) for number in range(1, count + 1)]


def _ends_cost(run: _Run, parts: Parts) -> Budget:
    """The most any part's head and end take (with the final newline)."""
    count = len(parts.parts)
    end = run.frames.framing.end(True)
    most = Budget(0, 0, 0.0)
    for number, head in enumerate(_heads(run, parts), 1):
        start = run.frames.framing.part_start(number, count, head)
        tokens = weigh(start) + weigh(end) + weigh("\n") if run.tokens else 0.0
        cost = Budget(
            utf8_len(start) + utf8_len(end) + 1, start.count("\n") + end.count("\n") + 1, tokens
        )
        most = Budget(
            max(most.max_bytes, cost.max_bytes),
            max(most.max_lines, cost.max_lines),
            max(most.max_tokens, cost.max_tokens),
        )
    return most


def run_parts(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """`glob --parts`: measure, split into parts, write them (or part `--part K`)."""
    budget = budget_of(request)
    assert budget is not None
    with selection or open_selection(request) as selection:
        run = _Run(request, sink, selection)
        report = run.report
        with run.reader, contextlib.closing(run.source):
            run.gather(selection, sizes=True, stats=False)
            written = _Written()
            found: Parts | None = Parts((), ())
            if run.entries:
                pieces = Pieces(
                    run.texts.whole,
                    lambda position: run.items[position].path,
                    run.frames.framing,
                    lines=run.lines,
                    tokens=run.tokens,
                )

                def split(planned: int | None) -> Parts | None:
                    return plan_parts(
                        run.entries,
                        planning_limits(budget, planned),
                        joint=run.frames.joint(),
                        piece=pieces,
                        ends=lambda parts: _ends_cost(run, parts),
                    )

                if budget.max_tokens:
                    found = _counted(run, split, budget.max_tokens)
                else:
                    found = split(None)
            parts = chosen(found, request.part)
            _write(run, parts, request, sink, written)
    if not run.items and not report.any_shown:
        report.nothing_read_from(request.staged, request.changed)
    return report.outcome(sink.bytes_written, sink.tokens)


def _counted(run: _Run, split: Callable[[int | None], Parts | None], budget: int) -> Parts:
    """The split whose every part, rendered and counted by `--tokenizer`, is within the
    budget of tokens (`pack.parts.counted_split`); said in `details.tokenizer`. Without
    a tokenizer, a part is counted by its pieces and merges, at least what it holds
    (`merges.at_most`)."""
    from readmany.merges import at_most
    from readmany.tokenizer import counter

    estimate = run.request.tokenizer is Tokenizer.ESTIMATE
    count = at_most if estimate else counter(run.request.tokenizer)
    found = counted_split(
        split, lambda parts: max(map(count, _rendered(run, parts)), default=0), budget
    )
    parts, most, renders = found
    run.report.details["tokenizer"] = {
        "name": run.request.tokenizer,
        "tokens": most,  # the largest part's
        "budget": budget,
        "renders": renders,
    }
    return parts


def _rendered(run: _Run, parts: Parts) -> list[str]:
    """Each part as it would be written (reported to no one, the texts kept)."""
    writer = PlannedWriter(run.first, run.frames, run.texts, run.sink, run.report)
    count, heads = len(parts.parts), _heads(run, parts)
    return [
        writer.rendered_part(
            part, run.frames.framing.part_start(number, count, heads[number - 1]), number
        )
        for number, part in enumerate(parts.parts, 1)
    ]


def _write(run: _Run, parts: Parts, request: GlobRequest, sink: Sink, written: _Written) -> None:
    report = run.report
    count = len(parts.parts)
    heads = _heads(run, parts)
    elsewhere: list[str] = []
    records: list[dict[str, object]] = []
    if request.part is not None:  # the files with nothing in the part written
        here = {share.position for share in parts.parts[request.part - 1]}
        for part in parts.parts:
            for share in part:
                if share.position not in here and (share.piece is None or share.piece.first == 1):
                    elsewhere.append(run.items[share.position].path)
    if request.output:
        from readmany.emit.target import check_parts

        numbers = range(1, count + 1) if request.part is None else (request.part,)
        check_parts(part_name(request.output, number) for number in numbers)
    for number, part in enumerate(parts.parts, 1):
        if request.part is not None and number != request.part:
            continue
        start = run.frames.framing.part_start(number, count, heads[number - 1])
        if request.output:
            from readmany.emit.target import open_part

            name = part_name(request.output, number)
            target = open_part(name)
            try:
                part_sink = Sink(target.stream, json_mode=False, weigh=sink.weigh)
                writer = PlannedWriter(run.first, run.frames, run.texts, part_sink, report)
                writer.write_part(part, start, number, written.counted)
                part_sink.finish({})
                target.commit()
            except BaseException:
                target.discard()
                raise
            written.names.append(name)
            records.append({"part": number, "path": name, "bytes": part_sink.bytes_written})
        else:
            if number > 1 and request.part is None:
                sink.write("\n")  # each part as a file holds it: its end, and a newline
            before = sink.bytes_written
            writer = PlannedWriter(run.first, run.frames, run.texts, sink, report)
            writer.write_part(part, start, number, written.counted)
            records.append({"part": number, "bytes": sink.bytes_written - before})
    report.tally.add_many(elsewhere, "omitted", IN_ANOTHER_PART)
    left = [run.items[position].path for position in parts.left_out]
    if left:
        report.tally.add_many(left, "omitted", FITS_NO_PART)
        report.budget_notes.append(f"{FITS_NO_PART} ({len(left)}): {', '.join(left)}")
        if not parts.parts:  # nothing at all written: as a budget no file fits (exit 1)
            report.problems.append(f"nothing written: every file {FITS_NO_PART}: raise it")
    if written.names:
        shown = (
            written.names[0]
            if len(written.names) == 1
            else f"{written.names[0]} … {written.names[-1]}"
        )
        report.advice.append(f"wrote {len(written.names)} of {count} parts: {shown}")
    report.details["parts"] = {
        "count": count,
        "written": records,
        "leftOutPaths": left,
    }
