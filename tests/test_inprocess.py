"""The in-process runner (`tests/inprocess.py`) runs readmany as its own process would,
and runs of readmany in one process leave nothing behind for the next (the MCP server)."""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import make, run_installed, run_readmany
from inprocess import run_in_process

import readmany.__main__
from readmany.read.glob_file import CandidateReader
from readmany.select.candidates import Candidate
from readmany.select.walk import SelectRequest, iter_selection

TREE = {
    "a.txt": "alpha\n",
    "src/b.py": "print('b')\n",
    "src/deep/c.md": "# c\n",
    "caf\u00e9.txt": "caf\u00e9 cr\u00e8me\n",
    "latin1.txt": b"caf\xe9\n",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make(tmp_path / "tree", TREE)


# --- the same bytes as the installed command ------------------------------------------


@pytest.mark.smoke
@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["many", "a.txt", "src/b.py:1:1", "missing.txt"],
        ["glob", "."],
        ["glob", ".", "--format", "xml", "-n", "--tree"],
        ["glob", ".", "--stats", "--json"],
        ["glob", "--compat", "."],
        ["glob", ".", "--max-tokens", "12", "--tokenizer", "estimate"],  # the same counter in both
        ["hashline", "caf\u00e9.txt", "latin1.txt"],
        ["glob", "--no-such-option"],
        ["many"],
        [],
    ],
    ids=lambda args: " ".join(args) or "no-arguments",
)
def test_the_same_status_and_bytes_as_the_installed_command(tree: Path, args: list[str]) -> None:
    installed = run_installed(args, cwd=tree)
    here = run_in_process(args, cwd=tree)
    assert (here.returncode, here.stdout, here.stderr) == (
        installed.returncode,
        installed.stdout,
        installed.stderr,
    )


@pytest.mark.smoke
def test_the_same_bytes_from_stdin_as_the_installed_command(tree: Path) -> None:
    paths = b"a.txt\nsrc/b.py\ncaf\xc3\xa9.txt\nnot-there\n"
    installed = run_installed(["glob", "--stdin"], cwd=tree, stdin=paths)
    here = run_in_process(["glob", "--stdin"], cwd=tree, stdin=paths)
    assert here.returncode == installed.returncode == 1
    assert (here.stdout, here.stderr) == (installed.stdout, installed.stderr)


@pytest.mark.parametrize("blank_lines", [200_000, 2_000_000])  # a pipe widened; a file
def test_large_input_arrives_whole(tree: Path, blank_lines: int) -> None:
    paths = b"\n" * blank_lines + b"a.txt\n"  # empty entries are dropped
    result = run_in_process(["glob", "--stdin"], cwd=tree, stdin=paths)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == run_in_process(["glob", "a.txt"], cwd=tree).stdout


def test_writes_to_descriptor_1_come_in_order_with_the_stream(tree: Path) -> None:
    # `-o /dev/stdout` opens this process's descriptor 1 again; the text stream writes to
    # it too: both land in the output, in the order they were written.
    result = run_in_process(["glob", "a.txt", "-o", "/dev/stdout"], cwd=tree)
    assert result.returncode == 0, result.stderr
    assert result.stdout == run_in_process(["glob", "a.txt"], cwd=tree).stdout
    assert b"alpha" in result.stdout


def test_exit_statuses_are_the_commands_own(tree: Path) -> None:
    assert run_in_process(["many", "a.txt"], cwd=tree).returncode == 0
    assert run_in_process(["many", "missing.txt"], cwd=tree).returncode == 1
    assert run_in_process(["many", "--no-such-option"], cwd=tree).returncode == 2


PROCESSES = "READMANY_PROCESSES"


