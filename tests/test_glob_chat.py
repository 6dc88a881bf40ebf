"""Context for a chat, end to end: `glob`'s budget, `--stats`, `--tree`, `--format`, `-n`
(issue "Context for a chat")."""

from __future__ import annotations

import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from helpers import GIT_ALONE, bench_repo_tree, details, make, run_readmany, scaled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readmany.emit.stats import (
    StatsEntry,
    build_stats,
    stats_json,
    stats_text,
)
from readmany.frame.formats import framing_for
from readmany.frame.markdown import parse_markdown, parse_markdown_tree
from readmany.frame.numbering import strip_line_numbers
from readmany.frame.separator import frame_separator
from readmany.frame.tree import render_tree
from readmany.frame.xml import parse_xml, parse_xml_tree
from readmany.read.measure import measure_for_stats
from readmany.tokenizer import count
from readmany.tokens import planning_budget

END = "\n--- End of content ---"


def lines_of(prefix: str, count: int) -> str:
    return "".join(f"{prefix} {n}\n" for n in range(1, count + 1))


def content(result: subprocess.CompletedProcess[bytes]) -> str:
    value: str = json.loads(result.stdout)["content"]
    return value


def stderr_lines(result: subprocess.CompletedProcess[bytes]) -> list[str]:
    return result.stderr.decode().splitlines()


def sections(text: str, read: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], str]:
    """(path, body) of each `--- path ---` section, cut by the sizes `--json` reports, and
    what follows them."""
    data = text.encode()
    found = []
    at = 0
    for record in read:
        section = data[at : at + record["outputBytes"]].decode()
        at += record["outputBytes"]
        header, body = section.split("\n\n", 1)
        framed = re.fullmatch(r"(-{3,}) (.*) \1", header)
        assert framed is not None, header
        run, shown = framed.groups()
        if len(run) > 3:  # a guarded section: closed by a line of its own
            close = f"\n{run} End of {shown} {run}\n\n"
            assert body.endswith(close)
            body = body.removesuffix(close) + "\n\n"
        found.append((shown, body.removesuffix("\n\n")))
    return found, data[at:].decode()


def expand(names: str) -> list[str]:
    """The paths a closing notice names: `dir/{a, b}` is two files, `dir/ (N files)` a
    directory (as `dir/`)."""
    found = []
    for part in re.findall(r"[^,{]+\{[^}]*\}|[^,]+", names):
        part = part.strip()
        braces = re.fullmatch(r"(.*)\{(.*)\}", part)
        if braces:
            found += [braces.group(1) + name.strip() for name in braces.group(2).split(",")]
        else:
            found.append(re.sub(r" \(\d+ files\)$", "", part))
    return found


def left_out_in(notice: str) -> list[str]:
    match = re.fullmatch(r"\[Left out by the budget: (.*?)\.( All \d+ take [^\]]*)?\]", notice)
    assert match, notice
    return expand(match.group(1))


def named(path: str, names: list[str]) -> bool:
    return path in names or any(n.endswith("/") and path.startswith(n) for n in names)


# --- the budget --------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _git_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """git (ours, and the one readmany runs) without this machine's configuration."""
    for name, value in GIT_ALONE.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(scope="module")
def repo_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The benchmark's repository-like tree, 300 files (git is needed to build it)."""
    return bench_repo_tree(tmp_path_factory.mktemp("repo") / "repo")


@pytest.mark.parametrize("tokenizer", ["estimate", "o200k"])
def test_a_token_budget_over_a_repo_tree_holds_and_names_every_file_left_out(
    repo_tree: Path, tokenizer: str
) -> None:
    everything = details(run_readmany(["glob", ".", "--json", "-q"], cwd=repo_tree))["files"]
    args = ["--order", "smallest", "--max-tokens", "100000", "--tokenizer", tokenizer]
    result = run_readmany(["glob", ".", *args, "--json"], cwd=repo_tree)
    assert result.returncode == 0, result.stderr
    report = details(result)
    # The plan, in tokens as `--stats` estimates them, of each file's frame and text,
    # fills the budget it was planned for (a file is cut to fill the rest): with the
    # estimate alone, the most whose bound of the real count is within the budget (at
    # least what is within it whatever the plan holds); what the real count allows with
    # o200k.
    planned = report["tokenizer"]["planned"]
    assert report["tokenizer"]["name"] == tokenizer
    if tokenizer == "estimate":
        assert planning_budget(100000) < planned < 100000
    # (to a percent or two without a tokenizer: the plan counts the large files and the
    # cut by their pieces, `--stats` estimates them)
    assert abs(report["estimatedTokens"] - planned) <= planned * 0.02
    # The real count of what is written is never over; counted, it is filled, and
    # nearly so without a tokenizer.
    real = count(content(result) + "\n", "o200k")
    assert real <= 100000
    if tokenizer == "o200k":
        assert real == report["tokenizer"]["tokens"] and real >= 95000
    else:
        assert real >= 84000  # as `test_token_budget_real.FILLED` has it, smallest first
    packing = report["packing"]
    shown, omitted = report["files"], packing["omittedPaths"]
    assert omitted and packing["fullIncludedCount"] == len(shown) - 1
    assert sorted(shown + omitted) == sorted(everything)
    assert [path for path in everything if path in shown] == shown  # output order
    # Every file shown whole is the file; the one cut ends with the command for the rest.
    found, rest = sections(content(result), report["read"])
    for (path, body), record in zip(found, report["read"], strict=True):
        text = (repo_tree / path).read_text()
        if path == packing["partialIncludedPath"]:
            assert record["truncated"] is True
            head, notice = body.rsplit("\n[Showing lines 1-", 1)
            assert text.startswith(head + "\n")
            assert notice.endswith(
                f"Continue with: readmany many {path}:{head.count(chr(10)) + 2}]"
            )
        else:
            assert body == text
    # The files left out: named in the notice at the end and in the details; counted by
    # place on stderr, in one short line (a list of every name is a wall of text there).
    notice = rest.removesuffix(END)
    assert rest.endswith(END) and notice.endswith("]\n")
    names = left_out_in(notice.removesuffix("\n"))
    assert all(named(path, names) for path in omitted)
    assert not any(named(path, names) for path in shown)
    line = next(line for line in stderr_lines(result) if "left out by the budget" in line)
    assert line.startswith(
        f"readmany: left out by the budget ({len(omitted)} of {len(everything)}): "
    )
    assert len(line) < 400 and line.endswith(
        "; all named in --json details.packing.omittedPaths; --tree marks them"
    )
    places = re.findall(r"(?:^|, )([^ ,]+/) \((\d+) files?\)", line.split("): ", 1)[1])
    for place, files in places:
        assert int(files) == sum(path.startswith(place) for path in omitted)
    assert places
    # As many whole files as fit: none left out would fit in the room that is left (the
    # plan also kept the final newline's token).
    room = planned - report["estimatedTokens"]
    for path in omitted:
        assert framing_for("text").tokens(path, (repo_tree / path).read_text(), 1) > room - 1


