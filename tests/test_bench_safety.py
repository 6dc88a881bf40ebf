"""The safety benchmarks run end to end on a tiny tree and print their numbers."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _run(script: str, *args: str) -> str:
    # A directory of its own, not pytest's: a long run there can outlive pytest's clean-up
    # of old base directories when other pytest sessions of the same user start meanwhile.
    with tempfile.TemporaryDirectory(prefix="readmany-bench-") as out:
        done = subprocess.run(
            [sys.executable, str(BENCH / script), "--out", out, "--files", "40", *args],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_secrets_cost_reports_both_sides() -> None:
    lines = _run("secrets_cost.py", "--runs", "1").splitlines()
    assert re.fullmatch(r"tree: .*repo \(\d+ text files, [\d.]+ MiB of text\)", lines[0])
    assert lines[1].startswith("compared: ")
    for line, what in zip(lines[2:4], ("wall", "cpu"), strict=True):
        assert re.fullmatch(what + r" +off +[\d.]+ ms  warn +[\d.]+ ms  \([+-][\d.]+%\)", line)
    assert re.fullmatch(
        r"scan alone, in process: [\d.]+ ms \(\d+ MiB/s, [\d.]+ us a file\)", lines[4]
    )


def test_open_cost_reports_both_ways() -> None:
    lines = _run("open_cost.py", "--rounds", "1").splitlines()
    assert re.fullmatch(r"tree: .*repo \(40 files\)", lines[0])
    assert re.fullmatch(r"open_regular\(path\): +[\d.]+ us a file", lines[1])
    assert re.fullmatch(r"Boundary\.open\(rel\): +[\d.]+ us a file \([+-][\d.]+ us\)", lines[2])
