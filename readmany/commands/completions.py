"""`readmany completions SHELL`: the shell's completion script, as shipped."""

from __future__ import annotations

from readmany.commands.shipped import print_shipped
from readmany.errors import UsageError
from readmany.invoke import Options

SHELLS = ("bash", "zsh", "fish")


def main(options: Options) -> int:
    shell = options.text("shell") or ""
    if shell not in SHELLS:
        raise UsageError(f"completions {shell!r}: give bash, zsh or fish")
    return print_shipped(shell)
