"""git's global excludes file (core.excludesFile) in the walk: found and applied as git does."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from unittest import mock

import pytest
from helpers import make, run_readmany

from readmany.select.gitconfig import REASON_REPOSITORY_OUTSIDE, config_values
from readmany.select.ignore import IgnoreMatcher


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return (tmp_path / "home").resolve()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make(tmp_path / "repo", {"keep.txt": "k\n", "app.log": "l\n", "notes.tmp": "t\n"})
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=clean_env(tmp_path))
    return root


def clean_env(tmp_path: Path, **more: str) -> dict[str, str]:
    """An environment of a user whose home is `tmp_path/home`: no system configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "XDG_"))}
    return {**env, "HOME": str((tmp_path / "home").resolve()), "GIT_CONFIG_NOSYSTEM": "1", **more}


def files(repo: Path, env: dict[str, str], *args: str) -> list[str]:
    result = run_readmany(["glob", ".", "--json", *args], cwd=repo, env=env)
    assert result.returncode == 0, result.stderr
    found: list[str] = json.loads(result.stdout)["details"]["files"]
    return found


def git_files(repo: Path, env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"],
        cwd=repo,
        env=env,
        capture_output=True,
        check=True,
    )
    return sorted(done.stdout.decode().split())


def test_the_default_location_is_read(repo: Path, home: Path, tmp_path: Path) -> None:
    make(home, {".config/git/ignore": "*.log\n"})
    env = clean_env(tmp_path)
    assert files(repo, env) == git_files(repo, env) == ["keep.txt", "notes.tmp"]


def test_xdg_config_home_moves_the_default(repo: Path, tmp_path: Path) -> None:
    make(tmp_path / "xdg", {"git/ignore": "*.tmp\n"})
    make(tmp_path / "home", {".config/git/ignore": "*.log\n"})  # not read: XDG says where
    env = clean_env(tmp_path, XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    assert files(repo, env) == git_files(repo, env) == ["app.log", "keep.txt"]


def test_core_excludes_file_in_the_users_config_with_tilde_and_include(
    repo: Path, home: Path, tmp_path: Path
) -> None:
    make(home, {".gitignore_global": "*.tmp\n", ".config/git/ignore": "*.log\n"})
    make(home, {".gitconfig": "[include]\n\tpath = extra.inc\n", "extra.inc": (
        '[core] # the file of global rules\n  excludesFile = "~/.gitignore_global" ; why\n'
    )})  # fmt: skip
    env = clean_env(tmp_path)
    # Named, it replaces the default location, as in git.
    assert files(repo, env) == git_files(repo, env) == ["app.log", "keep.txt"]


def test_a_linked_global_file_is_followed_as_git_follows_it(
    repo: Path, home: Path, tmp_path: Path
) -> None:
    make(tmp_path / "dotfiles", {"ignore": "*.log\n"})
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").symlink_to(tmp_path / "dotfiles" / "ignore")
    env = clean_env(tmp_path)
    assert files(repo, env) == git_files(repo, env) == ["keep.txt", "notes.tmp"]


def test_global_rules_are_the_least_specific(repo: Path, home: Path, tmp_path: Path) -> None:
    make(home, {".config/git/ignore": "*.log\n*.tmp\n"})
    make(repo, {"sub/b.log": "b\n", "sub/c.tmp": "c\n", "sub/.gitignore": "!b.log\n"})
    (repo / ".git" / "info" / "exclude").write_text("!notes.tmp\n")
    env = clean_env(tmp_path)
    assert files(repo, env) == ["keep.txt", "notes.tmp", "sub/.gitignore", "sub/b.log"]
    assert git_files(repo, env) == sorted(files(repo, env))


def test_compat_reads_no_global_excludes_as_the_reference(
    repo: Path, home: Path, tmp_path: Path
) -> None:
    make(home, {".config/git/ignore": "*.log\n"})
    result = run_readmany(["glob", "--compat", "*"], cwd=repo, env=clean_env(tmp_path))
    assert b"--- app.log ---" in result.stdout


def test_no_gitignore_drops_the_global_rules_too(repo: Path, home: Path, tmp_path: Path) -> None:
    make(home, {".config/git/ignore": "*.log\n"})
    assert "app.log" in files(repo, clean_env(tmp_path), "--no-gitignore")


def test_outside_a_git_tree_no_global_rules_apply(home: Path, tmp_path: Path) -> None:
    make(home, {".config/git/ignore": "*.log\n"})
    plain = make(tmp_path / "plain", {"a.log": "a\n"})
    assert files(plain, clean_env(tmp_path)) == ["a.log"]


def test_a_repository_config_may_name_a_file_inside_the_repository(
    repo: Path, home: Path, tmp_path: Path
) -> None:
    make(home, {".config/git/ignore": "*.tmp\n"})
    make(repo, {"rules/ignore": "*.log\n"})
    with (repo / ".git" / "config").open("a") as config:
        config.write("[core]\n\texcludesFile = rules/ignore\n")
    env = clean_env(tmp_path)
    assert files(repo, env) == git_files(repo, env) == ["keep.txt", "notes.tmp", "rules/ignore"]


def test_a_repository_config_cannot_name_a_file_outside(
    repo: Path, home: Path, tmp_path: Path
) -> None:
    """A tree that comes with its own .git/config (an unpacked archive) cannot make readmany
    read a file outside it: the user's own setting stands, and the refusal is said."""
    make(home, {".config/git/ignore": "*.tmp\n"})
    outside = make(tmp_path / "elsewhere", {"private": "*.log\n"}) / "private"
    with (repo / ".git" / "config").open("a") as config:
        config.write(f"[core]\n\texcludesFile = {outside}\n")
    result = run_readmany(["glob", ".", "--json"], cwd=repo, env=clean_env(tmp_path))
    details = json.loads(result.stdout)["details"]
    assert details["files"] == ["app.log", "keep.txt"]
    refused = {"path": "../elsewhere/private", "reason": "ignore file not read "}
    refused["reason"] += f"({REASON_REPOSITORY_OUTSIDE})"
    assert refused in details["skipped"]
    assert REASON_REPOSITORY_OUTSIDE in result.stderr.decode()


def test_the_matcher_reads_the_global_file_only_when_asked(home: Path, tmp_path: Path) -> None:
    make(home, {".config/git/ignore": "*.log\n"})
    root = make(tmp_path / "r", {".git/HEAD": "", "a.log": ""})
    with mock.patch.dict(os.environ, clean_env(tmp_path), clear=True):
        assert IgnoreMatcher(str(root)).is_ignored("a.log", False)
        assert not IgnoreMatcher(str(root), global_excludes=False).is_ignored("a.log", False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[core]\n\texcludesFile = ~/x\n", [("core.excludesfile", "~/x")]),
        ('[Core]\nEXCLUDESFILE = "a b" # c\n', [("core.excludesfile", "a b")]),
        ("[core] excludesfile=a\\\n b\n", [("core.excludesfile", "a b")]),
        ('[core]\nexcludesfile = "x\\"y;z"\n', [("core.excludesfile", 'x"y;z')]),
        ("[core]\nbare\n; excludesfile = no\n", [("core.bare", None)]),
        ('[includeIf "gitdir:~/w/"]\npath = w.inc\n', [("includeif.gitdir:~/w/.path", "w.inc")]),
    ],
)
def test_config_values_are_read_as_git_reads_them(
    text: str, expected: list[tuple[str, str | None]]
) -> None:
    assert config_values(text) == expected
