"""What a command line reads besides its arguments: the `--stdin` paths as they come,
the bytes of `--request` and `--content-file` (a file, or standard input for `-`), the
directory `-o git-dir:NAME` names, and the current directory.

Each failure is a usage error naming the option that reads the input.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator

from readmany.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


GIT_DIR_FORM = "git-dir:"
"""`-o git-dir:NAME`: NAME in the git directory of the repository the current directory
is in, wherever git keeps it (`.git/`, or elsewhere in a linked work tree or a submodule),
as `git rev-parse --git-dir` names it: a pre-commit hook runs no shell to ask git."""


def in_git_directory(output: str) -> str:
    """The path `-o git-dir:NAME` names (see `GIT_DIR_FORM`)."""
    name = output[len(GIT_DIR_FORM) :]
    parts = name.replace(os.sep, "/").split("/")
    if not name or os.path.isabs(name) or not all(p not in ("", ".", "..") for p in parts):
        raise UsageError(
            f"-o {output}: name a file inside the git directory, "
            "e.g. -o git-dir:readmany-context.txt"
        )
    from readmany.select.git import git_directory

    return os.path.join(git_directory(".", f"-o {output}"), name)


def current_directory() -> str:
    try:
        return os.getcwd()
    except OSError as exc:
        raise UsageError(f"the current directory cannot be read: {exc.strerror}") from None


def read_stdin(option: str, limit: int = -1) -> bytes:
    """All of standard input (at most `limit` bytes and one more, when given), or a usage
    error naming the option that reads it."""
    stream = sys.stdin
    if stream is None or stream.closed:
        raise UsageError(f"standard input is closed, and {option} reads from it: give it input")
    try:
        return stream.buffer.read(limit + 1 if limit >= 0 else -1)
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"standard input cannot be read ({exc}), and {option} reads from it"
        ) from None


def stdin_paths(null: bool, *, quiet: bool = False) -> list[str]:
    """Paths from stdin, all of them: one a line, or NUL-separated; empty entries are
    dropped (see `StdinPaths`)."""
    return list(StdinPaths(null, quiet=quiet))


_CHUNK = 1 << 16


class StdinPaths:
    """The `--stdin` paths as they come: read a chunk at a time and given one by one, in
    the order given, so that the first file is read before the list ends. Iterate once.

    One a line (a CR before the newline is dropped), or NUL-separated; empty entries are
    dropped. A terminal on stdin is told what is awaited (nothing else would show that
    the program waits). A NUL byte in a line-separated list means `-0` was forgotten: the
    paths before its line are given, then a usage error is raised, wherever it comes.
    """

    def __init__(self, null: bool, *, quiet: bool = False) -> None:
        stream = sys.stdin
        if stream is None or stream.closed:
            raise UsageError("standard input is closed, and --stdin reads from it: give it input")
        if not quiet and _is_terminal(stream):
            sys.stderr.write("readmany: reading paths from stdin, one a line (Ctrl-D ends)\n")
            sys.stderr.flush()
        self._separator = b"\0" if null else b"\n"
        self._null = null
        self._stream = stream
        self._fd: int | None
        try:
            self._fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            self._fd = None  # not a file (a test's stand-in): read through its buffer
        self._parsed: list[str] = []  # read, not yet given
        self._partial: list[bytes] = []  # the start of an entry that goes on in the next chunk
        self._ended = False
        self._mistake: str | None = None
        # Called before a read that would wait: what was done so far can go out first.
        self.on_wait: Callable[[], None] | None = None
        # Called with each path as it is given: a usage error for a path refused outright.
        self.check: Callable[[str], None] | None = None

    def __iter__(self) -> Iterator[str]:
        while True:
            if self._parsed:
                paths, self._parsed = self._parsed, []
                check = self.check
                for path in paths:
                    if check is not None:
                        check(path)
                    yield path
            if self._ended:
                break
            if self.on_wait is not None and not self._at_hand():
                self.on_wait()
            self._read()
        if self._mistake is not None:
            raise UsageError(self._mistake)

    def few(self, count: int) -> bool:
        """Whether the whole list holds fewer than `count` paths, as far as it can be told
        without waiting for input once some was read (False when it cannot be told)."""
        first = True
        while not self._ended and len(self._parsed) < count:
            if not first and not self._at_hand():
                return False
            self._read()
            first = False
        return len(self._parsed) < count

    def own_descriptor(self) -> None:
        """Read from a descriptor of its own from now on: standard input may be closed
        or replaced (the walking process sets its own to /dev/null)."""
        if self._fd is not None:
            self._fd = os.dup(self._fd)

    def _at_hand(self) -> bool:
        """Whether a read would return at once (input, or its end, is waiting)."""
        if self._fd is None:
            return True
        try:
            import select

            return bool(select.select([self._fd], [], [], 0)[0])
        except (ImportError, OSError, ValueError):
            return True  # cannot be told: read, as if it were

    def _read(self) -> None:
        """Read one chunk; keep its complete entries, and the start of an unfinished one."""
        try:
            if self._fd is not None:
                chunk = os.read(self._fd, _CHUNK)
            else:
                buffer = self._stream.buffer
                read1 = getattr(buffer, "read1", None)  # a pause shows as a short read
                chunk = read1(_CHUNK) if read1 is not None else buffer.read(_CHUNK)
        except (OSError, ValueError) as exc:
            raise UsageError(
                f"standard input cannot be read ({exc}), and --stdin reads from it"
            ) from None
        separator = self._separator
        if not chunk:
            self._ended = True
            entries = [b"".join(self._partial)]
            self._partial = []
        elif separator not in chunk:
            self._partial.append(chunk)  # one long entry: joined once it ends
            entries = []
        else:
            head, _, tail = chunk.partition(separator)
            first = b"".join([*self._partial, head]) if self._partial else head
            entries = [first, *tail.split(separator)]
            self._partial = [entries.pop()]
        if not self._null and b"\0" in chunk:
            entries = self._before_nul(entries)
        append = self._parsed.append
        for raw in entries:
            if not self._null:
                raw = raw.removesuffix(b"\r")
            if raw:
                append(os.fsdecode(raw))

    def _before_nul(self, entries: list[bytes]) -> list[bytes]:
        """The entries before the first that holds a NUL byte; the list ends there."""
        self._mistake = "--stdin: the paths are NUL-separated: add -0 (--null)"
        self._ended = True
        held = [*entries, b"".join(self._partial)]  # the unfinished entry holds it, if none does
        self._partial = []
        for index, entry in enumerate(held):
            if b"\0" in entry:
                return entries[:index]
        return entries


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return callable(isatty) and bool(isatty())
    except (OSError, ValueError):
        return False


def read_input(source: str, option: str, limit: int) -> bytes:
    """The bytes an option names: a file, or standard input for `-`; a usage error past
    `limit` bytes, read no further (`/dev/zero` never ends)."""
    if not source:
        raise UsageError(f"{option} '': an empty file name: give a file's path, or - for stdin")
    if source == "-":
        data = read_stdin(f"{option} -", limit)
    else:
        try:
            with open(source, "rb") as handle:
                data = handle.read(limit + 1)
        except OSError as exc:
            raise UsageError(f"{option} {source}: {exc.strerror}") from None
    if len(data) > limit:
        from readmany.units import human_size

        raise UsageError(
            f"{option} {source}: more than {human_size(limit)}, the most readmany reads "
            "for it: give a smaller file"
        )
    return data


def load_json(source: str) -> Any:
    import json

    from readmany.limits import REQUEST_MAX_BYTES

    text = read_input(source, "--request", REQUEST_MAX_BYTES)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"--request {source}: not valid JSON: {exc}") from None
    except RecursionError:
        raise UsageError(f"--request {source}: nested too deeply to be a request") from None
