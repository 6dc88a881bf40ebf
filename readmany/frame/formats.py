"""The three framings of `readmany glob` (`--format text|markdown|xml`), behind one face.

An output is `start(tree)`, then each file's `block`, with `joint` between two blocks,
then `end(note)`. The start is written before the first block (nothing is written for a
run that shows nothing); the note is the closing notice (the files a budget left out).

- text: today's `--- path ---` sections (`frame.separator`), ended by the end marker;
  the tree, when asked for, stands before the first section, a blank line after it; the
  note is a line of its own before the end marker.
- markdown: `frame.markdown`'s heading and fenced block a file, joined by blank lines.
- xml: `frame.xml`'s `<documents>`, one `<document index="N">` a file.

`reserved` is the label of a section that is no file (the diff of `--with-diff`, headed
with the command that shows it): a file whose path equals it is headed with the path as a
JSON string, so no file's block can take that section's header, in any format. The
section itself is a `block(..., label=True)`.

With `line_numbers` (`-n`) every file's text is numbered (`frame.numbering`) in every
format; a data: URL is not. `note` on a block is one line: what was cut and how to see the
rest; text puts it after the body, markdown between heading and fence, xml in `<note>`.

`outline_block` is a file a budget shows as its outline (what it defines, by line
number), marked as one in each format: text heads it `--- path (outline) ---`, markdown
`## path (outline)`, xml holds it in `<outline>` where a file's text is in
`<document_content>`. It is never numbered by `-n` (its entries carry the file's line
numbers), and a file whose own path ends with the mark is written quoted, so that the
framing parsed back never takes an outline for a file's text, nor a file for an outline.
"""

from __future__ import annotations

from collections.abc import Iterable

from readmany.frame import weigh
from readmany.frame.numbering import number_lines, numbered_pieces
from readmany.frame.separator import (
    END_OF_CONTENT,
    OUTLINE_MARK,
    PLAIN_DASHES,
    SECTION_TAIL,
    TRUNCATION_WARNING,
    bytes_hold_header_mark,
    frame_separator,
    holds_header_mark,
    section_close,
    section_dashes,
    section_head,
)
from readmany.units import utf8_len


