"""Counting tokens as a model does, or estimating them: the `--tokenizer` choice.

`counter(name)` gives a function from a text to its tokens: `o200k` (GPT-4o's, and the
count the estimate is fitted to) and `cl100k` (GPT-4's) are the exact counts of
`bpe-openai`, an optional extra (`pip install 'readmany[tokens]'`: the vocabularies ship
compiled inside the wheel, nothing is downloaded); `estimate` is `tokens.py`'s calibrated
estimate, which needs nothing. `DEFAULT` is the best installed.

bpe-openai's package imports every vocabulary it knows when it is imported (1.4 s here);
its compiled module alone takes 2 ms, and one vocabulary 0.1-0.2 s on its first use.
So the compiled module is loaded by itself when it can be (`_bindings`), the package
only if that fails. Text is counted as plain text: `<|endoftext|>` in a file is its
characters' tokens, as a model's API counts a user's text.
"""

from __future__ import annotations

from collections.abc import Callable

from readmany.choices import Tokenizer
from readmany.errors import UsageError
from readmany.record import NamedTuple

TOKENIZERS = Tokenizer.words()
ENCODINGS = {"o200k": "o200k_base", "cl100k": "cl100k_base"}
EXTRA = "pip install 'readmany[tokens]'"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

_counters: dict[str, Callable[[str], int]] = {}
_bindings: ModuleType | None = None


def available() -> bool:
    """Whether an exact tokenizer is installed (without importing it)."""
    from importlib.util import find_spec

    return find_spec("bpe_openai") is not None


def default() -> Tokenizer:
    """`o200k` when bpe-openai is installed, else `estimate`."""
    return Tokenizer.O200K if available() else Tokenizer.ESTIMATE


def counter(name: str) -> Callable[[str], int]:
    """The token count of `name` (one of `TOKENIZERS`); a usage error naming the extra
    when the exact tokenizer asked for is not installed."""
    found = _counters.get(name)
    if found is not None:
        return found
    if name == "estimate":
        found = estimate
    elif name in ENCODINGS:
        found = _load(ENCODINGS[name]).count
    else:
        raise UsageError(f"unknown tokenizer {name!r}: use one of {', '.join(TOKENIZERS)}")
    _counters[name] = found
    return found


def count(text: str, name: str = "o200k") -> int:
    """The tokens of `text` by `name`."""
    return counter(name)(text)


def estimate(text: str) -> int:
    """`tokens.py`'s estimate of `text` written as UTF-8, rounded (at least 1 if any)."""
    from readmany.tokens import estimate_tokens_for

    return estimate_tokens_for(text.encode("utf-8", "surrogatepass"))


class _Tokenizer:  # what `_bindings.tokenizer_for_encoding` gives, for the type checker
    def count(self, text: str) -> int:
        raise NotImplementedError


def _load(encoding: str) -> _Tokenizer:
    bindings = _bindings or _load_bindings()
    tokenizer: _Tokenizer = bindings.tokenizer_for_encoding(encoding)
    return tokenizer


def _load_bindings() -> ModuleType:
    """bpe-openai's compiled module, loaded by itself (see the module's note)."""
    global _bindings
    import importlib.util

    spec = importlib.util.find_spec("bpe_openai")
    if spec is None:
        raise UsageError(f"--tokenizer o200k and cl100k need bpe-openai: {EXTRA}")
    module: ModuleType | None = None
    try:
        module = _extension_alone(spec.submodule_search_locations or [])
    except (ImportError, OSError):
        module = None
    if module is None:  # the package's own way, slower to import
        import importlib

        module = importlib.import_module("bpe_openai._bindings")
    _bindings = module
    return module


def _extension_alone(directories: list[str]) -> ModuleType | None:
    import importlib.machinery
    import importlib.util
    import os

    name = "bpe_openai._bindings"
    for directory in directories:
        for entry in sorted(os.listdir(directory)):
            if entry.startswith("_bindings.") and entry.endswith(
                tuple(importlib.machinery.EXTENSION_SUFFIXES)
            ):
                path = os.path.join(directory, entry)
                loader = importlib.machinery.ExtensionFileLoader(name, path)
                spec = importlib.util.spec_from_file_location(name, path, loader=loader)
                if spec is None:
                    continue
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
                return module
    return None


FILL = 0.95  # `fit` stops once the real count fills this much of the budget
PASSES = 8  # and renders at most this many times (then gives the fullest that fits)
MOST = 2.0  # and never plans for more than this many times the budget


class Fitted(NamedTuple):
    """`fit`'s answer: the output, its real count, the planning budget that made it and
    how many times it was rendered."""

    text: str
    real: int
    planned: int
    passes: int


def fit(
    render: Callable[[int], str],
    budget: int,
    count: Callable[[str], int],
    *,
    fill: float = FILL,
    passes: int = PASSES,
    most: float = MOST,
    complete: Callable[[], bool] | None = None,
) -> Fitted:
    """The output `render(planned)` of the planning budget whose real count (`count`)
    is within `budget` and fills it most, found in a few renders.

    `render` plans and frames with the fast estimate for a budget of `planned` estimated
    tokens; its real count moves with `planned`, not in proportion (whole files come and
    go). The first render plans for `budget` itself; each next one scales the planning
    budget by how far the real count missed (a little under it when over), kept between
    the largest that fit and the smallest that did not. It stops when the output fills
    `fill` of the budget without going over, or after `passes` renders; if none fitted
    by then it goes on halving until one does (a render of 0 is the smallest output).
    A planning budget is never over `most` times the budget: an output that holds little
    (the notice alone) is not answered with a plan that holds a huge file whole.
    `complete()`: whether the last render held everything (no larger plan holds more).
    """
    planned = budget
    fitted: Fitted | None = None
    low, high = 0, None  # planning budgets known to fit and known not to
    done = 0
    while True:
        text = render(planned)
        real = count(text)
        done += 1
        if real <= budget:
            if fitted is None or real > fitted.real:
                fitted = Fitted(text, real, planned, done)
            if real >= budget * fill or (complete is not None and complete()):
                break
            low = max(low, planned)
            step = planned * budget / max(real, 1)
        else:
            high = planned if high is None else min(high, planned)
            step = planned * budget / real * 0.99
        following = min(int(step), int(budget * most))
        if high is not None and following >= high:
            following = (low + high) // 2
        if following <= low and fitted is not None:
            break  # nothing between what fits and what does not
        if following == planned or (done >= passes and fitted is not None):
            break
        if done >= passes:
            following = min(following, planned // 2)  # none fitted yet: halve
        if planned == 0:
            break  # the smallest output is over the budget: nothing smaller exists
        planned = max(0, following)
    if fitted is None:
        return Fitted(text, real, planned, done)
    return fitted._replace(passes=done)
