"""The MCP server of `readmany mcp`: each tool builds the request value its command
builds, runs it through the command's own `run_*` function into a `Sink`, and answers
with the text `--compat` writes (its JSON content, details and attachments).

Only `readmany.commands.mcp` imports this module, and only once the SDK is known to be
installed: nothing else in readmany imports the SDK.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import (
    BlobResourceContents,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field, WithJsonSchema

from readmany import __version__
from readmany.commands.mcp import ServerConfig
from readmany.emit.outcome import Outcome
from readmany.emit.sink import Sink
from readmany.errors import UsageError
from readmany.faces import Face
from readmany.limits import MANY_MAX_FILES, READ_MAX_BYTES, READ_MAX_LINES
from readmany.pack import UNCOUNTED, Budget
from readmany.read.classify import credentials_name
from readmany.read.line_range import resolve_path
from readmany.select.boundary import (
    blocked,
    inside,
    rel_parts,
    secret_file_refusal,
    secret_file_words,
    target_name,
)

LOG = logging.getLogger("readmany.mcp")
DETAILS_KEY = "readmany/details"  # the `_meta` key of a result's details (--json's)
# The SDK runs a tool on a worker thread; one runs at a time, as one command line would
# (an edit's stderr is captured process-wide).
_ONE_AT_A_TIME = threading.Lock()


class ToolFailed(Exception):
    """A request the tool refuses, in the CLI's one-line words."""


# -- the roots -------------------------------------------------------------------------


class Roots:
    """The directories the tools may read; the first is the working directory."""

    def __init__(self, roots: tuple[str, ...]) -> None:
        self.roots = roots
        self.cwd = roots[0]

    def root_of(self, path: str, *, rewrite: bool) -> str:
        """The root `path` lies in, as the read resolves it (`rewrite`: the read tool's
        `@`, `~` and Unicode spaces), judged by the walk's rules: no `..`, nothing
        outside a root, no link out of it, nothing under .git or node_modules, no
        secret file by name. Raises ToolFailed."""
        if "\0" in path:
            raise ToolFailed(f"{path!r}: a path cannot hold a NUL character")
        if ".." in path.replace("\\", "/").split("/"):
            raise ToolFailed(f"{path}: '..' is not allowed: give a path inside {self._names()}")
        absolute = resolve_path(path, self.cwd, rewrite=rewrite)
        root = next((r for r in self.roots if inside(absolute, r)), None)
        if root is None:
            raise ToolFailed(f"{path}: outside the roots: give a path inside {self._names()}")
        real = os.path.realpath(absolute)
        if not inside(real, root):
            raise ToolFailed(f"{path}: a link that leads out of the root {root}: not read")
        refusal = secret_file_refusal(path, target_name(absolute))
        if refusal is not None:
            raise ToolFailed(refusal)
        if blocked(rel_parts(absolute, root)) or blocked(rel_parts(real, root)):
            raise ToolFailed(f"{path}: inside .git, .env or node_modules: not read")
        kind = credentials_name(path) or credentials_name(real)
        if kind is not None and _holds_credentials(kind, real):
            raise ToolFailed(secret_file_words(path, "it holds a token or password"))
        return root

    def _names(self) -> str:
        return " or ".join(self.roots)


_CREDENTIALS_BYTES = 1 << 20  # an .npmrc or .pypirc is a few lines


