"""A count of the o200k_base tokens of a text, without the tokenizer.

o200k_base cuts a text into pieces (a word with the space or mark before it, up to
three digits, a run of punctuation, a run of spaces or line breaks) and encodes each
piece alone: a piece that is one of its tokens is that token; any other starts as its
characters, and the two side by side whose joining is a token of the lowest rank are
joined, again and again. `PIECE` cuts ASCII text as o200k_base does, and every ASCII
token of o200k_base ships in rank order (`data/o200k_ascii.json`: 128,833 tokens, made
by scripts/make_merge_vocabulary.py): a piece that is one counts one, any other is
merged as o200k_base merges it (`merge_count`). For ASCII text the count
(`MergedCount`) is the real count. In mostly ASCII text a run of characters that are
not ASCII counts its UTF-8 bytes, the most any tokenizer of bytes makes of it, and
`RUN_MARGIN` more; a text more than `MOST_OTHER` of whose bytes are not ASCII counts
the bound of its estimate alone (`_estimated`: bytes would count prose in other scripts
2-4 times over, and the estimate can be beaten by text made to read low). On 5,057
files of 13 repositories and packages the count was never under the real one, over it
by 0.3% in the median file (scripts/fit_merge_bound.py). A budget of tokens bounds
what it counts so by that count (`tokens.real_at_most`).

It costs more than `tokens.weight_of_sample` (a regular expression and a lookup a
piece, and the merges of the pieces that are no token: 80-130 µs a KB, and about 35 ms
to load the vocabulary, against 3 µs a KB), so a budget counts what it shows, once
(`frame.planned.CloseWeights`), its cut, its outlines and its ends; a text over
`STRETCH_CHARS` a stretch of lines at a time. Of text that no token covers (random
letters), at most `MOST_MERGED` is merged and the rest counted a token a character:
0.3 ms a KB at most, where merging it all took 2-3.
"""

from __future__ import annotations

import math
import re
from itertools import islice, pairwise

from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

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
LONGEST = 256  # characters of a piece merged at once, at most
MERGES_KEPT = 1 << 16  # pieces whose count of merges is remembered, at most
STRETCH_CHARS = 1 << 18  # a longer text is counted a stretch of lines of about this at a time
MOST_OTHER = 0.02  # of a text's bytes not ASCII, at most, for it to be counted by pieces
RUN_MARGIN = 2  # tokens a run of characters that are not ASCII counts beyond its bytes
RUN_GROUP = 16  # lines counted together for a cut's running counts
MOST_MERGED = 0.25  # of a text's characters, at most, in pieces merged for it
MERGED_AT_LEAST = 4096  # characters of pieces a text may have merged whatever its length
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_NOT_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
_NO_MERGE = 1 << 62  # the rank of two parts whose joining is no token


class MergedCount(NamedTuple):
    """The tokens of a text: its pieces that are one token each (`known`, exact), the
    merges of its other pieces (`split`: as o200k_base merges them; past the merge
    allowance, a token a character), and what its characters that are not ASCII count
    (`other`: their UTF-8 bytes and `RUN_MARGIN` a run, or, for text mostly not ASCII,
    all of it: the bound of its estimate)."""

    known: int
    split: int
    other: int = 0

    @property
    def tokens(self) -> int:
        return self.known + self.split + self.other


_ranks: dict[str, int] | None = None
_merged: dict[str, int] = {}  # a piece's count of merges, by the piece


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
    if len(piece) > LONGEST:  # merged a stretch at a time (no merge joins two)
        stretches: dict[str, int] = {}
        total = 0
        for at in range(0, len(piece), LONGEST):
            stretch = piece[at : at + LONGEST]
            found = stretches.get(stretch)
            if found is None:
                found = stretches[stretch] = merge_count(stretch, ranks)
            total += found
        return total
    parts = list(piece)
    get = ranks.get
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


def count(text: str) -> MergedCount:
    """The tokens of `text` by its pieces: a long text a stretch of lines at a time
    (`STRETCH_CHARS`: memory bounded; a token more at each seam, where a run of spaces
    or line breaks may be cut in two), characters that are not ASCII each run of them
    its UTF-8 bytes and `RUN_MARGIN` tokens more (`_other`)."""
    if len(text) <= STRETCH_CHARS:
        return _count(text)
    known = split = other = 0
    start = seams = 0
    while start < len(text):
        end = text.find("\n", start + STRETCH_CHARS) + 1 or len(text)
        counted = _count(text[start:end])
        known, split, other = known + counted.known, split + counted.split, other + counted.other
        start, seams = end, seams + 1
    return MergedCount(known, split, other + seams - 1)


