"""`glob --stdin` reads its list as it comes: chunk boundaries, the NUL check, streaming."""

from __future__ import annotations

import os
import select
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from helpers import readmany_command, run_readmany
from hypothesis import assume, given
from hypothesis import strategies as st

from readmany.errors import UsageError
from readmany.request.inputs import StdinPaths

NUL_MESSAGE = "--stdin: the paths are NUL-separated: add -0 (--null)"


class _Reads:
    """A stand-in for stdin's buffer that returns the given reads, one a call."""

    def __init__(self, reads: Sequence[bytes]) -> None:
        self._reads = list(reads)
        self.calls = 0

    def read1(self, size: int) -> bytes:
        self.calls += 1
        assert all(len(piece) <= size for piece in self._reads)
        return self._reads.pop(0) if self._reads else b""


class _Stdin:
    closed = False

    def __init__(self, reads: Sequence[bytes]) -> None:
        self.buffer = _Reads(reads)

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError("not a file")


def _paths(monkeypatch: pytest.MonkeyPatch, reads: Sequence[bytes], null: bool) -> list[str]:
    monkeypatch.setattr("sys.stdin", _Stdin(reads))
    return list(StdinPaths(null))


def _whole(data: bytes, null: bool) -> list[str]:
    """The list as read in one piece (what `--stdin` has always meant)."""
    separator = b"\0" if null else b"\n"
    entries = data.split(separator)
    if not null:
        entries = [entry.removesuffix(b"\r") for entry in entries]
    return [os.fsdecode(entry) for entry in entries if entry]


def test_a_path_split_across_two_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = [b"src/a", b"pp.py\0docs/", b"guide.md\0"]
    assert _paths(monkeypatch, reads, null=True) == ["src/app.py", "docs/guide.md"]


def test_an_entry_over_many_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = [b"a", b"b", b"c", b"d\ne", b"f"]
    assert _paths(monkeypatch, reads, null=False) == ["abcd", "ef"]


def test_crlf_split_across_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = [b"a.txt\r", b"\nb.txt\r", b"\n\r", b"\nc.txt\r"]
    assert _paths(monkeypatch, reads, null=False) == ["a.txt", "b.txt", "c.txt"]


