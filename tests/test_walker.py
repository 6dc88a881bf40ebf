"""The walk in a helper process: the same output as in one process, and no loose ends."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import readmany_command, run_readmany

import readmany.commands.glob as glob_command
import readmany.commands.glob_request as glob_request
import readmany.read.transfer as transfer
import readmany.select.lookahead as lookahead
from readmany.commands.glob import GlobRequest, run_glob
from readmany.emit.sink import Sink
from readmany.errors import UsageError

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00\x00\x00\x10" * 2 + b"\x08\x02\x00\x00\x00"


@pytest.fixture
def varied(tmp_path: Path) -> Path:
    """Every kind of file a walk meets, and enough of them for many messages."""
    root = tmp_path / "varied"
    (root / ".git").mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\n/build\n!keep.log\n")
    files: dict[str, bytes] = {
        "a.txt": b"alpha\n",
        "crlf.md": b"# b\r\nline\r\n",
        "blob.dat": b"da\x00ta",
        "latin.txt": "café\n".encode("latin-1"),
        "logo.png": PNG,
        "icon.svg": b"<svg/>\n",
        "long.txt": b"x" * 2500 + b"\nshort\n",
        "many-lines.txt": b"line\n" * 2100,
        "big.txt": b"0123456789abcdef\n" * 20000,  # over 256 KB: read as a stream
        "empty.txt": b"",
        "x.log": b"ignored\n",
        "keep.log": b"kept\n",
        "build/out.txt": b"ignored directory\n",
        "node_modules/m.js": b"excluded\n",
        "sub/deep/é.txt": b"accents\n",
        "sub/emoji-\U0001f600.txt": b"astral name\n",
    }
    for index in range(300):
        files[f"gen/d{index % 7}/f{index:03d}.py"] = f"print({index})\n".encode() * (index % 40)
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    os.mkfifo(root / "pipe")
    os.symlink("/etc/hostname", root / "outside-link")
    os.symlink("missing-target", root / "dangling")
    return root


def _run(
    root: Path, *, json_mode: bool, absolute: bool = False, listed: bool = False
) -> tuple[str, Any]:
    """Glob `root` by patterns, or (`listed`) by every path below it, as `--stdin` does."""
    stream = io.BytesIO()
    sink = Sink(stream, json_mode=json_mode)
    if listed:
        paths = sorted(
            os.path.relpath(os.path.join(top, name), root)
            for top, dirs, names in os.walk(root)
            for name in [*names, *dirs]
        )
        request = GlobRequest(
            patterns=(), literal_paths=(*paths, "missing.txt"), root=str(root), absolute=absolute
        )
    else:
        request = GlobRequest(patterns=("**", "*.png"), root=str(root), absolute=absolute)
    outcome = run_glob(request, sink)
    sink.finish(outcome.details, list(outcome.attachments))
    return stream.getvalue().decode("utf-8", "surrogateescape"), outcome


def _summary(outcome: Any) -> tuple[Any, ...]:
    return (
        outcome.exit_code,
        outcome.problems,
        outcome.notices,
        outcome.details,
        dict(outcome.stats.counts),
        outcome.stats.largest_files(),
    )


# How the work is split: never read ahead, always read ahead, as it comes.
SPLITS = {"never": 10**9, "always": -1, "adaptive": lookahead._LAG}


@pytest.mark.parametrize("split", sorted(SPLITS))
@pytest.mark.parametrize("json_mode", [False, True])
@pytest.mark.parametrize("absolute", [False, True])
@pytest.mark.parametrize("listed", [False, True])
def test_the_helper_gives_the_output_of_one_process(
    varied: Path,
    split: str,
    json_mode: bool,
    absolute: bool,
    listed: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    how = {"json_mode": json_mode, "absolute": absolute, "listed": listed}
    monkeypatch.setenv("READMANY_PROCESSES", "1")
    alone = _run(varied, **how)
    monkeypatch.setenv("READMANY_PROCESSES", "2")
    monkeypatch.setattr(lookahead, "_LAG", SPLITS[split])  # the helper is forked with it
    monkeypatch.setattr(lookahead, "_EVENTS_A_MESSAGE", 5)
    helped = _run(varied, **how)
    assert helped[0] == alone[0]
    assert _summary(helped[1]) == _summary(alone[1])
    assert "big.txt ---" in alone[0] or 'big.txt"' in alone[0]
    assert alone[1].exit_code == 1  # the FIFO and the dangling link
    assert "logo.png" in alone[0]  # requested: by `*.png`, or named on the list


@pytest.mark.parametrize("split", sorted(SPLITS))
@pytest.mark.parametrize("planned", ["stats", "budget", "stats and budget"])
def test_the_helper_measures_and_reads_ahead_for_a_plan_as_one_process_does(
    varied: Path, split: str, planned: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readmany.commands import glob_plan
    from readmany.faces import Face

    fields: dict[str, Any] = {
        "stats": {"stats": True},
        "budget": {"max_bytes": 20_000},
        "stats and budget": {"stats": True, "max_bytes": 20_000},
    }[planned]
    request = GlobRequest(patterns=("**",), root=str(varied), face=Face.people(), **fields)

    def run() -> tuple[bytes, Any]:
        stream = io.BytesIO()
        sink = Sink(stream, json_mode=True)  # the stats tree and the packing, as data too
        runner = glob_plan.run_stats if request.stats else glob_plan.run_planned
        outcome = runner(request, sink)
        sink.finish(outcome.details, list(outcome.attachments))
        return stream.getvalue(), outcome

    monkeypatch.setenv("READMANY_PROCESSES", "1")
    alone = run()
    monkeypatch.setenv("READMANY_PROCESSES", "2")
    monkeypatch.setattr(lookahead, "_LAG", SPLITS[split])
    monkeypatch.setattr(lookahead, "_EVENTS_A_MESSAGE", 5)
    helped = run()
    assert helped[0] == alone[0]
    assert _summary(helped[1]) == _summary(alone[1])
    assert ("stats" in alone[1].details) == ("stats" in planned)
    assert ("packing" in alone[1].details) == ("budget" in planned)


@pytest.mark.parametrize("head", [1, 3, 7])
@pytest.mark.parametrize("listed", [False, True])
def test_a_helper_forked_during_the_walk_gives_the_output_of_one_process(
    varied: Path, head: int, listed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READMANY_PROCESSES", "1")
    alone = _run(varied, json_mode=False, listed=listed)
    monkeypatch.delenv("READMANY_PROCESSES")
    monkeypatch.setattr(lookahead, "_use_helper", lambda: 1)  # as on a machine of two CPUs
    monkeypatch.setattr(lookahead, "_HEAD", head)
    monkeypatch.setattr(lookahead, "_EVENTS_A_MESSAGE", 2)
    forked: list[lookahead.Selection] = []
    real_open = glob_request.open_selection

    def recording(request: GlobRequest) -> lookahead.Selection:
        forked.append(real_open(request))
        return forked[-1]

    monkeypatch.setattr(glob_command, "open_selection", recording)
    helped = _run(varied, json_mode=False, listed=listed)
    assert isinstance(forked[0], lookahead.Helper)  # the walk went on in the helper
    assert helped[0] == alone[0]
    assert _summary(helped[1]) == _summary(alone[1])


def test_a_short_walk_stays_in_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for index in range(lookahead._HEAD - 1):
        (tmp_path / f"f{index:03d}.txt").write_text(f"{index}\n")
    monkeypatch.delenv("READMANY_PROCESSES", raising=False)
    monkeypatch.setattr(lookahead, "_use_helper", lambda: 1)
    request = GlobRequest(patterns=("**",), root=str(tmp_path))
    with glob_request.open_selection(request) as selection:
        assert isinstance(selection, lookahead.InProcess)
        assert len(list(selection)) == lookahead._HEAD - 1
    (tmp_path / "one-more.txt").write_text("x\n")
    with glob_request.open_selection(request) as selection:
        assert isinstance(selection, lookahead.Helper)
        assert len(list(selection)) == lookahead._HEAD


def test_two_processes_are_used_where_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    request = GlobRequest(patterns=("*.nothing",))
    monkeypatch.setenv("READMANY_PROCESSES", "2")
    with glob_request.open_selection(request) as selection:
        assert isinstance(selection, lookahead.Helper)
        assert list(selection) == []
    monkeypatch.setenv("READMANY_PROCESSES", "1")
    with glob_request.open_selection(request) as selection:
        assert isinstance(selection, lookahead.InProcess)


def test_a_large_read_ahead_is_sent_in_bounded_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for index in range(12):
        (tmp_path / f"f{index:02d}.txt").write_bytes((b"z" * 49 + b"\n") * 1999)  # 100 KB
    sizes: list[int] = []
    real_loads = transfer.unpack_result

    def counting(packed: tuple[Any, ...]) -> Any:
        sizes.append(len(packed[2]))
        return real_loads(packed)

    monkeypatch.setenv("READMANY_PROCESSES", "2")
    monkeypatch.setattr(lookahead, "_LAG", -1)
    monkeypatch.setattr(transfer, "unpack_result", counting)
    messages: list[int] = []
    real_receive = lookahead.Helper._receive

    def receive(self: lookahead.Helper) -> Any:
        message = real_receive(self)
        if message[0] == "items":
            read = [transfer.packed_size(item[1]) for item in message[1] if len(item) > 1]
            messages.append(sum(read))
        return message

    monkeypatch.setattr(lookahead.Helper, "_receive", receive)
    _, outcome = _run(tmp_path, json_mode=False)
    assert outcome.stats.counts["read"] == 12
    assert len(sizes) == 12  # every file was read by the helper
    assert len(messages) >= 3
    assert max(messages) <= lookahead._MESSAGE_BYTES + max(sizes)


def test_a_bad_pattern_is_a_usage_error_from_either_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for processes in ("1", "2"):
        monkeypatch.setenv("READMANY_PROCESSES", processes)
        with pytest.raises(UsageError, match="empty pattern"):
            _run_patterns(tmp_path, "")
    outputs = []
    for processes in ("1", "2"):
        env = {**os.environ, "READMANY_PROCESSES": processes}
        done = run_readmany(
            ["glob", "--compat", "*.txt", "--exclude", "x", ""], cwd=tmp_path, env=env
        )
        outputs.append((done.returncode, done.stdout, done.stderr))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == 2
    assert outputs[0][1] == b""
    assert outputs[0][2].count(b"\n") == 1


def _run_patterns(root: Path, *patterns: str) -> Any:
    request = GlobRequest(patterns=patterns, root=str(root))
    return run_glob(request, Sink(io.BytesIO(), json_mode=False))


def test_an_error_in_the_helper_is_raised_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(request: Any, send: Any, finished: Any, started: Any) -> None:
        send(("root", str(tmp_path)))
        raise ValueError("boom")

    monkeypatch.setenv("READMANY_PROCESSES", "2")
    monkeypatch.setattr(lookahead, "_walk", failing)
    with pytest.raises(RuntimeError, match="in the walking process: ValueError: boom"):
        _run_patterns(tmp_path, "**")


def test_a_helper_that_dies_is_reported_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def dying(request: Any, send: Any, finished: Any, started: Any) -> None:
        send(("root", str(tmp_path)))
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setenv("READMANY_PROCESSES", "2")
    monkeypatch.setattr(lookahead, "_walk", dying)
    with pytest.raises(RuntimeError, match=r"ended without finishing \(killed by signal 9\)"):
        _run_patterns(tmp_path, "**")


def _processes_in(directory: Path) -> list[int]:
    """The processes whose working directory is `directory`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry}/cwd") == str(directory):
                found.append(int(entry))
        except OSError:
            continue
    return found


