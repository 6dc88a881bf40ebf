"""The package as installed: version, shipped completions and man page, each command once.

All of these are smoke tests: .ci/run runs them again against the wheel it built,
installed in a virtual environment of its own (READMANY_COMMAND, see helpers).
"""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path

import pytest
from helpers import run_readmany

import readmany

pytestmark = pytest.mark.smoke

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = {
    ("completions", "bash"): ROOT / "completions" / "readmany.bash",
    ("completions", "zsh"): ROOT / "completions" / "_readmany",
    ("completions", "fish"): ROOT / "completions" / "readmany.fish",
    ("man",): ROOT / "man" / "readmany.1",
}


@pytest.mark.parametrize("args", [["--version"], ["-V"], ["-V", "--help"]])
def test_version_agrees_with_the_package_metadata(args: list[str]) -> None:
    result = run_readmany(args)  # the last: through the Typer app, not the fast path
    assert result.returncode == 0
    assert result.stdout == f"readmany {metadata.version('readmany')}\n".encode()
    assert metadata.version("readmany") == readmany.__version__


def test_version_is_the_latest_in_the_changelog() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    first = re.search(r"^## (\S+)", changelog, re.M)
    assert first is not None and first.group(1) == readmany.__version__


@pytest.mark.parametrize("args", sorted(SHIPPED), ids=" ".join)
def test_shipped_files_are_the_generated_ones(args: tuple[str, ...]) -> None:
    result = run_readmany(list(args))
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == SHIPPED[args].read_bytes()


def test_an_unknown_shell_is_one_line() -> None:
    result = run_readmany(["completions", "powershell"])
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr == b"readmany: completions 'powershell': give bash, zsh or fish\n"


def test_package_metadata_is_complete() -> None:
    meta = metadata.metadata("readmany")
    assert meta["License-Expression"] == "MIT"
    assert meta["Requires-Python"] == ">=3.10"
    assert meta.get_all("Classifier")
    assert meta["Keywords"]
    assert {url.split(",")[0] for url in meta.get_all("Project-URL") or []} >= {
        "Homepage",
        "Changelog",
    }
    assert any("tomli" in r and "python_version" in r for r in meta.get_all("Requires-Dist"))


def test_every_command_runs_once(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("one = 1\ntwo = 2\n")
    (tmp_path / "notes.md").write_text("# notes\n")
    many = run_readmany(["many", "src/a.py:2", "notes.md"], cwd=tmp_path)
    assert many.returncode == 0 and b"two = 2" in many.stdout and b"one = 1" not in many.stdout
    globbed = run_readmany(["glob", ".", "--json"], cwd=tmp_path)
    assert globbed.returncode == 0
    assert json.loads(globbed.stdout)["details"]["files"] == ["notes.md", "src/a.py"]
    hashed = run_readmany(["hashline", "src/a.py"], cwd=tmp_path)
    header, first = hashed.stdout.decode().splitlines()[:2]
    anchor = first.split("|")[0]
    edited = run_readmany(
        ["edit", header.split()[1], "--replace", anchor, "--content", "one = 10"], cwd=tmp_path
    )
    assert edited.returncode == 0, edited.stderr
    assert (tmp_path / "src" / "a.py").read_text() == "one = 10\ntwo = 2\n"


def test_the_project_configuration_is_read_by_the_installed_command(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a\n")
    (tmp_path / "b.md").write_text("b\n")
    (tmp_path / ".readmany.toml").write_text('patterns = ["*.py"]\n')
    result = run_readmany(["glob", "--json"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["details"]["files"] == ["a.py"]
