"""The budget as a person asks for it: the options given, the limits they make, and the
words that say a budget back (the options a continue command keeps, the options that
would hold everything)."""

from __future__ import annotations

import math

from readmany.limits import NO_LIMIT, UNCOUNTED
from readmany.pack.plan import Budget
from readmany.record import NamedTuple


class BudgetAsked(NamedTuple):
    """The budget options as given on the command line (None: not given)."""

    max_bytes: int | None = None
    max_lines: int | None = None
    max_tokens: int | None = None

    @property
    def limits(self) -> Budget:
        """The limits the options given make: a dimension not given has none."""
        return Budget(
            self.max_bytes or NO_LIMIT, self.max_lines or NO_LIMIT, self.max_tokens or UNCOUNTED
        )

    def options(self) -> tuple[str, ...]:
        """The options given, as a command that continues keeps them: the next page is
        cut by the budget the first was (`--max-tokens 10k`)."""
        return (
            *((f"--max-bytes {size_exactly(self.max_bytes, 1024)}",) if self.max_bytes else ()),
            *((f"--max-lines {self.max_lines}",) if self.max_lines is not None else ()),
            *((f"--max-tokens {size_exactly(self.max_tokens, 1000)}",) if self.max_tokens else ()),
        )


def options_to_hold(
    need: tuple[int, int, float], limits: Budget, *, plain_below_k: bool = False
) -> list[str]:
    """The budget options that would hold `need` (bytes, lines, tokens) in one run, for
    each dimension of `limits` it passes; sizes as `size_at_least` writes them."""
    need_bytes, need_lines, need_tokens = need
    options = []
    if need_tokens > limits.max_tokens:
        tokens = size_at_least(math.ceil(need_tokens), 1000, plain_below_k=plain_below_k)
        options.append(f"--max-tokens {tokens}")
    if need_bytes > limits.max_bytes:
        options.append(f"--max-bytes {size_at_least(need_bytes, plain_below_k=plain_below_k)}")
    if need_lines > limits.max_lines:
        options.append(f"--max-lines {need_lines}")
    return options


def size_at_least(needed: int, base: int = 1024, *, plain_below_k: bool = False) -> str:
    """The smallest round size of at least `needed`, as `parse_size` reads it: `180k`,
    `12M`. `many` writes any size so (`1k` for 812); `glob`'s closing notice
    (`plain_below_k`) writes a size under one `k` as its number and uses `k` up to ten `M`.
    """
    if plain_below_k and needed < base:
        return str(needed)
    if needed <= 0:
        return "1"
    units = -(-needed // base)
    if (needed < 10 * base * base) if plain_below_k else (units < 10 * base):
        return f"{units}k"
    return f"{-(-needed // base**2)}M"


def size_exactly(value: int, base: int) -> str:
    """A size as it reads back the same: `2k` for 2048 bytes, `10k` for 10,000 tokens,
    the number itself where no suffix is exact."""
    for suffix, unit in (("M", base * base), ("k", base)):
        if value >= unit and value % unit == 0:
            return f"{value // unit}{suffix}"
    return str(value)


def planning_limits(budget: BudgetAsked, planned: int | None = None) -> Budget:
    """The limits a plan is made for: a budget of tokens as `planned` estimated tokens,
    by default `tokens.planning_budget` of it (what keeps the real count of what is
    written within it, whatever it holds, when no tokenizer counts it)."""
    limits = budget.limits
    if budget.max_tokens is None:
        return limits
    if planned is None:
        from readmany.tokens import planning_budget

        planned = planning_budget(budget.max_tokens)
    return limits._replace(max_tokens=planned)
