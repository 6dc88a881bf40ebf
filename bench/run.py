"""Benchmark readmany as whole processes against the cat floor, a minimal Python reader and
its peers (files-to-prompt, repomix), over trees that bench/make_trees.py builds locally,
and the cost of its ignore matching alone (bench/ignore_match.py).

    python bench/run.py [--out DIR] [--runs N] [--quick] [--tiny] [--skip-peers]

Prints a markdown report and writes it to DIR/results.md (default bench/out/). A command
that fails is reported in the table, never raised; the targets are printed as PASS or FAIL.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from make_trees import (
    BabelSpec,
    MonorepoSpec,
    NumpySpec,
    RepoSpec,
    TreeInfo,
    build_babel_tree,
    build_monorepo_tree,
    build_numpy_tree,
    build_repo_tree,
    ensure_tree,
)

BENCH_DIR = Path(__file__).resolve().parent
MINIMAL_CAT = BENCH_DIR / "minimal_cat.py"
IGNORE_MATCH = BENCH_DIR / "ignore_match.py"
PEAK_RSS = BENCH_DIR / "peak_rss.py"
GNU_TIME = "/usr/bin/time"
GIT_LS_FILES = ("git", "ls-files", "-z")

# Roles a row can play in its group; the ratio columns divide by these rows' medians.
FLOOR = "floor"
PYTHON = "python"
FILES_TO_PROMPT = "files-to-prompt"
REPOMIX = "repomix"
READMANY = "readmany"
RATIO_ROLES = (FLOOR, PYTHON, FILES_TO_PROMPT, REPOMIX)


@dataclass(frozen=True)
class Scale:
    """Tree sizes and the default number of timed runs of one preset."""

    repo_files: int
    monorepo_files: int
    node_modules_files: int
    runs: int
    sparse_files: int  # the repo generator at about 2 files a directory
    babel_files: int
    numpy_files: int


SCALES = {
    "full": Scale(
        3000, 100_000, 50_000, 5, sparse_files=3000, babel_files=10_000, numpy_files=2400
    ),
    "quick": Scale(1000, 10_000, 5_000, 3, sparse_files=1000, babel_files=3000, numpy_files=1000),
    "tiny": Scale(40, 200, 100, 1, sparse_files=40, babel_files=60, numpy_files=40),
}


@dataclass(frozen=True)
class Peer:
    """A peer tool: its command, or why it is not there."""

    name: str
    command: tuple[str, ...] | None
    version: str
    reason: str  # why it is skipped, when command is None
    reused: bool = False  # installed by an earlier run


@dataclass(frozen=True)
class Case:
    """One row: a command run in `cwd`, optionally fed by a producer's stdout."""

    group: str
    key: str  # stable id of the row within its group, used by the targets
    label: str
    role: str
    argv: tuple[str, ...]
    cwd: Path
    producer: tuple[str, ...] | None = None
    ok_exits: frozenset[int] = frozenset({0})
    skip: str | None = None


@dataclass(frozen=True)
class RunResult:
    seconds: float
    rss_kib: int | None  # from an RSS run only
    exit_code: int
    out_bytes: int
    failure: str | None
    cpu: float = 0.0  # user + system seconds of the pipeline's processes and theirs


@dataclass
class Timing:
    """The timed runs of one row in one state of the machine (idle, or busy)."""

    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def clear(self) -> None:
        self.seconds.clear()
        self.cpu.clear()


@dataclass
class Row:
    case: Case
    idle: Timing = field(default_factory=Timing)
    busy: Timing = field(default_factory=Timing)
    rss_kib: int = 0
    out_bytes: int = 0
    exit_code: int = 0
    status: str = "ok"  # ok, failed, skipped
    reason: str = ""

    @property
    def times(self) -> list[float]:
        return self.idle.seconds

    def value(self, state: str = "idle", what: str = "seconds") -> float | None:
        """The median of the row's wall-clock `seconds` or `cpu` seconds, idle or busy."""
        runs = getattr(self.idle if state == "idle" else self.busy, what)
        return statistics.median(runs) if self.status == "ok" and runs else None

    @property
    def median(self) -> float | None:
        return self.value()


@dataclass(frozen=True)
class MatchCost:
    """Ignore matching alone, with one root `.gitignore` (see ignore_match.py)."""

    rules: str
    patterns: int
    paths: int
    readmany_setup_ms: float
    readmany_us: float
    pathspec_setup_ms: float | None
    pathspec_us: float | None


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    phases: list[tuple[str, float, str]] = field(default_factory=list)
    trees: list[tuple[str, TreeInfo]] = field(default_factory=list)
    peers: list[Peer] = field(default_factory=list)
    matching: list[MatchCost] = field(default_factory=list)
    matching_tree: str = ""
    load: str = ""  # the background load of the busy runs
    matching_failure: str = ""  # why there are no matching figures

    def row(self, group: str, key: str) -> Row | None:
        for row in self.rows:
            if row.case.group == group and row.case.key == key:
                return row
        return None


# ---------------------------------------------------------------------------- running


def _last_line(text: bytes) -> str:
    lines = [line.strip() for line in text.decode(errors="replace").splitlines()]
    lines = [line for line in lines if line]
    return lines[-1] if lines else ""


def rss_wrapper(rss_file: Path) -> tuple[str, ...]:
    """A prefix that runs a command and writes its peak RSS in KiB to `rss_file`.

    `/usr/bin/time -f %M` where it exists, else bench/peak_rss.py. Either is a separate,
    small parent: a command forked straight from this (larger) Python process would count
    this process's pages in its own peak until it execs.
    """
    if os.access(GNU_TIME, os.X_OK):
        return (GNU_TIME, "-f", "%M", "-o", str(rss_file))
    return (sys.executable, "-I", "-S", str(PEAK_RSS), str(rss_file))


