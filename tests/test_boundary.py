"""Opening beneath the root: a swap between the walk and the read is refused, never read."""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import select_files

from readmany.read.safe import (
    Boundary,
    OpenFailure,
    open_regular,
    read_unsized,
    read_upto,
    refusal_text,
    refuse_root,
)
from readmany.select.walk import SelectRequest

SECRET = b"the secret outside the root\n"
ROUNDS = 25


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """`root/` with `sub/file.txt` and `top.txt`, beside `outside/` holding the secret."""
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "file.txt").write_bytes(b"inside\n")
    (root / "top.txt").write_bytes(b"top\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_bytes(SECRET)
    (tmp_path / "outside" / "file.txt").write_bytes(SECRET)
    return root


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 1 << 16)
    finally:
        os.close(fd)


def _code(run: Callable[[], object]) -> str:
    with pytest.raises(OpenFailure) as caught:
        run()
    return caught.value.code


# -- the ordinary way --


def test_files_are_opened_beneath_the_root(tree: Path) -> None:
    with Boundary(str(tree)) as boundary:
        fd, st = boundary.open("sub/file.txt")
        assert st.st_size == 7
        assert _read(fd) == b"inside\n"
        assert _read(boundary.open("top.txt")[0]) == b"top\n"
        assert _read(boundary.open("sub/file.txt")[0]) == b"inside\n"  # the kept directory


def test_what_is_not_a_regular_file_is_refused_without_blocking(tree: Path) -> None:
    os.mkfifo(tree / "fifo")
    with Boundary(str(tree)) as boundary:
        assert _code(lambda: boundary.open("fifo")) == "ESPECIAL"
        assert _code(lambda: boundary.open("sub")) == "EISDIR"
        assert _code(lambda: boundary.open("missing.txt")) == "ENOENT"
        assert _code(lambda: boundary.open("top.txt/x")) == "ENOTDIR"


def test_dot_parts_are_refused(tree: Path) -> None:
    with Boundary(str(tree)) as boundary:
        for rel in ("../outside/secret.txt", "sub/../top.txt", "./top.txt", "sub/", ".."):
            assert _code(functools.partial(boundary.open, rel)) == "EOUTSIDE", rel


def test_a_link_where_the_walk_saw_none_is_refused(tree: Path) -> None:
    (tree / "inner.txt").symlink_to("top.txt")
    (tree / "linked").symlink_to("sub")
    with Boundary(str(tree)) as boundary:
        assert _code(lambda: boundary.open("inner.txt")) == "ECHANGED"
        assert _code(lambda: boundary.open("linked/file.txt")) == "ECHANGED"


def test_links_the_walk_followed_are_followed_inside_the_root(tree: Path) -> None:
    (tree / "inner.txt").symlink_to("sub/file.txt")
    (tree / "linked").symlink_to("sub")
    (tree / "sub" / "up.txt").symlink_to("../top.txt")
    (tree / "absolute.txt").symlink_to(tree / "top.txt")
    with Boundary(str(tree)) as boundary:
        assert _read(boundary.open("inner.txt", real="sub/file.txt")[0]) == b"inside\n"
        assert _read(boundary.open("linked/file.txt", real="sub/file.txt")[0]) == b"inside\n"
        assert _read(boundary.open("sub/up.txt", real="top.txt")[0]) == b"top\n"
        assert _read(boundary.open("absolute.txt", real="top.txt")[0]) == b"top\n"
        # Led elsewhere than the walk found: changed.
        assert _code(lambda: boundary.open("inner.txt", real="top.txt")) == "ECHANGED"


def test_links_out_of_the_root_are_refused_even_when_following(tree: Path) -> None:
    (tree / "up.txt").symlink_to("../outside/secret.txt")
    (tree / "abs.txt").symlink_to(tree.parent / "outside" / "secret.txt")
    (tree / "deep.txt").symlink_to("sub/../../outside/secret.txt")
    with Boundary(str(tree)) as boundary:
        for rel in ("up.txt", "abs.txt", "deep.txt"):
            assert _code(functools.partial(boundary.open, rel, real=rel)) == "EOUTSIDE", rel


def test_a_link_loop_ends(tree: Path) -> None:
    (tree / "a").symlink_to("b")
    (tree / "b").symlink_to("a")
    with Boundary(str(tree)) as boundary:
        assert _code(lambda: boundary.open("a", real="a")) == "ELOOP"


def test_another_file_than_the_walk_saw_is_refused(tree: Path) -> None:
    st = os.stat(tree / "top.txt")
    with Boundary(str(tree)) as boundary:
        os.close(boundary.open("top.txt", expected=(st.st_dev, st.st_ino))[0])
        (tree / "new.txt").write_bytes(b"replaced\n")  # made while the old one exists
        (tree / "new.txt").rename(tree / "top.txt")
        assert _code(lambda: boundary.open("top.txt", expected=(st.st_dev, st.st_ino))) == (
            "ECHANGED"
        )


