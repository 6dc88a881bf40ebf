"""Heredoc framing: `@path`, `<<'DELIM'`, body, `DELIM`, with a delimiter no line can equal.

The delimiter is `WORD_N_HASH`: the N-th word of a 26-word dictionary, the 1-based index
and a 6-hex-digit djb2 hash of the path as requested. When a body line equals it, the
first free of `_1` … `_256`, then a length-derived fallback, is taken instead. A line is
what any common reader takes for one: lines end at `\n`, `\r\n`, and also at a lone
`\r`, `\v`, `\f`, `\x1c`-`\x1e`, U+0085, U+2028 and U+2029 (Python's `splitlines`),
so that a body line `\r<DELIM>` cannot end a block early for such a reader.
"""

from __future__ import annotations

from readmany.frame import weigh
from readmany.frame.paths import header_path
from readmany.record import NamedTuple
from readmany.units import utf8_len, utf16_len

WORDS = (
    "PINE", "MANGO", "ORBIT", "RAVEN", "CEDAR", "LOTUS", "EMBER", "NOVA", "DUNE", "KITE",
    "TIDAL", "QUARTZ", "ACORN", "BLAZE", "FJORD", "GLYPH", "HARBOR", "IVORY", "JUNIPER",
    "SIERRA", "UMBRA", "VIOLET", "WILLOW", "XENON", "YARROW", "ZEPHYR",
)  # fmt: skip

NUMBERED_SUFFIXES = 256
_BASE36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Block(NamedTuple):
    """One framed file: its text (no trailing newline) and what it costs in the budget."""

    text: str
    delimiter: str
    bytes: int
    lines: int

    @property
    def tokens(self) -> float:
        """Its estimated tokens, as a budget of tokens counts them (weighed when asked)."""
        return block_tokens(self.text)


def block_tokens(text: str) -> float:
    """The estimated tokens of a block's `text`: its frame (the header lines and the
    closing delimiter) and its body weighed apart (`tokens.text_weight`), as `glob` weighs
    its blocks: weighed with a long body, the frame would count as often as the body's
    sample is scaled. `many` shows few files, often cut to fill its budget: the body is
    weighed on up to `tokens.SAMPLE_BYTES` of it."""
    first = text.find("\n")
    second = text.find("\n", first + 1) if first >= 0 else -1
    last = text.rfind("\n")
    if second < 0 or last <= second:
        return weigh(text, whole=True)
    frame = text[: second + 1] + text[last:]
    return weigh(frame) + weigh(text[second + 1 : last], whole=True)


def path_hash(path: str) -> str:
    """djb2 (h*33 + c) over UTF-16 code units mod 2**32; the first 6 upper-hex digits."""
    units = path.encode("utf-16-le", "surrogatepass")
    h = 5381
    for i in range(0, len(units), 2):
        h = (h * 33 + (units[i] | units[i + 1] << 8)) & 0xFFFFFFFF
    return f"{h:X}".rjust(6, "0")[:6]


def word_for(index: int) -> str:
    """The dictionary word of a 1-based index; past 26, `FILE<index>`."""
    return WORDS[index - 1] if 1 <= index <= len(WORDS) else f"FILE{index}"


def base_delimiter(path: str, index: int) -> str:
    return f"{word_for(index)}_{index}_{path_hash(path)}"


def _base36(number: int) -> str:
    digits = ""
    while True:
        number, rest = divmod(number, 36)
        digits = _BASE36[rest] + digits
        if not number:
            return digits


def choose_delimiter(path: str, index: int, body: str) -> str:
    """The first candidate delimiter that equals no line of `body`, however lines are split."""
    base = base_delimiter(path, index)
    if base not in body:
        return base  # nearly always: no line can equal what the text does not hold
    taken = set(body.splitlines())
    if base not in taken:
        return base
    for suffix in range(1, NUMBERED_SUFFIXES + 1):
        candidate = f"{base}_{suffix}"
        if candidate not in taken:
            return candidate
    fallback = f"{base}_{_base36(utf16_len(body))}"
    if fallback not in taken:
        return fallback
    suffix = 1
    while f"{fallback}_{suffix}" in taken:
        suffix += 1
    return f"{fallback}_{suffix}"


def frame_heredoc(path: str, body: str, index: int) -> Block:
    """Frame `body` as the block of the `index`-th (1-based) requested `path`.

    The header shows `path` as requested (see `header_path` for paths with control
    characters); the delimiter hashes it exactly as requested.
    """
    delimiter = choose_delimiter(path, index, body)
    text = f"@{header_path(path)}\n<<'{delimiter}'\n{body}\n{delimiter}"
    return Block(text, delimiter, utf8_len(text), text.count("\n") + 1)


def heredoc_pieces(path: str, body: str, index: int) -> tuple[str, str, str]:
    """`frame_heredoc`'s text in three pieces, its header, `body` itself and its closing
    line, and its delimiter: for a long body, framed without a copy of it."""
    delimiter = choose_delimiter(path, index, body)
    return f"@{header_path(path)}\n<<'{delimiter}'\n", f"\n{delimiter}", delimiter
