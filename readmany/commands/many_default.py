"""The default face of `readmany many`: the budget is the only limit, and nothing is silent.

A file may take all that is left of the budget (no per-file cap, no 26-file limit). A
block the budget cuts ends with a notice naming the lines shown and the command that
continues (`[Showing lines 1-1646 of 3624. Continue with: readmany many big.py:1647]`);
files the budget leaves out are named in one notice after the last block, with the
budget that would hold everything and the command that reads the rest. That notice is
counted in the budget like a block. Binary files and directories are error blocks that
say so (`frame.notices` words every notice); an error block is always shown, its room
kept before the rest is packed. A budget that shows no file read is an error (exit 1),
and the files `--stop-on-error` did not read are named on stderr and as `notReadPaths`.
"""

from __future__ import annotations

import math
import os
import sys
from bisect import bisect_right
from collections.abc import Sequence

from readmany.commands.many_request import BudgetAsked, file_detail, write_blocks
from readmany.emit.outcome import FileStat, Outcome, Tally
from readmany.emit.sink import Sink
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK, UsageError
from readmany.frame import notices, weigh
from readmany.frame.heredoc import Block, block_tokens, frame_heredoc
from readmany.frame.paths import header_path
from readmany.limits import READ_MAX_BYTES, READ_MAX_LINES
from readmany.pack import (
    SEPARATOR,
    SEPARATOR_BYTES,
    SEPARATOR_LINES,
    UNCOUNTED,
    Budget,
    Entry,
    pack_blocks,
)
from readmany.read.classify import credentials_name
from readmany.read.line_range import (
    ReadStyle,
    ToolRead,
    format_size,
    js_number,
    read_tool,
    resolve_path,
)
from readmany.record import NamedTuple
from readmany.select.boundary import secret_file_refusal, secret_file_words, target_name
from readmany.units import parse_size, utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.commands.many_request import FileRequest, ManyRequest
    from readmany.faces import Face
    from readmany.invoke import Options
    from readmany.pack import Block as Packed
    from readmany.pack import Packing

NO_LIMIT = sys.maxsize  # a budget dimension nobody set
NOTICE_LINES = 2  # an empty line and the notice, after a block's text
READ_BYTES_PER_TOKEN = 8  # a budget of tokens reads at most this many bytes a token
UNREAD_MARGIN = 1.2  # what is not read is counted at this much the density of what is


# --- the budget -------------------------------------------------------------------------


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


def raise_options(
    need_bytes: int, need_lines: int, need_tokens: float, asked: BudgetAsked
) -> list[str]:
    """The budget options that would hold `need_bytes`, `need_lines` and `need_tokens`
    in one run."""
    defaults = asked.max_bytes is None and asked.max_lines is None and asked.max_tokens is None
    options = []
    if asked.max_tokens is not None and need_tokens > asked.max_tokens:
        options.append(f"--max-tokens {notices.size_option(math.ceil(need_tokens), 1000)}")
    max_bytes = READ_MAX_BYTES if defaults else asked.max_bytes
    if max_bytes is not None and need_bytes > max_bytes:
        options.append(f"--max-bytes {notices.size_option(need_bytes)}")
    max_lines = READ_MAX_LINES if defaults else asked.max_lines
    if max_lines is not None and need_lines > max_lines:
        options.append(f"--max-lines {need_lines}")
    return options


# --- one file ----------------------------------------------------------------------------


class Shown(NamedTuple):
    """A framed block, and what of the file it leaves out (the lines after `last`)."""

    text: str
    delimiter: str
    bytes: int
    lines: int
    first: int = 0  # 1-based first and last line shown, of `total`, when lines are left out
    last: int = 0
    total: int = 0
    next_spec: str | None = None  # `PATH:N[:LINES]`: what reads the rest; None when whole
    show: str | None = None  # the command that shows a line longer than the budget

    @property
    def tokens(self) -> float:
        """Its estimated tokens, as a budget of tokens counts them (weighed when asked)."""
        return block_tokens(self.text)


