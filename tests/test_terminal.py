"""The human side through a real terminal: summary, progress bar, NO_COLOR, --copy."""

from __future__ import annotations

import base64
import os
import pty
import re
import subprocess
from pathlib import Path

import pytest
from helpers import read_terminal, readmany_command, run_readmany

from readmany.frame.heredoc import block_tokens


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
    screen = read_terminal(master)
    return process.returncode, stdout, screen


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    (tmp_path / "big.txt").write_text(("x" * 99 + "\n") * 800)
    return tmp_path


@pytest.mark.smoke
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


@pytest.mark.smoke
def test_the_summary_names_what_it_did_not_show(tree: Path) -> None:
    """Files named on the command line and not shown are named, not only counted."""
    (tree / "bin.dat").write_bytes(b"\0\1\2" * 10)
    (tree / ".env").write_text("TOKEN=x\n")
    for n in range(5):
        (tree / f"z{n}.dat").write_bytes(b"\0" * 8)
    _, _, screen = run_with_terminal_stderr(
        ["glob", "a.txt", "bin.dat", ".env", "z*.dat"], tree, env={"NO_COLOR": "1"}
    )
    plain = re.sub(r"\x1b\[[0-9;]*m", "", screen.decode())
    text = " ".join(plain.split())  # the terminal may wrap the line
    assert "binary file (6): bin.dat, z0.dat, z1.dat, …" in text
    assert "boundary (1): .env" in text


@pytest.mark.smoke
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


@pytest.mark.smoke
def test_progress_bar_on_long_runs(tree: Path) -> None:
    # Past 500 files the bar appears (and goes again: it is transient).
    for n in range(600):
        (tree / f"f{n:03d}.txt").write_text("x\n")
    status, stdout, screen = run_with_terminal_stderr(["glob", "--compat", "f*.txt"], tree)
    assert status == 0
    assert stdout.count(b"\n--- f") == 599
    assert b"reading" in screen
    assert b"600 read" in screen


@pytest.mark.smoke
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


@pytest.mark.smoke
def test_copy_falls_back_to_osc52_on_a_terminal(tree: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    env.update({"TMUX": "", "VTE_VERSION": ""})
    status, stdout, screen = run_with_terminal_stderr(
        ["many", "--compat", "a.txt", "--copy", "-q"], tree, env
    )
    assert status == 0 and stdout == b""
    expected = run_readmany(["many", "--compat", "a.txt"], cwd=tree).stdout
    assert b"\x1b]52;c;" + base64.b64encode(expected) + b"\x07" in screen
    said = screen.split(b"\x07", 1)[1].decode()
    content = len(expected) - 1  # the content, without the newline that ends the output
    tokens = round(block_tokens(expected[:-1].decode()))
    assert said == (
        f"readmany: sent {content} bytes (~{tokens} tokens) to the terminal (OSC 52); "
        "most terminals put it on the clipboard\r\n"
    )
    assert "copied" not in said


def test_copy_without_any_clipboard_is_a_clear_usage_error(tree: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tree)}
    result = run_readmany(["many", "--compat", "a.txt", "--copy"], cwd=tree, env=env)
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.startswith(b"readmany: --copy: no clipboard found")
    assert result.stderr.count(b"\n") == 1


def recording_tool(bin_dir: Path, name: str, record: Path, fail: str = "") -> None:
    """A fake `name` that writes its arguments and its stdin under `record`, or fails
    with the message `fail` as an old or broken one would."""
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    body = f'echo "{fail}" >&2\nexit 1\n' if fail else f'/bin/cat > "{record}.in"\n'
    script.write_text(f'#!/bin/sh\necho "$@" >> "{record}.args"\n{body}')
    script.chmod(0o755)


def clipboard_env(bin_dir: Path, **extra: str) -> dict[str, str]:
    """Only `bin_dir` on PATH (no real clipboard tool), no display, no tmux, no VTE."""
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "VTE_VERSION", "NO_COLOR")}
    env.update({"PATH": str(bin_dir), "DISPLAY": "", "WAYLAND_DISPLAY": ""})
    return {**env, **extra}


