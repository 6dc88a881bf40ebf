"""The heredoc framer: path hash, delimiter choice and collisions, block format."""

from __future__ import annotations

import pytest

from readmany.frame.heredoc import (
    WORDS,
    base_delimiter,
    choose_delimiter,
    frame_heredoc,
    path_hash,
    word_for,
)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("", "001505"),
        ("a", "02B606"),
        ("small/a.txt", "49A636"),
        ("small/b.txt", "49B84E"),
        ("@small/a.txt", "F3B68A"),
        ("./small/a.txt", "AF99D5"),
        ("small/ünï.txt", "856260"),
        ("small/😀.txt", "B2941F"),  # an astral character hashes as two UTF-16 units
    ],
)
def test_path_hash_matches_the_reference(path: str, expected: str) -> None:
    assert path_hash(path) == expected


def test_path_hash_counts_surrogate_pairs_not_code_points() -> None:
    h = 5381
    for unit in (0xD83D, 0xDE00):  # U+1F600 as UTF-16
        h = (h * 33 + unit) & 0xFFFFFFFF
    assert path_hash("😀") == f"{h:X}"[:6]


def test_dictionary_has_26_words_with_distinct_initials() -> None:
    assert len(WORDS) == 26
    assert len({w[0] for w in WORDS}) == 26
    assert word_for(1) == "PINE" and word_for(26) == "ZEPHYR" and word_for(27) == "FILE27"


def test_base_delimiter() -> None:
    assert base_delimiter("small/b.txt", 2) == "MANGO_2_49B84E"


def test_delimiter_skips_a_colliding_line() -> None:
    base = base_delimiter("x", 1)
    assert choose_delimiter("x", 1, f"a\n{base}\nb") == f"{base}_1"


def test_delimiter_takes_the_first_free_numbered_suffix() -> None:
    base = base_delimiter("x", 1)
    body = "\n".join([base, f"{base}_1", f"{base}_2", f"{base}_4"])
    assert choose_delimiter("x", 1, body) == f"{base}_3"


def test_delimiter_ignores_a_trailing_cr_but_not_spaces_or_case() -> None:
    base = base_delimiter("x", 1)
    assert choose_delimiter("x", 1, f"{base}\r\n") == f"{base}_1"
    assert choose_delimiter("x", 1, f" {base}\n{base} \n{base.lower()}\n<<'{base}'") == base


def test_delimiter_falls_back_to_the_body_length_in_base36() -> None:
    base = base_delimiter("x", 1)
    lines = [base] + [f"{base}_{n}" for n in range(1, 257)]
    body = "\n".join(lines)
    length = len(body)  # ASCII: UTF-16 units == characters
    digits = ""
    while length:
        length, rest = divmod(length, 36)
        digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[rest] + digits
    fallback = f"{base}_{digits}"
    assert choose_delimiter("x", 1, body) == fallback


def test_fallback_length_counts_utf16_units() -> None:
    base = base_delimiter("x", 1)
    body = "\n".join([base] + [f"{base}_{n}" for n in range(1, 257)] + ["😀"])
    ascii_len = len(body) - 1 + 2  # the emoji counts as two units
    chosen = choose_delimiter("x", 1, body)
    digits = ""
    n = ascii_len
    while n:
        n, rest = divmod(n, 36)
        digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[rest] + digits
    assert chosen == f"{base}_{digits}"


def test_fallback_collisions_get_numbered() -> None:
    base = base_delimiter("x", 1)
    lines = [base] + [f"{base}_{n}" for n in range(1, 257)]
    # Try fallbacks until the body names its own: the length changes with each added line.
    for _ in range(3):
        body = "\n".join(lines)
        chosen = choose_delimiter("x", 1, body)
        assert chosen not in lines
        lines.append(chosen)
    body = "\n".join(lines)
    assert choose_delimiter("x", 1, body) not in body.split("\n")


def test_block_format_and_metrics() -> None:
    block = frame_heredoc("small/a.txt", "alpha\nbeta\n", 1)
    assert block.text == "@small/a.txt\n<<'PINE_1_49A636'\nalpha\nbeta\n\nPINE_1_49A636"
    assert block.delimiter == "PINE_1_49A636"
    assert block.lines == 3 + 3
    assert block.bytes == len(block.text.encode())


def test_block_bytes_count_utf8() -> None:
    block = frame_heredoc("é", "日本", 1)
    assert block.bytes == len(block.text.encode("utf-8"))


def test_a_path_with_a_newline_cannot_forge_a_header() -> None:
    block = frame_heredoc("a\n@b.txt", "x", 1)
    assert block.text.split("\n")[0] == '@"a\\n@b.txt"'
    assert block.lines == 4
    assert block.delimiter == base_delimiter("a\n@b.txt", 1)


def test_a_path_starting_with_a_quote_is_quoted_too() -> None:
    assert frame_heredoc('"q', "x", 1).text.startswith('@"\\"q"\n')
    assert frame_heredoc("plain path é.txt", "x", 1).text.startswith("@plain path é.txt\n")
