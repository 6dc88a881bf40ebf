"""What `readmany mcp` serves, as its command line gave it."""

from __future__ import annotations

from readmany.record import NamedTuple


class ServerConfig(NamedTuple):
    """What `readmany mcp` serves: the roots (real paths, the first where relative paths
    start), whether the edit tool is offered, the cap of `maxTokens` and `--secrets`."""

    roots: tuple[str, ...]
    allow_edit: bool = False
    max_tokens: int | None = None
    secrets: str = "redact"
