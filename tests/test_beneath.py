"""Writing beneath a directory descriptor: the walk follows no link, and a swap at the
last moment before a write leads it nowhere but the directory opened."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest

from readmany.emit import beneath
from readmany.read.hashline import file_tag


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """`root/a/b/`, `root/link -> a`, and `outside/` beside the root."""
    (tmp_path / "root" / "a" / "b").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "root" / "link").symlink_to("a")
    return tmp_path / "root"


def _where(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)


def test_the_walk_reaches_the_directory_part_by_part(tree: Path) -> None:
    root = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert _where(beneath.open_directory(root, ["a", "b"])) == str(tree / "a" / "b")
        assert _where(beneath.open_directory(root, ["a", "", ".", "b", ".."])) == str(tree / "a")
        assert _where(beneath.open_directory(root, [])) == str(tree)
    finally:
        os.close(root)


def test_a_link_on_the_way_ends_the_walk(tree: Path) -> None:
    root = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(beneath.LinkOnTheWay) as caught:
            beneath.open_directory(root, ["link", "b"])
        assert caught.value.walked == "link"
        (tree / "a" / "b" / "last").symlink_to(tree.parent / "outside")
        with pytest.raises(beneath.LinkOnTheWay) as caught:
            beneath.open_directory(root, ["a", "b", "last"])
        assert caught.value.walked == "a/b/last"
        with pytest.raises(FileNotFoundError):
            beneath.open_directory(root, ["a", "missing"])
    finally:
        os.close(root)


def test_a_temporary_file_is_made_replaced_and_removed_in_the_directory(tree: Path) -> None:
    held = beneath.Directories(str(tree))
    try:
        directory = held.open(["a", "b"])
        assert held.open(["a", "b"]) == directory  # opened once
        fd, temporary = beneath.create_temporary(directory, "f.txt")
        os.write(fd, b"new")
        os.close(fd)
        assert temporary.startswith(".f.txt.") and temporary.endswith(".tmp")
        beneath.replace(directory, temporary, "f.txt")
        fd, left = beneath.create_temporary(directory, "f.txt")
        os.close(fd)
        beneath.remove(directory, left)
        beneath.remove(directory, left)  # gone already: no error
    finally:
        held.close()
    assert os.listdir(tree / "a" / "b") == ["f.txt"]
    assert (tree / "a" / "b" / "f.txt").read_bytes() == b"new"


def test_edit_writes_in_the_directory_it_checked_whatever_is_swapped_meanwhile(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race that wrote outside, step by step: the directory is a link while the new
    file is staged, a directory again when it is read once more, a link at the rename."""
    from readmany.edit import files as command
    from readmany.edit.anchored import EditRequest, FileEdit, line_op

    outside = tree.parent / "outside"
    for directory in (tree / "a" / "b", outside):
        (directory / "victim.conf").write_bytes(b"a\n")  # the same bytes: the tag holds
    (tree / "a" / "bx").symlink_to(outside)

    def exchange() -> None:
        (tree / "a" / "b").rename(tree / "a" / "b.swap")
        (tree / "a" / "bx").rename(tree / "a" / "b")
        (tree / "a" / "b.swap").rename(tree / "a" / "bx")

    def swap_before(name: str) -> None:
        step = getattr(command, name)

        def swapped(*args: Any) -> Any:
            exchange()
            return step(*args)

        monkeypatch.setattr(command, name, swapped)

    for name in ("_stage", "_unchanged_on_disk", "_commit"):
        swap_before(name)
    edit = FileEdit("a/b/victim.conf", file_tag(b"a\n"), (line_op("append", "", "X"),))
    out = io.BytesIO()
    assert command.run_edit(command.EditRun(EditRequest((edit,)), str(tree)), out) == 0
    assert (tree / "a" / "b").is_symlink()  # swapped three times: the link is at a/b
    assert os.listdir(outside) == ["victim.conf"]
    assert (outside / "victim.conf").read_bytes() == b"a\n"
    assert os.listdir(tree / "a" / "bx") == ["victim.conf"]
    assert (tree / "a" / "bx" / "victim.conf").read_bytes() == b"a\nX\n"


def test_output_refuses_a_directory_swapped_for_a_link_after_the_check(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readmany.emit import target
    from readmany.errors import UsageError

    outside = tree.parent / "outside"
    monkeypatch.chdir(tree)
    plan = target.check_output("a/b/ctx.txt")
    (tree / "a" / "b").rename(tree / "a" / "b.real")
    (tree / "a" / "b").symlink_to(outside)
    with pytest.raises(UsageError) as caught:
        target.OutputTarget(plan)
    assert str(caught.value) == (
        "-o a/b/ctx.txt: a/b is a symbolic link: readmany writes through no link; "
        "name the directory itself"
    )
    assert os.listdir(outside) == []
