"""`readmany many`: read files, frame each in a heredoc block, pack to a budget.

With `--compat` it is the reference's `read_many` (at most 26 files, each read capped at
2000 lines / 50 KB, the reference's notices); the default face is in `many_default`, the
request values in `many_request`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from functools import partial

from readmany.commands import secrets_mode
from readmany.commands.many_default import budget_of, run_default
from readmany.commands.many_request import (
    FileRequest,
    ManyRequest,
    file_detail,
    write_blocks,
)
from readmany.emit.outcome import FileStat, Outcome, Tally
from readmany.emit.render import Presentation, present
from readmany.emit.sink import Sink
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK, UsageError
from readmany.faces import Face
from readmany.frame.heredoc import Block, frame_heredoc
from readmany.invoke import Options, current_directory, load_json, stdin_paths
from readmany.limits import MANY_MAX_FILES
from readmany.pack import Entry, Packing, pack_blocks
from readmany.read.line_range import (
    Number,
    ReadStyle,
    ToolRead,
    read_tool,
    resolve_path,
    truncate_head,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


MAX_FILES = MANY_MAX_FILES
_RANGE_SUFFIX = re.compile(r"^(?P<path>.*?):(?P<offset>\d+)(?::(?P<limit>\d+))?$", re.DOTALL)


def _check_encodable(path: str, where: str) -> None:
    """A path no file system can hold (a lone surrogate from JSON, a NUL) is a usage error."""
    if "\0" in path:
        raise UsageError(f"{where}: a path cannot hold a NUL character")
    try:
        path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raise UsageError(
            f"{where}: {path!r} holds a lone surrogate (\\ud800-\\udfff), which no file name "
            "can: write the name's real characters"
        ) from None


def parse_file_spec(spec: str, cwd: str, *, literal: bool = False) -> FileRequest:
    """`PATH[:OFFSET[:LIMIT]]`; an argument naming an existing path is always literal.

    A suffix that is not decimal digits after a path that exists (`a.txt:0:-1`,
    `a.txt:x`) is a bad range, not a file name: a usage error. Where the range could
    start at either of two colons (`a:5:10`), an existing path before the last one wins.
    """
    if os.path.lexists(os.path.join(cwd, spec)):
        return FileRequest(spec, literal=literal)
    match = _RANGE_SUFFIX.match(spec)
    if match is None:
        _refuse_bad_range(spec, cwd, spec)
        return FileRequest(spec, literal=literal)
    if not os.path.lexists(os.path.join(cwd, match.group("path"))):
        head, _colon, last = spec.rpartition(":")
        if match.group("limit") and os.path.lexists(os.path.join(cwd, head)):
            return FileRequest(head, int(last), literal=literal)
        _refuse_bad_range(match.group("path"), cwd, spec)
    limit = match.group("limit")
    return FileRequest(
        match.group("path"),
        int(match.group("offset")),
        int(limit) if limit else None,
        literal=literal,
    )


def _refuse_bad_range(path: str, cwd: str, spec: str) -> None:
    head = path
    while True:
        head, colon, _suffix = head.rpartition(":")
        if not colon:
            return
        if head and os.path.lexists(os.path.join(cwd, head)):
            raise UsageError(
                f"bad range in {spec!r}: use FILE:OFFSET or FILE:OFFSET:LIMIT "
                "with OFFSET and LIMIT as decimal numbers"
            )


def check_file_count(count: int, max_files: int | None = MAX_FILES) -> None:
    """At most `max_files` (the reference's 26; None: any number), and at least one."""
    if max_files is None:
        if count < 1:
            raise UsageError("no files given: name at least one FILE, or use --stdin or --request")
        return
    if count > max_files:
        raise UsageError(
            f"too many files: {count} given, at most {max_files} per call "
            f"(files: must NOT have more than {max_files} items)"
        )
    if count < 1:
        raise UsageError(
            "no files given: name 1 to 26 files (files: must NOT have fewer than 1 items)"
        )


def parse_request_object(value: Any, cwd: str, max_files: int | None = MAX_FILES) -> ManyRequest:
    """Validate the tool's own argument object: `{"files": [...], "stopOnError": …}`."""
    if not isinstance(value, dict):
        raise UsageError("request: must be object")
    files = value.get("files")
    if files is None:
        raise UsageError("request: must have required property 'files'")
    if not isinstance(files, list):
        raise UsageError("request: files: must be array")
    check_file_count(len(files), max_files)
    requests = []
    for number, item in enumerate(files):
        where = f"files/{number}"
        if not isinstance(item, dict):
            raise UsageError(f"request: {where}: must be object")
        if "path" not in item:
            raise UsageError(f"request: {where}: must have required property 'path'")
        path = item["path"]
        if not isinstance(path, str):
            raise UsageError(f"request: {where}/path: must be string")
        _check_encodable(path, f"request: {where}/path")
        requests.append(
            FileRequest(
                path,
                _number(item.get("offset"), f"{where}/offset"),
                _number(item.get("limit"), f"{where}/limit"),
            )
        )
    stop = value.get("stopOnError", False)
    if isinstance(stop, str) and stop in ("true", "false"):
        stop = stop == "true"  # the tool's schema checker coerces these
    if not isinstance(stop, bool):
        raise UsageError("request: stopOnError: must be boolean")
    return ManyRequest(tuple(requests), stop_on_error=stop, cwd=cwd)


def _number(value: Any, where: str) -> Number | None:
    if value is None:
        return None
    if isinstance(value, str):  # the tool's schema checker coerces numeric strings
        try:
            number = float(value)
        except ValueError:
            raise UsageError(f"request: {where}: must be number") from None
        value = int(number) if number.is_integer() else number
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"request: {where}: must be number")
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"request: {where}: must be a finite number")
    return value


