"""The command line to typed requests (`readmany.request`): choices are enums, sizes are
numbers, and a command's mistakes are usage errors raised while the request is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from readmany.choices import Format, Order, Secrets, Shell
from readmany.errors import UsageError
from readmany.fastargs import parse
from readmany.request import build
from readmany.request.glob import GlobRequest
from readmany.request.hashline import HashlineRequest
from readmany.request.many import ManyRequest


def _request(args: list[str]) -> object:
    parsed = parse(args)
    assert parsed is not None, "a well-formed command line takes the fast path"
    return build(*parsed)


def test_glob_choices_are_enums_and_sizes_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    request = _request(
        [
            *("glob", "*.py", "--format", "markdown", "--order", "given", "--max-bytes", "2k"),
            *("--secrets", "redact", "--no-config", "--json", "-q"),
        ]
    )
    assert isinstance(request, GlobRequest)
    assert request.format is Format.MARKDOWN
    assert request.order is Order.GIVEN
    assert request.secrets is Secrets.REDACT
    assert request.max_bytes == 2048
    assert request.presentation.json_mode and request.presentation.quiet
    default = _request(["glob", "*.py", "--no-config"])
    assert isinstance(default, GlobRequest)
    assert (default.format, default.order, default.secrets) == (
        Format.TEXT,
        Order.RANK,
        Secrets.OFF,
    )


def test_many_and_hashline_requests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("a\n")
    many = _request(["many", "a.txt:2:3", "--copy", "--max-tokens", "1k"])
    assert isinstance(many, ManyRequest)
    assert many.secrets is Secrets.WARN  # with --copy
    assert (many.files[0].path, many.files[0].offset, many.files[0].limit) == ("a.txt", 2, 3)
    assert many.budget.max_tokens == 1000
    hashline = _request(["hashline", "a.txt", "--secrets", "skip"])
    assert isinstance(hashline, HashlineRequest)
    assert hashline.secrets is Secrets.SKIP
    assert _request(["completions", "fish"]) is Shell.FISH


MISTAKES = [
    (
        ["glob", "x", "--format", "toml", "--no-config"],
        "--format 'toml': give text, markdown or xml",
    ),
    (["glob", "x", "--order", "best", "--no-config"], "--order 'best': give rank, given, smallest"),
    (
        ["glob", "x", "--secrets", "maybe", "--no-config"],
        "--secrets 'maybe': give one of off, warn, skip, redact",
    ),
    (
        ["glob", "x", "--stats", "--tree", "--no-config"],
        "--stats draws a tree of its own: drop --tree",
    ),
    (
        ["hashline", "a.txt", "--secrets", "redact"],
        "--secrets redact would change the bytes the anchors stand for: use warn or skip",
    ),
    (["many", "a.txt", "-0"], "-0 separates the paths of --stdin with NUL bytes: add --stdin"),
    (["completions", "tcsh"], "completions 'tcsh': give bash, zsh or fish"),
    # An empty word is refused as any other, not taken for the default.
    (["glob", "x", "--format", "", "--no-config"], "--format '': give text, markdown or xml"),
    (["glob", "x", "--order", "", "--no-config"], "--order '': give rank, given, smallest"),
    (
        ["glob", "x", "--format", "", "--compat"],
        "--format is not part of --compat, which writes the reference's exact text: drop one "
        "or the other",
    ),
]


@pytest.mark.parametrize(("args", "message"), MISTAKES)
def test_a_mistake_is_a_usage_error_while_the_request_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("a\n")
    with pytest.raises(UsageError) as caught:
        _request(args)
    assert str(caught.value) == message