def _shown(
    block: Block,
    first: int = 0,
    last: int = 0,
    total: int = 0,
    rest: str | None = None,
    show: str | None = None,
) -> Shown:
    return Shown(
        block.text, block.delimiter, block.bytes, block.lines, first, last, total, rest, show
    )


class Piece(NamedTuple):
    """One requested file: its full block, how to cut it, and what showing it all takes."""

    block: Shown
    cutter: Cutter | None
    need_bytes: int
    need_lines: int
    spec: str  # the request as `readmany many` takes it
    # Tokens of the block of every line asked for, where the read cut them and kept them
    # all (weighed as a budget that shows them would weigh it); else -1: estimated.
    need_tokens: float = -1.0


def _spec(request: FileRequest) -> str:
    if request.offset is None and request.limit is None:
        return request.path
    offset = js_number(request.offset) if request.offset is not None else "1"
    if request.limit is None:
        return f"{request.path}:{offset}"
    return f"{request.path}:{offset}:{js_number(request.limit)}"


def _page(request: FileRequest) -> int | None:
    """The request's limit as a line count, if it is one."""
    limit = request.limit
    if isinstance(limit, float) and limit.is_integer():
        limit = int(limit)
    return limit if isinstance(limit, int) and limit > 0 else None


def read_style(budget: Budget, face: Face) -> ReadStyle:
    """How each file is read: capped by the budget alone (unless the face caps each file
    as the reference's read does), without the read's notices, which `piece_of` words.
    A budget of tokens caps a read at `READ_BYTES_PER_TOKEN` bytes a token."""
    capped = ReadStyle()
    max_bytes = budget.max_bytes
    if budget.counts_tokens:
        max_bytes = min(max_bytes, int(budget.max_tokens * READ_BYTES_PER_TOKEN))
    return ReadStyle(
        rewrite_paths=face.rewrite_paths,
        max_lines=capped.max_lines if face.many_file_cap else budget.max_lines,
        max_bytes=capped.max_bytes if face.many_file_cap else max_bytes,
        notices=False,
        refuse_binary=face.many_binary_error,
        reference_window_end=False,
        keep_window=budget.counts_tokens,
    )


