"""What a run imports: the ignore rules are matched by readmany's own `wildmatch`, so
pathspec (a reference the tests check the rules against, not a dependency) is never
imported by a run; a user who has not installed it must not need it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / ".git").mkdir(parents=True)
    (tree / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n*.py[cod]\n")
    for name in ["a.txt", "x.log", "keep.log", "m.pyc", "build/out.txt"]:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(f"{name}\n")
    return tree


@pytest.mark.smoke
def test_no_run_imports_pathspec(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    env = {**os.environ, "READMANY_PROCESSES": "1"}  # every import in view, in one process
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "readmany", "glob", "**", "-o", os.devnull],
        cwd=tree,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()]
    assert "readmany.select.wildmatch" in imported
    assert not [name for name in imported if name.startswith("pathspec")]
