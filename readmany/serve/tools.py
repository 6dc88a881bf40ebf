"""The tools of `readmany mcp`: each builds the request value its command builds, runs it
through the command's own `run_*` function into a `Sink`, and answers with the text
`--compat` writes (its JSON content, details and attachments), as a plain MCP result
(`{"content": [...], "isError": ..., "_meta": ...}`). No SDK here: `server` carries these
results over the protocol.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import threading
from collections.abc import Callable
from typing import Any

from readmany.choices import Secrets
from readmany.emit.outcome import Outcome
from readmany.emit.sink import Sink
from readmany.errors import UsageError
from readmany.faces import Face
from readmany.limits import MANY_MAX_FILES, READ_MAX_BYTES, READ_MAX_LINES
from readmany.pack import UNCOUNTED, Budget
from readmany.serve.config import LOG, ServerConfig
from readmany.serve.roots import Roots, ToolFailed
from readmany.serve.schemas import checked

DETAILS_KEY = "readmany/details"  # the `_meta` key of a result's details (--json's)
# The tools run on worker threads; one runs at a time, as one command line would (an
# edit's stderr is captured process-wide).
_ONE_AT_A_TIME = threading.Lock()

Result = dict[str, Any]


def failed(message: str) -> Result:
    """A tool error: the one line the CLI says (`readmany: ` left off)."""
    LOG.info("refused: %s", message)
    return {"content": [{"type": "text", "text": message}], "isError": True}


def collect(command: Callable[[Sink], Outcome]) -> Result:
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
    content = [{"type": "text", "text": report["content"]}]
    content.extend(_attachment(item) for item in report.get("attachments", ()))
    return {"content": content, "isError": False, "_meta": {DETAILS_KEY: report["details"]}}


def _attachment(item: dict[str, str]) -> dict[str, Any]:
    """An image as MCP image content; a PDF, audio or video as an embedded resource."""
    mime, data = item["mimeType"], item["data"]
    if mime.startswith("image/"):
        return {"type": "image", "data": data, "mimeType": mime}
    uri = "file://" + item["path"] if item["path"].startswith("/") else "file:///" + item["path"]
    return {"type": "resource", "resource": {"uri": uri, "mimeType": mime, "blob": data}}


def text_of(result: Result) -> str:
    """The text of a result (its first content)."""
    return str(result["content"][0]["text"])


def weight(text: str) -> tuple[int, int, float]:
    """A text's bytes, lines and estimated tokens, as the packing weighs them."""
    from readmany.frame import weigh

    return len(text.encode("utf-8", "surrogatepass")), text.count("\n") + 1, weigh(text)


def fits(text: str, budget: Budget) -> bool:
    """Whether `text` is within the budget, as the packing weighs it."""
    size, lines, tokens = weight(text)
    if size > budget.max_bytes or lines > budget.max_lines:
        return False
    return not budget.counts_tokens or tokens <= budget.max_tokens


def captured_stderr(run: Callable[[], int]) -> tuple[int, list[str]]:
    """Run a command that says its refusals with `error_line`; the lines it said."""
    words = io.StringIO()
    with _ONE_AT_A_TIME, contextlib.redirect_stderr(words):
        code = run()
    return code, [line.removeprefix("readmany: ") for line in words.getvalue().splitlines()]


def merged(results: list[Result], roots: tuple[str, ...], joint: str) -> Result:
    """One result of a tool run in each root: the first error if any; else the texts
    joined by `joint`, the attachments in order, the details under each root's name."""
    for result in results:
        if result["isError"]:
            return result
    if len(results) == 1:
        return results[0]
    content = [{"type": "text", "text": joint.join(text_of(r) for r in results)}]
    for result in results:
        content.extend(result["content"][1:])
    details = [
        {"root": root, **r["_meta"][DETAILS_KEY]} for root, r in zip(roots, results, strict=True)
    ]
    return {"content": content, "isError": False, "_meta": {DETAILS_KEY: {"roots": details}}}