def piece_of(
    request: FileRequest, index: int, result: ToolRead, carry: Sequence[str] = ()
) -> Piece:
    """The block of one read, with its notices, and its cutter. `carry`: the budget
    options given, which every command a notice offers keeps (`budget_options`): the
    pages that follow are cut by the same budget."""
    spec = _spec(request)
    if result.error is not None:
        failed = _shown(frame_heredoc(request.path, f"[Error: {problem(request, result)}]", index))
        return Piece(failed, None, failed.bytes, failed.lines, spec)
    if result.image_count:
        image = _shown(frame_heredoc(request.path, _image_body(request.path, result), index))
        return Piece(image, None, image.bytes, image.lines, spec)
    truncation = result.truncation
    assert truncation is not None  # a text read always has one
    first = result.first + 1
    total = result.line_count
    window_last = min(result.stop, total)  # the last line asked for
    page = _page(request)
    # What the block of every line asked for takes: the frame, the lines (and the empty
    # one after a final newline), and the notice when the lines asked for end before the file.
    overhead = frame_heredoc(request.path, "", index).bytes
    ends_early = page is not None and window_last < total
    tail = ""
    if ends_early:
        after = notices.many_spec(request.path, window_last + 1, page)
        tail = SEPARATOR + notices.showing(
            first, window_last, total, notices.many_command([after], carry)
        )
    final_newline = result.stop >= result.file_lines > result.line_count  # an empty last line
    need_bytes = overhead + truncation.total_bytes + utf8_len(tail)
    need_lines = truncation.total_lines + final_newline + 3 + (NOTICE_LINES if ends_early else 0)
    if truncation.first_line_exceeds_limit:
        rest = notices.many_spec(request.path, first + 1, page and window_last - first)
        # The block of `PATH:FIRST:1`: the line, and the notice when lines follow it.
        show_bytes = overhead + result.first_line_bytes
        if first < total:
            after = notices.many_command([notices.many_spec(request.path, first + 1, 1)])
            show_bytes += len(SEPARATOR) + utf8_len(notices.showing(first, first, total, after))
        show = notices.many_command(
            [notices.many_spec(request.path, first, 1)],
            [f"--max-bytes {notices.size_option(show_bytes)}"],
        )
        body = notices.line_too_long(first, format_size(result.first_line_bytes), show)
        whole = first >= window_last
        too_long = _shown(
            frame_heredoc(request.path, body, index),
            first,
            first - 1,
            total,
            None if whole else rest,
            show,
        )
        return Piece(too_long, None, need_bytes, need_lines, spec)
    content = result.text
    length = len(content)
    last = min(first + truncation.output_lines - 1, total)
    if last < window_last:  # the budget stopped the read before the last line asked for
        rest = notices.many_spec(request.path, last + 1, page and window_last - last)
        notice = notices.showing(first, last, total, notices.many_command([rest], carry))
        capped = frame_heredoc(request.path, content + SEPARATOR + notice, index)
        start = _body_start(request.path, capped)
        cutter = Cutter(
            request.path, index, capped.text, (start, start + length), first, total,
            window_last, page, tail, carry,
        )  # fmt: skip
        need_tokens = -1.0
        if result.window is not None:  # what the block of all of them weighs
            every_line = frame_heredoc(request.path, result.window + tail, index)
            need_tokens = every_line.tokens
        shown = _shown(capped, first, last, total, rest)
        return Piece(shown, cutter, need_bytes, need_lines, spec, need_tokens)
    framed = frame_heredoc(request.path, content + tail, index)
    del content  # the text is held once, in its block
    start = _body_start(request.path, framed)
    cutter = Cutter(
        request.path, index, framed.text, (start, start + length), first, total,
        window_last, page, tail, carry,
    )  # fmt: skip
    whole_block = _shown(framed)
    return Piece(whole_block, cutter, whole_block.bytes, whole_block.lines, spec)


def _body_start(path: str, block: Block) -> int:
    """Where the body begins in `block`'s text: after the header and the opening line."""
    return len(f"@{header_path(path)}\n<<'{block.delimiter}'\n")


def check_secrets(
    path: str, result: ToolRead, mode: str, warnings: list[str], found: list[dict[str, Any]]
) -> ToolRead:
    """`--secrets`: warn about, mask (redact) or refuse (skip) a text that looks like it
    holds a secret."""
    from readmany.read.secrets import redact, scan, secrets_warning

    if mode == "redact":
        text, findings = redact(result.text)
        result = result._replace(text=text)
    else:
        findings = scan(result.text)
    if not findings:
        return result
    found.extend({"path": path, "line": f.line, "rule": f.rule, "action": mode} for f in findings)
    if mode == "warn":
        warnings.append(secrets_warning(path, findings))
    elif mode == "skip":
        rules = ", ".join(dict.fromkeys(f.rule for f in findings))
        return result._replace(text="", error=f"looks like a secret ({rules})", error_code="secret")
    return result


SECRET_FILE = "secret file"  # `ToolRead.error_code` of a file refused by its name


def _credentials_refused(path: str, kind: str, result: ToolRead) -> ToolRead:
    """An `.npmrc` or `.pypirc` (`kind`: by its name or its link's target's) that holds a
    token or password is a secret file, as glob refuses it: the read becomes its refusal."""
    from readmany.read.secrets import holds_credentials

    if not holds_credentials(kind, result.text):
        return result
    refusal = secret_file_words(path, "it holds a token or password")
    return ToolRead(error=refusal, error_code=SECRET_FILE, size=result.size)