IMAGE_SUMMARY = "[{count} image attachment(s) omitted; use read on this file for image payload.]"
EMPTY_BODY = "[No text content returned]"


def body_of(result: ToolRead) -> str:
    """The block body for a read: its text, an image summary, or a placeholder."""
    if result.error is not None:
        return f"[Error: {result.error}]"
    summary = IMAGE_SUMMARY.format(count=result.image_count) if result.image_count else ""
    if not result.text:
        return summary or EMPTY_BODY
    return f"{result.text}\n{summary}" if summary else result.text


def main(options: Options) -> int:
    """`readmany many` with its parsed options: the request value, run and presented."""
    face = Face.reference() if options.flag("compat") else Face.people()
    asked, budget = budget_of(options, face)
    cwd = current_directory()
    specs = list(options.texts("files"))
    piped: list[str] = []
    if options.flag("stdin"):
        piped = stdin_paths(options.flag("null"), quiet=options.flag("quiet"))
    stop_on_error = options.flag("stop_on_error")
    source = options.text("request")
    if source is not None:
        if specs or piped:
            raise UsageError("--request cannot be mixed with FILE arguments or --stdin")
        parsed = parse_request_object(load_json(source), cwd, face.many_max_files)
        value = parsed._replace(stop_on_error=parsed.stop_on_error or stop_on_error)
    elif not (specs or piped) and options.flag("stdin") and not face.compat:
        # An empty list (`rg -l NOMATCH | readmany many --stdin`) is nothing read, as in
        # glob: exit 1 and one line, not a usage error.
        return present(_nothing_listed, Presentation.of(options))
    else:
        check_file_count(len(specs) + len(piped), face.many_max_files)
        files = (
            *(parse_file_spec(spec, cwd) for spec in specs),
            *(parse_file_spec(spec, cwd, literal=True) for spec in piped),
        )
        if not face.compat:
            for spec, file in zip(specs, files, strict=False):
                if file.limit == 0:  # the reference shows nothing for it, without a word
                    raise UsageError(
                        f"{spec}: a LIMIT of 0 shows no line: give 1 or more, or leave it "
                        f"out for the rest of the file ({spec.rpartition(':')[0]})"
                    )
        value = ManyRequest(files, stop_on_error=stop_on_error, cwd=cwd)
    secrets = secrets_mode(options, redact=True)
    value = value._replace(budget=budget, face=face, asked=asked, secrets=secrets)
    output = options.text("output")
    if output is not None:
        from readmany.emit.target import named_input_check

        check = named_input_check(output, cwd)
        if source is not None and source != "-":
            check(source)
        for file in value.files:
            rewrite = face.rewrite_paths and not file.literal
            check(file.path, resolve_path(file.path, cwd, rewrite=rewrite))
    return present(lambda sink: run_many(value, sink), Presentation.of(options))


