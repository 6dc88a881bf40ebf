"""`readmany glob`: select by globs and ignore rules, read, frame with `--- path ---`.

The walk, the reads and the output advance together: each file is read and its section
written as the walk reaches it, in output order (the walk may run in a helper process
that also reads ahead: see `walker`). Memory does not grow with the number of
files: the per-file records of `--json` details are kept as text, in a temporary file
once they are long (`emit.jsonarray`).
"""

from __future__ import annotations

import os

from readmany.commands import glob_report
from readmany.commands.glob_files import shown_files
from readmany.commands.glob_request import candidate_reader, open_selection
from readmany.emit.messages import error_line
from readmany.emit.outcome import Outcome
from readmany.emit.render import present
from readmany.emit.sink import Sink
from readmany.emit.streamed import StreamedSections
from readmany.frame.formats import framing_for
from readmany.frame.sections import (
    diff_label,
)
from readmany.frame.separator import frame_end
from readmany.request.glob import GlobRequest
from readmany.select.lookahead import Selection

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass


def main(request: GlobRequest) -> int:
    """`readmany glob` with its request: run and presented."""
    value = request
    written = value.output
    if written and value.parts:  # -o names the parts: ctx.txt writes ctx.1.txt, …
        from readmany.emit.target import part_name

        written = part_name(written, value.part or 1)
    if written and (value.by_git or os.path.isfile(written)):
        _warn_if_tracked(written, value.by_git)
    # The walk starts first: in a helper process, it goes on while the rest is set up.
    with open_selection(value) as selection:
        run = run_glob
        presentation = value.presentation
        if value.parts:
            from readmany.commands import glob_parts

            run = glob_parts.run_parts
            presentation = presentation._replace(output=None)  # -o names the parts
        elif value.stats or value.budgeted or value.tree:
            from readmany.commands import glob_plan

            run = glob_plan.run_stats if value.stats else glob_plan.run_planned

        def run_and_name_the_configuration(sink: Sink) -> Outcome:
            outcome = run(value, sink, selection)
            if value.face.glob_details_config:
                outcome.details["config"] = value.config
            return outcome

        return present(run_and_name_the_configuration, presentation)


def _warn_if_tracked(output: str, by_git: bool) -> None:
    """A dump written into the work tree and tracked changes at every commit; and a
    tracked file that is no dump (`glob . -o main.py`) is replaced by one."""
    from readmany.select.git import is_tracked

    if not is_tracked(".", os.path.abspath(output)):
        return
    if by_git:
        error_line(
            f"warning: -o {output} is tracked by git: every run rewrites it, and pre-commit "
            "fails a hook that changes a tracked file; add it to .gitignore and run "
            f"`git rm --cached {output}`, or write it under .git/"
        )
    else:
        error_line(
            f"warning: -o {output} is a file git tracks: the dump replaces it "
            f"(`git restore {output}` brings back what was committed); write the dump "
            "under .git/ or to a name in .gitignore"
        )


def run_glob(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """Select, read, frame and write; `selection` is the walk if it was started already."""
    with (
        selection or open_selection(request) as selection,
        candidate_reader(request) as read,
    ):
        selection.when_waiting(sink.flush)
        face = request.face
        label = diff_label(request.staged, request.changed)
        framing = framing_for(
            request.format,
            line_numbers=request.line_numbers,
            reserved=label if request.with_diff else None,
            guard=face.guard_sections,
        )
        report = glob_report(
            request,
            selection.root,
            json_mode=sink.json_mode,
            reference_reasons=face.glob_reference_reasons,
        )
        sections = StreamedSections(framing, sink, report)
        shown = shown_files(
            selection,
            report,
            read,
            secrets=request.secrets,
            absolute=request.absolute,
            sink=sink,
        )
        for _ordinal, event, path, result, _cost in shown:
            sections.file(event.rel, path, result)
        diff = report.checked_diff(selection.diff, request.secrets, label)
    if diff is not None:
        sections.diff(label, diff)
    index = sections.written
    any_section = index > 0 or report.any_shown
    if face.glob_reference_ending:
        sink.write(frame_end(any_section))
    else:
        if any_section and not index:  # attachments alone (--json)
            sink.write(framing.start(None))
        sink.write(framing.end(any_section))
    if not any_section and face.glob_nothing_shown_said:
        report.nothing_read_from(request.staged, request.changed)
    return report.outcome(sink.bytes_written, sink.tokens)
