"""`readmany mcp`: the tools of `many`, `glob`, `hashline` and `edit` served to an agent
over the Model Context Protocol, on stdin and stdout.

This module checks the command line and the roots; the server itself (`mcp_tools`) is
imported only once they are good and the SDK is installed, so that a mistake is said
in one line without loading it.
"""

from __future__ import annotations

import os

from readmany.commands import SECRETS_MODES
from readmany.errors import UsageError
from readmany.invoke import Options, current_directory
from readmany.record import NamedTuple

INSTALL_HINT = "readmany mcp needs the MCP SDK, an optional extra: pip install 'readmany[mcp]'"


class ServerConfig(NamedTuple):
    """What `readmany mcp` serves: the roots (real paths, the first where relative paths
    start), whether the edit tool is offered, the cap of `maxTokens` and `--secrets`."""

    roots: tuple[str, ...]
    allow_edit: bool = False
    max_tokens: int | None = None
    secrets: str = "redact"


def config_of(options: Options) -> ServerConfig:
    """The server's configuration from its command line; usage errors raise."""
    given = options.texts("root")
    if not given:
        raise UsageError("name the directories the tools may read: readmany mcp --root DIR")
    current_directory()
    roots: list[str] = []
    for root in given:
        refusal = root_refusal(root)
        if refusal is not None:
            raise UsageError(refusal)
        real = os.path.realpath(root)
        if real not in roots:
            roots.append(real)
    max_tokens = None
    text = options.text("max_tokens")
    if text is not None:
        from readmany.units import parse_size

        max_tokens = parse_size(text, "--max-tokens", base=1000)
    secrets = options.text("secrets") or "redact"
    if secrets not in SECRETS_MODES:
        raise UsageError(f"--secrets {secrets!r}: give one of {', '.join(SECRETS_MODES)}")
    return ServerConfig(tuple(roots), options.flag("allow_edit"), max_tokens, secrets)


def root_refusal(root: str) -> str | None:
    """Why `root` cannot be served (not a directory, the whole file system, the home
    directory or one that holds it, a git directory), or None."""
    from readmany.read.safe import refuse_root

    if not os.path.isdir(root):
        return f"--root {root!r} is not a directory"
    real = os.path.realpath(root)
    if real == "/":
        return f"--root {root}: is the whole file system: give a project's directory"
    home = os.path.expanduser("~")
    if home not in ("", "~", "/"):
        from readmany.select.boundary import inside

        real_home = os.path.realpath(home)
        if real == real_home:
            return f"--root {root}: is your home directory: give a project's directory"
        if inside(real_home, real):  # /home: every user's keys and configuration
            return f"--root {root}: holds your home directory: give a project's directory"
    return refuse_root(root)


def main(options: Options) -> int:
    """`readmany mcp`: check the roots, then serve until the client goes away."""
    import importlib.util

    config = config_of(options)
    try:
        found = importlib.util.find_spec("mcp.server") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UsageError(INSTALL_HINT)
    from readmany.commands.mcp_tools import serve

    return serve(config)
