"""The project configuration of `readmany glob`: what a team shares, read from the tree.

`.readmany.toml` (its settings at the top level) or `[tool.readmany]` in `pyproject.toml`,
in the working directory or the nearest directory above it that has one, up to the top
of the git work tree it is in (a file above a repository is not the repository's). Where
one directory holds both, `.readmany.toml` is read. A `pyproject.toml` without
`[tool.readmany]` is passed over (one that does not hold the word is not even parsed), so
looking costs a few `open`s that fail; the TOML parser is imported only when a file is
found.

A configuration comes with a tree a user may have just cloned, so it is data that can
only narrow what is read or change how it is shown: default patterns (for a walk that
names none), more excludes, a budget, the format, the tree, and a stricter secrets mode.
It can never move the root, read what the ignore rules leave out, weaken secret
protection, write a file, or name a path outside the tree; a key that would is refused,
as is any other mistake: one line naming the file, the key and what is wrong (exit 2).
The command line wins over the file; `--no-config` and `--compat` read none.
"""

from __future__ import annotations

import os

from readmany.errors import UsageError
from readmany.limits import CONFIG_MAX_BYTES
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

FILE_NAME = ".readmany.toml"
PYPROJECT = "pyproject.toml"
BUDGET_KEYS = ("max-tokens", "max-bytes", "max-lines")
# Each key: the `glob` parameter it stands for.
KEYS = {
    "patterns": "patterns",
    "exclude": "exclude",
    "max-tokens": "max_tokens",
    "max-bytes": "max_bytes",
    "max-lines": "max_lines",
    "format": "format_name",
    "tree": "tree",
    "secrets": "secrets",
    "prefer": "prefer",
}
STRICT_SECRETS = ("warn", "skip", "redact")
# Keys a configuration may not hold, and why: each would make a run do more than the
# command line asked for.
REFUSED = {
    "root": "a configuration cannot move the root: give --root on the command line",
    "output": "a configuration cannot write a file: give -o on the command line",
    "o": "a configuration cannot write a file: give -o on the command line",
    "copy": "a configuration cannot put text on the clipboard: give --copy on the command line",
    "include": "a configuration cannot add to the patterns given: use patterns, the default",
    "no-gitignore": "a configuration can only narrow what is read: give --no-gitignore on "
    "the command line",
    "gitignore": "a configuration can only narrow what is read: give --no-gitignore on "
    "the command line",
    "no-default-excludes": "a configuration can only narrow what is read: give "
    "--no-default-excludes on the command line",
    "default-excludes": "a configuration can only narrow what is read: give "
    "--no-default-excludes on the command line",
    "ignore-file": "a configuration cannot name files to read: give --ignore-file on the "
    "command line",
}


class ProjectConfig(NamedTuple):
    """The configuration read: the file (as found from the working directory), how its
    keys are spelled there (`tool.readmany.` in pyproject.toml), the values it sets, by
    parameter name, checked."""

    path: str
    prefix: str
    values: dict[str, object]


def candidates(start: str) -> Iterator[tuple[str, bytes]]:
    """The files that may hold a configuration, nearest first, at or above `start`, with
    their bytes: every `.readmany.toml`, and each `pyproject.toml` that names readmany."""
    current = start
    relative = ""
    while True:
        for name in (FILE_NAME, PYPROJECT):
            data = _read(os.path.join(current, name))
            if data is not None and (name == FILE_NAME or b"readmany" in data):
                yield (os.path.join(relative, name) if relative else name), data
        if os.path.lexists(os.path.join(current, ".git")):
            return  # the top of the work tree: what is above is not the project's
        parent = os.path.dirname(current)
        if parent == current:
            return
        current, relative = parent, os.path.join(relative, os.pardir)


def find_config(start: str) -> ProjectConfig | None:
    """The nearest configuration at or above `start`, checked; None when there is none."""
    for path, data in candidates(start):
        config = load_config(path, data)
        if config is not None:
            return config
    return None


def _read(path: str) -> bytes | None:
    """A regular file's bytes, never following a link or waiting on a FIFO."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > CONFIG_MAX_BYTES:
            return None
        return os.read(fd, CONFIG_MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def load_config(path: str, data: bytes) -> ProjectConfig | None:
    """The file's settings, checked (None: a pyproject.toml without [tool.readmany]); a
    usage error names the file and the key."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # the same parser, before it joined the standard library
        import tomli as tomllib  # type: ignore[import-not-found]

    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text: save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    prefix = ""
    table: object = document
    if os.path.basename(path) == PYPROJECT:
        prefix = "tool.readmany."
        tool = document.get("tool")
        table = tool.get("readmany") if isinstance(tool, dict) else None
        if table is None:
            return None
        if not isinstance(table, dict):
            raise UsageError(f"{path}: tool.readmany: give a table of settings")
    assert isinstance(table, dict)
    values = {}
    for key, value in table.items():
        checked = _checked(path, prefix, key, value)
        values[KEYS[key]] = checked
    return ProjectConfig(path, prefix, values)


