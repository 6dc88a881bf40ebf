"""The reference's recorded `read_many` cases, run through the installed command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import run_readmany

HERE = Path(__file__).parent / "conformance" / "many"
# The goldens hold absolute paths under the root they were recorded with.
ROOT = Path("/tmp/readmany-oracle/fx")
CASES = json.loads((HERE / "cases.json").read_text(encoding="utf-8"))
# Needs the tool's argument limits bypassed: readmany keeps the limit (exit 2).
BYPASSED_VALIDATION = {"50_27_files_direct_no_validation"}


@pytest.fixture(scope="session")
def fixture_root() -> Path:
    subprocess.run([sys.executable, str(HERE / "make_fixtures.py"), str(ROOT)], check=True)
    return ROOT


def _strip_truncation(details: dict[str, Any]) -> dict[str, Any]:
    files = [{k: v for k, v in f.items() if k != "truncation"} for f in details["files"]]
    return {**details, "files": files}


def _contains(ours: Any, golden: Any) -> bool:
    """Whether `ours` holds every key and value of `golden` (extra keys allowed)."""
    if isinstance(golden, dict):
        return isinstance(ours, dict) and all(
            k in ours and _contains(ours[k], v) for k, v in golden.items()
        )
    if isinstance(golden, list):
        return (
            isinstance(ours, list)
            and len(ours) == len(golden)
            and all(_contains(a, b) for a, b in zip(ours, golden, strict=True))
        )
    return bool(ours == golden and type(ours) is type(golden))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: dict[str, Any], fixture_root: Path, tmp_path: Path) -> None:
    golden = HERE / "golden" / case["name"]
    params = json.dumps(case["params"]).replace("{ROOT}", str(fixture_root))
    request = tmp_path / "params.json"
    request.write_text(params, encoding="utf-8")
    cwd = fixture_root / case["cwd"]
    result = json.loads((golden / "result.json").read_text(encoding="utf-8"))

    text = run_readmany(["many", "--compat", "--request", str(request)], cwd=cwd)
    if result["isError"] or case["name"] in BYPASSED_VALIDATION:
        assert text.returncode == 2
        assert text.stdout == b""
        assert text.stderr.startswith(b"readmany: ") and text.stderr.count(b"\n") == 1
        return
    expected = (golden / "output.txt").read_bytes()
    assert text.stdout == expected + b"\n"

    as_json = run_readmany(["many", "--compat", "--request", str(request), "--json"], cwd=cwd)
    assert as_json.returncode == text.returncode
    report = json.loads(as_json.stdout)
    assert report["content"].encode("utf-8") == expected
    want = json.loads((golden / "details.json").read_text(encoding="utf-8"))
    assert _contains(_strip_truncation(report["details"]), _strip_truncation(want))
    errors = want["errorCount"]
    assert text.returncode == (1 if errors else 0)
