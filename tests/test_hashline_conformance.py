"""The reference's hashline vectors, run through the installed `readmany hashline`."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import run_readmany, run_unprivileged, unprivileged_prefix

from readmany.read.hashline import decode_lines, file_tag, line_anchor

GOLDEN = Path(__file__).parent / "conformance" / "hashline" / "golden"
VECTORS = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(GOLDEN.glob("*.json"))]


def _kind(kind: str) -> list[Any]:
    return [pytest.param(v, id=v["name"]) for v in VECTORS if v["kind"] == kind]


def _js_utf8(text: str) -> bytes:
    """UTF-8 as JavaScript writes it: a lone surrogate becomes U+FFFD."""
    paired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return paired.encode("utf-8")


def _args(vector: dict[str, Any], path: str) -> list[str]:
    args = ["hashline", "--compat", path]
    if vector["offset"] is not None:
        args += ["--offset", str(vector["offset"])]
    if vector["limit"] is not None:
        args += ["--limit", str(vector["limit"])]
    return args


def _place(root: Path, vector: dict[str, Any]) -> Path:
    target = root / str(vector["path"]).lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(base64.b64decode(vector["input_b64"]))
    return target


def _check(result: subprocess.CompletedProcess[bytes], vector: dict[str, Any]) -> None:
    if vector["expected_error"] is not None:
        assert result.returncode != 0
        assert result.stdout == b""
        assert vector["expected_error"] in result.stderr.decode("utf-8")
    else:
        assert result.stderr == b""
        assert result.returncode == 0
        assert result.stdout == _js_utf8(vector["expected_output"]) + b"\n"


def test_every_vector_kind_is_present() -> None:
    kinds = [v["kind"] for v in VECTORS]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "read": 21,
        "native_read": 5,
        "anchor": 6,
        "edit": 10,
    }


@pytest.mark.parametrize("vector", _kind("anchor"))
def test_anchor(vector: dict[str, Any]) -> None:
    assert line_anchor(vector["anchor_text"]) == vector["expected_output"]


@pytest.mark.parametrize("vector", _kind("read"))
def test_file_tag(vector: dict[str, Any]) -> None:
    assert file_tag(base64.b64decode(vector["input_b64"])) == vector["file_tag"]


@pytest.mark.parametrize("vector", _kind("read"))
def test_read(vector: dict[str, Any], tmp_path: Path) -> None:
    _place(tmp_path, vector)
    result = run_readmany(_args(vector, vector["path"]), cwd=tmp_path)
    _check(result, vector)


@pytest.mark.parametrize("vector", _kind("read"))
def test_read_headless_rows(vector: dict[str, Any]) -> None:
    """Where the headless adapter answers with text, its rows are the same lines ours are."""
    expected = vector["expected_output_headless"]
    if expected is None:
        assert vector["expected_error_headless"] is not None
        return
    data = base64.b64decode(vector["input_b64"])
    lines = decode_lines(data)
    header, *rows = expected.split("\n\n[")[0].split("\n")
    assert header.endswith("#" + vector["file_tag"])
    for row in rows:
        number, rest = row.split("#", 1)
        anchor, text = rest.split("|", 1)
        assert anchor == line_anchor(lines[int(number) - 1])
        if not row.endswith("... [truncated]"):
            assert text == lines[int(number) - 1]


@pytest.mark.smoke
@pytest.mark.parametrize("vector", _kind("native_read"))
def test_native_read(vector: dict[str, Any], shared_dir: Path) -> None:
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("running as root without setpriv/runuser: every file is writable")
    target = _place(shared_dir, vector)
    for directory in target.relative_to(shared_dir).parents:
        os.chmod(shared_dir / directory, 0o755)
    os.chmod(target, 0o444)
    _check(run_unprivileged(prefix, _args(vector, str(target)), shared_dir), vector)


# The edit vectors run through `readmany edit` in test_edit_conformance.py. What the read
# side promises about them is checked here: the tag a snapshot gives, and the anchors and
# line counts their error messages quote.
_TAG_AT_END = re.compile(r"([A-Za-z0-9_-]{8})\s*$")


@pytest.mark.parametrize("vector", _kind("edit"))
def test_edit_vectors_quote_the_tags_and_anchors_a_read_gives(vector: dict[str, Any]) -> None:
    data = base64.b64decode(vector["input_b64"])
    lines = decode_lines(data)
    error = vector["expected_error"] or ""
    stale = re.search(r"Current hash is (\S+)\.", error)
    given = _TAG_AT_END.search(vector["hash"])
    if stale:
        assert stale.group(1) == file_tag(data)
        assert given is not None and given.group(1) != file_tag(data)
    elif error.startswith("Invalid file hash"):
        assert given is None
    else:
        assert given is not None and given.group(1) == file_tag(data)
    for number, anchor in re.findall(r"Current anchor is (\d+)#(\w+)", error):
        assert line_anchor(lines[int(number) - 1]) == anchor
    for count in re.findall(r"the file has (\d+) lines", error):
        assert len(lines) == int(count)