class GlobFraming:
    """How one run frames its files; `text` unless a subclass says otherwise."""

    name = "text"
    joint = ""  # between two blocks
    measured_built = False  # whether `measure` builds the block (else it adds up its parts)

    def __init__(
        self, *, line_numbers: bool = False, reserved: str | None = None, guard: bool = False
    ) -> None:
        self.line_numbers = line_numbers
        self.reserved = reserved
        self.guard = guard  # text: a body that reads as holding a header is guarded
        # A path that ends as an outline's header does is quoted (text: in the default
        # face, the one that writes outlines).
        self.marks_outlines = guard

    def quotes(self, path: str, label: bool = False) -> bool:
        """Whether a file's `path` is written quoted: it is the reserved label, or (where
        outlines may be written: the default face) it ends as an outline's header does."""
        if label:
            return False
        return path == self.reserved or (self.marks_outlines and path.endswith(OUTLINE_MARK))

    def outline_block(self, path: str, body: str, index: int, note: str) -> str:
        """The `index`-th block, a file's outline `body` (`read.outline.render`), with its
        `note` (what it is, and the command that reads the file)."""
        return frame_separator(path, body, False, note, quote=self.quotes(path), outline=True)

    def outline_tokens(self, path: str, body: str, index: int, note: str) -> float:
        """Estimated tokens of `outline_block(...)`: its frame's and its body's."""
        frame = self.outline_block(path, "", index, note)
        return weigh(frame) + weigh(body)

    def start(self, tree: str | None) -> str:
        """What comes before the first block: the tree, if there is one."""
        return tree + "\n" if tree is not None else ""

    def part_start(self, number: int, count: int, head: str) -> str:
        """What comes before the first block of part `number` of `count` (`--parts`):
        `head`, the line that says what each part holds (`notices.part_head`)."""
        return head + "\n\n"

    def block(
        self,
        path: str,
        body: str,
        index: int,
        *,
        truncated: bool = False,
        note: str = "",
        line_numbers: bool | None = None,
        label: bool = False,
    ) -> str:
        """The `index`-th (1-based) file's block; `line_numbers` None: as the run says;
        `label`: `path` is a section's label, not a file's (`reserved`)."""
        if self.line_numbers if line_numbers is None else line_numbers:
            body = number_lines(body)
        quote = self.quotes(path, label)
        return frame_separator(path, body, truncated, note, quote=quote, guard=self.guard)

    def pieces(
        self, path: str, body: str, index: int, *, truncated: bool = False, note: str = ""
    ) -> Iterable[str]:
        """`block(...)` as pieces to write one after the other (`Sink.write_all`): the
        text is never copied into its block, nor numbered whole (`-n`). (Numbers go after
        a line break: the numbered text holds `--- ` where the text does; only then is
        the text that a guard judges put together, as `block` does.)"""
        quote = self.quotes(path)
        dashes = PLAIN_DASHES
        if self.guard and (
            holds_header_mark(body) or "--- " in note or (note and body.endswith("-"))
        ):
            shown = number_lines(body) if self.line_numbers else body
            dashes = section_dashes(shown + note)
        yield section_head(path, truncated, quote=quote, dashes=dashes)
        if self.line_numbers:
            yield from numbered_pieces(body)
        else:
            yield body
        yield note
        yield section_close(path, quote=quote, dashes=dashes)

    def frame_as_read(self, path: str, data: bytes) -> tuple[str, str] | None:
        """What goes before and after the body of a whole text kept as its bytes (`data`,
        its exact UTF-8; not cut, no note), so that the bytes are written as they are;
        None where the block is more than the text in a frame (numbered lines, markdown,
        xml) or its lines must be looked at (a guard, where a line may read as a
        header: every such line holds `--- `, the same bytes in UTF-8)."""
        if self.line_numbers or (self.guard and bytes_hold_header_mark(data)):
            return None
        quote = self.quotes(path)
        return section_head(path, quote=quote), section_close(path, quote=quote)

    def measure(
        self,
        path: str,
        body: str,
        index: int,
        *,
        truncated: bool = False,
        note: str = "",
        lines: bool = True,
        tokens: bool = False,
        weight_of_body: float = -1.0,
    ) -> tuple[int, int, float]:
        """Bytes (UTF-8), newlines and estimated tokens of `block(...)`; here without
        building it, its frame built once for both. Without `lines`, the newlines are not
        counted (0): no budget of lines needs them; without `tokens`, tokens are 0 (else
        `tokens(...)`, `weight_of_body` as there)."""
        if self.line_numbers or self.measured_built or self._dashes(body, note) != PLAIN_DASHES:
            block = self.block(path, body, index, truncated=truncated, note=note)
            weight = 0.0
            if tokens:
                weight = self.tokens(
                    path, body, index, truncated=truncated, note=note, weight_of_body=weight_of_body
                )
            return *measured(block, lines=lines), weight
        head = section_head(path, truncated, quote=self.quotes(path))
        size = utf8_len(head) + utf8_len(body) + utf8_len(note) + len(SECTION_TAIL)
        newlines = 0
        if lines:
            newlines = (
                head.count("\n") + body.count("\n") + note.count("\n") + SECTION_TAIL.count("\n")
            )
        weight = 0.0
        if tokens:  # the frame, `block(path, "", ...)`, and the text weighed apart
            body_weight = weight_of_body if weight_of_body >= 0 else weigh(body)
            weight = weigh(head + note + SECTION_TAIL) + body_weight
        return size, newlines, weight

    def tokens(
        self,
        path: str,
        body: str,
        index: int,
        *,
        truncated: bool = False,
        note: str = "",
        line_numbers: bool | None = None,
        weight_of_body: float = -1.0,
        cut: bool = False,
        label: bool = False,
    ) -> float:
        """Estimated tokens of `block(...)`: its frame's and its text's (numbered with `-n`),
        each weighed apart (`weigh`): weighed with a long text, a frame would count as often
        as the text's sample is scaled. `weight_of_body`: the text's own (not numbered) if
        it was weighed already. `cut`: the head of a file cut to fill a budget, which fills
        what is left of it, weighed on up to `tokens.SAMPLE_BYTES` of it (a file's estimate
        from 512 bytes is off by 8% on average, as much as it takes of the budget)."""
        numbered = self.line_numbers if line_numbers is None else line_numbers
        if numbered:
            body = number_lines(body)
        dashes = self._dashes(body, note)
        if dashes == PLAIN_DASHES:
            frame = self.block(
                path, "", index, truncated=truncated, note=note, line_numbers=numbered, label=label
            )
        else:  # a guarded section's frame: its dashes and its closing line
            quote = self.quotes(path, label)
            frame = section_head(path, truncated, quote=quote, dashes=dashes)
            frame += note + section_close(path, quote=quote, dashes=dashes)
        if weight_of_body >= 0 and not numbered:
            return weigh(frame) + weight_of_body
        return weigh(frame) + weigh(body, whole=cut)

    def _dashes(self, body: str, note: str) -> int:
        """The dashes of a text section holding `body` and `note` (`section_dashes`)."""
        return section_dashes(body + note) if self.guard else PLAIN_DASHES

    def data_url(self, path: str, mime_type: str, data: str, index: int) -> str:
        """An asset's block: its bytes as a `data:` URL."""
        return frame_separator(path, f"data:{mime_type};base64,{data}", quote=self.quotes(path))

    def data_url_tokens(self, path: str, mime_type: str, data: str, index: int) -> float:
        """Estimated tokens of `data_url(...)`: its frame's and its data's."""
        return weigh(self.data_url(path, mime_type, "", index)) + weigh(data)

    def end(self, started: bool, note: str = "") -> str:
        """What ends the output; `started`: blocks were written (the start with the first)."""
        if not started:
            return note
        return f"{note}\n{END_OF_CONTENT}" if note else END_OF_CONTENT