def _read_rss(rss_file: Path) -> int | None:
    # GNU time writes "Command exited with non-zero status N" before the figure.
    try:
        lines = rss_file.read_text().split()
    except OSError:
        return None
    numbers = [int(word) for word in lines if word.isdigit()]
    return numbers[-1] if numbers else None


def run_once(case: Case, scratch: Path, timeout: float, rss: bool = False) -> RunResult:
    """Run the case once and time the whole pipeline, wall-clock, spawn to last exit.

    With `rss`, the case's command runs under `rss_wrapper` and the result carries its peak
    RSS; such a run is not meant to be timed.
    """
    out_path = scratch / "stdout"
    err_path = scratch / "stderr"
    rss_path = scratch / "rss"
    rss_path.unlink(missing_ok=True)
    argv = (*rss_wrapper(rss_path), *case.argv) if rss else case.argv
    producer: subprocess.Popen[bytes] | None = None
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        try:
            stdin: int | IO[bytes] | None = subprocess.DEVNULL
            if case.producer is not None:
                producer = subprocess.Popen(
                    case.producer,
                    cwd=case.cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=err,
                    start_new_session=True,
                )
                stdin = producer.stdout
            main = subprocess.Popen(
                argv, cwd=case.cwd, stdin=stdin, stdout=out, stderr=err, start_new_session=True
            )
        except OSError as error:
            if producer is not None:
                _kill_group(producer)
            return RunResult(0.0, None, -1, 0, f"could not start: {error}")
        if producer is not None and producer.stdout is not None:
            producer.stdout.close()
        # A blocking wait, with a timer to kill a run that hangs: `Popen.wait(timeout)`
        # polls with sleeps that double up to 50 ms, which would round every time up to
        # the next poll (0.016, 0.032, 0.064, 0.114 s …).
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            for process in (main, producer):
                if process is not None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)

        watchdog = threading.Timer(timeout, expire)
        watchdog.start()
        try:
            exit_code, cpu = _wait(main)
            producer_code, producer_cpu = _wait(producer) if producer is not None else (0, 0.0)
        finally:
            watchdog.cancel()
        cpu += producer_cpu
        seconds = time.perf_counter() - started
        timed_out = expired.is_set()

    stderr = err_path.read_bytes()
    failure: str | None = None
    if timed_out:
        failure = f"timed out after {timeout:g} s"
    elif exit_code < 0 or (rss and exit_code > 128):
        signum = -exit_code if exit_code < 0 else exit_code - 128
        failure = f"killed by signal {signum}: {_last_line(stderr)}"
    elif b"Traceback (most recent call last)" in stderr:
        failure = f"crashed (exit {exit_code}): {_last_line(stderr)}"
    elif exit_code not in case.ok_exits:
        failure = f"exit {exit_code}: {_last_line(stderr)}"
    elif producer_code != 0:
        failure = f"{shlex.join(case.producer or ())} exit {producer_code}: {_last_line(stderr)}"
    rss_kib = _read_rss(rss_path) if rss else None
    if rss and rss_kib is None and failure is None:
        failure = f"no peak RSS from {shlex.join(rss_wrapper(rss_path))}: {_last_line(stderr)}"
    return RunResult(seconds, rss_kib, exit_code, out_path.stat().st_size, failure, cpu)


def _wait(process: subprocess.Popen[bytes]) -> tuple[int, float]:
    """Wait for `process`: its exit code, and the user + system seconds it and the
    processes it waited for used (readmany's helper, xargs's cat)."""
    _pid, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_utime + usage.ru_stime


def _kill_group(process: subprocess.Popen[bytes]) -> int:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    return process.wait()


# A command that takes less than `QUICK_SECONDS` runs `QUICK_RUNS` times as often: a
# median of 5 runs of 0.07 s moves by a few percent from one run of the benchmark to the
# next, as much as the gaps some targets measure, and more runs of it cost little.
QUICK_SECONDS = 0.5
QUICK_RUNS = 3


# The background load of the busy runs: one process spinning on a core, as a compiler or
# a test run beside a pre-commit hook would. It stops itself after LOAD_SECONDS at most,
# should the benchmark die without stopping it.
LOAD_SECONDS = 3600
LOAD_PROGRAM = (
    "import time\n"
    f"end = time.monotonic() + {LOAD_SECONDS}\n"
    "while time.monotonic() < end:\n"
    "    sum(range(10000))\n"
)
LOAD = f"one `python -c` process spinning on a core (at most {LOAD_SECONDS} s)"


@contextlib.contextmanager
def busy_machine() -> Iterator[None]:
    """The background load, running while the block runs, then killed and reaped."""
    load = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", LOAD_PROGRAM],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        time.sleep(0.2)  # on its core before the first run
        yield
    finally:
        _kill_group(load)


def measure_group(
    cases: Sequence[Case], runs: int, scratch: Path, timeout: float, busy: bool = True
) -> list[Row]:
    """The commands of one tree: each runs once untimed for its peak RSS (that run also
    warms the page cache), then `runs` timed runs (`QUICK_RUNS` times as many for a quick
    command) that take turns (A B C A B C …), so a drift in the machine's speed touches
    every command of the tree alike; then, with `busy`, as many again with the background
    load (`busy_machine`) running."""
    rows = [Row(case) for case in cases]
    _timed_runs(rows, runs, scratch, timeout, "idle")
    if busy and any(row.status == "ok" for row in rows):
        with busy_machine():
            _timed_runs(rows, runs, scratch, timeout, "busy")
    return rows


