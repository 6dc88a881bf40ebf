"""`many`'s blocks: a read framed in its heredoc with the notices of the default face
(the lines shown and the command that continues, a line too long for the budget, an
image not shown), how to cut it to a smaller room (`Cutter`), and what showing all the
lines asked for takes; and the reference's blocks (`reference_piece`, `--compat`)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import partial

from readmany.frame import notices, weigh
from readmany.frame.heredoc import Block, block_tokens, frame_heredoc, heredoc_pieces
from readmany.frame.paths import header_path
from readmany.read.guard import SECRET_FILE
from readmany.read.line_range import ToolRead, format_size, js_number, truncate_head
from readmany.record import NamedTuple
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from readmany.read.line_range import Number

    class Asked(Protocol):
        """A file as `many` is asked for it (`FileRequest`)."""

        @property
        def path(self) -> str: ...

        @property
        def offset(self) -> Number | None: ...

        @property
        def limit(self) -> Number | None: ...


BLANK = "\n\n"  # the empty line between a block's text and its notice


NOTICE_LINES = 2  # an empty line and the notice, after a block's text


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
    # A long file's block, held as its header, its text and its closing line (`text` is
    # then ""): the text is not copied into a block of its own.
    pieces: tuple[str, str, str] | None = None

    @property
    def tokens(self) -> float:
        """Its estimated tokens, as a budget of tokens counts them (weighed when asked)."""
        if self.pieces is not None:  # as `block_tokens` weighs it: frame and body apart
            head, body, foot = self.pieces
            return weigh(head + foot) + weigh(body, whole=True)
        return block_tokens(self.text)

    def parts(self) -> tuple[str, ...]:
        """Its text, in the pieces it is held in."""
        return self.pieces if self.pieces is not None else (self.text,)


def parts_of(block: object) -> tuple[str, ...]:
    """The text of a block as it is written, in the pieces it is held in (a `Shown`
    long file's header, text and closing line; any other block's text)."""
    return block.parts() if isinstance(block, Shown) else (getattr(block, "text", ""),)


def shown_block(
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
    # The longest head of the block within (lines, bytes): a `Cutter`, or the reference's
    # cut of its body (`cut_heredoc_head`); None: it is never cut (an error block).
    cutter: Callable[[int, int], Block | Shown | None] | None
    need_bytes: int
    need_lines: int
    spec: str  # the request as `readmany many` takes it
    # Tokens of the block of every line asked for, where the read cut them and kept them
    # all (weighed as a budget that shows them would weigh it); else -1: estimated.
    need_tokens: float = -1.0


def spec_of(request: Asked) -> str:
    if request.offset is None and request.limit is None:
        return request.path
    offset = js_number(request.offset) if request.offset is not None else "1"
    if request.limit is None:
        return f"{request.path}:{offset}"
    return f"{request.path}:{offset}:{js_number(request.limit)}"


def _page(request: Asked) -> int | None:
    """The request's limit as a line count, if it is one."""
    limit = request.limit
    if isinstance(limit, float) and limit.is_integer():
        limit = int(limit)
    return limit if isinstance(limit, int) and limit > 0 else None