def test_smallest_first_fits_more_whole_files_keeps_output_order_and_cuts_one(
    tmp_path: Path,
) -> None:
    make(tmp_path, {"a.txt": lines_of("a line", 40), "b.txt": "b\n", "c.txt": "c\n"})
    result = run_readmany(["glob", ".", "--order", "smallest", "--max-bytes", "300"], cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.decode() == (
        f"--- a.txt ---\n\n{lines_of('a line', 16)}"
        "[Showing lines 1-16 of 40. Continue with: readmany many a.txt:17]\n\n"
        "--- b.txt ---\n\nb\n\n\n--- c.txt ---\n\nc\n\n\n" + END + "\n"
    )
    assert len(result.stdout) - 1 <= 300
    assert stderr_lines(result) == ["readmany: a.txt: lines 1-16 of 40 shown, cut by the budget"]
    report = details(
        run_readmany(
            ["glob", ".", "--order", "smallest", "--max-bytes", "300", "--json"], cwd=tmp_path
        )
    )
    assert report["packing"] == {
        "strategy": "smallest-first",
        "switchedForCoverage": True,
        "fullIncludedCount": 2,
        "fullIncludedSuccessCount": 2,
        "partialIncludedPath": "a.txt",
        "omittedPaths": [],
    }
    assert report["files"] == ["a.txt", "b.txt", "c.txt"]
    # The command the notice names shows the rest.
    rest = run_readmany(["many", "a.txt:17", "--max-lines", "20"], cwd=tmp_path)
    assert b"\na line 17\n" in rest.stdout


def test_in_order_the_first_file_that_does_not_fit_is_cut_and_the_rest_named(
    tmp_path: Path,
) -> None:
    make(tmp_path, {"a.txt": "one\n", "b.txt": lines_of("b", 300), "c.txt": lines_of("c", 300)})
    result = run_readmany(["glob", ".", "--order", "smallest", "--max-bytes", "1k"], cwd=tmp_path)
    assert result.returncode == 0
    text = result.stdout.decode()
    assert len(result.stdout) - 1 <= 1024
    head = text.partition("[Showing lines 1-")[0]
    shown = head.count("\nb ")
    assert text == (
        f"--- a.txt ---\n\none\n\n\n--- b.txt ---\n\n{lines_of('b', shown)}"
        f"[Showing lines 1-{shown} of 300. Continue with: readmany many b.txt:{shown + 1}]\n\n"
        "[Left out by the budget: c.txt. All 3 take --max-bytes 4k.]\n" + END + "\n"
    )
    assert shown > 100  # the cut fills the room
    report = details(
        run_readmany(
            ["glob", ".", "--order", "smallest", "--max-bytes", "1k", "--json"], cwd=tmp_path
        )
    )
    assert report["packing"] == {
        "strategy": "request-order",
        "switchedForCoverage": False,
        "fullIncludedCount": 1,
        "fullIncludedSuccessCount": 1,
        "partialIncludedPath": "b.txt",
        "omittedPaths": ["c.txt"],
    }
    assert stderr_lines(result) == [
        f"readmany: b.txt: lines 1-{shown} of 300 shown, cut by the budget",
        "readmany: left out by the budget (1 of 3): c.txt",
    ]


def test_one_more_line_of_the_cut_file_would_not_have_fit(tmp_path: Path) -> None:
    make(tmp_path, {"b.txt": lines_of("b", 300)})

    def cut_to(count: int) -> str:
        return (
            f"--- b.txt ---\n\n{lines_of('b', count)}[Showing lines 1-{count} of 300. "
            f"Continue with: readmany many b.txt:{count + 1}]\n\n" + END
        )

    for budget in (200, 333, 1000):
        result = run_readmany(["glob", ".", "--max-bytes", str(budget)], cwd=tmp_path)
        shown = result.stdout.decode().count("\nb ")
        assert result.stdout.decode() == cut_to(shown) + "\n"
        assert len(cut_to(shown).encode()) <= budget < len(cut_to(shown + 1).encode())


def test_nothing_fits_names_the_smallest_by_bytes_then_lines(tmp_path: Path) -> None:
    # Without a budget of lines the first pass counts no newlines: the notice still does.
    make(tmp_path, {"a.txt": "x\nx\nx\nx\nx\n", "b.txt": "xxxxxxxxx\n"})  # 10 bytes each
    result = run_readmany(["glob", ".", "--max-bytes", "20"], cwd=tmp_path)
    smallest = frame_separator("b.txt", "xxxxxxxxx\n")
    tokens = math.ceil(framing_for("text").tokens("b.txt", "xxxxxxxxx\n", 2))
    assert stderr_lines(result)[0] == (
        f"readmany: no file fits the budget: the smallest, b.txt, takes {len(smallest)} bytes, "
        f"{smallest.count(chr(10)) + 1} lines (~{tokens} tokens) as framed"
    )


def test_nothing_fits_the_budget(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": lines_of("a", 30), "b.txt": lines_of("b", 30)})
    result = run_readmany(["glob", ".", "--max-bytes", "40"], cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == b""
    smallest = frame_separator("a.txt", lines_of("a", 30))
    size, lines = len(smallest), smallest.count("\n") + 1
    tokens = math.ceil(framing_for("text").tokens("a.txt", lines_of("a", 30), 1))
    assert stderr_lines(result) == [
        f"readmany: no file fits the budget: the smallest, a.txt, takes {size} bytes, "
        f"{lines} lines (~{tokens} tokens) as framed",
        "readmany: left out by the budget (2 of 2): a.txt, b.txt",
    ]
    report = details(run_readmany(["glob", ".", "--max-bytes", "40", "--json"], cwd=tmp_path))
    assert report["files"] == [] and report["bytes"] == 0
    assert report["packing"]["fullIncludedCount"] == 0
    assert report["packing"]["omittedPaths"] == ["a.txt", "b.txt"]
    # With room for the notice alone, the notice is the output.
    roomy = run_readmany(["glob", ".", "--max-bytes", "140"], cwd=tmp_path)
    assert roomy.returncode == 1
    assert roomy.stdout == b"[Left out by the budget: 2 files.]\n"


def test_a_line_budget_counts_every_line_written(tmp_path: Path) -> None:
    make(tmp_path, {f"f{n}.txt": lines_of("x", n) for n in range(1, 9)})
    for limit in (12, 20, 45):
        result = run_readmany(["glob", ".", "--max-lines", str(limit)], cwd=tmp_path)
        assert result.returncode == 0
        assert b"--- f1.txt ---" in result.stdout
        assert result.stdout.count(b"\n") <= limit
    whole = run_readmany(["glob", "."], cwd=tmp_path).stdout
    assert (
        run_readmany(["glob", ".", "--max-lines", str(whole.count(b"\n"))], cwd=tmp_path).stdout
        == whole
    )


def test_a_byte_budget_counts_the_last_newline_too(tmp_path: Path) -> None:
    # The output is the content and the newline that ends it: at most the budget, in all.
    make(tmp_path, {"long.md": lines_of("a line of text", 400), "b.py": "x = 1\n"})
    whole = run_readmany(["glob", "."], cwd=tmp_path).stdout
    sizes = set()
    for limit in [*range(300, 340), *range(len(whole) - 40, len(whole) + 2)]:
        result = run_readmany(["glob", ".", "--max-bytes", str(limit), "-q"], cwd=tmp_path)
        assert result.returncode == 0
        assert len(result.stdout) <= limit, limit
        sizes.add(len(result.stdout))
    assert len(whole) in sizes  # the whole output at its own size
    assert max(sizes - {len(whole)}) >= len(whole) - 100  # a cut fills what is left


def test_a_directory_left_out_whole_is_named_once_and_siblings_together(
    tmp_path: Path,
) -> None:
    # Lines longer than the room cannot be cut: these files are shown whole or not at all.
    files = {
        "a.txt": "a\n",
        "docs/x.md": "x" * 3000 + "\n",
        "docs/y.md": "y" * 3000 + "\n",
        "src/p.py": "p" * 600 + "\n",
        "src/q.py": "q" * 700 + "\n",
        "src/r.py": "r\n",
    }
    make(tmp_path, files)
    result = run_readmany(["glob", ".", "--max-bytes", "400"], cwd=tmp_path)
    assert result.stdout.decode() == (
        "--- a.txt ---\n\na\n\n\n--- src/r.py ---\n\nr\n\n\n"
        "[Left out by the budget: docs/ (2 files), src/{p.py, q.py}. All 6 take --max-bytes 8k.]"
        "\n" + END + "\n"
    )
    assert stderr_lines(result) == [
        "readmany: left out by the budget (4 of 6): docs/ (2 files), src/{p.py, q.py}"
    ]


def test_the_budget_options_are_refused_with_compat_and_checked(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "a\n"})
    cases = {
        ("--compat", "--max-tokens", "10"): "--max-tokens is not part of --compat",
        ("--compat", "--max-bytes", "10"): "--max-bytes is not part of --compat",
        ("--compat", "--max-lines", "10"): "--max-lines is not part of --compat",
        ("--compat", "--stats"): "--stats is not part of --compat",
        ("--compat", "--tree"): "--tree is not part of --compat",
        ("--compat", "--format", "xml"): "--format is not part of --compat",
        ("--compat", "-n"): "-n is not part of --compat",
        ("--format", "yaml"): "--format 'yaml': give text, markdown or xml",
        ("--stats", "--tree"): "--stats draws a tree of its own: drop --tree",
        ("--max-tokens", "10q"): "--max-tokens '10q': give a whole number, optionally with k",
    }
    for args, message in cases.items():
        result = run_readmany(["glob", "a.txt", *args], cwd=tmp_path)
        assert result.returncode == 2, args
        assert result.stdout == b""
        lines = stderr_lines(result)
        assert len(lines) == 1 and lines[0].startswith(f"readmany: {message}"), (args, lines)


# --- --stats -------------------------------------------------------------------------------


STATS_FILES: dict[str, str | bytes] = {
    "README.md": "# Title\n\nSome words here.\n",
    "src/app.py": "def main():\n    return 1\n",
    "src/util/text.py": lines_of("x =", 40),
    "logo.png": b"\x89PNG\r\n\x1a\n" + b"\0" * 40,
    "data.dat": b"\0\1\2\3" * 10,
}


def cost(path: str, data: str | bytes) -> StatsEntry:
    """What --stats says a file costs: its bytes and lines as stored, its tokens estimated."""
    raw = data.encode() if isinstance(data, str) else data
    measured = measure_for_stats([raw], len(raw))
    return StatsEntry(path, measured.bytes, measured.lines, measured.tokens)


def test_stats_shows_what_each_file_and_directory_costs(tmp_path: Path) -> None:
    make(tmp_path, STATS_FILES)
    result = run_readmany(["glob", ".", "--stats"], cwd=tmp_path)
    assert result.returncode == 0
    shown = ("README.md", "src/app.py", "src/util/text.py")
    expected = stats_text(build_stats([cost(path, STATS_FILES[path]) for path in shown]))
    assert result.stdout.decode() == expected
    header, *rows = expected.splitlines()
    assert [row[header.index("path") :] for row in rows] == [
        ". (3 files)",
        "├── src/",
        "│   ├── util/",
        "│   │   └── text.py",
        "│   └── app.py",
        "└── README.md",
    ]
    # Skipped files are not rows: said on stderr, as glob says them.
    assert any("binary file" in line for line in stderr_lines(result))
    assert any("asset not requested" in line for line in stderr_lines(result))


def test_stats_text_exactly(tmp_path: Path) -> None:
    files = {"a/x.txt": lines_of("word", 20), "b.txt": "tiny\n"}
    make(tmp_path, files)
    result = run_readmany(["glob", ".", "--stats"], cwd=tmp_path)
    tx, tb = cost("", files["a/x.txt"]).tokens, cost("", files["b.txt"]).tokens
    sizes = ("~" + f"{tx + tb:,}", "~" + f"{tx:,}", "~" + f"{tb:,}")
    width = max(len("tokens"), *map(len, sizes))
    assert result.stdout.decode() == (
        f" size  lines  {'tokens':>{width}}  path\n"
        f"156 B     21  {sizes[0]:>{width}}  . (2 files)\n"
        f"151 B     20  {sizes[1]:>{width}}  ├── a/\n"
        f"151 B     20  {sizes[1]:>{width}}  │   └── x.txt\n"
        f"  5 B      1  {sizes[2]:>{width}}  └── b.txt\n"
    )


def test_stats_as_json_and_marked_by_a_budget(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "a/x.txt": lines_of("word", 20),
        "b.txt": "tiny\n",
        "c.txt": lines_of("c", 90),
        "d.txt": lines_of("d", 90),
    }
    make(tmp_path, files)
    result = run_readmany(
        ["glob", ".", "--order", "smallest", "--stats", "--max-bytes", "400", "--json"],
        cwd=tmp_path,
    )
    assert result.returncode == 0
    report = details(result)
    root = build_stats([cost(path, data) for path, data in files.items()], {"d.txt"}, "c.txt")
    assert report["stats"] == stats_json(root)
    assert report["packing"] == {
        "strategy": "request-order",
        "switchedForCoverage": False,
        "fullIncludedCount": 2,
        "fullIncludedSuccessCount": 2,
        "partialIncludedPath": "c.txt",
        "omittedPaths": ["d.txt"],
    }
    text = content(result)
    assert text + "\n" == stats_text(root)
    assert text.splitlines()[1].endswith(". (4 files)  [1 of 4 files omitted, 1 cut]")
    plain = run_readmany(
        ["glob", ".", "--order", "smallest", "--stats", "--max-bytes", "400"], cwd=tmp_path
    )
    assert plain.stdout.decode() == text + "\n"
    # The marks are the plan the same budget writes; stderr says what the dump would.
    written = run_readmany(
        ["glob", ".", "--order", "smallest", "--max-bytes", "400", "--json"], cwd=tmp_path
    )
    assert details(written)["packing"] == report["packing"]
    said = plain.stderr.decode().splitlines()
    assert len(said) == 2 and said[0].startswith("readmany: c.txt: its first ")
    assert said[0].endswith(" lines would be shown, cut by the budget")
    all_take = said[1].removeprefix("readmany: all 4 files whole take ")
    assert all_take.startswith("--max-bytes ")
    whole = run_readmany(["glob", ".", *all_take.split()], cwd=tmp_path)
    assert whole.returncode == 0 and whole.stderr == b""  # that budget shows every file


@pytest.mark.parametrize("processes", ["1", "2"])
@pytest.mark.parametrize("budget", [[], ["--max-tokens", "40"], ["--max-bytes", "1k"]])
def test_stats_measures_bytes_as_stored_without_decoding(
    tmp_path: Path, processes: str, budget: list[str]
) -> None:
    # With a budget the texts are read to be planned, and measured as they are read: the
    # numbers are those of --stats alone, of the bytes as stored.
    files: dict[str, str | bytes] = {
        "bom.txt": b"\xef\xbb\xbfhi\n",
        "latin.txt": b"caf\xe9\nna\xefve\n",
        "utf16.txt": "hé\n".encode("utf-16"),
        "crlf.txt": b"a\r\nb\r\n",
        "last.txt": b"no newline",
        "empty.txt": b"",
        "plain.py": lines_of("value = compute(42)", 30).encode(),
        "icon.svg": b"<svg><rect/></svg>\n",
    }
    make(tmp_path, files)
    env = {**os.environ, "READMANY_PROCESSES": processes}
    report = details(
        run_readmany(["glob", ".", "--stats", "--json", *budget], cwd=tmp_path, env=env)
    )
    rows = {child["path"]: child for child in report["stats"]["children"]}
    for name, data in files.items():
        assert isinstance(data, bytes)
        lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        assert (rows[name]["bytes"], rows[name]["lines"]) == (len(data), lines), name
        stored = measure_for_stats([data], len(data))
        assert rows[name]["estimatedTokens"] == stored.tokens, name
    assert rows["empty.txt"]["estimatedTokens"] == 0


def test_stats_of_nothing_is_exit_1(tmp_path: Path) -> None:
    make(tmp_path, {"data.dat": b"\0" * 10})
    result = run_readmany(["glob", ".", "--stats"], cwd=tmp_path)
    assert result.returncode == 1
    assert b"no file was read" in result.stderr


# --- --tree, --format, -n ------------------------------------------------------------------


TREE_FILES = {
    "src/app.py": 'print("hi")\n',
    "src/util/text.py": "x = 1\ny = 2",
    "README.md": "# R\n",
}
TREE = ".\n├── README.md\n└── src/\n    ├── app.py\n    └── util/\n        └── text.py\n"


def test_tree_in_text(tmp_path: Path) -> None:
    make(tmp_path, TREE_FILES)
    result = run_readmany(["glob", ".", "--tree"], cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.decode() == (
        TREE + '\n--- README.md ---\n\n# R\n\n\n--- src/app.py ---\n\nprint("hi")\n\n\n'
        "--- src/util/text.py ---\n\nx = 1\ny = 2\n\n" + END + "\n"
    )


def test_tree_in_markdown(tmp_path: Path) -> None:
    make(tmp_path, TREE_FILES)
    result = run_readmany(["glob", ".", "--tree", "--format", "markdown"], cwd=tmp_path)
    assert result.stdout.decode() == (
        f"# Directory tree\n\n```\n{TREE}```\n\n## README.md\n\n```markdown\n# R\n```\n\n"
        '## src/app.py\n\n```python\nprint("hi")\n```\n\n'
        "## src/util/text.py\n\n```python\nx = 1\ny = 2\n```\n\\ No newline at end of file\n"
    )
    assert parse_markdown_tree(result.stdout.decode()) == TREE


def test_tree_in_xml(tmp_path: Path) -> None:
    make(tmp_path, TREE_FILES)
    result = run_readmany(["glob", ".", "--tree", "--format", "xml"], cwd=tmp_path)
    text = result.stdout.decode()
    assert text.startswith(f"<documents>\n<directory_tree>{TREE}</directory_tree>\n")
    assert parse_xml_tree(text) == TREE
    assert ElementTree.fromstring(text).find("directory_tree").text == TREE  # type: ignore[union-attr]


MARKED_TREE = ".\n├── a.txt\n├── big/ [left out: 1 file]\n└── c/\n    └── d.txt [cut]\n"


def test_tree_with_a_budget_lists_the_whole_selection_marked(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "a\n", "big/b.txt": "b" * 2000 + "\n", "c/d.txt": lines_of("d", 90)})
    result = run_readmany(["glob", ".", "--tree", "--max-bytes", "400"], cwd=tmp_path)
    text = result.stdout.decode()
    assert len(result.stdout) - 1 <= 400
    # big/b.txt is left out (its one line is longer than the room); c/d.txt is cut: both
    # are in the tree, marked (big/ holds nothing else: one line).
    assert text.startswith(MARKED_TREE + "\n--- a.txt ---\n\na\n")
    assert "Showing lines 1-" in text and "[Left out by the budget: big/b.txt." in text
    roomy = run_readmany(["glob", ".", "--tree", "--max-bytes", "4k"], cwd=tmp_path)
    assert roomy.stdout.decode().startswith(render_tree(["a.txt", "big/b.txt", "c/d.txt"]))


@pytest.mark.parametrize("form", ["markdown", "xml"])
def test_the_marked_tree_in_markdown_and_xml_and_json(tmp_path: Path, form: str) -> None:
    make(tmp_path, {"a.txt": "a\n", "big/b.txt": "b" * 2000 + "\n", "c/d.txt": lines_of("d", 90)})
    args = ["glob", ".", "--tree", "--max-bytes", "600", "--format", form, "-q"]
    text = run_readmany(args, cwd=tmp_path).stdout.decode()
    parse_tree = parse_markdown_tree if form == "markdown" else parse_xml_tree
    assert parse_tree(text) == MARKED_TREE
    said = details(run_readmany([*args, "--json"], cwd=tmp_path))
    assert said["tree"] == {
        "paths": ["a.txt", "big/b.txt", "c/d.txt"],
        "marks": {"big/b.txt": "left out", "c/d.txt": "cut"},
    }
    # without --tree, no tree in the details
    plain = details(run_readmany([a for a in args if a != "--tree"] + ["--json"], cwd=tmp_path))
    assert "tree" not in plain


def test_a_tree_names_the_files_left_out_within_its_share_else_folds_them(tmp_path: Path) -> None:
    files = {"src/main.py": lines_of("m", 40), "data/keep.txt": "k\n"}
    files.update({f"data/case_{i:03}.txt": f"case {i}\n" * 20 for i in range(200)})
    make(tmp_path, files)
    args = ["glob", ".", "--tree", "--prefer", "src/**", "--prefer", "data/keep.txt", "-q"]
    # A large budget: each file left out is named in the tree, marked.
    roomy = run_readmany([*args, "--max-bytes", "42k"], cwd=tmp_path).stdout.decode()
    tree = roomy.split("\n\n", 1)[0]
    named = re.findall(r"case_\d{3}\.txt \[left out\]", tree)
    assert named and "[left out:" not in tree
    assert len(re.findall(r"case_\d{3}\.txt", tree)) == 200  # every file, shown or not
    # A small one: naming the ~190 left out would take more than 5% of it: one line.
    small = run_readmany([*args, "--max-bytes", "4k"], cwd=tmp_path).stdout.decode()
    tree = small.split("\n\n", 1)[0]
    assert "[left out]" not in tree
    assert re.search(r"\n│   └── \[left out: \d+ files\]\n", tree)
    assert "keep.txt" in tree and "main.py" in tree


def test_line_numbers_in_text(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": lines_of("x", 10), "b.txt": "last"})
    result = run_readmany(["glob", ".", "-n"], cwd=tmp_path)
    numbered = "".join(f"{n:>2}  x {n}\n" for n in range(1, 11))
    assert result.stdout.decode() == (
        f"--- a.txt ---\n\n{numbered}\n\n--- b.txt ---\n\n1  last\n\n" + END + "\n"
    )


HOSTILE = [
    "</document_content>\n</document>\n</documents>\n",
    "a ]]> b <![CDATA[ c &amp; d < e\n",
    "```\n````python\n``\n## a.txt\n# Directory tree\n",
    "\\ No newline at end of file\n",
    "carriage\r\nreturn\rmix\n",
    "tab\tand \x01 control \x1b[31m\n",
    "no final newline",
    "",
    "[Left out by the budget: x.]",
    "--- a.txt ---\n\n--- End of content ---\n",
    "😀 é 中 \u2028 end\n",
]


@pytest.mark.parametrize("line_numbers", [False, True])
def test_hostile_files_parse_back_from_markdown_and_xml(tmp_path: Path, line_numbers: bool) -> None:
    files = {f"f{n:02}.txt": text for n, text in enumerate(HOSTILE)}
    make(tmp_path, files)
    flags = ["-n"] if line_numbers else []
    markdown = run_readmany(["glob", ".", "--format", "markdown", *flags], cwd=tmp_path)
    assert markdown.returncode == 0, markdown.stderr
    assert parse_markdown(markdown.stdout.decode(), line_numbers=line_numbers) == list(
        files.items()
    )
    xml = run_readmany(["glob", ".", "--format", "xml", *flags], cwd=tmp_path)
    assert parse_xml(xml.stdout.decode(), line_numbers=line_numbers) == list(files.items())
    root = ElementTree.fromstring(xml.stdout.decode())  # well-formed: no file ended early
    documents = root.findall("document")
    assert [d.findtext("source") for d in documents] == list(files)
    for document, body in zip(documents, files.values(), strict=True):
        parsed = "".join(document.find("document_content").itertext())  # type: ignore[union-attr]
        shown = strip_line_numbers(parsed) if line_numbers else parsed
        # An XML parser reads <char code> elements as elements: compare the rest.
        assert shown == re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f]", "", body)


names = st.sampled_from(["a.txt", "b c.md", "d/e.py", "f/g/h.json", 'quote"d.txt', "é.txt"])
bodies = st.lists(
    st.one_of(
        # No control characters of its own: a file of them is binary, and not shown.
        st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=12),
        st.sampled_from(HOSTILE),
    ),
    max_size=5,
).map("\n".join)


@pytest.mark.slow
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    files=st.dictionaries(names, bodies, min_size=1, max_size=4),
    form=st.sampled_from(["text", "markdown", "xml"]),
    line_numbers=st.booleans(),
)
def test_every_format_parses_back_to_the_exact_files(
    tmp_path: Path, files: dict[str, str], form: str, line_numbers: bool
) -> None:
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode())
    flags = ["--format", form, *(["-n"] if line_numbers else []), "--no-default-excludes"]
    result = run_readmany(["glob", ".", "--json", "-q", *flags], cwd=root)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    text = report["content"]
    if form == "markdown":
        shown = parse_markdown(text, line_numbers=line_numbers)
    elif form == "xml":
        shown = parse_xml(text, line_numbers=line_numbers)
    else:
        found, rest = sections(text, report["details"]["read"])
        assert rest == END
        shown = [
            (
                json.loads(p) if p.startswith('"') else p,
                strip_line_numbers(b) if line_numbers else b,
            )
            for p, b in found
        ]
    assert dict(shown) == files
    assert [path for path, _ in shown] == report["details"]["files"]


