"""Line numbers for a file's text (`-n`), the same in every format, and their exact removal.

Each line gets its number right-aligned to the width of the last number, then two spaces
(`  9  x` … ` 10  y`), as files-to-prompt's `-n` writes them. A line is what ends at `\\n`;
a last line without one is numbered too, and stays without one, so the text's final
newline (or its absence) is kept; an empty text has no lines and stays empty. A `\\r`
is part of its line. The width follows from the number of lines, so the numbers can be
taken off again exactly (`strip_line_numbers`).
"""

from __future__ import annotations

from collections.abc import Iterator

NUMBER_GAP = "  "


def _lines(text: str) -> list[str]:
    """The lines of `text`, without their `\\n` (none at all for an empty text)."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def number_lines(text: str, first: int = 1) -> str:
    """`text` with each line prefixed by its number, counting from `first`."""
    lines = _lines(text)
    if not lines:
        return text
    width = len(str(first + len(lines) - 1))
    numbered = "\n".join(
        f"{number:>{width}}{NUMBER_GAP}{line}" for number, line in enumerate(lines, first)
    )
    return numbered + "\n" if text.endswith("\n") else numbered


NUMBER_PIECE = 1 << 16  # characters numbered at a time by `numbered_pieces`


def numbered_pieces(text: str, first: int = 1) -> Iterator[str]:
    """`number_lines(text, first)` a piece at a time, so that a long text is never held
    numbered whole (nor split into a list of its lines); a long line is given in slices."""
    if not text:
        return
    count = text.count("\n") + (not text.endswith("\n"))
    width = len(str(first + count - 1))
    size = len(text)
    number = first
    at = 0
    while at < size:
        end = text.find("\n", min(at + NUMBER_PIECE, size) - 1)
        end = size if end < 0 else end + 1
        if end - at > 2 * NUMBER_PIECE and text.find("\n", at, at + NUMBER_PIECE) < 0:
            # One long line: its number, then the line in slices, never copied whole.
            end = text.find("\n", at)
            end = size if end < 0 else end + 1
            yield f"{number:>{width}}{NUMBER_GAP}"
            for start in range(at, end, NUMBER_PIECE):
                yield text[start : min(start + NUMBER_PIECE, end)]
            number += 1
            at = end
            continue
        if end - at > 2 * NUMBER_PIECE:  # short lines, then a long one: up to the long one
            end = text.rfind("\n", at, at + NUMBER_PIECE) + 1
        piece = text[at:end]
        lines = piece.split("\n")
        closed = piece.endswith("\n")
        if closed:
            lines.pop()
        numbered = "\n".join(
            f"{n:>{width}}{NUMBER_GAP}{line}" for n, line in enumerate(lines, number)
        )
        yield numbered + "\n" if closed else numbered
        number += len(lines)
        at = end


def strip_line_numbers(text: str, first: int = 1) -> str:
    """The text `number_lines(text, first)` was made from; ValueError if it was not."""
    lines = _lines(text)
    if not lines:
        return text
    width = len(str(first + len(lines) - 1))
    stripped = []
    for number, line in enumerate(lines, first):
        prefix = f"{number:>{width}}{NUMBER_GAP}"
        if not line.startswith(prefix):
            raise ValueError(f"line {number} does not start with its number: {line[:40]!r}")
        stripped.append(line[len(prefix) :])
    joined = "\n".join(stripped)
    return joined + "\n" if text.endswith("\n") else joined
