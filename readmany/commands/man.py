"""`readmany man`: the man page (roff), as shipped."""

from __future__ import annotations

from readmany.commands.shipped import print_shipped


def main(request: None) -> int:
    del request  # `readmany man` takes no options
    return print_shipped("man")
