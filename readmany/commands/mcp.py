"""`readmany mcp`: the tools of `many`, `glob`, `hashline` and `edit` served to an agent
over the Model Context Protocol, on stdin and stdout (`readmany.serve`).

Its configuration is checked first (`readmany.request.mcp`: the roots, the options, the
SDK found); the server (`serve.server`, the SDK) is imported only then, so that a mistake
is said in one line without loading it.
"""

from __future__ import annotations

from readmany.serve.config import ServerConfig


def main(config: ServerConfig) -> int:
    """`readmany mcp`: serve until the client goes away."""
    from readmany.serve.server import serve

    return serve(config)
