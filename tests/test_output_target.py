"""The `-o` target: what it refuses up front, and what it writes, replaces, or leaves alone."""

from __future__ import annotations

import errno
import os
import resource
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from readmany.emit import target as target_module
from readmany.emit.target import OutputError, check_output, open_output, refuse_as_input
from readmany.errors import UsageError


@pytest.fixture(autouse=True)
def _umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def _write(path: str, data: bytes) -> target_module.OutputTarget:
    out = open_output(path)
    out.stream.write(data)
    out.commit()
    return out


def _names(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))


# -- refused before any work --


def test_empty_name_is_a_usage_error() -> None:
    with pytest.raises(UsageError) as caught:
        check_output("")
    assert str(caught.value) == "-o: the file name is empty: give a file name, or leave out -o"


def test_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        check_output(str(tmp_path))
    assert str(caught.value) == f"-o {tmp_path}: is a directory: give a file name"
    assert _names(tmp_path) == []


def test_a_name_ending_in_a_slash_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        check_output(f"{tmp_path}/new/")
    assert str(caught.value) == f"-o {tmp_path}/new/: is a directory name: give a file name"


def test_a_link_to_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "link").symlink_to("d")
    with pytest.raises(UsageError, match=r": is a symbolic link \(to d\): "):
        check_output(str(tmp_path / "link"))


def test_a_missing_directory_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        check_output(f"{tmp_path}/missing/out.txt")
    assert str(caught.value) == (
        f"-o {tmp_path}/missing/out.txt: no such directory: {tmp_path}/missing"
    )


def test_a_socket_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(path))
        with pytest.raises(UsageError) as caught:
            check_output(str(path))
    assert str(caught.value) == (
        f"-o {path}: is a socket: readmany writes files, FIFOs and devices"
    )


def test_a_link_loop_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(UsageError) as caught:
        check_output(str(tmp_path / "a"))
    assert str(caught.value) == f"-o {tmp_path}/a: too many levels of symbolic links"


# -- regular files --