def test_the_walks_helper_process_runs_and_never_returns_into_pytest(tree: Path) -> None:
    # READMANY_PROCESSES=2 forks the helper at once; it ends with os._exit, so the test
    # process's exit handlers (pytest's teardown among them) never run in it.
    marker = tree.parent / "exit-handlers-ran"
    make(tree, {f"many/{i:03}.txt": f"{i}\n" for i in range(300)})

    def ran() -> None:
        marker.write_text(str(os.getpid()))

    atexit.register(ran)
    try:
        forked = run_in_process(["glob", "."], cwd=tree, env={**os.environ, PROCESSES: "2"})
        alone = run_in_process(["glob", "."], cwd=tree, env={**os.environ, PROCESSES: "1"})
    finally:
        atexit.unregister(ran)
    assert forked.returncode == alone.returncode == 0
    assert forked.stdout == alone.stdout
    assert b"--- many/299.txt ---" in forked.stdout
    assert not marker.exists()


# --- what the run is given, and what is put back after it ------------------------------


# Text, bytes and a descriptor's write, each stream's errors handler, stderr's line buffering.
WRITES = """
import os, sys
sys.stdout.write("text\\n")
sys.stdout.buffer.write(b"\\xff")
os.write(1, b" fd1")
sys.stderr.write("err\\udcff\\n")
os.write(2, b"\\n")
sys.stdout.write("\\udcff")
"""


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_environment_directory_and_arguments_are_the_runs_and_put_back(
    tree: Path, monkeypatch: pytest.MonkeyPatch, unbuffered: str
) -> None:
    env = {"ONLY": "this"} | ({"PYTHONUNBUFFERED": unbuffered} if unbuffered else {})
    seen: dict[str, object] = {}

    def main(argv: list[str]) -> int:
        seen.update(
            argv=argv,
            sys_argv=list(sys.argv),
            cwd=os.getcwd(),
            env=dict(os.environ),
            stdin=sys.stdin.buffer.read(),
            stdout=(sys.stdout.encoding, sys.stdout.fileno(), sys.stdout.isatty()),
            stderr=(sys.stderr.errors, sys.stderr.line_buffering, sys.stderr.fileno()),
        )
        exec(WRITES)
        return 3

    monkeypatch.setattr(readmany.__main__, "main", main)
    before = (os.getcwd(), dict(os.environ), sys.argv, sys.stdout, sys.stderr, sys.stdin)
    result = run_in_process(["x", "y"], cwd=tree, stdin=b"in\x00put", env=env)
    assert (os.getcwd(), dict(os.environ), sys.argv, sys.stdout, sys.stderr, sys.stdin) == before
    assert result.returncode == 3
    # Buffered as the interpreter's own streams are: the same bytes in the same order.
    own = subprocess.run([sys.executable, "-c", WRITES], capture_output=True, env=env, check=True)
    assert (result.stdout, result.stderr) == (own.stdout, own.stderr)
    assert sorted(result.stdout) == sorted(b"text\n\xff fd1\xff")
    assert result.stderr == b"err\\udcff\n\n"
    assert seen["argv"] == ["x", "y"]
    assert seen["sys_argv"] == ["readmany", "x", "y"]
    assert seen["cwd"] == str(tree)
    assert seen["env"] == env
    assert seen["stdin"] == b"in\x00put"
    assert seen["stdout"] == ("utf-8", 1, False)
    assert seen["stderr"] == ("backslashreplace", not unbuffered, 2)


def test_a_system_exit_is_a_status(monkeypatch: pytest.MonkeyPatch) -> None:
    def main(argv: list[str]) -> int:
        raise SystemExit(argv[0] if argv[0] == "words" else int(argv[0]))

    monkeypatch.setattr(readmany.__main__, "main", main)
    assert run_in_process(["4"]).returncode == 4
    said = run_in_process(["words"])
    assert (said.returncode, said.stderr) == (1, b"words\n")


def test_a_run_past_its_timeout_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    def main(argv: list[str]) -> int:
        print("started", flush=True)
        time.sleep(30)
        return 0

    monkeypatch.setattr(readmany.__main__, "main", main)
    with pytest.raises(subprocess.TimeoutExpired) as raised:
        run_in_process([], timeout=0.2)
    assert raised.value.output == b"started\n"
    assert signal.getsignal(signal.SIGALRM) is not None
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_the_interpreters_start_up_variables_cannot_change_for_a_run() -> None:
    with pytest.raises(AssertionError, match=r"PYTHONIOENCODING .*smoke"):
        run_in_process(["--version"], env={**os.environ, "PYTHONIOENCODING": "latin-1"})
    with pytest.raises(AssertionError, match=r"'de_DE\.ISO-8859-1' .*smoke"):
        run_in_process(["--version"], env={"LC_ALL": "de_DE.ISO-8859-1"})


