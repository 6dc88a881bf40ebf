"""git's global excludes file (`core.excludesFile`), found as git finds it, without git.

git reads ignore rules from one more place than the tree: the file `core.excludesFile`
names, else `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`). Its patterns apply
as `.git/info/exclude`'s do, below every other source. The setting is read here from the
configuration files themselves, in git's order (the last value wins): the system file
(`/etc/gitconfig`, or `$GIT_CONFIG_SYSTEM`; none with `$GIT_CONFIG_NOSYSTEM`), the user's
(`$GIT_CONFIG_GLOBAL`, else `$XDG_CONFIG_HOME/git/config` then `~/.gitconfig`), with their
`[include] path`s, then the repository's own `config`. No program runs, so nothing a
configuration names (fsmonitor, a credential helper) can.

The user's files may name any file of theirs. A repository's `config` can come with the
tree (an unpacked archive holding `.git/`), so the file it names is read only when it lies
inside the work tree or the git directory; another is not read, and said so
(`GlobalExcludes.problem`). `[includeIf]` sections are not followed.
"""

from __future__ import annotations

import os

from readmany.limits import CONFIG_MAX_BYTES
from readmany.record import NamedTuple
from readmany.select.smallfile import read_regular

MAX_INCLUDE_DEPTH = 10  # git's own limit

REASON_REPOSITORY_OUTSIDE = (
    "named by core.excludesFile in the repository's own configuration, outside the "
    "repository: not read (set it in ~/.gitconfig, or use .git/info/exclude)"
)


class GlobalExcludes(NamedTuple):
    """The excludes file to read (None: none), and a file named but refused, with why."""

    path: str | None
    problem: tuple[str, str] | None = None


def _true(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in ("", "0", "false", "no", "off")


def _home() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def user_config_files() -> list[str]:
    """The system's and the user's configuration files, in the order git reads them."""
    env = os.environ
    files = []
    if not _true(env.get("GIT_CONFIG_NOSYSTEM")):
        files.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    named = env.get("GIT_CONFIG_GLOBAL")
    if named is not None:
        if named:
            files.append(named)
    else:
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(_home(), ".config")
        files += [os.path.join(xdg, "git", "config"), os.path.join(_home(), ".gitconfig")]
    return files


def expand_path(value: str, base: str) -> str:
    """A pathname value as git reads it: `~/` is the home directory, `~user/` theirs; a
    relative one is relative to `base`."""
    if value.startswith("~"):
        value = os.path.expanduser(value)
    return os.path.join(base, value)


def _read(path: str) -> str | None:
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    data = read_regular(real, CONFIG_MAX_BYTES)
    return data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else None


def config_values(text: str) -> list[tuple[str, str | None]]:
    """Every `section.key` and its value, in order, lower-cased names (subsections are
    kept: `includeif.gitdir:~/w/.path`); None for a key without `=`."""
    found: list[tuple[str, str | None]] = []
    section = ""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index].lstrip()
        index += 1
        if line.startswith("["):
            end = line.find("]")
            if end < 0:
                continue
            header = line[1:end].strip()
            name, _, sub = header.partition(" ")
            sub = sub.strip()
            if sub.startswith('"') and sub.endswith('"') and len(sub) >= 2:
                sub = sub[1:-1].replace('\\"', '"').replace("\\\\", "\\")
                section = f"{name.lower()}.{sub}"
            else:
                section = header.lower()
            line = line[end + 1 :].lstrip()
        if not line or line[0] in "#;":
            continue
        key, has_value, rest = line.partition("=")
        key = key.strip().lower()
        if not key or not (key[0].isalpha() and all(c.isalnum() or c == "-" for c in key)):
            continue
        if not has_value:
            found.append((f"{section}.{key}", None))
            continue
        value, index = _value(rest, lines, index)
        found.append((f"{section}.{key}", value))
    return found


_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}


def _value(text: str, lines: list[str], index: int) -> tuple[str, int]:
    """A value as git's parser reads it (config.c, parse_value): from `text`, the rest of
    its line, on through `lines[index:]` after a backslash at a line's end; and the index
    of the line after it. Unquoted space inside is kept, one space a character."""
    out: list[str] = []
    quoted = comment = False
    spaces = 0
    position = 0
    while True:
        if position >= len(text):
            return "".join(out), index
        char = text[position]
        position += 1
        if comment:
            continue
        if char.isspace() and not quoted:
            if char == "\r" and position == len(text):
                continue
            spaces += 1 if out else 0
            continue
        if not quoted and char in "#;":
            comment = True
            continue
        out.extend(" " * spaces)
        spaces = 0
        if char == "\\":
            if position >= len(text):  # the value goes on on the next line
                if index >= len(lines):
                    return "".join(out), index
                text, position, index = lines[index], 0, index + 1
                continue
            out.append(_ESCAPES.get(text[position], text[position]))
            position += 1
        elif char == '"':
            quoted = not quoted
        else:
            out.append(char)


def _setting(path: str, depth: int = 0, *, includes: bool = True) -> tuple[str, str] | None:
    """The last `core.excludesFile` of one file and the files it includes: (value, base),
    base being the directory a relative include is read from."""
    text = _read(path)
    if text is None:
        return None
    found: tuple[str, str] | None = None
    for key, value in config_values(text):
        if key == "core.excludesfile" and value is not None:
            found = (value, os.path.dirname(path))
        elif key == "include.path" and value and includes and depth < MAX_INCLUDE_DEPTH:
            included = _setting(expand_path(value, os.path.dirname(path)), depth + 1)
            if included is not None:
                found = included
    return found


def global_excludes(top: str, git_dir: str | None) -> GlobalExcludes:
    """The excludes file git applies in the work tree at `top`, its git directory
    `git_dir` (the common one, which holds `config`)."""
    value: str | None = None
    for path in user_config_files():
        found = _setting(path)
        if found is not None:
            value = found[0]
    if git_dir is not None:
        # The repository's own configuration, its includes not followed: the file it
        # names is read only from inside the repository.
        found = _setting(os.path.join(git_dir, "config"), includes=False)
        if found is not None:
            if not found[0]:
                return GlobalExcludes(None)
            named = expand_path(found[0], top)
            real = _real(named)
            if real is None or not _inside(real, (top, git_dir)):
                return GlobalExcludes(_named(value, top), (named, REASON_REPOSITORY_OUTSIDE))
            return GlobalExcludes(real)
    return GlobalExcludes(_named(value, top))


def _named(value: str | None, top: str) -> str | None:
    if value is None:  # git's default, when nothing names one
        xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(_home(), ".config")
        return _real(os.path.join(xdg, "git", "ignore"))
    if not value:
        return None  # `excludesFile =`: none at all, as in git
    return _real(expand_path(value, top))  # a link of the user's is followed


def _real(path: str) -> str | None:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None


def _inside(real: str, directories: tuple[str, ...]) -> bool:
    for directory in directories:
        base = os.path.realpath(directory)
        if real == base or real.startswith(base.rstrip("/") + "/"):
            return True
    return False