@pytest.mark.parametrize("form", ["markdown", "xml"])
def test_a_budget_in_markdown_and_xml_parses_back(tmp_path: Path, form: str) -> None:
    files = {
        "a.txt": "a </document_content> ``` ]]>\n",
        "b.txt": lines_of("b", 300),
        "c.txt": lines_of("c", 300),
    }
    make(tmp_path, files)
    result = run_readmany(
        ["glob", ".", "--format", form, "-n", "--tree", "--max-bytes", "2k"], cwd=tmp_path
    )
    assert result.returncode == 0
    assert len(result.stdout) - 1 <= 2048
    text = result.stdout.decode()
    parse = parse_markdown if form == "markdown" else parse_xml
    shown = parse(text, line_numbers=True)
    assert [path for path, _ in shown] == ["a.txt", "b.txt"]
    assert shown[0][1] == files["a.txt"]
    assert files["b.txt"].startswith(shown[1][1]) and shown[1][1] != files["b.txt"]
    assert "[Showing lines 1-" in text
    assert "[Left out by the budget: c.txt." in text
    if form == "xml":
        ElementTree.fromstring(text)
        assert text.endswith("]</note>\n</documents>\n")
    else:
        marks = {"b.txt": "cut", "c.txt": "left out"}
        assert parse_markdown_tree(text) == render_tree(["a.txt", "b.txt", "c.txt"], ".", marks)


