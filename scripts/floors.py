"""Print the runtime dependencies pinned at their floors, as a pip constraints file.

    pip install '.[test]' -c <(python3 scripts/floors.py) && pytest

checks that the versions `pyproject.toml` admits as its lowest still pass the suite.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib  # Python 3.11: the check runs on a newer Python than the floor of 3.10


def floors(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    pins = []
    for requirement in project["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9][0-9A-Za-z.]*)", requirement)
        if match is None:
            raise SystemExit(f"no plain floor in {requirement!r}: write it as NAME>=VERSION")
        pins.append(f"{match.group(1)}=={match.group(2)}")
    return pins


def main() -> int:
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    sys.stdout.write("".join(f"{pin}\n" for pin in floors(pyproject)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
