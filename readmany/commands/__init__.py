"""One module per subcommand: each wires the stages (select → read → frame → pack → emit).

A command's `main` is given its typed request (`readmany.request` makes it from the
command line); it writes its content through a `Sink` and returns an `Outcome`
(`readmany.emit.outcome`), which `emit.render.present` turns into the exit code and
stderr lines.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.emit.report import Report
    from readmany.request.glob import GlobRequest


def glob_report(
    request: GlobRequest, root: str, *, json_mode: bool, reference_reasons: bool
) -> Report:
    """The report of one `glob` run, streamed or planned: what became of each file,
    with `--json` records kept, the reference's reasons where asked, what git named,
    and whether the files are a `--stdin` list alone (nothing listed is said so)."""
    from readmany.emit.report import Report, git_kind
    from readmany.request.inputs import StdinPaths

    return Report(
        root,
        keep_records=json_mode,
        reference_reasons=reference_reasons,
        git=git_kind(request.staged, request.changed),
        stdin_only=isinstance(request.literal_paths, StdinPaths) and not request.patterns,
        hook_id=request.hook_id,
    )
