"""`readmany completions SHELL`: the shell's completion script, as shipped."""

from __future__ import annotations

from readmany.choices import Shell
from readmany.commands.shipped import print_shipped


def main(shell: Shell) -> int:
    return print_shipped(shell)
