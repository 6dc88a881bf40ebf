"""Token estimates without a tokenizer: a byte rule of thumb, and a calibrated count.

`estimate_tokens(byte_count)` is the rule of thumb: one token per four bytes of UTF-8,
rounded up. It needs only a size, and readmany counts with it no more: it is kept as
the yardstick the calibrated count is measured against (scripts/, tests/test_tokens.py).
On the sample table below it is off by 22% on average: about right for English prose
and JavaScript, 10-20% low on Python and C, 50-65% low on base64, hex and tables of
numbers, and far high on deeply indented text.

`estimate_tokens_for(data)` counts what a tokenizer's pieces start with, in a few passes
of C over the raw bytes (`bytes.translate`, integer shifts and bit counts, no
decoding): words (runs of letters, ASCII or not), lowercase-to-uppercase changes
(camelCase and random text break into pieces there), digits and numbers, ASCII
punctuation and punctuation after a space, line breaks (with the indentation after
them), and non-ASCII characters by script group, told apart by their UTF-8 lead byte.
Spaces weigh nothing: a space joins the word after it. Each count has a weight fitted by
scripts/fit_token_weights.py to o200k_base counts of two tables: text samples
(tests/fixtures/token_counts.json: code in eight languages, prose in twelve, JSON,
minified code, base64, hex, logs, tables) and 1,447 files of seven repositories
(tests/fixtures/token_counts_repos.json: Python, Rust, Go, C, JavaScript, TypeScript and
their docs and configuration). On the samples it is off by 4.7% on average (19% at most);
on each repository's files, weighted without them, by 5.3-8.7% (6.6% on average, where
the byte rule is off by 17%); on numpy's 2,271 text files, fitted to in neither table, by
7.1% a file and 1.7% on their sum (the byte rule: 14.7% and 20%). An input over 8 KiB is
weighed by 8 evenly spaced windows of 1 KiB (7.1% on numpy instead of 7.0%): the time an
input costs is bounded, a few microseconds a kilobyte up to that size (`sample_bytes`
sets the bound).
"""

from __future__ import annotations

import math

from readmany.units import estimate_tokens as estimate_tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import AnyStr

# Each byte gets a class, a number below 16. Non-ASCII bytes are classed by UTF-8 lead
# byte: Greek/Cyrillic/Armenian/Hebrew/Arabic (CE-DF), Indic and Thai (E0), general
# punctuation, arrows and symbols (E1-E2), CJK and kana (E3-E9, EE-EF), Hangul (EA-ED),
# four-byte characters, mostly emoji (F0-F7); the rest (continuation bytes, Latin-1 and
# Latin Extended letters) is OTHER. Every non-ASCII class counts as a letter for words.
(
    START, LOWER, UPPER, DIGIT, SPACE, NEWLINE, PUNCTUATION, CONTROL,
    OTHER, GREEK_CYRILLIC_ARABIC, INDIC_THAI, SYMBOL, CJK, HANGUL, FOUR_BYTE,
) = range(15)  # fmt: skip
_LEAD_CLASSES = (
    (0xCE, 0xDF, GREEK_CYRILLIC_ARABIC),
    (0xE0, 0xE0, INDIC_THAI),
    (0xE1, 0xE2, SYMBOL),
    (0xE3, 0xE9, CJK),
    (0xEA, 0xED, HANGUL),
    (0xEE, 0xEF, CJK),
    (0xF0, 0xF7, FOUR_BYTE),
)
_LETTER_CLASSES = frozenset((LOWER, UPPER, OTHER, *(name for _, _, name in _LEAD_CLASSES)))
_NON_ASCII_COUNTED = (GREEK_CYRILLIC_ARABIC, INDIC_THAI, SYMBOL, CJK, HANGUL, FOUR_BYTE)


