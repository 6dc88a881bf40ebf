"""`glob`'s sections as they are written: a text file's block (cut to its first lines, it
ends with the command that shows the rest), its size and tokens measured without writing
it, and the section of `--with-diff`."""

from __future__ import annotations

import contextlib
import os

from readmany.frame import notices
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from readmany.frame.formats import GlobFraming
    from readmany.read.outline import Outline
    from readmany.read.text import TextRead


def text_block(
    framing: GlobFraming, root: str, rel: str, path: str, text: TextRead, index: int
) -> str:
    """A text file's block; a text cut to its first lines ends with the command that
    shows the rest."""
    note, truncated = _cut_of(root, rel, text)
    return framing.block(path, text.body, index, truncated=truncated, note=note)


def text_pieces(
    framing: GlobFraming, root: str, rel: str, path: str, text: TextRead, index: int
) -> Iterable[str]:
    """`text_block(...)` as pieces to write one after the other (`Sink.write_all`)."""
    note, truncated = _cut_of(root, rel, text)
    return framing.pieces(path, text.body, index, truncated=truncated, note=note)


def text_block_measure(
    framing: GlobFraming,
    root: str,
    rel: str,
    path: str,
    text: TextRead,
    index: int,
    *,
    lines: bool = True,
    tokens: bool = False,
    weight_of_text: float = -1.0,
) -> tuple[int, int, float]:
    """Bytes, newlines and estimated tokens of `text_block(...)` (newlines 0 without
    `lines`, tokens 0 without `tokens`); `weight_of_text` as `text_block_tokens` has it."""
    note, truncated = _cut_of(root, rel, text)
    return framing.measure(
        path,
        text.body,
        index,
        truncated=truncated,
        note=note,
        lines=lines,
        tokens=tokens,
        weight_of_body=weight_of_text,
    )


def text_block_tokens(
    framing: GlobFraming,
    root: str,
    rel: str,
    path: str,
    text: TextRead,
    index: int,
    weight_of_text: float = -1.0,
) -> float:
    """The estimated tokens of `text_block(...)`; `weight_of_text`, the text's own when
    it was weighed already (as it was read), else negative."""
    measured = text_block_measure(
        framing,
        root,
        rel,
        path,
        text,
        index,
        lines=False,
        tokens=True,
        weight_of_text=weight_of_text,
    )
    return measured[2]


def diff_tokens(framing: GlobFraming, label: str, diff: str, index: int) -> float:
    """The estimated tokens of `diff_block(...)`."""
    return framing.tokens(label, diff, index, line_numbers=False, label=True)


def _cut_of(root: str, rel: str, text: TextRead) -> tuple[str, bool]:
    """The notice a text cut to its first lines ends with (`cut_note`), and whether its
    block warns of a cut instead (the reference's line limits)."""
    note = cut_note(root, rel, text)
    return note, text.truncated and not note


def cut_note(root: str, rel: str, text: TextRead) -> str:
    """The notice a text cut to its first lines ends with: the command for the rest."""
    if not text.total_lines:
        return ""
    shown = text.body.count("\n")
    return notices.showing(1, shown, text.total_lines, continue_with(root, rel, shown + 1))


def diff_label(staged: bool, changed: str | None) -> str:
    """What the section of `--with-diff` is headed with: the command that shows it. The
    diff of `--changed A...` is from the merge base to the work tree, which `git diff A...`
    is not (it stops at the last commit): the label names the merge base."""
    if staged:
        return "git diff --cached"
    rev = changed or ""
    if "..." in rev:
        left, _, right = rev.partition("...")
        left, right = notices.shell_word(left or "HEAD"), notices.shell_word(right or "HEAD")
        return f"git diff $(git merge-base {left} {right})"
    return f"git diff {notices.shell_word(rev)}"


def diff_block(framing: GlobFraming, label: str, diff: str, index: int) -> str:
    """The section of `--with-diff` (headed `label`): the diff itself, never numbered."""
    return framing.block(label, diff, index, line_numbers=False, label=True)


def line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def continue_with(root: str, rel: str, first_line: int) -> str:
    """The command that shows a file from `first_line` on, run where readmany was."""
    path = os.path.join(root, rel)
    with contextlib.suppress(ValueError, OSError):
        path = os.path.relpath(path)
    return notices.many_command([notices.many_spec(path, first_line)])


class OutlineBlock(NamedTuple):
    """A file shown as its outline: the block as planned (`text`, what it costs) and what
    frames it again at its place (`body`, `note`), with the file's kind, size and how the
    outline was made (`method`: tree-sitter or the line rule), for the report."""

    text: str
    bytes: int
    lines: int  # newlines (0 without a budget of lines)
    tokens: float  # estimated (0 without a budget of tokens)
    body: str
    note: str
    kind: str
    size: int
    method: str
    language: str


def outline_block(
    framing: GlobFraming,
    root: str,
    rel: str,
    path: str,
    shown: Outline,
    index: int,
    *,
    file: tuple[str, int],
    lines: bool = True,
    tokens: bool = False,
) -> OutlineBlock:
    """The block of a file shown as its outline `shown` (`read.outline`), the `index`-th;
    `file`: its kind and size in bytes."""
    from readmany.read.outline import render
    from readmany.units import utf8_len

    body = render(shown)
    note = notices.outline_only(shown.lines, read_with(root, rel))
    text = framing.outline_block(path, body, index, note)
    weight = framing.outline_tokens(path, body, index, note) if tokens else 0.0
    newlines = text.count("\n") if lines else 0
    return OutlineBlock(
        text, utf8_len(text), newlines, weight, body, note, *file, shown.method, shown.language
    )


def read_with(root: str, rel: str) -> str:
    """The command that reads a file whole, run where readmany was."""
    path = os.path.join(root, rel)
    with contextlib.suppress(ValueError, OSError):
        path = os.path.relpath(path)
    return notices.many_command([notices.many_spec(path)])