def problem(request: FileRequest, result: ToolRead) -> str:
    """A failed read in a person's words."""
    if result.error_code == "secret":
        return f"{request.path}: left out by --secrets skip: {result.error}"
    if result.error_code == SECRET_FILE:
        return result.error or ""
    if result.error_code == "offset":
        return notices.past_the_end(request.path, js_number(request.offset or 0), result.line_count)
    if result.error_code == "EISDIR" and _empty_directory(request.path):
        return notices.read_problem(request.path, "EISDIR", "empty")
    if result.error_code:
        return notices.read_problem(request.path, result.error_code, result.error_detail)
    return f"{request.path}: {result.error}"


def _empty_directory(path: str) -> bool:
    """Whether `path` is a directory with nothing in it (`readmany glob` of it would read
    nothing either: a submodule git lists but has not checked out)."""
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def _image_body(path: str, result: ToolRead) -> str:
    return notices.image_not_shown(path, result.mime_type or "", format_size(result.size))


class Cutter:
    """Frames the longest head of a file's text that fits, ending with a `Showing` notice.

    The text is split and measured once, at the first attempt (most files are never
    cut); each attempt of the planner is then a search. It holds no text of its own: the
    text is read back from the framed block it is a part of (`source[start:stop]`), so a
    file's text is held once, in its block, until the budget cuts it.
    """

    def __init__(
        self,
        path: str,
        index: int,
        source: str,
        span: tuple[int, int],
        first: int,
        total: int,
        window_last: int,
        page: int | None,
        tail: str,
        carry: Sequence[str] = (),
    ) -> None:
        self.path = path
        self.carry = carry  # the budget options its notice's command keeps
        self.index = index
        self.source: str | None = source
        self.span = span
        self.lines: list[str] = []
        self.ends: list[int] = []  # ends[n]: bytes of the first n lines joined by newlines
        self.first = first
        self.total = total
        self.window_last = window_last
        self.page = page
        self.tail = tail  # the notice a whole block ends with, if any
        widest = notices.many_spec(path, total, total if page else None)
        self.reserve = utf8_len(
            SEPARATOR + notices.showing(first, total, total, notices.many_command([widest], carry))
        )

    def _measure(self) -> None:
        if self.source is None:
            return
        start, stop = self.span
        self.lines = self.source[start:stop].split("\n")
        self.source = None
        self.ends = [0]
        for number, line in enumerate(self.lines):
            self.ends.append(self.ends[-1] + utf8_len(line) + (1 if number else 0))

    def __call__(self, max_lines: int, max_bytes: int) -> Shown | None:
        self._measure()
        count = min(max_lines - NOTICE_LINES, bisect_right(self.ends, max_bytes - self.reserve) - 1)
        count = min(count, len(self.lines))
        if count < 1:
            return None
        kept = "\n".join(self.lines[:count])
        last = min(self.first + count - 1, self.total)
        if last >= self.window_last:  # all lines asked for fit; at most a final newline not
            return _shown(frame_heredoc(self.path, (kept + self.tail), self.index))
        rest = notices.many_spec(self.path, last + 1, self.page and self.window_last - last)
        notice = notices.showing(
            self.first, last, self.total, notices.many_command([rest], self.carry)
        )
        block = frame_heredoc(self.path, kept + SEPARATOR + notice, self.index)
        return _shown(block, self.first, last, self.total, rest)


# --- the run -----------------------------------------------------------------------------


