"""The pre-commit hooks, end to end: the real pre-commit installs readmany from this
repository (a local path: no network for the hook itself) and runs the shipped hooks
when a commit is made in a fresh git repository."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
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


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One pre-commit cache for the module: readmany is installed into it once."""
    return {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-cache")),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def hooked_repo(repo: Path, revision: str, env: dict[str, str], hooks: str) -> Path:
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("config", "user.email", "dev@example.org", cwd=repo)
    git("config", "user.name", "Dev", cwd=repo)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {revision}\n    hooks:\n{hooks}"
    )
    subprocess.run([*pre_commit(), "install"], cwd=repo, check=True, env=env, capture_output=True)
    return repo


def commit(repo: Path, env: dict[str, str], message: str) -> str:
    """Commit what is staged; what the hooks said (stdout and stderr)."""
    done = subprocess.run(
        ["git", "commit", "-q", "-m", message], cwd=repo, capture_output=True, env=env, timeout=900
    )
    said = done.stdout.decode() + done.stderr.decode()
    assert done.returncode == 0, said
    return said


def sections(dump: str) -> Iterator[str]:
    """The paths of a text dump's `--- path ---` separators, in order."""
    for match in re.finditer(r"^--- (.+) ---$", dump, flags=re.MULTILINE):
        if match.group(1) != "End of content":
            yield match.group(1)


def test_the_hook_dumps_the_staged_files_at_commit(
    tmp_path: Path, revision: str, hook_env: dict[str, str]
) -> None:
    repo = hooked_repo(
        tmp_path / "repo",
        revision,
        hook_env,
        "      - id: readmany-context\n      - id: readmany-context-json\n",
    )
    (repo / "app.py").write_text("print('hello')\n")
    (repo / "notes.md").write_text("# Notes\n")
    (repo / "blob.dat").write_bytes(b"\x00\x01\x02")
    git("add", ".", cwd=repo)
    commit(repo, hook_env, "first")

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


def test_one_run_holds_every_staged_file_of_a_large_commit(
    tmp_path: Path, revision: str, hook_env: dict[str, str]
) -> None:
    """3,001 files: more than one command line of names, which pre-commit would split."""
    repo = hooked_repo(
        tmp_path / "repo",
        revision,
        hook_env,
        "      - id: readmany-context\n"
        "      - id: readmany-context-json\n"
        "        args: [--output, context.json]\n",  # in the work tree, ignored as README says
    )
    (repo / ".gitignore").write_text("context.json\n")
    names = [f"src/package_{i // 100:02d}/module_number_{i:04d}.py" for i in range(3001)]
    for i, name in enumerate(names):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(f"VALUE = {i}\n")
    git("add", ".", cwd=repo)
    commit(repo, hook_env, "many files")

    expected = [".gitignore", ".pre-commit-config.yaml", *names]
    dump = (repo / ".git" / "readmany-context.txt").read_text()
    assert list(sections(dump)) == expected  # each once, in order
    assert dump.count("VALUE = ") == 3001
    report = json.loads((repo / "context.json").read_text())
    assert report["details"]["files"] == expected
    assert report["details"]["skipped"] == []

    # The next commit, with the first dump lying in the work tree: not in the new dump.
    (repo / names[7]).write_text("VALUE = 'changed'\n")
    git("add", "-A", cwd=repo)
    commit(repo, hook_env, "one change")
    report = json.loads((repo / "context.json").read_text())
    assert report["details"]["files"] == [names[7]]
    assert report["details"]["skipped"] == []
    assert list(sections((repo / ".git" / "readmany-context.txt").read_text())) == [names[7]]
    assert "context.json" not in git("ls-files", cwd=repo).splitlines()
    assert git("status", "--porcelain", cwd=repo) == ""


def test_the_hooks_name_a_staged_secret(
    tmp_path: Path, revision: str, hook_env: dict[str, str]
) -> None:
    # `--secrets warn`: the commit goes on (the dump is local), the finding is said where
    # pre-commit shows it (`verbose: true`) and kept in the JSON dump's details.
    repo = hooked_repo(
        tmp_path / "repo",
        revision,
        hook_env,
        "      - id: readmany-context\n        verbose: true\n      - id: readmany-context-json\n",
    )
    (repo / "settings.py").write_text("AWS_KEY = 'AKIAIOSFODNN7EXAMPLE'\n")
    git("add", ".", cwd=repo)
    shown = commit(repo, hook_env, "key")
    assert "settings.py: looks like a secret: line 1 (aws-access-key-id)" in shown
    report = json.loads((repo / ".git" / "readmany-context.json").read_text())
    assert [finding["path"] for finding in report["details"]["secrets"]] == ["settings.py"]
    assert "AKIAIOSFODNN7EXAMPLE" in (repo / ".git" / "readmany-context.txt").read_text()
