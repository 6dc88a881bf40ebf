"""The run's tally: files counted at once are counted as one by one."""

from __future__ import annotations

from readmany.emit.outcome import FileStat, Tally


def _state(tally: Tally) -> tuple[object, ...]:
    return dict(tally.counts), dict(tally.reasons), tally.examples, tally.errors, tally.largest


def test_many_files_left_out_at_once_are_tallied_as_one_by_one() -> None:
    one_by_one, at_once = Tally(), Tally()
    for tally in (one_by_one, at_once):
        tally.add(FileStat("a.txt", "omitted", 0, "left out by the budget"))
        tally.add(FileStat("b.bin", "skipped", 0, "binary file"))
    paths = [f"f{n}.txt" for n in range(7)]
    for path in paths:
        one_by_one.add(FileStat(path, "omitted", 0, "left out by the budget"))
    at_once.add_many(paths, "omitted", "left out by the budget")
    at_once.add_many([], "omitted", "left out by the budget")
    assert _state(at_once) == _state(one_by_one)
    assert at_once.counts["omitted"] == 8
    assert at_once.examples["left out by the budget"] == ["a.txt", "f0.txt", "f1.txt"]
