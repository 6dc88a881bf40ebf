"""The smallest useful reader, as a baseline: for each path, `--- path ---` and its bytes.

Paths come from the arguments or, when there are none, NUL-separated on stdin
(`git ls-files -z | python minimal_cat.py`).
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    if len(sys.argv) > 1:
        paths = [os.fsencode(arg) for arg in sys.argv[1:]]
    else:
        paths = [path for path in sys.stdin.buffer.read().split(b"\0") if path]
    write = sys.stdout.buffer.write
    for path in paths:
        with open(path, "rb") as handle:
            data = handle.read()
        write(b"--- " + path + b" ---\n")
        write(data)
        write(b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
