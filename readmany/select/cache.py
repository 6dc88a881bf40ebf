"""pathspec's expressions for gitignore patterns, remembered from one run to the next.

Importing pathspec takes longer than a whole run over a small repository spends on
everything else (about 30 ms), and a repository's ignore patterns rarely change. So the
expression pathspec makes of each pattern is kept in a small cache file; a run whose
patterns are all there never imports pathspec. pathspec stays the only translator: the
cache holds its answers, nothing else.

The file is `$READMANY_CACHE_DIR/patterns-<python>.marshal`, the directory defaulting to
`$XDG_CACHE_HOME/readmany` (`~/.cache/readmany`). It is tied to the pathspec module that
translated it (path, size and modification time), so an upgrade starts afresh. An empty
`READMANY_CACHE_DIR` turns the cache off. A cache that cannot be read is ignored, one that
cannot be written is not written: the output never depends on the cache.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import re
import sys
import warnings

FORMAT = 1
# Past this many patterns, a save keeps only those of the current run.
MAX_ENTRIES = 20_000
_TRANSLATOR = ("pathspec", "patterns", "gitignore", "spec.py")

# A pattern git skips: it is remembered too, as this expression.
SKIPPED = ""


def cache_directory() -> str | None:
    """Where the cache lives, or None when it is turned off or no home is known."""
    configured = os.environ.get("READMANY_CACHE_DIR")
    if configured is not None:
        return configured or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None  # as the XDG specification says: a relative path is invalid
    return os.path.join(base, "readmany")


def translator_stamp() -> str | None:
    """Which pathspec would translate: its module file's path, size and time; None if none.

    Found the way `import` finds it on `sys.path`, without importing it.
    """
    for entry in sys.path:
        candidate = os.path.join(entry or os.curdir, *_TRANSLATOR)
        try:
            st = os.stat(candidate)
        except (OSError, ValueError):
            continue
        return f"{FORMAT}:{os.path.abspath(candidate)}:{st.st_size}:{st.st_mtime_ns}"
    return None


def translate_with_pathspec(text: str) -> str:
    """pathspec's expression for the gitignore pattern `text`, or SKIPPED."""
    # Imported here: it is slow to import, and the cache usually answers.
    from pathspec.patterns.gitignore.base import GitIgnorePatternError
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    try:
        with warnings.catch_warnings():
            # pathspec writes `[[]` for a literal `[`, which the re module frowns at.
            warnings.simplefilter("ignore", FutureWarning)
            pattern = GitIgnoreSpecPattern(text)
    except GitIgnorePatternError:
        return SKIPPED  # git skips a pattern it cannot parse
    except re.error:
        # A reversed range (`[z-a]`): git lets it match nothing, the re module refuses
        # it. Skipped whole, it matches nothing; `[z-ax]` would still match `x` in git.
        return SKIPPED
    if pattern.include is None or pattern.regex is None:
        return SKIPPED
    return str(pattern.regex.pattern)


class PatternCache:
    """Pattern text → pathspec's expression: from the cache file, else from pathspec."""

    def __init__(self, directory: str | None = None, stamp: str | None = None) -> None:
        self.path = (
            os.path.join(directory, f"patterns-{sys.implementation.cache_tag}.marshal")
            if directory is not None and stamp is not None
            else None
        )
        self._stamp = stamp
        self._known: dict[str, str] = self._load()
        self._used: set[str] = set()
        self._added = False

    @classmethod
    def default(cls) -> PatternCache:
        directory = cache_directory()
        return cls(directory, translator_stamp() if directory is not None else None)

    def _load(self) -> dict[str, str]:
        if self.path is None:
            return {}
        try:
            with open(self.path, "rb") as handle:
                stored = marshal.loads(handle.read())
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == self._stamp):
            return {}
        known = stored[1]
        if not isinstance(known, dict):
            return {}
        return {k: v for k, v in known.items() if isinstance(k, str) and isinstance(v, str)}

    def translate(self, text: str) -> str:
        """The expression of the pattern `text` (SKIPPED for a pattern git skips)."""
        self._used.add(text)
        found = self._known.get(text)
        if found is None:
            found = self._known[text] = translate_with_pathspec(text)
            self._added = True
        return found

    def save(self) -> None:
        """Write what pathspec translated in this run; quietly nothing where that fails."""
        if not self._added or self.path is None:
            return
        self._added = False
        known = self._known
        if len(known) > MAX_ENTRIES:
            known = {text: known[text] for text in self._used}
        directory = os.path.dirname(self.path)
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(directory, mode=0o700, exist_ok=True)
            with open(temporary, "wb") as handle:
                handle.write(marshal.dumps((self._stamp, known)))
            os.replace(temporary, self.path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(temporary)
