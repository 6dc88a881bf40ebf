"""The frame stage: one module per framing (heredoc, separator, hashline, markdown, xml),
and `weigh`, what a framed text is estimated to take in tokens."""

from __future__ import annotations

import functools

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def weigh(text: str, *, whole: bool = False) -> float:
    """`tokens.text_weight` of `text`, on 512 bytes of it (on up to `tokens.SAMPLE_BYTES`
    with `whole`); the tokens module is imported by the first run that counts tokens."""
    text_weight, larger = _weigher()
    return text_weight(text, larger) if whole else text_weight(text)


@functools.cache
def _weigher() -> tuple[Callable[..., float], int]:
    from readmany.tokens import SAMPLE_BYTES, text_weight

    return text_weight, SAMPLE_BYTES
