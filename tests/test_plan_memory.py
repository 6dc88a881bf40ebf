"""What `--stats` and a budget's first pass hold a file: its measure and its place, not
objects that many files could share."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import run_readmany

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
    imports = first.by_value.imports
    assert imports[0] == frozenset({"os", "sys"}) and imports[2] == frozenset({"json"})
    # One set for each distinct set of names, however many files import them.
    assert len({id(names) for names in imports}) == 2


def test_glob_stats_holds_a_few_hundred_bytes_a_file(tmp_path: Path) -> None:
    # `glob . --stats` through the real entry point, on 400 and 4,000 files two to a
    # directory: the peak grows by about 250 bytes a file (the walk's and the report's
    # part included); it was about 1,360 when the tree held a node and a path a file and
    # the whole text.
    import tracemalloc

    def peak(root: Path, count: int) -> int:
        for number in range(count):
            case = number // 2
            directory = root / f"p{case % 20:02d}" / "fixtures" / f"case-{case:05d}"
            directory.mkdir(parents=True, exist_ok=True)
            name = "input.js" if number % 2 else "output.js"
            (directory / name).write_text(f"export const x{number} = {number};\n")
        env = {**os.environ, "READMANY_PROCESSES": "1"}
        tracemalloc.start()
        try:
            result = run_readmany(["glob", ".", "--stats"], cwd=root, env=env)
            assert result.returncode == 0, result.stderr
            assert f". ({count} files)" in result.stdout.decode()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(tmp_path / "warm", 20)  # what the first run imports is not the files'
    small, large = peak(tmp_path / "small", 400), peak(tmp_path / "large", 4_000)
    assert (large - small) / 3_600 < 600, (small, large)
