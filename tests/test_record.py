"""`readmany.record.NamedTuple` at run time: what `typing.NamedTuple` gives, without `typing`."""

from __future__ import annotations

import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from readmany.record import NamedTuple


class Point(NamedTuple):
    """A point."""

    x: int
    y: int = 0
    label: str = "p"

    LIMIT = 10  # a class attribute, not a field: it has no annotation

    def norm(self) -> int:
        return abs(self.x) + abs(self.y)

    @property
    def far(self) -> bool:
        return self.norm() > self.LIMIT


class TypedPoint(typing.NamedTuple):
    """A point."""

    x: int
    y: int = 0
    label: str = "p"


def test_a_record_is_the_tuple_typing_would_make() -> None:
    point = Point(3, -4)
    typed = TypedPoint(3, -4)
    assert point == typed == (3, -4, "p")
    assert Point._fields == TypedPoint._fields == ("x", "y", "label")
    assert Point._field_defaults == TypedPoint._field_defaults == {"y": 0, "label": "p"}
    assert repr(point) == "Point(x=3, y=-4, label='p')"
    assert point._replace(label="q") == Point(3, -4, "q")
    assert Point._make([1, 2, "z"]).label == "z"
    assert point._asdict() == typed._asdict()
    assert isinstance(point, tuple) and isinstance(point, Point)
    assert Point.__doc__ == "A point."
    assert Point.__module__ == __name__
    assert Point.__qualname__ == "Point"


def test_methods_properties_and_class_attributes_come_along() -> None:
    assert Point(3, -4).norm() == 7
    assert not Point(3, -4).far
    assert Point(30).far
    assert Point.LIMIT == 10
    assert "LIMIT" not in Point._fields


def test_a_record_is_immutable_and_has_no_dict() -> None:
    point = Point(1)
    with pytest.raises(AttributeError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        point.z = 2  # type: ignore[attr-defined]


def test_a_record_cannot_take_over_what_namedtuple_makes() -> None:
    with pytest.raises(AttributeError, match="_replace"):

        class Bad(NamedTuple):
            x: int

            def _replace(self) -> None:  # type: ignore[override]
                pass


@pytest.mark.parametrize(
    "args",
    [
        ["glob", "**"],  # no glob pattern for wcmatch (which imports typing) to compile
        ["many", "missing.txt"],
        ["hashline", "missing.txt"],
        ["--version"],
        ["-V"],
    ],
)
def test_no_command_imports_typing_typer_or_rich(args: list[str], tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from readmany.__main__ import main\n"
        f"main({args!r})\n"
        "print(sorted(m for m in ('typing', 'typer', 'rich', 'pathspec') if m in sys.modules))\n"
    )
    env = {**os.environ, "READMANY_PROCESSES": "1"}  # the whole run in the one process probed
    command = [sys.executable, "-c", probe]
    done = subprocess.run(
        command, capture_output=True, text=True, check=False, cwd=tmp_path, env=env
    )
    assert done.stdout.splitlines()[-1] == "[]"