def run_default(request: ManyRequest, sink: Sink) -> Outcome:
    style = read_style(request.budget, request.face)
    pieces: list[Piece] = []
    entries: list[Entry] = []
    details: list[dict[str, Any]] = []
    problems: list[str] = []
    quoted_names = False  # a name not found that git ls-files quoted (listed without -z)
    warnings: list[str] = []  # said on stderr, the exit status unchanged
    found: list[dict[str, Any]] = []  # details.secrets
    not_read: Sequence[FileRequest] = ()  # after the failure that --stop-on-error stops at
    carry = budget_options(request.asked)  # kept by every command a notice offers
    for index, file in enumerate(request.files):
        rewrite = style.rewrite_paths and not file.literal
        target = target_name(resolve_path(file.path, request.cwd, rewrite=rewrite))
        refusal = secret_file_refusal(file.path, target)
        if refusal is not None:  # as glob and hashline: never read, whoever names it
            result = ToolRead(error=refusal, error_code=SECRET_FILE)
        else:
            result = read_tool(
                file.path,
                file.offset,
                file.limit,
                request.cwd,
                count_trailing_empty=False,
                style=style._replace(rewrite_paths=rewrite),
                root=request.root,
            )
        if result.ok:
            kind = credentials_name(file.path) or (target and credentials_name(target))
            if kind is not None:
                result = _credentials_refused(file.path, kind, result)
        if request.secrets != "off" and result.ok and result.text:
            result = check_secrets(file.path, result, request.secrets, warnings, found)
        piece = piece_of(file, index + 1, result, carry)
        pieces.append(piece)
        entries.append(Entry(index, file.path, piece.block, result.ok, piece.cutter))
        detail = file_detail(file, result, Block(*piece.block[:4]), weigh=sink.weigh)
        result = result._replace(text="", window=None)  # the text is held in its block alone
        if result.error is not None:
            detail["error"] = problem(file, result)
        elif "truncation" in detail:
            detail["truncation"] = _truncation_detail(detail["truncation"])
            if detail["truncation"] is None:
                del detail["truncation"]
        details.append(detail)
        sink.file_done(file.path, len(request.files))
        if not result.ok:
            problems.append(detail["error"])
            if result.error_code == "ENOENT" and notices.git_quoted(file.path):
                quoted_names = True
            if request.stop_on_error:
                not_read = request.files[index + 1 :]
                if not_read:
                    problems.append(_not_read(file.path, not_read, carry))
                break
    packing, left_out, rest, named = _pack(entries, pieces, request)
    shown = packing.blocks(entries)
    write_blocks(sink, shown)
    if left_out is not None:
        sink.write(SEPARATOR + left_out if shown else left_out)
    errors = sum(not entry.ok for entry in entries)
    fates = _fates(entries, packing)
    raise_to = raise_options(*_need(pieces, request.budget), request.asked) if rest else []
    advice = _advice(rest if named else (), raise_to, carry) if rest else None
    shown_none = not any(fate.stat.status in ("read", "cut") for fate in fates)
    if shown_none and errors < len(entries):
        # Files were read and the budget shows none of them: an error, said with the fix.
        readable = [entry.path for entry in entries if entry.ok]
        what = readable[0] if len(readable) == 1 else f"the {len(readable)} files read"
        how = advice or "the files left out are listed in the --json details"
        errors_shown = any(not e.ok and e.position in packing.plan.full for e in entries)
        problems.append(notices.nothing_fits(_budget_words(request), what, how, errors_shown))
        advice = None
    report: dict[str, Any] = {
        "processedCount": len(entries),
        "successCount": len(entries) - errors,
        "errorCount": errors,
        "files": details,
        "packing": packing.as_json(entries),
        "continueWith": notices.many_command(rest, carry) if rest else None,
        "notReadPaths": [file.path for file in not_read],
        **({"secrets": found} if found else {}),
        "bytes": sink.bytes_written,
        "estimatedTokens": round(sink.tokens),
    }
    return Outcome(
        details=report,
        exit_code=EXIT_FILE_ERROR if errors or shown_none else EXIT_OK,
        problems=(*problems, *warnings),
        notices=tuple(fate.note for fate in fates if fate.note is not None),
        advice=(
            *((advice,) if advice is not None else ()),
            *((notices.GIT_QUOTED_ADVICE.format(command="many"),) if quoted_names else ()),
        ),
        stats=Tally.of(
            [
                *(fate.stat for fate in fates),
                *(FileStat(file.path, "skipped", 0, NOT_READ_REASON) for file in not_read),
            ]
        ),
    )


