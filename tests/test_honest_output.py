"""Honest output, end to end through the installed command: an SVG shown as the text it
is, files that say their size is 0 read to the end, one answer for an empty --stdin list,
continue commands that read only what is left, skips only where a pattern looked, and
an empty file shown as an empty block (issue 25, items 5-10)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import run_readmany

# --- 5: an SVG over 1 MB ---------------------------------------------------------------------


def big_svg() -> str:
    rects = "".join(f'<rect x="{n}" y="1" width="1" height="1"/>\n' for n in range(30000))
    return f'<svg xmlns="http://www.w3.org/2000/svg">\n{rects}</svg>\n'


def test_an_svg_over_1_mb_is_shown_whole_in_the_default_face(tmp_path: Path) -> None:
    text = big_svg()
    assert len(text) > 1024 * 1024
    (tmp_path / "drawing.svg").write_text(text)
    result = run_readmany(["glob", "drawing.svg"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == (
        f"--- drawing.svg ---\n\n{text}\n\n\n--- End of content ---\n"
    )
    report = json.loads(run_readmany(["glob", "drawing.svg", "--json"], cwd=tmp_path).stdout)
    assert report["details"]["read"][0]["truncated"] is False
    assert report["details"]["read"][0]["bytes"] == len(text)


def test_an_svg_over_1_mb_is_cut_by_a_budget_as_any_text(tmp_path: Path) -> None:
    (tmp_path / "drawing.svg").write_text(big_svg())
    result = run_readmany(["glob", "drawing.svg", "--max-lines", "10"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert out.startswith('--- drawing.svg ---\n\n<svg xmlns="http://www.w3.org/2000/svg">\n')
    assert "Continue with: readmany many drawing.svg:" in out
    assert "Cannot display content of SVG" not in out
    assert b"drawing.svg: lines 1-" in result.stderr


def test_compat_keeps_the_references_sentence_for_a_big_svg(tmp_path: Path) -> None:
    (tmp_path / "drawing.svg").write_text(big_svg())
    result = run_readmany(["glob", "drawing.svg", "--compat"], cwd=tmp_path)
    assert result.stdout.decode() == (
        "--- drawing.svg ---\n\n"
        "Cannot display content of SVG file larger than 1MB: drawing.svg\n\n\n"
        "--- End of content ---\n"
    )


# --- 6: files whose size says 0 --------------------------------------------------------------

PROC_VERSION = Path("/proc/version")
needs_proc = pytest.mark.skipif(
    not PROC_VERSION.is_file() or PROC_VERSION.stat().st_size != 0,
    reason="needs a procfs whose files say their size is 0",
)


@needs_proc
def test_many_reads_a_proc_file_to_its_end(tmp_path: Path) -> None:
    held = PROC_VERSION.read_text()
    assert held
    result = run_readmany(["many", str(PROC_VERSION)], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert held in out
    assert "[No text content returned]" not in out
    compat = run_readmany(["many", str(PROC_VERSION), "--compat"], cwd=tmp_path)
    assert held in compat.stdout.decode()


@needs_proc
def test_hashline_reads_a_proc_file_to_its_end(tmp_path: Path) -> None:
    held = PROC_VERSION.read_text()
    result = run_readmany(["hashline", str(PROC_VERSION)], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shown = result.stdout.decode()
    assert held.rstrip("\n") in shown
    assert len(shown.splitlines()) >= 2  # a header and the line, not one empty line


# --- 7: an empty --stdin list ------------------------------------------------------------------


@pytest.mark.parametrize("command", ["many", "glob"])
def test_an_empty_stdin_list_is_one_message_and_exit_1(tmp_path: Path, command: str) -> None:
    for given in (b"", b"\n\n"):
        result = run_readmany([command, "--stdin"], cwd=tmp_path, stdin=given)
        assert (result.returncode, result.stdout, result.stderr) == (
            1,
            b"",
            b"readmany: no file was read: standard input listed no path\n",
        )
    result = run_readmany([command, "--stdin", "--json"], cwd=tmp_path, stdin=b"")
    assert result.returncode == 1
    assert json.loads(result.stdout)["content"] == ""
    # -o keeps the last dump: a run that read nothing writes nothing over it
    (tmp_path / "out.txt").write_text("last\n")
    result = run_readmany([command, "--stdin", "-o", "out.txt"], cwd=tmp_path, stdin=b"")
    assert result.returncode == 1
    assert (tmp_path / "out.txt").read_text() == "last\n"


def test_many_compat_keeps_the_references_usage_error_for_no_files(tmp_path: Path) -> None:
    result = run_readmany(["many", "--stdin", "--compat"], cwd=tmp_path, stdin=b"")
    assert result.returncode == 2
    assert result.stderr == (
        b"readmany: no files given: name 1 to 26 files (files: must NOT have fewer than 1 items)\n"
    )


# --- 8: continue commands --------------------------------------------------------------------


@pytest.fixture
def numbered(tmp_path: Path) -> Path:
    (tmp_path / "long.txt").write_text("".join(f"{n}\n" for n in range(1, 301)))
    (tmp_path / "short.txt").write_text("".join(f"s{n}\n" for n in range(1, 51)))
    return tmp_path


def continue_with(stderr: bytes) -> str:
    line = stderr.decode().splitlines()[-1]
    return line[line.index("continue with: ") + len("continue with: ") :]


def test_a_file_named_twice_is_continued_once(numbered: Path) -> None:
    result = run_readmany(["many", "long.txt", "long.txt", "--max-lines", "100"], cwd=numbered)
    assert result.returncode == 0, result.stderr
    assert continue_with(result.stderr) == "readmany many long.txt:94 --max-lines 100"
    report = json.loads(
        run_readmany(
            ["many", "long.txt", "long.txt", "--max-lines", "100", "--json"], cwd=numbered
        ).stdout
    )
    assert report["details"]["continueWith"] == "readmany many long.txt:94 --max-lines 100"
    assert "long.txt: left out by the budget" in result.stderr.decode()  # still said


def test_a_file_shown_whole_is_not_offered_again(numbered: Path) -> None:
    args = ["many", "short.txt", "long.txt", "short.txt", "--max-lines", "100"]
    result = run_readmany(args, cwd=numbered)
    assert result.returncode == 0, result.stderr
    assert "short.txt: left out by the budget" in result.stderr.decode()
    command = continue_with(result.stderr)
    assert command.startswith("readmany many long.txt:")
    assert "short.txt" not in command
    # Following it reads the rest of long.txt and nothing else.
    rest = run_readmany(command.split()[1:], cwd=numbered)
    assert rest.stdout.startswith(b"@long.txt\n") and b"s1\n" not in rest.stdout


def test_a_window_not_yet_read_is_still_offered(numbered: Path) -> None:
    args = ["many", "long.txt:1:5", "long.txt:200:5", "short.txt", "--max-lines", "12"]
    result = run_readmany(args, cwd=numbered)
    assert "long.txt:200:5" in continue_with(result.stderr)


# --- 9: skips only where the patterns looked ---------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for rel, text in {
        ".vscode/settings.json": "{}\n",
        "node_modules/pad/index.js": "module.exports = 1;\n",
        "src/app.py": "print(1)\n",
        "src/node_modules/x.js": "x\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_a_pattern_that_matches_nothing_names_no_unrelated_directory(project: Path) -> None:
    result = run_readmany(["glob", "**/*.nothing"], cwd=project)
    assert (result.returncode, result.stdout) == (1, b"")
    assert result.stderr == b"readmany: no file matches '**/*.nothing'\n"
    result = run_readmany(["glob", "**/*.py"], cwd=project)
    assert result.returncode == 0
    assert result.stderr == b""
    report = json.loads(run_readmany(["glob", "**/*.py", "--json"], cwd=project).stdout)
    assert report["details"]["skipped"] == []


def test_a_left_out_directory_the_patterns_reach_is_still_reported(project: Path) -> None:
    everything = run_readmany(["glob", "."], cwd=project)
    assert everything.stderr == (
        b"readmany: 3 skipped (default exclude): .vscode/, node_modules/, src/node_modules/\n"
    )
    assert run_readmany(["glob", "**/*"], cwd=project).stderr == everything.stderr
    named = run_readmany(["glob", "node_modules/**/*.js"], cwd=project)
    assert b"1 skipped (default exclude): node_modules/" in named.stderr
    below = run_readmany(["glob", "src/"], cwd=project)
    assert b"1 skipped (default exclude): src/node_modules/" in below.stderr


# --- 10: an empty file in many ------------------------------------------------------------------


def test_an_empty_file_is_an_empty_block_in_many(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "said.txt").write_text("[No text content returned]")
    result = run_readmany(["many", "empty.txt", "said.txt"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    empty_block, said_block = out.split("\n\n@said.txt\n")
    delimiter = empty_block.splitlines()[1][3:-1]
    assert empty_block == f"@empty.txt\n<<'{delimiter}'\n\n{delimiter}"
    assert "[No text content returned]" in said_block
    compat = run_readmany(["many", "empty.txt", "--compat"], cwd=tmp_path)
    assert "[No text content returned]" in compat.stdout.decode()


def test_the_empty_block_parses_back_to_the_empty_file(tmp_path: Path) -> None:
    from test_framing_properties import parse_heredoc

    (tmp_path / "a.txt").write_bytes(b"")
    (tmp_path / "b.txt").write_bytes(b"\n")
    result = run_readmany(["many", "a.txt", "b.txt"], cwd=tmp_path)
    assert parse_heredoc(result.stdout.decode().removesuffix("\n")) == [
        ("a.txt", ""),
        ("b.txt", "\n"),
    ]
    assert os.path.getsize(tmp_path / "a.txt") == 0
