"""Listings under a racing attacker: while `repo/sub` (a directory) is exchanged again and
again with `repo/subx` (a link to a directory outside the root), no name from outside the
root is listed, by the MCP tool `read_many_files` or by `glob`.

The walk decides to enter `sub` because it is a directory; listed by its path a moment
later, it could be the link, and the outside directory's names would be reported as
`sub/…` (as skipped files, or as read errors). Listed beneath the root's descriptor, part
by part with no link followed, the swap is refused instead. The swapper is
`tests/test_write_races.py`'s and stops by itself.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import scaled
from test_write_races import Swapper

from readmany.commands.glob import run_glob
from readmany.emit.sink import Sink
from readmany.faces import Face
from readmany.select.walk import SelectRequest, WalkRules, iter_selection
from readmany.serve.config import ServerConfig
from readmany.serve.tools import Tools

TRIES = scaled(500)  # a fifth of it unless READMANY_TESTS_FULL=1
OUTSIDE_NAME = "outsidename"


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """`repo/sub/` holding `inside.txt` and a directory, `repo/subx -> outside/` holding
    names of its own (a file, and a directory holding a file)."""
    repo = tmp_path / "repo"
    (repo / "sub" / "deep").mkdir(parents=True)
    for number in range(100):  # walked before `sub`: the window between its check and listing
        (repo / f"a{number:03}.txt").write_text("a\n")
    (repo / "sub" / "inside.txt").write_text("inside\n")
    (repo / "sub" / "deep" / "inside2.txt").write_text("inside\n")
    outside = tmp_path / "outside"
    (outside / f"{OUTSIDE_NAME}-dir").mkdir(parents=True)
    (outside / f"{OUTSIDE_NAME}-file.txt").write_text("SECRET\n")
    (outside / f"{OUTSIDE_NAME}-dir" / f"{OUTSIDE_NAME}-2.txt").write_text("SECRET\n")
    (repo / "subx").symlink_to(outside)
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        yield repo
    finally:
        os.chdir(cwd)


def _mcp(repo: Path) -> str:
    tools = Tools(ServerConfig(roots=(str(repo),)))
    return repr(tools.call("read_many_files", {"include": ["sub/**", "**/*.txt"]}))


def _glob(repo: Path) -> str:
    from readmany.request.glob import GlobRequest

    buffer = io.BytesIO()
    request = GlobRequest(patterns=("**",), root=str(repo), face=Face.people())
    run_glob(request, Sink(buffer, json_mode=True))
    return buffer.getvalue().decode("utf-8", "replace")


def _walk(repo: Path) -> str:
    rules = WalkRules(list_outside_directories=False)
    _, events = iter_selection(SelectRequest(str(repo), ("**",), rules=rules))
    return "\n".join(event.rel for event in events)


@pytest.mark.slow
@pytest.mark.parametrize("listing", [_mcp, _glob, _walk], ids=["mcp", "glob", "walk"])
def test_no_name_from_outside_is_listed_while_a_directory_is_swapped(
    repo: Path, listing: object
) -> None:
    assert callable(listing)
    assert OUTSIDE_NAME not in listing(repo)  # and the listing shows the inside at rest
    leaked = shown_inside = 0
    swapper = Swapper(repo)
    try:
        for _ in range(TRIES):
            out = listing(repo)
            assert isinstance(out, str)
            leaked += OUTSIDE_NAME in out
            shown_inside += "inside.txt" in out
    finally:
        swapper.stop()
    assert leaked == 0, f"{leaked} of {TRIES} listings named a file outside the root"
    assert shown_inside > 0
