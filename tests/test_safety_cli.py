"""The safety promises end to end, through the installed command: names cannot reach the
terminal raw, `-o` never replaces what it should write to and never reads its own file,
paths are literal."""

from __future__ import annotations

import os
import stat
import subprocess
import threading
from pathlib import Path

import pytest
from helpers import readmany_command, run_readmany

ESCAPE_NAME = "x\x1b]0;pwned\x07\x1b[2J.txt"


@pytest.mark.parametrize("dangling", [False, True], ids=["file", "dangling link"])
def test_escape_sequences_in_names_never_reach_stderr_raw(tmp_path: Path, dangling: bool) -> None:
    if dangling:
        os.symlink("nowhere", tmp_path / ESCAPE_NAME)
    else:
        (tmp_path / ESCAPE_NAME).write_bytes(b"\0binary")
    result = run_readmany(["glob", "*"], cwd=tmp_path)
    assert b"\x1b" not in result.stderr and b"\x07" not in result.stderr
    assert b"x\\u001b]0;pwned\\u0007\\u001b[2J.txt" in result.stderr


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["many", "a.txt"], "a.txt"),
        (["many", "./a.txt:1:1"], "./a.txt"),
        (["many", "--compat", "@a.txt"], "@a.txt"),  # the reference's rewriting, resolved
        (["many", "--stdin"], "a.txt"),
        (["many", "--request", "request.json"], "a.txt"),
        (["many", "--request", "request.json", "-o", "request.json"], "request.json"),
        (["hashline", "a.txt"], "a.txt"),
        (["hashline", "--compat", "link"], "link"),  # a link to it is the same file
        (["glob", "--compat", "a.txt"], "a.txt"),
        (["glob", "--stdin"], "a.txt"),
    ],
)
def test_no_command_overwrites_a_file_it_is_asked_to_read(
    tmp_path: Path, args: list[str], named: str
) -> None:
    """`-o` naming an input is a usage error, before anything is read or written: the run
    would replace the file with its own dump."""
    (tmp_path / "a.txt").write_text("source\n")
    os.symlink("a.txt", tmp_path / "link")
    (tmp_path / "request.json").write_text('{"files": [{"path": "a.txt"}]}')
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    command = args if "-o" in args else [*args, "-o", "a.txt"]
    target = command[command.index("-o") + 1]
    result = run_readmany(command, cwd=tmp_path, stdin=b"a.txt\n")
    assert result.returncode == 2, result.stderr
    assert result.stdout == b""
    assert result.stderr.decode() == (
        f"readmany: -o {target}: that file is also named as input ({named}); "
        "write the output elsewhere\n"
    )
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_output_beside_the_inputs_is_written(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("source\n")
    for args in (["many", "a.txt"], ["hashline", "a.txt"], ["glob", "--compat", "a.txt"]):
        result = run_readmany([*args, "-o", "out.txt"], cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert b"source" in (tmp_path / "out.txt").read_bytes()
    assert (tmp_path / "a.txt").read_text() == "source\n"


def test_output_to_a_device_writes_it_and_leaves_it_a_device(tmp_path: Path) -> None:
    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a /dev/null of our own
    (tmp_path / "a.txt").write_text("a\n")
    result = run_readmany(["glob", "a.txt", "-o", str(device)], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISCHR(device.stat().st_mode)
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "null"]  # no temporary file left


@pytest.mark.smoke  # a process of its own: the reader is a thread of this one
def test_output_to_a_fifo_is_written_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "a.txt").write_text("a\n")
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = run_readmany(["glob", "a.txt", "-o", str(fifo)], cwd=tmp_path, timeout=30)
    reader.join(timeout=30)
    assert result.returncode == 0, result.stderr
    assert received == [b"--- a.txt ---\n\na\n\n\n\n--- End of content ---\n"]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_output_through_a_planted_link_is_refused(tmp_path: Path) -> None:
    """A repository that plants `context.txt -> ../../.ssh/authorized_keys` cannot have
    `glob . -o context.txt` write there, whether the target exists or not."""
    victim = tmp_path / "home" / "authorized_keys"
    victim.parent.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "key.pub").write_text("ssh-ed25519 AAAA attacker\n")
    os.symlink("../home/authorized_keys", repo / "context.txt")
    for there in (False, True):  # the target missing, then there
        if there:
            victim.write_text("mine\n")
        result = run_readmany(["glob", ".", "-o", "context.txt"], cwd=repo)
        assert result.returncode == 2 and result.stdout == b""
        assert b"is a symbolic link (to ../home/authorized_keys)" in result.stderr
        assert victim.exists() == there
    assert victim.read_text() == "mine\n"
    assert (repo / "context.txt").is_symlink()


@pytest.mark.parametrize("processes", ["1", "2"])
def test_the_output_and_its_temporary_file_are_never_read(tmp_path: Path, processes: str) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    env = {**os.environ, "READMANY_PROCESSES": processes}
    for _ in range(2):
        result = run_readmany(["glob", "**", "-o", "ctx.txt"], cwd=tmp_path, env=env)
        assert result.returncode == 0, result.stderr
    dump = (tmp_path / "ctx.txt").read_bytes()
    assert dump == b"--- a.txt ---\n\na\n\n\n\n--- End of content ---\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "ctx.txt"]