NOT_READ_REASON = "not read after an error (--stop-on-error)"
NOT_READ_NAMED = 20  # more files than this not read are counted on stderr, not named


def _not_read(failed: str, files: Sequence[FileRequest], carry: Sequence[str]) -> str:
    """The stderr line naming the files --stop-on-error did not read."""
    names = [file.path for file in files]
    if len(files) > NOT_READ_NAMED:
        return notices.not_read(failed, names, None)
    command = notices.many_command([_spec(f) for f in files], carry)
    return notices.not_read(failed, names, command)


def budget_options(asked: BudgetAsked) -> tuple[str, ...]:
    """The budget options given, as a command that continues keeps them: the next page
    is cut by the budget the first was (`--max-tokens 10000`)."""
    return (
        *((f"--max-bytes {_size_word(asked.max_bytes, 1024)}",) if asked.max_bytes else ()),
        *((f"--max-lines {asked.max_lines}",) if asked.max_lines is not None else ()),
        *((f"--max-tokens {_size_word(asked.max_tokens, 1000)}",) if asked.max_tokens else ()),
    )


def _size_word(value: int, base: int) -> str:
    """A size as it reads back the same: `2k` for 2048 bytes, `10k` for 10,000 tokens,
    the number itself where no suffix is exact."""
    for suffix, unit in (("M", base * base), ("k", base)):
        if value >= unit and value % unit == 0:
            return f"{value // unit}{suffix}"
    return str(value)


def _budget_words(request: ManyRequest) -> str:
    """The budget as the options that set it: `--max-bytes 50 --max-lines 3`."""
    words = budget_options(request.asked)
    if not words:
        budget = request.budget
        return f"the default, {budget.max_bytes} bytes and {budget.max_lines} lines"
    return " ".join(words)


def _truncation_detail(record: dict[str, Any]) -> dict[str, Any] | None:
    """The read's truncation record, when it cut: without the text it kept, and with
    null for a budget dimension nobody set."""
    if not record["truncated"]:
        return None
    unset = {"maxLines", "maxBytes"}
    return {
        key: None if key in unset and value == NO_LIMIT else value
        for key, value in record.items()
        if key != "content"
    }


