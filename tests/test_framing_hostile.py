"""Hostile names and contents cannot forge a header, an end marker or a block's end,
whatever line-break convention the reader splits by."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_readmany, scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from readmany.frame.heredoc import base_delimiter, choose_delimiter, frame_heredoc
from readmany.frame.separator import END_OF_CONTENT, frame_separator, section_head

# Every character `str.splitlines` ends a line at, lone `\r` included.
BREAKS = ["\n", "\r\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def test_a_file_named_like_the_end_marker_is_quoted() -> None:
    assert section_head("End of content") == '--- "End of content" ---\n\n'
    assert section_head("End of content ") == "--- End of content  ---\n\n"
    assert section_head("dir/End of content") == "--- dir/End of content ---\n\n"
    text = frame_separator("End of content", "body") + END_OF_CONTENT
    assert text.splitlines().count("--- End of content ---") == 1


@pytest.mark.parametrize("brk", BREAKS)
def test_a_name_with_any_line_break_stays_one_header_line(brk: str) -> None:
    head = section_head(f"a{brk}--- End of content ---")
    assert head.startswith('--- "a\\')
    assert len(head.splitlines()) == 2  # the header and the blank line, nothing forged
    block = frame_heredoc(f"x{brk}@forged", "body", 1)
    assert block.text.splitlines()[0].startswith('@"x\\')


@pytest.mark.parametrize("brk", BREAKS)
def test_a_body_line_ending_in_any_break_cannot_end_a_block(brk: str) -> None:
    base = base_delimiter("a.txt", 1)
    for body in (f"x{brk}{base}", f"{base}{brk}x", f"x{brk}{base}{brk}y"):
        delimiter = choose_delimiter("a.txt", 1, body)
        assert delimiter != base
        lines = frame_heredoc("a.txt", body, 1).text.splitlines()
        assert lines.index(delimiter) == len(lines) - 1


def test_the_delimiter_is_unchanged_where_no_line_collides() -> None:
    base = base_delimiter("a.txt", 1)
    assert choose_delimiter("a.txt", 1, f"say {base} in a line") == base
    assert choose_delimiter("a.txt", 1, f"{base}\r\n") == f"{base}_1"  # as before
    assert choose_delimiter("a.txt", 1, "no collision\r\nat all") == base


@pytest.mark.slow
@settings(max_examples=scaled(300), deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(BREAKS),
            st.sampled_from([base_delimiter("f.md", 3), f"{base_delimiter('f.md', 3)}_1", "x"]),
            st.text(max_size=5),
        ),
        max_size=12,
    )
)
def test_no_reader_sees_the_block_end_early(pieces: list[str]) -> None:
    body = "".join(pieces)
    block = frame_heredoc("f.md", body, 3)
    for lines in (block.text.splitlines(), block.text.split("\n")):
        assert lines.index(block.delimiter) == len(lines) - 1


# -- end to end --


def test_glob_quotes_a_root_file_named_like_the_end_marker(tmp_path: Path) -> None:
    (tmp_path / "End of content").write_text("hello\n")
    result = run_readmany(["glob", "*"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert text.startswith('--- "End of content" ---\n\nhello\n')
    assert text.splitlines().count("--- End of content ---") == 1
    assert text.endswith("\n--- End of content ---\n")


def test_many_chooses_a_delimiter_no_reader_collides_with(tmp_path: Path) -> None:
    base = base_delimiter("a.txt", 1)
    body = f"one\r{base}\rtwo\u2028{base}\n"
    (tmp_path / "a.txt").write_text(body, newline="")
    result = run_readmany(["many", "a.txt"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    opener = lines[1]
    delimiter = opener[3:-1]
    assert opener.startswith("<<'") and delimiter.startswith(base) and delimiter != base
    assert lines.index(delimiter) == len(lines) - 1


@pytest.mark.parametrize("form", ["text", "markdown", "xml"])
def test_a_name_that_is_not_utf8_keeps_the_output_utf8_and_is_read_back(
    tmp_path: Path, form: str
) -> None:
    # A file name's bytes need not be UTF-8: the header writes it as a JSON string with
    # the byte escaped, which reads back as the name Python holds (a lone surrogate).
    import json
    import os

    from readmany.frame.markdown import parse_markdown
    from readmany.frame.xml import parse_xml

    name = os.fsdecode(b"bad\xffname.txt")
    (tmp_path / name).write_bytes(b"x\n")
    result = run_readmany(["glob", "**", "--format", form, "-q"], cwd=tmp_path)
    assert result.returncode == 0
    text = result.stdout.decode("utf-8")  # valid UTF-8, or this raises
    if form == "text":
        header = text.splitlines()[0].removeprefix("--- ").removesuffix(" ---")
        assert json.loads(header) == name
    else:
        parse = parse_markdown if form == "markdown" else parse_xml
        assert parse(text) == [(name, "x\n")]
    for drawn in (["--tree"], ["--stats"]):
        tree = run_readmany(["glob", "**", *drawn, "-q"], cwd=tmp_path).stdout.decode("utf-8")
        assert '── "bad\\udcffname.txt"' in tree, drawn


# The bidirectional controls: a terminal shows what follows them turned around, so that
# `a<RLO>gnp.js` reads as `asj.png`.
BIDI = ["\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2069"]


@pytest.mark.parametrize("form", ["text", "markdown", "xml"])
@pytest.mark.parametrize("mark", BIDI)
def test_a_name_with_a_bidirectional_control_is_quoted_and_read_back(
    tmp_path: Path, form: str, mark: str
) -> None:
    import json

    from readmany.frame.markdown import parse_markdown
    from readmany.frame.xml import parse_xml

    name = f"a{mark}gnp.js"
    (tmp_path / name).write_bytes(b"x\n")
    result = run_readmany(["glob", "**", "--format", form, "-q"], cwd=tmp_path)
    assert result.returncode == 0
    text = result.stdout.decode("utf-8")
    assert mark not in text  # escaped: nothing reaches a terminal raw
    if form == "text":
        header = text.splitlines()[0].removeprefix("--- ").removesuffix(" ---")
        assert header.startswith('"') and json.loads(header) == name
    else:
        parse = parse_markdown if form == "markdown" else parse_xml
        assert parse(text) == [(name, "x\n")]
    tree = run_readmany(["glob", "**", "--tree", "-q"], cwd=tmp_path).stdout.decode("utf-8")
    assert mark not in tree
