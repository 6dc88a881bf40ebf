"""A path the MCP tools are given means what it means on the command line: a file's
name written as a directory's (`a.txt/`) is refused by every tool that reads a file, as
`readmany many` and `readmany hashline` refuse it, not read as `a.txt`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import run_readmany

from readmany.serve.config import ServerConfig
from readmany.serve.tools import Tools

NOT_A_DIRECTORY = "a part of the path is not a directory"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # as the server does: relative paths start at the first root
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("beta\n")
    (tmp_path / "link").symlink_to("a.txt")
    return tmp_path


def _text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


@pytest.mark.parametrize("path", ["a.txt/", "a.txt/.", "a.txt//", "link/", "sub/b.txt/"])
def test_a_file_named_as_a_directory_is_refused_as_the_command_line_refuses_it(
    root: Path, path: str
) -> None:
    said = f"{path}: {NOT_A_DIRECTORY}"
    for command in (["hashline", path], ["many", path]):
        result = run_readmany(command, cwd=root)
        assert result.returncode == 1
        assert result.stderr.decode().splitlines() == [f"readmany: {said}"]
        assert b"alpha" not in result.stdout and b"beta" not in result.stdout
    tools = Tools(ServerConfig(roots=(str(root),)))
    for name, arguments in (
        ("read", {"path": path}),
        ("read_many", {"files": [{"path": path}]}),
        ("read_many", {"files": [{"path": "sub/b.txt"}, {"path": path}]}),
    ):
        result = tools.call(name, arguments)
        assert result["isError"], _text(result)
        assert _text(result) == said


def test_a_directory_or_a_missing_name_with_a_slash_is_read_as_before(root: Path) -> None:
    tools = Tools(ServerConfig(roots=(str(root),)))
    for path in ("a.txt", "sub/b.txt", "./a.txt"):
        assert not tools.call("read", {"path": path})["isError"]
    result = tools.call("read_many", {"files": [{"path": "sub/"}, {"path": "missing/"}]})
    assert not result["isError"], _text(result)
    assert "EISDIR" in _text(result) and "ENOENT" in _text(result)
