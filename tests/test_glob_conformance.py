"""The reference's recorded cases (tests/conformance/glob), run through the installed command.

Each case's params become command-line flags as a user would write them; stdout must be
the reference's text byte for byte. Cases with images, PDFs or media compare the `--json`
content and attachments with the reference's parts. Cases that touch a decided departure
(departures.json) are tested in test_glob_departures.py instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import run_readmany

CASES_DIR = Path(__file__).parent / "conformance" / "glob"
DEPARTURES: dict[str, str] = json.loads((CASES_DIR / "departures.json").read_text())
CASES = sorted(p.stem for p in (CASES_DIR / "cases").glob("*.json"))


@pytest.fixture(scope="session")
def glob_fixtures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("glob-conformance") / "fixtures"
    subprocess.run(
        [sys.executable, str(CASES_DIR / "make_fixtures.py"), str(dest)],
        check=True,
        capture_output=True,
    )
    return Path(os.path.realpath(dest))


def case_args(params: dict[str, Any], root: str) -> list[str]:
    """The command line for a case's tool arguments."""
    args = ["--absolute"]
    filtering = params.get("file_filtering_options", {})
    if filtering.get("respect_gemini_ignore", True):
        args += ["--ignore-file", ".geminiignore"]
    if not filtering.get("respect_git_ignore", True):
        args.append("--no-gitignore")
    if params.get("useDefaultExcludes", True):
        args += ["--exclude", "**/GEMINI.md"]
    else:
        args.append("--no-default-excludes")
    for pattern in params.get("exclude", []):
        args += ["--exclude", pattern]
    if params.get("recursive") is False:
        args.append("--no-recursive")
    return [*args, "--", *(p.replace("{ROOT}", root) for p in params["include"])]


def load(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    case = json.loads((CASES_DIR / "cases" / f"{name}.json").read_text())
    golden = json.loads((CASES_DIR / "golden" / f"{name}.json").read_text())
    return case, golden


def test_every_case_is_run_or_departs() -> None:
    assert len(CASES) == 46
    assert set(DEPARTURES) <= set(CASES)
    assert len([c for c in CASES if c not in DEPARTURES]) == 31


# Each case in one process and with the walk in a helper process: the same output.
@pytest.mark.parametrize("processes", ["1", "2"])
@pytest.mark.parametrize("name", [c for c in CASES if c not in DEPARTURES])
def test_glob_case(
    name: str, processes: str, glob_fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READMANY_PROCESSES", processes)  # the command inherits it
    case, golden = load(name)
    root = str(glob_fixtures / case["fixture"])
    args = case_args(case["params"], root)
    parts = golden["result"]["llmContent"]
    expected_text = "".join(p for p in parts if isinstance(p, str)).replace("{ROOT}", root)
    assert expected_text == golden["result"]["llmText"].replace("{ROOT}", root)
    inline = [p["inlineData"] for p in parts if isinstance(p, dict)]

    if not inline:
        done = run_readmany(["glob", "--compat", *args], cwd=root)
        assert done.stdout.decode("utf-8") == expected_text + "\n"
        assert done.returncode in (0, 1)
        return

    done = run_readmany(["glob", "--compat", "--json", *args], cwd=root)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["content"] == expected_text
    assert [{"mimeType": a["mimeType"], "data": a["data"]} for a in result["attachments"]] == [
        {"mimeType": p["mimeType"], "data": p["data"]} for p in inline
    ]


def test_exit_status_follows_read_failures(glob_fixtures: Path) -> None:
    root = glob_fixtures / "repo"
    assert run_readmany(["glob", "--compat", "README.md"], cwd=root).returncode == 0
    # links/* holds a dangling link and a link to a directory: both fail to read.
    failed = run_readmany(["glob", "--compat", "links/*"], cwd=root)
    assert failed.returncode == 1
    assert failed.stderr.decode().splitlines() == [
        "readmany: Read error: File not found: links/dangling.txt",
        "readmany: Read error: Path is a directory, not a file: links/src_dirlink",
        "readmany: 1 skipped (symlink outside the root): links/outside_link.txt",
    ]
