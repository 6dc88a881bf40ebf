"""The XML framing, in the `<documents>` form Anthropic's prompting guide shows for Claude.

    <documents>
    <document index="1">
    <source>src/app.py</source>
    <document_content><![CDATA[if a < b and c:
        print("<ok>")
    ]]></document_content>
    </document>
    </documents>

The output is well-formed XML 1.0, and what an XML parser reads from each
`document_content` is the file exactly. How a text is written (`encode_text`):

- a run without `<` or `&` stands as it is: most prose needs no escaping at all;
- a run with `<` or `&` is a CDATA section, which keeps code readable (`a < b && c`,
  not `a &lt; b &amp;&amp; c`) and costs two markers per run instead of a few tokens
  per character; a `]]>` inside is split over two sections (`]]]]><![CDATA[>`);
- a carriage return is `&#13;` (a parser would turn a literal one into a line feed,
  in CDATA too);
- a character XML 1.0 cannot hold at all, even as a reference (control characters
  other than tab and newline, lone surrogates, U+FFFE, U+FFFF) is an empty element
  `<char code="1B"/>` with its code point in hex.

So no text can end its element early. The path in `<source>` is written as every
header writes it (`paths.header_path`, here also quoting lone surrogates and the two
non-characters, as JSON escapes) with `&`, `<` and `>` escaped. An optional note (say,
that the file was cut) is a `<note>` before the content; an optional directory tree is
a `<directory_tree>` element before the first document, and an optional closing note (the
files a budget left out) a `<note>` after the last. Documents are numbered from 1. A part
of `glob --parts` has a `<part number="2" of="5">` first, which says what each part holds.

An outline (a file a budget shows as what it defines, not as its text) is a `<document>`
whose `<outline>` element stands where a file's `<document_content>` would, after a
`<note>` that says what it is: no parser of the content takes it for the file's text.
`parse_xml` gives the files' texts only; `parse_xml_outlines` gives the outlines.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from readmany.frame.numbering import NUMBER_GAP, number_lines, strip_line_numbers
from readmany.frame.paths import header_path, quoted
from readmany.record import NamedTuple

OPEN = "<documents>\n"
CLOSE = "</documents>"
CDATA_OPEN = "<![CDATA["
CDATA_CLOSE = "]]>"
CARRIAGE_RETURN = "&#13;"
CHAR_ELEMENT = '<char code="{:X}"/>'

# XML 1.0 `Char` excludes these; `\r` is allowed but a parser normalises it away.
_XML_SPECIAL = "[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]"  # compiled on first use
_NOT_IN_PATH = "[\ud800-\udfff\ufffe\uffff]"


def encode_text(text: str) -> str:
    """`text` as XML character data that an XML parser reads back exactly."""
    import re

    if (
        "<" not in text
        and "&" not in text
        and "]]>" not in text
        and not re.search(_XML_SPECIAL, text)
    ):
        return text  # the common case: nothing to escape
    parts = []
    at = 0
    for special in re.finditer(_XML_SPECIAL, text):
        parts.append(_encode_run(text[at : special.start()]))
        char = special.group()
        parts.append(CARRIAGE_RETURN if char == "\r" else CHAR_ELEMENT.format(ord(char)))
        at = special.end()
    parts.append(_encode_run(text[at:]))
    return "".join(parts)


ESCAPE_PIECE = 1 << 16  # characters of a run encoded at a time by `encoded_pieces`


def encoded_pieces(text: str) -> Iterator[str]:
    """`encode_text(text)` a piece at a time: a long text is never held escaped whole."""
    import re

    if (
        "<" not in text
        and "&" not in text
        and "]]>" not in text
        and not re.search(_XML_SPECIAL, text)
    ):
        yield text  # the common case: nothing to escape, nothing copied
        return
    at = 0
    for special in re.finditer(_XML_SPECIAL, text):
        yield from _run_pieces(text, at, special.start())
        char = special.group()
        yield CARRIAGE_RETURN if char == "\r" else CHAR_ELEMENT.format(ord(char))
        at = special.end()
    yield from _run_pieces(text, at, len(text))


def _run_pieces(text: str, start: int, end: int) -> Iterator[str]:
    """`_encode_run(text[start:end])` in pieces, the run never copied whole."""
    if start >= end:
        return
    find = text.find
    cdata = find("<", start, end) >= 0 or find("&", start, end) >= 0 or find("]]>", start, end) >= 0
    if not cdata:
        for at in range(start, end, ESCAPE_PIECE):
            yield text[at : min(at + ESCAPE_PIECE, end)]
        return
    yield CDATA_OPEN
    at = start
    while at < end:
        stop = min(at + ESCAPE_PIECE, end)
        # Never between the characters of a `]]>`: each piece is split as the whole is.
        for back in (2, 1):
            if stop < end and stop - back >= at and text.startswith("]]>", stop - back, end):
                stop += 3 - back
                break
        yield text[at:stop].replace("]]>", "]]]]><![CDATA[>")
        at = stop
    yield CDATA_CLOSE


def _encode_run(run: str) -> str:
    if "<" not in run and "&" not in run and "]]>" not in run:
        return run
    return CDATA_OPEN + run.replace("]]>", "]]]]><![CDATA[>") + CDATA_CLOSE


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def source_path(path: str, *, quote: bool = False) -> str:
    """The path as `<source>` holds it: quoted like every header, then XML-escaped."""
    import re

    shown = header_path(path)
    if quote and shown == path:
        shown = quoted(path)
    if re.search(_NOT_IN_PATH, shown) is not None:
        import json

        text = json.dumps(path, ensure_ascii=False)
        shown = re.sub(_NOT_IN_PATH, lambda m: f"\\u{ord(m.group()):04x}", text)
    return _escape(shown)


def frame_xml(
    path: str,
    body: str,
    index: int,
    *,
    line_numbers: bool = False,
    note: str = "",
    quote: bool = False,
    outline: bool = False,
) -> str:
    """The `index`-th (1-based) `<document>` element, with a newline after it; `quote`:
    the path in `<source>` as a JSON string whatever it holds; `outline`: `body` is the
    file's outline, in `<outline>`."""
    if line_numbers:
        body = number_lines(body)
    noted = f"<note>{encode_text(note)}</note>\n" if note else ""
    element = "outline" if outline else "document_content"
    return (
        f'<document index="{index}">\n<source>{source_path(path, quote=quote)}</source>\n{noted}'
        f"<{element}>{encode_text(body)}</{element}>\n</document>\n"
    )


