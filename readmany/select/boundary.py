"""The boundary of a selection: what no file may be read under, and paths against the root.

A path is inside the root when it is the root or below it; a segment named `.git`,
`.env` or `node_modules` (without case, trailing dots and spaces removed) is refused
wherever it appears, even when nothing excludes it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

# Segments a path may not contain even when nothing excludes them (compared without case,
# trailing dots and spaces removed).
BLOCKED_SEGMENTS = frozenset((".git", ".env", "node_modules"))


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def rel_parts(path: str, root: str) -> list[str]:
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    return [] if rel == "." else rel.split("/")


def join_clean(root: str, rel: str) -> str:
    """`normpath(join(root, rel))` for a normalised `root`, quicker for a plain `rel`."""
    plain = rel[0] not in "./" and rel[-1] != "/" and "//" not in rel and "/." not in rel
    if plain and os.sep == "/":
        return f"{root}/{rel}" if root != "/" else f"/{rel}"
    return os.path.normpath(os.path.join(root, rel))


def stat_mode(path: str, *, follow: bool = True) -> int | None:
    try:
        return os.stat(path, follow_symlinks=follow).st_mode
    except (OSError, ValueError):
        return None


def blocked(parts: Iterable[str]) -> bool:
    return any(blocked_name(part) for part in parts)


def blocked_name(part: str) -> bool:
    name = part.rstrip(". ").lower()
    if name in BLOCKED_SEGMENTS:
        return True
    return name.startswith("gha-creds-") and name.endswith(".json")
