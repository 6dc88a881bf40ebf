"""Sizes on the command line: suffixes, bases and the usage errors of bad values."""

from __future__ import annotations

import pytest

from readmany.errors import UsageError
from readmany.request.given import parse_size


@pytest.mark.parametrize(
    ("text", "bytes_", "tokens"),
    [
        ("512", 512, 512),
        ("512B", 512, 512),
        ("100k", 100 * 1024, 100_000),
        ("100K", 100 * 1024, 100_000),
        ("100KB", 100 * 1024, 100_000),
        ("2M", 2 * 1024**2, 2_000_000),
        ("2MiB", 2 * 1024**2, 2_000_000),
        ("1G", 1024**3, 1_000_000_000),
    ],
)
def test_sizes_with_suffixes(text: str, bytes_: int, tokens: int) -> None:
    assert parse_size(text, "--max-bytes") == bytes_
    assert parse_size(text, "--max-tokens", base=1000) == tokens


@pytest.mark.parametrize(
    "text", ["", "k", "1.5M", "-3", "x", "5T", "\uff11", "1 k", "1_000", " 12", "+5", "5i", "5KiBB"]
)
def test_bad_sizes_name_the_option_and_the_form(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_size(text, "--max-bytes")
    assert str(caught.value) == (
        f"--max-bytes {text!r}: give a whole number, optionally with k, M or G (e.g. 100k)"
    )


def test_zero_is_refused() -> None:
    with pytest.raises(UsageError, match="at least 1"):
        parse_size("0k", "--max-bytes")
