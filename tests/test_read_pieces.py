"""The piecewise forms are the whole forms, exactly: a text decoded a chunk at a time
(`read_exact`) is `exact_text`; numbered (`numbered_pieces`), escaped (`encoded_pieces`)
and framed (`GlobFraming.pieces`) a piece at a time it is the block; `many`'s read of a
long file, its head grown as its lines come, is the read of the same bytes held whole.
Random texts over the characters each form treats specially, cut into tiny pieces."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

import readmany.frame.numbering as numbering
import readmany.frame.xml as xml
import readmany.read.line_range as tool
import readmany.read.text as text
from readmany.frame.formats import framing_for

TRIES = 400
_BYTES = [b"a", b"\n", b"\r\n", b"\xc3\xa9", b"\xff", b"\xe2\x82", b"\xf0\x9f\x98\x80", b"\x00"]
_BOMS = [b"", b"", b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00"]


def _data(rng: random.Random) -> bytes:
    return rng.choice(_BOMS) + b"".join(rng.choice(_BYTES) for _ in range(rng.randint(0, 50)))


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 64])
def test_read_exact_is_exact_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(text, "EXACT_CHUNK", chunk)
    rng = random.Random(chunk)
    path = tmp_path / "f"
    for _ in range(TRIES):
        data = _data(rng)
        path.write_bytes(data)
        max_lines = rng.choice([None, 1, 2, 3, 10])
        keep = rng.randint(0, 30)
        fd = os.open(path, os.O_RDONLY)
        try:
            whole, none = text.read_exact(fd, len(data), max_lines)
            held, start = text.read_exact(fd, len(data), max_lines, keep)
        finally:
            os.close(fd)
        want = text.exact_text(data, max_lines)
        assert (whole, none) == (want, None), data
        assert held.body == want.body[:keep], data
        if len(want.body) <= keep:
            assert start is None
        else:
            assert start is not None
            assert start.bytes == len(want.body.encode("utf-8", "surrogatepass"))
            assert start.newlines == want.body.count("\n")
            body = want.body
            assert start.lines == body.count("\n") + (not body.endswith("\n"))


@pytest.mark.parametrize("piece", [1, 2, 3, 8, 64])
def test_numbered_pieces_are_the_numbered_text(monkeypatch: pytest.MonkeyPatch, piece: int) -> None:
    monkeypatch.setattr(numbering, "NUMBER_PIECE", piece)
    rng = random.Random(piece)
    for _ in range(TRIES):
        body = "".join(rng.choice(["a", "\n", "bb", "\r", "c" * 19, "\n\n"]) for _ in range(30))
        body = body[: rng.randint(0, len(body))]
        first = rng.choice([1, 9, 99])
        want = numbering.number_lines(body, first)
        assert "".join(numbering.numbered_pieces(body, first)) == want


@pytest.mark.parametrize("piece", [1, 2, 3, 4, 64])
def test_encoded_pieces_are_the_encoded_text(monkeypatch: pytest.MonkeyPatch, piece: int) -> None:
    monkeypatch.setattr(xml, "ESCAPE_PIECE", piece)
    rng = random.Random(piece)
    for _ in range(TRIES):
        body = "".join(
            rng.choice(["a", "\n", "]", ">", "]]>", "<", "&", "\r", "\x01", "\ud800"])
            for _ in range(rng.randint(0, 30))
        )
        assert "".join(xml.encoded_pieces(body)) == xml.encode_text(body)
        numbered = numbering.number_lines(body)
        assert "".join(xml.numbered_encoded_pieces(body)) == xml.encode_text(numbered)


@pytest.mark.parametrize("name", ["text", "guarded", "markdown", "xml"])
@pytest.mark.parametrize("numbered", [False, True], ids=["plain", "numbered"])
def test_a_framing_s_pieces_are_its_block(name: str, numbered: bool) -> None:
    guard = name == "guarded"
    framing = framing_for("text" if guard else name, line_numbers=numbered, guard=guard)
    rng = random.Random(name)
    words = ["a", "\n", "`", "```", "<", "&", "]]>", "\r", "\x02", "--- x ---", "-", "\u2028"]
    for _ in range(TRIES):
        body = "".join(rng.choice(words) for _ in range(20))
        truncated = rng.random() < 0.3
        note = rng.choice(["", "lines 1-2 of 9 shown"])
        pieces = framing.pieces("p.py", body, 3, truncated=truncated, note=note)
        assert "".join(pieces) == framing.block("p.py", body, 3, truncated=truncated, note=note)


def test_many_s_streamed_read_is_its_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(7)
    path = tmp_path / "f.txt"
    parts = [b"a", b"\n", b"bbbbbbbb", b"\xc3\xa9", b"\xff", b"\n\n"]
    for _ in range(TRIES):
        data = b"".join(rng.choice(parts) for _ in range(rng.randint(0, 40)))
        path.write_bytes(data)
        style = tool.REFERENCE._replace(
            max_lines=rng.choice([1, 2, 3, 5, 100]), max_bytes=rng.choice([0, 1, 3, 8, 20, 1000])
        )
        offset = rng.choice([None, 1, 2, 3])
        limit = rng.choice([None, 1, 2, 5])
        trailing = rng.choice([True, False])
        args = (str(path), offset, limit, str(tmp_path))
        whole = tool.read_tool(*args, count_trailing_empty=trailing, data=data, style=style)
        monkeypatch.setattr(tool, "WHOLE_FILE_LIMIT", -1)  # every file streamed
        streamed = tool.read_tool(*args, count_trailing_empty=trailing, style=style)
        monkeypatch.undo()
        assert streamed == whole, (data, style, offset, limit, trailing)