def test_a_new_file_gets_the_umask_mode_and_no_temporary_file_stays(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    _write(str(path), b"hello\n")
    assert path.read_bytes() == b"hello\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert _names(tmp_path) == ["out.txt"]


def test_an_existing_0600_file_keeps_0600(tmp_path: Path) -> None:
    path = tmp_path / "private.txt"
    path.write_bytes(b"old")
    path.chmod(0o600)
    before = path.stat().st_ino
    _write(str(path), b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.stat().st_ino != before  # replaced, atomically, not rewritten in place
    assert _names(tmp_path) == ["private.txt"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file away")
def test_an_existing_file_keeps_its_owner(tmp_path: Path) -> None:
    path = tmp_path / "theirs.txt"
    path.write_bytes(b"old")
    os.chown(path, 1234, 2345)
    path.chmod(0o640)
    _write(str(path), b"new")
    st = path.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1234, 2345, 0o640)


def test_the_temporary_file_is_known_while_writing(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_bytes(b"old")
    out = open_output(str(path))
    assert out.temp_path is not None
    assert os.path.dirname(out.temp_path) == str(tmp_path)
    temp = os.stat(out.temp_path)
    old = path.stat()
    assert out.identities() == {(temp.st_dev, temp.st_ino), (old.st_dev, old.st_ino)}
    assert out.is_output(temp) and out.is_output(old)
    assert out.paths() == {out.temp_path, str(path)}
    assert not out.is_output(tmp_path.stat())
    assert stat.S_IMODE(temp.st_mode) == 0o600  # nobody else reads it while it is written
    out.discard()
    assert _names(tmp_path) == ["out.txt"]
    assert path.read_bytes() == b"old"


def test_a_name_of_250_bytes_is_written(tmp_path: Path) -> None:
    """The temporary file beside it takes part of the name only: NAME_MAX is 255."""
    name = "c" * 246 + ".txt"
    _write(str(tmp_path / name), b"dump")
    assert _names(tmp_path) == [name]
    assert (tmp_path / name).read_bytes() == b"dump"


def test_a_link_planted_at_the_temporary_name_is_not_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"untouched")
    draws = iter([b"\x01" * 6, b"\x02" * 6])
    monkeypatch.setattr(os, "urandom", lambda n: next(draws))
    (tmp_path / f".out.txt.{'01' * 6}.tmp").symlink_to(victim)
    _write(str(tmp_path / "out.txt"), b"data")
    assert victim.read_bytes() == b"untouched"
    assert (tmp_path / "out.txt").read_bytes() == b"data"


# -- links, FIFOs, devices --


@pytest.mark.parametrize("target", ["real.txt", "sub/made.txt", "../outside.txt"])
def test_a_link_to_a_file_or_to_nothing_is_refused(tmp_path: Path, target: str) -> None:
    """A link planted in a repository (`context.txt -> ~/.bashrc`) must not have the
    dump replace, or create, a file where it leads."""
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "real.txt").write_bytes(b"old")
    link = work / "link.txt"
    link.symlink_to(target)
    with pytest.raises(UsageError) as caught:
        open_output(str(link))
    assert str(caught.value) == (
        f"-o {link}: is a symbolic link (to {target}): readmany writes through no link but "
        "/dev/stdout, /dev/stderr and /dev/fd/N; name the file itself"
    )
    assert (work / "real.txt").read_bytes() == b"old"
    assert not (work / "sub" / "made.txt").exists() and not (tmp_path / "outside.txt").exists()
    assert os.readlink(link) == target


def test_a_link_to_a_device_is_refused_but_the_systems_own_are_followed(tmp_path: Path) -> None:
    """A planted `context.txt -> /dev/sda` must not overwrite a disk; `/dev/stdout` and
    `/dev/fd/N` are the system's, and lead to this process's own descriptors."""
    link = tmp_path / "null"
    link.symlink_to(os.devnull)
    with pytest.raises(UsageError, match=r": is a symbolic link \(to /dev/null\): "):
        check_output(str(link))
    read_end, write_end = os.pipe()
    try:
        out = _write(f"/dev/fd/{write_end}", b"through the pipe")
        assert out.temp_path is None
        assert os.read(read_end, 100) == b"through the pipe"
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_relative_path_through_a_linked_directory_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    (work / "out").symlink_to(outside)
    cwd = os.getcwd()
    os.chdir(work)
    try:
        with pytest.raises(UsageError) as caught:
            check_output("out/context.md")
        assert str(caught.value) == (
            "-o out/context.md: out is a symbolic link (to "
            f"{outside}): readmany writes through no link; name the directory itself"
        )
        with pytest.raises(UsageError, match=r"^-o missing/\.\./x: no such directory: "):
            check_output("missing/../x")  # as the system sees it, not as realpath does
    finally:
        os.chdir(cwd)
    assert list(outside.iterdir()) == []


@pytest.mark.smoke  # a process of its own: the reader is a thread of this one
def test_a_fifo_is_written_in_place_for_its_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reading = threading.Event()
    writing = threading.Event()

    def reader() -> None:
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader from now on
        reading.set()
        assert writing.wait(10)  # before a writer came, a read would see the end at once
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as handle:
            received.append(handle.read())

    thread = threading.Thread(target=reader)
    thread.start()
    assert reading.wait(10)
    out = open_output(str(fifo))
    writing.set()
    out.stream.write(b"x" * 200_000)  # more than the pipe holds: written as it is read
    out.commit()
    thread.join(10)
    assert received == [b"x" * 200_000]
    assert out.temp_path is None
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert _names(tmp_path) == ["fifo"]


def test_a_fifo_without_a_reader_is_an_error_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UsageError) as caught:
        open_output(str(fifo))
    assert str(caught.value) == f"-o {fifo}: the FIFO has no reader: start the reader first"
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node takes root")
def test_a_character_device_is_written_in_place(tmp_path: Path) -> None:
    null = os.stat("/dev/null")
    device = tmp_path / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, null.st_rdev)  # a second node of the null device
    _write(str(device), b"discarded")
    st = device.lstat()
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == null.st_rdev
    assert _names(tmp_path) == ["null"]


def test_dev_null_stays_a_character_device() -> None:
    before = os.stat("/dev/null")
    out = _write("/dev/null", b"discarded")
    after = os.stat("/dev/null")
    assert out.temp_path is None
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


# -- failures and signals --


