"""The files a `glob` run shows, in output order: the one loop over the selection's
events and the kinds of a read's result, for the streaming run and for the first pass of
a planned one. Each file is read where it must be and checked (`--secrets`, a
credentials file); what is not shown is reported, and what is, yielded."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from readmany.read.classify import credentials_name
from readmany.read.glob_file import AssetFile, Failed, Skipped, TextFile, decoded
from readmany.record import NamedTuple
from readmany.select.candidates import Candidate, Skip, shown_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.emit.report import Report
    from readmany.emit.sink import Sink
    from readmany.read.glob_file import CandidateReader, MatchedRead, MeasuredFile
    from readmany.select.lookahead import Selection

    # A first look at a file before it is read (the planned run's): whether that look
    # was all it needed, what it costs if that is known, and what was read of it.
    Look = Callable[
        [int, Candidate, str, "MatchedRead | MeasuredFile | None"],
        tuple[bool, "MeasuredFile | None", "MatchedRead | None"],
    ]


class ShownFile(NamedTuple):
    """A file the run shows: its place among the events, as shown, as read and checked."""

    ordinal: int
    candidate: Candidate
    path: str
    result: TextFile | AssetFile
    cost: MeasuredFile | None  # what it costs as stored, where the first look found it


def shown_files(
    selection: Selection,
    report: Report,
    read: CandidateReader,
    *,
    secrets: str,
    absolute: bool,
    sink: Sink,
    look: Look | None = None,
    hold: int | None = None,
) -> Iterator[ShownFile]:
    """The files of `selection` that are shown, each read (`read`, unless the helper
    process read it) and checked; the others reported to `report`. The progress display
    counts a file once it is written, or, with a first look (`look`), as it is looked at.
    `hold`: of a long text, only this much is held (`read_matched`'s `keep`), but of a
    credentials file, which is checked whole."""
    root = report.root
    for ordinal, (event, done) in enumerate(selection):
        if isinstance(event, Skip):
            report.selected_skip(event, shown_path(root, event.rel, absolute))
            continue
        path = shown_path(root, event.rel, True) if absolute else event.rel
        cost = None
        if look is not None:
            sink.file_done(path)
            handled, cost, done = look(ordinal, event, path, done)
            if handled:
                continue
        if done is not None:
            result = done
        else:
            # a credentials file is checked whole (and asked of only where a start is held)
            keep = hold if hold is None or not credentials_name(event.rel) else None
            result = read(event, path, keep)
        if isinstance(result, TextFile):
            if look is not None and result.data is not None:
                result = decoded(result)  # a plan measures and cuts the text
            checked = report.checked(event.rel, path, result, secrets)
            if checked is None:
                continue
            yield ShownFile(ordinal, event, path, checked, cost)
        elif isinstance(result, AssetFile):
            yield ShownFile(ordinal, event, path, result, cost)
        elif isinstance(result, Skipped):
            report.skip(path, result.reason, result.category)
        elif isinstance(result, Failed):
            report.read_failed(path, result)
        if look is None:
            sink.file_done(path)
