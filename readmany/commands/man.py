"""`readmany man`: the man page (roff), as shipped."""

from __future__ import annotations

from readmany.commands.shipped import print_shipped
from readmany.invoke import Options


def main(options: Options) -> int:
    del options  # `readmany man` takes no options
    return print_shipped("man")
