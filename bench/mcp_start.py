"""What `readmany mcp` costs an agent: its start, and a one-file `read_many` after it.

Starts the server on a small root, speaks the protocol over its pipes (newline-delimited
JSON-RPC, as an MCP client does) and prints, over the rounds, the best and the median of:
the start (spawn to the answers of `initialize` and `tools/list`, what a client waits for
before it can call a tool), one `read_many` of one file (request to answer; at once, and
0.5 s after, as a client's first call comes), and, for comparison, `readmany --version`
and `readmany many FILE` as whole runs.

    python bench/mcp_start.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

# A client's first call comes once its model has seen the tools: the server imports what
# the tools' first calls need meanwhile. Measured at once too, the worst case.
PAUSE = 0.5


def _command() -> list[str]:
    found = shutil.which("readmany", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "readmany"]


def _send(stream: IO[bytes], message: dict[str, Any]) -> None:
    stream.write(json.dumps(message).encode("utf-8") + b"\n")
    stream.flush()


def _answer(stream: IO[bytes], number: int) -> dict[str, Any]:
    while True:
        line = stream.readline()
        if not line:
            raise RuntimeError("the server closed its output")
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == number:
            return message


def one_round(root: Path, pause: float = 0.0) -> tuple[float, float, float]:
    """(start, read_many, the server's CPU time in all) in seconds, for one server: on a
    busy machine the wall times wait for a core, the CPU time does not."""
    started = time.perf_counter()
    server = subprocess.Popen(
        [*_command(), "mcp", "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        }
        _send(server.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        _answer(server.stdout, 1)
        _send(server.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(server.stdin, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        listed = _answer(server.stdout, 2)
        start = time.perf_counter() - started
        assert len(listed["result"]["tools"]) == 4, listed
        time.sleep(pause)
        asked = time.perf_counter()
        call = {"name": "read_many", "arguments": {"files": [{"path": "a.py"}]}}
        _send(server.stdin, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
        answer = _answer(server.stdout, 3)
        read = time.perf_counter() - asked
        assert not answer["result"].get("isError"), answer
    finally:
        server.stdin.close()
    _pid, _status, usage = os.wait4(server.pid, 0)
    server.returncode = 0  # reaped here, for its resource usage
    return start, read, usage.ru_utime + usage.ru_stime


def whole_run(args: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run([*_command(), *args], cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - started


def _line(label: str, values: list[float]) -> str:
    best, median = min(values) * 1000, statistics.median(values) * 1000
    return f"{label:<34} best {best:7.1f} ms   median {median:7.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        root = Path(os.path.realpath(directory))
        (root / "a.py").write_text("".join(f"line = {n}\n" for n in range(200)))
        one_round(root)  # compiled and cached once, as an installed package is
        rounds = [one_round(root) for _ in range(args.rounds)]
        paused = [one_round(root, PAUSE) for _ in range(args.rounds)]
        version = [whole_run(["--version"], root) for _ in range(args.rounds)]
        many = [whole_run(["many", "a.py"], root) for _ in range(args.rounds)]
    print(_line("readmany mcp: start to tools/list", [r[0] for r in rounds]))
    print(_line("readmany mcp: one-file read_many", [r[1] for r in rounds]))
    print(_line(f"  the same, {PAUSE} s after tools/list", [r[1] for r in paused]))
    print(_line("readmany mcp: CPU, start and the read", [r[2] for r in rounds]))
    print(_line("readmany --version", version))
    print(_line("readmany many a.py", many))
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