def reference_union(results: list[Result], roots: tuple[str, ...]) -> Result:
    """`read_many_files` in several roots, as the reference reads several workspace
    directories: the files of all, sorted by their absolute paths, then one end marker.
    (No root holds another, so each root's files sort together, in the order of the
    roots' own paths.)"""
    from readmany.frame.separator import END_OF_CONTENT, NO_FILES

    order = sorted(range(len(roots)), key=lambda n: (roots[n] + "/").encode("utf-16-be"))
    found = [n for n in order if text_of(results[n]) != NO_FILES]
    union = merged([results[n] for n in order], tuple(roots[n] for n in order), "")
    if union["isError"] or len(results) == 1:
        return union
    body = "".join(text_of(results[n]).removesuffix(END_OF_CONTENT) for n in found)
    union["content"][0]["text"] = body + END_OF_CONTENT if found else NO_FILES
    return union


# What the first call of each read tool imports (its command, the secret rules, the token
# estimate): imported while the server waits for its first call (`warm_up`), not in it.
FIRST_CALL_MODULES = (
    "readmany.commands.many",
    "readmany.commands.glob",
    "readmany.commands.glob_plan",
    "readmany.commands.hashline",
    "readmany.read.secrets",
    "readmany.tokens",
)


def warm_up() -> None:
    """Import what the tools' first calls need (on a thread of its own, while idle)."""
    import importlib

    for name in FIRST_CALL_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # the call that needs it says what is wrong
            LOG.debug("%s not imported ahead", name, exc_info=True)


def _less(limit: int, used: int) -> int:
    """What a limit leaves once `used` is spent (at least 1; no limit stays none)."""
    return limit if limit == sys.maxsize else max(1, limit - used)