def _timed_runs(rows: Sequence[Row], runs: int, scratch: Path, timeout: float, state: str) -> None:
    for row in rows:
        if row.case.skip is not None:
            row.status, row.reason = "skipped", row.case.skip
    quick: set[int] = set()  # the rows whose first run took less than QUICK_SECONDS
    first = 0 if state == "idle" else 1  # the RSS run, idle only
    for index in range(first, 1 + runs * QUICK_RUNS):
        for number, row in enumerate(rows):
            if row.status != "ok" or (index > runs and number not in quick):
                continue
            result = run_once(row.case, scratch, timeout, rss=index == 0)
            timing = row.idle if state == "idle" else row.busy
            if result.failure is not None:
                row.status, row.reason, row.exit_code = "failed", result.failure, result.exit_code
                row.idle.clear()
                row.busy.clear()
                continue
            if index == first and result.seconds < QUICK_SECONDS:
                quick.add(number)
            if result.rss_kib is not None:
                row.rss_kib = result.rss_kib
            else:
                timing.seconds.append(result.seconds)
                timing.cpu.append(result.cpu)
                row.out_bytes = result.out_bytes
                row.exit_code = result.exit_code


# ---------------------------------------------------------------------------- set-up


def _tool_output(argv: Sequence[str], timeout: float = 60) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return lines[0] if done.returncode == 0 and lines else ""


def _version_of(exe: str) -> str:
    """`1.2.3` out of `tool --version` (`tool, version 1.2.3`, `1.2.3`)."""
    words = _tool_output([exe, "--version"]).split()
    return words[-1] if words else ""


def _install(argv: Sequence[str], timeout: float) -> str | None:
    """Run an install step; None when it worked, else one line saying why not."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except OSError as error:
        return f"{shlex.join(argv)}: {error}"
    except subprocess.TimeoutExpired:
        return f"{shlex.join(argv)}: timed out after {timeout:g} s"
    if done.returncode != 0:
        why = _last_line((done.stderr or done.stdout).encode())
        return f"{shlex.join(argv)} exited {done.returncode}: {why}"
    return None


def _peer(name: str, exe: Path, reused: bool, failure: str | None) -> Peer:
    """The peer as installed at `exe`, else as found on PATH, else why it is missing."""
    if exe.exists():
        return Peer(name, (str(exe),), _version_of(str(exe)), "", reused)
    found = shutil.which(name)
    if found:
        return Peer(name, (found,), _version_of(found), "")
    return Peer(name, None, "", failure or "not installed")


def setup_files_to_prompt(peers_dir: Path, timeout: float) -> Peer:
    venv = peers_dir / "files-to-prompt-venv"
    exe = venv / "bin" / "files-to-prompt"
    failure: str | None = None
    reused = exe.exists()
    if not reused:
        failure = _install([sys.executable, "-m", "venv", str(venv)], timeout) or _install(
            [
                str(venv / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                "files-to-prompt",
            ],
            timeout,
        )
    return _peer("files-to-prompt", exe, reused, failure)


def setup_repomix(peers_dir: Path, timeout: float) -> Peer:
    prefix = peers_dir / "repomix-npm"
    exe = prefix / "node_modules" / ".bin" / "repomix"
    failure: str | None = None
    reused = exe.exists()
    if not reused:
        npm = shutil.which("npm")
        if npm is None:
            failure = "npm not found"
        else:
            prefix.mkdir(parents=True, exist_ok=True)
            failure = _install(
                [
                    npm,
                    "install",
                    "--prefix",
                    str(prefix),
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    "repomix",
                ],
                timeout,
            )
    return _peer("repomix", exe, reused, failure)


def readmany_command() -> tuple[str, ...]:
    """The `readmany` next to this interpreter or on PATH, else `python -m readmany`."""
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    found = shutil.which("readmany", path=search)
    return (found,) if found else (sys.executable, "-m", "readmany")


# ---------------------------------------------------------------------------- the rows


def tree_cases(
    group: str,
    root: Path,
    readmany: tuple[str, ...],
    peers: Sequence[Peer] = (),
    chat: bool = False,
    with_json: bool = False,
) -> list[Case]:
    """The rows of one tree; `chat`: also `--stats` and a budgeted `glob` (context for a
    chat), timed against `readmany glob '**'`; `with_json`: also `glob '**' --json`, for its
    peak memory against the text run's."""
    python = (sys.executable, str(MINIMAL_CAT))
    cases = [
        Case(
            group,
            "floor",
            "git ls-files -z | xargs -0 cat",
            FLOOR,
            ("xargs", "-0", "cat"),
            root,
            GIT_LS_FILES,
        ),
        Case(
            group,
            "python",
            "git ls-files -z | python minimal_cat.py",
            PYTHON,
            python,
            root,
            GIT_LS_FILES,
        ),
        Case(
            group,
            "glob",
            "readmany glob '**'",
            READMANY,
            (*readmany, "glob", "**"),
            root,
            ok_exits=frozenset({0, 1}),
        ),
        Case(
            group,
            "glob-stdin",
            "git ls-files -z | readmany glob --stdin -0",
            READMANY,
            (*readmany, "glob", "--stdin", "-0"),
            root,
            GIT_LS_FILES,
            ok_exits=frozenset({0, 1}),
        ),
    ]
    if with_json:
        cases.append(
            Case(
                group,
                "glob-json",
                "readmany glob '**' --json",
                READMANY,
                (*readmany, "glob", "**", "--json"),
                root,
                ok_exits=frozenset({0, 1}),
            )
        )
    if chat:
        cases += [
            Case(
                group,
                "stats",
                "readmany glob . --stats",
                READMANY,
                (*readmany, "glob", ".", "--stats"),
                root,
                ok_exits=frozenset({0, 1}),
            ),
            Case(
                group,
                "budget",
                "readmany glob . --max-tokens 100000",
                READMANY,
                (*readmany, "glob", ".", "--max-tokens", "100000"),
                root,
                ok_exits=frozenset({0, 1}),
            ),
        ]
    for peer in peers:
        if peer.name == FILES_TO_PROMPT:
            argv: tuple[str, ...] = (".",)
            label = "files-to-prompt ."
        else:
            argv = ("--stdout", "--style", "plain")
            label = "repomix --stdout --style plain"
        command = (*peer.command, *argv) if peer.command else argv
        cases.append(
            Case(group, peer.name, label, peer.name, command, root, skip=peer.reason or None)
        )
    return cases


