"""`readmany mcp`'s configuration, made from its command line: the roots checked (none
`/`, the home directory or a git directory, none inside another), the cap of `maxTokens`,
`--secrets`; and the SDK found, so that a missing extra is said in one line."""

from __future__ import annotations

import os

from readmany.choices import Secrets
from readmany.errors import UsageError
from readmany.request.given import Given, choice
from readmany.request.inputs import current_directory
from readmany.serve.config import ServerConfig
from readmany.serve.roots import nested_refusal, root_refusal

INSTALL_HINT = "readmany mcp needs the MCP SDK, an optional extra: pip install 'readmany[mcp]'"


def server_config(given: Given) -> ServerConfig:
    """What the server serves; a usage error for a bad root, option or a missing SDK."""
    named = given.texts("root")
    if not named:
        raise UsageError("name the directories the tools may read: readmany mcp --root DIR")
    current_directory()
    roots: list[str] = []
    for root in named:
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
    text = given.text("max_tokens")
    if text is not None:
        from readmany.request.given import parse_size

        max_tokens = parse_size(text, "--max-tokens", base=1000)
    word = given.text("secrets") or Secrets.REDACT
    secrets = choice(Secrets, word, f"--secrets {word!r}: give one of {', '.join(Secrets.words())}")
    config = ServerConfig(tuple(roots), given.flag("allow_edit"), max_tokens, secrets)
    _find_the_sdk()
    return config


def _find_the_sdk() -> None:
    import importlib.util

    try:
        found = importlib.util.find_spec("mcp.server") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UsageError(INSTALL_HINT)
