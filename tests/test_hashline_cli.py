"""`readmany hashline` end to end: details, paths, errors, special files, big files."""

from __future__ import annotations

import io
import json
import os
import tracemalloc
from pathlib import Path

import pytest
from helpers import run_readmany, run_unprivileged, unprivileged_prefix

from readmany.commands.hashline import run_hashline
from readmany.emit.sink import Sink
from readmany.read.hashline import file_tag, line_anchor
from readmany.request.hashline import HashlineRequest
from readmany.tokens import text_weight

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00"
    b"\x00\x00\x00IEND\xaeB`\x82"
)


def hashline(cwd: Path, *args: str) -> tuple[int, str, str]:
    result = run_readmany(["hashline", "--compat", *args], cwd=cwd)
    return result.returncode, result.stdout.decode("utf-8"), result.stderr.decode("utf-8")


def details(cwd: Path, *args: str) -> dict[str, object]:
    code, out, err = hashline(cwd, *args, "--json")
    assert (code, err) == (0, "")
    value = json.loads(out)
    assert out.endswith("}\n")
    assert value["attachments"] == []
    return dict(value["details"])


def failure(cwd: Path, *args: str) -> str:
    code, out, err = hashline(cwd, *args)
    assert (code, out) == (1, "")
    assert err.startswith("readmany: ") and err.endswith("\n") and err.count("\n") == 1
    return err[len("readmany: ") : -1]


# --- output and details ------------------------------------------------------------------