def _holds_credentials(kind: str, real: str) -> bool:
    """Whether the `.npmrc` or `.pypirc` at `real` holds a token or password, as glob
    judges it (one that cannot be read is left to the read to report)."""
    from readmany.read.safe import OpenFailure, open_regular, read_prefix
    from readmany.read.secrets import holds_credentials

    try:
        fd, _st = open_regular(real)
    except (OpenFailure, OSError):
        return False
    try:
        text = read_prefix(fd, _CREDENTIALS_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    finally:
        os.close(fd)
    return holds_credentials(kind, text)


# -- running a command's own code ------------------------------------------------------


def collect(command: Callable[[Sink], Outcome]) -> CallToolResult:
    """Run `command` into a JSON sink, as `--json` would; the result of the tool."""
    buffer = io.BytesIO()
    sink = Sink(buffer, json_mode=True)
    try:
        with _ONE_AT_A_TIME:
            outcome = command(sink)
    except (UsageError, ToolFailed) as exc:
        return failed(str(exc))
    if outcome.failure is not None:
        return failed(outcome.failure)
    sink.finish(outcome.details, list(outcome.attachments))
    report = json.loads(buffer.getvalue().decode("utf-8", "replace"))
    for line in (*outcome.problems, *outcome.notices):
        LOG.info("%s", line)
    content: list[ContentBlock] = [TextContent(type="text", text=report["content"])]
    content.extend(_attachment(item) for item in report.get("attachments", ()))
    return CallToolResult(content=content, _meta={DETAILS_KEY: report["details"]})


def _attachment(item: dict[str, str]) -> ContentBlock:
    """An image as MCP image content; a PDF, audio or video as an embedded resource."""
    mime, data = item["mimeType"], item["data"]
    if mime.startswith("image/"):
        return ImageContent(type="image", data=data, mime_type=mime)
    uri = "file://" + item["path"] if item["path"].startswith("/") else "file:///" + item["path"]
    return EmbeddedResource(
        type="resource", resource=BlobResourceContents(uri=uri, mime_type=mime, blob=data)
    )


def fits(text: str, budget: Budget) -> bool:
    """Whether `text` is within the budget, as the packing weighs it."""
    from readmany.frame import weigh

    if len(text.encode("utf-8", "surrogatepass")) > budget.max_bytes:
        return False
    if text.count("\n") + 1 > budget.max_lines:
        return False
    return not budget.counts_tokens or weigh(text) <= budget.max_tokens


def failed(message: str) -> CallToolResult:
    """A tool error: the one line the CLI says (`readmany: ` left off)."""
    LOG.info("refused: %s", message)
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def captured_stderr(run: Callable[[], int]) -> tuple[int, list[str]]:
    """Run a command that says its refusals with `error_line`; the lines it said."""
    words = io.StringIO()
    with _ONE_AT_A_TIME, contextlib.redirect_stderr(words):
        code = run()
    return code, [line.removeprefix("readmany: ") for line in words.getvalue().splitlines()]


# -- the tools' arguments --------------------------------------------------------------

# read_many's arguments as the reference declares them. The values are checked by the
# command's own `parse_request_object`, so a bad one is refused in the CLI's words
# (`too many files: 27 given, at most 26 per call (files: must NOT have more than 26 items)`).
FILES_SCHEMA = {
    "type": "array",
    "minItems": 1,
    "maxItems": MANY_MAX_FILES,
    "description": "The files to read, in order.",
    "items": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Relative (to the first root) or absolute."},
            "offset": {"type": "number", "description": "1-based first line."},
            "limit": {"type": "number", "description": "The most lines to read."},
        },
        "required": ["path"],
    },
}
STOP_SCHEMA = {
    "type": "boolean",
    "default": False,
    "description": "Stop after the first file that cannot be read.",
}


class FileFiltering(BaseModel):
    respect_git_ignore: bool = True
    respect_gemini_ignore: bool = True


MaxTokens = Annotated[
    int | None,
    Field(
        ge=1,
        description="readmany's own: a budget of estimated tokens (o200k_base) for the "
        "whole result, in place of the 50 KB / 2000 lines limit, within the server's "
        "--max-tokens.",
    ),
]
Pattern = Annotated[str, Field(min_length=1)]