class _NotedFraming(GlobFraming):
    """A framing whose block carries the truncation warning as its note, and numbers the
    lines itself; sized by building the block."""

    measured_built = True

    def block(
        self,
        path: str,
        body: str,
        index: int,
        *,
        truncated: bool = False,
        note: str = "",
        line_numbers: bool | None = None,
        label: bool = False,
    ) -> str:
        if truncated and not note:
            note = TRUNCATION_WARNING
        numbered = self.line_numbers if line_numbers is None else line_numbers
        return self._frame(path, body, index, numbered, note, self.quotes(path, label))

    def _frame(
        self, path: str, body: str, index: int, numbered: bool, note: str, quote: bool
    ) -> str:
        raise NotImplementedError

    def pieces(
        self, path: str, body: str, index: int, *, truncated: bool = False, note: str = ""
    ) -> Iterable[str]:
        if truncated and not note:
            note = TRUNCATION_WARNING
        return self._pieces(path, body, index, self.line_numbers, note, self.quotes(path))

    def _pieces(
        self, path: str, body: str, index: int, numbered: bool, note: str, quote: bool
    ) -> Iterable[str]:
        return (self._frame(path, body, index, numbered, note, quote),)

    def frame_as_read(self, path: str, data: bytes) -> tuple[str, str] | None:
        return None  # the text is escaped or fenced: decoded


# The markdown and xml framers are imported by the runs that use them: most use text.