# --- the two passes ------------------------------------------------------------------------


def git(*args: str, cwd: Path) -> None:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr


def test_a_budget_over_staged_files_shows_them_as_staged(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "staged a\n", "b.txt": lines_of("staged b", 100)})
    git("init", "-q", cwd=tmp_path)
    git("add", ".", cwd=tmp_path)
    make(tmp_path, {"a.txt": "work tree a, longer than what is staged\n", "b.txt": "gone\n"})
    result = run_readmany(["glob", "--staged", "--max-bytes", "500"], cwd=tmp_path)
    text = result.stdout.decode()
    assert text.startswith("--- a.txt ---\n\nstaged a\n\n\n--- b.txt ---\n\nstaged b 1\n")
    assert "[Showing lines 1-" in text and "work tree" not in text
    assert len(result.stdout) - 1 <= 500


def _planned(tmp_path: Path) -> tuple[Any, Any, Any, io.BytesIO]:
    """A budgeted run over a.txt, b.txt and c.txt, between its two passes."""
    from readmany.commands.glob_plan import _Run
    from readmany.commands.glob_request import lookahead_source
    from readmany.emit.sink import Sink
    from readmany.faces import Face
    from readmany.request.glob import GlobRequest
    from readmany.select.lookahead import InProcess

    make(tmp_path, {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
    request = GlobRequest(patterns=(".",), root=str(tmp_path), face=Face.people(), max_bytes=300)
    stream = io.BytesIO()
    sink = Sink(stream, json_mode=False)
    selection = InProcess(lookahead_source(request))
    run = _Run(request, sink, selection)
    report = run.report
    run.gather(selection, sizes=True, stats=False)
    packing, start, end = run.plan()
    assert packing.omitted == ()
    return run, (packing, start, end), report, stream


def test_a_file_read_again_that_grew_between_the_passes_is_left_out_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import readmany.read.again as again

    monkeypatch.setattr(again, "KEEP_BYTES", 0)  # no text kept: each is read again
    run, plan, report, stream = _planned(tmp_path)
    assert run.texts.kept == {}
    (tmp_path / "b.txt").write_text("b has grown since it was measured\n")
    run.write(*plan)
    assert stream.getvalue().decode() == (
        "--- a.txt ---\n\na\n\n\n--- c.txt ---\n\nc\n\n\n[Left out by the budget: b.txt.]\n" + END
    )
    assert report.budget_notes == ["left out by the budget (1 of 3): b.txt"]


def test_a_text_kept_from_the_first_pass_is_written_as_it_was_measured(tmp_path: Path) -> None:
    run, plan, report, stream = _planned(tmp_path)
    (tmp_path / "b.txt").write_text("b has grown since it was measured\n")
    (tmp_path / "c.txt").unlink()
    run.write(*plan)
    assert stream.getvalue().decode() == (
        "--- a.txt ---\n\na\n\n\n--- b.txt ---\n\nb\n\n\n--- c.txt ---\n\nc\n\n\n" + END
    )
    assert report.budget_notes == []


@pytest.mark.parametrize("max_bytes", [1, 150, 400, 10_000])
def test_the_kept_texts_are_the_smallest_within_the_budget(tmp_path: Path, max_bytes: int) -> None:
    from readmany.commands.glob_plan import _Run
    from readmany.commands.glob_request import lookahead_source
    from readmany.emit.sink import Sink
    from readmany.faces import Face
    from readmany.request.glob import GlobRequest
    from readmany.select.lookahead import InProcess

    # Sizes out of order, so that the kept ones are not simply the first.
    make(tmp_path, {f"f{i}.txt": "x" * (40 * ((i * 5) % 8 + 1)) + "\n" for i in range(8)})
    request = GlobRequest(
        patterns=(".",), root=str(tmp_path), face=Face.people(), max_bytes=max_bytes
    )
    selection = InProcess(lookahead_source(request))
    run = _Run(request, Sink(io.BytesIO(), json_mode=False), selection)
    run.gather(selection, sizes=True, stats=False)
    kept = set(run.texts.kept)
    sizes = {entry.position: entry.block.bytes for entry in run.entries}
    assert sum(sizes[p] for p in kept) <= max_bytes
    left = [sizes[p] for p in sizes if p not in kept]
    if kept and left:  # the smallest are kept: none left out is smaller than one kept
        assert max(sizes[p] for p in kept) <= min(left)
    # As much as fits is kept: the smallest left out would not have fitted beside them.
    assert not left or sum(sizes[p] for p in kept) + min(left) > max_bytes
    assert (len(kept) == 8) is (max_bytes == 10_000)


def test_stats_with_a_budget_keeps_no_text(tmp_path: Path) -> None:
    from readmany.commands.glob_plan import _Run
    from readmany.commands.glob_request import lookahead_source
    from readmany.emit.sink import Sink
    from readmany.faces import Face
    from readmany.request.glob import GlobRequest
    from readmany.select.lookahead import InProcess

    make(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"})
    request = GlobRequest(
        patterns=(".",), root=str(tmp_path), face=Face.people(), max_bytes=1000, stats=True
    )
    selection = InProcess(lookahead_source(request))
    run = _Run(request, Sink(io.BytesIO(), json_mode=False), selection)
    run.gather(selection, sizes=True, stats=True)
    assert len(run.entries) == 2 and run.texts.kept == {}


def test_stats_of_staged_files_counts_what_is_staged(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "one\ntwo\n"})
    git("init", "-q", cwd=tmp_path)
    git("add", ".", cwd=tmp_path)
    make(tmp_path, {"a.txt": "changed in the work tree, not staged\n"})
    report = details(run_readmany(["glob", "--staged", "--stats", "--json"], cwd=tmp_path))
    (row,) = report["stats"]["children"]
    assert (row["path"], row["bytes"], row["lines"]) == ("a.txt", 8, 2)


@pytest.mark.slow
@settings(max_examples=scaled(200), deadline=None)
@given(data=st.binary(max_size=5000), chunk=st.integers(min_value=1, max_value=3000))
def test_stats_measures_a_file_read_whole_as_in_chunks(data: bytes, chunk: int) -> None:
    from readmany.read.measure import STATS_SAMPLE_BYTES, measure_chunks

    pieces = [data[i : i + chunk] for i in range(0, len(data), chunk)]
    expected = measure_chunks(pieces, len(data), STATS_SAMPLE_BYTES)
    assert measure_for_stats([data], len(data)) == expected
    assert measure_for_stats(pieces, len(data)) == expected


@pytest.mark.slow
@settings(max_examples=scaled(300), deadline=None)
@given(
    path=st.sampled_from(["a.txt", "é/b.md", "new\nline", "End of content", '"q.txt']),
    body=bodies,
    truncated=st.booleans(),
    note=st.sampled_from(["", "[Showing lines 1-2 of 9. Continue with: readmany many a:3]"]),
    form=st.sampled_from(["text", "markdown", "xml"]),
    line_numbers=st.booleans(),
)
def test_a_block_size_is_the_size_of_the_block(
    path: str, body: str, truncated: bool, note: str, form: str, line_numbers: bool
) -> None:
    from readmany.frame.formats import framing_for, measured

    framing = framing_for(form, line_numbers=line_numbers)
    block = framing.block(path, body, 7, truncated=truncated, note=note)
    size = framing.measure(path, body, 7, truncated=truncated, note=note, tokens=True)
    assert size == (*measured(block), framing.tokens(path, body, 7, truncated=truncated, note=note))
    assert framing.measure(path, body, 7, truncated=truncated, note=note, lines=False)[1:] == (0, 0)
    assert measured(block) == (len(block.encode("utf-8", "surrogateescape")), block.count("\n"))


@pytest.mark.slow
@settings(max_examples=scaled(400), deadline=None)
@given(
    names=st.lists(
        st.text(alphabet=st.sampled_from([*'ab .{},"[]é\x07\n-', "\u2028"]), min_size=1),
        min_size=1,
        max_size=4,
    )
)
def test_names_seen_plain_at_once_are_those_a_group_shows_as_they_are(names: list[str]) -> None:
    from readmany.frame.leftout import _BRACES, _name, _plain_names

    names = [name.replace("/", "") or "x" for name in names]
    one_by_one = all(_name(name) == name and not _BRACES.intersection(name) for name in names)
    if _plain_names("/".join(names)):  # the fast judgement may refuse more, never less
        assert one_by_one, names
    if all(name.isalnum() and name.isascii() for name in names):
        assert _plain_names("/".join(names))


def test_a_budget_groups_quoted_and_plain_names_alike(tmp_path: Path) -> None:
    make(tmp_path, {"d/a.txt": "a" * 900, "d/b c.txt": "b" * 900, "d/[x].txt": "x" * 900})
    make(tmp_path, {"d/s.txt": "s\n", "e/a.txt": "a" * 900, "e/b.txt": "b" * 900})
    result = run_readmany(["glob", ".", "--max-bytes", "800"], cwd=tmp_path)
    assert (
        '[Left out by the budget: d/{"[x].txt", a.txt, b c.txt}, e/ (2 files).'
        in result.stdout.decode()
    )


def test_a_token_budget_reads_no_file_again_that_cannot_be_cut_into_the_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Files whose first line is long: once one is shown, what is left cannot take the first
    # line of another, which is known without reading any of them again.
    from readmany.commands import glob_plan
    from readmany.emit.sink import Sink
    from readmany.faces import Face
    from readmany.read.again import Texts
    from readmany.request.glob import GlobRequest

    def body(n: int) -> str:
        return f"{'long words here ' * 40}{n}\n" + lines_of(f"word{n}", 5)

    make(tmp_path, {f"f{n:02d}.txt": body(n) for n in range(30)})
    read_again: list[int] = []
    text_of = Texts.text_of

    def counted(texts: Texts, position: int) -> object:
        read_again.append(position)
        return text_of(texts, position)

    monkeypatch.setattr(Texts, "text_of", counted)
    one = framing_for("text").tokens("f00.txt", body(0), 1)
    request = GlobRequest(
        patterns=(".",), root=str(tmp_path), face=Face.people(), max_tokens=int(one * 1.5)
    )
    stream = io.BytesIO()
    outcome = glob_plan.run_planned(request, Sink(stream, json_mode=False))
    assert outcome.exit_code == 0, outcome.problems
    assert stream.getvalue().decode().count("--- f") == 1  # one whole, none cut
    assert read_again == []


def test_a_reader_that_weighs_gives_each_text_the_weight_of_what_it_shows(
    tmp_path: Path,
) -> None:
    # A budget of tokens has each process weigh what it reads: from the bytes of a text
    # shown as it is stored, from the text itself where it is shown otherwise (Latin-1
    # shown as UTF-8 with U+FFFD); the helper sends the weight with the text.
    from readmany.commands.glob_request import candidate_reader
    from readmany.faces import Face
    from readmany.read import transfer
    from readmany.read.glob_file import TextFile
    from readmany.request.glob import GlobRequest
    from readmany.select.candidates import Candidate
    from readmany.tokens import text_weight

    make(tmp_path, {"plain.py": "def f(x):\n    return x * 2\n" * 40})
    (tmp_path / "latin.txt").write_bytes("café crème\n".encode("latin-1") * 30)
    request = GlobRequest(patterns=("**",), root=str(tmp_path), face=Face.people(), max_tokens=9)
    reader = candidate_reader(request)
    assert reader.weigh
    for name in ("plain.py", "latin.txt"):
        result = reader(Candidate(name, str(tmp_path / name), True), name)
        assert isinstance(result, TextFile)
        assert result.weight == pytest.approx(text_weight(result.text.body), rel=1e-9)
        sent = transfer.unpack_result(transfer.pack_result(result))
        assert sent == result
    unweighed = candidate_reader(GlobRequest(patterns=("**",), root=str(tmp_path)))
    assert not unweighed.weigh
    result = unweighed(Candidate("plain.py", str(tmp_path / "plain.py"), True), "plain.py")
    assert isinstance(result, TextFile) and result.weight < 0


def test_a_file_cut_to_fill_a_budget_of_tokens_is_weighed_on_more_of_it(tmp_path: Path) -> None:
    # The cut file fills what is left of the budget: its head is weighed on up to 8 KiB,
    # not 512 bytes, in the plan and in what --json says alike.
    from readmany.tokens import SAMPLE_BYTES, text_weight

    text = "".join(f"value_{n} = compute({n}, name='item {n}')  # step {n}\n" for n in range(3000))
    make(tmp_path, {"big.py": text})
    result = run_readmany(["glob", ".", "--max-tokens", "5000", "--json"], cwd=tmp_path)
    report = details(result)
    (record,) = report["read"]
    assert record["truncated"] is True
    head = content(result).split("--- big.py ---\n\n", 1)[1].split("\n[Showing lines", 1)[0] + "\n"
    shown = int(re.findall(r"Showing lines 1-(\d+) of 3000", content(result))[0])
    assert head == "".join(text.splitlines(keepends=True)[:shown])
    note = re.findall(r"\[Showing lines[^\]]*\]", content(result))[0]
    frame = framing_for("text").block("big.py", "", 1, note=note)
    expected = text_weight(frame) + text_weight(head, SAMPLE_BYTES)
    assert record["estimatedTokens"] == round(expected)
    assert 4500 <= report["estimatedTokens"] <= 5000


def test_a_cut_by_tokens_searches_a_long_file_only_as_far_as_the_room_reaches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readmany.commands import glob_plan
    from readmany.emit.sink import Sink
    from readmany.faces import Face
    from readmany.frame import sectioncut
    from readmany.request.glob import GlobRequest

    make(tmp_path, {"big.txt": lines_of("a line of some words", 50_000)})
    searched: list[int] = []
    line_ends = sectioncut.line_ends

    def recorded(body: str, max_bytes: int) -> tuple[list[int], list[int]]:
        searched.append(max_bytes)
        return line_ends(body, max_bytes)

    monkeypatch.setattr(sectioncut, "line_ends", recorded)
    request = GlobRequest(patterns=(".",), root=str(tmp_path), face=Face.people(), max_tokens=500)
    stream = io.BytesIO()
    glob_plan.run_planned(request, Sink(stream, json_mode=False))
    assert "[Showing lines 1-" in stream.getvalue().decode()
    # as far as the budget planned (in estimated tokens, which can pass the 500 a little
    # when the text, counted by its pieces, is known to hold fewer) reaches
    assert searched and max(searched) <= 500 * 1.1 * sectioncut.CUT_BYTES_PER_TOKEN


@pytest.mark.parametrize(
    "options", [["--tree"], ["--format", "xml", "--tree"], ["--format", "markdown", "-n"]]
)
def test_what_json_says_of_a_token_budget_is_within_it(repo_tree: Path, options: list[str]) -> None:
    # The sink weighs what it writes as the plan weighed it: the tree, each block's frame
    # and text, the closing notice, apart.
    result = run_readmany(
        ["glob", ".", "--max-tokens", "20000", "--json", "-q", *options], cwd=repo_tree
    )
    said = details(result)
    planned = said["tokenizer"]["planned"]  # what the estimate was planned for
    # (to a percent or two: the plan sizes a cut by counting its lines' pieces and
    # merges, the sink estimates it)
    assert abs(said["estimatedTokens"] - planned) <= planned * 0.02
    assert count(content(result) + "\n", "o200k") == said["tokenizer"]["tokens"] <= 20000


@pytest.mark.slow
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    texts=st.lists(
        st.tuples(
            st.sampled_from(["", "d/", "d/e f/"]),
            st.lists(st.sampled_from([*HOSTILE, "word", "x" * 300, "\r\n", "😀 中"]), max_size=40),
        ),
        min_size=1,
        max_size=6,
    ),
    dimension=st.sampled_from(["--max-bytes", "--max-lines", "--max-tokens"]),
    limit=st.integers(min_value=1, max_value=3000),
    form=st.sampled_from(["text", "markdown", "xml"]),
    extra=st.sampled_from([[], ["-n"], ["--tree"], ["-n", "--tree"]]),
)
def test_any_budget_holds_and_accounts_for_every_file(
    tmp_path_factory: pytest.TempPathFactory,
    texts: list[tuple[str, list[str]]],
    dimension: str,
    limit: int,
    form: str,
    extra: list[str],
) -> None:
    # Hostile texts under any budget, in any format: the output keeps to the budget (bytes
    # and lines as written, tokens as o200k counts them), every file is shown, cut or
    # named as left out, and each file shown whole reads back exactly.
    root = tmp_path_factory.mktemp("budget")
    files = {f"{where}f{n}.txt": "\n".join(lines) for n, (where, lines) in enumerate(texts)}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode())
    args = ["glob", ".", dimension, str(limit), "--format", form, *extra, "-q"]
    result = run_readmany(args, cwd=root)
    assert result.returncode in (0, 1), result.stderr
    out = result.stdout
    if dimension == "--max-bytes":
        assert len(out) <= limit
    if dimension == "--max-lines":
        assert out.count(b"\n") <= limit
    if dimension == "--max-tokens":  # counted for real (o200k, the default with the extra)
        assert count(out.decode(), "o200k") <= limit
    report = details(run_readmany([*args, "--json"], cwd=root))
    packing = report.get("packing", {})
    shown = set(report["files"])
    assert shown | set(packing.get("omittedPaths", [])) == set(files)
    if out and form != "text":
        parse = parse_xml if form == "xml" else parse_markdown
        parsed = dict(parse(out.decode(), line_numbers="-n" in extra))
        for rel in shown - {packing.get("partialIncludedPath")}:
            assert parsed[rel] == files[rel], rel


