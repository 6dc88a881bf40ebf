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

The tokens then become a Python expression. An expression with two or more unbounded
parts can backtrack for a very long time on a hostile name (`*a*a*a*a*b`), where git
stops early; such a pattern is matched in linear time instead: within one segment by
finding the parts between its `*` leftmost, in order; across segments by stepping every
state of the pattern through the name at once.

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
    """A function telling whether a whole text matches the tokens."""
    if sum(kind in UNBOUNDED for kind, _ in tokens) <= 1:
        # One unbounded part: the expression engine tries each of its lengths once.
        return re.compile(expression(tokens), re.DOTALL).fullmatch
    if all(kind in _FIXED or kind == STAR for kind, _ in tokens):
        return _Chunks(tokens)
    return _Stepper(tokens)


_FIXED = frozenset((LITERAL, ONE, CLASS))  # the parts that match one character


class _Chunks:
    """A one-segment pattern with several `*`: the parts between them are found leftmost,
    in order (which is enough when each part has a fixed width), in linear time."""

    __slots__ = ("_first", "_last", "_middle")

    def __init__(self, tokens: Sequence[Token]) -> None:
        parts: list[list[Token]] = [[]]
        for token in tokens:
            if token[0] == STAR:
                parts.append([])
            else:
                parts[-1].append(token)
        # The text before the first `*` and after the last one are anchored; both exist,
        # as there are at least two `*`.
        self._first = _Part(parts[0])
        self._last = _Part(parts[-1])
        self._middle = [_Part(part) for part in parts[1:-1] if part]

    def __call__(self, text: str) -> bool:
        if "/" in text:
            return False  # no part of one segment matches `/`
        first, last = self._first, self._last
        start, end = first.width, len(text) - last.width
        if end < start or not first.at(text, 0) or not last.at(text, end):
            return False
        for part in self._middle:
            start = part.find(text, start, end)
            if start < 0:
                return False
        return True


class _Part:
    """A run of one-character tokens: a literal string, or an expression of fixed width."""

    __slots__ = ("_expression", "_literal", "width")

    def __init__(self, tokens: Sequence[Token]) -> None:
        self.width = len(tokens)
        self._literal = literal_text(tokens)
        self._expression = (
            re.compile(expression(tokens), re.DOTALL) if self._literal is None else None
        )

    def at(self, text: str, position: int) -> bool:
        """Whether the part matches `text` at `position` (it fits: the caller checked)."""
        if self._literal is not None:
            return text.startswith(self._literal, position)
        return self._expression is not None and self._expression.match(text, position) is not None

    def find(self, text: str, start: int, end: int) -> int:
        """The end of the part's leftmost match within `text[start:end]`, or -1."""
        if self._literal is not None:
            found = text.find(self._literal, start, end)
            return found + self.width if found >= 0 else -1
        match = self._expression.search(text, start, end) if self._expression else None
        return match.end() if match is not None else -1


class _Stepper:
    """Matches by stepping every state of the pattern through the text at once.

    States are `2 * i` (before token i) and `2 * i + 1` (inside the `**/` at token i,
    which must end with a `/`). No backtracking: time is the text's length times the
    number of tokens, whatever the pattern.
    """

    __slots__ = ("_classes", "_end", "_tokens")

    def __init__(self, tokens: Sequence[Token]) -> None:
        self._tokens = tuple(tokens)
        self._end = 2 * len(self._tokens)
        self._classes = {
            i: re.compile(text, re.DOTALL).fullmatch
            for i, (kind, text) in enumerate(self._tokens)
            if kind == CLASS
        }

    def _closure(self, states: set[int]) -> set[int]:
        tokens = self._tokens
        pending = list(states)
        while pending:
            state = pending.pop()
            if state % 2 == 0 and state < self._end and tokens[state // 2][0] in UNBOUNDED:
                skipped = state + 2  # an unbounded part may match nothing
                if skipped not in states:
                    states.add(skipped)
                    pending.append(skipped)
        return states

    def __call__(self, text: str) -> bool:
        tokens = self._tokens
        current = self._closure({0})
        for char in text:
            following: set[int] = set()
            for state in current:
                if state == self._end:
                    continue
                kind, literal = tokens[state // 2]
                after = (state // 2) * 2 + 2
                if state % 2:  # inside `**/`
                    following.add(state)
                    if char == "/":
                        following.add(after)
                elif kind == LITERAL:
                    if char == literal:
                        following.add(after)
                elif kind == SLASH:
                    if char == "/":
                        following.add(after)
                elif kind == ONE:
                    if char != "/":
                        following.add(after)
                elif kind == CLASS:
                    if self._classes[state // 2](char):
                        following.add(after)
                elif kind == STAR:
                    if char != "/":
                        following.add(state)
                elif kind == GLOBSTAR:
                    following.add(state)
                else:  # GLOBSTAR_SLASH: into it, or through it at once on a `/`
                    following.add(state + 1)
                    if char == "/":
                        following.add(after)
            if not following:
                return False
            current = self._closure(following)
        return self._end in current