def test_refusals_have_a_reason() -> None:
    assert refusal_text(OpenFailure("EOUTSIDE", "x")) == "refused: it leads outside the root"
    assert refusal_text(OpenFailure("ECHANGED", "x")) == "refused: it changed after it was listed"
    assert refusal_text(OpenFailure("ENOENT", "x")) is None


# -- the race: a swap between the walk's check and the open --


def _swap_file(root: Path) -> None:
    (root / "sub" / "file.txt").rename(root / "sub" / "file.old")
    (root / "sub" / "file.txt").symlink_to("../../outside/secret.txt")


def _swap_directory(root: Path) -> None:
    (root / "sub").rename(root / "sub.old")
    (root / "sub").symlink_to("../outside")


def _restore(root: Path) -> None:
    if (root / "sub").is_symlink():
        (root / "sub").unlink()
        (root / "sub.old").rename(root / "sub")
    if (root / "sub" / "file.txt").is_symlink():
        (root / "sub" / "file.txt").unlink()
        (root / "sub" / "file.old").rename(root / "sub" / "file.txt")


@pytest.fixture
def swap_at_open(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Callable[[str, Callable[[], None]], None]]:
    """Arms a hook: the next `os.open` of a name does the swap first, then the open."""
    real_open = os.open
    armed: dict[str, Callable[[], None]] = {}

    def hooked_open(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        swap = armed.pop(os.path.basename(path), None)
        if swap is not None:
            swap()
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", hooked_open)

    def arm(name: str, swap: Callable[[], None]) -> None:
        armed[name] = swap

    yield arm


def _walked(root: Path) -> list[str]:
    selection = select_files(SelectRequest(root=str(root), patterns=("sub/file.txt",)))
    return [candidate.rel for candidate in selection.candidates]


@pytest.mark.parametrize("swap", [_swap_file, _swap_directory], ids=["file", "directory"])
def test_a_swap_after_the_walk_leaks_nothing(tree: Path, swap: Callable[[Path], None]) -> None:
    leaks = refusals = 0
    for _ in range(ROUNDS):
        assert _walked(tree) == ["sub/file.txt"]  # the walk accepts it: no link yet
        swap(tree)
        with Boundary(str(tree)) as boundary:
            try:
                fd, _ = boundary.open("sub/file.txt")
            except OpenFailure as failure:
                assert failure.code == "ECHANGED"
                refusals += 1
            else:
                leaks += _read(fd) == SECRET
        _restore(tree)
    assert (leaks, refusals) == (0, ROUNDS)


@pytest.mark.parametrize(
    ("swap", "name"),
    [(_swap_file, "file.txt"), (_swap_directory, "sub")],
    ids=["file", "directory"],
)
def test_a_swap_at_the_last_moment_leaks_nothing(
    tree: Path,
    swap: Callable[[Path], None],
    name: str,
    swap_at_open: Callable[[str, Callable[[], None]], None],
) -> None:
    leaks = refusals = 0
    for _ in range(ROUNDS):
        assert _walked(tree) == ["sub/file.txt"]
        with Boundary(str(tree)) as boundary:
            swap_at_open(name, lambda: swap(tree))
            try:
                fd, _ = boundary.open("sub/file.txt")
            except OpenFailure as failure:
                assert failure.code == "ECHANGED"
                refusals += 1
            else:
                leaks += _read(fd) == SECRET
        _restore(tree)
    assert (leaks, refusals) == (0, ROUNDS)


def test_the_same_race_leaks_through_an_open_by_path(tree: Path) -> None:
    """Why `Boundary` exists: opening the walked path again follows the swapped link."""
    assert _walked(tree) == ["sub/file.txt"]
    _swap_file(tree)
    fd, _ = open_regular(str(tree / "sub" / "file.txt"))
    assert _read(fd) == SECRET


def test_a_swap_of_a_followed_link_out_of_the_root_leaks_nothing(
    tree: Path, swap_at_open: Callable[[str, Callable[[], None]], None]
) -> None:
    (tree / "link.txt").symlink_to("top.txt")

    def retarget() -> None:
        (tree / "link.txt").unlink()
        (tree / "link.txt").symlink_to("../outside/secret.txt")

    with Boundary(str(tree)) as boundary:
        swap_at_open("link.txt", retarget)
        assert _code(lambda: boundary.open("link.txt", real="top.txt")) == "EOUTSIDE"


# -- files that do not know their size --


def test_a_procfs_file_is_read_to_its_end_within_the_cap() -> None:
    fd = os.open("/proc/self/status", os.O_RDONLY)
    try:
        st = os.fstat(fd)
        assert st.st_size == 0
        data = read_upto(fd, st, 1 << 20)
        assert data.startswith(b"Name:\t") and data.endswith(b"\n")
    finally:
        os.close(fd)
    fd = os.open("/proc/self/status", os.O_RDONLY)
    try:
        assert read_unsized(fd, 5) == b"Name:"
    finally:
        os.close(fd)


def test_a_sized_file_is_read_by_its_size(tree: Path) -> None:
    fd, st = open_regular(str(tree / "top.txt"))
    try:
        assert read_upto(fd, st, 2) == b"to"
        assert read_upto(fd, st, 100) == b"top\n"
    finally:
        os.close(fd)


# -- the root itself --


def test_a_root_in_a_git_directory_is_refused(tmp_path: Path) -> None:
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    assert refuse_root(str(work)) is None
    assert refuse_root(str(work / ".git")) == (
        f"--root {work}/.git: is inside a .git directory: give the work tree's root"
    )
    assert refuse_root(str(work / ".git" / "refs")) is not None
    (tmp_path / "into-git").symlink_to(work / ".git")
    assert refuse_root(str(tmp_path / "into-git")) is not None
    assert refuse_root(str(bare / "objects")) == (
        f"--root {bare}/objects: is inside a git repository's own directory: give a work tree"
    )


# --- the whole glob run: a file or directory swapped between the walk and the read ---------


@pytest.mark.parametrize("swap_directory", [False, True], ids=["file", "directory"])
def test_glob_reads_nothing_swapped_in_after_the_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap_directory: bool
) -> None:
    import io

    from readmany.commands import glob as glob_command
    from readmany.commands.glob_request import lookahead_source
    from readmany.emit.sink import Sink
    from readmany.faces import Face
    from readmany.request.glob import GlobRequest
    from readmany.select import lookahead
    from readmany.select.candidates import Candidate

    root = tmp_path / "root"
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.txt").write_text("SECRET\n")
    (outside / "dir" / "f0.txt").write_text("SECRET\n")
    (root / "dir").mkdir(parents=True)
    for n in range(20):
        (root / "dir" / f"f{n}.txt").write_text(f"plain {n}\n")
    walked = lookahead.InProcess.__iter__

    def swapping(self: lookahead.InProcess) -> Iterator[lookahead.Found]:
        for event, done in walked(self):
            if isinstance(event, Candidate) and event.rel == "dir/f0.txt":
                if swap_directory:
                    os.rename(root / "dir", root / "moved")
                    os.symlink(outside / "dir", root / "dir")
                else:
                    os.unlink(event.path)
                    os.symlink(outside / "secret.txt", event.path)
            yield event, done

    monkeypatch.setattr(lookahead.InProcess, "__iter__", swapping)
    request = GlobRequest(patterns=("dir/f0.txt",), root=str(root), face=Face.people())
    written = io.BytesIO()
    outcome = glob_command.run_glob(
        request, Sink(written, json_mode=False), lookahead.InProcess(lookahead_source(request))
    )
    assert b"SECRET" not in written.getvalue()
    assert outcome.exit_code == 1
    assert len(outcome.problems) == 1 and "dir/f0.txt" in outcome.problems[0]