@pytest.mark.smoke
def test_copy_inside_tmux_loads_tmux_buffer(tree: Path, tmp_path: Path) -> None:
    bin_dir, record = tmp_path / "bin", tmp_path / "tmux"
    recording_tool(bin_dir, "tmux", record)
    env = clipboard_env(bin_dir, TMUX="/tmp/tmux-1000/default,4242,0")
    status, stdout, screen = run_with_terminal_stderr(
        ["many", "--compat", "a.txt", "--copy", "-q"], tree, env
    )
    expected = run_readmany(["many", "--compat", "a.txt"], cwd=tree).stdout
    assert (status, stdout) == (0, b"")
    assert record.with_suffix(".args").read_text() == "load-buffer -w -\n"
    assert record.with_suffix(".in").read_bytes() == expected
    assert b"\x1b]52" not in screen and b"\x1bPtmux" not in screen  # no escape at all
    content = len(expected) - 1  # the content, without the newline that ends the output
    tokens = round(block_tokens(expected[:-1].decode()))
    assert screen.decode() == (
        f"readmany: sent {content} bytes (~{tokens} tokens) to tmux's paste buffer "
        "(tmux load-buffer -w), which tmux passes on to the terminal's clipboard\r\n"
    )


def test_copy_inside_tmux_needs_no_terminal(tree: Path, tmp_path: Path) -> None:
    bin_dir, record = tmp_path / "bin", tmp_path / "tmux"
    recording_tool(bin_dir, "tmux", record)
    env = clipboard_env(bin_dir, TMUX="/tmp/tmux-1000/default,4242,0")
    result = run_readmany(["glob", "--compat", "a.txt", "--copy", "-q"], cwd=tree, env=env)
    assert (result.returncode, result.stdout) == (0, b"")
    expected = run_readmany(["glob", "--compat", "a.txt"], cwd=tree).stdout
    assert record.with_suffix(".in").read_bytes() == expected
    assert result.stderr.startswith(b"readmany: sent ")


