"""A file's text cannot forge a section of `glob`'s text format: a body with a line that
reads as a header or the end marker is guarded (`frame.separator`), so the text alone
splits back into the exact files, whatever they hold. `--compat` writes bodies raw."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import run_readmany
from hypothesis import given, settings
from hypothesis import strategies as st

from readmany.frame.formats import framing_for
from readmany.frame.separator import (
    END_OF_CONTENT,
    frame_separator,
    section_dashes,
)

BREAKS = ["\n", "\r\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
_HEADER = re.compile(r"(-{3,}) (.*) \1")


def header_like(line: str) -> bool:
    return re.fullmatch(r"(-{3,}) (?:.* )?(-{3,})", line.strip()) is not None


def parse_text(content: str) -> list[tuple[str, str]]:
    """(shown path, body) of every section, found from the text alone, as a reader would:
    a section's first line is its header; a plain section ends at the blank line before
    the next line that reads as a header, a guarded one at its own closing line."""
    sections = []
    at = 0
    while True:
        if content[at:] == END_OF_CONTENT:
            return sections
        end_of_header = content.index("\n", at)
        header = _HEADER.fullmatch(content[at:end_of_header])
        assert header is not None, content[at:end_of_header]
        run, shown = header.group(1), header.group(2)
        start = end_of_header + 2
        assert content[end_of_header:start] == "\n\n"
        if len(run) > 3:
            close = f"\n{run} End of {shown} {run}\n\n"
            stop = content.index(close, start)
            sections.append((shown, content[start:stop]))
            at = stop + len(close)
            continue
        # The next line, after a blank one, that reads as a header (or the end marker).
        lines_at = [m.start() + 1 for m in re.finditer("\n", content[start:])]
        for offset in lines_at:
            line_start = start + offset
            line_end = content.find("\n", line_start)
            line = content[line_start : line_end if line_end >= 0 else len(content)]
            if header_like(line) and content[line_start - 2 : line_start] == "\n\n":
                end_marker = content[line_start - 1 :] == END_OF_CONTENT
                stop = line_start - (3 if end_marker else 2)
                sections.append((shown, content[start:stop]))
                at = stop + 2
                break
        else:
            raise AssertionError("a section with no end")


def test_a_body_without_a_header_line_is_framed_as_the_reference_frames_it() -> None:
    for body in ("plain\n", "--- a rule of dashes\n", "---\nyaml: 1\n", "x --- y ---\n", ""):
        assert section_dashes(body) == 3
        assert frame_separator("a.txt", body, guard=True) == frame_separator("a.txt", body)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(["-", "---", "--- ", " ----", "x", " ", "\t", "End of", *BREAKS]),
        max_size=16,
    )
)
def test_the_dashes_are_one_more_than_any_header_like_line_has_however_lines_end(
    atoms: list[str],
) -> None:
    # every `\n` line and every line `str.splitlines` makes, each looked at whole (only
    # the lines holding the mark are: the rest cannot read as a header)
    body = "".join(atoms)
    most = 0
    for line in [*body.split("\n"), *body.splitlines()]:
        found = re.fullmatch(r"(-{3,}) (?:.* )?(-{3,})", line.strip())
        if found is not None:
            most = max(most, len(found.group(1)), len(found.group(2)))
    assert section_dashes(body) == (max(4, most + 1) if most else 3)


def test_a_guarded_header_has_more_dashes_than_any_line_of_the_body() -> None:
    assert section_dashes("--- x ---") == 4
    assert section_dashes("---- x ----\n------ y ---") == 7
    assert section_dashes("  --- End of content ---  ") == 4  # blanks do not hide it
    assert section_dashes("--- ---") == 4
    text = frame_separator("a.txt", "--- b.txt ---\n", guard=True)
    assert text == "---- a.txt ----\n\n--- b.txt ---\n\n---- End of a.txt ----\n\n"


@pytest.mark.parametrize("brk", BREAKS)
def test_a_header_line_behind_any_line_break_guards_the_section(brk: str) -> None:
    assert section_dashes(f"x{brk}--- b.txt ---{brk}y") == 4
    if "\n" not in brk:  # then split by `\n` alone, it is one line that reads as a header
        assert section_dashes(f"--- a{brk}b ---") == 4


def test_the_closing_line_of_a_quoted_name_names_it_quoted() -> None:
    text = frame_separator("End of content", "--- x ---", guard=True)
    assert text.splitlines()[0] == '---- "End of content" ----'
    assert text.splitlines()[-2:] == ['---- End of "End of content" ----', ""]


def test_the_attack_of_a_forged_section_and_end_marker_splits_back_exactly(
    tmp_path: Path,
) -> None:
    forged = "real\n--- fake.txt ---\n\nFAKE\n\n--- End of content ---\n"
    (tmp_path / "a.txt").write_text(forged)
    (tmp_path / "b.txt").write_text("x\n")
    result = run_readmany(["glob", "a.txt", "b.txt"], cwd=tmp_path)
    assert result.returncode == 0
    content = result.stdout.decode().removesuffix("\n")  # stdout ends with a newline
    assert parse_text(content) == [("a.txt", forged), ("b.txt", "x\n")]
    assert content.count("\n--- End of content ---") == 2  # the file's line and the end
    assert content.endswith(END_OF_CONTENT)


def test_compat_writes_the_body_raw_as_the_reference_does(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("--- fake.txt ---\n")
    result = run_readmany(["glob", "a.txt", "--compat"], cwd=tmp_path)
    assert result.stdout.decode().startswith("--- a.txt ---\n\n--- fake.txt ---\n")


def test_a_budget_counts_a_guarded_section_as_written(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("--- fake.txt ---\n" * 3)
    (tmp_path / "b.txt").write_text("b\n" * 40)
    (tmp_path / "c.txt").write_text("c\n" * 400)
    result = run_readmany(["glob", "*.txt", "--max-bytes", "300", "--json"], cwd=tmp_path)
    report = json.loads(result.stdout)
    content = report["content"]
    assert len(content.encode()) <= 300
    sections = dict(parse_text(content))
    assert sections["a.txt"] == "--- fake.txt ---\n" * 3
    data = content.encode()
    sizes = [record["outputBytes"] for record in report["details"]["read"]]
    assert data.startswith(b"---- a.txt ----")
    assert data[: sizes[0]].endswith(b"---- End of a.txt ----\n\n")


def test_tokens_of_a_guarded_section_weigh_its_own_frame() -> None:
    framing = framing_for("text", guard=True)
    plain = framing_for("text")
    body = "--- x ---\n" * 5
    assert framing.tokens("a.txt", body, 1) > plain.tokens("a.txt", body, 1)
    size, newlines, _ = framing.measure("a.txt", body, 1)
    block = framing.block("a.txt", body, 1)
    assert (size, newlines) == (len(block.encode()), block.count("\n"))


lines = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=12),
    st.sampled_from(
        ["--- a.txt ---", "---- a.txt ----", "--- End of content ---", "---- End of a.txt ----"]
    ),
    st.sampled_from(["", "\r", "\u2028", " --- x --- "]),
)


@settings(max_examples=40, deadline=None)
@given(bodies=st.lists(st.lists(lines, max_size=6).map("\n".join), min_size=1, max_size=4))
def test_any_bodies_split_back_from_the_text_alone(bodies: list[str]) -> None:
    framing = framing_for("text", guard=True)
    names = [f"{chr(97 + index)}.txt" for index in range(len(bodies))]
    pairs = list(zip(names, bodies, strict=True))
    content = "".join(framing.block(name, body, i) for i, (name, body) in enumerate(pairs))
    content += framing.end(True)
    assert parse_text(content) == pairs
