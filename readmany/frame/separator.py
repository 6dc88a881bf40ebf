"""The `--- path ---` framing of `readmany glob` (the reference's `read_many_files`).

A section is `--- <path> ---`, a blank line, the truncation warning and a blank line
when the text was cut, the body, and a blank line. After the last section comes the end
marker; when there is no section at all, the text is only the "no files" sentence.
"""

from __future__ import annotations

from readmany.frame.paths import header_path, quoted

TRUNCATION_WARNING = (
    "[WARNING: This file was truncated. To view the full content, "
    "use the 'read_file' tool on this specific file.]"
)
END_OF_CONTENT = "\n--- End of content ---"
NO_FILES = "No files matching the criteria were found or all were skipped."


# A file named like this would give a header equal to the end marker: it is quoted.
END_WORDS = END_OF_CONTENT.strip().removeprefix("--- ").removesuffix(" ---")


def section_head(path: str, truncated: bool = False, *, quote: bool = False) -> str:
    """Everything of a section before its body; `quote`: the path as a JSON string
    whatever it holds (a file named as another section is headed)."""
    shown = quoted(path) if quote or path == END_WORDS else header_path(path)
    head = f"--- {shown} ---\n\n"
    if truncated:
        head += TRUNCATION_WARNING + "\n\n"
    return head


SECTION_TAIL = "\n\n"


def frame_separator(
    path: str, body: str, truncated: bool = False, notice: str = "", *, quote: bool = False
) -> str:
    """One file's section; `notice` (one line) follows a body cut at a line's end."""
    return "".join((section_head(path, truncated, quote=quote), body, notice, SECTION_TAIL))


def frame_data_url(path: str, mime_type: str, data: str) -> str:
    """An asset in text output: a section whose body is a `data:` URL of the file."""
    return frame_separator(path, f"data:{mime_type};base64,{data}")


def frame_end(any_section: bool) -> str:
    """What follows the sections: the end marker; with no section, the reference's
    "no files" sentence."""
    return END_OF_CONTENT if any_section else NO_FILES
