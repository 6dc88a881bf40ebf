"""The `--- path ---` framing of `readmany glob` (the reference's `read_many_files`).

A section is `--- <path> ---`, a blank line, the truncation warning and a blank line
when the text was cut, the body, and a blank line. After the last section comes the end
marker; when there is no section at all, the text is only the "no files" sentence.

A guarded section (the default face; the reference writes every body raw) cannot be
forged by what its body holds. A body with a line that reads as a header or the end
marker (dashes, a space, anything, a space, dashes) is headed with more dashes than any
such line has, at least four, and is closed by a line of its own with as many:

    ---- notes.txt ----

    a line that says --- fake.txt --- stays in its file:
    --- fake.txt ---

    ---- End of notes.txt ----

So a reader that takes the first line of a section for its header knows where it ends:
a plain section at the blank line before the next line that reads as a header, a guarded
one at its closing line, which no line of its body can equal. A body without such a line
is framed exactly as the reference frames it.

An outline (a file a budget shows as what it defines, not as its text) is a section whose
header ends with `OUTLINE_MARK` after the path: `--- src/big.py (outline) ---`. The
framing that writes outlines quotes a path that itself ends with the mark, so no file's
section reads as an outline, nor an outline as a file's text.
"""

from __future__ import annotations

import re

from readmany.frame.paths import header_path, quoted

TRUNCATION_WARNING = (
    "[WARNING: This file was truncated. To view the full content, "
    "use the 'read_file' tool on this specific file.]"
)
END_OF_CONTENT = "\n--- End of content ---"
NO_FILES = "No files matching the criteria were found or all were skipped."


# A file named like this would give a header equal to the end marker: it is quoted.
END_WORDS = END_OF_CONTENT.strip().removeprefix("--- ").removesuffix(" ---")


OUTLINE_MARK = " (outline)"
"""What follows the path in an outline's header."""


PLAIN_DASHES = 3
"""The dashes of a header: `--- path ---`."""
GUARD_DASHES = 4
"""The fewest dashes of a guarded section's header and closing line."""

# A line a reader could take for a header or the end marker, stripped of blanks.
_HEADER_LIKE = re.compile(r"(-{3,}) (?:.* )?(-{3,})")


# Every line that reads as a header holds this. It is looked for by a regular expression,
# compiled on first use: `in` is about three times slower on source text, whose spaces
# defeat its skips.
HEADER_MARK = "--- "
_text_mark: re.Pattern[str] | None = None
_bytes_mark: re.Pattern[bytes] | None = None


def holds_header_mark(text: str) -> bool:
    """Whether `text` holds `HEADER_MARK`, so that a line of it may read as a header."""
    global _text_mark
    if _text_mark is None:
        _text_mark = re.compile(HEADER_MARK)
    return _text_mark.search(text) is not None


def bytes_hold_header_mark(data: bytes) -> bool:
    """`holds_header_mark` of the text `data` is the UTF-8 of (the mark is ASCII: its
    bytes are in `data` where it is in the text)."""
    global _bytes_mark
    if _bytes_mark is None:
        _bytes_mark = re.compile(HEADER_MARK.encode())
    return _bytes_mark.search(data) is not None


def _shown(path: str, quote: bool) -> str:
    return quoted(path) if quote or path == END_WORDS else header_path(path)


def section_dashes(body: str) -> int:
    """The dashes of the header of a guarded section holding `body`: `PLAIN_DASHES` when
    no line of it reads as a header, else one more than the most any such line has, and
    at least `GUARD_DASHES`. Lines are taken as `\\n` and as `str.splitlines` ends them."""
    most = 0
    # Every line that reads as a header holds the mark: only those are looked at, each
    # `\n` line and the lines `str.splitlines` makes of it (each is within one).
    start = body.find(HEADER_MARK)
    while start >= 0:
        end = body.find("\n", start)
        end = len(body) if end < 0 else end
        line = body[body.rfind("\n", 0, start) + 1 : end]
        for part in (line, *line.splitlines()):
            found = _HEADER_LIKE.fullmatch(part.strip())
            if found is not None:
                most = max(most, len(found.group(1)), len(found.group(2)))
        start = body.find(HEADER_MARK, end)
    return max(GUARD_DASHES, most + 1) if most else PLAIN_DASHES


def section_head(
    path: str,
    truncated: bool = False,
    *,
    quote: bool = False,
    dashes: int = PLAIN_DASHES,
    outline: bool = False,
) -> str:
    """Everything of a section before its body; `quote`: the path as a JSON string
    whatever it holds (a file named as another section is headed); `dashes`: as
    `section_dashes` chose; `outline`: the header of an outline (`OUTLINE_MARK`)."""
    run = "-" * dashes
    mark = OUTLINE_MARK if outline else ""
    head = f"{run} {_shown(path, quote)}{mark} {run}\n\n"
    if truncated:
        head += TRUNCATION_WARNING + "\n\n"
    return head


SECTION_TAIL = "\n\n"


def section_close(
    path: str, *, quote: bool = False, dashes: int = PLAIN_DASHES, outline: bool = False
) -> str:
    """What follows a section's body: a blank line, after a guarded section's closing
    line (`dashes` more than `PLAIN_DASHES`)."""
    if dashes == PLAIN_DASHES:
        return SECTION_TAIL
    run = "-" * dashes
    mark = OUTLINE_MARK if outline else ""
    return f"\n{run} End of {_shown(path, quote)}{mark} {run}{SECTION_TAIL}"


def frame_separator(
    path: str,
    body: str,
    truncated: bool = False,
    notice: str = "",
    *,
    quote: bool = False,
    guard: bool = False,
    outline: bool = False,
) -> str:
    """One file's section; `notice` (one line) follows a body cut at a line's end;
    `guard`: a body that holds a line reading as a header is guarded (module doc);
    `outline`: the section is the file's outline, not its text (`OUTLINE_MARK`)."""
    dashes = section_dashes(body + notice) if guard or outline else PLAIN_DASHES
    return "".join(
        (
            section_head(path, truncated, quote=quote, dashes=dashes, outline=outline),
            body,
            notice,
            section_close(path, quote=quote, dashes=dashes, outline=outline),
        )
    )


def frame_data_url(path: str, mime_type: str, data: str) -> str:
    """An asset in text output: a section whose body is a `data:` URL of the file."""
    return frame_separator(path, f"data:{mime_type};base64,{data}")


def frame_end(any_section: bool) -> str:
    """What follows the sections: the end marker; with no section, the reference's
    "no files" sentence."""
    return END_OF_CONTENT if any_section else NO_FILES