def test_stats_measure_nothing_swapped_in_after_the_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from readmany.commands import glob_plan
    from readmany.commands.glob_request import lookahead_source
    from readmany.emit.sink import Sink
    from readmany.faces import Face
    from readmany.request.glob import GlobRequest
    from readmany.select import lookahead
    from readmany.select.candidates import Candidate

    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("SECRET\n" * 1000)
    for n in range(3):
        (root / f"f{n}.txt").write_text(f"plain {n}\n")
    walked = lookahead.InProcess.__iter__

    def swapping(self: lookahead.InProcess) -> Iterator[lookahead.Found]:
        for event, done in walked(self):
            if isinstance(event, Candidate) and event.rel == "f1.txt":
                os.unlink(event.path)
                os.symlink(tmp_path / "secret.txt", event.path)
            yield event, done

    monkeypatch.setattr(lookahead.InProcess, "__iter__", swapping)
    request = GlobRequest(patterns=("**",), root=str(root), face=Face.people(), stats=True)
    written = io.BytesIO()
    outcome = glob_plan.run_stats(
        request, Sink(written, json_mode=False), lookahead.InProcess(lookahead_source(request))
    )
    text = written.getvalue().decode()
    assert "f0.txt" in text and "f2.txt" in text
    assert "7,000" not in text and "1,000" not in text  # the outside file was not measured
    assert outcome.exit_code == 1
    assert len(outcome.problems) == 1 and "f1.txt" in outcome.problems[0]
