"""git's glob patterns (`wildmatch`, as ignore files use it), parsed once into tokens.

A pattern is read the way git's `wildmatch.c` reads it: `?` and `*` never match `/`; a
`**` run is "any number of directories" only where it fills a whole segment (or starts
the part of a path pattern after its literal prefix, as git's `match_pathname` hands
that part to `wildmatch` on its own); elsewhere it is a `*`. A bracket expression
follows git too: `!` or `^` negates it, `]` first is a member, `a-z` ranges (a reversed
one adds nothing to its first character; the other members still count), `\\` escapes,
`[:alpha:]` and the other POSIX classes in their ASCII meaning, and it never matches
`/`. A pattern git cannot complete (a trailing `\\`, an unclosed `[`, an unknown
`[:class:]`) matches nothing.

The tokens then become a Python expression. Written plainly, an expression with two or
more unbounded parts can backtrack for a very long time on a hostile name (`*a*a*a*a*b`),
where git stops early; such a pattern is written instead so that each part, once found
leftmost, is kept and never tried again (`linear_expression`): one expression a pattern,
matched in time linear in the name's length, by the expression engine alone.

Characters are compared as characters, not as UTF-8 bytes (a `?` matches one `é`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

# Token kinds. A token is `(kind, text)`; `text` is the character of a LITERAL and the
# expression of a CLASS, empty otherwise.
LITERAL, SLASH, ONE, STAR, GLOBSTAR, GLOBSTAR_SLASH, CLASS = range(7)
Token = tuple[int, str]

# The parts that match any number of characters.
UNBOUNDED = frozenset((STAR, GLOBSTAR, GLOBSTAR_SLASH))

_SPECIAL = "*?[\\"

# git's ctype classes (git-compat-util.h), ASCII only, as expression set members.
_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\r ",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}
# The classes that hold `/`, which a bracket expression never matches.
_WITH_SLASH = frozenset(("graph", "print", "punct"))

_EXPRESSIONS = {
    SLASH: "/",
    ONE: "[^/]",
    STAR: "[^/]*",
    GLOBSTAR: ".*",
    GLOBSTAR_SLASH: "(?:.*/)?",
}

Matcher = Callable[[str], object]  # truthy when the whole text matches


def simple_length(pattern: str) -> int:
    """The length of the pattern's literal start, before its first `*`, `?`, `[` or `\\`."""
    for index, char in enumerate(pattern):
        if char in _SPECIAL:
            return index
    return len(pattern)


def tokenize(pattern: str, *, pathname: bool, wild_start: int = 0) -> tuple[Token, ...] | None:
    """The pattern's tokens, or None when it can match nothing.

    `pathname`: matched against a path (`*` stops at `/`, `**` may span directories);
    else against a name alone. `wild_start` is where git's `wildmatch` is handed the
    pattern (after its literal prefix): a `**` run there counts as starting a segment.
    """
    tokens: list[Token] = []
    index, end = 0, len(pattern)
    while index < end:
        char = pattern[index]
        if char == "\\":
            if index + 1 == end:
                return None
            escaped = pattern[index + 1]
            tokens.append((SLASH, "") if escaped == "/" else (LITERAL, escaped))
            index += 2
        elif char == "*":
            run_end = index
            while run_end < end and pattern[run_end] == "*":
                run_end += 1
            if pathname and run_end - index >= 2:
                starts_segment = index == wild_start or (index > 0 and pattern[index - 1] == "/")
                following = pattern[run_end : run_end + 2]
                if starts_segment and following[:1] == "/":
                    tokens.append((GLOBSTAR_SLASH, ""))
                    index = run_end + 1
                    continue
                if starts_segment and following in ("", "\\/"):
                    tokens.append((GLOBSTAR, ""))
                    index = run_end
                    continue
            tokens.append((STAR, ""))
            index = run_end
        elif char == "?":
            tokens.append((ONE, ""))
            index += 1
        elif char == "[":
            parsed = _bracket(pattern, index + 1)
            if parsed is None:
                return None
            expression, index = parsed
            tokens.append((CLASS, expression))
        elif char == "/":
            tokens.append((SLASH, ""))
            index += 1
        else:
            tokens.append((LITERAL, char))
            index += 1
    return tuple(tokens)


def _member(char: str) -> str:
    """`char` as a member of an expression set."""
    return char if char.isalnum() or not char.isascii() else "\\" + char


def _bracket(pattern: str, index: int) -> tuple[str, int] | None:
    """The bracket expression starting after the `[` at `index - 1`, as git reads it.

    Returns its expression and the index after its `]`, or None when git would give up.
    """
    end = len(pattern)
    negated = index < end and pattern[index] in "!^"
    if negated:
        index += 1
    members: list[str] = []
    has_slash = False
    previous: str | None = None  # the last single member, which a `-` may extend
    while True:
        if index >= end:
            return None
        char = pattern[index]
        if char == "\\":
            index += 1
            if index >= end:
                return None
            char = pattern[index]
            members.append(_member(char))
            has_slash = has_slash or char == "/"
            previous = char
        elif char == "-" and previous is not None and index + 1 < end and pattern[index + 1] != "]":
            index += 1
            last = pattern[index]
            if last == "\\":
                index += 1
                if index >= end:
                    return None
                last = pattern[index]
            if previous <= last:  # git: a reversed range adds nothing
                members[-1] = f"{_member(previous)}-{_member(last)}"  # covers `previous`
                has_slash = has_slash or previous <= "/" <= last
            previous = None
        elif char == "[" and pattern[index + 1 : index + 2] == ":":
            close = pattern.find("]", index + 2)
            if close < 0:
                return None
            if close - (index + 2) - 1 < 0 or pattern[close - 1] != ":":
                members.append(_member("["))  # no `:]`: an ordinary `[`
                previous = "["
            else:
                name = pattern[index + 2 : close - 1]
                if name not in _POSIX_CLASSES:
                    return None
                members.append(_POSIX_CLASSES[name])
                has_slash = has_slash or name in _WITH_SLASH
                previous = None
                index = close
        else:
            members.append(_member(char))
            has_slash = has_slash or char == "/"
            previous = char
        index += 1
        if index < end and pattern[index] == "]":
            break
    body = "".join(members)
    if negated:
        expression = f"[^{body}/]"
    elif not body:
        expression = "(?!)"
    elif has_slash:
        expression = f"(?!/)[{body}]"
    else:
        expression = f"[{body}]"
    return expression, index + 1