class Tools:
    """The tools, bound to a server's configuration."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.roots = Roots(config.roots)

    def budget(self, max_tokens: int | None) -> Budget:
        """A result's limit: the reference's 50 KB / 2000 lines; a `maxTokens` below the
        server's `--max-tokens` (without one: within the 50 KB / 2000 lines too)."""
        cap = self.config.max_tokens
        if cap is None:
            tokens = UNCOUNTED if max_tokens is None else float(max_tokens)
            return Budget(READ_MAX_BYTES, READ_MAX_LINES, tokens)
        if max_tokens is None:
            return Budget(READ_MAX_BYTES, READ_MAX_LINES, float(cap))
        return Budget(sys.maxsize, sys.maxsize, float(min(max_tokens, cap)))

    # -- read_many -------------------------------------------------------------------

    def read_many(
        self,
        files: Annotated[Any, WithJsonSchema(FILES_SCHEMA)],
        stopOnError: Annotated[Any, WithJsonSchema(STOP_SCHEMA)] = False,
        maxTokens: MaxTokens = None,
    ) -> CallToolResult:
        from readmany.commands.many import parse_request_object, run_many
        from readmany.commands.many_request import BudgetAsked

        arguments = {"files": files, "stopOnError": stopOnError}

        def command(sink: Sink) -> Outcome:
            request = parse_request_object(arguments, self.roots.cwd, MANY_MAX_FILES)
            for file in request.files:
                self.roots.root_of(file.path, rewrite=True)
            budget = self.budget(maxTokens)
            asked = BudgetAsked(budget.max_bytes, budget.max_lines)
            value = request._replace(
                budget=budget, face=Face.reference(), asked=asked, secrets=self.config.secrets
            )
            return run_many(value, sink)

        return collect(command)

    # -- read_many_files -------------------------------------------------------------

    def glob_request(
        self,
        include: list[str] | None,
        paths: list[str] | None,
        exclude: list[str],
        recursive: bool,
        use_default_excludes: bool,
        filtering: FileFiltering | None,
    ) -> Any:
        from readmany.commands.glob_request import GlobRequest

        patterns = (*(paths or ()), *(include or ()))
        if not patterns:
            raise ToolFailed("params must have required property 'include'")
        filtering = filtering or FileFiltering()
        # As Gemini CLI calls it: its own ignore file, and GEMINI.md among the excludes.
        excludes = tuple(exclude)
        if use_default_excludes:
            excludes = ("**/GEMINI.md", *excludes)
        return GlobRequest(
            patterns=patterns,
            excludes=excludes,
            use_default_excludes=use_default_excludes,
            use_gitignore=filtering.respect_git_ignore,
            ignore_files=(".geminiignore",) if filtering.respect_gemini_ignore else (),
            recursive=recursive,
            root=self.roots.cwd,
            absolute=True,
            face=Face.reference(),
            secrets=self.config.secrets,
            json=True,
        )

    def read_many_files(
        self,
        include: Annotated[list[Pattern] | None, Field(min_length=1)] = None,
        exclude: list[Pattern] | None = None,
        recursive: bool = True,
        useDefaultExcludes: bool = True,
        file_filtering_options: FileFiltering | None = None,
        paths: Annotated[list[Pattern] | None, Field(min_length=1)] = None,
        maxTokens: MaxTokens = None,
        format: Literal["text", "markdown", "xml"] = "text",
    ) -> CallToolResult:
        from readmany.commands import glob_plan
        from readmany.commands.glob import run_glob

        def request() -> Any:
            return self.glob_request(
                include, paths, exclude or [], recursive, useDefaultExcludes, file_filtering_options
            )

        budget = self.budget(maxTokens)
        if format == "text":
            # The reference's text where it fits the result's limit; else packed to it.
            whole = collect(lambda sink: run_glob(request(), sink))
            if whole.is_error or fits(str(whole.content[0].text), budget):  # type: ignore[union-attr]
                return whole

        def planned(sink: Sink) -> Outcome:
            return glob_plan.run_planned(
                request()._replace(
                    format=format,
                    max_bytes=None if budget.max_bytes == sys.maxsize else budget.max_bytes,
                    max_lines=None if budget.max_lines == sys.maxsize else budget.max_lines,
                    max_tokens=None if not budget.counts_tokens else int(budget.max_tokens),
                ),
                sink,
            )

        return collect(planned)

    def context_stats(
        self,
        include: Annotated[list[Pattern], Field(min_length=1)],
        exclude: list[Pattern] | None = None,
        useDefaultExcludes: bool = True,
        file_filtering_options: FileFiltering | None = None,
        maxTokens: MaxTokens = None,
    ) -> CallToolResult:
        from readmany.commands import glob_plan

        def command(sink: Sink) -> Outcome:
            request = self.glob_request(
                include, None, exclude or [], True, useDefaultExcludes, file_filtering_options
            )
            request = request._replace(
                face=Face.people(), stats=True, absolute=False, max_tokens=maxTokens
            )
            return glob_plan.run_stats(request, sink)

        return collect(command)

    # -- read (hashline) -------------------------------------------------------------

    def read(
        self,
        path: str,
        offset: Annotated[int | None, Field(ge=1, description="1-based first line.")] = None,
        limit: Annotated[int | None, Field(ge=1, description="Lines to show.")] = None,
    ) -> CallToolResult:
        from readmany.commands.hashline import HashlineRequest, run_hashline

        # `redact` cannot mask what the anchors stand for: such a file is left out instead.
        secrets = "skip" if self.config.secrets == "redact" else self.config.secrets

        def command(sink: Sink) -> Outcome:
            self.roots.root_of(path, rewrite=True)
            request = HashlineRequest(path, offset, limit, Face.reference(), secrets)
            return run_hashline(request, sink)

        return collect(command)

    # -- edit ------------------------------------------------------------------------

    def edit(
        self,
        path: str,
        hash: str,
        edits: list[dict[str, Any]],
        dryRun: bool = False,
    ) -> CallToolResult:
        from readmany.edit.anchored import EditError, parse_request
        from readmany.edit.files import EditRun, run_edit

        try:
            root = self.roots.root_of(path, rewrite=False)
            request = parse_request({"path": path, "hash": hash, "edits": edits})
        except ToolFailed as exc:
            return failed(str(exc))
        except EditError as exc:
            return failed(str(exc))
        run = EditRun(request, self.roots.cwd, root, dry_run=dryRun, json_mode=True, quiet=True)
        stream = io.BytesIO()
        code, lines = captured_stderr(lambda: run_edit(run, stream))
        if code != 0:
            return failed("; ".join(lines) or f"edit failed (exit status {code})")
        report = json.loads(stream.getvalue().decode("utf-8", "replace"))
        return CallToolResult(
            content=[TextContent(type="text", text=report["content"])],
            _meta={DETAILS_KEY: report["details"]},
        )


READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def build_server(config: ServerConfig) -> MCPServer[Any]:
    """The server with its tools (edit only with --allow-edit)."""
    tools = Tools(config)
    server: MCPServer[Any] = MCPServer(
        name="readmany",
        version=__version__,
        instructions=(
            "Read files of "
            + ", ".join(config.roots)
            + ": read_many for several files at once under one budget, read_many_files "
            "for globs with .gitignore honoured, read for anchored lines an edit can check, "
            "context_stats to see what a glob costs before reading it."
        ),
        log_level="WARNING",
    )
    server.add_tool(
        tools.read_many,
        name="read_many",
        description=(
            "Read 1 to 26 files in one call, each in a heredoc block, packed under one "
            "budget (50 KB / 2000 lines, or maxTokens); a cut file ends with the offset "
            "to continue from."
        ),
        annotations=READ_ONLY,
        structured_output=False,
    )
    server.add_tool(
        tools.read_many_files,
        name="read_many_files",
        description=(
            "Read the files that glob patterns match (relative to the first root), "
            "honouring .gitignore and .geminiignore, concatenated with --- path --- "
            "separators; images and PDFs named explicitly come as image or resource content."
        ),
        annotations=READ_ONLY,
        structured_output=False,
    )
    server.add_tool(
        tools.read,
        name="read",
        description=(
            "Read one file as hashline: '@file path#TAG', then 'N#abc|line' for every line; "
            "the tag and anchors are what edit checks."
        ),
        annotations=READ_ONLY,
        structured_output=False,
    )
    server.add_tool(
        tools.context_stats,
        name="context_stats",
        description=(
            "What the files that glob patterns match cost, before reading them: a tree of "
            "bytes, lines and estimated tokens per file and directory, the most first; with "
            "maxTokens, what that budget would leave out or cut."
        ),
        annotations=READ_ONLY,
        structured_output=False,
    )
    if config.allow_edit:
        server.add_tool(
            tools.edit,
            name="edit",
            description=(
                "Apply anchored edits to a file read with read: {path, hash (the tag), "
                "edits: [{from, to, content}]}; refused, nothing written, when the file "
                "changed since (stale). dryRun shows the diff and writes nothing."
            ),
            annotations=ToolAnnotations(
                read_only_hint=False,
                destructive_hint=True,
                idempotent_hint=False,
                open_world_hint=False,
            ),
            structured_output=False,
        )
    return server


def serve(config: ServerConfig) -> int:
    """Serve on stdin and stdout until the client closes the connection."""
    # The walk stays in this process: forking beside the server's threads is unsafe.
    os.environ["READMANY_PROCESSES"] = "1"
    os.chdir(config.roots[0])
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="readmany: %(message)s")
    server = build_server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run("stdio")
    return 0