def test_copy_prefers_a_clipboard_tool_to_tmux(tree: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    recording_tool(bin_dir, "tmux", tmp_path / "tmux")
    recording_tool(bin_dir, "xclip", tmp_path / "xclip")
    env = clipboard_env(bin_dir, TMUX="/tmp/tmux-1000/default,4242,0", DISPLAY=":0")
    result = run_readmany(["many", "--compat", "a.txt", "--copy"], cwd=tree, env=env)
    assert result.returncode == 0
    assert (tmp_path / "xclip.args").read_text() == "-selection clipboard\n"
    assert not (tmp_path / "tmux.args").exists()
    assert result.stderr.startswith(b"readmany: copied ") and result.stderr.endswith(
        b" with xclip\n"
    )


@pytest.mark.smoke
def test_copy_inside_an_old_tmux_passes_the_escape_through(tree: Path, tmp_path: Path) -> None:
    # tmux before 3.2 has no `load-buffer -w`, and passes an application's escape through.
    bin_dir, record = tmp_path / "bin", tmp_path / "tmux"
    recording_tool(bin_dir, "tmux", record, fail="command load-buffer: unknown flag -w")
    env = clipboard_env(bin_dir, TMUX="/tmp/tmux-1000/default,4242,0")
    status, stdout, screen = run_with_terminal_stderr(
        ["many", "--compat", "a.txt", "--copy", "-q"], tree, env
    )
    expected = run_readmany(["many", "--compat", "a.txt"], cwd=tree).stdout
    assert (status, stdout) == (0, b"")
    assert record.with_suffix(".args").read_text() == "load-buffer -w -\n"
    escape = b"\x1bPtmux;\x1b\x1b]52;c;" + base64.b64encode(expected) + b"\x07\x1b\\"
    assert screen.startswith(escape)
    assert b"to the terminal (OSC 52, through tmux)" in screen
    assert b"copied" not in screen


@pytest.mark.smoke
def test_copy_when_tmux_fails_says_why(tree: Path, tmp_path: Path) -> None:
    bin_dir, record = tmp_path / "bin", tmp_path / "tmux"
    recording_tool(bin_dir, "tmux", record, fail="no server running on /tmp/tmux-1000/default")
    env = clipboard_env(bin_dir, TMUX="/tmp/tmux-1000/default,4242,0")
    status, stdout, screen = run_with_terminal_stderr(
        ["many", "--compat", "a.txt", "--copy", "-q"], tree, env
    )
    assert (status, stdout) == (1, b"")
    assert screen == (
        b"readmany: --copy: tmux failed: no server running on /tmp/tmux-1000/default\r\n"
    )


@pytest.mark.smoke
@pytest.mark.parametrize(
    ("display", "hint"),
    [
        ({}, "install wl-clipboard (Wayland) or xclip or xsel (X11)"),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "install wl-clipboard (wl-copy)"),
        ({"DISPLAY": ":0"}, "install xclip or xsel"),
    ],
    ids=["no display", "wayland", "x11"],
)
def test_copy_refuses_on_a_vte_terminal_with_the_tool_to_install(
    tree: Path, tmp_path: Path, display: dict[str, str], hint: str
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = clipboard_env(bin_dir, VTE_VERSION="7600", **display)
    status, stdout, screen = run_with_terminal_stderr(
        ["many", "--compat", "a.txt", "--copy", "-o", "out.txt"], tree, env
    )
    assert (status, stdout) == (2, b"")
    assert screen.decode() == (
        "readmany: --copy: this terminal (VTE) ignores OSC 52, the escape that copies without "
        f"a tool: {hint}, or leave out --copy (-o FILE writes a file)\r\n"
    )
    assert not (tree / "out.txt").exists()  # the content went nowhere


@pytest.mark.smoke
def test_copy_on_a_vte_terminal_inside_tmux_uses_tmux(tree: Path, tmp_path: Path) -> None:
    bin_dir, record = tmp_path / "bin", tmp_path / "tmux"
    recording_tool(bin_dir, "tmux", record)
    env = clipboard_env(bin_dir, VTE_VERSION="7600", TMUX="/tmp/tmux-1000/default,4242,0")
    status, stdout, screen = run_with_terminal_stderr(
        ["many", "--compat", "a.txt", "--copy"], tree, env
    )
    assert (status, stdout) == (0, b"")
    assert record.with_suffix(".in").exists()
    assert screen.decode().endswith(
        "; this terminal (VTE) ignores that: paste with tmux's prefix key and ]\r\n"
    )


def run_with_terminal_stdout(args: list[str], cwd: Path) -> tuple[int, bytes]:
    """Run readmany with stdout on a pseudo-terminal (raw: no newline translation)."""
    status, screen, _ = run_with_terminal_stdout_and_stderr(args, cwd)
    return status, screen


def run_with_terminal_stdout_and_stderr(args: list[str], cwd: Path) -> tuple[int, bytes, bytes]:
    """`run_with_terminal_stdout`, with what it wrote on stderr (a pipe)."""
    import tty

    master, slave = pty.openpty()
    tty.setraw(slave)
    process = subprocess.Popen(
        [*readmany_command(), *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env={**os.environ, "TERM": "xterm-256color"},
    )
    os.close(slave)
    screen = read_terminal(master)
    _, stderr = process.communicate(timeout=60)
    return process.returncode, screen, stderr


HOSTILE = (
    b"title \x1b]0;owned\x07 clipboard \x1b]52;c;cm0gLXJmIH4=\x07 clear \x1b[2J\n"
    b"rm -rf ~\r# a harmless comment\r\n"
    b"C1 \xc2\x9b31m, bidi \xe2\x80\xae, tab\tkept\n"
)


@pytest.mark.smoke
@pytest.mark.parametrize("command", [["glob", "x.txt"], ["many", "x.txt"], ["hashline", "x.txt"]])
def test_contents_cannot_reach_a_terminal_raw(tmp_path: Path, command: list[str]) -> None:
    # Standard output on a terminal: what a terminal acts on is shown as an escape, so a
    # file cannot set the clipboard, retitle the window or hide a line behind a `\r`.
    (tmp_path / "x.txt").write_bytes(HOSTILE)
    status, screen = run_with_terminal_stdout([*command, "-q"], tmp_path)
    assert status == 0
    for raw in (b"\x1b", b"\x07", b"\xc2\x9b", b"\xe2\x80\xae"):
        assert raw not in screen
    assert b"\\u001b]52;c;cm0gLXJmIH4=\\u0007" in screen
    assert b"C1 \\u009b31m, bidi \\u202e, tab\tkept" in screen
    piped = run_readmany([*command, "-q"], cwd=tmp_path)
    if command[0] == "hashline":  # its lines are split at every line break, `\r` too
        assert b"|rm -rf ~\n" in screen
        assert b"\x1b]52;c;cm0gLXJmIH4=\x07" in piped.stdout
    else:
        assert b"rm -rf ~\\r# a harmless comment\r\n" in screen  # a CRLF line end stays
        assert HOSTILE in piped.stdout  # into a pipe: the file, byte for byte


def test_copy_with_a_tool_but_no_display_says_so(tree: Path, tmp_path: Path) -> None:
    """xsel installed, no DISPLAY: not 'install xsel'."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "xsel").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "xsel").chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tree)}
    env = {k: v for k, v in env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    result = run_readmany(["glob", "a.txt", "--copy"], cwd=tree, env=env)
    assert result.returncode == 2 and result.stdout == b""
    assert b"xsel is installed, but this session has no display (DISPLAY or WAYLAND_DISPLAY)" in (
        result.stderr
    )