def _nothing_listed(sink: Sink) -> Outcome:
    """`--stdin` that listed no path: nothing written (with `--json`, empty content)."""
    from readmany.frame.notices import NOTHING_LISTED

    details = {"processedCount": 0, "successCount": 0, "errorCount": 0, "files": []}
    return Outcome(details, exit_code=EXIT_FILE_ERROR, problems=(NOTHING_LISTED,))


def run_many(request: ManyRequest, sink: Sink) -> Outcome:
    if not request.face.compat:
        return run_default(request, sink)
    candidates: list[Entry] = []
    details: list[dict[str, Any]] = []
    problems: list[str] = []
    warnings: list[str] = []  # --secrets warn, which only `readmany mcp` sets here
    for index, file in enumerate(request.files):
        style = ReadStyle(rewrite_paths=request.face.rewrite_paths and not file.literal)
        result = read_tool(
            file.path,
            file.offset,
            file.limit,
            request.cwd,
            style=style,
            root=file.root or request.root,
        )
        if request.secrets != "off" and result.ok and result.text:  # never from the CLI
            from readmany.commands.many_default import check_secrets

            result = check_secrets(file.path, result, request.secrets, warnings, [])
        body = body_of(result)
        block = frame_heredoc(file.path, body, index + 1)
        cut = partial(cut_heredoc_head, file.path, index + 1, body) if result.ok else None
        candidates.append(Entry(index, file.path, block, result.ok, cut))
        details.append(file_detail(file, result, block, weigh=sink.weigh))
        sink.file_done(file.path, len(request.files))
        if not result.ok:
            problems.append(f"{file.path}: {result.error}")
            if request.stop_on_error:
                break
    packing = pack_blocks(candidates, request.budget)
    shown = packing.blocks(candidates)
    write_blocks(sink, shown)
    errors = sum(not c.ok for c in candidates)
    report: dict[str, Any] = {
        "processedCount": len(candidates),
        "successCount": len(candidates) - errors,
        "errorCount": errors,
        "files": details,
        "packing": packing.as_json(candidates),
        "bytes": sink.bytes_written,
        "estimatedTokens": round(sink.tokens),
    }
    return Outcome(
        details=report,
        exit_code=EXIT_FILE_ERROR if errors else EXIT_OK,
        problems=tuple(problems),
        notices=(
            *warnings,
            *_budget_notes(packing.omitted, packing.plan.partial_index, candidates),
        ),
        stats=Tally.of(_stats(candidates, packing)),
    )


def cut_heredoc_head(
    path: str, index: int, body: str, max_lines: int, max_bytes: int
) -> Block | None:
    """The block of the longest head of `body` within the limits; None if nothing fits."""
    kept = truncate_head(body, max_lines, max_bytes).content
    return frame_heredoc(path, kept, index) if kept else None


def _stats(candidates: Sequence[Entry], packing: Packing) -> list[FileStat]:
    stats = []
    partial_block = packing.plan.partial
    for c in candidates:
        shown = c.position in packing.plan.full
        if not c.ok:
            stats.append(FileStat(c.path, "error", c.block.bytes if shown else 0, "read failed"))
        elif shown:
            stats.append(FileStat(c.path, "read", c.block.bytes))
        elif c.position == packing.plan.partial_index and partial_block is not None:
            stats.append(FileStat(c.path, "cut", partial_block.bytes, "cut to fit the budget"))
        else:
            stats.append(FileStat(c.path, "omitted", 0, "over the budget"))
    return stats


def _budget_notes(
    omitted: Sequence[int], partial_index: int | None, candidates: Sequence[Entry]
) -> list[str]:
    notes = []
    if partial_index is not None:
        notes.append(f"{candidates[partial_index].path}: cut to fit the budget")
    notes.extend(f"{candidates[i].path}: omitted, over the budget" for i in omitted)
    return notes
