"""`readmany edit`: its run (`edit.files`), its output to the terminal.

The edit is `readmany.edit.anchored` (pure, bytes to bytes); checking and writing the files
beneath the root is `readmany.edit.files`; the run is made from the command line in
`readmany.request.edit`. When standard output is a terminal, what a terminal acts on is
written as an escape, as every command writes it: a file's name and lines are in the diff
and the rows.
"""

from __future__ import annotations

import sys

from readmany.edit.files import EditRun, run_edit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.emit.sink import Writer


def main(run: EditRun) -> int:
    """`readmany edit` with its run; a failure to write the report is said in one line."""
    try:
        return run_edit(run, _standard_output())
    except OSError as exc:
        from readmany.emit.render import is_write_failure, output_failed

        if not is_write_failure(exc):
            raise
        # What failed is the report, after the files were written (none with --dry-run).
        done = "nothing was written" if run.dry_run else "the edit was written"
        return output_failed(f"standard output ({done})", exc)


def _standard_output() -> Writer:
    """stdout's buffer, behind the guard every command writes through on a terminal: a
    diff or a row shows a file's name and lines as they are. Pipes get the bytes."""
    from readmany.emit.quote import guard_terminal

    return guard_terminal(sys.stdout.buffer)
