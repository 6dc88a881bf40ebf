"""Run a command and write its peak RSS in KiB to a file; exit with the command's status.

    python -I -S peak_rss.py OUTFILE COMMAND [ARG]...

Used where `/usr/bin/time -f %M` is missing. The figure is getrusage(RUSAGE_CHILDREN)
of this fresh process, whose only child is the command. Until the command execs it shares
this interpreter's pages, so a figure below this interpreter's own size (a few MiB) means
"no more than that".
"""

from __future__ import annotations

import os
import resource
import sys


def main() -> int:
    if len(sys.argv) < 3:
        sys.stderr.write("usage: peak_rss.py OUTFILE COMMAND [ARG]...\n")
        return 2
    out, argv = sys.argv[1], sys.argv[2:]
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        except OSError as error:
            os.write(2, f"{argv[0]}: {error}\n".encode())
        os._exit(127)
    _pid, status = os.waitpid(pid, 0)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if sys.platform == "darwin":  # bytes there, KiB on Linux
        peak //= 1024
    with open(out, "w") as handle:
        handle.write(f"{peak}\n")
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
