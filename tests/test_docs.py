"""Completions and man page: in sync with the CLI, valid, and complete."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from readmany.cli import app

ROOT = Path(__file__).resolve().parent.parent
MAN = ROOT / "man" / "readmany.1"
COMPLETIONS = ROOT / "completions"


def require(shell: str) -> None:
    """CI installs every shell (.ci/run); elsewhere a missing one is a skip, said clearly."""
    if shutil.which(shell) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{shell} is not installed; .ci/run should have installed it")
        pytest.skip(f"{shell} is not installed here (CI installs it)")


def all_options() -> dict[str, list[str]]:
    group = typer.main.get_command(app)
    context = typer.Context(group, info_name="readmany")
    found = {}
    for name in group.list_commands(context):  # type: ignore[attr-defined]
        command = group.get_command(context, name)  # type: ignore[attr-defined]
        found[name] = [
            opt for p in command.params if p.param_type_name == "option" for opt in p.opts
        ]
    return found


def test_generated_files_are_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "generate_docs.py"), "--check"],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()


def test_man_page_renders_without_warnings() -> None:
    result = subprocess.run(
        ["groff", "-man", "-Tutf8", "-ww", "-z", str(MAN)], capture_output=True, check=False
    )
    assert result.returncode == 0
    assert result.stderr == b""


def test_man_page_documents_every_command_option_and_exit_code() -> None:
    rendered = subprocess.run(
        ["man", "-l", str(MAN)],
        capture_output=True,
        check=True,
        env={"MANWIDTH": "200", "MANPAGER": "cat", "PATH": "/usr/bin:/bin"},
    ).stdout.decode()
    text = rendered.replace("\u2010", "-").replace("\u2212", "-")
    for command, options in all_options().items():
        assert f"readmany {command}" in text
        for option in options:
            assert option in text, option
    status = text.split("EXIT STATUS")[1].split("ENVIRONMENT")[0]
    codes = [line.split()[0] for line in status.splitlines() if line.strip()[:1].isdigit()]
    assert codes == ["0", "1", "2", "3", "70"]
    assert "EXIT STATUS" in text and "NO_COLOR" in text


def _bash_complete(words: list[str]) -> list[str]:
    script = (
        f"source {COMPLETIONS / 'readmany.bash'}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        "_readmany\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    result = subprocess.run(["bash", "-c", script], capture_output=True, check=True, cwd=ROOT)
    return result.stdout.decode().split()


def test_bash_completion_completes_commands_and_options() -> None:
    assert _bash_complete(["readmany", ""]) == [
        "many",
        "glob",
        "hashline",
        "edit",
        "--version",
        "--help",
        "-h",
    ]
    assert _bash_complete(["readmany", "glob", "--no-"]) == [
        "--no-default-excludes",
        "--no-gitignore",
        "--no-recursive",
    ]
    assert "--stop-on-error" in _bash_complete(["readmany", "many", "--s"])
    assert _bash_complete(["readmany", "glob", "--root", "complet"]) == ["completions"]
    assert _bash_complete(["readmany", "many", "--max-bytes", ""]) == []


@pytest.mark.parametrize(
    ("shell", "path", "check"),
    [
        ("bash", COMPLETIONS / "readmany.bash", ["bash", "-n"]),
        ("zsh", COMPLETIONS / "_readmany", ["zsh", "-n"]),
        ("fish", COMPLETIONS / "readmany.fish", ["fish", "--no-execute"]),
    ],
)
def test_completion_scripts_parse(shell: str, path: Path, check: list[str]) -> None:
    require(shell)
    result = subprocess.run([*check, str(path)], capture_output=True, check=False)
    assert result.returncode == 0, result.stderr.decode()


def test_fish_completion_offers_options() -> None:
    require("fish")
    script = f"source {COMPLETIONS / 'readmany.fish'}; complete -C 'readmany glob --no-g'"
    result = subprocess.run(["fish", "-c", script], capture_output=True, check=True)
    assert result.stdout.decode().split("\t")[0] == "--no-gitignore"


def test_every_command_help_shows_examples() -> None:
    from helpers import run_readmany

    for command in all_options():
        result = run_readmany([command, "--help"], env={"COLUMNS": "120", "PATH": "/usr/bin"})
        assert result.returncode == 0
        assert f"readmany {command} " in result.stdout.decode().split("Examples:")[1]
