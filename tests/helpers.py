"""Run the installed `readmany` command as a user would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path


def readmany_command() -> list[str]:
    """The installed console script, else the module run by this interpreter."""
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
    return subprocess.run(
        [*readmany_command(), *args],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env=env,
        timeout=timeout,
        check=False,
    )


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
