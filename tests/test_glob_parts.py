"""`glob --parts` writes the whole selection as numbered parts that each fit the budget:
together they read back to exactly the selected files (a file larger than a part cut
across parts by lines), each part self-contained (its head says what every part holds);
`-o ctx.txt` writes `ctx.1.txt` …, `--part K` one part."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import make, run_readmany

from readmany.frame.markdown import parse_markdown
from readmany.frame.xml import parse_xml

FILES: dict[str, str | bytes] = {
    "README.md": "# app\n\nRun it.\n",
    "app/core.py": "".join(
        f"def helper_{i}(value):\n    return value * {i}\n\n\n" for i in range(300)
    ),
    "app/cli.py": "from app import core\n\n\ndef main():\n    return core.helper_1(2)\n",
    "docs/guide.md": "".join(
        f"Paragraph {i}: how to use the app, step by step.\n\n" for i in range(60)
    ),
    "notes.txt": "no final newline",
    "empty.txt": "",
    "ünï/cödé.txt": "Grüße ✓\n" * 40,
}
for _i in range(12):
    FILES[f"app/mod_{_i:02}.py"] = (
        f"from app import core\n\n\ndef f():\n    return core.helper_{_i}(1)\n"
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make(tmp_path / "repo", FILES)


def _run(repo: Path, *args: str) -> Any:
    result = run_readmany(["glob", ".", "-q", *args], cwd=repo)
    assert result.returncode == 0, result.stderr
    return result


def _parts(repo: Path, *args: str) -> list[str]:
    """The parts `-o ctx.txt` wrote, in order, as text."""
    out = repo.parent / "out"
    out.mkdir(exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    _run(repo, "--parts", "-o", str(out / "ctx.txt"), *args)
    names = sorted(os.listdir(out), key=lambda name: int(name.split(".")[1]))
    assert names == [f"ctx.{k}.txt" for k in range(1, len(names) + 1)]
    return [(out / name).read_bytes().decode() for name in names]


_PIECE = re.compile(r"\[Lines (\d+)-(\d+) of (\d+)[^\]\n]*\]\Z")
_NOTE = re.compile(r"\[Lines \d+-\d+ of \d+[^\]\n]*\]\Z")


def _text_sections(part: str) -> list[tuple[str, str, str]]:
    """(path, body, note) of each section of a text part; the test's files hold no line
    that starts as a header does, so the sections split at their headers."""
    end = "\n--- End of content ---\n"
    assert part.startswith("[Part ") and part.endswith(end)
    body = part.split("\n\n", 1)[1].removesuffix(end)
    found = []
    for section in re.split(r"(?<=\n\n)(?=--- .* ---\n\n)", body):
        header, rest = section.split("\n\n", 1)
        assert header.startswith("--- ") and header.endswith(" ---")
        path = header[4:-4]
        assert rest.endswith("\n\n")
        text = rest[:-2]
        note = ""
        found_note = _NOTE.search(text)
        if found_note is not None:
            note = found_note.group()
            text = text[: found_note.start()]
        found.append((json.loads(path) if path.startswith('"') else path, text, note))
    return found


def _pieces(fmt: str, part: str) -> list[tuple[str, str]]:
    if fmt == "markdown":
        return parse_markdown(part)
    if fmt == "xml":
        return parse_xml(part)
    return [(path, text) for path, text, _note in _text_sections(part)]


def _joined(fmt: str, parts: list[str]) -> dict[str, str]:
    """Every file the parts hold, its pieces joined in part order; each path once."""
    files: dict[str, str] = {}
    last: str | None = None
    for part in parts:
        for path, text in _pieces(fmt, part):
            if path in files:
                assert path == last, f"{path} comes back after another file"
                files[path] += text
            else:
                files[path] = text
            last = path
    return files


@pytest.mark.parametrize("fmt", ["text", "markdown", "xml"])
def test_the_parts_read_back_to_exactly_the_selected_files(repo: Path, fmt: str) -> None:
    parts = _parts(repo, "--max-bytes", "2k", "--format", fmt)
    assert len(parts) >= 4
    assert _joined(fmt, parts) == {path: text for path, text in FILES.items() if path}
    for part in parts:
        assert len(part.encode()) <= 2048


def test_a_file_larger_than_a_part_is_cut_across_parts_with_notes(repo: Path) -> None:
    parts = _parts(repo, "--max-bytes", "2k")
    notes = [
        (number, note)
        for number, part in enumerate(parts, 1)
        for path, _text, note in _text_sections(part)
        if path == "app/core.py"
    ]
    assert len(notes) >= 3
    first_part = notes[0][0]
    spans = []
    for k, (number, note) in enumerate(notes):
        assert number == first_part + k  # one piece a part, in consecutive parts
        match = _PIECE.match(note)
        assert match is not None
        spans.append((int(match.group(1)), int(match.group(2))))
        if k:
            assert f"in part {first_part}" in note or f"in parts {first_part}-" in note
        if k < len(notes) - 1:
            assert note.endswith(f"in part {number + 1}]")
    assert spans[0][0] == 1 and spans[-1][1] == FILES["app/core.py"].count("\n")  # type: ignore[union-attr]


def test_each_part_says_which_part_it_is_and_what_the_others_hold(repo: Path) -> None:
    parts = _parts(repo, "--max-bytes", "3k")
    count = len(parts)
    for number, part in enumerate(parts, 1):
        head = part.split("\n", 1)[0]
        assert head.startswith(f"[Part {number} of {count}: this part holds ")
        for other in range(1, count + 1):
            if other != number:
                assert f"part {other}: " in head
    assert "README.md" in parts[0].split("\n", 1)[0]


def test_each_part_is_within_a_budget_of_tokens_and_of_lines(repo: Path) -> None:
    from readmany.tokenizer import count

    estimate = ("--max-tokens", "700", "--tokenizer", "estimate")
    for args in (("--max-tokens", "700"), estimate, ("--max-lines", "60")):
        whole = json.loads(_run(repo, "--json", "--parts", *args).stdout)["details"]["parts"]
        assert whole["count"] >= 3
        for number in range(1, whole["count"] + 1):
            result = _run(repo, "--parts", "--part", str(number), *args, "--json")
            out = json.loads(result.stdout)
            if args[0] == "--max-tokens":  # counted by o200k (the default with the extra),
                # or by o200k's pieces and merges without it (`merges.at_most`): o200k's
                # count of the part, never more
                assert count(out["content"] + "\n") <= 700
            else:
                assert out["content"].count("\n") + 1 <= 60


def test_part_k_alone_is_the_kth_file_of_o(repo: Path) -> None:
    parts = _parts(repo, "--max-bytes", "2k")
    for number in (1, len(parts)):
        alone = _run(repo, "--parts", "--part", str(number), "--max-bytes", "2k").stdout
        assert alone.decode() == parts[number - 1]


def test_part_k_with_o_writes_only_that_part(repo: Path) -> None:
    out = repo.parent / "only"
    out.mkdir()
    _run(repo, "--parts", "--part", "2", "--max-bytes", "2k", "-o", str(out / "ctx.md"))
    assert os.listdir(out) == ["ctx.2.md"]


def test_without_o_stdout_holds_every_part_one_after_the_other(repo: Path) -> None:
    parts = _parts(repo, "--max-bytes", "2k")
    assert _run(repo, "--parts", "--max-bytes", "2k").stdout.decode() == "".join(parts)


def test_the_parts_written_are_never_read_as_input(repo: Path) -> None:
    first = _run(repo, "--parts", "--max-bytes", "2k", "-o", "ctx.txt", "--json")
    again = _run(repo, "--parts", "--max-bytes", "2k", "-o", "ctx.txt", "--json")
    one = json.loads(first.stdout)["details"]
    two = json.loads(again.stdout)["details"]
    assert [p["bytes"] for p in one["parts"]["written"]] == [
        p["bytes"] for p in two["parts"]["written"]
    ]
    assert not any(str(f).startswith("ctx.") for f in two["files"])


def test_parts_are_written_beneath_the_root_as_o_is(tmp_path: Path, repo: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "link").symlink_to(outside)
    result = run_readmany(
        ["glob", ".", "--parts", "--max-bytes", "2k", "-o", "link/ctx.txt"], cwd=repo
    )
    assert result.returncode == 2
    assert len(result.stderr.decode().splitlines()) == 1
    assert os.listdir(outside) == []


def test_a_file_that_fits_no_part_is_left_out_and_said(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "a\n", "long.txt": "x" * 5000 + "\n", "b.txt": "b\n"})
    result = run_readmany(["glob", ".", "--parts", "--max-bytes", "1k", "--json"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    details = json.loads(result.stdout)["details"]
    assert details["parts"]["leftOutPaths"] == ["long.txt"]
    assert "fits no part of the budget" in result.stderr.decode()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--part", "2", "--max-bytes", "2k"], "--part 2 picks one of the parts --parts writes"),
        (["--parts"], "--parts splits the selection by a budget"),
        (["--parts", "--part", "99", "--max-bytes", "2k"], "--part 99: the selection makes"),
        (["--parts", "--max-bytes", "2k", "--tree"], "drop --tree"),
        (["--parts", "--max-bytes", "2k", "--stats"], "--stats writes no parts"),
        (["--parts", "--max-bytes", "2k", "--copy"], "--copy takes one part at a time"),
        (["--parts", "--max-bytes", "100"], "--parts:"),
    ],
)
def test_bad_combinations_are_one_line_and_exit_2(repo: Path, args: list[str], said: str) -> None:
    result = run_readmany(["glob", ".", *args], cwd=repo)
    assert result.returncode == 2, result.stderr
    assert result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and said in lines[0], lines


def test_copy_takes_the_one_part_asked_for(repo: Path, tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    pasted = tmp_path / "pasted"
    (fake / "xclip").write_text(f"#!/bin/sh\ncat > {pasted}\n")
    (fake / "xclip").chmod(0o755)
    env = {"PATH": f"{fake}:/usr/bin:/bin", "DISPLAY": ":0"}
    parts = _parts(repo, "--max-bytes", "2k")
    result = run_readmany(
        ["glob", ".", "--parts", "--part", "2", "--max-bytes", "2k", "--copy"], cwd=repo, env=env
    )
    assert result.returncode == 0, result.stderr
    assert pasted.read_bytes().decode() == parts[1]
    assert result.stdout == b""


def test_a_long_file_cut_across_parts_is_never_framed_past_twice_a_piece(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A budget of tokens alone bounds no count of lines beforehand: the search for the
    # longest piece that fits framed half of the rest of the file at its first try, for
    # every part (a 156 MB file: 130 s and 700 MB before it was refused for its parts).
    from readmany.emit import pieces

    make(tmp_path, {"long.py": "".join(f"x_{i} = {i}  # a line\n" for i in range(40_000))})
    framed: list[tuple[int, int]] = []  # (lines framed, the piece's part)
    original = pieces.Pieces._framed

    def spy(self: Any, position: int, body: str, ends: Any, first: int, count: int,
            total: int, part: int) -> Any:  # fmt: skip
        framed.append((count, part))
        return original(self, position, body, ends, first, count, total, part)

    monkeypatch.setattr(pieces.Pieces, "_framed", spy)
    result = run_readmany(
        ["glob", "long.py", "--parts", "--max-tokens", "20k", "--json", "-q"], cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    written = json.loads(result.stdout)["details"]["parts"]["count"]
    assert written > 10
    largest = 40_000 // (written - 1)  # a piece holds no more lines than this
    assert max(count for count, _part in framed) <= 2 * largest + 2


def test_a_part_refused_leaves_no_other_part_written(tmp_path: Path) -> None:
    # A repository's `ctx.2.txt` is a link out of it: the run is refused (one line, 2),
    # and refused before it writes `ctx.1.txt`.
    outside = tmp_path / "outside"
    outside.mkdir()
    repo = make(tmp_path / "repo", {f"f{i}.txt": f"file {i}\n" * 200 for i in range(6)})
    (repo / "ctx.2.txt").symlink_to(outside / "evil")
    result = run_readmany(["glob", ".", "--parts", "--max-bytes", "3k", "-o", "ctx.txt"], cwd=repo)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and "ctx.2.txt" in lines[0], lines
    assert sorted(p.name for p in repo.iterdir() if p.name.startswith("ctx")) == ["ctx.2.txt"]
    assert os.listdir(outside) == []


def test_no_file_that_fits_a_part_is_exit_1_as_no_file_that_fits_a_budget(
    tmp_path: Path,
) -> None:
    make(tmp_path, {"a.txt": "a\n" * 400, "b.txt": "b\n" * 400})
    plain = run_readmany(["glob", ".", "--max-bytes", "100"], cwd=tmp_path)
    assert plain.returncode == 1
    result = run_readmany(["glob", ".", "--parts", "--max-bytes", "300", "--json"], cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    details = json.loads(result.stdout)["details"]
    assert details["parts"]["count"] == 0
    assert details["parts"]["leftOutPaths"] == ["a.txt", "b.txt"]
    said = result.stderr.decode().splitlines()
    assert "readmany: nothing written: every file fits no part of the budget: raise it" in said


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ("", "-o: the file name is empty"),
        ("sub/", "-o sub/: is a directory name"),
        (".", "-o .: is a directory name"),
        ("/dev/null", "-o /dev/null: --parts writes numbered files beside a file's name"),
        ("/dev/stdout", "-o /dev/stdout: --parts writes numbered files beside a file's name"),
    ],
)
def test_an_o_that_names_no_file_to_number_is_refused(
    repo: Path, tmp_path: Path, output: str, said: str
) -> None:
    # They wrote /dev/null.1 and /dev/stdout.1 in /dev, sub/.1, ..1, or (-o '') stdout.
    (repo / "sub").mkdir()
    before = sorted(os.listdir("/dev"))
    result = run_readmany(["glob", ".", "--parts", "--max-bytes", "2k", "-o", output], cwd=repo)
    assert result.returncode == 2, result.stderr
    assert result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and said in lines[0], lines
    assert os.listdir(repo / "sub") == [] and not (repo / "..1").exists()
    assert sorted(os.listdir("/dev")) == before


def _code_and_scripts(root: Path) -> Path:
    files: dict[str, str | bytes] = {}
    for i in range(40):
        files[f"m{i:02}.py"] = "".join(
            f"def f_{i}_{j}(x):\n    return x * {j}  # {i}\n\n" for j in range(30)
        )
    files["notes.md"] = "Überblick: données, 数据, данные.\n" * 200
    return make(root, files)


def test_each_part_is_within_a_budget_of_tokens_as_o200k_counts_it(tmp_path: Path) -> None:
    # Without a tokenizer parts are planned with the estimate less its margin
    # (`tokens.planning_budget`): planned at the budget itself, parts of code and of
    # mixed scripts ran over it.
    from readmany.tokenizer import count

    repo = _code_and_scripts(tmp_path / "repo")
    for budget in (2000, 6000):
        parts = _parts(repo, "--max-tokens", str(budget), "--tokenizer", "estimate")
        assert len(parts) >= 3
        assert all(count(part) <= budget for part in parts)


@pytest.mark.parametrize("fmt", ["text", "markdown", "xml"])
def test_with_a_tokenizer_each_part_is_counted_and_the_largest_fills_the_budget(
    tmp_path: Path, fmt: str
) -> None:
    # Split with the estimate's margin, the largest part of this tree held 88% of a 6k
    # budget (6 parts): each part is counted now, and the split made again until the
    # largest fills 95% without any going over (or the files allow no fuller split).
    from readmany.tokenizer import count

    repo = _code_and_scripts(tmp_path / "repo")
    every = {p.name: p.read_text(encoding="utf-8") for p in sorted(repo.iterdir())}
    for budget in (2000, 6000):
        args = ("--max-tokens", str(budget), "--format", fmt)
        parts = _parts(repo, *args)
        counts = [count(part) for part in parts]
        assert max(counts) <= budget
        assert max(counts) >= 0.9 * budget
        assert len(parts) <= len(_parts(repo, *args, "--tokenizer", "estimate"))
        said = json.loads(_run(repo, "--parts", *args, "--json").stdout)["details"]
        assert said["tokenizer"]["tokens"] == max(counts)
        assert said["parts"]["count"] == len(parts)
        assert _joined(fmt, parts) == every  # every file once, in order
