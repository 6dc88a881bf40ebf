"""How a `glob` section is cut to fit the room a budget leaves: the longest head of whole
lines whose framed block fits, ending with the notice that names the command that shows
the rest. The text is read back only when a cut is tried, from the run that measured it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from readmany.frame import notices, weigh
from readmany.frame.formats import measured as size_of
from readmany.frame.sections import continue_with
from readmany.limits import CUT_BYTES_PER_TOKEN, UNCOUNTED
from readmany.record import NamedTuple
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from readmany.frame.formats import GlobFraming
    from readmany.read.glob_file import TextFile

    class CutSource(Protocol):
        """The run whose sections are cut: their frame, names and texts."""

        framing: GlobFraming
        tokens: bool  # a budget of tokens: a cut's tokens are estimated
        counted: bool  # ... and, no tokenizer counting it, its head counted by its pieces
        slack: int  # bytes a frame is guessed to take where the room is for the body

        @property
        def root(self) -> str: ...

        def named(self, position: int) -> tuple[str, str]: ...  # its rel and shown path

        def text_of(self, position: int) -> TextFile | None: ...


class Cut(NamedTuple):
    """The head of a file, framed with the notice that says how to see the rest."""

    text: str
    bytes: int
    lines: int
    head: str
    note: str
    shown: int  # lines shown
    tokens: float = 0.0  # estimated, with a budget of tokens


LEAST_NOTE = notices.showing(1, 1, 2, "readmany many :2")  # shorter than any cut's notice


class SectionCutter:
    """A file's block as the planner sees it: its size, not its text (it is framed again
    when it is written); and `pack`'s way to cut it: the longest head of whole lines whose
    framed block fits, ending with the command that shows the rest. Its text, frame and
    name come from `source` (the run that measured it)."""

    __slots__ = (
        "bytes",
        "counted",
        "first_line",
        "first_tokens",
        "least",
        "least_tokens",
        "lines",
        "position",
        "source",
        "tokens",
    )
    text = ""

    def __init__(
        self,
        source: CutSource,
        position: int,
        size: int,
        lines: int,
        first_line: int,
        tokens: float,
    ) -> None:
        self.source = source
        self.position = position
        self.bytes = size
        self.lines = lines  # newlines in it
        self.tokens = tokens  # estimated, with a budget of tokens
        self.first_line = first_line  # bytes of the text's first line: a cut shows at least it
        self.first_tokens = 0.0  # ... and its tokens, with a budget of tokens
        self.least = 0  # bytes the block of one line takes at least; 0: not known yet
        self.least_tokens = -1.0  # ... and its tokens; negative: not known yet
        self.counted: list[int] | None = None  # the tokens of its first lines, by their pieces

    def __call__(self, max_lines: int, max_bytes: int) -> Cut | None:
        """The longest head within `max_lines` and `max_bytes` of text, framed."""
        room = max_bytes + self.source.slack  # as `pack` guesses the frame
        return self._cut(lambda _block: True, max_lines, max_bytes, room)

    def fill(self, room_lines: int, room_bytes: int, room_tokens: float = UNCOUNTED) -> Cut | None:
        """The longest head whose block fits `room_lines`, `room_bytes` and `room_tokens`
        (what `pack` asks of a cut that knows its frame)."""

        def fits(block: Cut) -> bool:
            return (
                block.bytes <= room_bytes
                and block.lines <= room_lines
                and block.tokens <= room_tokens
            )

        bound = room_bytes
        if room_tokens != UNCOUNTED:
            if self._least_tokens() > room_tokens:
                return None  # not even its first line: known without reading the file again
            # A head is searched for within so many bytes (a token is rarely more than
            # `CUT_BYTES_PER_TOKEN` of them): a long file is not split to its last line.
            bound = min(room_bytes, int(room_tokens * CUT_BYTES_PER_TOKEN))
        return self._cut(fits, room_lines, bound, room_bytes)

    def _least_tokens(self) -> float:
        """About the fewest tokens a cut of this file takes: its frame, with the shortest
        notice, and its first line."""
        if self.least_tokens < 0:
            self.least_tokens = weigh(self._least_frame()) + self.first_tokens
        return self.least_tokens

    def _least_frame(self) -> str:
        """This file's block with no line and the shortest notice: what any cut of it
        takes besides its lines."""
        _rel, path = self.source.named(self.position)
        return self.source.framing.block(path, "", self.position + 1, note=LEAST_NOTE)

    def _cut(
        self, fits: Callable[[Cut], bool], max_lines: int, max_bytes: int, room: int
    ) -> Cut | None:
        source = self.source
        # The block of the first line alone is at least the frame of no line (with a
        # notice shorter than any, naming no path) and that line: when that cannot fit,
        # it is known without reading the file again.
        if not self.least:
            self.least = utf8_len(self._least_frame()) + self.first_line
        if self.least > room:
            return None
        result = source.text_of(self.position)
        if result is None:
            return None
        from readmany.read.glob_file import with_total

        body = result.text.body
        total = with_total(result).text.total_lines or body.count("\n") + (not body.endswith("\n"))
        ends, byte_ends = line_ends(body, max_bytes)
        most = min(max_lines, bisect_right(byte_ends, max_bytes) - 1, total - 1)
        counted = self._counted(body, ends, most) if source.counted else None
        best = None
        low, high = 1, most  # the block grows with the lines it shows: search for the last
        while low <= high:
            count = (low + high) // 2
            head_tokens = counted[count] if counted is not None else -1.0
            block = self._framed(body[: ends[count]], count, total, head_tokens)
            if fits(block):
                best, low = block, count + 1
            else:
                high = count - 1
        return best

    def _counted(self, body: str, ends: list[int], most: int) -> list[int]:
        """The tokens of the head of each number of lines up to `most`, counted by
        their pieces (`merges.running_counts`), kept for the next cut asked of this
        file."""
        if self.counted is None or len(self.counted) <= most:
            from readmany.merges import running_counts

            self.counted = running_counts(body, ends[: most + 1])
        return self.counted

    def _framed(self, head: str, count: int, total: int, head_tokens: float = -1.0) -> Cut:
        """The block of the first `count` lines, `head`; `head_tokens`, their tokens if
        counted (else the head is weighed)."""
        source = self.source
        rel, path = source.named(self.position)
        note = notices.showing(1, count, total, continue_with(source.root, rel, count + 1))
        index = self.position + 1
        framing = source.framing
        text = framing.block(path, head, index, note=note)
        tokens = 0.0
        if source.tokens:
            tokens = framing.tokens(
                path, head, index, note=note, cut=True, weight_of_body=head_tokens
            )
        return Cut(text, *size_of(text), head, note, count, tokens)


def line_ends(body: str, max_bytes: int) -> tuple[list[int], list[int]]:
    """Where each line ends (after its newline), in characters and in bytes: the lines
    within the first `max_bytes` bytes, and the one after them."""
    ends = [0]
    byte_ends = [0]
    at = body.find("\n")
    ascii_text = body.isascii()
    while at >= 0 and byte_ends[-1] <= max_bytes:
        ends.append(at + 1)
        if ascii_text:
            byte_ends.append(at + 1)
        else:
            byte_ends.append(byte_ends[-1] + utf8_len(body[ends[-2] : at + 1]))
        at = body.find("\n", at + 1)
    return ends, byte_ends
