"""`--help`, `-V` and `readmany` alone, through the installed command."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys

import pytest
import typer
from helpers import read_terminal, readmany_command, run_readmany

from readmany import __version__
from readmany.cli import app

# What Typer would print about a parameter's Python type or range: `<bool>`, `<list[str]>`,
# `<int range>`, `[x>=1]`, `{FILE}`, `[PATTERN...]...`.
DECORATION = re.compile(r"<[a-z][a-z \[\],|]*>|\bx\s*[<>]=|<=\s*x\b|\{[A-Z]+\}|\.\.\.\]?\.\.\.")


def help_texts() -> dict[str, list[str]]:
    """Every help page (the app's, then each command's) with the option names it must list."""
    group = typer.main.get_command(app)
    context = typer.Context(group, info_name="readmany")
    pages = {"": [name for p in group.params for name in p.opts]}
    for name in group.list_commands(context):  # type: ignore[attr-defined]
        command = group.get_command(context, name)  # type: ignore[attr-defined]
        pages[name] = [
            opt
            for p in command.params
            if p.param_type_name == "option"
            for opt in [*p.opts, *p.secondary_opts]
        ]
    return pages


PAGES = help_texts()
SETTINGS = {
    "wide": {"COLUMNS": "200"},
    "narrow": {"COLUMNS": "40"},
    "no colour": {"COLUMNS": "80", "NO_COLOR": "1"},
    "dumb terminal": {"COLUMNS": "80", "TERM": "dumb"},
}


def environment(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "TERM")}
    return {**env, **extra}


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("command", PAGES, ids=[c or "readmany" for c in PAGES])
def test_help_lists_every_option_without_type_decorations(command: str, setting: str) -> None:
    args = [command, "--help"] if command else ["--help"]
    result = run_readmany(args, env=environment(SETTINGS[setting]))
    assert result.returncode == 0
    assert result.stderr == b""
    text = result.stdout.decode()
    assert DECORATION.findall(text) == []
    assert "\x1b" not in text
    listed = set(re.findall(r"(?<![\w-])-{1,2}[\w-]+", text))
    missing = [option for option in [*PAGES[command], "--help", "-h"] if option not in listed]
    assert missing == []
    usage = text.splitlines()[0]
    assert usage.startswith(f"Usage: readmany {command}".rstrip() + " [OPTIONS]")


def test_help_names_the_value_of_each_option() -> None:
    text = run_readmany(["many", "--help"], env=environment({"COLUMNS": "120"})).stdout.decode()
    assert "Usage: readmany many [OPTIONS] [FILE[:OFFSET[:LIMIT]]...]\n" in text
    assert "\n  --max-bytes SIZE " in text
    assert "\n  -o, --output FILE " in text
    assert "\n  --request FILE|- " in text
    assert "\n  --stop-on-error " in text
    hashline = run_readmany(["hashline", "-h"], env=environment({})).stdout.decode()
    assert hashline.startswith("Usage: readmany hashline [OPTIONS] FILE\n")
    assert "\n  --offset N " in hashline


@pytest.mark.smoke
def test_help_on_a_terminal_is_the_same_plain_text() -> None:
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [*readmany_command(), "glob", "--help"],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env=environment({"COLUMNS": "80", "TERM": "xterm-256color"}),
    )
    os.close(slave)
    screen = read_terminal(master)
    assert process.wait(timeout=60) == 0
    piped = run_readmany(["glob", "--help"], env=environment({"COLUMNS": "80"})).stdout
    assert screen.replace(b"\r\n", b"\n") == piped


@pytest.mark.smoke
@pytest.mark.parametrize(
    "args", [["-V"], ["--version"], ["-V", "many"], ["--version", "glob", "x"]]
)
def test_dash_capital_v_is_the_version(args: list[str]) -> None:
    result = run_readmany(args)
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f"readmany {__version__}\n".encode(),
        b"",
    )


@pytest.mark.smoke
def test_version_through_python_dash_m() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "readmany", "-V"], capture_output=True, check=False
    )
    assert result.stdout == f"readmany {__version__}\n".encode()


@pytest.mark.smoke
def test_readmany_alone_prints_the_short_usage_to_stderr() -> None:
    result = run_readmany([])
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr == (
        b"Usage: readmany many|glob|hashline|edit|mcp|completions|man [OPTIONS] [ARGS]...\n"
        b"Try 'readmany --help' or 'readmany COMMAND --help' for help.\n"
    )


# The top-level page from the installed command too; the others in-process.
@pytest.mark.parametrize(
    "command",
    [pytest.param(c, marks=[pytest.mark.smoke] if not c else []) for c in PAGES],
    ids=[c or "readmany" for c in PAGES],
)
def test_help_lists_every_exit_status(command: str) -> None:
    from readmany.cli import EXIT_CODES

    args = [command, "--help"] if command else ["--help"]
    text = " ".join(run_readmany(args, env=environment({"COLUMNS": "80"})).stdout.decode().split())
    status = text.split("Exit status: ")[1]
    if command == "edit":  # its own meanings, and the internal error
        for code in ("0 edited", "1 a file could not be read", "2 usage error", "3 stale", "70 "):
            assert f" {code}" in f" {status}", code
        return
    if command == "mcp":  # a server: it ends when the client goes
        for code in ("0 the client closed", "2 usage error", "70 internal error"):
            assert f" {code}" in f" {status}", code
        return
    if command in ("completions", "man"):  # they print a file of the package
        for code in ("0 printed", "1 the file is missing", "2 usage error", "70 "):
            assert f" {code}" in f" {status}", code
        return
    for code, meaning, _ in EXIT_CODES:
        assert f"{code} {meaning}" in status, code
    assert "-o naming an input or a directory" in status
    assert "--copy with no clipboard" in status
    assert "--staged or --changed outside a git work tree" in status
