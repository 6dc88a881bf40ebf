"""The MCP tools open a file beneath the root they judged it to lie in: a directory
swapped for a link out of the root between the judgement and the read shows nothing
from outside (the swap made deterministic, right after the judgement)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from readmany.serve.config import ServerConfig
from readmany.serve.roots import Roots
from readmany.serve.tools import Tools

SECRET = "OUTSIDE THE ROOT"


def tree(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.txt").write_text("inside\n")
    outside.mkdir()
    (outside / "a.txt").write_text(SECRET + "\n")
    return root, outside


def swap_after_judging(monkeypatch: pytest.MonkeyPatch, root: Path, outside: Path) -> None:
    judge = Roots.root_of

    def judged_then_swapped(self: Roots, path: str, *, rewrite: bool) -> str:
        found = judge(self, path, rewrite=rewrite)
        os.rename(root / "sub", root / "sub.old")
        os.symlink(outside, root / "sub")
        return found

    monkeypatch.setattr(Roots, "root_of", judged_then_swapped)


def text_of(result: Any) -> str:
    return "".join(part.get("text", "") for part in result["content"])


def test_read_many_does_not_follow_a_directory_swapped_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = tree(tmp_path)
    monkeypatch.chdir(root)  # as the server does: relative paths start at the first root
    tools = Tools(ServerConfig(roots=(str(root),)))
    assert "inside" in text_of(tools.call("read_many", {"files": [{"path": "sub/a.txt"}]}))
    swap_after_judging(monkeypatch, root, outside)
    shown = text_of(tools.call("read_many", {"files": [{"path": "sub/a.txt"}]}))
    assert SECRET not in shown
    assert "sub/a.txt" in shown  # said, as an error block, not dropped


def test_read_does_not_follow_a_directory_swapped_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = tree(tmp_path)
    monkeypatch.chdir(root)  # as the server does: relative paths start at the first root
    tools = Tools(ServerConfig(roots=(str(root),)))
    assert "inside" in text_of(tools.call("read", {"path": "sub/a.txt"}))
    swap_after_judging(monkeypatch, root, outside)
    result = tools.call("read", {"path": "sub/a.txt"})
    assert SECRET not in text_of(result)
    assert result.get("isError") is True


def test_read_many_files_lists_no_directory_outside_the_roots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = tree(tmp_path)
    (outside / "private-name.txt").write_text("x\n")
    monkeypatch.chdir(root)
    tools = Tools(ServerConfig(roots=(str(root),)))
    for pattern in (f"{outside}/**", "../outside/*", f"{outside}/*.txt"):
        result = tools.call("read_many_files", {"include": [pattern]})
        assert "private-name" not in repr(result), pattern
        assert SECRET not in repr(result), pattern
