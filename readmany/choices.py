"""The values an option chooses among, each an enum, once: `--secrets`, `--format`,
`--order`, `--tokenizer` and the shell of `completions`.

A member is a `str` (its value), so a stage compares it, formats it and writes it to JSON
as the word the command line spelled; only the request (`readmany.request`) turns a word
given into a member, and says so in one line when the word is none of them.
"""

from __future__ import annotations

from enum import Enum


class Choice(str, Enum):
    """One of a few words; its `str` and format are the word (as `enum.StrEnum`'s)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    @classmethod
    def words(cls) -> tuple[str, ...]:
        return tuple(str(member.value) for member in cls)


class Secrets(Choice):
    """`--secrets`: what to do with text that looks like a secret."""

    OFF = "off"
    WARN = "warn"  # name the file and line on stderr
    SKIP = "skip"  # leave the file out
    REDACT = "redact"  # mask it (not where the bytes must stay exact: hashline, edit)


class Format(Choice):
    """`--format`: how `glob` frames a file."""

    TEXT = "text"  # `--- path ---` sections
    MARKDOWN = "markdown"  # a heading and a fenced block a file
    XML = "xml"  # a document element a file


class Order(Choice):
    """`--order`: which files a budget keeps when not all fit (`rank.rank`)."""

    RANK = "rank"  # by value: preferred, named, entry points and source first
    GIVEN = "given"  # output order
    SMALLEST = "smallest"  # the most files whole: the reference's rule


class Tokenizer(Choice):
    """`--tokenizer`: what counts a budget of tokens (`readmany.tokenizer`)."""

    O200K = "o200k"  # bpe-openai's o200k_base, exact (the tokens extra)
    CL100K = "cl100k"  # bpe-openai's cl100k_base, exact (the tokens extra)
    ESTIMATE = "estimate"  # tokens.py's estimate, planned with a margin


class Shell(Choice):
    """`readmany completions SHELL`."""

    BASH = "bash"
    ZSH = "zsh"
    FISH = "fish"
