"""What a budget's first pass holds a file: its place and its block's size, not objects
that many files could share."""

from __future__ import annotations

from readmany.pack.budget import BudgetAsked
from readmany.pack.passes import FirstPass
from readmany.record import NamedTuple
from readmany.select.candidates import Candidate, Item


class Sized(NamedTuple):
    text: str
    bytes: int
    lines: int
    tokens: float


def test_files_importing_the_same_names_share_one_set_of_them() -> None:
    first = FirstPass(
        BudgetAsked(None, None, 1000),
        order="rank",
        patterns=(),
        prefer=(),
        lines=False,
        tokens=True,
    )
    samples = ["import os\nimport sys\n", "import sys\nimport os\n", "import json\n"] * 2
    for position, sample in enumerate(samples):
        rel = f"pkg/m{position}.py"
        item = Item(position, Candidate(rel, f"/r/{rel}"), rel, rel)
        first.add(item, Sized("", 10, 0, 3.0), cut=None, least=0, sample=sample)
    imports = first.imports
    assert imports[0] == frozenset({"os", "sys"}) and imports[2] == frozenset({"json"})
    # One set for each distinct set of names, however many files import them.
    assert len({id(names) for names in imports}) == 2
