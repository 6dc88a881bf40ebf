"""`readmany mcp`: the tools of `many`, `glob`, `hashline` and `edit` served to an agent
over the Model Context Protocol, on stdin and stdout (`readmany.serve`).

This module checks the command line and the roots; the server (`serve.server`, the SDK)
is imported only once they are good and the SDK is installed, so that a mistake is said
in one line without loading it.
"""

from __future__ import annotations

import os

from readmany.commands import SECRETS_MODES
from readmany.errors import UsageError
from readmany.invoke import Options, current_directory
from readmany.serve.config import ServerConfig
from readmany.serve.roots import nested_refusal, root_refusal

INSTALL_HINT = "readmany mcp needs the MCP SDK, an optional extra: pip install 'readmany[mcp]'"


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
    refusal = nested_refusal(roots)
    if refusal is not None:
        raise UsageError(refusal)
    max_tokens = None
    text = options.text("max_tokens")
    if text is not None:
        from readmany.units import parse_size

        max_tokens = parse_size(text, "--max-tokens", base=1000)
    secrets = options.text("secrets") or "redact"
    if secrets not in SECRETS_MODES:
        raise UsageError(f"--secrets {secrets!r}: give one of {', '.join(SECRETS_MODES)}")
    return ServerConfig(tuple(roots), options.flag("allow_edit"), max_tokens, secrets)


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
    from readmany.serve.server import serve

    return serve(config)