def _byte_class(byte: int) -> int:
    if 0x61 <= byte <= 0x7A:
        return LOWER
    if 0x41 <= byte <= 0x5A:
        return UPPER
    if 0x30 <= byte <= 0x39:
        return DIGIT
    if byte == 0x20:
        return SPACE
    if byte == 0x0A:
        return NEWLINE
    if 0x21 <= byte <= 0x7E:
        return PUNCTUATION
    if byte < 0x80:
        return CONTROL  # tab, carriage return, other control bytes
    for low, high, name in _LEAD_CLASSES:
        if low <= byte <= high:
            return name
    return OTHER


def _pair_marker(pair: int) -> int:
    """What a byte starts, given its class (high nibble) and its predecessor's (low)."""
    before, this = pair & 0xF, pair >> 4
    if this in _LETTER_CLASSES and before not in _LETTER_CLASSES:
        return ord("w")  # a word
    if before == LOWER and this == UPPER:
        return ord("c")  # a case change
    if this == DIGIT and before != DIGIT:
        return ord("n")  # a number
    if before == SPACE and this == PUNCTUATION:
        return ord("s")  # punctuation after a space
    return ord(".")


def _planes(byte: int) -> int:
    """A byte's class as the bits `weight_of_sample` counts: one plane per bit."""
    name = _byte_class(byte)
    return (
        (name in _LETTER_CLASSES) << _LETTER_PLANE
        | (name == LOWER) << _LOWER_PLANE
        | (name == UPPER) << _UPPER_PLANE
        | (name == DIGIT) << _DIGIT_PLANE
        | (name == SPACE) << _SPACE_PLANE
        | (name == PUNCTUATION) << _PUNCTUATION_PLANE
        | (name == NEWLINE) << _NEWLINE_PLANE
    )


# The class a byte must follow to be counted (lowercase before uppercase, a space before
# punctuation) is one plane below its own: the planes of the byte before, shifted up a
# plane, meet the byte's own in one AND.
_LETTER_PLANE, _LOWER_PLANE, _UPPER_PLANE, _DIGIT_PLANE = 0, 1, 2, 3
_SPACE_PLANE, _PUNCTUATION_PLANE, _NEWLINE_PLANE = 4, 5, 6
_tables: tuple[bytes, bytes, bytes] | None = None  # built on first use: start-up stays fast


def _translations() -> tuple[bytes, bytes, bytes]:
    """The byte-to-class, the pair-to-marker and the byte-to-planes tables."""
    global _tables
    if _tables is None:
        _tables = (
            bytes(map(_byte_class, range(256))),
            bytes(map(_pair_marker, range(256))),
            bytes(map(_planes, range(256))),
        )
    return _tables


# Per plane, an integer with that bit set in each of `_masks[0]` bytes; kept for samples
# up to `_MASKS_KEPT` bytes (a longer one's are made for it and dropped).
_masks: tuple[int, tuple[int, ...]] = (0, ())
_MASKS_KEPT = 1 << 16


def _plane_masks(size: int) -> tuple[int, ...]:
    """The planes' masks, `size` bytes long at least."""
    global _masks
    size = max(size, 1 << 10)
    masks = tuple(int.from_bytes(bytes((1 << plane,)) * size, "little") for plane in range(7))
    # and the lowercase and uppercase planes together, for `LONG_RUN`
    masks += (int.from_bytes(bytes((1 << _LOWER_PLANE | 1 << _UPPER_PLANE,)) * size, "little"),)
    if size <= _MASKS_KEPT:
        _masks = size, masks
    return masks


