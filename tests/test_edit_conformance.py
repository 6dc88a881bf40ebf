"""The reference's edit vectors, run through the installed `readmany edit --request`.

Each vector holds a file's bytes, doompi-edit's arguments and either the result text and
the file's bytes afterwards, or the error; a refused edit leaves the file as it was.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import run_readmany

GOLDEN = Path(__file__).parent / "conformance" / "hashline" / "golden"
VECTORS = [
    json.loads(path.read_text(encoding="utf-8")) for path in sorted(GOLDEN.glob("edit_*.json"))
]
REQUEST_NAME = "request.json"


def test_all_ten_edit_vectors_are_here() -> None:
    assert len(VECTORS) == 10
    assert all(vector["kind"] == "edit" for vector in VECTORS)
    assert all(vector["path"] != REQUEST_NAME for vector in VECTORS)


def _exit_status(error: str) -> int:
    return 3 if error.startswith("Stale ") else 2


@pytest.mark.parametrize("via_stdin", [False, True], ids=["file", "stdin"])
@pytest.mark.parametrize("vector", [pytest.param(v, id=v["name"]) for v in VECTORS])
def test_edit_vector(vector: dict[str, Any], via_stdin: bool, tmp_path: Path) -> None:
    target = tmp_path / vector["path"]
    before = base64.b64decode(vector["input_b64"])
    target.write_bytes(before)
    arguments = {"path": vector["path"], "hash": vector["hash"], "edits": vector["edits"]}
    request = json.dumps(arguments).encode("utf-8")
    if via_stdin:
        result = run_readmany(["edit", "--request", "-"], cwd=tmp_path, stdin=request)
    else:
        (tmp_path / REQUEST_NAME).write_bytes(request)
        result = run_readmany(["edit", "--request", REQUEST_NAME], cwd=tmp_path)

    error = vector["expected_error"]
    if error is None:
        assert (result.returncode, result.stderr) == (0, b"")
        assert result.stdout == vector["expected_output"].encode("utf-8") + b"\n"
        assert target.read_bytes() == base64.b64decode(vector["expected_output_bytes_b64"])
    else:
        assert result.returncode == _exit_status(error)
        assert result.stdout == b""
        assert result.stderr == f"readmany: {error}\n".encode()
        assert target.read_bytes() == before
    names = {path.name for path in tmp_path.iterdir()}
    assert names == {vector["path"]} | (set() if via_stdin else {REQUEST_NAME})  # no temp left
