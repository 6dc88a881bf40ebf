"""The values of one command line as the parser gave them, by parameter name, and what
every command makes of the same options: `--secrets`, a size (`100k`), and where the
output goes.

Only `readmany.request` reads these values; a command is given its typed request.
"""

from __future__ import annotations

from collections.abc import Mapping

from readmany.choices import Secrets
from readmany.errors import UsageError
from readmany.limits import NO_LIMIT
from readmany.numbers import whole_number

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.emit.render import Presentation


class Given:
    """The parsed options of one command line, by parameter name, read with their type."""

    def __init__(self, values: Mapping[str, object]) -> None:
        self._values = values

    @property
    def values(self) -> Mapping[str, object]:
        """Every value, by parameter name (a command's configuration goes beneath them)."""
        return self._values

    def replaced(self, name: str, value: object) -> Given:
        return Given({**self._values, name: value})

    def flag(self, name: str) -> bool:
        return bool(self._values.get(name, False))

    def text(self, name: str) -> str | None:
        value = self._values.get(name)
        return value if isinstance(value, str) else None

    def texts(self, name: str) -> tuple[str, ...]:
        value = self._values.get(name)
        return tuple(value) if isinstance(value, (list, tuple)) else ()

    def number(self, name: str) -> int | None:
        value = self._values.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None


def secrets_of(given: Given, *, redact: bool) -> Secrets:
    """The `--secrets` mode of a run: as given, else `warn` with `--copy` (the text goes
    to a chat), else `off`; never anything with `--compat`. `redact`: the command can
    change what it shows (not hashline or edit, whose bytes must stay exact)."""
    word = given.text("secrets")
    mode = None
    if word is not None:
        refusal = f"--secrets {word!r}: give one of {', '.join(Secrets.words())}"
        mode = choice(Secrets, word, refusal)
    if given.flag("compat"):
        if mode not in (None, Secrets.OFF):
            raise UsageError("--compat writes the reference's text: leave out --secrets")
        return Secrets.OFF
    if mode is Secrets.REDACT and not redact:
        raise UsageError(
            "--secrets redact would change the bytes the anchors stand for: use warn or skip"
        )
    if mode is None:
        return Secrets.WARN if given.flag("copy") else Secrets.OFF
    return mode


if TYPE_CHECKING:
    from typing import TypeVar

    from readmany.choices import Choice

    ChoiceT = TypeVar("ChoiceT", bound=Choice)


def choice(kind: type[ChoiceT], word: str, refusal: str) -> ChoiceT:
    """The member of `kind` that `word` names, or the usage error `refusal`."""
    try:
        return kind(word)
    except ValueError:
        raise UsageError(refusal) from None


# A size's suffix, in any case (`100k`, `100KB`, `100KiB`; `512B`), and the power of the
# base it stands for.
_SIZE_SUFFIXES = {"": 0, "b": 0} | {
    f"{letter}{unit}": power for power, letter in enumerate("kmg", 1) for unit in ("", "b", "ib")
}


def parse_size(text: str, option: str, *, base: int = 1024) -> int:
    """`100k`, `2M`, `1G` or plain digits 0-9 as a number: bytes in powers of 1024 (`base`),
    token counts in powers of 1000. A bad value is a usage error naming `option`."""
    digits = text.rstrip("bBiIkKmMgG")
    number = whole_number(digits)
    power = _SIZE_SUFFIXES.get(text[len(digits) :].lower())
    if number is None or power is None:
        raise UsageError(
            f"{option} {text!r}: give a whole number, optionally with k, M or G (e.g. 100k)"
        )
    value: int = number * base**power
    if value < 1:
        raise UsageError(f"{option} {text!r}: give a number of at least 1")
    if value > NO_LIMIT:  # past what a count can hold (a budget of tokens is a float)
        raise UsageError(f"{option} {text!r}: give a number of at most {NO_LIMIT:,}")
    return value


def presentation_of(given: Given) -> Presentation:
    """Where the content goes and how much is said about it: options every command shares."""
    from readmany.emit.render import Presentation

    return Presentation(
        given.flag("json_mode"), given.text("output"), given.flag("quiet"), given.flag("copy")
    )