def test_a_file_named_like_a_home_path_is_that_file(tmp_path: Path) -> None:
    (tmp_path / "~").mkdir()
    (tmp_path / "~" / "note.txt").write_text("in the repository\n")
    listed = run_readmany(["many", "--stdin"], cwd=tmp_path, stdin=b"~/note.txt\n")
    assert b"in the repository" in listed.stdout
    named = run_readmany(["many", "~/note.txt"], cwd=tmp_path, env={**os.environ, "HOME": "/"})
    assert b"in the repository" in named.stdout


@pytest.mark.smoke
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(
    "args",
    [["many", "a.txt"], ["glob", "a.txt"], ["glob", "a.txt", "--json"], ["hashline", "a.txt"]],
)
@pytest.mark.parametrize("to", ["stdout", "-o"])
def test_a_full_disk_is_said_in_one_line_not_a_bug(
    tmp_path: Path, args: list[str], to: str
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    if to == "-o":
        result = run_readmany([*args, "-o", "/dev/full"], cwd=tmp_path)
        where = "-o /dev/full"
    else:
        with open("/dev/full", "wb") as full:
            result = subprocess.run(
                [*readmany_command(), *args], cwd=tmp_path, stdout=full, stderr=subprocess.PIPE
            )
        where = "standard output"
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"readmany: {where}: cannot write the output: no space left on device\n"
    )


