"""Print the runtime dependencies pinned at their floors, as a pip constraints file.

    pip install '.[test]' -c <(python3 scripts/floors.py) && pytest

checks that the versions `pyproject.toml` admits as its lowest still pass the suite.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def floors(pyproject: Path) -> list[str]:
    # The `dependencies = [...]` list of [project], one quoted requirement a line
    # (tomllib is not in Python 3.10, the oldest this project supports).
    text = pyproject.read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[\n(.*?)^\]", text, re.M | re.S)
    if block is None:
        raise SystemExit("no dependencies list in pyproject.toml")
    pins = []
    for requirement in re.findall(r'^\s*"([^"]+)",', block.group(1), re.M):
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9][0-9A-Za-z.]*)(; *[^;]+)?", requirement)
        if match is None:
            raise SystemExit(
                f"no plain floor in {requirement!r}: write it as NAME>=VERSION[; MARKER]"
            )
        pins.append(f"{match.group(1)}=={match.group(2)}{match.group(3) or ''}")
    return pins


def main() -> int:
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    sys.stdout.write("".join(f"{pin}\n" for pin in floors(pyproject)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
