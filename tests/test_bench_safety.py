"""The safety benchmarks run end to end on a tiny tree and print their numbers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _run(script: str, out: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--out", str(out), "--files", "40", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout


def test_secrets_cost_reports_both_sides(tmp_path: Path) -> None:
    lines = _run("secrets_cost.py", tmp_path, "--runs", "1").splitlines()
    assert re.fullmatch(r"tree: .*repo \(\d+ text files, [\d.]+ MiB of text\)", lines[0])
    assert lines[1].startswith("compared: ")
    for line, what in zip(lines[2:4], ("wall", "cpu"), strict=True):
        assert re.fullmatch(what + r" +off +[\d.]+ ms  warn +[\d.]+ ms  \([+-][\d.]+%\)", line)
    assert re.fullmatch(
        r"scan alone, in process: [\d.]+ ms \(\d+ MiB/s, [\d.]+ us a file\)", lines[4]
    )


def test_open_cost_reports_both_ways(tmp_path: Path) -> None:
    lines = _run("open_cost.py", tmp_path, "--rounds", "1").splitlines()
    assert re.fullmatch(r"tree: .*repo \(40 files\)", lines[0])
    assert re.fullmatch(r"open_regular\(path\): +[\d.]+ us a file", lines[1])
    assert re.fullmatch(r"Boundary\.open\(rel\): +[\d.]+ us a file \([+-][\d.]+ us\)", lines[2])
