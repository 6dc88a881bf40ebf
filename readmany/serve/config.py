"""What `readmany mcp` serves, as its command line gave it, and the server's log."""

from __future__ import annotations

import logging

from readmany.choices import Secrets
from readmany.record import NamedTuple

LOG = logging.getLogger("readmany.mcp")  # the server's log, on stderr


class ServerConfig(NamedTuple):
    """What `readmany mcp` serves: the roots (real paths, the first where relative paths
    start), whether the edit tool is offered, the cap of `maxTokens` and `--secrets`."""

    roots: tuple[str, ...]
    allow_edit: bool = False
    max_tokens: int | None = None
    secrets: Secrets = Secrets.REDACT
