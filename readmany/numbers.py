"""A number read from what a person or a program typed: ASCII digits alone.

Python's `int()` and `float()` take more than digits: other scripts' digits (Arabic-Indic,
fullwidth), underscores (`1_0`), a sign (`+5`), spaces around (` 5 `). readmany reads every
number it is given as text here (an option's value, a size such as `100k`, a line range
`a.txt:40:120`, a number a `--request` gives as a string), so that none of those is taken."""

from __future__ import annotations

# Beyond this many digits `int()` refuses the text (sys.int_info.str_digits_check_threshold
# is 640 at the least); no count readmany takes is anywhere near it.
_MOST_DIGITS = 600


def whole_number(text: str) -> int | None:
    """`text` as a whole number if it is the digits 0-9 alone (`007` is 7), else None."""
    if not text.isascii() or not text.isdigit() or len(text) > _MOST_DIGITS:
        return None
    return int(text)


def decimal_number(text: str) -> int | float | None:
    """`text` as a number if it is written `[-]DIGITS[.DIGITS]` in ASCII (`-1`, `2.5`), an
    int when it has no fraction; else None (no exponent, space, sign `+`, `inf` or `nan`)."""
    whole, point, fraction = text.removeprefix("-").partition(".")
    if whole_number(whole) is None or (point and whole_number(fraction) is None):
        return None
    return float(text) if point else int(text)