def _wait_until(condition: Any, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


@pytest.fixture
def wide(tmp_path: Path) -> Path:
    """Enough output to fill a pipe nobody reads, so a run is still going when stopped;
    enough files that the helper still walks once the main process blocks, on a busy
    machine too (with 2,000, it could finish first and leave one process to see)."""
    root = tmp_path / "wide"
    for d in range(80):
        folder = root / f"d{d:02d}"
        folder.mkdir(parents=True)
        for i in range(100):
            (folder / f"f{i:03d}.txt").write_bytes(b"w" * 200 + b"\n")
    return root


def _running_with_its_helper(wide: Path) -> subprocess.Popen[bytes]:
    """`readmany glob '**'` in `wide`, once it has written and both its processes run."""
    process = subprocess.Popen(
        [*readmany_command(), "glob", "**"],
        cwd=wide,
        env={**os.environ, "READMANY_PROCESSES": "2"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a shell gives a job
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(1000)  # it writes, then blocks on the full pipe
    assert _wait_until(lambda: len(_processes_in(wide)) == 2)
    return process


NEEDS_PROC = pytest.mark.skipif(
    not os.path.isdir("/proc/self"), reason="needs /proc to find processes"
)


@pytest.mark.smoke
@NEEDS_PROC
def test_a_closed_stdout_ends_both_processes_quietly(wide: Path) -> None:
    process = _running_with_its_helper(wide)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    assert process.wait(timeout=30) == 0
    assert process.stderr.read() == b""
    assert _wait_until(lambda: _processes_in(wide) == [])


@pytest.mark.smoke
@NEEDS_PROC
def test_ctrl_c_ends_both_processes_with_one_line(wide: Path) -> None:
    process = _running_with_its_helper(wide)
    assert process.stdout is not None and process.stderr is not None
    os.killpg(process.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
    process.stdout.read()
    assert process.wait(timeout=30) == 130
    assert process.stderr.read() == b"readmany: interrupted\n"
    assert _wait_until(lambda: _processes_in(wide) == [])


@pytest.mark.parametrize("failing", ["fork", "pipe"])
def test_without_a_process_or_a_pipe_the_walk_runs_here(
    varied: Path, failing: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READMANY_PROCESSES", "1")
    alone = _run(varied, json_mode=False)

    def refuse(*args: Any) -> Any:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setenv("READMANY_PROCESSES", "2")
    monkeypatch.setattr(os, failing, refuse)
    request = GlobRequest(patterns=("*.txt",), root=str(varied))
    with glob_request.open_selection(request) as selection:
        assert isinstance(selection, lookahead.InProcess)
    text, outcome = _run(varied, json_mode=False)
    assert text == alone[0]
    assert _summary(outcome) == _summary(alone[1])


def test_files_named_exactly_are_read_without_a_helper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readmany.commands.glob_request import open_selection
    from readmany.request.glob import GlobRequest
    from readmany.select.lookahead import InProcess

    monkeypatch.delenv("READMANY_PROCESSES", raising=False)
    monkeypatch.setattr(lookahead, "_use_helper", lambda: 1)  # as on a machine of two CPUs
    (tmp_path / "a.txt").write_text("a\n")
    named = GlobRequest(patterns=("a.txt",), root=str(tmp_path))
    with open_selection(named) as selection:
        assert isinstance(selection, InProcess)
    listed = GlobRequest(patterns=(), literal_paths=("a.txt",) * 3, root=str(tmp_path))
    with open_selection(listed) as selection:
        assert isinstance(selection, InProcess)


def test_staged_files_in_one_process_and_two_agree(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    for n in range(80):  # more than one message's batch
        (tmp_path / f"f{n:02d}.txt").write_text(f"staged {n}\n")
    git("add", "-A")
    (tmp_path / "f00.txt").write_text("changed after staging\n")
    outputs = []
    for processes in ("1", "2"):
        env = {**os.environ, "READMANY_PROCESSES": processes}
        done = run_readmany(["glob", "--staged", "--json"], cwd=tmp_path, env=env)
        outputs.append((done.returncode, done.stdout, done.stderr))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == 0
    assert b"--- f00.txt ---\\n\\nstaged 0\\n" in outputs[0][1]