def _pack(
    entries: Sequence[Entry], pieces: Sequence[Piece], request: ManyRequest
) -> tuple[Packing, str | None, list[str], bool]:
    """The packing, the notice naming what it left out, the specs that read the rest, and
    whether the notice names them all with the command that reads them.

    The notice is part of the output, so it is part of the budget: the planner runs
    again with room kept for it until the notice fits the room kept. A notice that would
    take more than a quarter of the budget (thousands of files from --stdin) names the
    first few and the count instead; stderr and the JSON details name them all.

    Error blocks are shown whenever they fit the budget together: their room (with a
    joint each) is kept before the files read are packed, and they are never left out.
    When they do not fit (a tiny budget, a long list of missing files), none is shown:
    the budget holds, and stderr and the exit status say what failed.
    """
    budget = request.budget
    raise_to = raise_options(*_need(pieces, budget), request.asked)
    carry = budget_options(request.asked)
    counting = budget.counts_tokens
    files = request.files[: len(entries)]  # --stop-on-error: those read
    failed = [entry for entry in entries if not entry.ok]
    readable = [entry for entry in entries if entry.ok]
    keep_bytes = sum(entry.block.bytes + SEPARATOR_BYTES for entry in failed)
    keep_lines = sum(entry.block.lines + SEPARATOR_LINES for entry in failed)
    keep_tokens = 0.0
    if counting:
        keep_tokens = sum(entry.block.tokens + weigh(SEPARATOR) for entry in failed)
    errors = Budget(keep_bytes, keep_lines, keep_tokens)
    if (
        errors.max_bytes > budget.max_bytes
        or errors.max_lines > budget.max_lines
        or errors.max_tokens > budget.max_tokens
    ):
        failed = []
        keep_bytes = keep_lines = 0
        keep_tokens = 0.0
        errors = Budget(0, 0, 0.0)

    def packed(room: Budget) -> Packing:
        packing = pack_blocks(readable, room)
        if not failed:
            return packing
        shown = packing.plan.full | {entry.position for entry in failed}
        return packing._replace(plan=packing.plan._replace(full=shown))

    notice = None
    named = True
    for _ in range(len(entries) + 2):
        room = Budget(
            budget.max_bytes - keep_bytes,
            budget.max_lines - keep_lines,
            budget.max_tokens - keep_tokens,
        )
        if room.max_bytes < 0 or room.max_lines < 0 or room.max_tokens < 0:
            # Not even the notice fits the budget: it is said on stderr alone.
            packing = packed(
                Budget(
                    budget.max_bytes - errors.max_bytes,
                    budget.max_lines - errors.max_lines,
                    budget.max_tokens - errors.max_tokens,
                )
            )
            return packing, None, _rest(entries, pieces, packing, files), True
        packing = packed(room)
        rest = _rest(entries, pieces, packing, files)
        if not packing.omitted or not request.face.many_omitted_notice:
            return packing, None, rest, True
        names = [entries[i].path for i in packing.omitted]
        notice = notices.left_out(names, raise_to, notices.many_command(rest, carry))
        named = utf8_len(notice) <= budget.max_bytes // 4 and (
            not counting or weigh(notice) <= budget.max_tokens / 4
        )
        if not named:
            notice = notices.left_out_many(names, raise_to)
        any_shown = bool(packing.plan.full) or packing.plan.partial is not None
        cost_bytes = utf8_len(notice) + (SEPARATOR_BYTES if any_shown else 0)
        cost_lines = notice.count("\n") + 1 + (SEPARATOR_LINES if any_shown else 0)
        cost_tokens = 0.0
        if counting:
            cost_tokens = weigh(SEPARATOR + notice if any_shown else notice)
        cost_bytes += errors.max_bytes
        cost_lines += errors.max_lines
        cost_tokens += errors.max_tokens
        if cost_bytes <= keep_bytes and cost_lines <= keep_lines and cost_tokens <= keep_tokens:
            break
        keep_bytes, keep_lines = max(keep_bytes, cost_bytes), max(keep_lines, cost_lines)
        keep_tokens = max(keep_tokens, cost_tokens)
    return packing, notice, rest, named


def _rest(
    entries: Sequence[Entry],
    pieces: Sequence[Piece],
    packing: Packing,
    files: Sequence[FileRequest],
) -> list[str]:
    """`readmany many` arguments that read what this packing does not show, in order.

    A file left out whose lines an earlier request of the same file asked for (`a.py
    a.py`) is not named again: they are shown, or read by the argument before it."""
    rest = []
    asked: dict[str, list[tuple[int, float]]] = {}  # the lines of each file accounted for
    for entry, piece, file in zip(entries, pieces, files, strict=True):
        if not entry.ok:  # an error block: reading it again reads nothing
            continue
        lines = _lines_asked(file)
        same = asked.setdefault(os.path.normpath(file.path), [])
        if entry.position in packing.plan.full:
            spec = piece.block.next_spec
        elif entry.position == packing.plan.partial_index:
            partial = packing.plan.partial
            spec = partial.next_spec if isinstance(partial, Shown) else None
        elif lines is not None and _within(lines, same):
            spec = None
        else:
            spec = piece.spec
        if spec is not None:
            rest.append(spec)
        if lines is not None:
            same.append(lines)
    return rest