@pytest.mark.parametrize("pattern", ["nomatch/**", "bin.dat"])
def test_stats_of_nothing_writes_nothing(tmp_path: Path, pattern: str) -> None:
    """No file read: stdout empty, as for every run that reads nothing; exit status 1."""
    (tmp_path / "bin.dat").write_bytes(b"\0\1\2")
    result = run_readmany(["glob", pattern, "--stats"], cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, b"")


def _calls_to_name(rels: list[str | None], omitted: list[int]) -> tuple[str, int]:
    """The stderr line of the files left out, and how many calls (of Python and of C)
    making it took: a count that does not hang on the machine's load."""
    from readmany.frame.leftout import LeftOutNames

    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    paths = [rel if rel is not None else "(diff)" for rel in rels]
    sys.setprofile(count)
    try:
        line = LeftOutNames(rels, paths, lambda rel: rel).line(omitted, len(rels))
    finally:
        sys.setprofile(None)
    return line, calls


@pytest.mark.parametrize(
    ("shape", "most"), [("a file at each level", 5), ("many files at the bottom", 2)]
)
def test_naming_the_files_left_out_costs_what_their_names_hold_not_times_the_depth(
    shape: str, most: int
) -> None:
    # A chain 2,000 directories deep took 12 s of CPU to name (each directory's
    # ancestors made again for each directory below), and 400 files at the bottom of
    # 1,000 took 38 s in all, 11 s now (the places were sought a level at a time, each
    # level over every file).
    def tree(depth: int) -> list[str | None]:
        if shape == "a file at each level":
            return ["/".join(["a"] * level + ["f.py"]) for level in range(depth)]
        return ["/".join(["a"] * depth + [f"f{i:03}.py"]) for i in range(200)]

    shallow, deep = tree(100), tree(400)
    line, calls = _calls_to_name(shallow, list(range(1, len(shallow))))
    deep_line, deep_calls = _calls_to_name(deep, list(range(1, len(deep))))
    assert line.startswith(f"({len(shallow) - 1} of {len(shallow)}): ")
    assert deep_line.startswith(f"({len(deep) - 1} of {len(deep)}): ")
    # Four times as deep: about four times the calls for four times the files (a
    # chain), the same for the same files (at the bottom), where before it was sixteen
    # times and four times.
    assert deep_calls <= most * calls, (deep_calls, calls)