def piece_of(
    request: Asked,
    index: int,
    result: ToolRead,
    carry: Sequence[str] = (),
    *,
    size_words: Callable[[int], str],
) -> Piece:
    """The block of one read, with its notices, and its cutter. `carry`: the budget
    options given, which every command a notice offers keeps (`BudgetAsked.options`): the
    pages that follow are cut by the same budget; `size_words`, how a size needed is
    written in an option (`pack.budget.size_at_least`)."""
    spec = spec_of(request)
    if result.error is not None:
        failed = shown_block(
            frame_heredoc(request.path, f"[Error: {problem(request, result)}]", index)
        )
        return Piece(failed, None, failed.bytes, failed.lines, spec)
    if result.image_count:
        image = shown_block(frame_heredoc(request.path, _image_body(request.path, result), index))
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
        tail = BLANK + notices.showing(
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
            show_bytes += len(BLANK) + utf8_len(notices.showing(first, first, total, after))
        show = notices.many_command(
            [notices.many_spec(request.path, first, 1)],
            [f"--max-bytes {size_words(show_bytes)}"],
        )
        body = notices.line_too_long(first, format_size(result.first_line_bytes), show)
        whole = first >= window_last
        too_long = shown_block(
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
        capped = frame_heredoc(request.path, content + BLANK + notice, index)
        start = _body_start(request.path, capped)
        cutter = Cutter(
            request.path, index, capped.text, (start, start + length), first, total,
            window_last, page, tail, carry,
        )  # fmt: skip
        need_tokens = -1.0
        if result.window is not None:  # what the block of all of them weighs
            every_line = frame_heredoc(request.path, result.window + tail, index)
            need_tokens = every_line.tokens
        shown = shown_block(capped, first, last, total, rest)
        return Piece(shown, cutter, need_bytes, need_lines, spec, need_tokens)
    body = content + tail
    del content  # the text is held once, as its block's middle piece
    head, foot, delimiter = heredoc_pieces(request.path, body, index)
    cutter = Cutter(
        request.path, index, body, (0, length), first, total, window_last, page, tail, carry
    )
    size = utf8_len(head) + utf8_len(body) + utf8_len(foot)
    lines = head.count("\n") + body.count("\n") + foot.count("\n") + 1
    whole_block = Shown("", delimiter, size, lines, pieces=(head, body, foot))
    return Piece(whole_block, cutter, size, lines, spec)


def _body_start(path: str, block: Block) -> int:
    """Where the body begins in `block`'s text: after the header and the opening line."""
    return len(f"@{header_path(path)}\n<<'{block.delimiter}'\n")


def problem(request: Asked, result: ToolRead) -> str:
    """A failed read in a person's words."""
    if result.error_code == "secret":
        return f"{request.path}: left out by --secrets skip: {result.error}"
    if result.error_code == SECRET_FILE:
        return result.error or ""
    if result.error_code == "offset":
        return notices.past_the_end(request.path, js_number(request.offset or 0), result.line_count)
    if result.error_code:
        return notices.read_problem(request.path, result.error_code, result.error_detail)
    return f"{request.path}: {result.error}"


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
            BLANK + notices.showing(first, total, total, notices.many_command([widest], carry))
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
            return shown_block(frame_heredoc(self.path, (kept + self.tail), self.index))
        rest = notices.many_spec(self.path, last + 1, self.page and self.window_last - last)
        notice = notices.showing(
            self.first, last, self.total, notices.many_command([rest], self.carry)
        )
        block = frame_heredoc(self.path, kept + BLANK + notice, self.index)
        return shown_block(block, self.first, last, self.total, rest)


IMAGE_SUMMARY = "[{count} image attachment(s) omitted; use read on this file for image payload.]"


EMPTY_BODY = "[No text content returned]"


def reference_piece(request: Asked, index: int, result: ToolRead) -> Piece:
    """The reference's block of one read (`--compat`): the read's text with the read's
    own notices (`body_of`), cut by its head; what showing it all takes is the block."""
    body = body_of(result)
    block = shown_block(frame_heredoc(request.path, body, index))
    cutter = None
    if result.ok:
        cutter = partial(cut_heredoc_head, request.path, index, body)
    return Piece(block, cutter, block.bytes, block.lines, spec_of(request))


def body_of(result: ToolRead) -> str:
    """The block body for a read: its text, an image summary, or a placeholder."""
    if result.error is not None:
        return f"[Error: {result.error}]"
    summary = IMAGE_SUMMARY.format(count=result.image_count) if result.image_count else ""
    if not result.text:
        return summary or EMPTY_BODY
    return f"{result.text}\n{summary}" if summary else result.text


def cut_heredoc_head(
    path: str, index: int, body: str, max_lines: int, max_bytes: int
) -> Block | None:
    """The block of the longest head of `body` within the limits; None if nothing fits."""
    kept = truncate_head(body, max_lines, max_bytes).content
    return frame_heredoc(path, kept, index) if kept else None
