"""An outline (and a part's head) framed in each of glob's formats is marked so that the
framing parsed back never takes it for a file's text, nor a file for an outline, whatever
the paths and texts hold."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from readmany.frame.formats import framing_for
from readmany.frame.markdown import parse_markdown, parse_markdown_outlines
from readmany.frame.notices import outline_only
from readmany.frame.separator import OUTLINE_MARK
from readmany.frame.xml import parse_xml, parse_xml_outlines

PATHS = st.one_of(
    st.sampled_from(["a.py", "a.py (outline)", '"q.py', "x (outline) (outline)", "dir/b c.md"]),
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).map(
        lambda name: name + OUTLINE_MARK if len(name) % 2 else name
    ),
)
TEXTS = st.text(max_size=60)


def _render(fmt: str, blocks: list[tuple[str, str, bool]], part: bool) -> str:
    framing = framing_for(fmt, guard=True)
    start = (
        framing.part_start(2, 3, "[Part 2 of 3: this part holds a.py]")
        if part
        else framing.start(None)
    )
    pieces = []
    for index, (path, text, outline) in enumerate(blocks, 1):
        if outline:
            pieces.append(
                framing.outline_block(path, text, index, outline_only(3, "readmany many x"))
            )
        else:
            pieces.append(framing.block(path, text, index))
    return start + framing.joint.join(pieces) + framing.end(bool(blocks)) + "\n"


@settings(max_examples=200, deadline=None)
@given(
    blocks=st.lists(st.tuples(PATHS, TEXTS, st.booleans()), min_size=1, max_size=5),
    fmt=st.sampled_from(["markdown", "xml"]),
    part=st.booleans(),
)
def test_files_and_outlines_parse_back_apart(
    blocks: list[tuple[str, str, bool]], fmt: str, part: bool
) -> None:
    text = _render(fmt, blocks, part)
    files, outlines = (
        (parse_markdown(text), parse_markdown_outlines(text))
        if fmt == "markdown"
        else (parse_xml(text), parse_xml_outlines(text))
    )
    assert files == [(path, body) for path, body, outline in blocks if not outline]
    assert outlines == [(path, body) for path, body, outline in blocks if outline]


def _shown(block: str) -> str:
    header = block.split("\n", 1)[0]
    found = re.fullmatch(r"(-{3,}) (.*) \1", header)
    assert found is not None, header
    return found.group(2)


def _path(shown: str) -> str:
    return json.loads(shown) if shown.startswith('"') else shown


@settings(max_examples=200, deadline=None)
@given(path=PATHS, body=TEXTS)
def test_in_text_only_an_outline_is_headed_as_one(path: str, body: str) -> None:
    framing = framing_for("text", guard=True)
    shown = _shown(framing.block(path, body, 1))
    assert not shown.endswith(OUTLINE_MARK)  # a file named so is quoted
    assert _path(shown) == path
    outlined = _shown(framing.outline_block(path, "1  x\n", 1, outline_only(1, "readmany many x")))
    assert outlined.endswith(OUTLINE_MARK)
    assert _path(outlined.removesuffix(OUTLINE_MARK)) == path
