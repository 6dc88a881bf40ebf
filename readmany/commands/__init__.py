"""One module per subcommand: each wires the stages (select → read → frame → pack → emit).

A command's `main` is given its typed request (`readmany.request` makes it from the
command line); it writes its content through a `Sink` and returns an `Outcome`
(`readmany.emit.outcome`), which `emit.render.present` turns into the exit code and
stderr lines.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.request.glob import GlobRequest


def stdin_only(request: GlobRequest) -> bool:
    """Whether `glob`'s files are a `--stdin` list alone (nothing listed is said so)."""
    from readmany.request.inputs import StdinPaths

    return isinstance(request.literal_paths, StdinPaths) and not request.patterns
