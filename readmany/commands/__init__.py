"""One module per subcommand: each wires the stages (select → read → frame → pack → emit).

A command takes its request value and a `Sink`, writes its content through the sink and
returns an `Outcome` (`readmany.emit.outcome`); the CLI turns the outcome into the exit
code and stderr lines.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.commands.glob_request import GlobRequest
    from readmany.invoke import Options


SECRETS_MODES = ("off", "warn", "skip", "redact")


def secrets_mode(options: Options, *, redact: bool) -> str:
    """The `--secrets` mode of a run: as given, else `warn` with `--copy` (the text goes
    to a chat), else `off`; never anything with `--compat`. `redact`: the command can
    change what it shows (not hashline or edit, whose bytes must stay exact)."""
    from readmany.errors import UsageError

    given = options.text("secrets")
    if given is not None and given not in SECRETS_MODES:
        raise UsageError(f"--secrets {given!r}: give one of {', '.join(SECRETS_MODES)}")
    if options.flag("compat"):
        if given not in (None, "off"):
            raise UsageError("--compat writes the reference's text: leave out --secrets")
        return "off"
    if given == "redact" and not redact:
        raise UsageError(
            "--secrets redact would change the bytes the anchors stand for: use warn or skip"
        )
    if given is None:
        return "warn" if options.flag("copy") else "off"
    return given


def stdin_only(request: GlobRequest) -> bool:
    """Whether `glob`'s files are a `--stdin` list alone (nothing listed is said so)."""
    from readmany.invoke import StdinPaths

    return isinstance(request.literal_paths, StdinPaths) and not request.patterns
