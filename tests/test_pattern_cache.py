"""The pattern cache: pathspec's answers kept across runs, never a different answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_readmany
from hypothesis import given, settings
from hypothesis import strategies as st

from readmany.select import cache as pattern_cache
from readmany.select.cache import SKIPPED, PatternCache, translate_with_pathspec
from readmany.select.ignore import parse_rules

STAMP = "stamp-1"
PATTERNS = ["*.log", "/build", "docs/**/*.md", "a\\ ", "[!x]y", "**", "\\", "!keep", "a/**/b"]


def test_a_second_cache_answers_what_pathspec_answered(tmp_path: Path) -> None:
    first = PatternCache(str(tmp_path), STAMP)
    answers = [first.translate(p) for p in PATTERNS]
    assert answers == [translate_with_pathspec(p) for p in PATTERNS]
    assert answers[6] == SKIPPED  # a lone backslash is no pattern
    first.save()
    second = PatternCache(str(tmp_path), STAMP)
    assert second._known == dict(zip(PATTERNS, answers, strict=True))
    assert [second.translate(p) for p in PATTERNS] == answers
    assert not second._added  # nothing new: nothing to write


def test_another_pathspec_starts_afresh(tmp_path: Path) -> None:
    cache = PatternCache(str(tmp_path), STAMP)
    cache.translate("*.log")
    cache.save()
    assert PatternCache(str(tmp_path), "stamp-2")._known == {}


@pytest.mark.parametrize("content", [b"", b"\x00garbage", b"\xe3\x01\x02", b"not marshal at all"])
def test_a_damaged_cache_is_ignored(tmp_path: Path, content: bytes) -> None:
    cache = PatternCache(str(tmp_path), STAMP)
    assert cache.path is not None
    Path(cache.path).write_bytes(content)
    again = PatternCache(str(tmp_path), STAMP)
    assert again._known == {}
    assert again.translate("*.log") == translate_with_pathspec("*.log")
    again.save()  # and it is replaced by a sound one
    assert PatternCache(str(tmp_path), STAMP)._known == {"*.log": translate_with_pathspec("*.log")}


def test_a_cache_of_the_wrong_shape_is_ignored(tmp_path: Path) -> None:
    import marshal

    cache = PatternCache(str(tmp_path), STAMP)
    assert cache.path is not None
    for stored in [(STAMP, ["*.log"]), (STAMP,), [STAMP, {}], (STAMP, {"*.log": 3, 4: "x"})]:
        Path(cache.path).write_bytes(marshal.dumps(stored))
        assert PatternCache(str(tmp_path), STAMP)._known == {}


def test_an_unwritable_cache_directory_is_no_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = PatternCache(str(blocker / "readmany"), STAMP)
    cache.translate("*.log")
    cache.save()  # quietly nothing
    assert not (blocker / "readmany").exists()
    assert list(tmp_path.iterdir()) == [blocker]


def test_a_full_cache_keeps_what_this_run_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pattern_cache, "MAX_ENTRIES", 3)
    cache = PatternCache(str(tmp_path), STAMP)
    for text in ["a", "b", "c", "d"]:
        cache.translate(text)
    cache.save()
    later = PatternCache(str(tmp_path), STAMP)
    later.translate("e")
    later.translate("a")
    later.save()
    assert sorted(PatternCache(str(tmp_path), STAMP)._known) == ["a", "e"]


def test_the_cache_directory_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READMANY_CACHE_DIR", "/somewhere")
    assert pattern_cache.cache_directory() == "/somewhere"
    monkeypatch.setenv("READMANY_CACHE_DIR", "")
    assert pattern_cache.cache_directory() is None
    monkeypatch.delenv("READMANY_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert pattern_cache.cache_directory() == "/xdg/readmany"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    assert pattern_cache.cache_directory() is None
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "/home/someone")
    assert pattern_cache.cache_directory() == "/home/someone/.cache/readmany"


def test_the_stamp_names_the_pathspec_that_import_finds() -> None:
    import pathspec.patterns.gitignore.spec as spec

    stamp = pattern_cache.translator_stamp()
    assert stamp is not None
    st = os.stat(spec.__file__)
    where = os.path.abspath(spec.__file__)
    assert stamp == f"{pattern_cache.FORMAT}:{where}:{st.st_size}:{st.st_mtime_ns}"


@settings(max_examples=200)
@given(st.text(alphabet="ab*?[]!/\\.- ", min_size=1, max_size=10))
def test_rules_from_the_cache_equal_rules_from_pathspec(text: str) -> None:
    fresh = PatternCache()  # no file: every answer comes from pathspec
    assert fresh.translate(text) == translate_with_pathspec(text)


def _run_probe(tmp_path: Path, cache_dir: str) -> str:
    """In a new interpreter: parse a .gitignore, and say whether pathspec was imported."""
    probe = (
        "import sys\n"
        "from readmany.select.ignore import parse_rules, save_pattern_cache\n"
        "rules = parse_rules(['*.log', 'build/', '!keep.log'])\n"
        "save_pattern_cache()\n"
        "print('pathspec' in sys.modules, [r.regex for r in rules])\n"
    )
    env = {**os.environ, "READMANY_CACHE_DIR": cache_dir}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def test_a_second_run_does_not_import_pathspec(tmp_path: Path) -> None:
    cache_dir = str(tmp_path / "cache")
    first = _run_probe(tmp_path, cache_dir)
    second = _run_probe(tmp_path, cache_dir)
    assert first.startswith("True ")
    assert second.startswith("False ")
    assert first[len("True ") :] == second[len("False ") :]
    expected = [r.regex for r in parse_rules(["*.log", "build/", "!keep.log"])]
    assert first[len("True ") :].strip() == str(expected)


def test_turned_off_it_writes_nothing_and_imports_pathspec_each_time(tmp_path: Path) -> None:
    assert _run_probe(tmp_path, "").startswith("True ")
    assert _run_probe(tmp_path, "").startswith("True ")
    assert list(tmp_path.iterdir()) == []


def test_glob_output_is_the_same_with_a_cold_a_warm_and_no_cache(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / ".git").mkdir(parents=True)
    (tree / ".gitignore").write_text("*.log\n/build\n!keep.log\n[ab].txt\n")
    (tree / "sub").mkdir()
    (tree / "sub" / ".gitignore").write_text("*.tmp\n")
    for name in ["a.txt", "c.txt", "x.log", "keep.log", "sub/y.tmp", "sub/z.py", "build"]:
        (tree / name).write_text(f"{name}\n")
    outputs = []
    for cache_dir in [str(tmp_path / "cache"), str(tmp_path / "cache"), ""]:
        env = {**os.environ, "READMANY_CACHE_DIR": cache_dir}
        done = run_readmany(["glob", "--compat", "**", "--json"], cwd=tree, env=env)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    assert json.loads(outputs[0])["details"]["files"] == [
        ".gitignore",
        "c.txt",
        "keep.log",
        "sub/.gitignore",
        "sub/z.py",
    ]
    assert (tmp_path / "cache").is_dir()


def test_a_reversed_range_is_skipped_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("[?-.]\nx[z-a]y\n*.log\n")
    for name in ["a.txt", "b.log", "xay"]:
        (tmp_path / name).write_text("x\n")
    done = run_readmany(["glob", "--compat", "**", "--json"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["details"]["files"] == [".gitignore", "a.txt", "xay"]
    assert translate_with_pathspec("[?-.]") == SKIPPED
