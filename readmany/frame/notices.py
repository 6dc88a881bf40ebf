"""The default face's notices: what was shown, and the command that shows the rest.

Every notice a person reads in the output of `many` and `hashline` (without `--compat`)
is worded here, so the wording stays one: a cut says which lines are shown of how many
and ends with the command to continue (`Continue with: readmany many PATH:1647`), a file
left out by the budget is named with the command that reads it and the budget that holds
everything, and a failed read names the path as given and, where there is one, the fix.
Paths in commands are quoted for a POSIX shell, so a notice can be pasted as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from readmany.errors import errno_text

_SAFE_WORD = re.compile(r"[\w@%+=:,./-]+", re.ASCII)
# What a `$'...'` word escapes: controls, and what some reader takes for a line break
# (C1, U+2028, U+2029) or cannot decode (a byte that is not UTF-8, held as a surrogate).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_ANSI_C_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def shell_word(text: str) -> str:
    """`text` as one word of a POSIX shell command line.

    Plain words stay as they are; others are single-quoted; a word holding a control
    character is written `$'...'` (bash, zsh, ksh), so the notice stays on one line.
    """
    if text and _SAFE_WORD.fullmatch(text):
        return text
    if not _CONTROL.search(text):
        return "'" + text.replace("'", "'\"'\"'") + "'"
    escaped = "".join(_ANSI_C_ESCAPES.get(c) or _ansi_c(c) for c in text)
    return f"$'{escaped}'"


def _ansi_c(char: str) -> str:
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # the byte the file system holds, as `surrogateescape`
        return f"\\x{code - 0xDC00:02x}"
    if _CONTROL.match(char):
        return f"\\u{code:04x}"
    return char


def command(name: str, operands: Sequence[str], options: Sequence[str] = ()) -> str:
    """`readmany NAME OPERANDS... OPTIONS...`; where an operand looks like an option,
    `readmany NAME OPTIONS... -- OPERANDS...`."""
    words = [shell_word(operand) for operand in operands]
    if any(operand.startswith("-") for operand in operands):
        return " ".join(["readmany", name, *options, "--", *words])
    return " ".join(["readmany", name, *words, *options])


def many_spec(path: str, first_line: int | None = None, lines: int | None = None) -> str:
    """`PATH`, `PATH:FIRST` or `PATH:FIRST:LINES`, as `readmany many` takes it."""
    if first_line is None:
        return path
    return f"{path}:{first_line}" + (f":{lines}" if lines is not None else "")


def many_command(specs: Sequence[str], options: Sequence[str] = ()) -> str:
    return command("many", specs, options)


def hashline_command(path: str, offset: int, limit: int | None = None) -> str:
    options = [f"--offset {offset}"] + ([f"--limit {limit}"] if limit is not None else [])
    return command("hashline", [path], options)


def showing(first: int, last: int, total: int, next_command: str, before: str = "") -> str:
    """The notice that ends a cut: `[Showing lines 1-1646 of 3624. Continue with: …]`.

    `before` is a sentence or two said first, inside the same brackets.
    """
    return f"[{before}Showing lines {first}-{last} of {total}. Continue with: {next_command}]"


def outline_only(total: int, read_command: str) -> str:
    """The note of an outline: what it is (not the file's text) and how to read the file."""
    lines = "line" if total == 1 else "lines"
    return (
        f"[Outline only, not the text: what the file's {total} {lines} define, each at its "
        f"line number. Read it with: {read_command}]"
    )


def part_head(
    number: int, count: int, held: Sequence[Sequence[tuple[str, int, int]]], most: int
) -> str:
    """The line that heads part `number` of `count` (`glob --parts`): what this part holds,
    then what the others do; `held[k]`, the (k+1)-th part's files as `part_holds` takes
    them. Past `most` characters, the other parts are named in runs (`parts 4-9: …`), as
    few as it takes: a part holds a run of the output, so a run of parts does too."""
    runs = count - 1
    while True:
        text = _part_head(number, count, held, runs)
        if len(text) <= most or runs <= 1:
            return text
        runs = max(1, runs // 2)


def _part_head(
    number: int, count: int, held: Sequence[Sequence[tuple[str, int, int]]], runs: int
) -> str:
    others = [k for k in range(1, count + 1) if k != number]
    said = []
    if others:
        size = -(-len(others) // max(1, runs))
        start = 0
        while start < len(others):
            # A run never spans this part: it stops before it.
            stop = min(start + size, len(others))
            if start < number - 1 < stop:
                stop = number - 1
            group = others[start:stop]
            shares = [share for k in group for share in held[k - 1]]
            name = f"part {group[0]}" if len(group) == 1 else f"parts {group[0]}-{group[-1]}"
            said.append(f"{name}: {part_holds(shares)}")
            start = stop
    text = f"[Part {number} of {count}: this part holds {part_holds(held[number - 1])}"
    return f"{text}. The others: {'; '.join(said)}]" if said else f"{text}]"


def part_holds(shares: Sequence[tuple[str, int, int]]) -> str:
    """What a run of the output holds, said short: `(path, first, last)` each (`first` 0:
    the whole file; else its lines `first`-`last`), in output order: the first and the
    last, and how many files."""

    def named(share: tuple[str, int, int]) -> str:
        path, first, last = share
        word = shell_word(path)
        return f"{word} lines {first}-{last}" if first else word

    if len(shares) <= 2:
        if len(shares) == 2 and shares[0][0] == shares[1][0]:  # two pieces of one file
            return f"{named((shares[0][0], shares[0][1], shares[1][2]))}"
        return ", ".join(named(share) for share in shares)
    files = len({path for path, _first, _last in shares})
    return f"{named(shares[0])} … {named(shares[-1])} ({files} files)"


def piece_note(
    first: int, last: int, total: int, before: tuple[int, int] | None, after: int | None
) -> str:
    """The note of a piece of a file cut across parts: its lines, and the parts (1-based)
    that hold the lines before it (from, to) and after it."""
    text = f"[Lines {first}-{last} of {total}"
    if before is not None:
        where = f"part {before[0]}" if before[0] == before[1] else f"parts {before[0]}-{before[1]}"
        text += f"; lines 1-{first - 1} in {where}"
    if after is not None:
        text += f"; the rest, from line {last + 1}, in part {after}"
    return text + "]"


def image_not_shown(path: str, mime: str, size: str) -> str:
    """An image named to a text read: its type and size, and the command that gets it
    as a `data:` URL (where the path can be a pattern of `glob`)."""
    text = f"[Image file ({mime}, {size}), not shown as text."
    if path.startswith(("/", "~")) or ".." in path.split("/"):
        return text + "]"
    return f"{text} Get it as a data: URL with: {command('glob', [path])}]"


def line_too_long(line: int, size: str, show_command: str) -> str:
    """A line longer than the whole budget: its size and the command that shows it."""
    return f"[Line {line} is {size}, more than the budget holds. Show it with: {show_command}]"


def left_out(names: Sequence[str], raise_options: Sequence[str], next_command: str) -> str:
    """The notice after the last block: files the budget left out, and how to get them."""
    text = f"[Left out by the budget: {', '.join(shell_word(n) for n in names)}."
    if raise_options:
        text += f" To read all at once: {' '.join(raise_options)}."
    return f"{text} Continue with: {next_command}]"


def left_out_many(names: Sequence[str], raise_options: Sequence[str], shown: int = 3) -> str:
    """The notice for more files than a notice can name: the first few and the count."""
    first = ", ".join(shell_word(n) for n in names[:shown])
    more = f", and {len(names) - shown} more" if len(names) > shown else ""
    text = (
        f"[Left out by the budget: {len(names)} {'file' if len(names) == 1 else 'files'} "
        f"({first}{more}), "
        "named on stderr and in the --json details."
    )
    if raise_options:
        text += f" To read all at once: {' '.join(raise_options)}."
    return text + "]"


def not_read(failed: str, names: Sequence[str], next_command: str | None) -> str:
    """The stderr line naming the files `--stop-on-error` did not read after `failed`,
    with the command that reads them (None: too many to name, the count and the first
    few instead)."""
    lead = f"not read, --stop-on-error stopped at {shell_word(failed)}:"
    if next_command is None:
        first = ", ".join(shell_word(n) for n in names[:3])
        return (
            f"{lead} {len(names)} files ({first}, and {len(names) - 3} more), "
            "named in the --json details (notReadPaths)"
        )
    return f"{lead} {', '.join(shell_word(n) for n in names)}; read them with: {next_command}"


def nothing_fits(budget: str, what: str, how: str, errors: bool = False) -> str:
    """The stderr line of a run whose budget shows no file it read: `budget` as given
    (`--max-bytes 50`), `what` the files (`big.py`, `the 3 files read`), `how` the
    budget that holds them and the command that reads them."""
    lead = "nothing shown but the error blocks" if errors else "nothing shown"
    return f"{lead}: the budget ({budget}) holds no line of {what}; {how}"


# --- failed reads ----------------------------------------------------------------------

_PROBLEMS = {
    "ENOENT": "no such file or directory",
    "EACCES": "permission denied",
    "EPERM": "operation not permitted",
    "ENOTDIR": "a part of the path is not a directory",
    "ELOOP": "too many levels of symbolic links",
    "ENAMETOOLONG": "file name too long",
    "EIO": "input/output error",
    "EMISSING": "not in the repository",
}


NOTHING_LISTED = "no file was read: standard input listed no path"
EMPTY_PATH = "'': an empty argument names no file: give a file's path, such as a.txt or ./a.txt"


def read_problem(name: str, code: str, detail: str = "") -> str:
    """A failed read in a person's words: `PATH: what happened[; the fix]`.

    `code` is the errno name, `ESPECIAL` (with the kind of file as `detail`) or `binary`;
    `EISDIR` with `detail` "empty" is a directory with nothing in it.
    """
    if not name:  # read as the current directory, which it does not name either
        return EMPTY_PATH
    if code == "EISDIR" and detail == "empty":
        return f"{name}: is an empty directory (a submodule not checked out?): nothing to read"
    if code == "EISDIR":
        return f"{name}: is a directory; read its files with: {command('glob', [name])}"
    if code == "ESPECIAL":
        return f"{name}: not a regular file ({detail}), not read"
    if code == "binary":
        return f"{name}: binary file, not shown"
    return f"{name}: {_PROBLEMS.get(code) or errno_text(code).lower()}"


# `git ls-files` without -z writes a name with a byte outside printable ASCII as a C
# string ("caf\303\251.txt"): a path that reads so and does not exist was most likely
# listed that way.
GIT_QUOTED_ADVICE = (
    "git quotes names with special characters unless told not to: "
    "list them with git ls-files -z | readmany {command} --stdin -0"
)


def git_quoted(path: str) -> bool:
    """Whether `path` reads as a name `git ls-files` quoted (see `GIT_QUOTED_ADVICE`)."""
    return len(path) > 2 and path.startswith('"') and path.endswith('"') and "\\" in path


def past_the_end(name: str, offset: str, total: int) -> str:
    return f"{name}: line {offset} is past the end of the file ({total} lines)"
