"""`readmany many`'s request, made from its command line: `FILE[:OFFSET[:LIMIT]]`
arguments, `--stdin` paths or a `--request` object, the budget options, `--secrets`, and
`-o` checked against every file named."""

from __future__ import annotations

import math
import os
import re

from readmany.choices import Secrets
from readmany.emit.render import Presentation
from readmany.errors import UsageError
from readmany.faces import Face
from readmany.limits import MANY_MAX_FILES, NO_LIMIT, READ_MAX_BYTES, READ_MAX_LINES
from readmany.numbers import decimal_number, whole_number
from readmany.pack import UNCOUNTED, Budget
from readmany.pack.budget import BudgetAsked
from readmany.read.line_range import Number
from readmany.record import NamedTuple
from readmany.request.given import Given, parse_size, presentation_of, secrets_of
from readmany.request.inputs import current_directory, load_json, stdin_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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
    secrets: Secrets = Secrets.OFF
    # A directory every file was judged to lie in (the MCP tools' root): each is opened
    # beneath it (`read_tool`'s `root`), never by its name alone. None: by name.
    root: str | None = None
    presentation: Presentation = Presentation()  # where the content goes, from the CLI


def many_request(given: Given) -> ManyRequest:
    """The request of `readmany many`; with `--stdin` that listed nothing (the default
    face), one with no files, which the command says is nothing read."""
    face = Face.reference() if given.flag("compat") else Face.people()
    asked, budget = budget_of(given, face)
    cwd = current_directory()
    presentation = presentation_of(given)
    specs = list(given.texts("files"))
    piped: list[str] = []
    if given.flag("stdin"):
        piped = stdin_paths(given.flag("null"), quiet=given.flag("quiet"))
    stop_on_error = given.flag("stop_on_error")
    source = given.text("request")
    if source is not None:
        if specs or piped:
            raise UsageError("--request cannot be mixed with FILE arguments or --stdin")
        parsed = parse_request_object(load_json(source), cwd, face.many_max_files)
        value = parsed._replace(stop_on_error=parsed.stop_on_error or stop_on_error)
    elif not (specs or piped) and given.flag("stdin") and face.empty_list_read:
        # An empty list (`rg -l NOMATCH | readmany many --stdin`) is nothing read, as in
        # glob: exit 1 and one line, not a usage error.
        return ManyRequest((), cwd=cwd, face=face, presentation=presentation)
    else:
        check_file_count(len(specs) + len(piped), face.many_max_files)
        files = (
            *(parse_file_spec(spec, cwd) for spec in specs),
            *(parse_file_spec(spec, cwd, literal=True) for spec in piped),
        )
        if face.refuse_limit_zero:
            for spec, file in zip(specs, files, strict=False):
                if file.limit == 0:  # the reference shows nothing for it, without a word
                    raise UsageError(
                        f"{spec}: a LIMIT of 0 shows no line: give 1 or more, or leave it "
                        f"out for the rest of the file ({spec.rpartition(':')[0]})"
                    )
        value = ManyRequest(files, stop_on_error=stop_on_error, cwd=cwd)
    secrets = secrets_of(given, redact=True)
    value = value._replace(
        budget=budget, face=face, asked=asked, secrets=secrets, presentation=presentation
    )
    output = presentation.output
    if output is not None:
        from readmany.emit.target import named_input_check
        from readmany.read.line_range import resolve_path

        check = named_input_check(output, cwd)
        if source is not None and source != "-":
            check(source)
        for file in value.files:
            rewrite = face.rewrite_paths and not file.literal
            check(file.path, resolve_path(file.path, cwd, rewrite=rewrite))
    return value


MAX_FILES = MANY_MAX_FILES


# The digits are checked by `whole_number` too; `\Z`, as `$` would pass a newline after them.
_RANGE_SUFFIX = re.compile(r"(?P<path>.*?):(?P<offset>[0-9]+)(?::(?P<limit>[0-9]+))?\Z", re.DOTALL)


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
    offset = limit = None
    if match is not None:
        offset, limit = (whole_number(match.group(n) or "0") for n in ("offset", "limit"))
    if match is None or offset is None or limit is None:  # past what `int()` converts
        _refuse_bad_range(spec, cwd, spec)
        return FileRequest(spec, literal=literal)
    if not os.path.lexists(os.path.join(cwd, match.group("path"))):
        head, _colon, _last = spec.rpartition(":")
        if match.group("limit") and os.path.lexists(os.path.join(cwd, head)):
            return FileRequest(head, limit, literal=literal)
        _refuse_bad_range(match.group("path"), cwd, spec)
    return FileRequest(
        match.group("path"), offset, limit if match.group("limit") else None, literal=literal
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
        number = decimal_number(value)
        if number is None:
            raise UsageError(f"request: {where}: must be number")
        value = int(number) if isinstance(number, float) and number.is_integer() else number
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"request: {where}: must be number")
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"request: {where}: must be a finite number")
    return value


def budget_of(given: Given, face: Face) -> tuple[BudgetAsked, Budget]:
    """The budget options as given, and the budget they make.

    With none given, the default 51200 bytes and 2000 lines. A budget the user sets
    replaces the default: `--max-bytes 2M` alone is 2 MiB, with no line limit.
    `--compat` takes plain numbers, as the reference's `many` did.
    """
    bytes_text = given.text("max_bytes")
    lines = given.number("max_lines")
    tokens_text = given.text("max_tokens")
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
    value = whole_number(text)
    if value is None:
        raise UsageError(
            f"{option} {text!r}: give a whole number of bytes "
            "(sizes such as 100k need the default face, without --compat)"
        )
    if value < 1:
        raise UsageError(f"{option} {text!r}: give a number of at least 1")
    return value