def test_the_stderr_line_names_all_when_short_else_counts_by_place_beneath_one_directory() -> None:
    from readmany.frame.leftout import LeftOutNames

    rels: list[str | None] = [
        "src/app/core.py",
        *(f"src/app/tests/t{i:03}.py" for i in range(60)),
        *(f"src/app/docs/d{i:02}.md" for i in range(20)),
        "src/app/README.md",
        None,
    ]
    paths = [rel if rel is not None else "(diff)" for rel in rels]
    names = LeftOutNames(rels, paths, lambda rel: rel)
    assert names.line([0, 81], 83) == "(2 of 83): src/app/{core.py, README.md}"
    # Whole directories are named short: every name is said.
    assert names.line(list(range(1, 83)), 83) == (
        "(82 of 83): src/app/tests/ (60 files), src/app/docs/ (20 files), src/app/README.md, (diff)"
    )
    omitted = list(range(2, 83))  # one test is shown: the others take 59 names
    kinds = ["test"] * 59 + ["docs"] * 21
    # All beneath src/app/: the places are its directories, most files first.
    assert names.line(omitted, 83, kinds) == (
        "(81 of 83): src/app/tests/ (59 files), src/app/docs/ (20 files), (diff), "
        "src/app/README.md; by kind: 59 test, 21 docs; all named in --json "
        "details.packing.omittedPaths; --tree marks them"
    )
    # With --tree, the output's tree marks them already: the line says so, not "--tree".
    assert names.line(omitted, 83, kinds, tree=True).endswith(
        "; by kind: 59 test, 21 docs; marked in the tree, all named in --json "
        "details.packing.omittedPaths"
    )