class Tools:
    """The tools, bound to a server's configuration."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.roots = Roots(config.roots)

    def call(self, name: str, arguments: dict[str, Any] | None) -> Result:
        """Run the tool `name`; every refusal is a tool error, never an exception."""
        if name not in self.names():
            if name == "edit":
                return failed("edit: not offered: start the server with readmany mcp --allow-edit")
            return failed(f"no tool {name!r}: the tools are {', '.join(self.names())}")
        try:
            given = checked(name, arguments)
            tool: Callable[..., Result] = getattr(self, name)
            return tool(**given)
        except ToolFailed as exc:
            return failed(str(exc))

    def names(self) -> tuple[str, ...]:
        read = ("read_many", "read_many_files", "read", "context_stats")
        return (*read, "edit") if self.config.allow_edit else read

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
        self, files: Any, stopOnError: Any = False, maxTokens: int | None = None
    ) -> Result:
        from readmany.commands.many import run_many
        from readmany.pack.budget import BudgetAsked
        from readmany.request.many import parse_request_object

        arguments = {"files": files, "stopOnError": stopOnError}

        def command(sink: Sink) -> Outcome:
            request = parse_request_object(arguments, self.roots.cwd, MANY_MAX_FILES)
            # Each file is opened beneath the root it was judged to lie in.
            files = tuple(
                file._replace(root=self.roots.file_root(file.path)) for file in request.files
            )
            request = request._replace(files=files)
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
        root: str,
        patterns: tuple[str, ...],
        exclude: list[str],
        recursive: bool,
        use_default_excludes: bool,
        filtering: dict[str, bool] | None,
    ) -> Any:
        from readmany.request.glob import GlobRequest

        if not patterns:
            raise ToolFailed("read_many_files: give the argument include (a list of glob patterns)")
        filtering = filtering or {}
        # As Gemini CLI calls it: its own ignore file, and GEMINI.md among the excludes.
        excludes = tuple(exclude)
        if use_default_excludes:
            excludes = ("**/GEMINI.md", *excludes)
        return GlobRequest(
            patterns=patterns,
            excludes=excludes,
            use_default_excludes=use_default_excludes,
            use_gitignore=filtering.get("respect_git_ignore", True),
            ignore_files=(".geminiignore",) if filtering.get("respect_gemini_ignore", True) else (),
            recursive=recursive,
            root=root,
            absolute=True,
            # The reference's text, but a pattern's directory outside the roots is never
            # listed: its names would reach the model (docs/mcp.md).
            face=Face.reference()._replace(list_outside_directories=False),
            secrets=self.config.secrets,
            json=True,
        )

    def read_many_files(
        self,
        include: list[str] | None = None,
        exclude: list[str] | None = None,
        recursive: bool = True,
        useDefaultExcludes: bool = True,
        file_filtering_options: dict[str, bool] | None = None,
        paths: list[str] | None = None,
        maxTokens: int | None = None,
        format: str = "text",
    ) -> Result:
        from readmany.commands import glob_plan
        from readmany.commands.glob import run_glob

        roots = self.roots.roots
        patterns = (*(paths or ()), *(include or ()))

        def request(root: str) -> Any:
            return self.glob_request(
                root, patterns, exclude or [], recursive, useDefaultExcludes, file_filtering_options
            )

        budget = self.budget(maxTokens)
        if format == "text":
            # The reference's text where it fits the result's limit; else packed to it.

            def whole_in(root: str) -> Result:
                return collect(lambda sink: run_glob(request(root), sink))

            whole = reference_union([whole_in(root) for root in roots], roots)
            if whole["isError"] or fits(text_of(whole), budget):
                return whole
        # Packed: the roots in turn, each within what the ones before it left.
        results: list[Result] = []
        left = budget
        for root in roots:

            def planned(sink: Sink, root: str = root, left: Budget = left) -> Outcome:
                return glob_plan.run_planned(
                    request(root)._replace(
                        format=format,
                        max_bytes=None if left.max_bytes == sys.maxsize else left.max_bytes,
                        max_lines=None if left.max_lines == sys.maxsize else left.max_lines,
                        max_tokens=None if not left.counts_tokens else int(left.max_tokens),
                    ),
                    sink,
                )

            result = collect(planned)
            results.append(result)
            if result["isError"]:
                break
            size, lines, tokens = weight(text_of(result) + "\n")
            left = Budget(
                _less(left.max_bytes, size),
                _less(left.max_lines, lines),
                max(1.0, left.max_tokens - tokens) if left.counts_tokens else left.max_tokens,
            )
        return merged(results, roots, "\n")

    def context_stats(
        self,
        include: list[str],
        exclude: list[str] | None = None,
        useDefaultExcludes: bool = True,
        file_filtering_options: dict[str, bool] | None = None,
        maxTokens: int | None = None,
    ) -> Result:
        from readmany.commands import glob_plan

        def command(sink: Sink, root: str) -> Outcome:
            request = self.glob_request(
                root,
                tuple(include),
                exclude or [],
                True,
                useDefaultExcludes,
                file_filtering_options,
            )
            request = request._replace(
                face=Face.people(), stats=True, absolute=False, max_tokens=maxTokens
            )
            return glob_plan.run_stats(request, sink)

        roots = self.roots.roots

        def stats_in(root: str) -> Result:
            return collect(lambda sink: command(sink, root))

        results = [stats_in(root) for root in roots]
        if len(roots) > 1:  # each tree headed by its root
            for root, result in zip(roots, results, strict=True):
                if not result["isError"]:
                    result["content"][0]["text"] = f"{root}:\n{text_of(result)}"
        return merged(results, roots, "\n\n")

    # -- read (hashline) -------------------------------------------------------------

    def read(self, path: str, offset: int | None = None, limit: int | None = None) -> Result:
        from readmany.commands.hashline import run_hashline
        from readmany.request.hashline import HashlineRequest

        # `redact` cannot mask what the anchors stand for: such a file is left out instead.
        secrets = self.config.secrets
        if secrets == Secrets.REDACT:
            secrets = Secrets.SKIP

        def command(sink: Sink) -> Outcome:
            root = self.roots.file_root(path)
            request = HashlineRequest(path, offset, limit, Face.reference(), secrets, root=root)
            return run_hashline(request, sink)

        return collect(command)

    # -- edit ------------------------------------------------------------------------

    def edit(self, path: str, hash: str, edits: Any, dryRun: bool = False) -> Result:
        from readmany.edit.anchored import EditError, parse_request
        from readmany.edit.files import EditRun, run_edit

        root = self.roots.root_of(path, rewrite=False)
        try:
            request = parse_request({"path": path, "hash": hash, "edits": edits})
        except EditError as exc:
            return failed(str(exc))
        run = EditRun(request, self.roots.cwd, root, dry_run=dryRun, json_mode=True, quiet=True)
        stream = io.BytesIO()
        code, lines = captured_stderr(lambda: run_edit(run, stream))
        if code != 0:
            return failed("; ".join(lines) or f"edit failed (exit status {code})")
        report = json.loads(stream.getvalue().decode("utf-8", "replace"))
        return {
            "content": [{"type": "text", "text": report["content"]}],
            "isError": False,
            "_meta": {DETAILS_KEY: report["details"]},
        }
