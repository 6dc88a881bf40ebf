"""Ignore files (`.gitignore`, `.readmanyignore`, `--ignore-file`) with git's semantics.

A walk asks about one path at a time, parents before children, and never enters a
directory that is ignored; so, as in git, a file below an ignored directory cannot be
re-included. Each question is answered the way git answers it during `git status`:
the sources are consulted from the most specific (the readmany ignore files, then the
`.gitignore` of the deepest directory) to the least (`.git/info/exclude`, then the user's
global excludes file, `core.excludesFile`: see `gitconfig`), and the first
source with a matching pattern decides, by its last matching pattern.

Patterns are matched by kind, as git's `dir.c` does, not one expression each: names
without wildcards, `*.ext` and `prefix*` are looked up in tables (by the name, its
suffixes, its prefixes); a pattern with a `/` is matched by its directory part once per
directory, which leaves its last segment to be matched as a name (the directory parts
that are globs, `**/test/fixtures/**/`, are tried as one expression a source, each
distinct one once; the directories where the same path patterns apply share their
tables). Only the rest are globs (see `wildmatch`), compiled the first time a path
reaches them. Each rule keeps
its index, so the last matching one still decides. Nothing is compiled or cached ahead:
a run parses its ignore files (about 2 ms for 300 patterns) and compiles only the globs
its paths reach.

An ignore file is used only when it is a regular file (not a link, FIFO or device) of at
most `MAX_IGNORE_FILE_BYTES` with at most `MAX_GLOB_PATTERNS` globs; any other is
skipped and reported in `IgnoreMatcher.problems`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from readmany.record import NamedTuple
from readmany.select.boundary import self_or_above
from readmany.select.smallfile import TOO_LARGE, read_regular
from readmany.select.wildmatch import (
    GLOBSTAR,
    GLOBSTAR_SLASH,
    LITERAL,
    SLASH,
    STAR,
    UNBOUNDED,
    Matcher,
    Token,
    compile_any,
    compile_tokens,
    expression,
    literal_text,
    simple_length,
    tokenize,
)

README_IGNORE = ".readmanyignore"
GITIGNORE = ".gitignore"

# git reads ignore files of up to 100 MiB. Most patterns cost the same however many there
# are (tables), but each glob is tried against every name that reaches it, as git does;
# a hostile file of thousands could make a walk take minutes. The largest real files are a
# few hundred KiB with at most a few hundred globs. A file over either limit is skipped
# whole, as git skips one over its size limit, and reported.
MAX_IGNORE_FILE_BYTES = 1024 * 1024
MAX_GLOB_PATTERNS = 1000

REASON_TOO_LARGE = f"larger than {MAX_IGNORE_FILE_BYTES // 1024 // 1024} MiB"
REASON_TOO_MANY_GLOBS = f"more than {MAX_GLOB_PATTERNS} patterns with wildcards"

_WILDCARD = re.compile(r"[*?\[\\]")


class IgnoreRule(NamedTuple):
    """One pattern line: `!` negates it, a trailing `/` restricts it to directories.

    `text` is the pattern without those marks.
    """

    text: str
    negated: bool
    dir_only: bool


class IgnoreFileProblem(NamedTuple):
    """An ignore file that was not read, and why (see MAX_IGNORE_FILE_BYTES)."""

    path: str
    reason: str


def _trim_trailing_spaces(line: str) -> str:
    """git's `trim_trailing_spaces`: unescaped trailing spaces go."""
    if not line.endswith(" "):
        return line
    last_space = -1
    index, end = 0, len(line)
    while index < end:
        char = line[index]
        if char == " ":
            if last_space < 0:
                last_space = index
        elif char == "\\":
            index += 1
            if index == end:
                return line
            last_space = -1
        else:
            last_space = -1
        index += 1
    return line[:last_space] if last_space >= 0 else line


def parse_rules(lines: Iterable[str]) -> tuple[IgnoreRule, ...]:
    """gitignore lines (without their `\\n`) to rules; blank lines and comments are dropped."""
    rules: list[IgnoreRule] = []
    for raw in lines:
        if not raw or raw[0] == "#":
            continue
        line = raw[:-1] if raw[-1] == "\r" else raw
        if "\0" in line:
            line = line.partition("\0")[0]  # git reads a line as a C string
        line = _trim_trailing_spaces(line)
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        dir_only = line.endswith("/")
        if dir_only:
            line = line[:-1]
        if line:
            rules.append(IgnoreRule(line, negated, dir_only))
    return tuple(rules)