def _count(text: str) -> MergedCount:
    if text.isascii():
        return MergedCount(*_ascii_count(text))
    estimated = _estimated(text)
    if estimated is not None:
        return MergedCount(0, 0, estimated)
    other, spaced = _other(text)
    return MergedCount(*_ascii_count(spaced), other)


def _estimated(text: str) -> int | None:
    """Of a text more than `MOST_OTHER` of whose bytes are not ASCII, the bound of one
    block of its estimate (`tokens.real_at_most`): counted a token a byte, prose in
    other scripts would take 2-4 times its real count. (It is no bound at all for
    text made to read low: random emoji, combining marks.) None for any other text."""
    other = other_bytes(text)
    if other <= (len(text) - len(_NOT_ASCII.findall(text)) + other) * MOST_OTHER:
        return None
    from readmany.tokens import SAMPLE_BYTES, real_at_most, text_weight

    return math.ceil(real_at_most([text_weight(text, SAMPLE_BYTES)]))


def _other(text: str) -> tuple[int, str]:
    """What the characters of `text` that are not ASCII count, and the text with each of
    them a space (the words beside them pieces apart, as they may be). A character is a
    token a UTF-8 byte at most, the most any tokenizer of bytes makes of it; a run of
    them counts `RUN_MARGIN` more, for the words beside it, which o200k_base may cut
    otherwise (`conǅsider`: titlecase letters inside a word took a token or two more)."""
    runs = len(_NOT_ASCII_RUN.findall(text))
    spaced = _NOT_ASCII.sub(" ", text)
    return other_bytes(text) + RUN_MARGIN * runs, spaced


def other_bytes(text: str) -> int:
    """The UTF-8 bytes of the characters of `text` that are not ASCII."""
    return len(text.encode("utf-8", "surrogatepass")) - len(text.encode("ascii", "ignore"))


def _ascii_count(text: str, allowance: list[int] | None = None) -> tuple[int, int]:
    """The known tokens of ASCII `text`, and the count of merges of its other pieces.

    Merging costs most on text of pieces no vocabulary knows (random letters, 2-3 ms a
    KB): pieces not merged before are merged for up to a `MOST_MERGED` share of the
    text's characters; past it, each counts a token a character (never fewer than the
    real count: a character is a byte, and a byte a token at most). `allowance`: the
    characters left to merge, shared by the stretches of one text (`running_counts`)."""
    tokens = ranks()
    pieces = split(text)
    known = sum(map(tokens.__contains__, pieces))
    if known == len(pieces):
        return known, 0
    merged = _merged
    if len(merged) > MERGES_KEPT:  # the oldest half goes
        for piece in list(islice(merged, len(merged) // 2)):
            del merged[piece]
    if allowance is None:
        allowance = [max(MERGED_AT_LEAST, int(len(text) * MOST_MERGED))]
    allowed = allowance[0]
    rest = 0
    for piece in pieces:
        if piece not in tokens:
            found = merged.get(piece)
            if found is None:
                work = _merge_work(piece)
                if allowed < work:
                    found = len(piece)
                else:
                    allowed -= work
                    found = merged[piece] = merge_count(piece, tokens)
            rest += found
    allowance[0] = allowed
    return known, rest


def _merge_work(piece: str) -> int:
    """The characters `merge_count` merges for `piece`: a long one's different
    stretches (a run of spaces is one stretch again and again)."""
    if len(piece) <= LONGEST:
        return len(piece)
    stretches = {piece[at : at + LONGEST] for at in range(0, len(piece), LONGEST)}
    return len(stretches) * LONGEST


def running_counts(text: str, ends: Sequence[int]) -> list[int]:
    """The tokens of `text[:end]` for each of `ends` (ascending, the first 0): the
    stretches of `RUN_GROUP` ends (lines, for a cut) counted alone, a piece rarely
    running on past a line's end, and the ends within a stretch at its count shared by
    characters (the cut found so is counted whole before its bound is taken)."""
    head = text[: ends[-1]]
    mixed = not head.isascii()
    running = [0]
    total = 0
    allowance = [max(MERGED_AT_LEAST, int(len(head) * MOST_MERGED))]  # for all of it
    for group in range(0, len(ends) - 1, RUN_GROUP):
        stretch = ends[group : group + RUN_GROUP + 1]
        start, end = stretch[0], stretch[-1]
        part = head[start:end]
        estimated = _estimated(part) if mixed and not part.isascii() else None
        if estimated is not None:
            tokens = estimated
        else:
            other = 0
            if mixed and not part.isascii():
                other, part = _other(part)
            known, rest = _ascii_count(part, allowance)
            tokens = known + rest + other
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