def one_file_cases(
    group: str,
    root: Path,
    name: str,
    readmany: tuple[str, ...],
    peers: Sequence[Peer],
    alone: Path | None = None,
) -> list[Case]:
    """The rows of one small file; `alone`: a directory holding that file alone, where
    `readmany glob '**'` is timed (a walk, start-up included)."""
    cases = [
        Case(group, "floor", f"cat {name}", FLOOR, ("cat", name), root),
        Case(
            group,
            "python",
            f"python minimal_cat.py {name}",
            PYTHON,
            (sys.executable, str(MINIMAL_CAT), name),
            root,
        ),
        Case(group, "many", f"readmany many {name}", READMANY, (*readmany, "many", name), root),
    ]
    if alone is not None:
        cases.append(
            Case(
                group,
                "glob",
                "readmany glob '**' (the file alone in a directory)",
                READMANY,
                (*readmany, "glob", "**"),
                alone,
            )
        )
    for peer in peers:
        if peer.name == FILES_TO_PROMPT:
            argv: tuple[str, ...] = (name,)
            label = f"files-to-prompt {name}"
        else:
            argv = ("--stdout", "--style", "plain", "--include", name)
            label = f"repomix --stdout --style plain --include {name}"
        command = (*peer.command, *argv) if peer.command else argv
        cases.append(
            Case(group, peer.name, label, peer.name, command, root, skip=peer.reason or None)
        )
    return cases


def startup_cases(group: str, root: Path, readmany: tuple[str, ...]) -> list[Case]:
    return [
        Case(group, "floor", "python -c pass", FLOOR, (sys.executable, "-c", "pass"), root),
        Case(group, "version", "readmany --version", READMANY, (*readmany, "--version"), root),
    ]


def measure_matching(
    tree: Path, repeat: int, timeout: float, own: str | None = None
) -> tuple[list[MatchCost], str]:
    """bench/ignore_match.py over `tree`, run by this interpreter (the one with readmany);
    `own`: with the tree's own root rules, named so."""
    argv = [sys.executable, str(IGNORE_MATCH), str(tree), "--repeat", str(repeat), "--json"]
    if own is not None:
        argv += ["--own", own]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return [], f"{shlex.join(argv)}: {error}"
    if done.returncode != 0:
        why = _last_line(done.stderr.encode())
        return [], f"{shlex.join(argv)} exited {done.returncode}: {why}"
    try:
        rows = json.loads(done.stdout)
        return [MatchCost(**row) for row in rows], ""
    except (ValueError, TypeError) as error:
        return [], f"{shlex.join(argv)}: unreadable output ({error})"


# ---------------------------------------------------------------------------- the report


def _secs(value: float) -> str:
    if value < 1:
        return f"{value:.3f}"
    return f"{value:.2f}" if value < 100 else f"{value:.1f}"


def _ratio(row: Row, reference: Row | None) -> str:
    if reference is None or reference is row:
        return ""
    mine, theirs = row.median, reference.median
    if mine is None or theirs is None or theirs <= 0:
        return "—"
    return _times(mine / theirs)


def _times(ratio: float) -> str:
    if ratio >= 100:
        return f"{ratio:.0f}x"
    if ratio >= 10:
        return f"{ratio:.1f}x"
    return f"{ratio:.2f}x" if ratio >= 0.01 else f"{ratio:.3f}x"


def _short(text: str, width: int = 70) -> str:
    text = text.replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def _spread(runs: Sequence[float]) -> str:
    return f"{_secs(min(runs))}-{_secs(max(runs))}" if runs else "—"


def _state_ratio(row: Row, reference: Row | None, state: str, what: str) -> str:
    if reference is None or reference is row:
        return ""
    mine, theirs = row.value(state, what), reference.value(state, what)
    if mine is None or theirs is None or theirs <= 0:
        return "—"
    return _times(mine / theirs)


