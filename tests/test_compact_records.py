"""Records held compactly: `SeenPaths` (exact, however hashes fall) and `JsonArray` (the
same JSON text as `json.dumps`, in memory or from its temporary file)."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from readmany import scratch
from readmany.emit import jsonarray
from readmany.emit.jsonarray import JoinedArrays, JsonArray
from readmany.emit.sink import Sink
from readmany.select import seen
from readmany.select.seen import SeenPaths


class _SameHash(str):
    """A path whose hash is the same as every other's: only its bytes tell it apart."""

    def __hash__(self) -> int:
        return 7


@pytest.mark.parametrize("spill", [1 << 16, 8])
def test_seen_paths_drop_repeats_only(monkeypatch: pytest.MonkeyPatch, spill: int) -> None:
    monkeypatch.setattr(seen, "_SPILL", spill)  # 8: the log goes to its file at once
    paths = [f"dir{i % 13}/file{i}.txt" for i in range(5000)] + ["caf\udce9", "café"]
    known = SeenPaths()
    assert [known.add(path) for path in paths] == [True] * len(paths)
    assert [known.add(path) for path in reversed(paths)] == [False] * len(paths)
    assert len(known) == len(paths) and "dir0/file0.txt" in known and "dir0" not in known
    known.close()


def test_seen_paths_widen_their_log_offsets_past_four_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(seen, "_NARROW_END", 100)  # as a log past 4 GiB would
    known = SeenPaths()
    paths = [f"some/longer/path/number/{i}.txt" for i in range(50)]
    assert all(known.add(path) for path in paths)
    assert known._ends.typecode == "Q"
    assert not any(known.add(path) for path in paths) and len(known) == 50
    known.close()


def test_seen_paths_with_equal_hashes_are_told_apart_by_their_bytes() -> None:
    known = SeenPaths()
    paths = [_SameHash(f"p{i}") for i in range(40)]
    assert all(known.add(path) for path in paths)
    assert not any(known.add(_SameHash(f"p{i}")) for i in range(40))
    assert known.add(_SameHash("p40"))


@pytest.mark.parametrize("in_memory", [1 << 18, 10])
def test_json_array_text_is_json_dumps(monkeypatch: pytest.MonkeyPatch, in_memory: int) -> None:
    monkeypatch.setattr(jsonarray, "_IN_MEMORY", in_memory)
    monkeypatch.setattr(jsonarray, "_BATCH", 3)
    monkeypatch.setattr(jsonarray, "_READ", 5)  # pieces cut anywhere, even in a character
    items = [{"path": f"é/{i}", "bytes": i, "lossy": i % 2 == 0} for i in range(10)]
    items.append({"path": "bad\udcff", "reason": "x"})
    array = JsonArray()
    for item in items:
        array.append(item)
    expected = json.dumps(items, ensure_ascii=False).replace("\udcff", "\\udcff").encode()
    assert b"".join(array.pieces()) == expected
    assert list(array) == items and array == items and len(array) == len(items)
    empty = JsonArray()
    joined = JoinedArrays(empty, array, empty, array)
    assert b"".join(joined.pieces()) == b"[" + expected[1:-1] + b", " + expected[1:-1] + b"]"
    assert joined == [*items, *items]
    assert b"".join(JoinedArrays(empty, empty).pieces()) == b"[]"


def test_the_details_are_written_as_one_json_dumps_would() -> None:
    array = JsonArray()
    for i in range(600):
        array.append({"path": f"f{i}", "n": i})
    details = {"root": "/r", "files": array, "skipped": JoinedArrays(JsonArray(), array), "x": {}}
    stream = io.BytesIO()
    sink = Sink(stream, json_mode=True)
    sink.write("text\n")
    sink.finish(details, [])
    plain = {**details, "files": list(array), "skipped": list(array)}
    tail = json.dumps({"details": plain, "attachments": []}, ensure_ascii=False)
    assert stream.getvalue().decode() == '{"content": "text\\n", ' + tail[1:] + "\n"


def _holds(fd: int, data: bytes) -> bytes:
    """What `fd` gives back after `data` is written to it."""
    try:
        os.write(fd, data)
        return os.pread(fd, len(data) + 1, 0)
    finally:
        os.close(fd)


def test_the_spill_file_has_no_name_and_lives_where_tmpdir_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    fd = scratch.anonymous_file()
    status = os.fstat(fd)
    assert status.st_nlink == 0 and stat.S_ISREG(status.st_mode)
    assert status.st_dev == os.stat(tmp_path).st_dev
    assert stat.S_IMODE(status.st_mode) == 0o600
    assert _holds(fd, b"spilled") == b"spilled"
    assert list(tmp_path.iterdir()) == []  # nothing named was left behind


def test_the_spill_file_is_made_elsewhere_when_no_directory_takes_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As on a system without O_TMPFILE: `tempfile` makes it (and unlinks it).
    monkeypatch.setattr(scratch, "_directories", lambda: [str(tmp_path / "missing")])
    fd = scratch.anonymous_file()
    assert os.fstat(fd).st_nlink == 0
    assert _holds(fd, b"spilled") == b"spilled"


def test_a_spilling_run_does_not_import_tempfile(tmp_path: Path) -> None:
    probe = (
        "import sys; from readmany.select import seen; seen._SPILL = 8\n"
        "known = seen.SeenPaths(); [known.add(f'p{i}') for i in range(100)]\n"
        "assert known._file is not None and not known.add('p7')\n"
        "print('tempfile' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ("True" if not hasattr(os, "O_TMPFILE") else "False")