def xml_pieces(
    path: str,
    body: str,
    index: int,
    *,
    line_numbers: bool = False,
    note: str = "",
    quote: bool = False,
) -> Iterator[str]:
    """`frame_xml(...)` as pieces to write one after the other: the text escaped a piece
    at a time (numbered, it is held numbered once)."""
    frame = frame_xml(path, "", index, note=note, quote=quote)
    split = frame.index("<document_content>") + len("<document_content>")
    yield frame[:split]
    yield from numbered_encoded_pieces(body) if line_numbers else encoded_pieces(body)
    yield frame[split:]


def numbered_encoded_pieces(text: str) -> Iterator[str]:
    """`encode_text(number_lines(text))` a piece at a time, the numbered text never held
    whole. The numbers add only digits and spaces after a line break, so the numbered
    text's runs (between the characters written as references) are the text's own with
    numbers put in, and a run needs CDATA where the text's run does; a line's number
    goes with the run before a special character that starts the line."""
    import re

    if not text:
        return
    size = len(text)
    lines = text.count("\n") + (not text.endswith("\n"))
    width = len(str(lines))
    number = 1
    start = 0
    # Where each special character is, found as the runs are written (a file with CRLF
    # line ends has one a line), then the end.
    ends = (special.start() for special in re.finditer(_XML_SPECIAL, text))
    find = text.find
    for end in itertools.chain(ends, (size,)):
        cdata = (
            find("<", start, end) >= 0 or find("&", start, end) >= 0 or find("]]>", start, end) >= 0
        )
        # The run's numbered text: its lines, each with its number where one starts.
        pieces = _numbered_run(text, start, end, number, width)
        number += text.count("\n", start, end) + (start == 0)
        if cdata:
            yield CDATA_OPEN
            yield from _cdata_pieces(pieces)
            yield CDATA_CLOSE
        else:
            yield from pieces
        if end < size:
            char = text[end]
            yield CARRIAGE_RETURN if char == "\r" else CHAR_ELEMENT.format(ord(char))
        start = end + 1