@pytest.mark.parametrize("name", [".env", ".env.local", "id_rsa", "server.pem", "innocent.txt"])
def test_many_never_reads_a_secret_file_by_name(tmp_path: Path, name: str) -> None:
    """Its error block says why; the other files are read; exit status 1."""
    (tmp_path / ".env").write_text("TOKEN=hunter2\n")
    (tmp_path / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (tmp_path / "server.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    (tmp_path / ".env.local").write_text("TOKEN=hunter2\n")
    (tmp_path / "a.txt").write_text("plain\n")
    os.symlink(".env", tmp_path / "innocent.txt")
    result = run_readmany(["many", name, "a.txt"], cwd=tmp_path)
    assert result.returncode == 1
    assert b"hunter2" not in result.stdout and b"BEGIN" not in result.stdout
    assert b"plain\n" in result.stdout
    line = result.stderr.decode().splitlines()[0]
    assert line.startswith(f"readmany: {name}: not read: a secret file (")
    assert f"[Error: {line.removeprefix('readmany: ')}]" in result.stdout.decode()
    via_stdin = run_readmany(["many", "--stdin"], cwd=tmp_path, stdin=f"{name}\n".encode())
    assert via_stdin.returncode == 1 and b"hunter2" not in via_stdin.stdout


@pytest.mark.parametrize("name", [".env", ".env.local", "id_rsa", "server.pem", "innocent.txt"])
def test_hashline_never_reads_a_secret_file_by_name(tmp_path: Path, name: str) -> None:
    """As glob refuses them wherever the name comes from; a link to one too. --compat
    keeps the reference, which reads any file it is given."""
    (tmp_path / ".env").write_text("TOKEN=hunter2\n")
    (tmp_path / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (tmp_path / "server.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    (tmp_path / ".env.local").write_text("TOKEN=hunter2\n")
    os.symlink(".env", tmp_path / "innocent.txt")
    result = run_readmany(["hashline", name], cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, b"")
    assert result.stderr.decode().startswith(f"readmany: {name}: not read: a secret file (")
    assert result.stderr.decode().endswith("), which readmany never reads\n")
    compat = run_readmany(["hashline", "--compat", ".env"], cwd=tmp_path)
    assert compat.returncode == 0 and b"hunter2" in compat.stdout


@pytest.mark.parametrize("args", [["glob", "nomatch*"], ["glob", "--stdin"], ["glob", "bin.dat"]])
def test_a_run_that_writes_nothing_and_fails_keeps_the_last_dump(
    tmp_path: Path, args: list[str]
) -> None:
    (tmp_path / "ctx.txt").write_text("the last good dump\n")
    (tmp_path / "bin.dat").write_bytes(b"\0\1\2")
    result = run_readmany([*args, "-o", "ctx.txt"], cwd=tmp_path)
    assert result.returncode == 1
    assert (tmp_path / "ctx.txt").read_text() == "the last good dump\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin.dat", "ctx.txt"]  # no temp file
    report = run_readmany([*args, "-o", "ctx.txt", "--json"], cwd=tmp_path)
    assert report.returncode == 1  # the details of what went wrong are written
    assert (tmp_path / "ctx.txt").read_text().startswith('{"content": ""')


def test_output_through_a_planted_directory_link_or_a_missing_one_is_refused(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "autostart"
    outside.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("a\n")
    os.symlink("../autostart", repo / "out")
    planted = run_readmany(["glob", "a.txt", "-o", "out/context.md"], cwd=repo)
    assert planted.returncode == 2 and planted.stdout == b""
    assert b"out is a symbolic link (to ../autostart)" in planted.stderr
    assert list(outside.iterdir()) == []
    dotted = run_readmany(["many", "a.txt", "-o", "missing/../a.txt"], cwd=repo)
    assert dotted.returncode == 2
    assert (repo / "a.txt").read_text() == "a\n"


@pytest.mark.smoke
def test_output_to_dev_stdout_writes_where_stdout_goes(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    with open(tmp_path / "log.txt", "wb") as log:
        log.write(b"before\n")
    with open(tmp_path / "log.txt", "ab") as log:
        done = subprocess.run(
            [*readmany_command(), "glob", "a.txt", "-o", "/dev/stdout"],
            cwd=tmp_path,
            stdout=log,
            stderr=subprocess.PIPE,
        )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "log.txt").read_bytes().startswith(b"before\n--- a.txt ---\n")
    piped = run_readmany(["glob", "a.txt", "-o", "/dev/stdout"], cwd=tmp_path)
    assert piped.returncode == 0 and piped.stdout.startswith(b"--- a.txt ---\n")


def test_credentials_files_are_secret_files_everywhere(tmp_path: Path) -> None:
    """An .npmrc or .pypirc that holds a token: many and hashline refuse it as glob does,
    and a diff does not show its lines, with --secrets or without."""
    token = "npm_abcdefghijklmnopqrstuvwxyz0123456789"
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    ident = ["-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, env=env)
    (tmp_path / "a.txt").write_text("a\n")
    subprocess.run(["git", *ident, "add", "a.txt"], cwd=tmp_path, check=True, env=env)
    subprocess.run(["git", *ident, "commit", "-qm", "i"], cwd=tmp_path, check=True, env=env)
    (tmp_path / ".npmrc").write_text(f"//registry.npmjs.org/:_authToken={token}\n")
    (tmp_path / ".pypirc").write_text("[pypi]\nusername = me\npassword = hunter2hunter2\n")
    subprocess.run(["git", "add", ".npmrc", ".pypirc"], cwd=tmp_path, check=True, env=env)
    for name in (".npmrc", ".pypirc"):
        for command in (["many", name], ["hashline", name]):
            result = run_readmany(command, cwd=tmp_path)
            assert result.returncode == 1
            assert token.encode() not in result.stdout and b"hunter2" not in result.stdout
            assert (
                f"readmany: {name}: not read: a secret file (it holds a token or password)"
            ).encode() in result.stderr
    for secrets in ([], ["--secrets", "redact"]):
        dump = run_readmany(["glob", "--staged", "--with-diff", *secrets], cwd=tmp_path)
        assert token.encode() not in dump.stdout and b"hunter2" not in dump.stdout
    (tmp_path / ".npmrc").write_text("registry=https://registry.example\n")
    plain = run_readmany(["hashline", ".npmrc"], cwd=tmp_path)
    assert plain.returncode == 0 and b"registry.example" in plain.stdout


def test_credentials_files_under_other_names_are_refused_too(tmp_path: Path) -> None:
    """.NPMRC (which a case-folding file system opens as .npmrc), a trailing dot, or a link
    under another name: the token is never shown."""
    token = "npm_abcdefghijklmnopqrstuvwxyz0123456789"
    (tmp_path / ".npmrc").write_text(f"//registry.npmjs.org/:_authToken={token}\n")
    (tmp_path / ".NPMRC").write_text(f"//registry.npmjs.org/:_authToken={token}\n")
    (tmp_path / ".npmrc.").write_text(f"//registry.npmjs.org/:_authToken={token}\n")
    os.symlink(".npmrc", tmp_path / "lnk")
    for name in (".NPMRC", ".npmrc.", "lnk"):
        for command in (["many", name], ["hashline", name]):
            result = run_readmany(command, cwd=tmp_path)
            assert result.returncode == 1 and token.encode() not in result.stdout
    walk = run_readmany(["glob", "."], cwd=tmp_path)
    assert token.encode() not in walk.stdout
    assert b"skipped (secret file)" in walk.stderr


def test_output_under_dev_shm_is_a_file_like_any_other(tmp_path: Path) -> None:
    """Only the system's own links (/dev/stdout, /dev/fd/N) are followed and appended to:
    a file under /dev/shm is replaced, and a link there is refused."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("needs a writable /dev/shm")
    (tmp_path / "a.txt").write_text("a\n")
    target = shm / f"readmany-test-{os.getpid()}.txt"
    link = shm / f"readmany-test-{os.getpid()}.lnk"
    victim = tmp_path / "victim.txt"
    victim.write_text("victim\n")
    try:
        for _ in range(2):
            result = run_readmany(["glob", "a.txt", "-o", str(target)], cwd=tmp_path)
            assert result.returncode == 0, result.stderr
        assert target.read_text().count("--- a.txt ---") == 1  # replaced, not appended to
        os.symlink(victim, link)
        refused = run_readmany(["glob", "a.txt", "-o", str(link)], cwd=tmp_path)
        assert refused.returncode == 2 and victim.read_text() == "victim\n"
    finally:
        target.unlink(missing_ok=True)
        link.unlink(missing_ok=True)