# Tokens per counted thing, in the order `token_features` counts them; fitted by least
# squares on the relative error (scripts/fit_token_weights.py prints them).
WEIGHTS = {
    "word": 1.17,  # a run of letters
    "case_change": 1.59,  # a lowercase letter followed by an uppercase one
    "digit": 0.206,
    "number": 1.56,  # a run of digits
    "punctuation": 0.242,  # ASCII
    "newline": 0.7,  # with the indentation after it
    "space_before_punctuation": 0.984,
    "greek_cyrillic_arabic": 0.145,  # beyond the word
    "indic_thai": 0.0858,
    "symbol": 0.525,  # general punctuation, arrows, box drawing
    "cjk": 0.696,
    "hangul": 0.354,
    "four_byte": 0.0,  # emoji, rare CJK: about one token each, as a word
}
_WEIGHT_VALUES = tuple(WEIGHTS.values())
# Tokens per ASCII letter past the 15th of a run of lowercase or of uppercase letters
# (`long_run_letters`). The counts above take a run of letters for one word, and a word
# is about a token: so it is in text, where words are short. A long run is many tokens
# (o200k_base: 0.50 a letter of `wwww…`, 0.52 of random lowercase letters, 0.57 of
# random uppercase), and weighed as one word a file of them reads 5-18 times low
# (readmany's own conformance outputs of 120-letter lines). Not fitted with the rest:
# the tables hold almost no such run; set a little over the largest of those counts so
# that such text never reads low (it reads high where a run is one repeated letter).
LONG_RUN = 0.6
LONG_RUN_AFTER = 15  # letters of a run before those weighed by `LONG_RUN`
(
    _WORD, _CASE_CHANGE, _DIGIT, _NUMBER, _PUNCTUATION, _NEWLINE, _SPACE_BEFORE_PUNCTUATION,
) = _WEIGHT_VALUES[:7]  # fmt: skip
SAMPLE_BYTES = 1 << 13  # a larger input is weighed by evenly spaced windows
WINDOWS = 8


def token_features(data: bytes, sample_bytes: int = SAMPLE_BYTES) -> list[float]:
    """The counts `WEIGHTS` weighs; of an input over `sample_bytes`, scaled from windows."""
    sample = sample_of(data, sample_bytes)
    scale = len(data) / len(sample) if sample else 1.0
    return [count * scale for count in _counts(sample)]


