"""The MCP server of `readmany mcp`: the SDK's low-level server on stdin and stdout,
serving the tools of `readmany.serve.tools`.

The one module of readmany that imports the SDK, and only `readmany.commands.mcp` imports
it, once the SDK is known to be installed. The low-level server, not `MCPServer`: the
tools' schemas are given as the JSON Schema they are (`schemas`), with no pydantic model
built for their arguments, and a bad argument is refused in one line (`schemas.checked`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from readmany import __version__
from readmany.serve.config import LOG, ServerConfig
from readmany.serve.schemas import listed
from readmany.serve.tools import Tools, failed, warm_up


def build_server(config: ServerConfig) -> Server[Any]:
    """The server with its tools (edit only with --allow-edit)."""
    tools = Tools(config)
    listing = types.ListToolsResult(
        tools=[types.Tool.model_validate(tool) for tool in listed(config.allow_edit)]
    )

    async def list_tools(_context: Any, _params: Any) -> types.ListToolsResult:
        return listing

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, params.arguments
        try:
            result = await anyio.to_thread.run_sync(tools.call, name, arguments)
        except Exception as exc:  # the server serves on whatever a call meets
            LOG.exception("%s failed", name)
            result = failed(f"{name}: failed: {exc}")
        return types.CallToolResult.model_validate(result)

    return Server(
        "readmany",
        version=__version__,
        instructions=(
            "Read files of "
            + ", ".join(config.roots)
            + ": read_many for several files at once under one budget, read_many_files "
            "for globs with .gitignore honoured, read for anchored lines an edit can check, "
            "context_stats to see what a glob costs before reading it."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(config: ServerConfig) -> int:
    """Serve on stdin and stdout until the client closes the connection."""
    # The walk stays in this process: forking beside the server's threads is unsafe.
    os.environ["READMANY_PROCESSES"] = "1"
    os.chdir(config.roots[0])
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="readmany: %(message)s")
    server = build_server(config)
    threading.Thread(target=warm_up, name="readmany-warm-up", daemon=True).start()
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(_serve, server)
    return 0
