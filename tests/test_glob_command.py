"""`run_glob` in process: content, details, exit status, stderr lines, streaming, memory."""

from __future__ import annotations

import io
import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from helpers import run_readmany

import readmany.read.glob_file as matched_module
from readmany.commands.glob import GlobRequest, run_glob
from readmany.emit.sink import Sink
from readmany.frame.formats import GlobFraming
from readmany.frame.separator import frame_separator
from readmany.read.glob_file import read_matched as read_matched_for_real
from readmany.tokens import text_weight


def run(root: Path, *patterns: str, json_mode: bool = False, **options: Any) -> tuple[Any, ...]:
    stream = io.BytesIO()
    sink = Sink(stream, json_mode=json_mode)
    outcome = run_glob(GlobRequest(patterns=patterns, root=str(root), **options), sink)
    sink.finish(outcome.details, list(outcome.attachments))
    return stream.getvalue().decode("utf-8"), outcome


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    files = {
        "a.txt": b"alpha\n",
        "b.md": b"# b\r\nline\r\n",
        "blob.dat": b"data",
        "latin.txt": "café\n".encode("latin-1"),
        "logo.png": b"\x89PNG\r\n\x1a\nfake",
        "long.txt": b"x" * 2001 + b"\n",
        "empty.txt": b"",
        "huge.log": b"h" * (20 * 1024 * 1024 + 1),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    os.symlink("missing.txt", tmp_path / "dangling.txt")
    return tmp_path


@pytest.mark.smoke
def test_text_output_and_exit_status(tree: Path) -> None:
    text, outcome = run(tree, "*")
    assert text == (
        "--- a.txt ---\n\nalpha\n\n\n"
        "--- b.md ---\n\n# b\nline\n\n\n"
        "--- empty.txt ---\n\n\n\n"
        "--- latin.txt ---\n\ncaf\ufffd\n\n\n"
        "--- long.txt ---\n\n"
        "[WARNING: This file was truncated. To view the full content, use the 'read_file' "
        "tool on this specific file.]\n\n" + "x" * 2000 + "... [truncated]\n\n\n"
        "\n--- End of content ---\n"
    )
    assert outcome.exit_code == 1
    assert outcome.problems == ("Read error: File not found: dangling.txt",)


def block_tokens(path: str, body: str, *, truncated: bool = False) -> float:
    """What a section is estimated to take: its frame's tokens and its text's."""
    return GlobFraming().tokens(path, body, 1, truncated=truncated)


def read_entry(
    path: str, size: int, body: str, *, truncated: bool = False, lossy: bool = False
) -> dict[str, Any]:
    section = frame_separator(path, body, truncated)
    return {
        "path": path,
        "kind": "text",
        "bytes": size,
        "truncated": truncated,
        "lossy": lossy,
        "outputBytes": len(section.encode()),
        "estimatedTokens": round(block_tokens(path, body, truncated=truncated)),
    }


@pytest.mark.smoke
def test_json_details(tree: Path) -> None:
    text, _ = run(tree, "*", json_mode=True)
    result = json.loads(text)
    assert result["details"] == {
        "root": str(tree),
        "files": ["a.txt", "b.md", "empty.txt", "latin.txt", "long.txt"],
        "skipped": [
            {"path": "blob.dat", "reason": "binary file"},
            {"path": "dangling.txt", "reason": "Read error: File not found: dangling.txt"},
            {
                "path": "huge.log",
                "reason": "Read error: File size exceeds the 20MB limit: huge.log (20.00MB)",
            },
            {
                "path": "logo.png",
                "reason": "asset file (image/pdf/audio) was not explicitly requested by name "
                "or extension",
            },
        ],
        "read": [
            read_entry("a.txt", 6, "alpha\n"),
            read_entry("b.md", 11, "# b\nline\n"),
            read_entry("empty.txt", 0, ""),
            read_entry("latin.txt", 5, "caf\ufffd\n", lossy=True),
            read_entry("long.txt", 2002, "x" * 2000 + "... [truncated]\n", truncated=True),
        ],
        "bytes": len(result["content"].encode()),
        # The sections' tokens, and the end marker's.
        "estimatedTokens": round(
            block_tokens("a.txt", "alpha\n")
            + block_tokens("b.md", "# b\nline\n")
            + block_tokens("empty.txt", "")
            + block_tokens("latin.txt", "caf\ufffd\n")
            + block_tokens("long.txt", "x" * 2000 + "... [truncated]\n", truncated=True)
            + text_weight("\n--- End of content ---")
        ),
    }
    assert result["attachments"] == []


def test_absolute_paths(tree: Path) -> None:
    text, _ = run(tree, "a.txt", "blob.dat", absolute=True, json_mode=True)
    result = json.loads(text)
    assert result["content"] == f"--- {tree}/a.txt ---\n\nalpha\n\n\n\n--- End of content ---"
    assert result["details"]["files"] == [f"{tree}/a.txt"]
    assert result["details"]["skipped"] == [{"path": f"{tree}/blob.dat", "reason": "binary file"}]


def test_requested_asset_in_both_modes(tree: Path) -> None:
    text, outcome = run(tree, "*.png")
    assert text == (
        "--- logo.png ---\n\ndata:image/png;base64,iVBORw0KGgpmYWtl\n\n\n--- End of content ---\n"
    )
    assert outcome.attachments == ()
    text, outcome = run(tree, "*.png", json_mode=True)
    result = json.loads(text)
    assert result["content"] == "\n--- End of content ---"
    assert result["attachments"] == [
        {"path": "logo.png", "mimeType": "image/png", "data": "iVBORw0KGgpmYWtl"}
    ]
    assert result["details"]["read"] == [
        {
            "path": "logo.png",
            "kind": "image",
            "bytes": 12,
            "mimeType": "image/png",
            "outputBytes": 0,  # an attachment, not in the content
            "estimatedTokens": 0,
        }
    ]


def test_nothing_read(tree: Path) -> None:
    text, outcome = run(tree, "*.dat", "nothing/**")
    assert text == "No files matching the criteria were found or all were skipped.\n"
    assert outcome.exit_code == 0


def test_too_large_and_binary_are_rules_not_failures(tree: Path) -> None:
    _, outcome = run(tree, "huge.log", "blob.dat")
    assert outcome.exit_code == 0
    assert outcome.problems == ()


def test_notices_and_stats(tree: Path) -> None:
    _, outcome = run(tree, "*")
    assert outcome.notices == (
        "1 skipped (asset not requested): logo.png",
        "1 skipped (binary file): blob.dat",
        "1 skipped (too large): huge.log",
        "1 truncated: long.txt",
    )
    tally = outcome.stats
    assert dict(tally.counts) == {"read": 4, "skipped": 3, "error": 1, "cut": 1}
    assert dict(tally.reasons) == {
        "binary file": 1,
        "too large": 1,
        "asset not requested": 1,
    }
    assert tally.errors == ["dangling.txt"]
    assert tally.examples["truncated to the line limits"] == ["long.txt"]
    largest = [path for path, _ in tally.largest_files()]
    assert largest[0] == "long.txt" and len(largest) == 3


def test_notices_name_a_few_paths(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"b{i}.dat").write_bytes(b"")
    _, outcome = run(tmp_path, "*")
    assert outcome.notices == ("5 skipped (binary file): b0.dat, b1.dat, b2.dat, …",)


def test_progress_is_told_about_every_file(tree: Path) -> None:
    seen: list[tuple[str, int | None]] = []
    sink = Sink(io.BytesIO(), json_mode=False, on_file=lambda p, t: seen.append((p, t)))
    run_glob(GlobRequest(patterns=("*.txt",), root=str(tree)), sink)
    # The walk and the reads go together: the total is not known in advance.
    names = ["a.txt", "dangling.txt", "empty.txt", "latin.txt", "long.txt"]
    assert seen == [(name, None) for name in names]


def test_sections_are_written_as_files_are_read(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_read = read_matched_for_real

    def read_matched(path: str, *args: Any, **kwargs: Any) -> Any:
        events.append("read " + os.path.basename(path))
        return real_read(path, *args, **kwargs)

    class Recorder(io.BytesIO):
        def write(self, data: Any) -> int:
            events.append("write " + bytes(data).split(b"\n", 1)[0].decode())
            return super().write(data)

    monkeypatch.setattr(matched_module, "read_matched", read_matched)
    monkeypatch.setenv("READMANY_PROCESSES", "1")  # every read in this process, to be seen
    run_glob(
        GlobRequest(patterns=("a.txt", "b.md", "empty.txt"), root=str(tree)),
        Sink(Recorder(), json_mode=False),
    )
    assert events == [
        "read a.txt",
        "write --- a.txt ---",
        "read b.md",
        "write --- b.md ---",
        "read empty.txt",
        "write --- empty.txt ---",
        "write ",
    ]


class Discard:
    def write(self, data: bytes, /) -> int:
        return len(data)

    def flush(self) -> None:
        pass


def _traced_glob(root: Path, pattern: str) -> tuple[Any, int]:
    """The outcome of a glob run written nowhere, and the peak of traced memory."""
    tracemalloc.start()
    try:
        outcome = run_glob(
            GlobRequest(patterns=(pattern,), root=str(root)), Sink(Discard(), json_mode=False)
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return outcome, peak


# Each process is measured: the main one alone, and the walk in this one.
PROCESSES = pytest.mark.parametrize("processes", ["1", "2"])


@PROCESSES
def test_memory_does_not_grow_with_the_number_of_files(
    tmp_path: Path, processes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READMANY_PROCESSES", processes)
    line = b"0123456789" * 10 + b"\n"
    for i in range(400):
        (tmp_path / f"f{i:03d}.txt").write_bytes(line * 500)  # 50 KB each, 20 MB in all
    outcome, peak = _traced_glob(tmp_path, "*.txt")
    assert outcome.stats.counts["read"] == 400
    assert peak < 3 * 1024 * 1024


def _peak_for(root: Path, directories: int) -> int:
    for d in range(directories):
        folder = root / f"d{d:03d}"
        folder.mkdir()
        for i in range(100):
            (folder / f"f{i:03d}.txt").write_bytes(b"x" * 100)
    outcome, peak = _traced_glob(root, "**")
    assert outcome.stats.counts["read"] == directories * 100
    return peak


@PROCESSES
def test_peak_memory_is_the_same_for_ten_times_the_files(
    tmp_path: Path, processes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READMANY_PROCESSES", processes)
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    small = _peak_for(tmp_path / "small", 3)
    large = _peak_for(tmp_path / "large", 30)  # 3,000 files
    assert large < small + 64 * 1024


def test_svg_is_text_shown_whole_and_a_big_one_is_a_note(tmp_path: Path) -> None:
    (tmp_path / "icon.svg").write_bytes(b"<svg>\r\n<rect/>\r\n</svg>\r\n")
    (tmp_path / "big.svg").write_bytes(b"<svg>" + b" " * (1024 * 1024) + b"</svg>")
    text, outcome = run(tmp_path, "*.svg")
    assert text == (
        "--- big.svg ---\n\nCannot display content of SVG file larger than 1MB: big.svg\n\n"
        "--- icon.svg ---\n\n<svg>\r\n<rect/>\r\n</svg>\r\n\n\n"
        "\n--- End of content ---\n"
    )
    assert outcome.exit_code == 0


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "a.txt").write_text("a\n")
    text, outcome = run(tmp_path, "*")
    assert text == "--- a.txt ---\n\na\n\n\n\n--- End of content ---\n"
    assert outcome.exit_code == 1
    assert outcome.problems == ("Read error: Not a regular file (FIFO): pipe",)


def test_paths_from_stdin(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b [1].txt").write_text("b\n")
    done = run_readmany(
        ["glob", "--compat", "--stdin", "-0"],
        cwd=tmp_path,
        stdin=b"b [1].txt\0a.txt\0missing.txt\0",
    )
    assert done.stdout.decode() == (
        "--- a.txt ---\n\na\n\n\n--- b [1].txt ---\n\nb\n\n\n\n--- End of content ---\n"
    )
    assert done.returncode == 1
    assert done.stderr.decode() == "readmany: Read error: File not found: missing.txt\n"


def test_empty_stdin_reads_nothing(tmp_path: Path) -> None:
    done = run_readmany(["glob", "--compat", "--stdin"], cwd=tmp_path, stdin=b"")
    assert (done.returncode, done.stdout) == (
        0,
        b"No files matching the criteria were found or all were skipped.\n",
    )


def test_root_option(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("a\n")
    done = run_readmany(["glob", "--compat", "--root", "sub", "*.txt"], cwd=tmp_path)
    assert done.stdout.decode() == "--- a.txt ---\n\na\n\n\n\n--- End of content ---\n"
    done = run_readmany(["glob", "--compat", "--root", "sub", "--absolute", "*.txt"], cwd=tmp_path)
    assert done.stdout.decode().startswith(f"--- {tmp_path}/sub/a.txt ---\n")


def test_git_ls_files_pipeline_on_this_repository() -> None:
    import json
    import subprocess

    from helpers import run_readmany

    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        pytest.fail("this test reads the project's own git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    tracked = sorted(p for p in listed.stdout.decode().split("\0") if p)
    result = run_readmany(
        ["glob", "--compat", "--stdin", "-0", "--json"], cwd=root, stdin=listed.stdout
    )
    assert result.returncode == 0, result.stderr
    details = json.loads(result.stdout)["details"]
    accounted = details["files"] + [entry["path"] for entry in details["skipped"]]
    assert sorted(accounted) == tracked  # every tracked file read or skipped with a reason
    assert "readmany/cli.py" in details["files"]


def test_a_literal_path_requests_its_own_asset_only(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\nfake"
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "logo.png").write_bytes(png)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "logo.png").write_bytes(png)
    request = GlobRequest(
        patterns=("other/*",), literal_paths=("img/logo.png",), root=str(tmp_path)
    )
    stream = io.BytesIO()
    sink = Sink(stream, json_mode=True)
    outcome = run_glob(request, sink)
    assert [a.path for a in outcome.attachments] == ["img/logo.png"]
    assert outcome.details["skipped"] == [
        {
            "path": "other/logo.png",
            "reason": "asset file (image/pdf/audio) was not explicitly requested by name "
            "or extension",
        }
    ]
