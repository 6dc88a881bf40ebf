"""The glob dialect's building blocks, importing wcmatch and bracex only when needed.

Most command lines use patterns that need neither (`**`, `src/**`, literal paths, the
default excludes), and start-up time is a feature of a command-line tool.
"""

from __future__ import annotations

from collections.abc import Sequence

from readmany.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from wcmatch.fnmatch import WcMatcher as NameMatcher
    from wcmatch.glob import WcMatcher as PathMatcher

__all__ = ["NameMatcher", "PathMatcher", "compile_paths", "compile_segment", "expand_braces"]

EXPANSION_LIMIT = 1000
# Characters that can give a pattern segment a glob meaning. Erring towards "magic" only
# costs a compiled matcher; a literal name still matches itself.
_MAGIC = frozenset("*?[]\\(){}|!@+")


def is_magic(segment: str) -> bool:
    return not _MAGIC.isdisjoint(segment)


def expand_braces(pattern: str) -> list[str]:
    """`{a,b}` alternatives spelled out; a usage error past EXPANSION_LIMIT of them."""
    if "{" not in pattern:
        return [pattern]
    import bracex

    try:
        return bracex.expand(pattern, limit=EXPANSION_LIMIT)
    except bracex.ExpansionLimitException:
        raise UsageError(
            f"pattern expands to more than {EXPANSION_LIMIT} alternatives: {pattern}"
        ) from None


def compile_segment(text: str) -> NameMatcher[str]:
    """A matcher for one name: no case, dotfiles match, extglob."""
    from wcmatch import fnmatch

    flags = fnmatch.IGNORECASE | fnmatch.DOTMATCH | fnmatch.EXTMATCH | fnmatch.FORCEUNIX
    return fnmatch.compile([text], flags=flags)


def compile_paths(patterns: Sequence[str]) -> PathMatcher[str]:
    """A matcher for `/`-separated paths: `**`, no case, dotfiles match, extglob, braces."""
    from wcmatch import glob

    flags = glob.GLOBSTAR | glob.DOTGLOB | glob.IGNORECASE | glob.EXTGLOB | glob.BRACE
    return glob.compile(list(patterns), flags=flags | glob.FORCEUNIX)