def _numbered_run(text: str, start: int, end: int, number: int, width: int) -> Iterator[str]:
    """The numbered text of `text[start:end]`, a piece at a time: a number where a line
    starts in it (at its start only for the text's first), and at its end where a line
    starts there before a special character; `number` is that of the first line in it.
    Short lines are numbered a batch at a time, a long one given in slices."""
    at = start
    if start == 0:
        yield f"{number:>{width}}{NUMBER_GAP}"
        number += 1
    size = len(text)
    while at < end:
        stop = text.find("\n", min(at + ESCAPE_PIECE, end) - 1, end)
        stop = end if stop < 0 else stop + 1
        if stop - at > 2 * ESCAPE_PIECE:  # a long line first: in slices, never copied whole
            newline = text.find("\n", at, end)
            stop = end if newline < 0 else newline + 1
            if stop - at > 2 * ESCAPE_PIECE:
                for part in range(at, stop, ESCAPE_PIECE):
                    yield text[part : min(part + ESCAPE_PIECE, stop)]
                at = stop
                if newline >= 0 and stop < size:
                    yield f"{number:>{width}}{NUMBER_GAP}"
                    number += 1
                continue
            stop = text.rfind("\n", at, at + ESCAPE_PIECE) + 1 or stop
        batch = text[at:stop]
        lines = batch.split("\n")
        closed = batch.endswith("\n")
        if closed:
            lines.pop()
        # Each line after the first begins with its number; the first's came before.
        numbered = "\n".join(
            [
                lines[0],
                *(f"{n:>{width}}{NUMBER_GAP}{line}" for n, line in enumerate(lines[1:], number)),
            ]
        )
        number += len(lines) - 1
        yield numbered
        if closed:
            yield "\n"
            if stop < size:
                yield f"{number:>{width}}{NUMBER_GAP}"
                number += 1
        at = stop


def _cdata_pieces(pieces: Iterator[str]) -> Iterator[str]:
    """The pieces with each `]]>` split over two sections, one that spans pieces too."""
    carry = ""
    for piece in pieces:
        joined = carry + piece
        cut = max(0, len(joined) - 2)
        while cut and (joined.startswith("]]>", cut - 1) or joined.startswith("]]>", cut - 2)):
            cut -= 1
        yield joined[:cut].replace("]]>", "]]]]><![CDATA[>")
        carry = joined[cut:]
    if carry:
        yield carry.replace("]]>", "]]]]><![CDATA[>")


def xml_note(note: str) -> str:
    """A `<note>` element and its newline: the closing note, after the last document."""
    return f"<note>{encode_text(note)}</note>\n"


def xml_open(tree: str | None = None, part: tuple[int, int, str] | None = None) -> str:
    """What comes before the first document: `<documents>`, the head of a part of `glob
    --parts` if given (number, count, the line that says what each part holds) and the
    tree if given."""
    opened = OPEN
    if part is not None:
        number, count, head = part
        opened += f'<part number="{number}" of="{count}">{encode_text(head)}</part>\n'
    if tree is None:
        return opened
    return f"{opened}<directory_tree>{encode_text(tree)}</directory_tree>\n"


def render_xml(
    files: list[tuple[str, str]], *, tree: str | None = None, line_numbers: bool = False
) -> str:
    """A whole XML output (no trailing newline)."""
    documents = (
        frame_xml(path, body, index, line_numbers=line_numbers)
        for index, (path, body) in enumerate(files, 1)
    )
    return xml_open(tree) + "".join(documents) + CLOSE


