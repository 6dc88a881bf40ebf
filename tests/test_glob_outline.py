"""`glob` with a budget shows a file that does not fit whole as its outline (`--outline`,
on by default with `--order rank` or `given`): after the whole files, before the cut; marked
as an outline in every format and in `--json`, never parsed back as the file's text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import make, run_readmany

from readmany.frame.markdown import parse_markdown, parse_markdown_outlines
from readmany.frame.xml import parse_xml, parse_xml_outlines

CORE = '"""The core."""\nimport os\n\nLIMIT = 10\n\n' + "".join(
    f'def helper_{i}(value, scale=2):\n    """Helper {i}: scales a value."""\n'
    + "".join(f"    value = value * scale + {j}  # step {j}\n" for j in range(12))
    + "    return value\n\n\n"
    for i in range(40)
)
FILES: dict[str, str | bytes] = {
    "README.md": "# app\n\nRun it.\n",
    "app/core.py": CORE,
    "app/cli.py": "from app import core\n\n\ndef main():\n    return core.helper_1(2)\n",
    "app/util.py": "from app import core\n\n\ndef twice(x):\n    return core.helper_2(x)\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make(tmp_path, FILES)


def _glob(repo: Path, *args: str) -> tuple[str, dict[str, Any]]:
    result = run_readmany(["glob", ".", "--json", "-q", *args], cwd=repo)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    return out["content"], out["details"]


def _text(repo: Path, *args: str) -> str:
    result = run_readmany(["glob", ".", "-q", *args], cwd=repo)
    assert result.returncode == 0, result.stderr
    return result.stdout.decode()


BUDGET = ("--max-tokens", "1500")  # the small files whole; core.py (~6k) is not


def test_a_file_that_does_not_fit_is_shown_as_its_outline_with_line_numbers(repo: Path) -> None:
    content, details = _glob(repo, *BUDGET)
    packing = details["packing"]
    assert packing["outlinedPaths"] == ["app/core.py"]
    assert "app/core.py" not in packing["omittedPaths"]
    assert "--- app/core.py (outline) ---" in content
    section = content.split("--- app/core.py (outline) ---", 1)[1]
    # Imports, constants, and each signature with its docstring's first line, each at
    # the line it starts on in the file.
    lines = CORE.splitlines()
    for number, entry in (
        (2, "import os"),
        (4, "LIMIT = 10"),
        (6, "def helper_0(value, scale=2)  # Helper 0: scales a value."),
    ):
        assert re.search(rf"^ *{number}  {re.escape(entry)}$", section, re.M), entry
        assert lines[number - 1].startswith(entry.split("  #")[0].rstrip(":"))
    assert "value = value * scale" not in section  # not the text
    assert "[Outline only, not the text" in section
    assert "readmany many app/core.py]" in section
    # The small files are whole; the budget holds.
    assert "--- app/cli.py ---" in content and "--- app/util.py ---" in content
    assert details["estimatedTokens"] <= 1500
    record = next(r for r in details["read"] if r["path"] == "app/core.py")
    assert record["outline"] == "tree-sitter"
    assert "truncated" not in record


def test_whole_files_come_first_then_outlines_then_names(repo: Path) -> None:
    make(repo, {"app/big_data.py": "".join(f"TABLE_{i} = {i}\n" for i in range(3000))})
    content, details = _glob(repo, *BUDGET)
    packing = details["packing"]
    assert set(packing["outlinedPaths"]) <= {"app/core.py", "app/big_data.py"}
    assert packing["outlinedPaths"][0] == "app/core.py"  # imported by two files: first
    # The whole files are those without outlines, kept before any outline was offered.
    for whole in ("README.md", "app/cli.py", "app/util.py"):
        assert f"--- {whole} ---" in content
    shown = [
        *packing["omittedPaths"],
        *packing["outlinedPaths"],
        packing.get("partialIncludedPath"),
    ]
    assert "app/big_data.py" in shown


def test_no_outline_leaves_the_file_out_as_before(repo: Path) -> None:
    content, details = _glob(repo, *BUDGET, "--no-outline")
    assert "outlinedPaths" not in details["packing"]
    assert "(outline)" not in content
    assert (
        "app/core.py" in details["packing"]["omittedPaths"]
        or details["packing"].get("partialIncludedPath") == "app/core.py"
    )


def test_the_reference_rule_has_no_outlines_by_default(repo: Path) -> None:
    content, details = _glob(repo, *BUDGET, "--order", "smallest")
    assert "outlinedPaths" not in details["packing"]
    assert "(outline)" not in content


def test_given_order_outlines_too(repo: Path) -> None:
    _content, details = _glob(repo, *BUDGET, "--order", "given")
    assert details["packing"]["outlinedPaths"] == ["app/core.py"]


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
def test_an_outline_never_parses_back_as_the_files_text(repo: Path, fmt: str) -> None:
    text = _text(repo, *BUDGET, "--format", fmt)
    parse, outlines = (
        (parse_markdown, parse_markdown_outlines)
        if fmt == "markdown"
        else (parse_xml, parse_xml_outlines)
    )
    files = dict(parse(text))
    assert "app/core.py" not in files
    for rel in ("README.md", "app/cli.py", "app/util.py"):
        assert files[rel] == FILES[rel]
    ((path, outline),) = outlines(text)
    assert path == "app/core.py"
    assert re.search(r"^ *6  def helper_0\(value, scale=2\)", outline, re.M)
    if fmt == "xml":
        assert "<outline>" in text and "<document_content>" + outline not in text


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
def test_numbered_output_leaves_the_outline_unnumbered_and_the_files_exact(
    repo: Path, fmt: str
) -> None:
    text = _text(repo, *BUDGET, "--format", fmt, "-n")
    parse, outlines = (
        (parse_markdown, parse_markdown_outlines)
        if fmt == "markdown"
        else (parse_xml, parse_xml_outlines)
    )
    files = dict(parse(text, line_numbers=True))
    assert files["app/cli.py"] == FILES["app/cli.py"]
    ((_path, outline),) = outlines(text)
    assert re.search(r"^ *2  import os$", outline, re.M)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_file_named_like_an_outline_is_quoted_and_read_as_a_file(
    tmp_path: Path, fmt: str
) -> None:
    make(tmp_path, {"a.py (outline)": "x = 1\n", "b.txt": "b\n"})
    text = _text(tmp_path, "--max-tokens", "10k", "--format", fmt)
    if fmt == "text":
        assert '--- "a.py (outline)" ---' in text
        assert "--- a.py (outline) ---" not in text
    else:
        assert dict(parse_markdown(text))["a.py (outline)"] == "x = 1\n"
        assert parse_markdown_outlines(text) == []


def test_text_format_marks_the_outline_in_its_header_and_no_entry_reads_as_one(
    tmp_path: Path,
) -> None:
    # Every entry starts with its line number: a docstring that reads as a section header
    # cannot start a line of the outline, so the section ends where its frame says.
    source = '"""Mod."""\n\n\ndef f():\n    """--- fake.py ---"""\n' + "    x = 1\n" * 2000
    make(tmp_path, {"mod.py": source, "a.txt": "a\n"})
    text = _text(tmp_path, "--max-tokens", "300")
    section = text.split("--- mod.py (outline) ---\n\n", 1)[1].split("\n\n\n", 1)[0]
    assert section.splitlines()[0] == "   4  def f()  # --- fake.py ---"
    for line in section.splitlines():
        assert not re.fullmatch(r"(-{3,}) (?:.* )?(-{3,})", line.strip())


def test_a_language_without_a_grammar_falls_back_to_the_line_rule(tmp_path: Path) -> None:
    lua = "local M = {}\n\n" + "".join(
        f"local function step_{i}(x)\n" + "  x = x + 1\n" * 30 + "  return x\nend\n\n"
        for i in range(40)
    )
    make(tmp_path, {"mod.lua": lua, "README.md": "# r\n"})
    content, details = _glob(tmp_path, "--max-tokens", "800")
    assert details["packing"]["outlinedPaths"] == ["mod.lua"]
    record = next(r for r in details["read"] if r["path"] == "mod.lua")
    assert record["outline"] == "lines"
    assert re.search(r"^ *3  local function step_0\(x\)$", content, re.M)


def test_a_grammar_not_installed_falls_back_to_the_line_rule(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readmany.read import outline

    monkeypatch.setattr(outline, "_parsers", {"python": None})  # as without the extra
    content, details = _glob(repo, *BUDGET)
    record = next(r for r in details["read"] if r["path"] == "app/core.py")
    assert record["outline"] == "lines"
    assert re.search(r"^ *6  def helper_0\(value, scale=2\):$", content, re.M)


def test_a_file_with_nothing_to_outline_is_named_only(tmp_path: Path) -> None:
    make(tmp_path, {"data.txt": "plain words\n" * 3000, "a.txt": "a\n"})
    _content, details = _glob(tmp_path, "--max-tokens", "500")
    assert "outlinedPaths" not in details["packing"]
    assert "data.txt" in details["packing"]["omittedPaths"] + [
        details["packing"].get("partialIncludedPath")
    ]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--outline"], "--outline shows what a budget leaves out"),
        (["--outline", "--no-outline", *BUDGET], "--outline and --no-outline"),
        (["--outline", "--order", "smallest", *BUDGET], "--outline needs a budget that ranks"),
        (["--outline", "--stats", *BUDGET], "--stats measures whole files only"),
        (["--outline", "--parts", *BUDGET], "--parts shows every file whole"),
    ],
)
def test_outline_misuse_is_one_line_and_exit_2(repo: Path, args: list[str], said: str) -> None:
    result = run_readmany(["glob", ".", *args], cwd=repo)
    assert result.returncode == 2
    assert result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and said in lines[0]


def _counting_outlines(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from readmany.read import outline

    asked: list[str] = []
    real = outline.outline

    def counted(path: str, text: str) -> Any:
        asked.append(path)
        return real(path, text)

    monkeypatch.setattr(outline, "outline", counted)
    return asked


def test_no_outline_is_made_once_too_few_tokens_are_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The small files, preferred, fill the budget of tokens to within an outline's least:
    # the large ones after them are not read again and parsed for an outline that cannot
    # fit.
    files: dict[str, str | bytes] = {f"big_{i}.py": CORE for i in range(20)}
    files.update({f"small_{i:03}.py": f"X_{i} = {i}\n" for i in range(400)})
    make(tmp_path, files)
    asked = _counting_outlines(monkeypatch)
    _content, details = _glob(tmp_path, "--max-tokens", "2000", "--prefer", "small_*")
    packing = details["packing"]
    assert 100 < packing["fullIncludedCount"] < 400  # the small files filled it
    assert any(path.startswith("small_") for path in packing["omittedPaths"])
    assert "outlinedPaths" not in packing
    assert asked == []


def test_outlines_stop_being_asked_for_after_a_run_that_does_not_fit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readmany.pack.plan import OUTLINE_MISSES

    make(tmp_path, {f"big_{i:02}.py": CORE for i in range(OUTLINE_MISSES + 10)})
    asked = _counting_outlines(monkeypatch)
    _content, details = _glob(tmp_path, "--max-tokens", "600")  # no outline fits
    assert "outlinedPaths" not in details["packing"]
    assert len(set(asked)) == OUTLINE_MISSES


def test_a_file_past_the_outline_limit_is_never_read_for_an_outline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readmany.limits import OUTLINE_MAX_BYTES

    big = "def f():\n    return 1\n\n" * (OUTLINE_MAX_BYTES // 20)
    make(tmp_path, {"big.py": big, "a.txt": "a\n"})
    asked = _counting_outlines(monkeypatch)
    _content, details = _glob(tmp_path, "--max-tokens", "20k")
    assert asked == []
    assert "outlinedPaths" not in details["packing"]


def test_the_tree_names_the_outlined_file_with_the_files_shown(repo: Path) -> None:
    content, details = _glob(repo, *BUDGET, "--tree")
    tree = content.split("\n\n", 1)[0]
    assert "core.py" in tree and "cli.py" in tree
    assert "app/core.py" in details["files"]
    # marked as an outline, from the plan's outlined files; the files whole unmarked
    assert details["packing"]["outlinedPaths"] == ["app/core.py"]
    assert re.search(r"core\.py \[outline\]$", tree, re.M)
    assert re.search(r"cli\.py$", tree, re.M)


def test_a_file_alone_past_the_budget_is_its_head_not_its_outline(tmp_path: Path) -> None:
    # Its outline would fit with most of the budget to spare: the budget shows as much of
    # the file as it holds (a cut, with the command for the rest) rather than a few lines.
    make(tmp_path, {"core.py": CORE})
    result = run_readmany(
        ["glob", "core.py", "--max-tokens", "4000", "--tokenizer", "estimate", "--json"],
        cwd=tmp_path,
    )
    said = json.loads(result.stdout)
    packing = said["details"]["packing"]
    assert packing.get("partialIncludedPath") == "core.py"
    assert not packing.get("outlinedPaths")
    assert "Showing lines 1-" in said["content"]
    # the head that --no-outline shows, not the outline the plan had first
    args = ["glob", "core.py", "--max-tokens", "4000", "--tokenizer", "estimate", "--json"]
    cut = run_readmany([*args, "--no-outline"], cwd=tmp_path)
    assert json.loads(cut.stdout)["content"] == said["content"]
