"""Ignore files (`.gitignore`, `.readmanyignore`, `--ignore-file`) with git's semantics.

A walk asks about one path at a time, parents before children, and never enters a
directory that is ignored; so, as in git, a file below an ignored directory cannot be
re-included. Each question is answered the way git answers it during `git status`:
the sources are consulted from the most specific (the readmany ignore files, then the
`.gitignore` of the deepest directory) to the least (`.git/info/exclude`), and the first
source with a matching pattern decides, by its last matching pattern.

Patterns are translated to regular expressions by `pathspec` (its answers are kept
across runs, see `pattern_cache`). Its expression also matches below a matching
*parent* (a pattern for `build` matches `build/x`); a walk has judged each parent
already, so here a pattern counts only when it matches the path itself.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Iterable, Sequence

from readmany.record import NamedTuple
from readmany.select.cache import SKIPPED, PatternCache

README_IGNORE = ".readmanyignore"
GITIGNORE = ".gitignore"

# pathspec's name for the group that marks a match ending at a directory boundary.
_DIR_MARK = "ps_d"


class IgnoreRule(NamedTuple):
    """One pattern line: `!` negates it, a trailing `/` restricts it to directories.

    `text` is the pattern without those marks; `regex` is pathspec's expression for it.
    """

    text: str
    regex: str
    negated: bool
    dir_only: bool

    def own_regex(self) -> str:
        """The pattern's regular expression, matching the path itself only.

        pathspec ends a pattern with "a `/` (a parent matched) or the end"; a walk has
        judged the parents, so here the expression must end at the end of the path.
        """
        tail = f"(?:(?P<{_DIR_MARK}>/)|$)"
        return self.regex[: -len(tail)] + "$" if self.regex.endswith(tail) else self.regex

    def matches(self, path: str, is_dir: bool) -> bool:
        """Whether the pattern matches `path` itself (not merely one of its parents)."""
        if self.dir_only and not is_dir:
            return False
        regex = _compile(self.regex)
        found = regex.search(path)
        if found is None:
            return False
        if found.groupdict().get(_DIR_MARK) is None:
            return True
        # The first match stopped at a parent directory; a match of the whole path,
        # if there is one, ends at the end of the string (paths carry no trailing `/`).
        return regex.fullmatch(path) is not None


def _compile(regex: str) -> re.Pattern[str]:
    with warnings.catch_warnings():
        # pathspec writes `[[]` for a literal `[`, which the re module frowns at.
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(regex)


_patterns: PatternCache | None = None


def _pattern_cache() -> PatternCache:
    global _patterns
    if _patterns is None:
        _patterns = PatternCache.default()
    return _patterns


def save_pattern_cache() -> None:
    """Keep the expressions pathspec made in this run for the next (see pattern_cache)."""
    if _patterns is not None:
        _patterns.save()


def parse_rules(lines: Iterable[str]) -> tuple[IgnoreRule, ...]:
    """Compile gitignore lines; blank lines, comments and invalid patterns are dropped."""
    cache = _pattern_cache()
    rules: list[IgnoreRule] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line.endswith("\\ "):
            line = line.rstrip(" ")
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        dir_only = line.endswith("/")
        if dir_only:
            line = line[:-1]
        if not line or line == "/":
            continue
        regex = cache.translate(line)
        if regex != SKIPPED:
            rules.append(IgnoreRule(line, regex, negated, dir_only))
    return tuple(rules)


class IgnoreSource:
    """The rules of one ignore file and where they are anchored.

    Paths asked about are relative to the selection root. `base` is the directory of the
    file below the root (`"sub"` for `sub/.gitignore`; `""` at the root or above it);
    for a file above the root, `prefix` is the root's path relative to the file's
    directory (`"sub"` for `../.gitignore` when the root is `repo/sub`).
    """

    __slots__ = ("_base_slash", "_combined", "base", "prefix", "rules")

    def __init__(self, rules: tuple[IgnoreRule, ...], base: str = "", prefix: str = "") -> None:
        self.rules = rules
        self.base = base
        self.prefix = prefix
        self._base_slash = base + "/" if base else ""
        self._combined: dict[bool, re.Pattern[str] | None] = {}

    def decide(self, rel: str, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a `!` pattern; None: no pattern matched."""
        if self._base_slash:
            if not rel.startswith(self._base_slash):
                return None
            path = rel[len(self._base_slash) :]
        else:
            path = rel
        if self.prefix:
            path = self.prefix + "/" + path
        combined = self._combined.get(is_dir, _UNSET)
        if combined is _UNSET:
            combined = self._combined[is_dir] = _combine(self.rules, is_dir)
        if combined is not None:
            found = combined.match(path)
            if found is None:
                return None
            return not self.rules[int(found.lastgroup[1:])].negated  # type: ignore[index]
        for rule in reversed(self.rules):
            if rule.matches(path, is_dir):
                return not rule.negated
        return None


_UNSET: re.Pattern[str] | None = re.compile("")


def _combine(rules: Sequence[IgnoreRule], is_dir: bool) -> re.Pattern[str] | None:
    """One expression for all the rules that apply, the last rule tried first.

    The alternative that matches names its rule (`r<index>`); as in git, the last
    matching rule decides. None where a rule's own expression has groups of its own.
    """
    parts = []
    for index in range(len(rules) - 1, -1, -1):
        rule = rules[index]
        if rule.dir_only and not is_dir:
            continue
        own = rule.own_regex()
        if "(?P" in own:
            return None
        parts.append(f"(?P<r{index}>{own})")
    return _compile("|".join(parts) or "(?!)")


