"""Line numbers for a file's text (`-n`), the same in every format, and their exact removal.

Each line gets its number right-aligned to the width of the last number, then two spaces
(`  9  x` … ` 10  y`), as files-to-prompt's `-n` writes them. A line is what ends at `\\n`;
a last line without one is numbered too, and stays without one, so the text's final
newline (or its absence) is kept; an empty text has no lines and stays empty. A `\\r`
is part of its line. The width follows from the number of lines, so the numbers can be
taken off again exactly (`strip_line_numbers`).
"""

from __future__ import annotations

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
