"""Markdown and XML framings, line numbers and the directory tree: exact text, exact parsing."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from readmany.frame.markdown import (
    fence_for,
    frame_markdown,
    language_of,
    parse_markdown,
    parse_markdown_tree,
    render_markdown,
)
from readmany.frame.numbering import number_lines, strip_line_numbers
from readmany.frame.separator import frame_separator
from readmany.frame.tree import render_tree
from readmany.frame.xml import (
    encode_text,
    frame_xml,
    parse_xml,
    parse_xml_tree,
    render_xml,
    source_path,
    xml_open,
)

# Texts built to break framings: closing tags and fences, CDATA ends, entities, markers,
# control characters XML cannot hold, lone surrogates, CR, a missing final newline.
HOSTILE_LINES = [
    "</document_content>",
    "</document>",
    "</documents>",
    '<document index="2">',
    "]]>",
    "]]]]><![CDATA[>",
    "<![CDATA[",
    "&amp;",
    "&#13;",
    '<char code="41"/>',
    "```",
    "````python",
    "``",
    "## a.txt",
    "# Directory tree",
    "\\ No newline at end of file",
    "1  x",
    "",
    " ",
    "\r",
    "\x00\x01\x08\x0b\x0c\x1b\x7f",
    "\ud800",
    "x\udfff",
    "\ufffe\uffff",
    "😀 é 中",
]
texts = st.lists(
    st.one_of(
        st.sampled_from(HOSTILE_LINES),
        st.text(alphabet=st.characters(blacklist_categories=()), max_size=12),
        st.text(alphabet="`<>&]\r\n #\\", max_size=8),
    ),
    max_size=8,
).map("\n".join)
HOSTILE_NAMES = [
    "a.txt",
    "dir/b c.py",
    "new\nline.md",
    '"quoted',
    "tab\tname",
    "<source>&amp;</source>",
    "x]]>y",
    "trail ",
    " lead",
    "hash #",
    "## h",
    "```.md",
    "nul\x00",
    "esc\x1b[0m",
    "\udc80\udcff.bin",
    "😀.md",
]
names = st.one_of(
    st.sampled_from(HOSTILE_NAMES),
    st.text(alphabet=st.characters(blacklist_categories=()), min_size=1, max_size=10),
)
file_lists = st.lists(st.tuples(names, texts), max_size=5)
trees = st.one_of(st.none(), texts)


# --- line numbers -------------------------------------------------------------------------


def test_line_numbers_are_padded_to_the_last_number() -> None:
    body = "".join(f"line {n}\n" for n in range(1, 11))
    numbered = number_lines(body)
    assert numbered.splitlines()[0] == " 1  line 1"
    assert numbered.splitlines()[9] == "10  line 10"
    assert numbered.endswith("\n")


@pytest.mark.parametrize(
    ("body", "numbered"),
    [
        ("", ""),
        ("\n", "1  \n"),
        ("a", "1  a"),
        ("a\nb", "1  a\n2  b"),
        ("a\r\n\n", "1  a\r\n2  \n"),
    ],
)
def test_line_numbers_keep_the_final_newline_or_its_absence(body: str, numbered: str) -> None:
    assert number_lines(body) == numbered
    assert strip_line_numbers(numbered) == body


def test_line_numbers_can_start_later() -> None:
    assert number_lines("a\nb\n", first=9) == " 9  a\n10  b\n"
    assert strip_line_numbers(" 9  a\n10  b\n", first=9) == "a\nb\n"


def test_text_without_line_numbers_is_refused() -> None:
    with pytest.raises(ValueError, match="line 2"):
        strip_line_numbers("1  a\n3  b\n")


@pytest.mark.slow
@settings(max_examples=scaled(300), deadline=None)
@given(body=texts)
def test_line_numbers_come_off_exactly(body: str) -> None:
    assert strip_line_numbers(number_lines(body)) == body


@pytest.mark.slow
@settings(max_examples=scaled(200), deadline=None)
@given(path=names, body=texts)
def test_a_numbered_separator_section_gives_back_its_text(path: str, body: str) -> None:
    section = frame_separator(path, number_lines(body))
    header, rest = section.split("\n\n", 1)
    assert "\n" not in header
    shown = header[len("--- ") : -len(" ---")]
    assert (json.loads(shown) if shown.startswith('"') else shown) == path
    assert strip_line_numbers(rest.removesuffix("\n\n")) == body


# --- Markdown ------------------------------------------------------------------------------


def test_markdown_block() -> None:
    assert frame_markdown("src/app.py", 'print("hi")\n') == (
        '## src/app.py\n\n```python\nprint("hi")\n```'
    )


def test_markdown_marks_a_missing_final_newline_and_frames_an_empty_file() -> None:
    assert frame_markdown("a.txt", "no newline") == (
        "## a.txt\n\n```text\nno newline\n```\n\\ No newline at end of file"
    )
    assert frame_markdown("empty.md", "") == "## empty.md\n\n```markdown\n```"
    assert frame_markdown("blank", "\n") == "## blank\n\n```\n\n```"


def test_markdown_fence_outgrows_every_backtick_run() -> None:
    assert fence_for("no ticks, ``two``") == "```"
    assert fence_for("a ````` run inside a line") == "``````"
    body = "```\ncode\n````\n"
    assert frame_markdown("x.md", body) == f"## x.md\n\n`````markdown\n{body}`````"


def test_markdown_line_numbers_and_note() -> None:
    block = frame_markdown("a.py", "x\ny\n", line_numbers=True, note="[cut to 2 lines]")
    assert block == "## a.py\n\n[cut to 2 lines]\n\n```python\n1  x\n2  y\n```"
    assert parse_markdown(block, line_numbers=True) == [("a.py", "x\ny\n")]
    with pytest.raises(ValueError):
        frame_markdown("a.py", "", note="`starts with a backtick")


@pytest.mark.parametrize(
    ("path", "heading"),
    [
        ("dir/b c.py", "## dir/b c.py"),
        ("new\nline.md", '## "new\\nline.md"'),
        ('"quoted', '## "\\"quoted"'),
        ("trail ", '## "trail "'),
        (" lead", '## " lead"'),
        ("hash #", '## "hash #"'),
        ("## h", "## ## h"),
    ],
)
def test_markdown_heading_quotes_what_would_change_it(path: str, heading: str) -> None:
    assert frame_markdown(path, "").split("\n")[0] == heading


def test_markdown_languages() -> None:
    assert [language_of(p) for p in ("a/b.PY", "Makefile", "x.tsx", "README", ".env", "a.zzz")] == [
        "python",
        "makefile",
        "tsx",
        "",
        "",
        "",
    ]


def test_markdown_output_with_tree() -> None:
    files = [("a.py", "x = 1\n"), ("docs/b.md", "# B")]
    tree = render_tree([path for path, _ in files])
    out = render_markdown(files, tree=tree)
    assert out == (
        "# Directory tree\n\n```\n.\n├── a.py\n└── docs/\n    └── b.md\n```\n\n"
        "## a.py\n\n```python\nx = 1\n```\n\n"
        "## docs/b.md\n\n```markdown\n# B\n```\n\\ No newline at end of file"
    )
    assert parse_markdown(out + "\n") == files
    assert parse_markdown_tree(out) == tree
    assert parse_markdown_tree(render_markdown(files)) is None


@pytest.mark.slow
@settings(max_examples=scaled(400), deadline=None)
@given(files=file_lists, tree=trees, line_numbers=st.booleans())
def test_markdown_parses_back_to_the_exact_files(
    files: list[tuple[str, str]], tree: str | None, line_numbers: bool
) -> None:
    out = render_markdown(files, tree=tree, line_numbers=line_numbers)
    assert parse_markdown(out, line_numbers=line_numbers) == files
    assert parse_markdown(out + "\n", line_numbers=line_numbers) == files
    assert parse_markdown_tree(out) == tree


def test_markdown_parser_refuses_what_it_did_not_write() -> None:
    with pytest.raises(ValueError):
        parse_markdown("## a\n\n```\nnever closed\n")
    with pytest.raises(ValueError):
        parse_markdown("# a\n\n```\n```")


# --- XML -----------------------------------------------------------------------------------


def test_xml_documents() -> None:
    out = render_xml([("src/a.py", "if a < b && c:\n    pass\n"), ("notes.txt", "plain")])
    assert out == (
        "<documents>\n"
        '<document index="1">\n<source>src/a.py</source>\n'
        "<document_content><![CDATA[if a < b && c:\n    pass\n]]></document_content>\n"
        "</document>\n"
        '<document index="2">\n<source>notes.txt</source>\n'
        "<document_content>plain</document_content>\n</document>\n"
        "</documents>"
    )


@pytest.mark.parametrize(
    ("text", "encoded"),
    [
        ("plain > text", "plain > text"),
        ("a</document_content>b", "<![CDATA[a</document_content>b]]>"),
        ("x]]>y", "<![CDATA[x]]]]><![CDATA[>y]]>"),
        ("&amp;", "<![CDATA[&amp;]]>"),
        ("a\rb", "a&#13;b"),
        ("nul\x00esc\x1b", 'nul<char code="0"/>esc<char code="1B"/>'),
        ("\ud800<", '<char code="D800"/><![CDATA[<]]>'),
        ("\ufffe\uffff", '<char code="FFFE"/><char code="FFFF"/>'),
        ("tab\tnew\nline", "tab\tnew\nline"),
    ],
)
def test_xml_text_encoding(text: str, encoded: str) -> None:
    assert encode_text(text) == encoded


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("a&b<c>.txt", "a&amp;b&lt;c&gt;.txt"),
        ("new\nline", '"new\\nline"'),
        ("\udc80.bin", '"\\udc80.bin"'),
        ('"q', '"\\"q"'),
    ],
)
def test_xml_source_paths(path: str, shown: str) -> None:
    assert source_path(path) == shown


def test_xml_note_tree_and_line_numbers() -> None:
    document = frame_xml("a.py", "x\n", 3, line_numbers=True, note="cut <here>")
    assert document == (
        '<document index="3">\n<source>a.py</source>\n<note><![CDATA[cut <here>]]></note>\n'
        "<document_content>1  x\n</document_content>\n</document>\n"
    )
    assert xml_open("t") == "<documents>\n<directory_tree>t</directory_tree>\n"
    out = render_xml([("a.py", "x\n")], tree=".\n└── a.py\n", line_numbers=True)
    assert parse_xml(out, line_numbers=True) == [("a.py", "x\n")]
    assert parse_xml_tree(out) == ".\n└── a.py\n"


def read_with_an_xml_parser(out: str) -> tuple[str | None, list[tuple[str, str]]]:
    """What a standard XML parser reads: proof that the output is XML meaning the files."""

    def character_data(element: ElementTree.Element) -> str:
        parts = [element.text or ""]
        for child in element:
            assert child.tag == "char"
            parts.append(chr(int(child.attrib["code"], 16)) + (child.tail or ""))
        return "".join(parts)

    root = ElementTree.fromstring(out)
    assert root.tag == "documents"
    tree_element = root.find("directory_tree")
    files = []
    for index, document in enumerate(root.iter("document"), 1):
        assert document.attrib["index"] == str(index)
        shown = document.findtext("source") or ""
        path = json.loads(shown) if shown.startswith('"') else shown
        content = document.find("document_content")
        assert content is not None
        files.append((path, character_data(content)))
    return (None if tree_element is None else character_data(tree_element)), files


@pytest.mark.slow
@settings(max_examples=scaled(400), deadline=None)
@given(files=file_lists, tree=trees, line_numbers=st.booleans())
def test_xml_parses_back_to_the_exact_files(
    files: list[tuple[str, str]], tree: str | None, line_numbers: bool
) -> None:
    out = render_xml(files, tree=tree, line_numbers=line_numbers)
    assert parse_xml(out, line_numbers=line_numbers) == files
    assert parse_xml(out + "\n", line_numbers=line_numbers) == files
    assert parse_xml_tree(out) == tree
    out.encode("utf-8")  # no lone surrogate is left to write
    read_tree, read_files = read_with_an_xml_parser(out)
    assert read_tree == tree
    if line_numbers:
        read_files = [(path, strip_line_numbers(body)) for path, body in read_files]
    assert read_files == files


def test_xml_parser_refuses_what_it_did_not_write() -> None:
    with pytest.raises(ValueError):
        parse_xml('<documents>\n<document index="2">\n')
    with pytest.raises(ValueError):
        parse_xml("<documents>\n</documents>trailing")


# --- tree ----------------------------------------------------------------------------------


def test_tree_keeps_the_given_order_with_each_directory_at_its_first_file() -> None:
    paths = ["README.md", "src/app.py", "src/util/text.py", "setup.py", "src/z.py", "tests/t.py"]
    assert render_tree(paths) == (
        ".\n"
        "├── README.md\n"
        "├── src/\n"
        "│   ├── app.py\n"
        "│   ├── util/\n"
        "│   │   └── text.py\n"
        "│   └── z.py\n"
        "├── setup.py\n"
        "└── tests/\n"
        "    └── t.py\n"
    )


def test_tree_quotes_names_that_would_break_a_line() -> None:
    assert render_tree(["new\nline/x", '"q', "ok"], root="/repo") == (
        '/repo\n├── "new\\nline"/\n│   └── x\n├── "\\"q"\n└── ok\n'
    )
    assert render_tree([]) == ".\n"


def test_tree_of_a_very_deep_path() -> None:
    lines = render_tree(["d/" * 2000 + "f"]).splitlines()
    assert len(lines) == 2002
    assert lines[-1] == " " * 4 * 2000 + "└── f"


def test_a_tree_marks_what_is_not_shown_whole() -> None:
    paths = ["README.md", "docs/a.md", "docs/b/c.md", "src/api.py", "src/app.py", "src/x]"]
    marks = {"docs/a.md": "left out", "docs/b/c.md": "left out", "src/api.py": "cut"}
    marks["src/app.py"] = "outline"
    assert render_tree(paths, ".", marks) == (
        ".\n├── README.md\n├── docs/ [left out: 2 files]\n└── src/\n"
        '    ├── api.py [cut]\n    ├── app.py [outline]\n    └── "x]"\n'
    )
    # unmarked, a name ending with ] is written as it is
    assert render_tree(["x]"]) == ".\n└── x]\n"
    # folded: a directory's files left out are one line at its end
    folded = render_tree(
        ["d/a", "d/b", "d/c"], ".", {"d/a": "left out", "d/c": "left out"}, fold=True
    )
    assert folded == ".\n└── d/\n    ├── b\n    └── [left out: 2 files]\n"
