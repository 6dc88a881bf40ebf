"""Entry point: `readmany` and `python -m readmany`.

`--version` is answered before anything heavy is imported, and a closed stdout
(`readmany … | head -1`) ends the program quietly.
"""

from __future__ import annotations

import os
import sys

EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug in readmany, never a problem with the input


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        from readmany import __version__

        sys.stdout.write(f"readmany {__version__}\n")
        return 0
    try:
        code = _run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("readmany: interrupted\n")
        return 130
    except Exception as exc:  # a bug: one line, the traceback only on request
        if os.environ.get("READMANY_DEBUG"):
            raise
        sys.stderr.write(
            f"readmany: internal error: {type(exc).__name__}: {exc} "
            "(please report it; READMANY_DEBUG=1 shows the traceback)\n"
        )
        return EXIT_INTERNAL
    return code


def entry() -> None:
    """The command: `main`, then an exit that skips the interpreter's teardown.

    By then everything is written, flushed and waited for; taking apart every module
    object on the way out would only cost time (a few milliseconds a run).
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # the reader went away after the last write: nothing is lost
    os._exit(code)


def _run(args: list[str]) -> int:
    from readmany.fastargs import parse

    parsed = parse(args)
    if parsed is None:
        from readmany.cli import run

        return run(args)
    from readmany.emit import error_line
    from readmany.errors import EXIT_USAGE, UsageError
    from readmany.invoke import INVOKERS, StdoutClosed

    command, values = parsed
    try:
        return INVOKERS[command](**values)
    except UsageError as exc:
        error_line(str(exc))
        return EXIT_USAGE
    except StdoutClosed:
        raise BrokenPipeError from None


def _silence_stdout() -> None:
    # Python flushes stdout again at exit; point it at /dev/null so that flush is quiet.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    entry()
