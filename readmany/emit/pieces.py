"""The pieces of a file `glob --parts` cuts across parts: the longest run of its lines
from a first line on whose block fits a part's room, framed with the note that says
which parts hold the rest, and weighed as the plan weighs a block (`pack.parts` asks for
them one by one)."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable

from readmany.frame import notices
from readmany.frame.formats import GlobFraming
from readmany.frame.formats import measured as size_of
from readmany.pack import Budget
from readmany.pack.parts import PieceBlock
from readmany.read.glob_file import TextFile


class Pieces:
    """The pieces of the files cut across parts: the longest run of a file's lines from a
    first line on whose block fits a room, framed with the note that says where the rest
    is. The file's text is read again whole, the last one kept."""

    def __init__(
        self,
        whole: Callable[[int], TextFile | None],
        path_of: Callable[[int], str],
        framing: GlobFraming,
        *,
        lines: bool,
        tokens: bool,
    ) -> None:
        self._whole = whole  # a file's text, read again whole and checked
        self._path_of = path_of  # a file's path as it is shown
        self._framing = framing
        self._lines, self._tokens = lines, tokens
        self._text: tuple[int, str | None, array[int]] | None = None
        self._first_part: dict[int, int] = {}  # the part (0-based) of a file's first piece

    def _body(self, position: int) -> tuple[str | None, array[int]]:
        if self._text is None or self._text[0] != position:
            checked = self._whole(position)
            body = checked.text.body if checked is not None else None
            ends = _line_ends(body) if body is not None else array("q")
            self._text = (position, body, ends)
        return self._text[1], self._text[2]

    def __call__(self, position: int, first: int, room: Budget, part: int) -> PieceBlock | None:
        body, ends = self._body(position)
        if body is None:
            return None
        total = len(ends) - 1
        if first == 1:
            self._first_part[position] = part
        most = total - first + 1
        # No more lines than fit the room's bytes (each line takes its bytes at least).
        start = ends[first - 1]
        if body.isascii():
            most = min(most, bisect_right(ends, start + room.max_bytes) - first)

        def fitting(count: int) -> PieceBlock | None:
            block = self._framed(position, body, ends, first, count, total, part)
            tokens = block.tokens if room.counts_tokens else 0.0
            if (
                block.bytes <= room.max_bytes
                and block.lines <= room.max_lines
                and tokens <= room.max_tokens
            ):
                return block
            return None

        # Counts doubled from one line until one does not fit, then halved between: each
        # run framed is at most twice the piece, never the rest of a long file (a room of
        # tokens alone bounds no count of lines beforehand).
        best = None
        low, high = 1, most
        count = 1
        while count <= most:
            block = fitting(count)
            if block is None:
                high = count - 1
                break
            best, low = block, count + 1
            count *= 2
        while low <= high:
            count = (low + high) // 2
            block = fitting(count)
            if block is not None:
                best, low = block, count + 1
            else:
                high = count - 1
        return best

    def _framed(
        self,
        position: int,
        body: str,
        ends: array[int],
        first: int,
        count: int,
        total: int,
        part: int,
    ) -> PieceBlock:
        last = first + count - 1
        before = (self._first_part[position] + 1, part) if first > 1 else None
        after = part + 2 if last < total else None
        note = notices.piece_note(first, last, total, before, after)
        path = self._path_of(position)
        head = body[ends[first - 1] : ends[last]]
        text = self._framing.block(path, head, position + 1, note=note)
        size, lines = size_of(text, lines=self._lines)
        tokens = 0.0
        if self._tokens:
            tokens = self._framing.tokens(path, head, position + 1, note=note, cut=True)
        return PieceBlock("", size, lines, tokens, first, last, total, head, note)


def _line_ends(body: str) -> array[int]:
    """Where each line of `body` ends (after its newline; the last one, without, at the
    end), from 0: eight bytes a line, not a list of integers (a file of millions of
    lines is cut across parts)."""
    ends = array("q", [0])
    append, find = ends.append, body.find
    at = find("\n")
    while at >= 0:
        append(at + 1)
        at = find("\n", at + 1)
    if ends[-1] < len(body):
        append(len(body))
    return ends