def test_a_cr_is_kept_in_a_nul_separated_list(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _paths(monkeypatch, [b"a\r", b"\0b\r\n\0"], null=True) == ["a\r", "b\r\n"]


def test_a_nul_in_a_line_list_arriving_late(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", _Stdin([b"a.txt\nb.txt\n", b"c.txt\nd\0e\nf.txt\n"]))
    given_paths: list[str] = []
    with pytest.raises(UsageError, match="add -0"):
        given_paths.extend(StdinPaths(False))
    assert given_paths == ["a.txt", "b.txt", "c.txt"]  # those before its line, then the error


def test_a_nul_in_an_unfinished_entry_is_found_when_it_comes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stdin = _Stdin([b"a.txt\nb\0", b"c\n", b"d.txt\n"])
    monkeypatch.setattr("sys.stdin", stdin)
    given_paths: list[str] = []
    with pytest.raises(UsageError) as raised:
        given_paths.extend(StdinPaths(False))
    assert str(raised.value) == NUL_MESSAGE
    assert given_paths == ["a.txt"]
    assert stdin.buffer.calls == 1  # nothing more was read


def test_the_first_paths_are_given_before_the_list_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = _Stdin([b"a.txt\n", b"b.txt\n"])
    monkeypatch.setattr("sys.stdin", stdin)
    paths = iter(StdinPaths(False))
    assert next(paths) == "a.txt"
    assert stdin.buffer.calls == 1
    assert list(paths) == ["b.txt"]


@given(
    st.lists(st.text(st.characters(codec="utf-8", exclude_characters="\0"), max_size=12)),
    st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    st.booleans(),
)
def test_any_split_gives_the_list_read_whole(names: list[str], cuts: list[int], null: bool) -> None:
    assume(null or not any("\n" in name for name in names))
    separator = b"\0" if null else b"\r\n"
    data = separator.join(name.encode() for name in names)
    points = sorted({min(cut, len(data)) for cut in cuts})
    starts, ends = [0, *points], [*points, len(data)]
    reads = [data[a:b] for a, b in zip(starts, ends, strict=True) if data[a:b]]
    with pytest.MonkeyPatch.context() as patch:
        assert _paths(patch, reads, null) == _whole(data, null)


# --- the stream, end to end ------------------------------------------------------------


def _read_until(stream: int, wanted: bytes, got: bytes = b"") -> bytes:
    """Read `stream` until `wanted` was seen (60 s at most: a stream that never comes
    fails the test rather than hanging it)."""
    while wanted not in got:
        ready, _, _ = select.select([stream], [], [], 60)
        assert ready, f"no output yet; so far {got!r}"
        piece = os.read(stream, 1 << 16)
        assert piece, f"output ended; so far {got!r}"
        got += piece
    return got


def _fed_in_two_parts(tmp_path: Path, processes: str, second: bytes) -> tuple[bytes, int, bytes]:
    """`readmany glob --stdin` fed `a.txt` first; once its section is out, `second` and
    the end of the list. What it wrote (all of it), its exit status and its stderr."""
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    env = {**os.environ, "READMANY_PROCESSES": processes}
    with subprocess.Popen(
        [*readmany_command(), "glob", "--stdin"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        assert process.stderr is not None
        process.stdin.write(b"a.txt\n")
        process.stdin.flush()
        # Read while stdin is still open: the first section is out before the list ends.
        first = _read_until(process.stdout.fileno(), b"--- a.txt ---\n\na\n")
        process.stdin.write(second)
        process.stdin.close()
        rest = process.stdout.read()
        status = process.wait(60)
        return first + rest, status, process.stderr.read()


@pytest.mark.smoke
@pytest.mark.parametrize("processes", ["1", ""])
def test_the_first_file_is_written_while_stdin_is_still_open(
    tmp_path: Path, processes: str
) -> None:
    written, status, stderr = _fed_in_two_parts(tmp_path, processes, b"b.txt\n")
    assert status == 0
    assert stderr == b""
    assert written == b"--- a.txt ---\n\na\n\n\n--- b.txt ---\n\nb\n\n\n\n--- End of content ---\n"


@pytest.mark.smoke
@pytest.mark.parametrize("processes", ["1", ""])
def test_a_late_nul_stops_the_run_after_what_was_written(tmp_path: Path, processes: str) -> None:
    written, status, stderr = _fed_in_two_parts(tmp_path, processes, b"b.txt\0c.txt\n")
    assert status == 2
    assert stderr == f"readmany: {NUL_MESSAGE}\n".encode()
    assert written == b"--- a.txt ---\n\na\n\n\n"  # written already: the sections before


def test_a_late_nul_leaves_no_output_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    listed = b"".join(b"a.txt\n" for _ in range(20000)) + b"b\0\n"  # beyond the first read
    result = run_readmany(["glob", "--stdin", "-o", "out.txt"], cwd=tmp_path, stdin=listed)
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr == f"readmany: {NUL_MESSAGE}\n".encode()
    assert sorted(os.listdir(tmp_path)) == ["a.txt"]  # -o is written whole or not at all


def test_a_long_list_with_repeats_keeps_the_first_of_each(tmp_path: Path) -> None:
    names = [f"d{i % 7}/f{i}.txt" for i in range(300)]
    for name in names:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(f"{name}\n")
    listed = "\0".join([*names, *reversed(names), "d3", *names]).encode()
    result = run_readmany(["glob", "--stdin", "-0"], cwd=tmp_path, stdin=listed)
    assert result.returncode == 0, result.stderr
    shown = [line[4:-4] for line in result.stdout.decode().splitlines() if line.startswith("--- ")]
    assert shown == [*names, "End of content"]


@pytest.mark.parametrize("extra", [[], ["--max-tokens", "1k"], ["--stats"], ["-0"]])
def test_an_empty_list_is_said_as_such(tmp_path: Path, extra: list[str]) -> None:
    """Nothing listed is not 'every file matched was skipped': nothing was matched."""
    result = run_readmany(["glob", "--stdin", *extra], cwd=tmp_path, stdin=b"")
    assert result.returncode == 1
    assert result.stderr == b"readmany: no file was read: standard input listed no path\n"