class MarkdownFraming(_NotedFraming):
    name = "markdown"

    def __init__(self, *, line_numbers: bool = False, reserved: str | None = None) -> None:
        from readmany.frame import markdown

        super().__init__(line_numbers=line_numbers, reserved=reserved)
        self._markdown = markdown
        self.marks_outlines = True
        self.joint = markdown.BLOCK_SEPARATOR

    def start(self, tree: str | None) -> str:
        return self._markdown.markdown_tree(tree) + self.joint if tree is not None else ""

    def part_start(self, number: int, count: int, head: str) -> str:
        return self._markdown.markdown_part(number, count, head) + self.joint

    def _frame(
        self, path: str, body: str, index: int, numbered: bool, note: str, quote: bool
    ) -> str:
        return self._markdown.frame_markdown(
            path, body, line_numbers=numbered, note=note, quote=quote
        )

    def _pieces(
        self, path: str, body: str, index: int, numbered: bool, note: str, quote: bool
    ) -> Iterable[str]:
        return self._markdown.markdown_pieces(
            path, body, line_numbers=numbered, note=note, quote=quote
        )

    def outline_block(self, path: str, body: str, index: int, note: str) -> str:
        return self._markdown.frame_markdown(
            path, body, note=note, quote=self.quotes(path), outline=True
        )

    def data_url(self, path: str, mime_type: str, data: str, index: int) -> str:
        data_url = f"data:{mime_type};base64,{data}"
        return self._markdown.frame_markdown(path, data_url, quote=self.quotes(path))

    def end(self, started: bool, note: str = "") -> str:
        return self.joint + note if note and started else note  # a note is a block too


class XmlFraming(_NotedFraming):
    name = "xml"

    def __init__(self, *, line_numbers: bool = False, reserved: str | None = None) -> None:
        from readmany.frame import xml

        super().__init__(line_numbers=line_numbers, reserved=reserved)
        self._xml = xml

    def start(self, tree: str | None) -> str:
        return self._xml.xml_open(tree)

    def part_start(self, number: int, count: int, head: str) -> str:
        return self._xml.xml_open(part=(number, count, head))

    def _frame(
        self, path: str, body: str, index: int, numbered: bool, note: str, quote: bool
    ) -> str:
        return self._xml.frame_xml(path, body, index, line_numbers=numbered, note=note, quote=quote)

    def _pieces(
        self, path: str, body: str, index: int, numbered: bool, note: str, quote: bool
    ) -> Iterable[str]:
        return self._xml.xml_pieces(
            path, body, index, line_numbers=numbered, note=note, quote=quote
        )

    def outline_block(self, path: str, body: str, index: int, note: str) -> str:
        return self._xml.frame_xml(
            path, body, index, note=note, quote=self.quotes(path), outline=True
        )

    def data_url(self, path: str, mime_type: str, data: str, index: int) -> str:
        data_url = f"data:{mime_type};base64,{data}"
        return self._xml.frame_xml(path, data_url, index, quote=self.quotes(path))

    def end(self, started: bool, note: str = "") -> str:
        from readmany.frame.xml import CLOSE, xml_note, xml_open

        if not started:
            return xml_open() + xml_note(note) + CLOSE if note else ""
        return (xml_note(note) if note else "") + CLOSE


def measured(text: str, *, lines: bool = True) -> tuple[int, int]:
    """Bytes (UTF-8, as written) and newlines of `text` (0 without `lines`)."""
    return utf8_len(text), text.count("\n") if lines else 0


def framing_for(
    name: str, *, line_numbers: bool = False, reserved: str | None = None, guard: bool = False
) -> GlobFraming:
    """The framing called `name` (a `choices.Format`); `reserved`: as the class says;
    `guard`: text sections are guarded (`frame.separator`; markdown and xml always are)."""
    if name == "text":
        return GlobFraming(line_numbers=line_numbers, reserved=reserved, guard=guard)
    kinds = {"markdown": MarkdownFraming, "xml": XmlFraming}
    return kinds[name](line_numbers=line_numbers, reserved=reserved)
