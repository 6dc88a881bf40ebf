"""A count of the o200k_base tokens of a text, without the tokenizer.

o200k_base cuts a text into pieces (a word with the space or mark before it, up to
three digits, a run of punctuation, a run of spaces or line breaks) and encodes each
piece alone: a piece that is one of its tokens is that token; any other starts as its
bytes, and the two side by side whose joining is a token of the lowest rank are
joined, again and again. readmany does the same, with o200k_base's whole vocabulary
(made by scripts/make_merge_vocabulary.py from its `.tiktoken` file): every ASCII token
in rank order (`data/o200k_ascii.json`: 128,833, 1.3 MB, loaded for any count, about
35 ms) and every other token with its rank and the classes of characters its pieces
are cut by (`data/o200k_other.json`: 71,165 tokens, Unicode 16.0's letters, numbers
and white space; loaded, in about 60 ms, by the first text that is not ASCII). `PIECE`
cuts ASCII text, `Others.split` any text, as bpe-openai's pre-tokenizer does; a piece
that is a token counts one, any other is merged by rank (`merge_count`). The count
(`MergedCount`) is the real count of o200k_base: equal to bpe-openai's on every
recorded sample, readmany's own source and 100,000 random strings of twenty scripts
(tests/test_merges.py). Characters that Unicode 16.0 does not assign add a margin (a
later Unicode may cut the words beside them otherwise). A budget of tokens bounds
what it counts so by that count (`tokens.real_at_most`).

It costs more than `tokens.weight_of_sample` (a regular expression and a lookup a
piece, and the merges of the pieces that are no token: 80-130 µs a KB of code, against
3 µs a KB), so a budget counts what it shows, once (`frame.planned.CloseWeights`), its
cut, its outlines and its ends; a text over `STRETCH_CHARS` a stretch of lines at a
time. Of ASCII text that no token covers (random letters), at most `MOST_MERGED` is
merged and the rest counted a token a character: 0.3 ms a KB at most, where merging it
all took 2-3. Pieces that are not ASCII are merged whole (text in other scripts is
mostly pieces no token covers, a run of Chinese characters between two marks is one:
counted a token a byte, Japanese prose took 2.2 times its real count): 0.9-1.5 ms a
KB, which a budget spends on what it shows.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from itertools import compress, islice, pairwise
from typing import AnyStr

from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

# o200k_base's pre-tokenizer, for ASCII: letters with one mark before them (uppercase
# then lowercase letters, or uppercase then optional lowercase ones, then an English
# contraction), 1-3 digits, punctuation with a space before it and line breaks or
# slashes after it, line breaks with the spaces before them, spaces not before a word,
# any spaces. Its \s is Unicode White_Space: in ASCII, tab to carriage return and the
# space (not 0x1C-0x1F, which Python's \s counts).
_SPACE = r"\t\n\x0b\x0c\r "
_CONTRACTION = r"(?:'[sStTmMdD]|'[rR][eE]|'[vV][eE]|'[lL][lL])?"
_MARK = r"[^\r\nA-Za-z0-9]?"
PIECE = re.compile(
    rf"{_MARK}[A-Z]*[a-z]+{_CONTRACTION}"
    rf"|{_MARK}[A-Z]+[a-z]*{_CONTRACTION}"
    r"|[0-9]{1,3}"
    rf"| ?[^{_SPACE}A-Za-z0-9]+[\r\n/]*"
    rf"|[{_SPACE}]*[\r\n]+"
    rf"|[{_SPACE}]+(?![^{_SPACE}])"
    rf"|[{_SPACE}]+"
)
split = PIECE.findall

VOCABULARY = "o200k_ascii.json"  # in readmany/data/
OTHER_VOCABULARY = "o200k_other.json"  # the other tokens, and the classes of characters
UNICODE = "16.0.0"  # the version of Unicode o200k_base's pieces are cut by (bpe-openai's)
LONGEST = 256  # characters (or bytes) of a piece merged at once, at most
# tokens added at each seam of a longer piece merged a stretch at a time (but a run of
# one white space character, as many tokens either way): merged whole, its tokens can
# cross a seam and make more (257 dots: 6 tokens, 5 in two stretches; white space of
# line breaks and spaces in turn, 2 more a seam); 2 at most, over 10,000 long pieces of
# runs and patterns of punctuation, letters, white space and other scripts
SEAM_MARGIN = 3
LONGEST_MERGED = 1 << 16  # bytes of a piece not ASCII merged at most (a token a byte past)
# pieces whose count of merges is remembered, at most: `--parts` counts each part again
# for each split it tries, and with 65,536 a tree of 11 MB of Chinese data counted in
# 11.9 s, with 262,144 in 6.4 s.
MERGES_KEPT = 1 << 18
MERGED_CHARS_KEPT = 1 << 22  # and of their characters, at most (16 MB past the BMP)
LONGEST_KEPT = 1 << 12  # characters of a piece remembered, at most (lines of 300 spaces)
STRETCH_CHARS = 1 << 18  # a longer text is counted a stretch of lines of about this at a time
UNASSIGNED_MARGIN = 2  # tokens a run of characters Unicode `UNICODE` leaves unassigned adds
MOST_OTHER = 0.02  # of a text's bytes not ASCII, at most, for them to be counted as few
RUN_MARGIN = 2  # tokens a run of those few counts beyond its bytes
RUN_GROUP = 16  # lines counted together for a cut's running counts
MOST_MERGED = 0.25  # of a text's characters, at most, in pieces merged for it
MERGED_AT_LEAST = 4096  # characters of pieces a text may have merged whatever its length
_NO_MERGE = 1 << 62  # the rank of two parts whose joining is no token
_ASCII_BYTE = re.compile(rb"[\x00-\x7f]")
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_NOT_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
STOOD_IN_KEPT = 1 << 14  # characters past the BMP whose stand-in is remembered, at most
_SUPPLEMENTARY = re.compile("[\U00010000-\U0010ffff]")  # the planes past the BMP


class MergedCount(NamedTuple):
    """The tokens of a text: its pieces that are one token each (`known`, exact), the
    merges of its other pieces (`split`: as o200k_base merges them; past the merge
    allowance, a token a byte), and the margin of its characters that Unicode `UNICODE`
    does not assign, and of the seams of a long text counted a stretch at a time
    (`other`)."""

    known: int
    split: int
    other: int = 0

    @property
    def tokens(self) -> int:
        return self.known + self.split + self.other


_ranks: dict[str, int] | None = None
_merged: dict[str, int] = {}  # a piece's count of merges, by the piece
_kept = [0]  # the characters of the pieces `_merged` holds


def ranks() -> dict[str, int]:
    """The tokens of `VOCABULARY`, each with its rank (the order they are merged in);
    loaded once."""
    global _ranks
    if _ranks is None:
        import json
        import os

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", VOCABULARY)
        with open(path, "rb") as handle:
            tokens = json.loads(handle.read())["tokens"]
        _ranks = dict(zip(tokens, range(len(tokens)), strict=True))
    return _ranks


def merge_count(piece: str, ranks: dict[str, int]) -> int:
    """The tokens o200k_base's merges make of `piece`, a piece that is no token of
    `ranks`: its characters, then, again and again, the two side by side whose joining
    ranks first joined. A piece longer than `LONGEST` is merged a stretch of that many
    at a time."""
    return _merge(piece, ranks.get)


def _merge(piece: AnyStr, get: Callable[[AnyStr, int], int]) -> int:
    """`merge_count` of a piece of characters (ASCII, by `ranks`) or of bytes (by
    `Others.get`): `get` gives the rank of a joining, or `_NO_MERGE`."""
    if len(piece) > LONGEST:  # merged a stretch at a time, a margin at each seam
        stretches: dict[AnyStr, int] = {}
        total = 0
        for at in range(0, len(piece), LONGEST):
            stretch = piece[at : at + LONGEST]
            found = stretches.get(stretch)
            if found is None:
                found = stretches[stretch] = _merge(stretch, get)
            total += found
        if piece.isspace() and piece == piece[:1] * len(piece):
            return total  # a run of one white space: as many tokens in stretches as whole
        return total + SEAM_MARGIN * ((len(piece) - 1) // LONGEST)
    parts = [piece[at : at + 1] for at in range(len(piece))]
    # the rank of each pair side by side (`_NO_MERGE`: not a token), kept as they join
    pairs = [get(left + right, _NO_MERGE) for left, right in pairwise(parts)]
    while pairs:
        best = min(pairs)
        if best == _NO_MERGE:
            break
        at = pairs.index(best)
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
        del pairs[at]
        if at < len(pairs):
            pairs[at] = get(parts[at] + parts[at + 1], _NO_MERGE)
        if at > 0:
            pairs[at - 1] = get(parts[at - 1] + parts[at], _NO_MERGE)
    return len(parts)


class Others:
    """The tokens of o200k_base that are not ASCII text (`OTHER_VOCABULARY`), by their
    bytes, and its pieces for any text (`split`: `PIECE` with Unicode's letters,
    numbers and white space, as bpe-openai cuts them at Unicode `UNICODE`). Loaded on
    first use, by the first text that is not ASCII."""

    def __init__(self, document: dict[str, Any], ascii_count: int) -> None:
        tokens = document["tokens"]
        rank = -1
        self.ranks: dict[bytes, int] = {}
        ascii_at = bytearray(b"\1") * (ascii_count + len(tokens))
        for gap, token in zip(document["gaps"], tokens, strict=True):
            rank += gap
            self.ranks[bytes.fromhex(token)] = rank
            ascii_at[rank] = 0
        # the rank of each ASCII token, by its place in `VOCABULARY`: the ranks between
        self.ascii_ranks = list(compress(range(len(ascii_at)), ascii_at))
        classes = document["classes"]
        space, letter, number = classes["space"], classes["letter"], classes["number"]
        upper, lower = classes["upper"], classes["lower"]
        mark = rf"[^\r\n{letter}{number}]?"
        # an English contraction in any case: (?i) makes U+017F, a long s, an s too
        contraction = r"(?:'[sS\u017ftTmMdD]|'[rR][eE]|'[vV][eE]|'[lL][lL])?"
        self._pieces = re.compile(
            rf"{mark}[{upper}]*[{lower}]+{contraction}"
            rf"|{mark}[{upper}]+[{lower}]*{contraction}"
            rf"|[{number}]{{1,3}}"
            rf"| ?[^{space}{letter}{number}]+[\r\n/]*"
            rf"|[{space}]*[\r\n]+"
            rf"|[{space}]+(?![^{space}])"
            rf"|[{space}]+"
        )
        self._unassigned = re.compile(f"[{classes['unassigned']}]+").findall
        # A character past U+FFFF is cut as the character of the BMP in its place: its
        # classes are all in the BMP (a class with ranges past it is 10-20 times slower)
        self._astral_starts: list[int] = classes["astral_starts"]
        self._astral_stand_ins: str = classes["astral_stand_ins"]
        self._stood_in: dict[str, str] = {}

    def split(self, text: str) -> tuple[list[str], int]:
        """The pieces of `text`, and its runs of characters Unicode `UNICODE` does not
        assign."""
        if max(text) <= "\uffff":
            return self._pieces.findall(text), len(self._unassigned(text))
        cut = _SUPPLEMENTARY.sub(self._stand_in, text)
        pieces = [text[found.start() : found.end()] for found in self._pieces.finditer(cut)]
        return pieces, len(self._unassigned(cut))

    def _stand_in(self, found: re.Match[str]) -> str:
        character = found.group()
        shown = self._stood_in.get(character)
        if shown is None:
            if len(self._stood_in) > STOOD_IN_KEPT:
                self._stood_in.clear()
            at = bisect_right(self._astral_starts, ord(character)) - 1
            shown = self._stood_in[character] = self._astral_stand_ins[at]
        return shown

    def merge(self, data: bytes) -> int:
        """`_merge` of the bytes of a piece that is not ASCII, whole: text in other
        scripts is mostly such pieces (a run of Chinese characters between two marks is
        one), and a token a byte past an allowance counted it 1.6-3 times over. By the
        other tokens alone where it holds no ASCII byte (no ASCII token can join two of
        its parts), a lookup in C; else by every token (`get`)."""
        if len(data) > LONGEST_MERGED:  # made to cost: a token a byte, the most it holds
            return len(data)
        if _ASCII_BYTE.search(data) is None:
            return _merge(data, self.ranks.get)
        return _merge(data, self.get)

    def get(self, token: bytes, default: int) -> int:
        """The rank of `token` (bytes), or `default` where it is no token."""
        found = self.ranks.get(token)
        if found is None and token.isascii():
            at = ranks().get(token.decode("ascii"))
            return default if at is None else self.ascii_ranks[at]
        return default if found is None else found


_others: Others | None = None


def others() -> Others:
    """`Others`, loaded once."""
    global _others
    if _others is None:
        import json
        import os

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", OTHER_VOCABULARY)
        with open(path, "rb") as handle:
            document = json.loads(handle.read())
        _others = Others(document, len(ranks()))
    return _others


def count(text: str, most: int | None = None) -> MergedCount:
    """The tokens of `text` by its pieces: a long text a stretch of lines at a time
    (`STRETCH_CHARS`: memory bounded; a token more at each seam, where a run of spaces
    or line breaks may be cut in two; a line longer than two stretches cut before a
    space, or anywhere, `SEAM_MARGIN` more). `most`: once the stretches counted hold more,
    the rest is not counted but taken at the same tokens a character (`other`): a
    budget asks whether a file fits, and a file of 5 MB whose estimate read it small
    took seconds to count whole."""
    if len(text) <= STRETCH_CHARS:
        return MergedCount(*_counts(text))
    known = split = other = 0
    start = seams = 0
    while start < len(text):
        end = text.find("\n", start + STRETCH_CHARS, start + 2 * STRETCH_CHARS) + 1
        if not end and start + 2 * STRETCH_CHARS < len(text):  # a line of its own
            space = text.rfind(" ", start + 1, start + STRETCH_CHARS)
            end = space if space > start else start + STRETCH_CHARS
            other += SEAM_MARGIN  # a piece may be cut in two there
        end = end or len(text)
        counted = _counts(text[start:end])
        known, split, other = known + counted[0], split + counted[1], other + counted[2]
        start, seams = end, seams + 1
        total = known + split + other
        if most is not None and total > most and start < len(text):
            other += math.ceil(total * (len(text) - start) / start)
            break
    return MergedCount(known, split, other + seams - 1)


def _counts(
    text: str, allowance: list[int] | None = None, few: bool | None = None
) -> tuple[int, int, int]:
    """The known tokens of `text`, the count of merges of its other pieces, and the
    margin of its characters that Unicode `UNICODE` does not assign (`UNASSIGNED_MARGIN`
    a run: a later Unicode may make them letters, and cut the words beside them
    otherwise).

    Merging costs most on text of pieces no vocabulary knows (random letters, 2-3 ms a
    KB): ASCII pieces not merged before are merged for up to a `MOST_MERGED` share of
    the text's characters; past it, each counts a token a character (never fewer than
    the real count: a byte is a token at most). Pieces that are not ASCII are merged
    whole (`Others.merge`). `allowance`: the characters left to merge,
    shared by the stretches of one text (`running_counts`); `few`: whether its
    characters that are not ASCII are counted as few (`_few`), as the whole text's are
    (None: as this text's are)."""
    tokens = ranks()
    mixed = not text.isascii()
    unassigned = margin = 0
    if mixed and (_are_few(text) if few is None else few):
        margin, text = _few(text)  # counted without the other tokens, 50 ms to load
        mixed = False
    if mixed:
        found_others = others()
        pieces, unassigned = found_others.split(text)
    else:
        pieces = split(text)
    known = sum(map(tokens.__contains__, pieces))
    if known == len(pieces):  # every piece an ASCII token
        return known, 0, margin
    merged = _merged
    if len(merged) > MERGES_KEPT or _kept[0] > MERGED_CHARS_KEPT:  # the oldest half goes
        for piece in list(islice(merged, len(merged) // 2)):
            del merged[piece]
        _kept[0] = sum(map(len, merged))
    if allowance is None:
        allowance = [max(MERGED_AT_LEAST, int(len(text) * MOST_MERGED))]
    rest = 0
    for piece in pieces:
        if piece in tokens:
            continue
        found = merged.get(piece)
        if found is None:
            if (not mixed or piece.isascii()) and "\0" not in piece:
                size = len(piece)
                found = _merged_piece(piece, tokens.get, allowance, size)
            else:  # by its bytes, with every token (those with NUL are not in `tokens`)
                try:
                    data = piece.encode("utf-8")
                except UnicodeEncodeError:  # a lone surrogate: not written as it is here
                    rest += len(piece.encode("utf-8", "surrogatepass"))
                    continue
                found_others = others()
                size = len(data)
                if data in found_others.ranks:
                    known += 1
                    continue
                found = found_others.merge(data)
            if found < 0:  # past the allowance: a token a byte
                found = size
            elif len(piece) <= LONGEST_KEPT:
                merged[piece] = found
                _kept[0] += len(piece)
        rest += found
    return known, rest, margin + UNASSIGNED_MARGIN * unassigned


def _are_few(text: str) -> bool:
    """Whether at most `MOST_OTHER` of the bytes of `text` are not ASCII."""
    total = len(text.encode("utf-8", "surrogatepass"))
    return total - len(text.encode("ascii", "ignore")) <= total * MOST_OTHER


def _few(text: str) -> tuple[int, str]:
    """What the characters of `text` that are not ASCII count, where they are few, and
    the text with each of them a space (the words beside them pieces apart, as they may
    be). A character is a token a UTF-8 byte at most, the most any tokenizer of bytes
    makes of it; a run of them counts `RUN_MARGIN` more, for the words beside it, which
    o200k_base may cut otherwise (titlecase letters inside a word took a token or two
    more). Never under the real count on 5,057 files of 13 repositories and packages."""
    runs = len(_NOT_ASCII_RUN.findall(text))
    spaced = _NOT_ASCII.sub(" ", text)
    return other_bytes(text) + RUN_MARGIN * runs, spaced


def other_bytes(text: str) -> int:
    """The UTF-8 bytes of the characters of `text` that are not ASCII."""
    return len(text.encode("utf-8", "surrogatepass")) - len(text.encode("ascii", "ignore"))


def _merged_piece(
    piece: AnyStr, get: Callable[[AnyStr, int], int], allowance: list[int], size: int
) -> int:
    """`_merge` of `piece`, if what is left of `allowance` holds its work; else -1."""
    work = size
    if size > LONGEST:  # a long one's different stretches (a run of spaces is one again)
        work = len({piece[at : at + LONGEST] for at in range(0, size, LONGEST)}) * LONGEST
    if allowance[0] < work:
        return -1
    allowance[0] -= work
    return _merge(piece, get)


def running_counts(text: str, ends: Sequence[int]) -> list[int]:
    """The tokens of `text[:end]` for each of `ends` (ascending, the first 0): the
    stretches of `RUN_GROUP` ends (lines, for a cut) counted alone, a piece rarely
    running on past a line's end, and the ends within a stretch at its count shared by
    characters (the cut found so is counted whole before its bound is taken)."""
    head = text[: ends[-1]]
    few = not head.isascii() and _are_few(head)  # for every stretch as for all of it
    running = [0]
    total = 0
    allowance = [max(MERGED_AT_LEAST, int(len(head) * MOST_MERGED))]  # for all of it
    for group in range(0, len(ends) - 1, RUN_GROUP):
        stretch = ends[group : group + RUN_GROUP + 1]
        start, end = stretch[0], stretch[-1]
        tokens = sum(_counts(head[start:end], allowance, few))
        width = max(1, end - start)
        running += [total + tokens * (at - start) // width for at in stretch[1:-1]]
        total += tokens
        running.append(total)
    return running


def at_most(text: str) -> int:
    """The most real tokens `text` is taken to hold, without a tokenizer: its count
    (`count`), bounded (`tokens.real_at_most`)."""
    from readmany.tokens import real_at_most

    return math.ceil(real_at_most((), [count(text)]))
