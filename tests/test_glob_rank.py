"""`glob --max-tokens` keeps files by value (`--order rank`, the default face's rule),
`--prefer` pulls files in, `--order smallest` and `given` keep the other rules; the
output order is the selection's whatever the rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import run_readmany

MODULES = 12
FIXTURES = 300


def _make(root: Path) -> None:
    files: dict[str, str] = {
        "README.md": "# app\n\nA small app: run `app` to start.\n",
        "pyproject.toml": '[project]\nname = "app"\nversion = "1.0"\n',
        "LICENSE": "Permission is hereby granted, free of charge, to any person.\n" * 300,
        "poetry.lock": "".join(f'[[package]]\nname = "dep{i}"\n\n' for i in range(600)),
        ".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n" * 100,
        "app/__init__.py": "",
        "app/core.py": "".join(
            f"def helper_{i}(value):\n    return value * {i} + len(str(value))\n\n\n"
            for i in range(120)
        ),
        "app/cli.py": "from app import core\n\n\ndef main():\n    return core.helper_1(2)\n",
    }
    for i in range(MODULES):
        files[f"app/feature_{i:02}.py"] = (
            f"from app.core import helper_{i}\n\n\ndef feature():\n    return helper_{i}({i})\n"
        )
    for i in range(FIXTURES):
        files[f"tests/fixtures/case_{i:03}.txt"] = f"fixture {i}: input and output\n"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _make(tmp_path)
    return tmp_path


def _run(
    repo: Path, *args: str, patterns: tuple[str, ...] = (".",)
) -> tuple[list[str], dict[str, Any]]:
    result = run_readmany(["glob", *patterns, "--json", "-q", *args], cwd=repo)
    assert result.returncode == 0, result.stderr
    details = json.loads(result.stdout)["details"]
    shown = [entry if isinstance(entry, str) else entry["path"] for entry in details["files"]]
    return shown, details["packing"]


CENTRAL = ["README.md", "pyproject.toml", "app/core.py", "app/cli.py"]
BULK = ["LICENSE", "poetry.lock", ".github/workflows/ci.yml"]


def test_the_rank_keeps_the_central_module_and_entry_points_and_leaves_bulk_out(
    repo: Path,
) -> None:
    shown, packing = _run(repo, "--max-tokens", "4k")
    assert packing["strategy"] == "rank"
    for path in CENTRAL:
        assert path in shown
    for i in range(MODULES):
        assert f"app/feature_{i:02}.py" in shown
    omitted = packing["omittedPaths"]
    for path in BULK:
        assert path in omitted
    fixtures = [path for path in omitted if path.startswith("tests/fixtures/")]
    assert len(fixtures) > FIXTURES // 2  # left out first, with the bulk
    reasons = packing["omittedReasons"]
    assert reasons["LICENSE"] == "bulk (license)"
    assert reasons["poetry.lock"] == "bulk (lock file)"
    assert reasons[".github/workflows/ci.yml"] == "bulk (CI)"
    assert set(reasons) == set(omitted)
    # the output order is the selection's: sorted paths, whatever the rule took
    every = json.loads(run_readmany(["glob", ".", "--json", "-q"], cwd=repo).stdout)
    listed = [e if isinstance(e, str) else e["path"] for e in every["details"]["files"]]
    assert shown == [path for path in listed if path in shown]


def test_the_smallest_rule_keeps_many_small_files_and_leaves_the_central_module_out(
    repo: Path,
) -> None:
    shown, packing = _run(repo, "--max-tokens", "4k", "--order", "smallest")
    assert packing["strategy"] in ("request-order", "smallest-first")
    assert "omittedReasons" not in packing  # the details `many` and today's runs give
    assert "app/core.py" not in shown
    assert sum(path.startswith("tests/fixtures/") for path in shown) > FIXTURES // 3


def test_prefer_pulls_a_file_in(repo: Path) -> None:
    shown, _ = _run(repo, "--max-tokens", "8k")
    assert "LICENSE" not in shown
    shown, packing = _run(repo, "--max-tokens", "8k", "--prefer", "LICEN[CS]E")
    assert "LICENSE" in shown
    assert "app/core.py" not in packing["omittedReasons"]  # still kept: it is ranked next
    shown, packing = _run(repo, "--max-tokens", "9k", "--prefer", "*.lock", "--prefer", "LICENSE")
    assert "poetry.lock" in shown
    assert packing["omittedReasons"].get("LICENSE", "").startswith("preferred (--prefer 2)")


def test_given_takes_output_order_passing_over_what_does_not_fit(repo: Path) -> None:
    shown, packing = _run(repo, "--max-tokens", "4k", "--order", "given")
    assert packing["strategy"] == "given"
    assert shown[0] == ".github/workflows/ci.yml"  # first in output order, and it fits
    assert "LICENSE" in packing["omittedPaths"]
    assert packing["omittedReasons"]["LICENSE"] == "selection order"


def test_an_earlier_pattern_outranks_a_later_one(repo: Path) -> None:
    shown, packing = _run(repo, "--max-tokens", "3k", patterns=("tests", "app"))
    assert "app/core.py" in packing["omittedPaths"]
    assert sum(path.startswith("tests/fixtures/") for path in shown) > FIXTURES // 3
    # fixtures fill the room first: of app/, only its empty __init__.py fits what is left
    assert [path for path in shown if path.startswith("app/")] in ([], ["app/__init__.py"])
    assert packing["omittedReasons"]["app/core.py"].endswith("pattern 2")


def test_when_everything_fits_the_rule_changes_nothing(repo: Path) -> None:
    outputs = {
        run_readmany(["glob", ".", "--max-tokens", "1M", "--order", order], cwd=repo).stdout
        for order in ("rank", "given", "smallest")
    }
    assert len(outputs) == 1
    assert outputs == {run_readmany(["glob", "."], cwd=repo).stdout}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--order", "best"], "--order 'best': give rank, given, smallest"),
        (["--compat", "--order", "rank"], "--order is not part of --compat"),
        (["--compat", "--prefer", "x"], "--prefer is not part of --compat"),
    ],
)
def test_bad_orders_say_how_to_fix_them(repo: Path, args: list[str], said: str) -> None:
    result = run_readmany(["glob", ".", *args], cwd=repo)
    assert result.returncode == 2
    assert said in result.stderr.decode()
    assert b"Traceback" not in result.stderr


def test_a_project_configuration_prefers_too(repo: Path) -> None:
    (repo / ".readmany.toml").write_text('prefer = ["LICENSE"]\n', encoding="utf-8")
    shown, _ = _run(repo, "--max-tokens", "8k")
    assert "LICENSE" in shown
    shown, _ = _run(repo, "--max-tokens", "8k", "--no-config")
    assert "LICENSE" not in shown


def test_the_first_ranked_file_that_does_not_fit_is_cut_rather_than_left_out(
    tmp_path: Path,
) -> None:
    # A large module every other file imports ranks first among the sources; it does not
    # fit. It is cut (its start, and the command that reads the rest), a quarter of the
    # budget kept for it, and the small modules ranked below it fill the rest (they used
    # to fill it all, and the module was left out whole or cut to a few lines).
    files = {
        "README.md": "# app\n",
        "app/api.py": "".join(
            f"def call_{i}(value):\n    return value * {i} + len(str(value))\n\n\n"
            for i in range(600)
        ),
    }
    for i in range(200):  # together more than the budget
        files[f"app/part_{i:03}.py"] = f"from app import api\n\nX = api.call_{i}(1)\n"
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    shown, packing = _run(tmp_path, "--max-tokens", "4k")
    assert packing["partialIncludedPath"] == "app/api.py"
    assert "app/api.py" not in packing["omittedPaths"]
    parts = sum(path.startswith("app/part_") for path in shown)
    assert 50 < parts < 200  # they fill the rest, and not all of them fit
    result = run_readmany(["glob", ".", "--max-tokens", "4k", "-q"], cwd=tmp_path)
    text = result.stdout.decode()
    assert "Continue with: readmany many app/api.py:" in text
    # Its cut is at least most of the quarter kept for it (in real o200k tokens).
    from readmany.tokenizer import count

    section = text.split("--- app/api.py ---", 1)[1].split("\n\n\n--- ", 1)[0]
    assert count(section) >= 4000 // 4 * 0.8
    # --order given keeps its rule: output order, passing over what does not fit, the
    # first left cut to fill the rest.
    _, given = _run(tmp_path, "--max-tokens", "4k", "--order", "given")
    assert given["strategy"] == "given"


def test_a_bulk_file_that_does_not_fit_first_is_passed_over_not_cut(repo: Path) -> None:
    # The CI file, the lock file and the license rank below the fixtures; the first that
    # does not fit is a one-line fixture or bulk: passed over, smaller ones fill the room.
    _, packing = _run(repo, "--max-tokens", "4k")
    assert packing.get("partialIncludedPath") not in BULK


def test_a_file_that_does_not_fit_whole_is_outlined_before_the_files_ranked_below_it(
    tmp_path: Path,
) -> None:
    # The rule of a ranked plan, file by file in rank order: whole where it fits, else its
    # outline where that fits. The module every file imports does not fit whole; its
    # outline comes before the small modules ranked below it, which together would fill
    # the budget (taken whole first, they left it out).
    files = {
        "README.md": "# app\n",
        "app/api.py": "".join(
            f'def call_{i}(value):\n    """Call {i}."""\n'
            + "".join(f"    value = value * {i} + {j}\n" for j in range(8))
            + "    return value\n\n\n"
            for i in range(60)
        ),
    }
    for i in range(400):  # together more than the budget
        files[f"app/part_{i:03}.py"] = f"from app import api\n\nX = api.call_{i % 60}(1)\n"
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    shown, packing = _run(tmp_path, "--max-tokens", "6k")
    assert packing["outlinedPaths"] == ["app/api.py"]
    assert packing.get("partialIncludedPath") != "app/api.py"
    parts = sum(path.startswith("app/part_") for path in shown)
    assert 50 < parts < 400  # they fill the rest, and not all of them fit


def test_a_bulk_file_ranked_first_is_not_outlined_or_cut_before_the_others_are_placed(
    repo: Path,
) -> None:
    # Preferred, the license ranks first; it does not fit whole. It is neither cut nor
    # outlined while the central files are placed: they are all shown.
    shown, packing = _run(repo, "--max-tokens", "3k", "--prefer", "LICENSE")
    assert packing.get("partialIncludedPath") != "LICENSE"
    assert "LICENSE" not in packing.get("outlinedPaths", [])
    assert "LICENSE" in packing["omittedPaths"]
    assert all(path in shown for path in CENTRAL)


def test_stderr_counts_what_was_left_out_by_place_and_kind_and_the_details_name_all(
    repo: Path,
) -> None:
    # Hundreds of files left out: stderr says where they are and what they are in one
    # short line (it named every one, a wall of text on the terminal); `--json` names all.
    result = run_readmany(["glob", ".", "--max-tokens", "4k"], cwd=repo)
    assert result.returncode == 0, result.stderr
    line = next(
        line for line in result.stderr.decode().splitlines() if "left out by the budget" in line
    )
    omitted = _run(repo, "--max-tokens", "4k")[1]["omittedPaths"]
    assert len(omitted) > FIXTURES // 2
    fixtures = sum(path.startswith("tests/") for path in omitted)
    assert line == (
        f"readmany: left out by the budget ({len(omitted)} of {FIXTURES + MODULES + 8}): "
        f"tests/ ({fixtures} files), .github/ (1 file), LICENSE, poetry.lock; "
        f"by kind: {fixtures} fixture, 1 CI, 1 license, 1 lock file; "
        "all named in --json details.packing.omittedPaths; --tree marks them"
    )
    # The closing notice in the output names them as the budget allows.
    assert b"[Left out by the budget: " in result.stdout