@pytest.mark.smoke
def test_text_output_ends_with_exactly_one_newline(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\ntwo\n")
    tag = file_tag(b"one\ntwo\n")
    assert hashline(tmp_path, "a.txt") == (
        0,
        f"@file a.txt#{tag}\n1#uwt|one\n2#nbl|two\n3#zyb|\n",
        "",
    )


def test_json_holds_content_and_details(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\ntwo\n")
    tag = file_tag(b"one\ntwo\n")
    code, out, _ = hashline(tmp_path, "a.txt", "--json")
    assert code == 0
    content = f"@file a.txt#{tag}\n1#uwt|one\n2#nbl|two\n3#zyb|"
    assert json.loads(out) == {
        "content": content,
        "details": {
            "path": "a.txt",
            "tag": tag,
            "offset": 1,
            "shownLines": 3,
            "totalLines": 3,
            "nextOffset": None,
            "writable": True,
            "bytes": 47,
            "estimatedTokens": round(text_weight(content)),
        },
        "attachments": [],
    }


def test_json_details_of_a_window(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"l1\nl2\nl3\nl4\nl5\n")
    code, out, _ = hashline(tmp_path, "a.txt", "--offset", "2", "--limit", "2", "--json")
    assert code == 0
    content = json.loads(out)["content"]
    assert details(tmp_path, "a.txt", "--offset", "2", "--limit", "2") == {
        "path": "a.txt",
        "tag": "e013lfKW",
        "offset": 2,
        "shownLines": 2,
        "totalLines": 6,
        "nextOffset": 4,
        "writable": True,
        "bytes": 89,
        "estimatedTokens": round(text_weight(content)),
    }


def test_json_details_of_a_truncated_page(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_bytes(b"x\n" * 2099 + b"x")
    facts = details(tmp_path, "many.txt")
    assert (facts["shownLines"], facts["totalLines"], facts["nextOffset"]) == (1999, 2100, 2000)
    facts = details(tmp_path, "many.txt", "--offset", "2000")
    assert (facts["offset"], facts["shownLines"], facts["nextOffset"]) == (2000, 101, None)


def test_header_shows_the_path_as_given(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_bytes(b"x")
    absolute = str(tmp_path / "sub" / "a.txt")
    for given in ["./sub/a.txt", "sub/../sub/a.txt", absolute, "sub//a.txt"]:
        code, out, _ = hashline(tmp_path, given)
        assert (code, out) == (0, f"@file {given}#LXEWQrcm\n1#dsp|x\n")
    assert details(tmp_path, "./sub/a.txt")["path"] == "./sub/a.txt"


def test_output_file_gets_the_same_bytes(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbfa\r\nb")
    code, out, _ = hashline(tmp_path, "a.txt", "-o", "out.txt")
    assert (code, out) == (0, "")
    assert (tmp_path / "out.txt").read_bytes() == hashline(tmp_path, "a.txt")[1].encode()


# --- errors ------------------------------------------------------------------------------


@pytest.mark.smoke
def test_missing_file(tmp_path: Path) -> None:
    expected = f"ENOENT: no such file or directory, access '{tmp_path / 'nope.txt'}'"
    assert failure(tmp_path, "nope.txt") == expected


def test_directory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    assert failure(tmp_path, "d") == "EISDIR: illegal operation on a directory, read"


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    result = run_readmany(["hashline", "--compat", "pipe"], cwd=tmp_path, timeout=20)
    assert (result.returncode, result.stdout) == (1, b"")
    assert result.stderr.decode() == (
        f"readmany: Not a regular file (FIFO), refusing to read: {tmp_path / 'pipe'}\n"
    )


def test_character_device_is_refused_without_reading(tmp_path: Path) -> None:
    result = run_readmany(["hashline", "--compat", "/dev/zero"], cwd=tmp_path, timeout=20)
    assert (result.returncode, result.stdout) == (1, b"")
    assert b"Not a regular file (character device)" in result.stderr


def test_invalid_utf8_names_the_path_as_given(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "x.dat").write_bytes(b"ok\n\xff\xfe\n")
    assert failure(tmp_path, "./bin/x.dat") == (
        "Cannot use hashline tools on ./bin/x.dat: the file is not valid UTF-8."
    )


def test_invalid_utf8_late_in_a_big_file(tmp_path: Path) -> None:
    (tmp_path / "late.txt").write_bytes(b"fine line\n" * 300_000 + b"\xc3")
    assert failure(tmp_path, "late.txt", "--limit", "1") == (
        "Cannot use hashline tools on late.txt: the file is not valid UTF-8."
    )


def test_offset_error_comes_before_the_utf8_error(tmp_path: Path) -> None:
    (tmp_path / "x.bin").write_bytes(b"\x80\ntwo")
    assert failure(tmp_path, "x.bin", "--offset", "3") == (
        "Offset 3 is beyond end of file (2 lines total)"
    )


def test_offset_error_counts_raw_lf_pieces(tmp_path: Path) -> None:
    (tmp_path / "cr.txt").write_bytes(b"a\rb\rc")
    assert failure(tmp_path, "cr.txt", "--offset", "2") == (
        "Offset 2 is beyond end of file (1 lines total)"
    )
    (tmp_path / "lf.txt").write_bytes(b"a\nb\n")
    assert failure(tmp_path, "lf.txt", "--offset", "4") == (
        "Offset 4 is beyond end of file (3 lines total)"
    )
    assert hashline(tmp_path, "lf.txt", "--offset", "3")[1].endswith("\n3#zyb|\n")


def test_path_with_a_line_break_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a\nb.txt").write_bytes(b"x")
    assert failure(tmp_path, "a\nb.txt") == (
        "Invalid file header path. Expected one non-empty path without line breaks."
    )


@pytest.mark.parametrize("flag", ["--offset", "--limit"])
@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_bad_offset_or_limit_is_a_usage_error(tmp_path: Path, flag: str, value: str) -> None:
    (tmp_path / "a.txt").write_bytes(b"x")
    code, out, err = hashline(tmp_path, "a.txt", flag, value)
    assert (code, out) == (2, "")
    assert err.startswith("readmany: ")


# --- images and files this process may not write -----------------------------------------


def test_an_image_gets_the_plain_read(tmp_path: Path) -> None:
    (tmp_path / "dot.png").write_bytes(PNG)
    assert hashline(tmp_path, "dot.png") == (0, "Read image file [image/png]\n", "")
    facts = details(tmp_path, "dot.png")
    assert (facts["tag"], facts["shownLines"], facts["writable"]) == (None, 0, True)


def _read_only(directory: Path, name: str, data: bytes) -> list[str]:
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("running as root without setpriv/runuser: every file is writable")
    (directory / name).write_bytes(data)
    os.chmod(directory / name, 0o444)
    return prefix


@pytest.mark.smoke
def test_read_only_file_details(shared_dir: Path) -> None:
    prefix = _read_only(shared_dir, "ro.txt", b"a\nb\nc\n")
    result = run_unprivileged(
        prefix, ["hashline", "--compat", "ro.txt", "--limit", "2", "--json"], shared_dir
    )
    assert result.returncode == 0
    content = "a\nb\n\n[2 more lines in file. Use offset=3 to continue.]"
    assert json.loads(result.stdout) == {
        "content": content,
        "details": {
            "path": "ro.txt",
            "tag": None,
            "offset": 1,
            "shownLines": 2,
            "totalLines": 4,
            "nextOffset": 3,
            "writable": False,
            "bytes": 54,
            "estimatedTokens": round(text_weight(content)),
        },
        "attachments": [],
    }


@pytest.mark.smoke
def test_big_read_only_file_is_streamed_by_the_plain_read(shared_dir: Path) -> None:
    data = b"".join(b"%08d\n" % n for n in range(1_000_000))  # 9 MB, over the whole-file limit
    prefix = _read_only(shared_dir, "big.log", data)
    args = ["hashline", "--compat", "big.log", "--offset", "999001", "--json"]
    result = run_unprivileged(prefix, args, shared_dir)
    assert result.returncode == 0
    value = json.loads(result.stdout)
    lines = [b"%08d" % n for n in range(999_000, 1_000_000)] + [b""]
    assert value["content"] == b"\n".join(lines).decode()
    assert value["details"]["totalLines"] == 1_000_001
    assert value["details"]["shownLines"] == 1001
    assert value["details"]["nextOffset"] is None


@pytest.mark.smoke
def test_big_read_only_file_first_page(shared_dir: Path) -> None:
    data = b"".join(b"%08d\n" % n for n in range(1_000_000))
    prefix = _read_only(shared_dir, "big.log", data)
    result = run_unprivileged(prefix, ["hashline", "--compat", "big.log", "--json"], shared_dir)
    value = json.loads(result.stdout)
    assert value["content"].endswith(
        "\n00001999\n\n[Showing lines 1-2000 of 1000001. Use offset=2001 to continue.]"
    )
    assert (value["details"]["shownLines"], value["details"]["nextOffset"]) == (2000, 2001)


# --- big writable files: one streaming pass ----------------------------------------------


def _run_in_process(cwd: Path, request: HashlineRequest) -> tuple[str, dict[str, object], int]:
    stream = io.BytesIO()
    old = os.getcwd()
    os.chdir(cwd)
    tracemalloc.start()
    try:
        outcome = run_hashline(request, Sink(stream, json_mode=False))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        os.chdir(old)
    assert outcome.failure is None
    return stream.getvalue().decode(), outcome.details, peak


def test_big_file_is_read_in_bounded_memory(tmp_path: Path) -> None:
    data = b"".join(b"line %07d\n" % n for n in range(2_500_000))  # 32.5 MB, under the limit
    (tmp_path / "big.txt").write_bytes(data)
    request = HashlineRequest("big.txt", offset=2_499_999, limit=5)
    text, facts, peak = _run_in_process(tmp_path, request)
    assert text == (
        f"@file big.txt#{file_tag(data)}\n"
        f"2499999#{line_anchor('line 2499998')}|line 2499998\n"
        f"2500000#{line_anchor('line 2499999')}|line 2499999\n"
        f"2500001#zyb|"
    )
    assert (facts["totalLines"], facts["shownLines"]) == (2_500_001, 3)
    assert peak < 8 << 20


def test_one_huge_line_keeps_only_its_head(tmp_path: Path) -> None:
    line = "word\t" * 400_000  # 2 MB without a line break
    (tmp_path / "one.txt").write_text(line + "\nend", encoding="utf-8")
    text, facts, peak = _run_in_process(tmp_path, HashlineRequest("one.txt"))
    tag = file_tag((tmp_path / "one.txt").read_bytes())
    assert text.split("\n") == [
        f"@file one.txt#{tag}",
        f"1#{line_anchor(line)}|{line[:500]}... [truncated]",
        f"2#{line_anchor('end')}|end",
        "",
        "[Lines 1 shown compactly. Their anchors hash the full original lines.]",
    ]
    assert facts["shownLines"] == 2
    assert peak < 3 << 20
