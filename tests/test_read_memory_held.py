"""A read holds a small multiple of what is written (issue 26 item 13): a budget that can
show a little of a long file holds only that little, and a file shown whole is held once,
never also as its bytes, its lines, its block, its numbered or escaped copy."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from readmany.__main__ import main
from readmany.merges import ranks

SIZE = 20 << 20
LINE = b"the quick brown fox jumps over the lazy dog 0123456789 <a & b>\n"


def _peak(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> tuple[int, int]:
    """The run's status and its peak of traced memory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("READMANY_PROCESSES", "1")
    # The vocabulary a budget counts with (`merges.ranks`, about 6 MB) is the same
    # whatever is read: loaded before the count, it is not what this bounds.
    ranks()
    tracemalloc.start()
    try:
        status = main([*args, "-o", str(tmp_path / "out.txt"), "-q"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return status, peak


def _write(tmp_path: Path, lines: bool) -> None:
    data = (
        LINE * (SIZE // len(LINE))
        if lines
        else LINE.rstrip(b"\n").replace(b" ", b"_") * (SIZE // len(LINE))
    )
    (tmp_path / "big.txt").write_bytes(data)


@pytest.mark.parametrize("lines", [True, False], ids=["lines", "one-line"])
@pytest.mark.parametrize("budget", [["--max-tokens", "10k"], ["--max-bytes", "100k"]])
def test_a_budget_that_shows_little_of_a_long_file_holds_little(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: bool, budget: list[str]
) -> None:
    _write(tmp_path, lines)
    status, peak = _peak(
        tmp_path, monkeypatch, ["glob", "big.txt", "--max-file-size", "1G", *budget]
    )
    assert status in (0, 1)  # a cut, or (one line) nothing fits
    written = (tmp_path / "out.txt").stat().st_size
    assert written < 200_000
    # What the budget can show and a chunk being decoded; never the file.
    assert peak < SIZE / 4, f"{peak / SIZE:.2f} times the file"


@pytest.mark.parametrize(
    "framing",
    [["-n"], ["--format", "markdown"], ["--format", "xml"], ["--format", "xml", "-n"]],
    ids=["numbered", "markdown", "xml", "xml-numbered"],
)
def test_a_budget_holds_little_of_a_long_file_in_every_framing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, framing: list[str]
) -> None:
    # A block is at least the text's raw bytes: a text past what a cut can show is past
    # the budget, numbered, fenced or escaped as it may be.
    _write(tmp_path, True)
    args = ["glob", "big.txt", "--max-file-size", "1G", "--max-tokens", "10k", *framing]
    status, peak = _peak(tmp_path, monkeypatch, args)
    assert status == 0
    assert 0 < (tmp_path / "out.txt").stat().st_size < 200_000
    assert peak < SIZE / 4, f"{peak / SIZE:.2f} times the file"


@pytest.mark.parametrize(
    "framing",
    [["-n"], ["--format", "markdown"], ["--format", "xml"]],
    ids=["numbered", "markdown", "xml"],
)
def test_a_long_text_of_few_tokens_that_fits_is_shown_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, framing: list[str]
) -> None:
    # Longer than what a cut of 1k tokens can show (16k characters and a margin), yet
    # weighed at fewer tokens by the estimate (spaces weigh nothing): its block is
    # measured from all of it, read again, and shown whole, not the start the first pass
    # held. (o200k counts it at 782 tokens.)
    (tmp_path / "long.txt").write_text(" " * 100_000 + "a\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("READMANY_PROCESSES", "1")
    args = ["glob", "long.txt", "--max-tokens", "1k", "--tokenizer", "estimate", *framing]
    status = main([*args, "-o", str(tmp_path / "out.txt"), "-q"])
    assert status == 0
    assert " " * 100_000 + "a" in (tmp_path / "out.txt").read_text()


def test_a_budget_cut_of_a_long_file_is_the_cut_of_the_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Holding only the start changes nothing of what is written or said.
    _write(tmp_path, True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("READMANY_PROCESSES", "1")
    status = main(["glob", "big.txt", "--max-file-size", "1G", "--max-bytes", "50k"])
    out, err = capsys.readouterr()
    assert status == 0
    total = SIZE // len(LINE)
    shown = out.count("the quick brown fox")
    assert 0 < shown < total
    assert f"lines 1-{shown} of {total} shown" in err
    assert f"readmany many big.txt:{shown + 1}" in out


@pytest.mark.parametrize(
    "args",
    [
        ["glob", "big.txt", "--max-file-size", "1G"],
        ["glob", "big.txt", "--max-file-size", "1G", "-n"],
        ["glob", "big.txt", "--max-file-size", "1G", "--format", "xml"],
        ["glob", "big.txt", "--max-file-size", "1G", "--format", "markdown"],
        ["glob", "big.txt", "--max-file-size", "1G", "--format", "xml", "-n"],
        ["glob", "big.txt", "--max-file-size", "1G", "--format", "markdown", "-n"],
    ],
    ids=["text", "numbered", "xml", "markdown", "xml-numbered", "markdown-numbered"],
)
def test_a_long_file_shown_whole_is_held_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    _write(tmp_path, True)
    status, peak = _peak(tmp_path, monkeypatch, args)
    assert status == 0
    assert (tmp_path / "out.txt").stat().st_size > SIZE
    # The text, and the chunk or piece being decoded, numbered, escaped or written.
    assert peak < 1.5 * SIZE, f"{peak / SIZE:.2f} times the file"


@pytest.mark.parametrize("lines", [True, False], ids=["lines", "one-line"])
def test_many_holds_a_long_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: bool
) -> None:
    # Its text, decoded a chunk at a time into one string grown in place, and its block
    # held as the header, that text and the closing line: never a second copy.
    _write(tmp_path, lines)
    size = (tmp_path / "big.txt").stat().st_size
    status, peak = _peak(tmp_path, monkeypatch, ["many", "big.txt", "--max-bytes", "1G"])
    assert status == 0
    assert (tmp_path / "out.txt").stat().st_size > size
    assert peak < 1.5 * size, f"{peak / size:.2f} times the file"


def test_the_helper_process_holds_only_the_start_too(tmp_path: Path) -> None:
    # Where the walk's helper reads ahead (many files), it holds what a cut can show as
    # the main process does, and says what the whole holds: the output is the same.
    from readmany.read.glob_file import CandidateReader
    from readmany.read.transfer import pack_result, unpack_result
    from readmany.select.candidates import Candidate

    _write(tmp_path, True)
    reader = CandidateReader(lambda name: True, root=str(tmp_path))
    reader.limits = reader.limits._replace(exact=True, max_lines=None, max_file_bytes=1 << 30)
    with reader:
        held = reader(Candidate("big.txt", str(tmp_path / "big.txt"), True), "big.txt", 1000)
    import marshal

    back = unpack_result(marshal.loads(marshal.dumps(pack_result(held))))
    assert back == held
    assert back.whole is not None and len(back.text.body) == 1000
    assert back.whole.bytes == (tmp_path / "big.txt").stat().st_size


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_budget_cut_is_the_same_read_in_either_process(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    processes: str,
) -> None:
    for number in range(300):
        (tmp_path / f"a{number:03d}.txt").write_text(f"small {number}\n")
    (tmp_path / "zbig.txt").write_bytes(LINE * 100_000)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("READMANY_PROCESSES", processes)
    status = main(["glob", "*.txt", "--max-file-size", "1G", "--max-bytes", "30k"])
    out, err = capsys.readouterr()
    assert status == 0
    assert "zbig.txt: lines 1-" in err and "of 100000 shown, cut by the budget" in err
    shown = out.split("--- zbig.txt ---", 1)[1].count("the quick brown fox")
    assert f"lines 1-{shown} of 100000 shown" in err