class _FullDisk:
    """A stream whose writes fail with ENOSPC and whose close fails again."""

    def __init__(self, real: object) -> None:
        self.real = real

    def write(self, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    def fileno(self) -> int:
        return self.real.fileno()  # type: ignore[attr-defined, no-any-return]

    def close(self) -> None:
        self.real.close()  # type: ignore[attr-defined]
        raise OSError(errno.ENOSPC, "No space left on device")


def test_no_space_left_removes_the_temporary_file_even_when_close_fails(tmp_path: Path) -> None:
    out = open_output(str(tmp_path / "out.txt"))
    out.stream = _FullDisk(out.stream)  # type: ignore[assignment]
    with pytest.raises(OSError, match="No space"):
        out.stream.write(b"data")
    out.discard()
    assert _names(tmp_path) == []


def test_no_space_left_at_commit_is_an_output_error_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "out.txt").write_bytes(b"old")
    out = open_output(str(tmp_path / "out.txt"))
    out.stream.write(b"new" * 1000)

    def fsync(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OutputError) as caught:
        out.commit()
    assert str(caught.value) == f"-o {tmp_path}/out.txt: no space left on device"
    assert _names(tmp_path) == ["out.txt"]
    assert (tmp_path / "out.txt").read_bytes() == b"old"


def test_an_exception_while_writing_leaves_nothing(tmp_path: Path) -> None:
    out = open_output(str(tmp_path / "out.txt"))
    try:
        out.stream.write(b"partial")
        raise RuntimeError("the run failed")
    except RuntimeError:
        out.discard()
    out.discard()  # twice is harmless
    assert _names(tmp_path) == []


def test_handlers_are_restored_after_the_run(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGTERM)
    out = open_output(str(tmp_path / "out.txt"))
    assert signal.getsignal(signal.SIGTERM) != before
    out.commit()
    assert signal.getsignal(signal.SIGTERM) == before


_CHILD = textwrap.dedent(
    """
    import sys, time
    from readmany.emit.target import open_output
    out = open_output(sys.argv[1])
    out.stream.write(b"x" * (1 << 20))
    out.stream.flush()
    print(out.temp_path, flush=True)
    time.sleep(60)
    """
)


def _no_core_file() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGQUIT and SIGXCPU dump core


_ENDING_SIGNALS = [
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGINT,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
    signal.SIGALRM,
    signal.SIGXCPU,
    signal.SIGVTALRM,
    signal.SIGPROF,
]


@pytest.mark.smoke
@pytest.mark.parametrize("number", _ENDING_SIGNALS, ids=lambda n: signal.Signals(n).name)
def test_a_signal_removes_the_temporary_file(tmp_path: Path, number: int) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(tmp_path / "out.txt")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_no_core_file,
    )
    assert child.stdout is not None
    temp = child.stdout.readline().decode().strip()
    assert os.path.getsize(temp) == 1 << 20
    child.send_signal(number)
    _, err = child.communicate(timeout=30)
    if number == signal.SIGINT:
        assert b"KeyboardInterrupt" in err  # Python's own handler ran after the removal
    assert child.returncode == -number
    assert _names(tmp_path) == []


# -- the output named as an input --


def test_an_input_that_is_the_output_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ctx.txt").write_bytes(b"old")
    (tmp_path / "alias").symlink_to("ctx.txt")
    (tmp_path / "other.txt").write_bytes(b"other")
    out = open_output(str(tmp_path / "ctx.txt"))
    try:
        assert refuse_as_input(out, [str(tmp_path / "other.txt")]) is None
        assert refuse_as_input(out, [str(tmp_path / "other.txt"), str(tmp_path / "alias")]) == (
            f"{tmp_path}/alias: is the -o output file: write the output elsewhere"
        )
        assert refuse_as_input(check_output(str(tmp_path / "ctx.txt")), ["missing"]) is None
    finally:
        out.discard()


def test_a_new_output_refuses_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"a")
    plan = check_output(str(tmp_path / "new.txt"))
    assert refuse_as_input(plan, [str(tmp_path / "a.txt")]) is None


def test_a_block_device_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A disk is never written (told by its mode: no test makes a real one to aim at)."""
    path = tmp_path / "sda"
    path.write_bytes(b"")
    real_stat = os.stat

    def disk_stat(name: object, *args: object, **kwargs: object) -> os.stat_result:
        result = real_stat(name, *args, **kwargs)  # type: ignore[arg-type]
        if str(name) != str(path):
            return result
        fields = list(result)
        fields[0] = stat.S_IFBLK | 0o660
        return os.stat_result(fields)

    monkeypatch.setattr(target_module.os, "stat", disk_stat)
    with pytest.raises(UsageError) as caught:
        check_output(str(path))
    assert str(caught.value) == (
        f"-o {path}: is a block device (a disk): readmany writes files, FIFOs and devices"
    )