def _checked(path: str, prefix: str, key: str, value: object) -> object:
    """One setting, as the command line would give it; a usage error for a bad one."""

    def wrong(what: str) -> UsageError:
        return UsageError(f"{path}: {prefix}{key}: {what}")

    if key in REFUSED:
        raise wrong(REFUSED[key])
    if key not in KEYS:
        raise wrong(f"not a setting of readmany: give one of {', '.join(KEYS)}")
    if key in ("patterns", "exclude", "prefer"):
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise wrong('give a list of patterns, e.g. ["src/**", "README.md"]')
        for pattern in value:
            _inside_the_tree(pattern, wrong)
        return list(value)
    if key == "tree":
        if not isinstance(value, bool):
            raise wrong("give true or false")
        return value
    if key == "format":
        from readmany.choices import Format

        if value not in Format.words():
            raise wrong(f"give one of {', '.join(Format.words())}")
        return value
    if key == "secrets":
        if value == "off":
            raise wrong(
                "'off' would turn off secret protection: a configuration can only make it "
                "stricter (warn, skip or redact); give --secrets off on the command line"
            )
        if value not in STRICT_SECRETS:
            raise wrong(f"give one of {', '.join(STRICT_SECRETS)}")
        return value
    if key == "max-lines":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise wrong("give a whole number of at least 1")
        return value
    # max-tokens, max-bytes: a size as the command line takes it (100k), or a number
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise wrong("give a number or a size such as 100k")
    from readmany.request.given import parse_size

    try:
        parse_size(str(value), "", base=1000 if key == "max-tokens" else 1024)
    except UsageError as exc:
        raise wrong(str(exc).lstrip()) from None
    return str(value)


def _inside_the_tree(pattern: str, wrong: Callable[[str], UsageError]) -> None:
    """A pattern of a configuration names paths below the root, nothing else: judged in
    every form its braces spell out (`.{.,}/x` is `../x`)."""
    from readmany.select.patterns import expand_braces

    try:
        forms = expand_braces(pattern)
    except UsageError as exc:
        raise wrong(str(exc)) from None
    if any(_leaves_the_tree(form) for form in [pattern, *forms]):
        raise wrong(
            f"{pattern!r} names a path outside the tree: give patterns relative to the "
            "root, without '..'"
        )


_GROUPS = frozenset(".@!?*+()|[]\\")


def _leaves_the_tree(pattern: str) -> bool:
    """Whether one form of a pattern could name a path above the root: absolute, from
    `~`, or a part that is `..` (escaped, or as an extglob or bracket alternative)."""
    import re

    if pattern.startswith(("/", "~", "\\")) or "\0" in pattern:
        return True
    # `..` as a part of the path, or of a brace or extglob alternative (`{..,a}/x`)
    if re.search(r"(^|[/{,(|@!?*+])\.\.($|[/},)|])", pattern.replace("\\", "/")):
        return True
    for part in pattern.split("/"):
        if part.replace("\\", "") == "..":
            return True
        # only dots, groups and their operators: `@(.)@(.)`, `+(.)`, `[.][.]`
        if "." in part and set(part) <= _GROUPS and not set(part).isdisjoint("(["):
            return True
    return False


def merged(
    values: Mapping[str, object], config: ProjectConfig
) -> tuple[dict[str, object], list[str]]:
    """The command line's values with the configuration's beneath them, and the keys that
    took effect. The command line wins: a setting applies only where it gave none."""
    out = dict(values)
    used: list[str] = []
    settings = config.values
    walk = not (values.get("stdin") or values.get("staged") or values.get("changed"))
    names = {parameter: key for key, parameter in KEYS.items()}
    budget_given = any(values.get(KEYS[key]) is not None for key in BUDGET_KEYS)
    for parameter, value in settings.items():
        key = names[parameter]
        if parameter == "patterns":
            if not walk or values.get("patterns") or values.get("include"):
                continue
        elif parameter == "exclude":
            out[parameter] = [*(values.get(parameter) or ()), *value]  # type: ignore[misc]
            used.append(key)
            continue
        elif key in BUDGET_KEYS:
            if budget_given:
                continue
        elif parameter == "tree":
            if values.get("stats") or values.get("tree"):
                continue
        elif values.get(parameter) is not None:
            continue  # format, secrets: given on the command line
        out[parameter] = value
        used.append(key)
    return out, used


def project_config(values: Mapping[str, object]) -> tuple[dict[str, object], str | None]:
    """The values of a `glob` command line with the project configuration applied, and
    the file read (None: none). Neither with `--no-config` nor `--compat`."""
    if values.get("no_config") or values.get("compat"):
        if values.get("verbose"):
            _say(
                "no configuration read (--no-config)"
                if values.get("no_config")
                else (
                    "no configuration read (--compat writes the reference's text, which has none)"
                )
            )
        return dict(values), None
    try:
        start = os.getcwd()
    except OSError:
        return dict(values), None
    config = find_config(start)
    if config is None:
        if values.get("verbose"):
            _say(f"no configuration file ({FILE_NAME}, or [tool.readmany] in {PYPROJECT})")
        return dict(values), None
    out, used = merged(values, config)
    if values.get("verbose"):
        applied = ", ".join(used) if used else "nothing the command line did not give"
        _say(f"configuration: {config.path} ({applied})")
    return out, config.path


def _say(message: str) -> None:
    from readmany.emit.messages import error_line

    error_line(message)