def read_rules(path: str) -> tuple[IgnoreRule, ...]:
    """Rules of the ignore file at `path`; nothing when it is absent, unreadable or a link.

    Like git, a symbolic link in place of an ignore file is not followed.
    """
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return ()
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
            text = handle.read()
    except OSError:
        return ()
    return parse_rules(text.removeprefix("\ufeff").split("\n"))  # git skips a UTF-8 BOM


def find_git_top(root: str) -> str | None:
    """The nearest directory at or above `root` holding `.git` (a directory or a file)."""
    current = os.path.abspath(root)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _git_common_dir(top: str) -> str | None:
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        git_dir = dot_git
    else:
        try:
            with open(dot_git, encoding="utf-8") as handle:
                first = handle.readline().strip()
        except OSError:
            return None
        if not first.startswith("gitdir:"):
            return None
        git_dir = os.path.join(top, first[len("gitdir:") :].strip())
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as handle:
            return os.path.join(git_dir, handle.read().strip())
    except OSError:
        return git_dir


class IgnoreMatcher:
    """Answers "is this path ignored?" for paths relative to the selection root.

    `.gitignore` files are read lazily, one per directory, and cached; a walk that
    already listed a directory passes `has_gitignore` so no extra stat is needed.
    """

    def __init__(
        self,
        root: str,
        *,
        use_gitignore: bool = True,
        ignore_files: Sequence[str] = (),
    ) -> None:
        # Resolved like the working directory git sees, so that a root reached through a
        # link finds the repository it really is in.
        self.root = os.path.realpath(root)
        self.git_top = find_git_top(self.root) if use_gitignore else None
        self._gitignores: dict[str, IgnoreSource | None] = {}
        self._chains: dict[str, tuple[IgnoreSource, ...]] = {}
        self._sources: dict[str, tuple[IgnoreSource, ...]] = {}  # by directory
        self._outer: list[IgnoreSource] = []  # least specific first
        if self.git_top is not None:
            self._load_outer(self.git_top)
        names = [README_IGNORE, *(n for n in ignore_files if n != README_IGNORE)]
        self._own = [
            IgnoreSource(rules)
            for name in names
            if (rules := read_rules(os.path.join(self.root, name)))
        ]

    def _load_outer(self, top: str) -> None:
        common = _git_common_dir(top)
        prefix = os.path.relpath(self.root, top).replace(os.sep, "/")
        if prefix == ".":
            prefix = ""
        if common is not None:
            rules = read_rules(os.path.join(common, "info", "exclude"))
            if rules:
                self._outer.append(IgnoreSource(rules, prefix=prefix))
        # .gitignore files above the root apply to the root's contents, as in git.
        current = top
        parts = prefix.split("/") if prefix else []
        for depth in range(len(parts)):
            rules = read_rules(os.path.join(current, GITIGNORE))
            if rules:
                self._outer.append(IgnoreSource(rules, prefix="/".join(parts[depth:])))
            current = os.path.join(current, parts[depth])

    def _gitignore_of(self, dir_rel: str, present: bool | None) -> IgnoreSource | None:
        if dir_rel in self._gitignores:
            return self._gitignores[dir_rel]
        source: IgnoreSource | None = None
        if present is not False:
            rules = read_rules(os.path.join(self.root, dir_rel, GITIGNORE))
            if rules:
                source = IgnoreSource(rules, base=dir_rel)
        self._gitignores[dir_rel] = source
        return source

    def _chain(self, dir_rel: str) -> tuple[IgnoreSource, ...]:
        """The `.gitignore` files that apply in a directory, deepest first."""
        chain = self._chains.get(dir_rel)
        if chain is None:
            own = self._gitignore_of(dir_rel, None)
            above = self._chain(dir_rel.rpartition("/")[0]) if dir_rel else ()
            chain = self._chains[dir_rel] = (own, *above) if own is not None else above
        return chain

    def note_directory(self, dir_rel: str, has_gitignore: bool) -> None:
        """Tell the matcher whether a listed directory holds a `.gitignore`."""
        if self.git_top is not None:
            self._gitignore_of(dir_rel, has_gitignore)

    def is_ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether `rel` itself is ignored; its parent directories are not consulted."""
        if self.git_top is not None and (rel == ".git" or rel.endswith("/.git")):
            return True
        directory = rel.rpartition("/")[0]
        sources = self._sources.get(directory)
        if sources is None:
            sources = self._sources[directory] = self._sources_for(directory)
        for source in sources:
            verdict = source.decide(rel, is_dir)
            if verdict is not None:
                return verdict
        return False

    def _sources_for(self, directory: str) -> tuple[IgnoreSource, ...]:
        """Every source that applies in `directory`, most specific first."""
        own = tuple(reversed(self._own))
        if self.git_top is None:
            return own
        return (*own, *self._chain(directory), *reversed(self._outer))

    def is_path_ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether `rel` or any directory above it (below the root) is ignored."""
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            if self.is_ignored("/".join(parts[:depth]), True):
                return True
        return self.is_ignored(rel, is_dir)
