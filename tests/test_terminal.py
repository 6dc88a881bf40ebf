"""The human side through a real terminal: summary, progress bar, NO_COLOR, --copy."""

from __future__ import annotations

import base64
import os
import pty
import subprocess
from pathlib import Path

import pytest
from helpers import readmany_command, run_readmany


def run_with_terminal_stderr(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[int, bytes, bytes]:
    """Run readmany with stderr on a pseudo-terminal; return (status, stdout, terminal)."""
    master, slave = pty.openpty()
    environment = {**os.environ, "COLUMNS": "100", "TERM": "xterm-256color", **(env or {})}
    if "NO_COLOR" not in (env or {}):
        environment.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [*readmany_command(), *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=environment,
    )
    os.close(slave)
    stdout, _ = process.communicate(timeout=60)
    screen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        screen += chunk
    os.close(master)
    return process.returncode, stdout, screen


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    (tmp_path / "big.txt").write_text(("x" * 99 + "\n") * 800)
    return tmp_path


def test_summary_on_a_terminal(tree: Path) -> None:
    status, stdout, screen = run_with_terminal_stderr(
        ["many", "--compat", "a.txt", "big.txt", "nope"], tree
    )
    assert status == 1
    assert stdout.startswith(b"@a.txt\n")  # stdout is untouched by the summary
    text = screen.decode()
    assert "readmany: " in text
    assert "1 read, 1 cut, 1 error" in text
    assert "~" in text and "tokens" in text
    assert "largest: big.txt" in text
    assert "\x1b[" in text  # coloured


def test_no_color_and_quiet(tree: Path) -> None:
    _, _, plain = run_with_terminal_stderr(
        ["many", "--compat", "a.txt"], tree, env={"NO_COLOR": "1"}
    )
    assert "1 read" in plain.decode()
    assert b"\x1b[32m" not in plain and b"\x1b[1;32m" not in plain  # no colour codes
    _, stdout, quiet = run_with_terminal_stderr(["many", "--compat", "a.txt", "-q"], tree)
    assert quiet == b""
    assert stdout.startswith(b"@a.txt")


def test_no_summary_when_stderr_is_not_a_terminal(tree: Path) -> None:
    result = run_readmany(["many", "--compat", "a.txt"], cwd=tree)
    assert result.stderr == b""


def test_progress_bar_on_long_runs(tree: Path) -> None:
    # Past 500 files the bar appears (and goes again: it is transient).
    for n in range(600):
        (tree / f"f{n:03d}.txt").write_text("x\n")
    status, stdout, screen = run_with_terminal_stderr(["glob", "--compat", "f*.txt"], tree)
    assert status == 0
    assert stdout.count(b"\n--- f") == 599
    assert b"reading" in screen
    assert b"600 read" in screen


def test_no_progress_bar_on_short_runs(tree: Path) -> None:
    _, _, screen = run_with_terminal_stderr(["many", "--compat", "a.txt", "big.txt"], tree)
    assert b"reading" not in screen


def fake_tool(bin_dir: Path, name: str, sink: Path) -> None:
    script = bin_dir / name
    script.write_text(f"#!/bin/sh\ncat > {sink}\n")
    script.chmod(0o755)


def test_copy_uses_a_clipboard_tool(tree: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    copied = tmp_path / "copied"
    fake_tool(bin_dir, "xclip", copied)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "DISPLAY": ":0"}
    env.pop("WAYLAND_DISPLAY", None)
    result = run_readmany(
        ["many", "--compat", "a.txt", "--copy"], cwd=tree, env={**os.environ, **env}
    )
    assert result.returncode == 0
    assert result.stdout == b""
    assert copied.read_bytes() == run_readmany(["many", "--compat", "a.txt"], cwd=tree).stdout
    assert result.stderr.startswith(b"readmany: copied ") and b"with xclip" in result.stderr


def test_copy_falls_back_to_osc52_on_a_terminal(tree: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    status, stdout, screen = run_with_terminal_stderr(
        ["many", "--compat", "a.txt", "--copy", "-q"], tree, env
    )
    assert status == 0 and stdout == b""
    expected = run_readmany(["many", "--compat", "a.txt"], cwd=tree).stdout
    assert b"\x1b]52;c;" + base64.b64encode(expected) + b"\x07" in screen
    assert b"with the terminal (OSC 52)" in screen


def test_copy_without_any_clipboard_is_a_clear_usage_error(tree: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tree)}
    result = run_readmany(["many", "--compat", "a.txt", "--copy"], cwd=tree, env=env)
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.startswith(b"readmany: --copy: no clipboard found")
    assert result.stderr.count(b"\n") == 1