def _lines_asked(file: FileRequest) -> tuple[int, float] | None:
    """The first and last line a request asks for (the last may be infinite); None for
    an offset or limit that is no whole number (read as the reference reads it)."""
    offset, limit = file.offset, file.limit
    first = 1 if offset is None else _whole(offset)
    if first is None:
        return None
    first = max(first, 1)
    if limit is None:
        return first, math.inf
    count = _whole(limit)
    return None if count is None or count < 1 else (first, first + count - 1)


def _whole(value: float) -> int | None:
    if isinstance(value, int):
        return value
    return int(value) if math.isfinite(value) and value.is_integer() else None


def _within(lines: tuple[int, float], earlier: Sequence[tuple[int, float]]) -> bool:
    """Whether the lines `first`-`last` are all among the ranges `earlier`."""
    first, last = lines
    reached: float = first - 1  # every line up to this one is covered
    for start, end in sorted(earlier):
        if start > reached + 1:
            break
        reached = max(reached, end)
    return reached >= last


def _need(pieces: Sequence[Piece], budget: Budget) -> tuple[int, int, float]:
    """Bytes, lines and tokens of an output that shows every file whole (tokens, only
    for a budget of tokens: a file cut is weighed whole where its read kept every line
    asked for; one read in part, at its block's tokens a byte, with `UNREAD_MARGIN` more
    for what was not read)."""
    count = len(pieces)
    separators = max(count - 1, 0)
    tokens = 0.0
    if budget.counts_tokens:
        for piece in pieces:
            block = piece.block
            if piece.need_tokens >= 0:  # weighed whole
                tokens += piece.need_tokens
                continue
            tokens += block.tokens
            unread = piece.need_bytes - block.bytes
            if unread > 0:
                tokens += UNREAD_MARGIN * block.tokens * unread / max(block.bytes, 1)
        tokens += separators * weigh(SEPARATOR)
    return (
        sum(p.need_bytes for p in pieces) + separators * SEPARATOR_BYTES,
        sum(p.need_lines for p in pieces) + separators * SEPARATOR_LINES,
        tokens,
    )


class Fate(NamedTuple):
    stat: FileStat
    note: str | None  # a stderr line when the budget took something


def _fates(entries: Sequence[Entry], packing: Packing) -> list[Fate]:
    fates = []
    for entry in entries:
        block: Packed | None
        if entry.position in packing.plan.full:
            block = entry.block
        elif entry.position == packing.plan.partial_index:
            block = packing.plan.partial
        else:
            block = None
        if not entry.ok:
            shown_bytes = block.bytes if block is not None else 0
            fates.append(Fate(FileStat(entry.path, "error", shown_bytes, "read failed"), None))
        elif block is None:
            note = f"{entry.path}: left out by the budget"
            fates.append(Fate(FileStat(entry.path, "omitted", 0, "left out by the budget"), note))
        elif isinstance(block, Shown) and block.last < block.first:
            note = f"{entry.path}: line {block.first} is longer than the budget holds"
            if block.show is not None:  # the continue command goes on after it
                note += f"; show it with: {block.show}"
            fates.append(Fate(FileStat(entry.path, "cut", block.bytes, "cut by the budget"), note))
        elif isinstance(block, Shown) and block.next_spec is not None:
            note = (
                f"{entry.path}: lines {block.first}-{block.last} of {block.total} shown, "
                "cut by the budget"
            )
            fates.append(Fate(FileStat(entry.path, "cut", block.bytes, "cut by the budget"), note))
        else:
            fates.append(Fate(FileStat(entry.path, "read", block.bytes), None))
    return fates


def _advice(rest: Sequence[str], raise_to: Sequence[str], carry: Sequence[str] = ()) -> str:
    """One stderr line: the budget that holds everything, and the command that continues
    (when `rest` is given: too many files for one command line are left to --json)."""
    budget = f"to read all at once: {' '.join(raise_to)}" if raise_to else ""
    if not rest:
        return budget or "the files left out are listed in the --json details"
    lead = f"{budget}; or " if budget else ""
    return f"{lead}continue with: {notices.many_command(rest, carry)}"