def timings_table(report: Report) -> list[str]:
    lines = [
        "| tree | command | median s | min-max s | CPU s | CPU min-max s | busy median s "
        "| busy min-max s | busy CPU s | vs floor | vs python | vs files-to-prompt "
        "| vs repomix | busy vs floor | CPU vs python | peak RSS MiB | output MiB | status |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in report.rows:
        group = row.case.group
        refs = [
            next((r for r in report.rows if r.case.group == group and r.case.role == role), None)
            for role in RATIO_ROLES
        ]
        if row.status == "ok":
            median = row.median or 0.0
            busy, cpu, busy_cpu = (row.value(*which) for which in BUSY_AND_CPU)
            cells = [
                _secs(median),
                _spread(row.idle.seconds),
                "—" if cpu is None else _secs(cpu),
                _spread(row.idle.cpu),
                "—" if busy is None else _secs(busy),
                _spread(row.busy.seconds),
                "—" if busy_cpu is None else _secs(busy_cpu),
                *(_ratio(row, ref) for ref in refs),
                _state_ratio(row, refs[0], "busy", "seconds"),
                _state_ratio(row, refs[1], "idle", "cpu"),
                f"{row.rss_kib / 1024:.1f}",
                f"{row.out_bytes / 2**20:.2f}",
                "ok" if row.exit_code == 0 else f"ok (exit {row.exit_code})",
            ]
        else:
            cells = ["—"] * 7 + [""] * 6 + ["—", "—", f"{row.status}: {_short(row.reason)}"]
        label = row.case.label.replace("|", "\\|")
        lines.append(f"| {group} | `{label}` | " + " | ".join(cells) + " |")
    return lines


BUSY_AND_CPU = (("busy", "seconds"), ("idle", "cpu"), ("busy", "cpu"))


@dataclass(frozen=True)
class Target:
    name: str
    limit: str
    measure: Callable[[Report], tuple[float | None, str, str]]  # value, shown, why missing
    passes: Callable[[float], bool]


def _median_of(
    report: Report, group: str, key: str, state: str = "idle", what: str = "seconds"
) -> tuple[float | None, str]:
    row = report.row(group, key)
    if row is None:
        return None, f"no {group} {key} row"
    value = row.value(state, what)
    if value is None:
        why = row.status if row.status != "ok" else f"not run {state}"
        return None, f"`{row.case.label}` ({group}) {why}"
    return value, ""


def _ratio_target(
    group: str,
    key: str,
    ref_key: str,
    faster: bool = False,
    state: str = "idle",
    what: str = "seconds",
) -> Callable[[Report], tuple[float | None, str, str]]:
    def value_of(report: Report) -> tuple[float | None, str, str]:
        mine, why = _median_of(report, group, key, state, what)
        theirs, why_ref = _median_of(report, group, ref_key, state, what)
        if mine is None or theirs is None:
            return None, "—", why or why_ref
        value = theirs / mine if faster else mine / theirs
        return value, f"{_times(value)} faster" if faster else _times(value), ""

    return value_of


def _seconds_target(group: str, key: str) -> Callable[[Report], tuple[float | None, str, str]]:
    def value_of(report: Report) -> tuple[float | None, str, str]:
        value, why = _median_of(report, group, key)
        return value, "—" if value is None else f"{_secs(value)} s", why

    return value_of


def _rss_of(report: Report, group: str, key: str) -> tuple[float | None, str]:
    row = report.row(group, key)
    if row is None or row.status != "ok":
        return (
            None,
            f"{group} {key} not measured"
            if row is None
            else f"`{row.case.label}` ({group}) {row.status}",
        )
    return row.rss_kib / 1024, ""


def _rss_target(group: str, key: str) -> Callable[[Report], tuple[float | None, str, str]]:
    def value_of(report: Report) -> tuple[float | None, str, str]:
        value, why = _rss_of(report, group, key)
        return value, "—" if value is None else f"{value:.1f} MiB", why

    return value_of


def _rss_growth_target(
    small: str, large: str, key: str
) -> Callable[[Report], tuple[float | None, str, str]]:
    def value_of(report: Report) -> tuple[float | None, str, str]:
        low, why = _rss_of(report, small, key)
        high, why_high = _rss_of(report, large, key)
        if low is None or high is None or low <= 0:
            return None, "—", why or why_high
        return high / low, f"{high / low:.2f}x ({low:.1f} → {high:.1f} MiB)", ""

    return value_of


def _matching_target(report: Report) -> tuple[float | None, str, str]:
    if not report.matching:
        return None, "—", report.matching_failure or "not measured"
    template = [cost for cost in report.matching if cost.rules.startswith("template")]
    largest = max(template or report.matching, key=lambda cost: cost.patterns)
    return largest.readmany_us, f"{largest.readmany_us:.2f} µs ({largest.patterns} patterns)", ""


def _kept_files(report: Report, group: str) -> int | None:
    for name, info in report.trees:
        if name.split(" (")[0] == group:
            return info.kept_files
    return None


def _cpu_per_file_target(
    group: str, key: str, ref_key: str
) -> Callable[[Report], tuple[float | None, str, str]]:
    """Microseconds of CPU a kept file that the row takes over another row."""

    def value_of(report: Report) -> tuple[float | None, str, str]:
        mine, why = _median_of(report, group, key, "idle", "cpu")
        theirs, why_ref = _median_of(report, group, ref_key, "idle", "cpu")
        files = _kept_files(report, group)
        if mine is None or theirs is None or not files:
            return None, "—", why or why_ref or f"no {group} tree"
        over = (mine - theirs) / files * 1e6
        return over, f"{over:.1f} µs ({_secs(mine)} s against {_secs(theirs)} s CPU)", ""

    return value_of


def _matching_rules_target(rules: str) -> Callable[[Report], tuple[float | None, str, str]]:
    def value_of(report: Report) -> tuple[float | None, str, str]:
        for cost in report.matching:
            if cost.rules == rules:
                return cost.readmany_us, f"{cost.readmany_us:.2f} µs", ""
        return None, "—", report.matching_failure or f"{rules} not measured"

    return value_of


def _rss_ratio_target(
    group: str, key: str, ref_key: str
) -> Callable[[Report], tuple[float | None, str, str]]:
    def value_of(report: Report) -> tuple[float | None, str, str]:
        mine, why = _rss_of(report, group, key)
        theirs, why_ref = _rss_of(report, group, ref_key)
        if mine is None or theirs is None or theirs <= 0:
            return None, "—", why or why_ref
        return mine / theirs, f"{mine / theirs:.2f}x ({mine:.1f} vs {theirs:.1f} MiB)", ""

    return value_of


def _over_target(
    group: str, key: str, ref_group: str, ref_key: str
) -> Callable[[Report], tuple[float | None, str, str]]:
    """How many milliseconds the row's median is over another group's row's."""

    def value_of(report: Report) -> tuple[float | None, str, str]:
        mine, why = _median_of(report, group, key)
        theirs, why_ref = _median_of(report, ref_group, ref_key)
        if mine is None or theirs is None:
            return None, "—", why or why_ref
        over = (mine - theirs) * 1000
        return over, f"{over:.1f} ms ({_secs(mine)} s against {_secs(theirs)} s)", ""

    return value_of


def _at_most(limit: float) -> Callable[[float], bool]:
    return lambda value: value <= limit


def _at_least(limit: float) -> Callable[[float], bool]:
    return lambda value: value >= limit


def _limit(
    label: str,
    measure: Callable[[Report], tuple[float | None, str, str]],
    limit: float,
    form: str = "{:g}x",
    most: bool = True,
) -> Target:
    """A target whose limit is written once: the text the report shows (`form` of it,
    after ≤ or ≥) and the check both come from `limit`."""
    sign, check = ("≤", _at_most(limit)) if most else ("≥", _at_least(limit))
    return Target(label, f"{sign} {form.format(limit)}", measure, check)


def cpu_targets(trees: Sequence[str], chat: Sequence[str], matching: Sequence[str]) -> list[Target]:
    """The targets of CPU time, of the busy machine, of memory on every tree and of every
    rule set's matching."""
    wanted: list[Target] = []
    for group in trees:
        for key, what in (("glob", "`readmany glob '**'`"), ("glob-stdin", "`--stdin -0`")):
            wanted.append(
                _limit(
                    f"{group}: CPU of {what} vs minimal Python",
                    _ratio_target(group, key, "python", what="cpu"),
                    1.5,
                )
            )
            wanted.append(
                _limit(
                    f"{group}, busy: {what} vs floor",
                    _ratio_target(group, key, "floor", state="busy"),
                    1.5,
                )
            )
        wanted.append(
            _limit(f"{group}: peak RSS of `readmany glob '**'`", _rss_target(group, "glob"), 40,
                   "{:g} MiB")
        )  # fmt: skip
    for group in chat:
        for key, what in (("stats", "--stats"), ("budget", "--max-tokens 100000")):
            wanted.append(
                _limit(
                    f"{group}: CPU of `{what}` over `glob '**'`, a file",
                    _cpu_per_file_target(group, key, "glob"),
                    25,
                    "{:g} µs",
                )
            )
            wanted.append(
                _limit(f"{group}: peak RSS of `{what}`", _rss_target(group, key), 40, "{:g} MiB")
            )
    for rules in matching:
        wanted.append(
            _limit(f"ignore matching, {rules}", _matching_rules_target(rules), 3, "{:g} µs a path")
        )
    return wanted


def targets(repo: str, repo10: str, mono: str, one: str, startup: str) -> list[Target]:
    per_tree = [
        _limit(f"{group}: `readmany glob '**'` vs {what}", _ratio_target(group, "glob", key), limit)
        for group in (repo, repo10, mono)
        for key, what, limit in (("python", "minimal Python", 1.5), ("floor", "floor", 2.0))
    ]
    return [
        *per_tree,
        _limit(
            f"{repo}: `readmany glob '**'` vs files-to-prompt",
            _ratio_target(repo, "glob", FILES_TO_PROMPT, faster=True),
            10,
            "{:g}x faster",
            most=False,
        ),
        _limit(
            f"{repo}: `readmany glob '**'` vs repomix",
            _ratio_target(repo, "glob", REPOMIX, faster=True),
            10,
            "{:g}x faster",
            most=False,
        ),
        _limit(
            f"{repo}: `readmany glob . --stats` vs `readmany glob '**'`",
            _ratio_target(repo, "stats", "glob"),
            1.2,
        ),
        _limit(
            f"{repo}: `readmany glob . --max-tokens 100000` vs `readmany glob '**'`",
            _ratio_target(repo, "budget", "glob"),
            1.2,
        ),
        _limit(
            f"{mono}: `readmany glob --stdin -0` vs floor",
            _ratio_target(mono, "glob-stdin", "floor"),
            2,
        ),
        _limit(
            f"{mono}: `readmany glob --stdin -0` vs minimal Python",
            _ratio_target(mono, "glob-stdin", "python"),
            1.5,
        ),
        _limit(
            f"{mono}: peak RSS of `--stdin -0` vs the walk's",
            _rss_ratio_target(mono, "glob-stdin", "glob"),
            1.2,
        ),
        _limit(
            f"{mono}: peak RSS of `glob '**' --json` vs the text run's",
            _rss_ratio_target(mono, "glob-json", "glob"),
            2,
        ),
        _limit(
            f"{one}: `readmany glob '**'` over `python -c pass` ({startup})",
            _over_target(one, "glob", startup, "floor"),
            12,
            "{:g} ms",
        ),
        _limit(
            f"{one}: `readmany many` vs files-to-prompt",
            _ratio_target(one, "many", FILES_TO_PROMPT),
            1.0,
            "{:.1f}x",
        ),
        _limit(
            f"{startup}: `readmany --version`",
            _seconds_target(startup, "version"),
            0.04,
            "{:.3f} s",
        ),
        _limit(
            f"{repo}: peak RSS of `readmany glob '**'`",
            _rss_target(repo, "glob"),
            40,
            "{:g} MiB",
        ),
        _limit(
            f"{repo10} vs {repo}: peak RSS growth of `readmany glob '**'`",
            _rss_growth_target(repo, repo10, "glob"),
            1.2,
        ),
        _limit(
            "ignore matching, about 300 patterns",
            _matching_target,
            3,
            "{:g} µs a path",
        ),
    ]


def matching_table(report: Report) -> list[str]:
    if not report.matching:
        return [f"Not measured: {report.matching_failure or 'no figures'}"]
    lines = [
        f"Every directory and file of the {report.matching_tree} tree (the template's rules; "
        "the babel- and numpy-like trees: their own) asked once, as a walk "
        "asks, with a fresh matcher each round: `setup` reads and parses the ignore files, "
        "`µs/path` is the questions (what is done once a directory and each expression's "
        "compiling included). CPU time, median of the rounds. pathspec: the same questions "
        "to `GitIgnoreSpec.match_file` over the root rules alone.",
        "",
        "| rules | root patterns | paths | readmany setup ms | readmany µs/path "
        "| pathspec setup ms | pathspec µs/path |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for cost in report.matching:
        cells = [
            "—" if value is None else f"{value:.2f}"
            for value in (
                cost.readmany_setup_ms,
                cost.readmany_us,
                cost.pathspec_setup_ms,
                cost.pathspec_us,
            )
        ]
        lines.append(
            f"| {cost.rules} | {cost.patterns} | {cost.paths} | " + " | ".join(cells) + " |"
        )
    return lines


def targets_table(report: Report, wanted: Sequence[Target]) -> list[str]:
    lines = ["| target | measured | limit | result |", "| --- | --- | --- | --- |"]
    for target in wanted:
        value, shown, why = target.measure(report)
        if value is None:
            result = f"N/A: {_short(why)}"
        else:
            result = "PASS" if target.passes(value) else "FAIL"
        lines.append(f"| {target.name} | {shown} | {target.limit} | {result} |")
    return lines


def render(report: Report, wanted: Sequence[Target], header: Sequence[str]) -> str:
    lines = ["# readmany benchmark", "", *header, "", "## Trees", ""]
    lines += [
        "| tree | kept files | kept MiB | ignored files | commit |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for name, info in report.trees:
        lines.append(
            f"| {name} | {info.kept_files} | {info.kept_bytes / 2**20:.1f} | "
            f"{info.ignored_files} | {info.commit[:12]} |"
        )
    lines += ["", "## Timings", "", *timings_table(report), "", "## Ignore matching", ""]
    lines += [*matching_table(report), "", "## Targets", ""]
    lines += targets_table(report, wanted)
    problems = [row for row in report.rows if row.status != "ok"]
    if problems:
        lines += ["", "## Failed and skipped commands", ""]
        for row in problems:
            line = f"- {row.case.group}: `{row.case.label}` {row.status}: {row.reason}"
            if row.status == "failed":
                command = shlex.join(row.case.argv)
                if row.case.producer:
                    command = f"{shlex.join(row.case.producer)} | {command}"
                line += f" (ran `{command}` in `{row.case.cwd}`)"
            lines.append(line)
    lines += ["", "## Phases", "", "| phase | seconds | note |", "| --- | ---: | --- |"]
    lines += [f"| {name} | {seconds:.1f} | {note} |" for name, seconds, note in report.phases]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- main


def _alone(file: Path, directory: Path) -> Path:
    """`directory` holding a copy of `file` and nothing else (made again each run)."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    shutil.copyfile(file, directory / file.name)
    return directory


def _progress(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--out",
        type=Path,
        default=BENCH_DIR / "out",
        help="output directory: trees, peers, results.md (default bench/out)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        help=f"timed runs per command (default 5; --quick 3); {QUICK_RUNS} times as many "
        f"for a command quicker than {QUICK_SECONDS:g} s",
    )
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="smaller trees, fewer runs")
    size.add_argument("--tiny", action="store_true", help="tiny trees (for the test suite)")
    parser.add_argument(
        "--skip-peers",
        action="store_true",
        help="do not install or run files-to-prompt and repomix",
    )
    parser.add_argument(
        "--timeout", type=float, default=300, help="seconds before one run is killed (default 300)"
    )
    args = parser.parse_args(argv)

    scale_name = "tiny" if args.tiny else "quick" if args.quick else "full"
    scale = SCALES[scale_name]
    runs = max(1, args.runs if args.runs is not None else scale.runs)
    out: Path = args.out.resolve()
    scratch = out / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    report = Report()

    repo10_files = scale.repo_files * 10
    trees: list[tuple[str, Path, RepoSpec | MonorepoSpec | BabelSpec | NumpySpec]] = [
        (
            f"repo ({scale.repo_files} files)",
            out / ".trees" / scale_name / "repo",
            RepoSpec(scale.repo_files),
        ),
        (
            f"repo x10 ({repo10_files} files)",
            out / ".trees" / scale_name / "repo-x10",
            RepoSpec(repo10_files),
        ),
        (
            f"monorepo ({scale.monorepo_files} + {scale.node_modules_files} ignored)",
            out / ".trees" / scale_name / "monorepo",
            MonorepoSpec(scale.monorepo_files, scale.node_modules_files),
        ),
        (
            f"sparse ({scale.sparse_files} files, about 2 a directory)",
            out / ".trees" / scale_name / "sparse",
            RepoSpec(scale.sparse_files, seed=3, dir_files=1),
        ),
        (
            f"babel-like ({scale.babel_files} files)",
            out / ".trees" / scale_name / "babel",
            BabelSpec(scale.babel_files),
        ),
        (
            f"numpy-like ({scale.numpy_files} files)",
            out / ".trees" / scale_name / "numpy",
            NumpySpec(scale.numpy_files),
        ),
    ]
    infos: list[TreeInfo] = []
    for name, root, spec in trees:
        _progress(f"tree {name}: building under {root} …")
        if isinstance(spec, RepoSpec):
            info, seconds, reused = ensure_tree(root, spec, build_repo_tree)
        elif isinstance(spec, BabelSpec):
            info, seconds, reused = ensure_tree(root, spec, build_babel_tree)
        elif isinstance(spec, NumpySpec):
            info, seconds, reused = ensure_tree(root, spec, build_numpy_tree)
        else:
            info, seconds, reused = ensure_tree(root, spec, build_monorepo_tree)
        infos.append(info)
        report.trees.append((name, info))
        note = "reused from an earlier run (build time then)" if reused else "built"
        report.phases.append((f"tree {name}", seconds, note))
        _progress(f"tree {name}: {note}, {seconds:.1f} s")

    peers: list[Peer] = []
    for setup in (setup_files_to_prompt, setup_repomix):
        name = FILES_TO_PROMPT if setup is setup_files_to_prompt else REPOMIX
        if args.skip_peers:
            peers.append(Peer(name, None, "", "--skip-peers"))
            continue
        _progress(f"peer {name}: installing under {out / 'peers'} …")
        started = time.perf_counter()
        peer = setup(out / "peers", args.timeout)
        seconds = time.perf_counter() - started
        peers.append(peer)
        if peer.command is None:
            note = f"skipped: {peer.reason}"
        else:
            state = "already installed" if peer.reused else "installed"
            note = f"{state}: {peer.name} {peer.version} ({shlex.join(peer.command)})"
        report.phases.append((f"peer {name}", seconds, note))
        _progress(f"peer {name}: {note} ({seconds:.1f} s)")
    report.peers = peers

    readmany = readmany_command()
    names = [name.split(" (")[0] for name, _r, _s in trees]
    repo_group, repo10_group, mono_group, sparse_group, babel_group, numpy_group = names
    one_group, startup_group = "one file", "start-up"
    repo_root, repo10_root, mono_root, sparse_root, babel_root, numpy_root = (
        root for _n, root, _s in trees
    )
    cases = [
        *tree_cases(repo_group, repo_root, readmany, peers, chat=True),
        *tree_cases(repo10_group, repo10_root, readmany),
        *tree_cases(mono_group, mono_root, readmany, with_json=True),
        *tree_cases(sparse_group, sparse_root, readmany),
        *tree_cases(babel_group, babel_root, readmany, chat=True),
        *tree_cases(numpy_group, numpy_root, readmany),
        *one_file_cases(
            one_group,
            repo_root,
            infos[0].one_file,
            readmany,
            peers,
            _alone(repo_root / infos[0].one_file, out / ".trees" / scale_name / "one-file"),
        ),
        *startup_cases(startup_group, repo_root, readmany),
    ]
    groups: dict[str, list[Case]] = {}
    for case in cases:
        groups.setdefault(case.group, []).append(case)
    for group, members in groups.items():
        _progress(
            f"[{group}] {len(members)} commands, {runs} timed runs each "
            f"({runs * QUICK_RUNS} if quicker than {QUICK_SECONDS:g} s), taking turns …"
        )
        started = time.perf_counter()
        busy = group not in (one_group, startup_group)
        rows = measure_group(members, runs, scratch, args.timeout, busy)
        seconds = time.perf_counter() - started
        report.rows.extend(rows)
        for row in rows:
            shown = (
                f"{_secs(row.median)} s"
                if row.median is not None
                else f"{row.status}: {row.reason}"
            )
            _progress(f"[{group}] {row.case.label}: {shown}")
        report.phases.append(
            (
                f"measure {group}",
                seconds,
                f"1 RSS run + {runs} timed runs each ({runs * QUICK_RUNS} if quick), taking turns"
                + (", idle then busy" if busy else ", idle"),
            )
        )
    _progress("ignore matching: measuring …")
    started = time.perf_counter()
    report.matching_tree = repo_group
    report.matching, report.matching_failure = measure_matching(repo_root, runs, args.timeout)
    for group, root in ((babel_group, babel_root), (numpy_group, numpy_root)):
        costs, failure = measure_matching(root, runs, args.timeout, own=f"{group}'s own")
        report.matching += costs
        report.matching_failure = report.matching_failure or failure
    report.phases.append(
        ("ignore matching", time.perf_counter() - started, f"{runs} rounds each, in one process")
    )

    readmany_version = _tool_output([*readmany, "--version"]) or "readmany (version unknown)"
    peer_versions = ", ".join(
        f"{peer.name} {peer.version or '?'}" if peer.command else f"{peer.name} skipped"
        for peer in peers
    )
    header = [
        f"{readmany_version} · Python {platform.python_version()} · "
        f"{_tool_output(['git', '--version'])} · {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs · {peer_versions}",
        "",
        f"Scale `{scale_name}`. Each command runs once untimed under "
        f"`{shlex.join(rss_wrapper(Path('FILE')))}` for its peak RSS (that run also warms "
        f"the page cache), then {runs} timed run(s) ({runs * QUICK_RUNS} for a command "
        f"quicker than {QUICK_SECONDS:g} s) as a whole process or pipeline, with "
        "stdout to a file, the commands of a tree taking turns (A B C A B C …). "
        "`median s` is wall-clock from spawn to the last exit; `CPU s` the user + system "
        "time of the pipeline's processes and of those they waited for (readmany's helper, "
        "xargs's cat), from `wait4`; `busy` the same runs again with the second core taken "
        f"by a background load ({LOAD}), started and stopped by the benchmark; "
        "`peak RSS` is that of the pipeline's last command; `vs X` is the row's median "
        "divided by the median of row X of the same tree.",
    ]
    wanted = targets(repo_group, repo10_group, mono_group, one_group, startup_group)
    wanted += cpu_targets(
        names, (repo_group, babel_group), [cost.rules for cost in report.matching]
    )
    text = render(report, wanted, header)
    (out / "results.md").write_text(text)
    sys.stdout.write(text)
    _progress(f"written to {out / 'results.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
