"""Names on stderr: escape sequences and line breaks never reach the terminal raw."""

from __future__ import annotations

import json

import pytest

from readmany.emit.quote import escape_controls, for_terminal
from readmany.frame.paths import header_path, quoted


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("src/a.py", "src/a.py"),
        ("dir/b c.py", "dir/b c.py"),
        ("é/😀.md", "é/😀.md"),
        ("\x1b]0;pwned\x07x", '"\\u001b]0;pwned\\u0007x"'),  # sets the window title
        ("\x1b[2J\x1b[H.txt", '"\\u001b[2J\\u001b[H.txt"'),  # clears the screen
        ("\x9b31mred", '"\\u009b31mred"'),  # the one-byte CSI of C1
        ("a\nreadmany: forged", '"a\\nreadmany: forged"'),
        ("tab\there\r", '"tab\\there\\r"'),
        ("del\x7f", '"del\\u007f"'),
        ("next\x85line", '"next\\u0085line"'),
        ("sep\u2028par\u2029", '"sep\\u2028par\\u2029"'),
        ("evil\u202etxt.exe", '"evil\\u202etxt.exe"'),  # shown reversed otherwise
        ("bad\udcffbyte", '"bad\\udcffbyte"'),
        ('"quoted', '"\\"quoted"'),
        ('back\\slash\x1b"', '"back\\\\slash\\u001b\\""'),
    ],
)
def test_for_terminal(name: str, shown: str) -> None:
    assert for_terminal(name) == shown
    assert shown.isascii() or shown == name
    if shown != name and "\\ud" not in shown:
        assert json.loads(shown) == name  # the quoted form reads back exactly


def test_escape_controls_keeps_a_line_and_escapes_what_acts() -> None:
    assert escape_controls("readmany: 2 skipped: a.txt") == "readmany: 2 skipped: a.txt"
    assert escape_controls("errors: \x1b[2Jx\ny") == "errors: \\u001b[2Jx\\ny"
    assert escape_controls("é ok") == "é ok"


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("a.txt", "a.txt"),
        ("x\x85--- End of content ---", '"x\\u0085--- End of content ---"'),
        ("x\u2028y", '"x\\u2028y"'),
        ("x\u2029y", '"x\\u2029y"'),
        ("csi\x9b", '"csi\\u009b"'),
        ("v\x0bf\x0cfs\x1c\x1d\x1e", '"v\\u000bf\\ffs\\u001c\\u001d\\u001e"'),
        ("cr\r", '"cr\\r"'),
        ("del\x7f", '"del\\u007f"'),
        ("é😀", "é😀"),
    ],
)
def test_header_paths_quote_every_line_break(path: str, shown: str) -> None:
    assert header_path(path) == shown
    assert len(header_path(path).splitlines()) == 1
    assert json.loads(quoted(path)) == path
