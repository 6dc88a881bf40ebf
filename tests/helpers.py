"""Run the installed `readmany` command as a user would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inprocess import run_in_process

from readmany.record import NamedTuple
from readmany.select.candidates import REASON_OUTSIDE, Candidate, Skip
from readmany.select.walk import SelectRequest, iter_selection

# The loops of the slow tests (a property test's examples, a race's tries) run a fifth of
# their full count, so that `pytest` stays quick; READMANY_TESTS_FULL=1 (.ci/run sets it)
# runs the full count. Every test whose loop is scaled is marked `slow`.
FULL = os.environ.get("READMANY_TESTS_FULL") == "1"


def scaled(full: int) -> int:
    """`full` under READMANY_TESTS_FULL=1, else a fifth of it (at least 20, or `full`)."""
    return full if FULL else max(full // 5, min(full, 20))


def readmany_command() -> list[str]:
    """The installed console script, else the module run by this interpreter.

    READMANY_COMMAND names another one: .ci/run points it at the script of the wheel it
    built and installed in a virtual environment of its own, to run the smoke tests there.
    """
    command = os.environ.get("READMANY_COMMAND")
    if command:
        return [command]
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    found = shutil.which("readmany", path=search)
    return [found] if found else [sys.executable, "-m", "readmany"]


def run_readmany(
    args: Sequence[str],
    cwd: str | Path | None = None,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """`readmany ARGS` with this input, environment and directory: its status and bytes.

    Run in this process (`tests/inprocess.py`), as the installed command would run; in a
    test marked `@pytest.mark.smoke`, or with READMANY_TESTS_INSTALLED=1 for every test,
    the installed command itself runs (`run_installed`).
    """
    if _installed_only or os.environ.get("READMANY_TESTS_INSTALLED"):
        return run_installed(args, cwd=cwd, stdin=stdin, env=env, timeout=timeout)
    return run_in_process(args, cwd=cwd, stdin=stdin, env=env, timeout=timeout, argv0=_argv0())


def run_installed(
    args: Sequence[str],
    cwd: str | Path | None = None,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """`readmany ARGS`, the installed command in a process of its own."""
    return subprocess.run(
        [*readmany_command(), *args],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env=env,
        timeout=timeout,
        check=False,
    )


# Set by conftest.py while a test marked `smoke` runs: it runs the installed command.
_installed_only = False


def installed_only(value: bool) -> None:
    global _installed_only
    _installed_only = value


def _argv0() -> str:
    """`sys.argv[0]` as the installed command would see it."""
    command = readmany_command()
    return command[0] if len(command) == 1 else "readmany"


NOBODY = 65534


def unprivileged_prefix() -> list[str] | None:
    """A command prefix that runs as `nobody`, for whom a root-owned 0444 file is read-only."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv"):
        return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    if shutil.which("runuser"):
        return ["runuser", "-u", "nobody", "--"]
    return None


def run_unprivileged(
    prefix: list[str], args: list[str], cwd: Path
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [*prefix, *readmany_command(), *args],
        cwd=cwd,
        input=b"",
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )


class Selection(NamedTuple):
    """A whole selection at once: what the select stage streams, gathered for a test."""

    root: str  # absolute
    candidates: tuple[Candidate, ...]  # in output order
    skipped: tuple[Skip, ...]  # outside the root first, then ignored, each sorted


def select_files(request: SelectRequest) -> Selection:
    """Select the files to read, in output order, and the matched files to skip."""
    root, events = iter_selection(request)
    candidates: list[Candidate] = []
    outside: list[Skip] = []
    skips: list[Skip] = []
    for event in events:
        if isinstance(event, Candidate):
            candidates.append(event)
        elif event.reason == REASON_OUTSIDE:
            outside.append(event)
        else:
            skips.append(event)
    return Selection(root, tuple(candidates), (*outside, *skips))


def read_terminal(master: int) -> bytes:
    """All a pseudo-terminal shows until its other side is closed; closes `master`."""
    screen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other side is closed
            break
        if not chunk:
            break
        screen += chunk
    os.close(master)
    return screen


def make(root: Path, files: dict[str, str | bytes]) -> Path:
    """Files under `root`, their directories made: text as UTF-8, bytes as they are."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return root


def details(result: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    """The details of a `--json` run's output."""
    value: dict[str, Any] = json.loads(result.stdout)["details"]
    return value


BENCH = Path(__file__).resolve().parent.parent / "bench"
GIT_ALONE = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}  # no user config


def bench_repo_tree(root: Path, files: int = 300) -> Path:
    """The benchmark's repository-like tree (`bench/make_trees.py`) of `files` files at
    `root`, made with git alone (no user or system configuration)."""
    sys.path.insert(0, str(BENCH))
    try:
        from make_trees import RepoSpec, build_repo_tree
    finally:
        sys.path.remove(str(BENCH))
    import pytest

    with pytest.MonkeyPatch.context() as patch:
        for name, value in GIT_ALONE.items():
            patch.setenv(name, value)
        build_repo_tree(root, RepoSpec(files))
    return root
