"""`--json` is what docs/safety.md says it is: the framed text as one `content` string, and
one record a file in `details.read` with the fields it names (not the file's text)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import run_readmany

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_the_json_of_glob_is_as_the_docs_say(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n--- b.py ---\n")
    result = run_readmany(["glob", "a.py", "--json"], cwd=tmp_path)
    value = json.loads(result.stdout)
    text = run_readmany(["glob", "a.py"], cwd=tmp_path).stdout.decode()
    assert value["content"] + "\n" == text  # the framed text, not a string a file
    docs = " ".join(" ".join(path.read_text() for path in DOCS).split())
    sentence = re.search(r"`details\.read` has one record a file \(([^)]*)\)", docs)
    assert sentence is not None
    documented = re.findall(r"`(\w+)`", sentence.group(1))
    (record,) = value["details"]["read"]
    assert list(record) == documented
    assert "one JSON string a file" not in docs
