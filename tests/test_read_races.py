"""A link swapped while readmany resolves it (issue 26, read side): `realpath` then fails
(EINVAL, ELOOP, ENOENT), and the path is reported as skipped, on stderr and in the
`--json` details, never a traceback and exit 70.

The swap is made deterministic: `os.path.realpath` fails as a swap makes it fail, for the
paths under the swapped directory, every time it is asked."""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import make, run_readmany

SWAPPED = "/swapped/"
_REAL_REALPATH = os.path.realpath


def _swapping(path: str | os.PathLike[str], *args: object, **kwargs: object) -> str:
    text = os.fspath(path)
    if SWAPPED in text + "/":
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), text)
    return _REAL_REALPATH(text, *args, **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`a.txt`, and `swapped/` holding a file reached through a link."""
    make(
        tmp_path,
        {"a.txt": "plain\n", "swapped/real.dat": "behind a link\n", "swapped/own.txt": "own\n"},
    )
    os.symlink("real.dat", tmp_path / "swapped" / "link.txt")
    os.symlink("a.txt", tmp_path / "alias.txt")
    monkeypatch.setattr(os.path, "realpath", _swapping)
    return tmp_path


def _no_crash(result: subprocess.CompletedProcess[bytes]) -> str:
    err = result.stderr.decode()
    assert result.returncode != 70, err
    assert "Traceback" not in err
    return err


def test_glob_reports_a_link_that_cannot_be_followed_and_reads_the_rest(tree: Path) -> None:
    result = run_readmany(["glob", "**/*.txt", "--json"], cwd=tree)
    _no_crash(result)
    out = json.loads(result.stdout)
    assert "--- a.txt ---" in out["content"]
    skipped = {record["path"]: record["reason"] for record in out["details"]["skipped"]}
    assert "cannot follow the link" in skipped["swapped/link.txt"]
    assert "behind a link" not in out["content"]  # through the link: not followed
    assert "--- swapped/own.txt ---" in out["content"]  # no link on its way
    skipped = {record["path"]: record for record in out["details"]["skipped"]}
    assert "cannot follow the link" in skipped["swapped/link.txt"]["reason"]


def test_glob_names_the_link_on_stderr(tree: Path) -> None:
    result = run_readmany(["glob", "swapped/link.txt"], cwd=tree)
    err = _no_crash(result)
    assert "swapped/link.txt" in err
    assert "cannot follow the link" in err
    assert result.returncode == 1


def test_glob_with_an_output_file_and_a_link_named(tree: Path) -> None:
    # `-o` makes the walk ask whether a linked path is the output (one more realpath).
    result = run_readmany(["glob", "swapped/link.txt", "a.txt", "-o", "out.txt"], cwd=tree)
    err = _no_crash(result)
    assert "cannot follow the link" in err
    assert "--- a.txt ---" in (tree / "out.txt").read_text()


@pytest.mark.parametrize("command", ["many", "hashline"])
def test_a_named_link_that_cannot_be_followed_is_refused(tree: Path, command: str) -> None:
    result = run_readmany([command, "swapped/link.txt"], cwd=tree)
    err = _no_crash(result)
    assert "swapped/link.txt: not read: a link on its way could not be followed" in err
    assert b"behind a link" not in result.stdout
    assert result.returncode == 1


def test_a_root_that_cannot_be_resolved_is_one_usage_line(tree: Path) -> None:
    result = run_readmany(["glob", "*.txt", "--root", "swapped"], cwd=tree)
    err = _no_crash(result)
    assert result.returncode == 2
    assert err.count("\n") == 1 and "root cannot be resolved: swapped" in err


def test_git_reports_a_tracked_link_that_cannot_be_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    repo = make(
        tmp_path / "repo",
        {"a.txt": "plain\n", "swapped/real.txt": "behind\n", "swapped/own.txt": "own\n"},
    )
    os.symlink("real.txt", repo / "swapped" / "link.txt")

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("-c", "user.name=Dev", "-c", "user.email=dev@example.org", "commit", "-qm", "one")
    (repo / "swapped" / "real.txt").write_text("changed\n")
    (repo / "a.txt").write_text("changed too\n")
    os.unlink(repo / "swapped" / "link.txt")
    os.symlink("own.txt", repo / "swapped" / "link.txt")  # a changed link, in the work tree
    monkeypatch.setattr(os.path, "realpath", _swapping)
    result = run_readmany(["glob", "--changed", "HEAD", "--json"], cwd=repo)
    _no_crash(result)
    out = json.loads(result.stdout)
    assert "--- a.txt ---" in out["content"]
    skipped = {record["path"]: record["reason"] for record in out["details"]["skipped"]}
    assert "cannot follow the link" in skipped["swapped/link.txt"]
