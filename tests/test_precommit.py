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
# pre-commit installs readmany into an environment of its own (pip, once for the module).
pytestmark = pytest.mark.slow


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True, env=env)
    return done.stdout.decode().strip()


def pre_commit() -> list[str]:
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "pre_commit"]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This checkout as it is now, uncommitted changes and all, committed in a repository
    of its own: the hooks pre-commit installs from it are the code under test. Its path
    and that commit."""
    if not (ROOT / ".git").exists():
        pytest.fail("the pre-commit test needs this project as a git checkout")
    copy = tmp_path_factory.mktemp("checkout") / "readmany"
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    for name in sorted(set(listed.split("\0")) - {""}):
        source = ROOT / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted, not yet committed
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, copy / name, follow_symlinks=False)
    git("init", "-q", cwd=copy)
    git("add", "-A", cwd=copy)
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "t", cwd=copy)
    return copy, git("rev-parse", "HEAD", cwd=copy)


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One pre-commit cache for the module: readmany is installed into it once."""
    return {
        **os.environ,
        # readmany on the PATH, for the `language: system` hook README shows
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-cache")),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def hooked_repo(repo: Path, checkout: tuple[Path, str], env: dict[str, str], hooks: str) -> Path:
    """A new repository whose config takes `hooks` from the checkout, installed."""
    new_repo(repo)
    source, revision = checkout
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {source}\n    rev: {revision}\n    hooks:\n{hooks}"
    )
    install(repo, env)
    return repo


def new_repo(repo: Path) -> Path:
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("config", "user.email", "dev@example.org", cwd=repo)
    git("config", "user.name", "Dev", cwd=repo)
    return repo


def install(repo: Path, env: dict[str, str]) -> None:
    subprocess.run([*pre_commit(), "install"], cwd=repo, check=True, env=env, capture_output=True)


def commit(repo: Path, env: dict[str, str], message: str, *, passes: bool = True) -> str:
    """Commit what is staged; what the hooks said (stdout and stderr). The commit is
    made when the hooks pass (`passes`), or refused when they fail."""
    done = subprocess.run(
        ["git", "commit", "-q", "-m", message], cwd=repo, capture_output=True, env=env, timeout=900
    )
    said = done.stdout.decode() + done.stderr.decode()
    assert (done.returncode == 0) == passes, said
    return said


def sections(dump: str) -> Iterator[str]:
    """The paths of a text dump's `--- path ---` separators, in order."""
    for match in re.finditer(r"^--- (.+) ---$", dump, flags=re.MULTILINE):
        if match.group(1) != "End of content":
            yield match.group(1)


