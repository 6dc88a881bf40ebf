"""Entry point: `readmany` and `python -m readmany`.

`--version` (`-V`) is answered before anything heavy is imported, and a closed stdout
(`readmany … | head -1`) ends the program quietly.
"""

from __future__ import annotations

import contextlib
import os
import sys

EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug in readmany, never a problem with the input


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if sys.stderr is None:  # started with stderr closed: diagnostics go nowhere
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    if args in (["--version"], ["-V"]):
        if sys.stdout is None:
            sys.stderr.write("readmany: standard output is closed: redirect it\n")
            return 2
        from readmany import __version__

        sys.stdout.write(f"readmany {__version__}\n")
        return 0
    from readmany.errors import StdoutClosed

    try:
        code = _run(args)
        _flush()
    except (BrokenPipeError, StdoutClosed):
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
    with contextlib.suppress(OSError, ValueError):
        _flush()  # fails only when the reader went away after the last write
    os._exit(code)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


def _run(args: list[str]) -> int:
    from readmany.fastargs import parse

    parsed = parse(args)
    if parsed is None:
        from readmany.cli import run

        return run(args)
    from readmany.invoke import invoke

    return invoke(*parsed)


def _silence_stdout() -> None:
    # Python flushes stdout again at exit; point it at /dev/null so that flush is quiet.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    entry()