def sample_spans(size: int, sample_bytes: int = SAMPLE_BYTES) -> list[tuple[int, int]]:
    """(start, end) of each part weighed of an input of `size` bytes.

    All of it if it is no longer than `sample_bytes`, else `WINDOWS` evenly spaced
    windows, the first at the start and the last at the end.
    """
    if size <= sample_bytes:
        return [(0, size)]
    width = max(1, sample_bytes // WINDOWS)
    step = (size - width) // (WINDOWS - 1)
    return [(i * step, i * step + width) for i in range(WINDOWS)]


def sample_of(data: AnyStr, sample_bytes: int = SAMPLE_BYTES) -> AnyStr:
    """The bytes of `data` that are weighed (`data` itself when short enough); of ASCII
    text, the same windows of its characters."""
    size = len(data)
    if size <= sample_bytes:
        return data
    # `sample_spans`, written out (for the 8 `WINDOWS`): this runs once a file of `--stats`,
    # and a tuple of slices costs half what a loop over `range(WINDOWS)` does.
    width = max(1, sample_bytes // WINDOWS)
    step = (size - width) // (WINDOWS - 1)
    s2, s3, s4, s5, s6, s7 = step * 2, step * 3, step * 4, step * 5, step * 6, step * 7
    return data[:0].join(
        (
            data[:width],
            data[step : step + width],
            data[s2 : s2 + width],
            data[s3 : s3 + width],
            data[s4 : s4 + width],
            data[s5 : s5 + width],
            data[s6 : s6 + width],
            data[s7 : s7 + width],
        )
    )


def _counts(data: bytes) -> list[int]:
    to_class, to_marker, _ = _tables or _translations()
    classes = data.translate(to_class)
    # One byte per position holding its class and its predecessor's (START before the
    # first): the pairs that start a word, a number … become a marker each
    # (`_pair_marker`), counted in C.
    joined = int.from_bytes(classes, "little")
    markers = ((joined << 8) | (joined << 4)).to_bytes(len(data) + 1, "little").translate(to_marker)
    count = classes.count
    counts = [
        markers.count(b"w"),
        markers.count(b"c"),
        count(DIGIT),
        markers.count(b"n"),
        count(PUNCTUATION),
        count(NEWLINE),
        markers.count(b"s"),
    ]
    if data.isascii():
        return counts + [0] * len(_NON_ASCII_COUNTED)
    return counts + [count(name) for name in _NON_ASCII_COUNTED]


def long_run_letters(data: bytes) -> int:
    """The ASCII letters of `data` past the `LONG_RUN_AFTER`th of a run of lowercase or of
    uppercase letters: what `LONG_RUN` weighs (`weight_of_sample` counts them by bits)."""
    import re

    runs = re.finditer(rb"[a-z]{%d,}|[A-Z]{%d,}" % ((LONG_RUN_AFTER + 1,) * 2), data)
    return sum(match.end() - match.start() - LONG_RUN_AFTER for match in runs)


def token_weight(data: bytes, sample_bytes: int = SAMPLE_BYTES) -> float:
    """The unrounded estimate of `data`; sums of parts are (nearly) the estimate of the whole."""
    return weight_of_sample(sample_of(data, sample_bytes), len(data))


def weight_of_sample(sample: bytes, size: int) -> float:
    """The unrounded estimate of `size` bytes of which `sample` was taken.

    The weights times `_counts(sample)`, summed in their order, and `LONG_RUN` times
    `long_run_letters(sample)`, written out: this runs once a file of `--stats`, and an
    ASCII sample's non-ASCII counts add nothing.
    """
    # `_counts` in fewer passes of C, on one integer holding each byte's class as bits
    # (`_planes`): each count is a bit count. A count of markers, which branches on every
    # byte, cost about twice as much.
    if not sample:
        return 0.0
    to_class, _, to_planes = _tables or _translations()
    masks = _masks[1] if len(sample) <= _masks[0] else _plane_masks(len(sample))
    letters, _, uppers, digits, _, punctuation, newlines, cases = masks
    planes = int.from_bytes(sample.translate(to_planes), "little")
    before = planes << 8  # the planes of the byte before, in each byte's place
    starts = planes ^ (planes & before)  # what the byte before is not: a word, a number
    after = planes & (before + before)  # a plane above the one before: a case change, …
    weight = (
        _WORD * (starts & letters).bit_count()
        + _CASE_CHANGE * (after & uppers).bit_count()
        + _DIGIT * (planes & digits).bit_count()
        + _NUMBER * (starts & digits).bit_count()
        + _PUNCTUATION * (planes & punctuation).bit_count()
        + _NEWLINE * (planes & newlines).bit_count()
        + _SPACE_BEFORE_PUNCTUATION * (after & punctuation).bit_count()
    )
    if not sample.isascii():
        count = sample.translate(to_class).count
        for weight_of, name in zip(_WEIGHT_VALUES[7:], _NON_ASCII_COUNTED, strict=True):
            weight += weight_of * count(name)
    # a letter with 15 of its case before it: the lowercase and uppercase planes of 16
    # bytes in a row, ANDed in four doublings
    runs = planes & cases
    runs &= runs << 8
    runs &= runs << 16
    runs &= runs << 32
    runs &= runs << 64
    if runs:
        weight += LONG_RUN * runs.bit_count()
    return weight * size / len(sample) if sample and size != len(sample) else weight


# What `--stats` and a budget of tokens weigh of each file or block: 8 windows of 64 bytes
# over 512 (see `emit.stats.STATS_SAMPLE_BYTES` for what that costs in accuracy).
QUICK_SAMPLE_BYTES = 1 << 9


def text_weight(text: str, sample_bytes: int = QUICK_SAMPLE_BYTES) -> float:
    """The unrounded estimate of `text` written as UTF-8, weighed on `sample_bytes` of it
    (a budget of tokens weighs each block so). ASCII text is sampled before it is
    encoded: its characters are its bytes."""
    if text.isascii():
        return weight_of_sample(sample_of(text, sample_bytes).encode("ascii"), len(text))
    return data_weight(text.encode("utf-8", "surrogatepass"), sample_bytes)


def data_weight(data: bytes, sample_bytes: int = QUICK_SAMPLE_BYTES) -> float:
    """The unrounded estimate of `data` (UTF-8 text as raw bytes), weighed on
    `sample_bytes` of it: `text_weight` of the text they hold."""
    return weight_of_sample(sample_of(data, sample_bytes), len(data))


def estimate_tokens_for(data: bytes, sample_bytes: int = SAMPLE_BYTES) -> int:
    """Estimated o200k_base tokens of `data` (UTF-8 text as raw bytes); at least 1 if any.

    Over `sample_bytes`, only that many bytes (in `WINDOWS` evenly spaced windows) are
    weighed and the result scaled: a smaller value trades accuracy for time.
    """
    if not data:
        return 0
    return max(1, round(token_weight(data, sample_bytes)))


# How far the real count of an output can be over its estimate, when no tokenizer counts
# it. Each block's estimate (a file's, an outline's, a cut's, the tree and the notice's)
# is off by its own error, and errors of different files cancel in part: numpy's files
# are off by 7.1% each, and by 1.7% on their sum. So the real count of blocks estimated
# at e_1 … e_n is taken to be at most
#
#     (1 + SUM_ERROR) * sum(e) + FILE_ERROR * sqrt(sum(e * e))
#
# (`real_at_most`): an error every block shares (the kind of text, the framing), plus
# each block's own, which for n alike blocks is 1/sqrt(n) of their sum. One block alone
# is bounded by 1 + SUM_ERROR + FILE_ERROR times its estimate (a recorded sample reads
# 25% low); a plan of many small files, by little more than 1 + SUM_ERROR. A budget is
# planned for the most estimated tokens whose bound is within it
# (`pack.passes.FirstPass.plan`). Fitted on the real counts of 765 budgeted outputs
# (bench/token_budget.py): each recorded sample alone, cut at half and nine tenths of
# it and whole; the samples together; this repository, its tests/fixtures/, nine Python
# packages, httpx, express and the benchmark's repository tree, at 2k-100k tokens, in
# the three formats. The highest real count over its bound was 0.995; a smaller
# FILE_ERROR with a larger SUM_ERROR, or the reverse, filled no more (the output's
# error is mostly that of its few largest blocks: a budget holds a few files whole, an
# outline or two and a cut).
SUM_ERROR = 0.05
FILE_ERROR = 0.22
# A text counted by its pieces and their merges (`merges.count`: what a budget shows,
# counted as written, its cut, its outlines and its ends) is bounded by that count: the
# real count (every piece a token or merged by rank as o200k_base merges it, in any
# script), or more (a token a byte past the allowance of merges, a margin for characters
# Unicode 16.0 does not assign). It was never under the real count on 5,057 files of 13
# repositories and packages (scripts/fit_merge_bound.py); the bound is SPLIT_ERROR above
# the count of merged pieces all the same, for a tokenizer that merges otherwise.
SPLIT_ERROR = 0.02


def real_at_most(weights: Iterable[float], counted: Iterable[tuple[int, int, int]] = ()) -> float:
    """The most real tokens blocks estimated at `weights`, and texts counted by their
    pieces at `counted` (`merges.MergedCount`: known, split, other), are taken to hold
    (see above)."""
    total = squares = 0.0
    for weight in weights:
        total += weight
        squares += weight * weight
    bound = (1 + SUM_ERROR) * total + FILE_ERROR * math.sqrt(squares)
    for known, split, other in counted:
        bound += known + split + other + SPLIT_ERROR * split
    return bound


def planning_budget(max_tokens: int) -> int:
    """The estimated tokens that fit a budget of `max_tokens` real ones whatever they
    hold, when no tokenizer counts the output: one block's bound (at least 1). A plan of
    many blocks may take more (`real_at_most`); parts are split with this."""
    return max(1, int(max_tokens / (1 + SUM_ERROR + FILE_ERROR)))
