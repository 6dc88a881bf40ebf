"""Every number readmany reads from text is the digits 0-9 alone (with a size's suffix):
none of the other spellings Python's `int()` takes (Arabic-Indic or fullwidth digits,
`1_0`, `+5`, ` 5 `)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_readmany

from readmany.numbers import decimal_number, whole_number

# Each is a whole number to Python's int() (or float()), and none is the digits 0-9 alone.
INT_SPELLINGS = ["\u0661\u0660", "1_0", "+5", " 5 ", "5 ", "\t5", "\uff15", "5\n", "-0"]


@pytest.mark.parametrize("text", INT_SPELLINGS)
def test_only_ascii_digits_are_a_whole_number(text: str) -> None:
    assert whole_number(text) is None
    assert decimal_number(text) is None or text == "-0"  # a request's offset may be negative


def test_whole_and_decimal_numbers() -> None:
    assert [whole_number(t) for t in ("0", "7", "007", "10")] == [0, 7, 7, 10]
    assert [whole_number(t) for t in ("", "-1", "1.0", "1e3", "x")] == [None] * 5
    assert whole_number("9" * 601) is None  # past what `int()` converts: no exception
    assert [decimal_number(t) for t in ("2", "-1", "2.5", "2.0")] == [2, -1, 2.5, 2.0]
    for text in ("", "-", "2.", ".5", "1e3", "inf", "nan", "Infinity", "0x10", "+2", "--1"):
        assert decimal_number(text) is None, text


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 21)))
    return tmp_path


INT_OPTIONS = [
    (["many", "a.txt"], "--max-lines"),
    (["glob", "a.txt"], "--max-lines"),
    (["glob", "a.txt"], "--max-file-lines"),
    (["glob", "a.txt", "--max-tokens", "1k", "--parts"], "--part"),
    (["hashline", "a.txt"], "--offset"),
    (["hashline", "a.txt"], "--limit"),
]


@pytest.mark.parametrize("value", INT_SPELLINGS)
@pytest.mark.parametrize(("args", "option"), INT_OPTIONS, ids=lambda v: str(v))
def test_an_integer_option_takes_digits_alone(
    tree: Path, args: list[str], option: str, value: str
) -> None:
    for given in ([*args, option, value], [*args, f"{option}={value}"]):
        result = run_readmany(given, cwd=tree)
        assert (result.returncode, result.stdout) == (2, b""), result.stderr
        said = "give a number of at least 1" if value == "-0" else "give a whole number"
        assert result.stderr.decode() == f"readmany: {option}: {said}\n"


def test_an_integer_option_in_digits_still_works(tree: Path) -> None:
    result = run_readmany(["hashline", "a.txt", "--offset", "03", "--limit=2"], cwd=tree)
    assert result.returncode == 0, result.stderr
    assert [line.split("|")[1] for line in result.stdout.decode().splitlines()[1:3]] == [
        "line 3",
        "line 4",
    ]


SIZE_OPTIONS = [
    (["many", "a.txt"], "--max-bytes"),
    (["many", "a.txt"], "--max-tokens"),
    (["glob", "a.txt"], "--max-bytes"),
    (["glob", "a.txt"], "--max-tokens"),
    (["glob", "a.txt"], "--max-file-size"),
]


@pytest.mark.parametrize(
    "value", [*INT_SPELLINGS[:-1], "1_0k", " 2M", "\u0661k", "5i", "5ki", "1\u212a"]
)
@pytest.mark.parametrize(("args", "option"), SIZE_OPTIONS, ids=lambda v: str(v))
def test_a_size_takes_digits_alone_and_its_suffix(
    tree: Path, args: list[str], option: str, value: str
) -> None:
    result = run_readmany([*args, option, value], cwd=tree)
    assert (result.returncode, result.stdout) == (2, b""), result.stderr
    assert result.stderr.decode() == (
        f"readmany: {option} {value!r}: give a whole number, optionally with k, M or G "
        "(e.g. 100k)\n"
    )


@pytest.mark.parametrize("value", ["9" * 400, "9223372036854775808", "9999999999999999G"])
@pytest.mark.parametrize(("args", "option"), SIZE_OPTIONS, ids=lambda v: str(v))
def test_a_size_past_what_a_count_holds_is_refused(
    tree: Path, args: list[str], option: str, value: str
) -> None:
    # --max-tokens of 309 digits or more exited 70 (OverflowError: int too large to
    # convert to float, in the budget's arithmetic); the others ran as no limit.
    result = run_readmany([*args, option, value], cwd=tree)
    assert (result.returncode, result.stdout) == (2, b""), result.stderr
    assert result.stderr.decode() == (
        f"readmany: {option} {value!r}: give a number of at most 9,223,372,036,854,775,807\n"
    )
    assert run_readmany([*args, option, "9223372036854775807"], cwd=tree).returncode == 0


@pytest.mark.parametrize("where", ["config", "string", "server"])
def test_a_configured_or_served_size_past_what_a_count_holds_is_refused(
    tree: Path, where: str
) -> None:
    huge = "9" * 400
    if where == "server":
        result = run_readmany(["mcp", "--root", ".", "--max-tokens", huge], cwd=tree)
    else:
        value = huge if where == "config" else f'"{huge}"'
        (tree / ".readmany.toml").write_text(f"max-tokens = {value}\n")
        result = run_readmany(["glob", "a.txt"], cwd=tree)
    assert (result.returncode, result.stdout) == (2, b""), result.stderr
    said = result.stderr.decode()
    assert said.endswith(": give a number of at most 9,223,372,036,854,775,807\n"), said
    assert said.count("\n") == 1


@pytest.mark.parametrize("value", ["1_000", "+500", " 500", "\uff15\uff10\uff10"])
def test_compat_max_bytes_takes_digits_alone(tree: Path, value: str) -> None:
    result = run_readmany(["many", "--compat", "a.txt", "--max-bytes", value], cwd=tree)
    assert (result.returncode, result.stdout) == (2, b""), result.stderr
    assert result.stderr.decode().startswith(
        f"readmany: --max-bytes {value!r}: give a whole number of bytes"
    )


@pytest.mark.parametrize("value", ["1_0k", " 10k", "+10k"])
def test_the_server_s_max_tokens_takes_digits_alone(tree: Path, value: str) -> None:
    result = run_readmany(["mcp", "--root", ".", "--max-tokens", value], cwd=tree)
    assert (result.returncode, result.stdout) == (2, b""), result.stderr
    assert f"--max-tokens {value!r}: give a whole number" in result.stderr.decode()


@pytest.mark.parametrize("value", ['"1_0k"', '"+10k"', '" 10k"', '"\u0661\u0660k"'])
def test_a_configured_size_takes_digits_alone(tree: Path, value: str) -> None:
    (tree / ".readmany.toml").write_text(f"max-tokens = {value}\n")
    result = run_readmany(["glob", "a.txt"], cwd=tree)
    assert (result.returncode, result.stdout) == (2, b""), result.stderr
    assert result.stderr.decode().startswith("readmany: .readmany.toml: max-tokens")
    assert "give a whole number" in result.stderr.decode()


@pytest.mark.parametrize(
    "spec", ["a.txt:2\n", "a.txt:2:3\n", "a.txt:\u0661:\u0662", "a.txt:2:\u0663"]
)
def test_a_line_range_is_digits_to_its_end(tree: Path, spec: str) -> None:
    result = run_readmany(["many", spec], cwd=tree)
    assert (result.returncode, result.stdout) == (2, b""), result.stderr
    assert result.stderr.decode() == (
        f"readmany: bad range in {spec!r}: use FILE:OFFSET or FILE:OFFSET:LIMIT "
        "with OFFSET and LIMIT as decimal numbers\n"
    )


def test_a_line_range_too_long_for_int_is_a_bad_range(tree: Path) -> None:
    spec = "a.txt:" + "9" * 5000
    result = run_readmany(["many", spec], cwd=tree)
    assert (result.returncode, result.stdout) == (2, b""), result.stderr
    assert result.stderr.decode().startswith("readmany: bad range in 'a.txt:999")


@pytest.mark.parametrize("value", ["\u0661", "1_0", "+2", " 2 ", "2\n", "1e1", "nan", "inf", ""])
def test_a_request_s_number_given_as_a_string_is_digits(tree: Path, value: str) -> None:
    request = {"files": [{"path": "a.txt", "offset": value}]}
    (tree / "req.json").write_text(json.dumps(request))
    for face in ([], ["--compat"]):
        result = run_readmany(["many", *face, "--request", "req.json"], cwd=tree)
        assert (result.returncode, result.stdout) == (2, b""), result.stderr
        assert result.stderr.decode() == "readmany: request: files/0/offset: must be number\n"


def test_a_request_s_number_as_a_string_still_reads(tree: Path) -> None:
    request = {"files": [{"path": "a.txt", "offset": "3", "limit": "2.0"}]}
    (tree / "req.json").write_text(json.dumps(request))
    result = run_readmany(["many", "--compat", "--request", "req.json"], cwd=tree)
    assert result.returncode == 0, result.stderr
    assert b"line 3\nline 4\n" in result.stdout and b"line 5" not in result.stdout


@pytest.mark.parametrize("value", ["\u0661", "1_0", "+2", " 2 "])
def test_the_read_many_tool_takes_digits_alone(tree: Path, value: str) -> None:
    from readmany.serve.config import ServerConfig
    from readmany.serve.tools import Tools, text_of

    tools = Tools(ServerConfig(roots=(str(tree),)))
    result = tools.call("read_many", {"files": [{"path": "a.txt", "limit": value}]})
    assert result["isError"], text_of(result)
    assert text_of(result) == "request: files/0/limit: must be number"
    result = tools.call("read_many", {"files": [{"path": "a.txt", "limit": "2"}]})
    assert not result["isError"], text_of(result)
    assert "line 2\n" in text_of(result) and "line 3" not in text_of(result)