# How the last segment of a pattern (or a whole name pattern) is matched.
_EXACT, _SUFFIX, _PREFIX, _GLOB, _EVERY, _PATH = range(6)


class _Glob:
    """Tokens, compiled the first time a text holding their longest literal part comes."""

    __slots__ = ("_match", "needle", "tokens")

    def __init__(self, tokens: Sequence[Token]) -> None:
        self.tokens = tuple(tokens)
        self._match: Matcher | None = None
        runs = "".join(text if kind == LITERAL else "\0" for kind, text in self.tokens)
        self.needle = max(runs.split("\0"), key=len)

    def __call__(self, text: str) -> bool:
        if self.needle not in text:
            return False
        match = self._match
        if match is None:
            match = self._match = compile_tokens(self.tokens)
        return bool(match(text))


# (rule index, directories only, how, the literal text, the glob): one way a rule matches.
_Entry = tuple[int, bool, int, str, "_Glob | None"]


def _name_entry(index: int, dir_only: bool, tokens: Sequence[Token]) -> _Entry:
    """How a pattern for one name (no `/`) is matched: by table when it can be."""
    literal = literal_text(tokens)
    if literal is not None:
        return index, dir_only, _EXACT, literal, None
    if tokens[0][0] == STAR:
        rest = literal_text(tokens[1:])
        if rest is not None:
            return index, dir_only, _SUFFIX, rest, None
    if tokens[-1][0] == STAR:
        start = literal_text(tokens[:-1])
        if start:
            return index, dir_only, _PREFIX, start, None
    return index, dir_only, _GLOB, "", _Glob(tokens)


class _NameTable:
    """The name patterns of one source that apply to files (or to directories).

    Every table is looked up in time bounded by the name's length, whatever the number
    of patterns; only the globs are tried one by one (and an ignore file has at most
    MAX_GLOB_PATTERNS of them).
    """

    __slots__ = (
        "_dot_suffixes",
        "_dots",
        "_every",
        "_exact",
        "_filter",
        "_prefixed_globs",
        "_prefixes",
        "_simple",
        "_simple_best",
        "_stepped",
        "_suffixes",
    )

    def __init__(self, entries: Sequence[_Entry]) -> None:
        self._exact: dict[str, int] = {}
        self._every = -1  # `*`
        self._dot_suffixes: dict[str, int] = {}  # `*.log`, `*.tar.gz`: at a name's last dots
        suffixes: dict[str, dict[str, int]] = {}  # `*~`, `*_i.c`: by last letter
        prefixes: dict[str, dict[str, int]] = {}  # `npm-debug.log*`: by first letter
        # Globs with a literal start, by its first letter.
        self._prefixed_globs: dict[str, list[tuple[int, str, _Glob]]] = {}
        # The other globs: those with one unbounded part are tried together first, by one
        # expression compiled when first needed; the others one by one.
        self._simple: list[tuple[int, _Glob]] = []
        self._stepped: list[tuple[int, str, _Glob]] = []
        self._filter: re.Pattern[str] | None = None
        for index, _dir_only, how, text, glob in entries:
            if how == _EXACT:
                self._exact[text] = index
            elif how == _SUFFIX:
                if text[:1] == ".":
                    self._dot_suffixes[text] = index
                elif text:
                    suffixes.setdefault(text[-1], {})[text] = index
                else:
                    self._every = max(self._every, index)
            elif how == _PREFIX:
                prefixes.setdefault(text[0], {})[text] = index
            elif glob is not None:
                start = _literal_start(glob.tokens)  # a name's: no `/` in it
                if start:
                    bucket = self._prefixed_globs.setdefault(start[0], [])
                    bucket.append((index, start, glob))
                elif sum(kind in UNBOUNDED for kind, _ in glob.tokens) <= 1:
                    self._simple.append((index, glob))
                else:
                    self._stepped.append((index, glob.needle, glob))
        self._dots = max((s.count(".") for s in self._dot_suffixes), default=0)
        self._suffixes = {c: (t, _lengths(t)) for c, t in suffixes.items()}
        self._prefixes = {c: (t, _lengths(t)) for c, t in prefixes.items()}
        for bucket in self._prefixed_globs.values():
            bucket.sort(key=lambda item: item[0], reverse=True)
        self._simple.sort(key=lambda item: item[0], reverse=True)
        self._stepped.sort(key=lambda item: item[0], reverse=True)
        self._simple_best = self._simple[0][0] if self._simple else -1

    def best(self, name: str) -> int:
        """The index of the last rule that matches `name`, or -1."""
        best = self._exact.get(name, -1)
        if self._every > best:
            best = self._every
        if self._dots:
            dot = len(name)
            for _ in range(self._dots):
                dot = name.rfind(".", 0, dot)
                if dot < 0:
                    break
                found = self._dot_suffixes.get(name[dot:], -1)
                if found > best:
                    best = found
        if self._suffixes:
            by_end = self._suffixes.get(name[-1:])
            if by_end is not None:
                table, lengths = by_end
                size = len(name)
                for length in lengths:
                    if length > size:
                        break
                    found = table.get(name[size - length :], -1)
                    if found > best:
                        best = found
        if self._prefixes:
            by_start = self._prefixes.get(name[:1])
            if by_start is not None:
                table, lengths = by_start
                size = len(name)
                for length in lengths:
                    if length > size:
                        break
                    found = table.get(name[:length], -1)
                    if found > best:
                        best = found
        if self._prefixed_globs:
            bucket = self._prefixed_globs.get(name[:1])
            if bucket is not None:
                for index, start, glob in bucket:
                    if index <= best:
                        break
                    if name.startswith(start) and glob(name):
                        best = index
                        break
        if self._simple_best > best:
            fast = self._filter
            if fast is None:
                fast = self._filter = re.compile(
                    "|".join(f"(?:{expression(g.tokens)})" for _, g in self._simple), re.DOTALL
                )
            if fast.fullmatch(name) is not None:  # one of them matches: which is the last?
                for index, glob in self._simple:
                    if index <= best:
                        break
                    if glob(name):
                        best = index
                        break
        for index, needle, glob in self._stepped:
            if index <= best:
                break
            if needle in name and glob(name):
                return index
        return best


