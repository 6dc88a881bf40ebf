"""Bad input through the installed command: no hang, no traceback, one clear line, the
documented exit status, and every other file still in the output."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import readmany_command, run_readmany, run_unprivileged, unprivileged_prefix

TIMEOUT = 30


@pytest.fixture
def tree(shared_dir: Path) -> Iterator[Path]:
    (shared_dir / "good.txt").write_text("good\n")
    (shared_dir / "dir").mkdir()
    os.mkfifo(shared_dir / "fifo")
    os.symlink("loop_b", shared_dir / "loop_a")
    os.symlink("loop_a", shared_dir / "loop_b")
    os.symlink("nowhere", shared_dir / "dangling")
    (shared_dir / "invalid.txt").write_bytes(b"ok\n\xff\xfe bad\n")
    (shared_dir / "late_nul.txt").write_bytes(b"a" * 9000 + b"\x00tail\n")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(shared_dir / "sock"))
        yield shared_dir


def assert_clean(result: subprocess.CompletedProcess[bytes], status: int) -> None:
    assert result.returncode == status, result.stderr
    assert b"Traceback" not in result.stderr
    for line in result.stderr.decode().splitlines():
        assert line.startswith("readmany: "), line


# --- many ---------------------------------------------------------------------------------

# The read tool's errors, which many shows in a block and hashline on stderr.
READ_TOOL_ERRORS = {
    "missing.txt": "ENOENT: no such file or directory, access '{root}/missing.txt'",
    "dir": "EISDIR: illegal operation on a directory, read",
    "fifo": "Not a regular file (FIFO), refusing to read: {root}/fifo",
    "/dev/zero": "Not a regular file (character device), refusing to read: /dev/zero",
    "sock": "Not a regular file (socket), refusing to read: {root}/sock",
    "loop_a": "ELOOP: too many symbolic links encountered, access '{root}/loop_a'",
    "dangling": "ENOENT: no such file or directory, access '{root}/dangling'",
}
MANY_ERRORS = {
    **READ_TOOL_ERRORS,
    "good.txt/x": "ENOTDIR: not a directory, access '{root}/good.txt/x'",
}


@pytest.mark.parametrize("name", sorted(MANY_ERRORS))
def test_many_bad_file_gives_an_error_block_and_keeps_the_rest(tree: Path, name: str) -> None:
    result = run_readmany(["many", "--compat", name, "good.txt"], cwd=tree, timeout=TIMEOUT)
    assert_clean(result, 1)
    message = MANY_ERRORS[name].format(root=tree)
    assert f"[Error: {message}]".encode() in result.stdout
    assert b"\ngood\n" in result.stdout
    assert result.stderr == f"readmany: {name}: {message}\n".encode()


@pytest.mark.smoke
def test_many_unreadable_file(tree: Path) -> None:
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("root without setpriv/runuser: every file is readable")
    secret = tree / "secret.txt"
    secret.write_text("hidden\n")
    secret.chmod(0o000)
    result = run_unprivileged(prefix, ["many", "--compat", "secret.txt", "good.txt"], tree)
    assert_clean(result, 1)
    assert f"[Error: EACCES: permission denied, access '{secret}']".encode() in result.stdout
    assert b"\ngood\n" in result.stdout


def test_many_invalid_utf8_and_late_nul_are_read_as_text(tree: Path) -> None:
    result = run_readmany(
        ["many", "--compat", "invalid.txt", "late_nul.txt"], cwd=tree, timeout=TIMEOUT
    )
    assert_clean(result, 0)
    assert "ok\n\ufffd\ufffd bad\n".encode() in result.stdout
    assert b"\x00tail" in result.stdout


def test_many_huge_sparse_file_stays_bounded(tree: Path) -> None:
    sparse = tree / "sparse.bin"
    with open(sparse, "wb") as handle:
        handle.truncate(1 << 30)
    started = time.monotonic()
    result = run_readmany(
        ["many", "--compat", "sparse.bin", "good.txt", "--json"], cwd=tree, timeout=TIMEOUT
    )
    assert_clean(result, 0)
    assert b"[Line 1 is 1024.0MB, exceeds 50.0KB limit." in result.stdout
    assert time.monotonic() - started < TIMEOUT


def test_many_long_files(tree: Path) -> None:
    (tree / "lines.txt").write_text("".join(f"{n}\n" for n in range(100_000)))
    (tree / "wide.txt").write_text("w" * 10_000_000)
    result = run_readmany(["many", "--compat", "lines.txt:99999", "wide.txt", "good.txt"], cwd=tree)
    assert_clean(result, 0)
    assert b"\n99998\n99999\n\n" in result.stdout
    assert b"[Line 1 is 9.5MB, exceeds 50.0KB limit." in result.stdout


@pytest.mark.parametrize(
    "name", ["new\nline.txt", "co:lon.txt", "ha#sh.txt", "sp ace.txt", "ünï😀.txt", "-dash.txt"]
)
def test_many_odd_file_names(tree: Path, name: str) -> None:
    (tree / name).write_text("odd\n")
    result = run_readmany(["many", "--compat", "--", name, "good.txt"], cwd=tree)
    assert_clean(result, 0)
    assert b"\nodd\n" in result.stdout and b"\ngood\n" in result.stdout
    header = result.stdout.split(b"\n")[0].decode()
    assert header == ('@"new\\nline.txt"' if "\n" in name else f"@{name}")


def test_many_27_files_and_empty_request(tree: Path) -> None:
    assert_clean(run_readmany(["many", "--compat", *["good.txt"] * 27], cwd=tree), 2)
    empty = run_readmany(["many", "--compat", "--request", "-"], cwd=tree, stdin=b'{"files": []}')
    assert_clean(empty, 2)
    assert empty.stdout == b""


def _churn(path: Path, stop: threading.Event, grow: bool) -> None:
    while not stop.is_set():
        if grow:
            with open(path, "a") as handle:
                handle.write("more\n" * 1000)
            if path.stat().st_size > 20 << 20:  # start over, as a rotated log does
                path.write_text("start\n")
        else:
            path.write_text("short\n" if path.stat().st_size > 10 else "x\n" * 5000)
        time.sleep(0.0005)


# --- hashline -----------------------------------------------------------------------------

HASHLINE_ERRORS = {
    **READ_TOOL_ERRORS,
    "invalid.txt": "Cannot use hashline tools on invalid.txt: the file is not valid UTF-8.",
}


@pytest.mark.parametrize("name", sorted(HASHLINE_ERRORS))
def test_hashline_bad_file_is_one_line_and_exit_1(tree: Path, name: str) -> None:
    result = run_readmany(["hashline", "--compat", name], cwd=tree, timeout=TIMEOUT)
    assert_clean(result, 1)
    assert result.stdout == b""
    assert result.stderr == f"readmany: {HASHLINE_ERRORS[name].format(root=tree)}\n".encode()


@pytest.mark.parametrize(
    "args", [["--offset", "0"], ["--limit", "-1"], ["--offset", "x"], ["--offset", "9"]]
)
def test_hashline_bad_ranges(tree: Path, args: list[str]) -> None:
    result = run_readmany(["hashline", "--compat", "good.txt", *args], cwd=tree)
    expected = 1 if args == ["--offset", "9"] else 2
    assert_clean(result, expected)
    assert result.stdout == b""
    assert result.stderr.count(b"\n") == 1


def test_hashline_refuses_a_huge_file_at_once(tree: Path) -> None:
    sparse = tree / "sparse.bin"
    with open(sparse, "wb") as handle:
        handle.truncate(1 << 30)
    result = run_readmany(["hashline", "--compat", "sparse.bin"], cwd=tree, timeout=TIMEOUT)
    assert_clean(result, 1)
    assert result.stderr == (
        b"readmany: Cannot use hashline tools on sparse.bin: the file is 1024.0MB, "
        b"over the 32.0MB limit.\n"
    )


def test_hashline_anchors_a_file_just_under_the_limit(tree: Path) -> None:
    big = tree / "big.bin"
    with open(big, "wb") as handle:
        handle.truncate(4 << 20)  # 4 MiB of NULs: valid UTF-8, one long line
    result = run_readmany(["hashline", "--compat", "big.bin", "--json"], cwd=tree, timeout=TIMEOUT)
    assert_clean(result, 0)
    assert b"shown compactly" in result.stdout


# --- glob ---------------------------------------------------------------------------------


def _glob_json(
    args: list[str], cwd: Path, stdin: bytes | None = None
) -> tuple[int, dict[str, Any], bytes]:
    import json

    result = run_readmany(
        ["glob", "--compat", *args, "--json"], cwd=cwd, stdin=stdin, timeout=TIMEOUT
    )
    assert b"Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout), result.stderr


GLOB_FAILURES = {
    "fifo": "Read error: Not a regular file (FIFO): fifo",
    "sock": "Read error: Not a regular file (socket): sock",
    "loop_a": "Read error: Too many levels of symbolic links: loop_a",
    "dangling": "Read error: File not found: dangling",
}


@pytest.mark.parametrize("name", sorted(GLOB_FAILURES))
def test_glob_bad_file_is_reported_and_the_rest_read(tree: Path, name: str) -> None:
    status, report, stderr = _glob_json([name, "good.txt"], tree)
    assert status == 1
    assert report["details"]["files"] == ["good.txt"]
    assert report["details"]["skipped"] == [{"path": name, "reason": GLOB_FAILURES[name]}]
    assert stderr == f"readmany: {GLOB_FAILURES[name]}\n".encode()


def test_glob_devices_and_escapes_are_outside_the_root(tree: Path) -> None:
    status, report, _ = _glob_json(["--stdin"], tree, stdin=b"/dev/zero\n../x\ngood.txt\n")
    assert status == 0
    assert report["details"]["files"] == ["good.txt"]
    outside = "Security: Path not in workspace"
    depth = len(tree.parts) - 1
    assert report["details"]["skipped"] == [
        {"path": "../" * depth + "dev/zero", "reason": outside},
        {"path": "../x", "reason": outside},
    ]


def test_glob_links_leading_outside_are_refused(tree: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret\n")
    os.symlink(secret, tree / "out_link.txt")
    status, report, _ = _glob_json(["*.txt"], tree)
    assert status == 0
    assert {"path": "out_link.txt", "reason": "ignored: symlink target is outside the root"} in (
        report["details"]["skipped"]
    )
    assert "secret" not in report["content"]


@pytest.mark.smoke
def test_glob_unreadable_file(tree: Path) -> None:
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("root without setpriv/runuser: every file is readable")
    (tree / "secret.txt").write_text("hidden\n")
    (tree / "secret.txt").chmod(0o000)
    result = run_unprivileged(prefix, ["glob", "--compat", "secret.txt", "good.txt"], tree)
    assert_clean(result, 1)
    assert result.stderr == b"readmany: Read error: Permission denied: secret.txt\n"
    assert b"--- good.txt ---\n\ngood\n" in result.stdout


def test_glob_text_edge_cases(tree: Path) -> None:
    (tree / "early_nul.txt").write_bytes(b"a" * 100 + b"\x00tail\n")
    (tree / "lines.txt").write_text("".join(f"{n}\n" for n in range(100_000)))
    (tree / "wide.txt").write_text("w" * 10_000_000)
    with open(tree / "sparse.txt", "wb") as handle:
        handle.truncate(1 << 30)
    status, report, _ = _glob_json(["*.txt"], tree)
    assert status == 0
    read = {entry["path"]: entry for entry in report["details"]["read"]}
    assert read["invalid.txt"]["lossy"] is True
    assert read["late_nul.txt"]["truncated"] is True  # one 9000-character line, cut
    assert read["lines.txt"]["truncated"] is True and read["wide.txt"]["truncated"] is True
    skipped = {entry["path"]: entry["reason"] for entry in report["details"]["skipped"]}
    assert skipped["early_nul.txt"] == "binary file"
    assert skipped["sparse.txt"] == (
        "Read error: File size exceeds the 20MB limit: sparse.txt (1024.00MB)"
    )
    assert "\n1999\n\n" in report["content"] and "\n2000\n" not in report["content"]


@pytest.mark.parametrize(
    "name", ["new\nline.txt", "co:lon.txt", "ha#sh.txt", "sp ace.txt", "ünï😀.txt", "-dash.txt"]
)
def test_glob_odd_file_names(tree: Path, name: str) -> None:
    (tree / name).write_text("odd\n")
    result = run_readmany(["glob", "--compat", "--", name, "good.txt"], cwd=tree)
    assert_clean(result, 0)
    shown = '"new\\nline.txt"' if "\n" in name else name
    assert f"--- {shown} ---\n\nodd\n\n\n".encode() in result.stdout
    via_stdin = run_readmany(
        ["glob", "--compat", "--stdin", "-0"], cwd=tree, stdin=name.encode() + b"\0"
    )
    assert f"--- {shown} ---\n\nodd\n".encode() in via_stdin.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "no pattern given: name at least one PATTERN (or use --stdin, --staged, --changed)"),
        (
            [""],
            "empty pattern: '' names no file: give a path or a glob, such as a.txt, src/ "
            "or '**/*.py'",
        ),
        (["{1..2000}"], "pattern expands to more than 1000 alternatives: {1..2000}"),
        (["a", "--root", "missing-dir"], "--root 'missing-dir' is not a directory"),
    ],
)
def test_glob_usage_errors(tree: Path, args: list[str], message: str) -> None:
    result = run_readmany(["glob", "--compat", *args], cwd=tree)
    assert_clean(result, 2)
    assert result.stdout == b""
    assert result.stderr == f"readmany: {message}\n".encode()


# A process of its own: the test's writer thread would keep the walk from forking its
# helper in this one (readmany forks no process that has threads).
@pytest.mark.smoke
@pytest.mark.parametrize("grow", [True, False], ids=["growing", "shrinking"])
@pytest.mark.parametrize(
    ("args", "good"),
    [
        (["many", "--compat", "moving.txt", "good.txt"], b"\ngood\n"),
        (["glob", "--compat", "*.txt"], b"--- good.txt ---\n\ngood\n"),
    ],
    ids=["many", "glob"],
)
def test_file_changing_while_read(tree: Path, args: list[str], good: bytes, grow: bool) -> None:
    target = tree / "moving.txt"
    target.write_text("start\n" * 1000)
    stop = threading.Event()
    worker = threading.Thread(target=_churn, args=(target, stop, grow))
    worker.start()
    try:
        for _ in range(5):
            result = run_readmany(args, cwd=tree, timeout=TIMEOUT)
            assert_clean(result, 0)
            assert good in result.stdout
    finally:
        stop.set()
        worker.join()


# --- ordinary problems end as one line and exit 1 or 2, never 70 ---------------------------


@pytest.mark.smoke
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["glob", "--stdin"], "standard input is closed, and --stdin reads from it: give it input"),
        (["many", "--stdin"], "standard input is closed, and --stdin reads from it: give it input"),
        (
            ["many", "--request", "-"],
            "standard input is closed, and --request - reads from it: give it input",
        ),
    ],
)
def test_a_closed_stdin_is_a_usage_error(tmp_path: Path, args: list[str], message: str) -> None:
    result = subprocess.run(
        ["sh", "-c", 'exec "$0" "$@" <&-', *readmany_command(), *args],
        cwd=tmp_path,
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert_clean(result, 2)
    assert result.stderr == f"readmany: {message}\n".encode()


def test_deeply_nested_json_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text("[" * 100_000)
    result = run_readmany(["many", "--request", "deep.json"], cwd=tmp_path, timeout=TIMEOUT)
    assert_clean(result, 2)
    assert result.stderr == b"readmany: --request deep.json: nested too deeply to be a request\n"


@pytest.mark.smoke
@pytest.mark.parametrize("command", [["glob", "**"], ["many", "a.txt"]])
def test_a_deleted_working_directory_is_one_line(tmp_path: Path, command: list[str]) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    result = subprocess.run(
        [
            "sh",
            "-c",
            'cd "$1" && rmdir "$1" && shift && exec "$@"',
            "sh",
            str(gone),
            *readmany_command(),
            *command,
        ],
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert_clean(result, 2)
    assert result.stderr == (
        b"readmany: the current directory cannot be read: No such file or directory\n"
    )


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("", "-o: the file name is empty: give a file name, or leave out -o"),
        (".", "-o .: is a directory: give a file name"),
    ],
)
def test_a_bad_output_is_refused_before_any_work(tmp_path: Path, target: str, message: str) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    result = run_readmany(["glob", "a.txt", "-o", target], cwd=tmp_path, timeout=TIMEOUT)
    assert_clean(result, 2)
    assert result.stderr == f"readmany: {message}\n".encode()


@pytest.mark.parametrize("root", [".git", ".git/refs"])
def test_a_root_inside_git_is_refused(tmp_path: Path, root: str) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    result = run_readmany(["glob", "**", "--root", root], cwd=tmp_path, timeout=TIMEOUT)
    assert_clean(result, 2)
    assert result.stdout == b""
    assert b"is inside a .git directory: give the work tree's root" in result.stderr


@pytest.mark.parametrize("processes", ["1", "2"])
def test_any_depth_of_directories(tmp_path: Path, processes: str) -> None:
    directory = tmp_path
    for _ in range(1200):  # deeper than Python's recursion limit
        directory = directory / "d"
        os.mkdir(directory)
    (directory / "f.txt").write_text("deep\n")
    env = {**os.environ, "READMANY_PROCESSES": processes}
    walked = run_readmany(["glob", "**"], cwd=tmp_path, env=env, timeout=TIMEOUT)
    assert_clean(walked, 0)
    assert walked.stdout.endswith(b"/f.txt ---\n\ndeep\n\n\n\n--- End of content ---\n")
    rel = str((directory / "f.txt").relative_to(tmp_path))
    listed = run_readmany(["glob", "--stdin"], cwd=tmp_path, stdin=rel.encode(), env=env)
    assert listed.stdout == walked.stdout
    remove_deep(directory, tmp_path)


def remove_deep(bottom: Path, top: Path) -> None:
    """Remove a chain of directories bottom up (shutil.rmtree recurses once a level)."""
    for entry in bottom.iterdir():
        entry.unlink()
    while bottom != top:
        bottom.rmdir()
        bottom = bottom.parent


def test_a_procfs_file_of_size_zero_is_read_to_its_end() -> None:
    result = run_readmany(["glob", "status"], cwd="/proc/self", timeout=TIMEOUT)
    assert_clean(result, 0)
    assert result.stdout.startswith(b"--- status ---\n\nName:\t")
    assert b"\nPid:\t" in result.stdout


def test_a_lone_surrogate_in_a_request_path_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "req.json").write_text('{"files": [{"path": "\\ud800x"}]}')
    for face in ([], ["--compat"]):
        result = run_readmany(["many", *face, "--request", "req.json"], cwd=tmp_path)
        assert_clean(result, 2)
        assert b"holds a lone surrogate" in result.stderr


@pytest.mark.parametrize("command", [["glob", "a.txt"], ["many", "a.txt"]])
@pytest.mark.parametrize("flag", ["-0", "--null"])
def test_null_without_stdin_is_a_usage_error(tmp_path: Path, command: list[str], flag: str) -> None:
    """-0 says how --stdin's list is separated: alone it does nothing, so it is a mistake."""
    (tmp_path / "a.txt").write_text("a\n")
    result = run_readmany([*command, flag], cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    assert (
        result.stderr
        == b"readmany: -0 separates the paths of --stdin with NUL bytes: add --stdin\n"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["glob", "a.txt", "--max-lines", "1.5"], "--max-lines: give a whole number"),
        (["glob", "a.txt", "--max-lines", "0"], "--max-lines: give a number of at least 1"),
        (["hashline", "a.txt", "--offset", "0"], "--offset: give a number of at least 1"),
        (["hashline", "a.txt", "--limit", "x"], "--limit: give a whole number"),
    ],
)
def test_a_bad_number_is_said_in_plain_words(tmp_path: Path, args: list[str], said: str) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    result = run_readmany(args, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr.decode() == f"readmany: {said}\n"


EMPTY_PATH = "'': an empty argument names no file: give a file's path, such as a.txt or ./a.txt"


@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (["many", ""], 1, EMPTY_PATH),
        (["many", "a.txt", ""], 1, EMPTY_PATH),
        (["hashline", ""], 1, EMPTY_PATH),
        (
            ["glob", ""],
            2,
            "empty pattern: '' names no file: give a path or a glob, such as a.txt, src/ or "
            "'**/*.py'",
        ),
        (
            ["edit", "", "--delete", "1#abc"],
            2,
            "the target is empty: name the file as PATH#TAG, the tag from the @file line of "
            "`readmany hashline PATH`",
        ),
        (
            ["edit", "#AbCd1234", "--delete", "1#abc"],
            2,
            "'#AbCd1234' names no file before its tag: give PATH#TAG, as the @file line of "
            "`readmany hashline PATH` writes it",
        ),
        (
            ["many", "--request", ""],
            2,
            "--request '': an empty file name: give a file's path, or - for stdin",
        ),
        (
            ["edit", "a.txt#AbCd1234", "--replace", "1#abc", "--content-file", ""],
            2,
            "--content-file '': an empty file name: give a file's path, or - for stdin",
        ),
        # An empty variable in `--root "$DIR"` read the current directory in silence.
        (
            ["glob", "**", "--root", ""],
            2,
            "--root '' names no directory: give one, such as --root . or --root src",
        ),
        (
            ["glob", "**", "--exclude", ""],
            2,
            "--exclude '' names no pattern: give one, or leave --exclude out",
        ),
        (
            ["glob", "**", "--ignore-file", ""],
            2,
            "--ignore-file '' names no file: give one, or leave --ignore-file out",
        ),
        # ... and an empty --prefer kept nothing first, in silence.
        (
            ["glob", "**", "--max-tokens", "1k", "--prefer", ""],
            2,
            "--prefer '' names no pattern: give one, or leave --prefer out",
        ),
    ],
)
def test_an_empty_argument_is_said_to_name_nothing(
    tmp_path: Path, args: list[str], status: int, said: str
) -> None:
    """An empty path is not the current directory: no hint to read that directory."""
    (tmp_path / "a.txt").write_text("a\n")
    result = run_readmany(args, cwd=tmp_path)
    assert_clean(result, status)
    assert result.stderr.decode().splitlines()[-1] == f"readmany: {said}"
    assert b"glob ''" not in result.stdout + result.stderr
    if args[0] == "many":
        assert (f"[Error: {said}]".encode() in result.stdout) is (status == 1)