@pytest.mark.parametrize("leak", ["descriptor", "environment", "directory", "signal", "umask"])
def test_what_a_run_leaves_behind_fails_the_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, leak: str
) -> None:
    opened: list[int] = []
    before = (dict(os.environ), os.getcwd(), signal.getsignal(signal.SIGTERM))

    def main(argv: list[str]) -> int:
        if leak == "descriptor":
            opened.append(os.open(tmp_path, os.O_RDONLY))
        elif leak == "environment":
            os.environ["LEFT"] = "behind"
        elif leak == "directory":
            os.chdir(tmp_path)
        elif leak == "signal":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        else:
            os.umask(0o077)
        return 0

    monkeypatch.setattr(readmany.__main__, "main", main)
    with pytest.raises(AssertionError, match=r"in-process, (left|changed)"):
        run_in_process([])
    for fd in opened:
        os.close(fd)
    if leak == "umask":
        os.umask(0o022)
    assert (dict(os.environ), os.getcwd(), signal.getsignal(signal.SIGTERM)) == before


# --- runs of readmany in one process ----------------------------------------------------


def test_runs_leave_no_descriptor_open(tree: Path) -> None:
    fds = set(os.listdir("/proc/self/fd"))
    for args in (
        ["glob", "."],
        ["glob", ".", "--max-tokens", "20"],
        ["glob", ".", "--stats"],
        ["glob", ".", "--tree", "--json"],
        ["many", "a.txt", "src/deep/c.md"],
        ["hashline", "a.txt"],
    ):
        assert run_readmany(args, cwd=tree).returncode in (0, 1)
    assert set(os.listdir("/proc/self/fd")) == fds


def test_a_budget_over_staged_files_ends_its_git_process(tree: Path) -> None:
    # The files read again for a plan come from git's index through a batch process:
    # it is ended and its pipes closed with the run (the run fails here otherwise).
    make(tree, {"long.txt": "".join(f"line {i}\n" for i in range(200))})
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    subprocess.run(["git", "add", "."], cwd=tree, check=True)
    make(tree, {"long.txt": "changed since it was staged\n"})  # read from the index
    fds = set(os.listdir("/proc/self/fd"))
    result = run_in_process(["glob", "--staged", "--max-bytes", "500"], cwd=tree)
    assert result.returncode == 0, result.stderr
    assert b"--- a.txt ---" in result.stdout
    assert b"[Showing lines 1-" in result.stdout  # cut: read again for the second pass
    assert set(os.listdir("/proc/self/fd")) == fds


def test_the_candidate_reader_closes_the_root_it_held(tree: Path) -> None:
    root, events = iter_selection(SelectRequest(root=str(tree), patterns=("**",)))
    candidates = [event for event in events if isinstance(event, Candidate)]
    fds = set(os.listdir("/proc/self/fd"))
    with CandidateReader(lambda name: False, root=root) as reader:
        for candidate in candidates:
            reader(candidate, candidate.rel)
        assert set(os.listdir("/proc/self/fd")) != fds  # the root and src/, src/deep/
    assert set(os.listdir("/proc/self/fd")) == fds


def test_runs_one_after_another_give_the_same_output(tree: Path) -> None:
    # Nothing a run remembers (caches, handlers, the helper's state) changes the next.
    args = ["glob", ".", "--json", "--max-tokens", "30"]
    first = run_readmany(args, cwd=tree)
    for other in (["glob", "--compat", "."], ["many", "a.txt"], ["glob", ".", "--stats"]):
        run_readmany(other, cwd=tree)
    again = run_readmany(args, cwd=tree)
    assert (again.returncode, again.stdout, again.stderr) == (
        first.returncode,
        first.stdout,
        first.stderr,
    )
    assert json.loads(again.stdout)["details"]