def _lengths(table: dict[str, int]) -> tuple[int, ...]:
    return tuple(sorted({len(text) for text in table}))


class _Local(NamedTuple):
    """A source's rules as they apply in a directory: its tables of names for files and
    for directories, the names of the path patterns that apply there in tables of their
    own (None where there are none), then `dir/**` and the patterns only a whole path can
    tell, last rule first. Directories where the same path patterns apply share it."""

    files: _NameTable
    dirs: _NameTable
    others: tuple[_Entry, ...] = ()
    extra_files: _NameTable | None = None
    extra_dirs: _NameTable | None = None


def _local(plain: _Local, extra: Sequence[_Entry]) -> _Local:
    local = [entry for entry in extra if entry[2] not in (_EVERY, _PATH)]
    others = sorted((e for e in extra if e[2] in (_EVERY, _PATH)), key=lambda e: e[0], reverse=True)
    if not local:
        return _Local(plain.files, plain.dirs, tuple(others))
    extra_files = _NameTable([e for e in local if not e[1]])
    return _Local(plain.files, plain.dirs, tuple(others), extra_files, _NameTable(local))


# Distinct sets of path patterns a source keeps the tables of (a walk meets few).
_MAX_LOCALS = 64


class _View:
    """One source's rules as they apply to the entries of one directory: its name patterns,
    and those of its path patterns that apply here, by kind too."""

    __slots__ = ("_dirs", "_extra_dirs", "_extra_files", "_files", "_key", "_negated", "_others")

    def __init__(self, local: _Local, negated: tuple[bool, ...], key: str = "") -> None:
        self._files, self._dirs, self._others, self._extra_files, self._extra_dirs = local
        self._negated = negated
        self._key = key  # the directory below the source's own, with a final `/`

    def decide(self, name: str, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a `!` pattern; None: no pattern matched."""
        best = (self._dirs if is_dir else self._files).best(name)
        extra = self._extra_dirs if is_dir else self._extra_files
        if extra is not None:
            found = extra.best(name)
            if found > best:
                best = found
        for index, dir_only, how, _text, glob in self._others:
            if index <= best:
                break
            if dir_only and not is_dir:
                continue
            if how == _EVERY or (glob is not None and glob(self._key + name)):
                best = index
                break
        if best < 0:
            return None
        return not self._negated[best]


class IgnoreSource:
    """The rules of one ignore file and where they are anchored.

    Paths asked about are relative to the selection root. `base` is the directory of the
    file below the root (`"sub"` for `sub/.gitignore`; `""` at the root or above it);
    for a file above the root, `prefix` is the root's path relative to the file's
    directory (`"sub"` for `../.gitignore` when the root is `repo/sub`).
    """

    __slots__ = (
        "_all_below",
        "_base_slash",
        "_by_directory",
        "_dir_any",
        "_dir_globs",
        "_locals",
        "_negated",
        "_paths",
        "_plain",
        "_plain_local",
        "base",
        "globs",
        "prefix",
    )

    def __init__(self, rules: tuple[IgnoreRule, ...], base: str = "", prefix: str = "") -> None:
        self.base = base
        self.prefix = prefix
        self._base_slash = base + "/" if base else ""
        self._negated = tuple(rule.negated for rule in rules)
        names: list[_Entry] = []
        # Path patterns, by what their directory part is: a literal (`docs/`), a glob
        # (`**/docs/`, `*/docs/`); `dir/**` (everything below); and the few that only
        # the whole path can tell (a `**` inside the last segment).
        self._by_directory: dict[str, list[_Entry]] = {}
        # Patterns whose directory parts are the same glob share it.
        self._dir_globs: dict[tuple[Token, ...], tuple[_Glob, list[_Entry]]] = {}
        self._dir_any: Matcher | None = None  # any of them: one expression, made when needed
        self._locals: dict[tuple[int, ...], _Local] = {}
        self._all_below: list[tuple[str | None, _Glob, _Entry]] = []
        self._paths: list[tuple[str, _Entry]] = []
        for index, rule in enumerate(rules):
            self._classify(index, rule, names)
        # How many patterns must be tried one by one (see MAX_GLOB_PATTERNS).
        self.globs = (
            sum(entry[4] is not None for entry in names)
            + sum(e[4] is not None for entries in self._by_directory.values() for e in entries)
            + sum(len(entries) for _, entries in self._dir_globs.values())
            + len(self._all_below)
            + len(self._paths)
        )
        files = _NameTable([e for e in names if not e[1]])
        self._plain_local = _Local(files, _NameTable(names))
        self._plain = _View(self._plain_local, self._negated)

    def _classify_plain(self, index: int, rule: IgnoreRule, names: list[_Entry]) -> bool:
        """Most patterns: a literal name or path, or `*` and a literal, told apart without
        tokens. False when the pattern is none of these."""
        text = rule.text
        wild = _WILDCARD.search(text)
        if wild is not None and (wild.start() != 0 or text[0] != "*" or _WILDCARD.search(text, 1)):
            return False
        body = text[1:] if text[0] == "/" else text
        parent, slash, name = body.rpartition("/")
        if wild is not None:
            if slash:
                return False
            names.append((index, rule.dir_only, _SUFFIX, text[1:], None))
        elif not slash and text[0] != "/":
            names.append((index, rule.dir_only, _EXACT, text, None))
        elif name:
            entry: _Entry = (index, rule.dir_only, _EXACT, name, None)
            self._by_directory.setdefault(parent + slash, []).append(entry)
        else:
            return False
        return True

    def _classify(self, index: int, rule: IgnoreRule, names: list[_Entry]) -> None:
        if self._classify_plain(index, rule, names):
            return
        text = rule.text
        if "/" not in text:
            name_tokens = tokenize(text, pathname=False)
            if name_tokens is not None:
                names.append(_name_entry(index, rule.dir_only, name_tokens))
            return
        body = text[1:] if text[0] == "/" else text
        tokens = tokenize(body, pathname=True, wild_start=simple_length(body))
        if tokens is None:
            return
        separators = [i for i, (kind, _) in enumerate(tokens) if kind in (SLASH, GLOBSTAR_SLASH)]
        cut = separators[-1] + 1 if separators else 0
        directory, last = tokens[:cut], tokens[cut:]
        whole_path: _Entry = (index, rule.dir_only, _PATH, "", _Glob(tokens))
        if not last:
            return  # ends in `**/`: matches no name
        glued = cut > 1 and tokens[cut - 2][0] not in (SLASH, GLOBSTAR_SLASH)
        if glued and tokens[cut - 1][0] == GLOBSTAR_SLASH:
            # `foo**/bar`: the `**/` may match nothing, gluing `foo` to the name.
            self._paths.append((_literal_start(tokens), whole_path))
            return
        if any(kind == GLOBSTAR for kind, _ in last):
            if len(last) == 1 and cut:
                below = literal_text(directory)
                every: _Entry = (index, rule.dir_only, _EVERY, "", None)
                self._all_below.append((below, _Glob((*directory, (GLOBSTAR, ""))), every))
            else:
                self._paths.append((_literal_start(tokens), whole_path))
            return
        entry = _name_entry(index, rule.dir_only, last)
        if directory == ((GLOBSTAR_SLASH, ""),):
            names.append(entry)  # `**/name` is `name` at any depth
            return
        literal = literal_text(directory)
        if literal is not None:
            self._by_directory.setdefault(literal, []).append(entry)
        else:
            found = self._dir_globs.get(directory)
            if found is None:
                found = self._dir_globs[directory] = (_Glob(directory), [])
            found[1].append(entry)

    def view(self, key: str) -> _View:
        """The rules for the entries of the directory `key` (below this source's own
        directory, ending with `/`; `""` for its own). The caller keeps it: the matcher
        asks once a directory."""
        extra = list(self._by_directory.get(key, ()))
        if self._dir_globs:
            matches_any = self._dir_any
            if matches_any is None:
                globs = list(self._dir_globs)
                matches_any = self._dir_any = compile_any(globs)
            if matches_any(key):
                for glob, entries in self._dir_globs.values():
                    if glob(key):
                        extra += entries
        for below, glob, entry in self._all_below:
            if key.startswith(below) if below is not None else glob(key):
                extra.append(entry)
        for start, entry in self._paths:
            if key.startswith(start) if len(start) <= len(key) else start.startswith(key):
                extra.append(entry)
        if not extra:
            return self._plain
        which = tuple(entry[0] for entry in extra)  # a rule is one entry
        local = self._locals.get(which)
        if local is None:
            if len(self._locals) >= _MAX_LOCALS:
                self._locals.clear()
            local = self._locals[which] = _local(self._plain_local, extra)
        return _View(local, self._negated, key)

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
        directory, _, name = path.rpartition("/")
        return self.view(directory + "/" if directory else "").decide(name, is_dir)


def _literal_start(tokens: Sequence[Token]) -> str:
    return literal_text(tokens[: _first_wild(tokens)]) or ""


def _first_wild(tokens: Sequence[Token]) -> int:
    for count, (kind, _) in enumerate(tokens):
        if kind != LITERAL and kind != SLASH:
            return count
    return len(tokens)


def load_rules(path: str) -> tuple[tuple[IgnoreRule, ...], str | None]:
    """Rules of the ignore file at `path`, and why it was skipped (None when read or absent).

    Like git, a symbolic link in place of an ignore file is not followed.
    """
    data = read_regular(path, MAX_IGNORE_FILE_BYTES)
    if data is None:
        return (), None
    if isinstance(data, str):
        return (), REASON_TOO_LARGE if data == TOO_LARGE else data
    text = data.decode("utf-8", "surrogateescape").removeprefix("\ufeff")  # as git, a BOM
    return parse_rules(text.split("\n")), None


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


def _first_line(path: str) -> str | None:
    data = read_regular(path, 64 * 1024)
    if not isinstance(data, bytes):
        return None
    return data.decode("utf-8", "surrogateescape").partition("\n")[0].strip()


def _git_common_dir(top: str) -> str | None:
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        git_dir = dot_git
    else:
        first = _first_line(dot_git)  # a `.git` file: `gitdir: PATH`
        if first is None or not first.startswith("gitdir:"):
            return None
        git_dir = os.path.join(top, first[len("gitdir:") :].strip())
    common = _first_line(os.path.join(git_dir, "commondir"))
    return os.path.join(git_dir, common) if common is not None else git_dir


class IgnoreMatcher:
    """Answers "is this path ignored?" for paths relative to the selection root.

    `.gitignore` files are read lazily, one per directory, and cached; a walk that
    already listed a directory passes `has_gitignore` so no extra stat is needed.
    `problems` lists the ignore files that were found but not read.
    """

    def __init__(
        self,
        root: str,
        *,
        use_gitignore: bool = True,
        ignore_files: Sequence[str] = (),
        global_excludes: bool = True,
    ) -> None:
        # Resolved like the working directory git sees, so that a root reached through a
        # link finds the repository it really is in.
        try:
            self.root = os.path.realpath(root)
        except OSError:  # a link on its way swapped while it was resolved: as given
            self.root = os.path.abspath(root)
        self.git_top = find_git_top(self.root) if use_gitignore else None
        self.problems: list[IgnoreFileProblem] = []
        self._reported: set[str] = set()  # the paths of `problems`
        self._gitignores: dict[str, IgnoreSource | None] = {}
        self._chains: dict[str, tuple[IgnoreSource, ...]] = {}
        self._views: dict[str, tuple[_View, ...]] = {}  # by directory
        self._directories: dict[str, bool] = {}  # directory: it or one above is ignored
        self._outer: list[IgnoreSource] = []  # least specific first
        self._global_excludes = global_excludes  # git's core.excludesFile (not --compat's)
        if self.git_top is not None:
            self._load_outer(self.git_top)
        names = [README_IGNORE, *(n for n in ignore_files if n != README_IGNORE)]
        self._own = [
            source for name in names if (source := self._read(os.path.join(self.root, name)))
        ]

    def _read(self, path: str, base: str = "", prefix: str = "") -> IgnoreSource | None:
        """The ignore file at `path` as a source; None when absent, empty or skipped."""
        rules, problem = load_rules(path)
        source = IgnoreSource(rules, base, prefix) if rules else None
        if source is not None and source.globs > MAX_GLOB_PATTERNS:
            source, problem = None, REASON_TOO_MANY_GLOBS
        if problem is not None and path not in self._reported:  # read again: said once
            self._reported.add(path)
            self.problems.append(IgnoreFileProblem(path, problem))
        return source

    def _load_outer(self, top: str) -> None:
        common = _git_common_dir(top)
        prefix = os.path.relpath(self.root, top).replace(os.sep, "/")
        if prefix == ".":
            prefix = ""
        if self._global_excludes:
            from readmany.select.gitconfig import global_excludes

            found = global_excludes(top, common)
            if found.problem is not None:
                self.problems.append(IgnoreFileProblem(*found.problem))
            source = self._read(found.path, prefix=prefix) if found.path is not None else None
            if source is not None:
                self._outer.append(source)  # the least specific of all, as in git
        if common is not None:
            source = self._read(os.path.join(common, "info", "exclude"), prefix=prefix)
            if source is not None:
                self._outer.append(source)
        # .gitignore files above the root apply to the root's contents, as in git.
        current = top
        parts = prefix.split("/") if prefix else []
        for depth in range(len(parts)):
            above = self._read(os.path.join(current, GITIGNORE), prefix="/".join(parts[depth:]))
            if above is not None:
                self._outer.append(above)
            current = os.path.join(current, parts[depth])

    def _gitignore_of(self, dir_rel: str, present: bool | None) -> IgnoreSource | None:
        if dir_rel in self._gitignores:
            return self._gitignores[dir_rel]
        source: IgnoreSource | None = None
        if present is not False:
            source = self._read(os.path.join(self.root, dir_rel, GITIGNORE), base=dir_rel)
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

    def leave_directory(self, dir_rel: str) -> None:
        """The walk is done with a directory and everything below it: its rules go.

        A walk holds the rules of the directories it is in, not of every directory it
        has been in (2,000 directories of 990 patterns each held 2.35 GB). Asked about
        again (another walk of the same run, a link's target), they are read again."""
        self._gitignores.pop(dir_rel, None)
        self._chains.pop(dir_rel, None)
        self._views.pop(dir_rel, None)
        self._directories.pop(dir_rel, None)

    def is_ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether `rel` itself is ignored; its parent directories are not consulted."""
        directory, _, name = rel.rpartition("/")
        if name == ".git" and self.git_top is not None:
            return True
        views = self._views.get(directory)
        if views is None:
            views = self._views[directory] = self._views_for(directory)
        for view in views:
            verdict = view.decide(name, is_dir)
            if verdict is not None:
                return verdict
        return False

    def _views_for(self, directory: str) -> tuple[_View, ...]:
        """Every source that applies in `directory`, most specific first, as it applies there."""
        here = directory + "/" if directory else ""
        views = [source.view(here) for source in reversed(self._own)]
        if self.git_top is not None:
            for source in self._chain(directory):
                base = source.base
                views.append(source.view(here[len(base) + 1 :] if base else here))
            for source in reversed(self._outer):
                views.append(source.view(f"{source.prefix}/{here}" if source.prefix else here))
        return tuple(views)

    def is_path_ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether `rel` or any directory above it (below the root) is ignored."""
        directory = rel.rpartition("/")[0]
        return (directory != "" and self._directory_ignored(directory)) or self.is_ignored(
            rel, is_dir
        )

    def _directory_ignored(self, directory: str) -> bool:
        return self_or_above(self._directories, directory, self._directory_itself)

    def _directory_itself(self, directory: str) -> bool:
        return self.is_ignored(directory, True)

    def forget_directories(self) -> None:
        """Drop the verdicts and rules kept on directories (a long `--stdin` list bounds
        them); what is asked about again is read again."""
        self._directories.clear()
        self._gitignores.clear()
        self._chains.clear()
        self._views.clear()