def literal_text(tokens: Sequence[Token]) -> str | None:
    """The text the tokens match when they are all literal (no wildcard), else None."""
    if any(kind != LITERAL and kind != SLASH for kind, _ in tokens):
        return None
    return "".join(text if kind == LITERAL else "/" for kind, text in tokens)


def expression(tokens: Sequence[Token]) -> str:
    """The tokens as a Python regular expression (to be used with `fullmatch`, DOTALL)."""
    parts = []
    for kind, text in tokens:
        if kind == LITERAL:
            parts.append(re.escape(text))
        elif kind == CLASS:
            parts.append(text)
        else:
            parts.append(_EXPRESSIONS[kind])
    return "".join(parts)


def compile_tokens(tokens: Sequence[Token]) -> Matcher:
    """A function telling whether a whole text matches the tokens, in time linear in the
    text's length (times the pattern's) whatever the pattern."""
    if sum(kind in UNBOUNDED for kind, _ in tokens) <= 1:
        # One unbounded part: the expression engine tries each of its lengths once.
        return re.compile(expression(tokens), re.DOTALL).fullmatch
    return re.compile(linear_expression(tokens), re.DOTALL).fullmatch


def compile_any(token_lists: Sequence[Sequence[Token]]) -> Matcher:
    """A function telling whether a whole text matches any of the token lists: one
    expression, an alternation of each list's expression (`linear_expression` where it
    has two or more unbounded parts), in time linear in the text's length times the
    patterns' total length."""
    parts = []
    for number, tokens in enumerate(token_lists):
        if sum(kind in UNBOUNDED for kind, _ in tokens) <= 1:
            parts.append(expression(tokens))
        else:
            parts.append(linear_expression(tokens, tag=f"a{number}_"))
    return re.compile("|".join(f"(?:{part})" for part in parts), re.DOTALL).fullmatch


def linear_expression(tokens: Sequence[Token], tag: str = "k") -> str:
    """The tokens as an expression that cannot backtrack for long, for `fullmatch`.

    The pattern is read as blocks between its `**` parts, each block runs of one-character
    tokens between `*`s. The `**` parts are commit points: of the matches of a block that
    start where a `**` may end, the one that starts leftmost ends leftmost too (a block
    spans a fixed number of `/`, and a `**/` ends only after one), and ending leftmost
    leaves the most text to what follows, so the first one found is kept and never tried
    again. Within a block, each run after a `*` is likewise the leftmost one in reach, the
    last block's last run excepted: it ends at the end of the text. A kept match is an
    atomic group, written `(?=(?P<kN>...))(?P=kN)` (a lookahead is not re-entered), as Python 3.10
    has no `(?>...)`. Each part is then tried at each position once: time is the text's
    length times the pattern's, as git's `wildmatch` stops early. `tag` starts the
    groups' names, so that several such expressions can be joined in one.
    """
    blocks: list[list[Token]] = [[]]
    gaps: list[int] = []  # the `**` between blocks: GLOBSTAR or GLOBSTAR_SLASH
    for token in tokens:
        kind = token[0]
        if kind != GLOBSTAR and kind != GLOBSTAR_SLASH:
            blocks[-1].append(token)
        elif len(blocks) > 1 and not blocks[-1]:
            # Two `**` with nothing between are one: `**/**/` is `**/`, `**/**` is `**`.
            gaps[-1] = GLOBSTAR if GLOBSTAR in (gaps[-1], kind) else GLOBSTAR_SLASH
        else:
            gaps.append(kind)
            blocks.append([])
    groups = [0]

    def kept(inner: str) -> str:
        groups[0] += 1
        name = f"{tag}{groups[0]}"
        return f"(?=(?P<{name}>{inner}))(?P={name})"

    def block(part: Sequence[Token], last: bool) -> str:
        runs: list[list[Token]] = [[]]
        for token in part:
            if token[0] == STAR:
                runs.append([])
            else:
                runs[-1].append(token)
        text = expression(runs[0])
        for number, run in enumerate(runs[1:], 2):
            if last and number == len(runs):
                text += "[^/]*" + expression(run)
            else:
                text += kept("[^/]*?" + expression(run))
        return text

    if not gaps:
        return block(blocks[0], last=True)
    first = blocks[0]
    text = kept(block(first, last=False)) if (STAR, "") in first else expression(first)
    for gap, part in zip(gaps[:-1], blocks[1:-1], strict=True):
        skip = ".*?" if gap == GLOBSTAR else "(?:[^/]*/)*?"
        text += kept(skip + block(part, last=False))
    if not blocks[-1]:
        return text + _EXPRESSIONS[gaps[-1]]
    skip = ".*?" if gaps[-1] == GLOBSTAR else "(?:[^/]*/)*?"
    return text + skip + block(blocks[-1], last=True)
