"""One path rule in the default face: a path is the file it names. `@`, `~` and Unicode
spaces are literal in every command and every check (hashline's secret check, edit), so
what is judged is what is shown, and what is edited is what was named. `--compat` keeps
the read tool's rewriting (spec/hashline.md §7.1), its check and its read alike."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import run_readmany

from readmany.read.hashline import file_tag, line_anchor

KEY = "aws_key = AKIAIOSFODNN7EXAMPLE\n"
PLAIN = "nothing to see\n"

# (the name given, the file the read tool's rewriting would take instead)
LOOKALIKES = [
    ("@config.py", "config.py"),
    ("~/config.py", "home/config.py"),
    ("a\u00a0b.py", "a b.py"),
    ("a\u3000b.py", "a b.py"),
]


def lookalike_tree(tmp_path: Path, given: str, rewritten: str, *, key_in_given: bool) -> Path:
    work = tmp_path / "work"
    (work / "~").mkdir(parents=True)
    (work / "home").mkdir()
    (work / given).write_text(KEY if key_in_given else PLAIN)
    (work / rewritten).write_text(PLAIN if key_in_given else KEY)
    return work


def env_with_home(work: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(work / "home")}


@pytest.mark.parametrize(("given", "rewritten"), LOOKALIKES)
def test_hashline_secrets_skip_judges_the_file_it_shows(
    tmp_path: Path, given: str, rewritten: str
) -> None:
    work = lookalike_tree(tmp_path, given, rewritten, key_in_given=True)
    env = env_with_home(work)
    skipped = run_readmany(["hashline", given, "--secrets", "skip"], cwd=work, env=env)
    assert b"AKIA" not in skipped.stdout
    assert skipped.returncode == 1
    assert skipped.stderr.decode() == (
        f"readmany: {given}: left out by --secrets skip: looks like a secret (aws-access-key-id)\n"
    )
    warned = run_readmany(["hashline", given, "--secrets", "warn"], cwd=work, env=env)
    assert warned.returncode == 0
    assert warned.stdout.decode().startswith(f"@file {given}#")
    assert b"AKIA" in warned.stdout
    assert f"readmany: {given}: looks like a secret: line 1".encode() in warned.stderr


@pytest.mark.parametrize(("given", "rewritten"), LOOKALIKES)
def test_hashline_secrets_never_warns_of_a_file_it_does_not_show(
    tmp_path: Path, given: str, rewritten: str
) -> None:
    work = lookalike_tree(tmp_path, given, rewritten, key_in_given=False)
    result = run_readmany(
        ["hashline", given, "--secrets", "skip"], cwd=work, env=env_with_home(work)
    )
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode().startswith(f"@file {given}#")
    assert PLAIN.strip().encode() in result.stdout


@pytest.mark.parametrize(("given", "rewritten"), LOOKALIKES)
def test_edit_edits_the_file_named(tmp_path: Path, given: str, rewritten: str) -> None:
    work = lookalike_tree(tmp_path, given, rewritten, key_in_given=False)
    before = (work / rewritten).read_bytes()
    tag = file_tag(PLAIN.encode())
    result = run_readmany(
        ["edit", f"{given}#{tag}", "--replace", "1#" + anchor_of(PLAIN), "--content", "edited"],
        cwd=work,
        env=env_with_home(work),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == (
        f"Edited {given} (1 range). Re-read before editing it again.\n"
    )
    assert (work / given).read_text() == "edited\n"
    assert (work / rewritten).read_bytes() == before


def test_edit_of_a_rewritten_name_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(PLAIN)
    tag = file_tag(PLAIN.encode())
    result = run_readmany(
        ["edit", f"@a.py#{tag}", "--replace", "1#" + anchor_of(PLAIN), "--content", "x"],
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert b"@a.py" in result.stderr and result.stdout == b""
    assert (tmp_path / "a.py").read_text() == PLAIN


def test_compat_rewrites_for_the_read_as_the_reference_does(tmp_path: Path) -> None:
    (tmp_path / "a b.py").write_text(PLAIN)
    result = run_readmany(["hashline", "--compat", "@a\u00a0b.py"], cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.decode().startswith("@file @a\u00a0b.py#")
    assert PLAIN.strip().encode() in result.stdout
    people = run_readmany(["hashline", "@a\u00a0b.py"], cwd=tmp_path)
    assert people.returncode == 1 and people.stdout == b""


def anchor_of(line: str) -> str:
    return line_anchor(line.rstrip("\n"))
