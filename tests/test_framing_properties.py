"""Framing cannot be broken: parsers here recover exactly what each block shows."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

import pytest
from helpers import scaled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readmany.commands.many import run_many
from readmany.emit.sink import Sink
from readmany.frame.hashline import frame_hashline
from readmany.frame.heredoc import base_delimiter, frame_heredoc
from readmany.pack import Budget
from readmany.read.hashline import decode_lines, file_tag, line_anchor
from readmany.request.many import FileRequest, ManyRequest


def parse_heredoc(text: str) -> list[tuple[str, str]]:
    """(path, body) of every block of `readmany many` output."""
    blocks = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        header = lines[index]
        assert header.startswith("@"), header
        path = header[1:]
        if path.startswith('"'):
            path = json.loads(path)
        opener = lines[index + 1]
        assert opener.startswith("<<'") and opener.endswith("'")
        delimiter = opener[3:-1]
        end = lines.index(delimiter, index + 2)
        blocks.append((path, "\n".join(lines[index + 2 : end])))
        index = end + 1
        if index < len(lines):
            assert lines[index] == ""  # the blank line between blocks
            index += 1
    return blocks


def tricky_lines(path: str, index: int) -> st.SearchStrategy[str]:
    base = base_delimiter(path, index)
    return st.one_of(
        st.text(max_size=12),
        st.sampled_from(
            [base, base + "\r", f"{base}_1", f"{base}_2", f"<<'{base}'", f"@{path}", "", " "]
        ),
    )


paths = st.one_of(
    st.text(min_size=1, max_size=20),
    st.sampled_from(["a.txt", "dir/b c.py", "x\n@forged", '"quoted', "tab\there", "😀.md"]),
)


@pytest.mark.slow
@settings(max_examples=scaled(400), deadline=None)
@given(data=st.data(), path=paths, index=st.integers(1, 26))
def test_heredoc_block_parses_back_exactly(data: st.DataObject, path: str, index: int) -> None:
    body = "\n".join(data.draw(st.lists(tricky_lines(path, index), max_size=8)))
    block = frame_heredoc(path, body, index)
    body_lines = {line.removesuffix("\r") for line in body.split("\n")}
    assert block.delimiter not in body_lines
    assert parse_heredoc(block.text) == [(path, body)]
    assert block.lines == block.text.count("\n") + 1


file_texts = st.lists(
    st.one_of(
        st.text(max_size=30),
        st.sampled_from(["PINE_1_49A636", "MANGO_2_49B84E", "@small/b.txt", "<<'X'", "\r\n"]),
    ),
    max_size=6,
).map("\n".join)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(contents=st.lists(file_texts, min_size=1, max_size=5))
def test_many_output_parses_back_to_each_file(tmp_path: Path, contents: list[str]) -> None:
    names = []
    for number, text in enumerate(contents):
        name = f"f{number}.txt"
        (tmp_path / name).write_text(text, encoding="utf-8", newline="")
        names.append(name)
    sink_stream = io.BytesIO()
    request = ManyRequest(
        tuple(FileRequest(n) for n in names),
        budget=Budget(max_bytes=10**9, max_lines=10**9),
        cwd=str(tmp_path),
    )
    run_many(request, Sink(sink_stream, json_mode=False))
    shown = parse_heredoc(sink_stream.getvalue().decode("utf-8"))
    expected = [
        (n, t if t else "[No text content returned]") for n, t in zip(names, contents, strict=True)
    ]
    assert shown == expected


def parse_hashline(text: str) -> tuple[str, str, list[tuple[int, str, str]], str | None]:
    """(path, tag, [(number, anchor, text)], notice) of hashline output."""
    body, notice = text, None
    if text.endswith("]") and "\n\n[" in text:
        body, _, rest = text.rpartition("\n\n[")
        notice = "[" + rest
    header, *rows = body.split("\n")
    assert header.startswith("@file ")
    path, _, tag = header[len("@file ") :].rpartition("#")
    parsed = []
    for row in rows:
        number, _, rest = row.partition("#")
        anchor, bar, line = rest[:3], rest[3:4], rest[4:]
        assert bar == "|"
        parsed.append((int(number), anchor, line))
    return path, tag, parsed, notice


@pytest.mark.slow
@settings(max_examples=scaled(300), deadline=None)
@given(
    data=st.binary(max_size=200).map(lambda b: b.decode("utf-8", "ignore").encode("utf-8")),
    path=st.sampled_from(["a.txt", "src/a#b.ts", "sp ace.py"]),
    offset=st.one_of(st.none(), st.integers(1, 4)),
    limit=st.one_of(st.none(), st.integers(1, 4)),
)
def test_hashline_output_parses_back_exactly(
    data: bytes, path: str, offset: int | None, limit: int | None
) -> None:
    lines = decode_lines(data)
    if (offset or 1) > len(lines):
        return
    frame = frame_hashline(path, file_tag(data), lines, offset, limit)
    shown_path, tag, rows, _notice = parse_hashline(frame.text)
    assert (shown_path, tag) == (path, file_tag(data))
    first = (offset or 1) - 1
    assert [r[0] for r in rows] == list(range(first + 1, first + 1 + len(rows)))
    for number, anchor, text in rows:
        assert text == lines[number - 1]
        assert anchor == line_anchor(text)


def parse_separated(content: str, read: list[dict[str, object]]) -> list[tuple[str, str]]:
    """(path, body) of every `--- path ---` section, cut by the sizes `--json` reports.

    Cutting by size is what makes this exact: a body may hold lines that look like
    separators, so the text alone cannot always be split.
    """
    data = content.encode("utf-8")
    sections = []
    position = 0
    for entry in read:
        size = entry["outputBytes"]
        assert isinstance(size, int)
        section = data[position : position + size].decode("utf-8")
        position += size
        header, rest = section.split("\n\n", 1)
        assert header.startswith("--- ") and header.endswith(" ---") and "\n" not in header
        shown = header[4:-4]
        path = json.loads(shown) if shown.startswith('"') else shown
        assert rest.endswith("\n\n")
        sections.append((path, rest[:-2]))
    assert data[position:] == b"\n--- End of content ---"
    return sections


glob_names = st.sampled_from(
    ["a.txt", "b c.md", "new\nline.txt", '"quoted.txt', "--- x ---", "é.txt", "tab\tname"]
)
glob_bodies = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=20),
        st.sampled_from(["--- a.txt ---", "--- End of content ---", "", "\r"]),
    ),
    max_size=6,
).map("\n".join)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(files=st.dictionaries(glob_names, glob_bodies, min_size=1, max_size=5))
def test_glob_output_parses_back_to_each_file(tmp_path: Path, files: dict[str, str]) -> None:
    from readmany.commands.glob import GlobRequest, run_glob

    root = Path(tempfile.mkdtemp(dir=tmp_path))
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8", newline="")
    stream = io.BytesIO()
    sink = Sink(stream, json_mode=True)
    outcome = run_glob(GlobRequest(patterns=("*",), root=str(root)), sink)
    sink.finish(outcome.details)
    report = json.loads(stream.getvalue())
    shown = parse_separated(report["content"], report["details"]["read"])
    expected = {name: text.replace("\r\n", "\n") for name, text in files.items()}
    assert dict(shown) == expected
    assert [path for path, _ in shown] == report["details"]["files"]