class _XmlReader:
    """Reads what `render_xml` wrote; ValueError where the text departs from it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def expect(self, literal: str) -> None:
        if not self.text.startswith(literal, self.at):
            found = self.text[self.at : self.at + 40]
            raise ValueError(f"expected {literal!r} at {self.at}, found {found!r}")
        self.at += len(literal)

    def next_is(self, literal: str) -> bool:
        return self.text.startswith(literal, self.at)

    def until(self, literal: str) -> str:
        end = self.text.find(literal, self.at)
        if end < 0:
            raise ValueError(f"{literal!r} missing after {self.at}")
        value = self.text[self.at : end]
        self.at = end
        return value

    def character_data(self, closing: str) -> str:
        """Text up to `closing` (which is consumed), as `encode_text` wrote it."""
        parts = []
        while not self.next_is(closing):
            if self.next_is(CDATA_OPEN):
                self.at += len(CDATA_OPEN)
                parts.append(self.until(CDATA_CLOSE))
                self.at += len(CDATA_CLOSE)
            elif self.next_is(CARRIAGE_RETURN):
                self.at += len(CARRIAGE_RETURN)
                parts.append("\r")
            elif self.next_is('<char code="'):
                self.at += len('<char code="')
                parts.append(chr(int(self.until('"/>'), 16)))
                self.at += len('"/>')
            else:
                run = self._plain_run()
                if not run:
                    found = self.text[self.at : self.at + 40]
                    raise ValueError(f"unexpected markup at {self.at}: {found!r}")
                parts.append(run)
        self.at += len(closing)
        return "".join(parts)

    def _plain_run(self) -> str:
        ends = [i for i in (self.text.find("<", self.at), self.text.find("&", self.at)) if i >= 0]
        end = min(ends) if ends else len(self.text)
        run = self.text[self.at : end]
        self.at = end
        return run


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


class _XmlRead(NamedTuple):
    tree: str | None
    files: list[tuple[str, str]]
    outlines: list[tuple[str, str]]


def _read(text: str) -> _XmlRead:
    reader = _XmlReader(text[:-1] if text.endswith("\n") else text)
    reader.expect(OPEN)
    tree = None
    if reader.next_is("<part "):  # the head of a part of `glob --parts`
        reader.until(">")
        reader.expect(">")
        reader.character_data("</part>")
        reader.expect("\n")
    if reader.next_is("<directory_tree>"):
        reader.expect("<directory_tree>")
        tree = reader.character_data("</directory_tree>")
        reader.expect("\n")
    files: list[tuple[str, str]] = []
    outlines: list[tuple[str, str]] = []
    while not reader.next_is(CLOSE):
        if reader.next_is("<note>"):  # the closing note
            reader.expect("<note>")
            reader.character_data("</note>")
            reader.expect("\n")
            break
        reader.expect(f'<document index="{len(files) + len(outlines) + 1}">\n<source>')
        shown = _unescape(reader.until("</source>"))
        reader.expect("</source>\n")
        if reader.next_is("<note>"):
            reader.expect("<note>")
            reader.character_data("</note>")
            reader.expect("\n")
        if reader.next_is("<outline>"):
            reader.expect("<outline>")
            outlines.append((_unquote(shown), reader.character_data("</outline>")))
            reader.expect("\n</document>\n")
            continue
        reader.expect("<document_content>")
        body = reader.character_data("</document_content>")
        reader.expect("\n</document>\n")
        files.append((_unquote(shown), body))
    reader.expect(CLOSE)
    if reader.at != len(reader.text):
        raise ValueError(f"text after {CLOSE} at {reader.at}")
    return _XmlRead(tree, files, outlines)


def _unquote(shown: str) -> str:
    if not shown.startswith('"'):
        return shown
    import json

    path = json.loads(shown)
    if not isinstance(path, str):
        raise ValueError(f"not a quoted path: {shown!r}")
    return path


def parse_xml(text: str, *, line_numbers: bool = False) -> list[tuple[str, str]]:
    """(path, text) of every document of an XML output, exactly as they were framed.

    With `line_numbers`, the numbers `-n` added are taken off again. A newline after
    `</documents>` (as the output is written) is allowed.
    """
    files = _read(text).files
    if line_numbers:
        return [(path, strip_line_numbers(body)) for path, body in files]
    return files


def parse_xml_tree(text: str) -> str | None:
    """The directory tree of an XML output, if it has one."""
    return _read(text).tree


def parse_xml_outlines(text: str) -> list[tuple[str, str]]:
    """(path, outline) of every outline of an XML output (never numbered by `-n`)."""
    return _read(text).outlines