@pytest.mark.parametrize("tokenizer", ["estimate", "o200k"])
def test_the_budget_the_closing_notice_names_holds_every_file(
    tmp_path: Path, tokenizer: str
) -> None:
    # The notice says what budget shows all of the selection: given it, nothing is left
    # out or cut. (A plan that cut the last line of a lock file had weighed more, by its
    # cut's notice, than the plan that showed it whole, and was taken.)
    # nine files alike, the lock file ranked last: the first plan, for the most that
    # nine blocks alike are bounded by, falls a line short of all of them
    files = {f"src/mod_{i}.py": f"def f_{i}(x):\n    return x + {i}\n" * 150 for i in range(8)}
    files["uv.lock"] = "".join(
        f'[[package]]\nname = "pkg-{i}"\nversion = "1.{i}.0"\n\n' for i in range(260)
    )
    make(tmp_path, files)
    args = ["glob", ".", "--tokenizer", tokenizer, "-q"]
    small = run_readmany([*args, "--max-tokens", "5k"], cwd=tmp_path).stdout.decode()
    named = re.search(r"All 9 take --max-tokens (\d+)k", small)
    assert named is not None
    whole = run_readmany([*args, "--max-tokens", f"{named[1]}k", "--json"], cwd=tmp_path)
    packing = details(whole)["packing"]
    assert packing["fullIncludedCount"] == 9 and not packing["omittedPaths"]
    assert "partialIncludedPath" not in packing
