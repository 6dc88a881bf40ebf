"""The pre-commit hook, end to end: the real pre-commit installs readmany from this
repository and runs it when a commit is made in a fresh git repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True, env=env)
    return done.stdout.decode().strip()


def pre_commit() -> list[str]:
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "pre_commit"]


@pytest.fixture(scope="module")
def revision() -> str:
    """The commit of this checkout the hook is installed from."""
    if not (ROOT / ".git").exists():
        pytest.fail("the pre-commit test needs this project as a git checkout")
    return git("rev-parse", "HEAD", cwd=ROOT)


def test_the_hook_dumps_the_staged_files_at_commit(tmp_path: Path, revision: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("config", "user.email", "dev@example.org", cwd=repo)
    git("config", "user.name", "Dev", cwd=repo)
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {ROOT}\n"
        f"    rev: {revision}\n"
        "    hooks:\n"
        "      - id: readmany-context\n"
        "      - id: readmany-context-json\n"
    )
    (repo / "app.py").write_text("print('hello')\n")
    (repo / "notes.md").write_text("# Notes\n")
    (repo / "blob.dat").write_bytes(b"\x00\x01\x02")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run([*pre_commit(), "install"], cwd=repo, check=True, env=env, capture_output=True)
    git("add", ".", cwd=repo)
    commit = subprocess.run(
        ["git", "commit", "-q", "-m", "first"], cwd=repo, capture_output=True, env=env, timeout=600
    )
    assert commit.returncode == 0, commit.stdout.decode() + commit.stderr.decode()

    dump = (repo / ".git" / "readmany-context.txt").read_text()
    assert dump == (
        "--- .pre-commit-config.yaml ---\n\n"
        + (repo / ".pre-commit-config.yaml").read_text()
        + "\n\n--- app.py ---\n\nprint('hello')\n\n\n"
        "--- notes.md ---\n\n# Notes\n\n\n\n--- End of content ---\n"
    )
    report = json.loads((repo / ".git" / "readmany-context.json").read_text())
    assert report["details"]["files"] == [".pre-commit-config.yaml", "app.py", "notes.md"]
    assert report["details"]["skipped"] == [{"path": "blob.dat", "reason": "binary file"}]
    assert git("status", "--porcelain", cwd=repo) == ""  # the dumps are not in the tree