def test_the_hook_dumps_the_staged_files_at_commit(
    tmp_path: Path, checkout: tuple[Path, str], hook_env: dict[str, str]
) -> None:
    repo = hooked_repo(
        tmp_path / "repo",
        checkout,
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
    tmp_path: Path, checkout: tuple[Path, str], hook_env: dict[str, str]
) -> None:
    """3,001 files: more than one command line of names, which pre-commit would split."""
    repo = hooked_repo(
        tmp_path / "repo",
        checkout,
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
    tmp_path: Path, checkout: tuple[Path, str], hook_env: dict[str, str]
) -> None:
    # `--secrets warn`: the commit goes on (the dump is local), the finding is said where
    # pre-commit shows it (`verbose: true`) and kept in the JSON dump's details.
    repo = hooked_repo(
        tmp_path / "repo",
        checkout,
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


BOTH_HOOKS = "      - id: readmany-context\n      - id: readmany-context-json\n"


def git_dir(repo: Path) -> Path:
    """The repository's own git directory, as git names it."""
    return (repo / git("rev-parse", "--git-dir", cwd=repo)).resolve()


def test_the_hooks_dump_into_a_linked_work_trees_own_git_directory(
    tmp_path: Path, checkout: tuple[Path, str], hook_env: dict[str, str]
) -> None:
    # In a linked work tree `.git` is a file: a dump named `.git/…` failed every commit.
    repo = hooked_repo(tmp_path / "repo", checkout, hook_env, BOTH_HOOKS)
    (repo / "app.py").write_text("print('main')\n")
    git("add", ".", cwd=repo)
    commit(repo, hook_env, "first")
    tree = tmp_path / "tree"
    git("worktree", "add", "-q", str(tree), "-b", "feature", cwd=repo)
    assert (tree / ".git").is_file()
    (tree / "app.py").write_text("print('feature')\n")
    git("add", "-u", cwd=tree)
    commit(tree, hook_env, "in the work tree")

    where = git_dir(tree)
    assert where == (repo / ".git" / "worktrees" / "tree").resolve()
    dump = (where / "readmany-context.txt").read_text()
    assert dump == "--- app.py ---\n\nprint('feature')\n\n\n\n--- End of content ---\n"
    report = json.loads((where / "readmany-context.json").read_text())
    assert report["details"]["files"] == ["app.py"]
    # The main work tree's dump is its own commit's, untouched.
    assert "print('main')" in (repo / ".git" / "readmany-context.txt").read_text()
    assert git("status", "--porcelain", cwd=tree) == ""


def test_the_hooks_dump_into_a_submodules_own_git_directory(
    tmp_path: Path, checkout: tuple[Path, str], hook_env: dict[str, str]
) -> None:
    library = hooked_repo(tmp_path / "library", checkout, hook_env, BOTH_HOOKS)
    (library / "lib.py").write_text("VALUE = 1\n")
    git("add", ".", cwd=library)
    commit(library, hook_env, "library")
    outer = new_repo(tmp_path / "outer")
    git(
        "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib", cwd=outer
    )
    inner = outer / "lib"
    assert (inner / ".git").is_file()
    git("config", "user.email", "dev@example.org", cwd=inner)
    git("config", "user.name", "Dev", cwd=inner)
    install(inner, hook_env)
    (inner / "lib.py").write_text("VALUE = 2\n")
    git("add", "-u", cwd=inner)
    commit(inner, hook_env, "in the submodule")

    where = git_dir(inner)
    assert where == (outer / ".git" / "modules" / "lib").resolve()
    dump = (where / "readmany-context.txt").read_text()
    assert dump == "--- lib.py ---\n\nVALUE = 2\n\n\n\n--- End of content ---\n"
    assert json.loads((where / "readmany-context.json").read_text())["details"]["files"] == [
        "lib.py"
    ]
    assert git("status", "--porcelain", cwd=inner) == ""


def test_a_staged_secret_file_fails_the_hooks_and_its_deletion_passes_quietly(
    tmp_path: Path, checkout: tuple[Path, str], hook_env: dict[str, str]
) -> None:
    repo = hooked_repo(tmp_path / "repo", checkout, hook_env, BOTH_HOOKS)
    (repo / "app.py").write_text("print('hello')\n")
    (repo / ".env").write_text("API_TOKEN=hunter2\n")
    git("add", "app.py", cwd=repo)
    git("add", "-f", ".env", cwd=repo)
    said = commit(repo, hook_env, "with the key", passes=False)
    for hook in ("readmany-context", "readmany-context-json"):
        assert (
            f"readmany: .env: a secret file is staged for this commit: unstage it with "
            f"`git restore --staged .env`, or commit it anyway with `SKIP={hook} git commit …`"
        ) in said
    assert "hunter2" not in said

    # Committed anyway, as the line says: then unstaged with `git rm --cached`.
    commit(repo, {**hook_env, "SKIP": "readmany-context,readmany-context-json"}, "anyway")
    git("rm", "-q", "--cached", ".env", cwd=repo)
    said = commit(repo, hook_env, "the key out of the repository")
    assert "secret" not in said and "restore" not in said
    report = json.loads((repo / ".git" / "readmany-context.json").read_text())
    assert report["details"]["skipped"] == [{"path": ".env", "reason": "deleted"}]
    assert report["content"] == ""


def documented_config() -> str:
    """The .pre-commit-config.yaml docs/precommit.md shows, as it is written there (README
    shows the same text: tests/test_docs.py)."""
    section = (ROOT / "docs" / "precommit.md").read_text()
    found = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", section, re.DOTALL)
    assert found is not None, "docs/precommit.md shows no configuration"
    return found.group(1)


def test_documented_pre_commit_configuration_works_as_written(
    tmp_path: Path, hook_env: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "repo")
    (repo / ".pre-commit-config.yaml").write_text(documented_config())
    install(repo, hook_env)
    (repo / "app.py").write_text("print('hello')\n")
    (repo / "node_modules" / "left-pad").mkdir(parents=True)
    (repo / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1;\n")
    git("add", ".", cwd=repo)
    git("add", "-f", "node_modules", cwd=repo)
    said = commit(repo, hook_env, "first")

    dump = (repo / ".git" / "readmany-context.txt").read_text()
    assert list(sections(dump)) == [".pre-commit-config.yaml", "app.py"]
    # pre-commit shows it (verbose: true), --quiet does not hide it: the commit holds a
    # file the dump does not.
    assert (
        "readmany: 1 staged file left out of the dump, which never reads a path through "
        ".git, .env or node_modules, nor outside the root (the commit holds it): "
        "node_modules/left-pad/index.js"
    ) in said
    assert git("status", "--porcelain", cwd=repo) == ""
