"""The walk holds the ignore rules of the directories it is in, not of every directory it
has been in: memory stays bounded by the depth of the tree, not its size."""

from __future__ import annotations

import gc
import subprocess
from pathlib import Path

from readmany.commands.glob_request import walk_rules
from readmany.faces import Face
from readmany.select.candidates import Candidate, Skip
from readmany.select.ignore import IgnoreSource
from readmany.select.walk import SelectRequest, iter_selection

DIRECTORIES = 40


def live_sources() -> int:
    return sum(isinstance(thing, IgnoreSource) for thing in gc.get_objects())


def tree(root: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("*.tmp\n")
    for number in range(DIRECTORIES):
        directory = root / f"d{number:02d}"
        (directory / "deep").mkdir(parents=True)
        rules = [f"build{number}_{i}" for i in range(50)] + [f"gen{i}/*.py" for i in range(50)]
        (directory / ".gitignore").write_text("\n".join(rules) + "\n")
        (directory / "deep" / ".gitignore").write_text("other\n")
        (directory / "a.py").write_text("a\n")
        (directory / f"build{number}_3").write_text("ignored\n")
        (directory / "deep" / "b.py").write_text("b\n")
        (directory / "deep" / "other").write_text("ignored\n")
    return root


def test_the_walk_drops_a_directorys_rules_when_it_leaves_it(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo")
    gc.collect()
    before = live_sources()
    _, events = iter_selection(SelectRequest(str(root), ("**",), rules=walk_rules(Face.people())))
    most = 0
    found: list[str] = []
    skipped: list[str] = []
    for event in events:
        if isinstance(event, Candidate):
            found.append(event.rel)
            if event.rel.endswith("deep/b.py"):  # the deepest the walk goes
                most = max(most, live_sources() - before)
        elif isinstance(event, Skip):
            skipped.append(event.rel)
    # The answers are the same as ever: each directory's own rules applied in it.
    assert len(found) == 1 + 4 * DIRECTORIES  # the .gitignore files, a.py and deep/b.py
    assert sorted(skipped) == sorted(
        [f"d{n:02d}/build{n}_3" for n in range(DIRECTORIES)]
        + [f"d{n:02d}/deep/other" for n in range(DIRECTORIES)]
    )
    # The root's, a directory's and its `deep`'s: never the 81 of the whole tree.
    assert most <= 3, most


def test_the_walk_holds_no_verdict_of_a_directory_it_has_left(tmp_path: Path) -> None:
    # What the walk judged of a directory (whether a name refuses what is below it) goes
    # when it leaves it: the memory held at the end is the same for 60 directories as for
    # 1,200, where a remembered verdict and its path string were about 150 bytes each.
    import tracemalloc

    def held_by_select(count: int) -> int:
        root = tmp_path / f"r{count}"
        for number in range(count):
            directory = root / f"p{number % 30:02d}" / f"fixture-{number:04d}"
            directory.mkdir(parents=True)
            (directory / "a.js").write_text("a\n")
        request = SelectRequest(str(root), ("**",), rules=walk_rules(Face.people()))
        tracemalloc.start()
        try:
            _, events = iter_selection(request)
            found = 0
            snapshot = None
            for event in events:
                found += isinstance(event, Candidate)
                if found == count and snapshot is None:  # the last file, before the end
                    snapshot = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        assert found == count and snapshot is not None
        select_stage = tracemalloc.Filter(True, "*readmany/select/*")
        return sum(s.size for s in snapshot.filter_traces([select_stage]).statistics("filename"))

    small, large = held_by_select(60), held_by_select(1200)
    assert large - small < 40_000, (small, large)
