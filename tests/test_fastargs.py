"""The fast path parses every command line it accepts exactly as the Typer app does."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from readmany import cli, fastargs
from readmany.argtable import OPTIONS


def typer_values(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict[str, Any]]:
    seen: dict[str, Any] = {}

    def capture(command: str, values: dict[str, Any]) -> int:
        seen["command"] = command
        seen["values"] = values
        return 0

    monkeypatch.setattr(cli, "invoke", capture)
    assert cli.run(args) == 0
    return seen["command"], seen["values"]


ACCEPTED = [
    ["many", "a.txt"],
    ["many", "a.txt", "b.txt:2:3", "--json", "-o", "out.txt", "-q"],
    ["many", "--request", "-", "--stop-on-error", "--max-bytes", "100", "--max-lines=7"],
    ["many", "--stdin", "-0", "--", "-weird-name", "--json"],
    ["many", "-", "--copy"],
    ["glob", "src/**", "--exclude", "*.md", "--exclude=x/", "--include", "y", "--root", "sub"],
    ["glob", "--stdin", "--null", "--no-default-excludes", "--no-gitignore", "--no-recursive"],
    ["glob", "a", "--ignore-file", ".geminiignore", "--ignore-file", "n", "--absolute"],
    ["hashline", "f.py", "--offset", "3", "--limit", "10", "--json"],
    ["hashline", "--offset=1", "--", "-f.py"],
    ["many", "--max-bytes", "1000", "a", "--max-lines", "07"],
    ["edit", "a.py#5CeleQP4", "--replace", "2#qak..3#zyb", "--content", "x", "--show"],
    ["edit", "--request", "-", "--json", "-q", "--dry-run", "--root", "sub"],
    ["edit", "a#b.py#TAG", "--insert-after", "1#a", "--insert-after=4#b", "--append"],
    ["edit", "a#TAG", "--delete", "2#c", "--insert-before", "3#d", "--content-file", "-"],
]


@pytest.mark.parametrize("args", ACCEPTED, ids=[" ".join(a) for a in ACCEPTED])
def test_fast_path_agrees_with_typer(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = fastargs.parse(args)
    assert fast is not None
    assert fast == typer_values(args, monkeypatch)


DECLINED = [
    [],
    ["--help"],
    ["many", "--help"],
    ["many", "-h"],
    ["many", "--max-bytes", "0", "a"],
    ["many", "--max-bytes", "x", "a"],
    ["many", "--max-bytes", " 12", "a"],
    ["many", "--max-bytes", "1_000", "a"],
    ["many", "--max-lines", "+5", "a"],
    ["many", "--max-lines", "\u0661", "a"],
    ["many", "--max-bytes"],
    ["many", "--bogus"],
    ["many", "-qo", "x"],
    ["many", "--json=1"],
    ["glob", "--exclude", "-x"],
    ["hashline"],
    ["hashline", "a", "b"],
    ["hashline", "a", "--offset", "0"],
    ["edit", "a#TAG", "--replace", "-1#abc"],
    ["edit", "a#TAG", "b#TAG"],
    ["nope", "a"],
    ["--version", "many"],
]


@pytest.mark.parametrize("args", DECLINED, ids=[" ".join(a) or "(none)" for a in DECLINED])
def test_fast_path_leaves_the_rest_to_typer(args: list[str]) -> None:
    assert fastargs.parse(args) is None


tokens = st.sampled_from(
    ["a", "b.txt", "-", "--", "-0", "-q", "-o", "out", "--json", "--copy", "--stdin",
     "--max-bytes", "5", "0", "--max-lines=3", "--request", "--exclude", "--include", "x",
     "--root", ".", "--offset", "--limit", "2", "--no-gitignore", "--null", "--absolute",
     "-x", "--exclude=", "=", "--stop-on-error"]
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=scaled(400), deadline=None)
@given(command=st.sampled_from(sorted(OPTIONS)), rest=st.lists(tokens, max_size=8))
def test_random_command_lines_agree(command: str, rest: list[str]) -> None:
    args = [command, *rest]
    fast = fastargs.parse(args)
    if fast is None:
        return
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert fast == typer_values(args, monkeypatch)
