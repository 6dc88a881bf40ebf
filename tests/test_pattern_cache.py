"""No pattern cache: ignore rules are translated by readmany itself on every run.

Runs used to keep pathspec's expressions in `$READMANY_CACHE_DIR/patterns-<python>.marshal`
so that a warm run need not import pathspec. A cache an attacker or a damaged disk can
write must be checked entry by entry, which costs what it saves; the matcher now needs
no pathspec at run time (see `wildmatch`), so nothing is cached. These tests plant what
an attacker would have planted, and check that a run neither reads it nor writes there.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_readmany

OLD_CACHE_NAME = f"patterns-{sys.implementation.cache_tag}.marshal"


def _old_stamp() -> str:
    """The stamp the old cache checked: easy for anyone to compute."""
    import pathspec.patterns.gitignore.spec as spec

    st = os.stat(spec.__file__)
    return f"1:{os.path.abspath(spec.__file__)}:{st.st_size}:{st.st_mtime_ns}"


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / ".git").mkdir(parents=True)
    (tree / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n*.py[cod]\n")
    for name in ["a.txt", "x.log", "keep.log", "m.pyc", "build/out.txt"]:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(f"{name}\n")
    return tree


def _files(tree: Path, cache: Path) -> list[str]:
    env = {**os.environ, "READMANY_CACHE_DIR": str(cache), "XDG_CACHE_HOME": str(cache)}
    done = run_readmany(["glob", "**", "--json"], cwd=tree, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout)["details"]["files"])


KEPT = [".gitignore", "a.txt", "keep.log"]


def test_a_forged_cache_entry_cannot_un_ignore_a_file(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    forged = {"*.log": "(?!)", "build": "(?!)", "*.py[cod]": "(?!)"}  # match nothing
    (cache / OLD_CACHE_NAME).write_bytes(marshal.dumps((_old_stamp(), forged)))
    assert _files(_tree(tmp_path), cache) == KEPT


@pytest.mark.parametrize("damage", ["fifo", "dev-zero", "huge", "bad-regex", "catastrophic"])
def test_a_damaged_cache_file_is_never_opened(tmp_path: Path, damage: str) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    planted = cache / OLD_CACHE_NAME
    if damage == "fifo":
        os.mkfifo(planted)  # opening it for reading would wait for a writer forever
    elif damage == "dev-zero":
        planted.symlink_to("/dev/zero")
    elif damage == "huge":
        with open(planted, "wb") as handle:
            handle.truncate(2**31)  # sparse: 2 GiB that cost no disk
    else:
        regex = "(" if damage == "bad-regex" else "^(a+)+$"
        planted.write_bytes(marshal.dumps((_old_stamp(), {"*.log": regex})))
    assert _files(_tree(tmp_path), cache) == KEPT
    assert sorted(p.name for p in cache.iterdir()) == [OLD_CACHE_NAME]


def test_nothing_is_written_where_the_cache_was(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o777)  # a directory anyone could plant links in
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    planted = [cache / OLD_CACHE_NAME, cache / f"{OLD_CACHE_NAME}.{os.getpid() + 1}.tmp"]
    for link in planted:
        link.symlink_to(victim)
    assert _files(_tree(tmp_path), cache) == KEPT
    assert sorted(cache.iterdir()) == sorted(planted)
    assert [os.readlink(link) for link in planted] == [str(victim)] * 2
    assert victim.read_text() == "precious\n"


def test_no_run_imports_pathspec(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    env = {**os.environ, "READMANY_CACHE_DIR": "", "READMANY_PROCESSES": "1"}  # imports in view
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "readmany", "glob", "**", "-o", os.devnull],
        cwd=tree,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()]
    assert "readmany.select.wildmatch" in imported
    assert not [name for name in imported if name.startswith("pathspec")]
