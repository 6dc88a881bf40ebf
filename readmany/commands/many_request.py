"""The request of `readmany many`: its values, made from the command line (`FILE[:OFFSET
[:LIMIT]]` arguments, a `--request` object, the budget options), and what a run writes
from it: the blocks joined, a file's `--json` record."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence

from readmany.emit.sink import Sink
from readmany.errors import UsageError
from readmany.faces import Face
from readmany.frame import weigh
from readmany.limits import MANY_MAX_FILES, NO_LIMIT, READ_MAX_BYTES, READ_MAX_LINES
from readmany.pack import SEPARATOR, UNCOUNTED, Budget
from readmany.pack.budget import BudgetAsked as BudgetAsked  # serve/tools.py imports it from here
from readmany.read.line_range import Number, ToolRead
from readmany.record import NamedTuple
from readmany.units import parse_size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.frame.heredoc import Block
    from readmany.frame.pages import Shown
    from readmany.invoke import Options
    from readmany.pack import Block as Packed


class FileRequest(NamedTuple):
    path: str
    offset: Number | None = None
    limit: Number | None = None
    literal: bool = False  # from --stdin: never rewritten, whatever the face
    root: str | None = None  # a directory it was judged to lie in: opened beneath it


class ManyRequest(NamedTuple):
    files: tuple[FileRequest, ...]
    stop_on_error: bool = False
    budget: Budget = Budget()
    cwd: str = "."
    face: Face = Face.reference()
    asked: BudgetAsked = BudgetAsked()
    secrets: str = "off"  # --secrets: off, warn, skip or redact
    # A directory every file was judged to lie in (the MCP tools' root): each is opened
    # beneath it (`read_tool`'s `root`), never by its name alone. None: by name.
    root: str | None = None


def write_blocks(sink: Sink, shown: Sequence[Packed]) -> None:
    """The blocks shown, joined by `SEPARATOR`; each weighed as a budget of tokens weighs
    it (frame and body apart), where the sink counts tokens."""
    from readmany.frame.pages import Shown

    for number, block in enumerate(shown):
        tokens = None
        if sink.weigh:
            tokens = block.tokens + (weigh(SEPARATOR) if number else 0.0)
        parts = block.parts() if isinstance(block, Shown) else (block.text,)
        sink.write_all((SEPARATOR, *parts) if number else parts, tokens)


def file_detail(
    request: FileRequest, result: ToolRead, block: Block | Shown, *, weigh: bool
) -> dict[str, Any]:
    """A file's record of `--json` details; its tokens are weighed only with `weigh` (the
    details are written), else they are 0."""
    detail: dict[str, Any] = {"path": request.path, "ok": result.ok}
    if result.error is not None:
        detail["error"] = result.error
    else:
        detail["imageCount"] = result.image_count
        if result.truncation is not None:
            detail["truncation"] = result.truncation.as_json()
    detail["bytes"] = block.bytes
    detail["lines"] = block.lines
    detail["estimatedTokens"] = round(block.tokens) if weigh else 0
    return detail


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


def budget_of(options: Options, face: Face) -> tuple[BudgetAsked, Budget]:
    """The budget options as given, and the budget they make.

    With none given, the default 51200 bytes and 2000 lines. A budget the user sets
    replaces the default: `--max-bytes 2M` alone is 2 MiB, with no line limit.
    `--compat` takes plain numbers, as the reference's `many` did.
    """
    bytes_text = options.text("max_bytes")
    lines = options.number("max_lines")
    tokens_text = options.text("max_tokens")
    if not face.budget_sizes:
        if tokens_text is not None:
            raise UsageError("--max-tokens is not part of --compat: use --max-bytes N")
        max_bytes = _plain_number(bytes_text, "--max-bytes")
        asked = BudgetAsked(max_bytes, lines)
        return asked, Budget(max_bytes or READ_MAX_BYTES, lines or READ_MAX_LINES)
    max_bytes = parse_size(bytes_text, "--max-bytes") if bytes_text is not None else None
    tokens = parse_size(tokens_text, "--max-tokens", base=1000) if tokens_text else None
    asked = BudgetAsked(max_bytes, lines, tokens)
    if asked == BudgetAsked():
        return asked, Budget(READ_MAX_BYTES, READ_MAX_LINES)
    return asked, Budget(max_bytes or NO_LIMIT, lines or NO_LIMIT, tokens or UNCOUNTED)


def _plain_number(text: str | None, option: str) -> int | None:
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        raise UsageError(
            f"{option} {text!r}: give a whole number of bytes "
            "(sizes such as 100k need the default face, without --compat)"
        ) from None
    if value < 1:
        raise UsageError(f"{option} {text!r}: give a number of at least 1")
    return value
