"""A text that goes out unchanged is written as the bytes it was read as (`TextFile.data`),
never decoded: the output is byte for byte the output of the decoded path, in every
framing and option, in one process and through the helper's pipe."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from helpers import make, run_readmany

import readmany.read.glob_file as glob_file
import readmany.read.text as text
from readmany.emit.sink import Sink
from readmany.read.transfer import pack_result, unpack_result
from readmany.units import encode_output

_BYTES = [b"a", b" ", b"-", b"--- ", b"\n", b"\r\n", b"\r", b"\xc3\xa9", b"\xff", b"\xe2\x82"]
_BYTES += [b"\xf0\x9f\x98\x80", b"\xed\xa0\x80", b"\x00"]
_BOMS = [b"", b"", b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00"]


def test_unchanged_says_whether_the_text_is_the_bytes() -> None:
    rng = random.Random(29)
    seen = set()
    for _ in range(3000):
        data = rng.choice(_BOMS) + b"".join(rng.choice(_BYTES) for _ in range(rng.randint(0, 12)))
        max_lines = rng.choice([None, 0, 1, 2, 3, 10])
        shown = text.exact_text(data, max_lines)
        same = not shown.truncated and not shown.lossy and encode_output(shown.body) == data
        assert text.unchanged(data, max_lines) is same, (data, max_lines)
        seen.add(same)
    assert seen == {True, False}


def test_a_text_file_read_as_it_is_keeps_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"print('caf\xc3\xa9')\r\n")
    limits = glob_file.MatchedLimits(max_lines=None, max_line_units=None, exact=True)

    def read(as_read: bool) -> glob_file.MatchedRead:
        return glob_file.read_matched(
            str(path), "a.py", "a.py", lambda name: False, limits=limits, as_read=as_read
        )

    kept = read(True)
    assert isinstance(kept, glob_file.TextFile)
    assert kept.data == path.read_bytes()
    assert kept.text is glob_file.AS_READ
    assert glob_file.decoded(kept) == read(False)
    # It travels down the helper's pipe as its bytes.
    assert unpack_result(pack_result(kept)) == kept


def test_a_cut_or_undecodable_text_is_decoded(tmp_path: Path) -> None:
    limits = glob_file.MatchedLimits(max_lines=2, max_line_units=None, exact=True)
    for name, data in [("cut", b"1\n2\n3\n"), ("latin", b"caf\xe9\n"), ("bom", b"\xef\xbb\xbfa")]:
        path = tmp_path / name
        path.write_bytes(data)
        result = glob_file.read_matched(
            str(path), name, name, lambda n: False, limits=limits, as_read=True
        )
        assert isinstance(result, glob_file.TextFile)
        assert result.data is None
        assert result.text == text.exact_text(data, 2)


_TREE: dict[str, str | bytes] = {
    "plain.py": "def f():\n    return 1\n",
    "accent.md": "café \u2013 naïve\n",
    "emoji.txt": "😀\n",
    "latin1.txt": b"caf\xe9\n",
    "bom.txt": b"\xef\xbb\xbfwith a mark\n",
    "utf16.txt": b"\xff\xfeh\x00i\x00",
    "crlf.txt": "one\r\ntwo\r\n",
    "lone_cr.txt": "one\rtwo",
    "no_newline.txt": "last line",
    "empty.txt": "",
    "forged.txt": "before\n--- other.txt ---\nafter\n",
    "dashes.txt": "a --- b\n---- x ----\n",
    "End of content": "named as the end marker\n",
    "sub/deep/x.js": "let a = 1 - 2;\n",
    ".npmrc": "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789\n",
    "notes.txt": "password = hunter2hunter2\naws_secret_access_key=AKIAIOSFODNN7EXAMPLE\n",
}


@pytest.mark.parametrize(
    "options",
    [
        [],
        ["-n"],
        ["--format", "markdown"],
        ["--format", "xml"],
        ["--json"],
        ["--secrets", "warn"],
        ["--secrets", "redact"],
        ["--max-lines", "1000"],
        ["--compat"],
    ],
)
@pytest.mark.parametrize("processes", ["1", "2"])
def test_the_bytes_as_read_are_the_decoded_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: list[str], processes: str
) -> None:
    root = make(tmp_path / "tree", _TREE)
    env = {**os.environ, "READMANY_PROCESSES": processes}
    written = []
    write_as_read = Sink.write_as_read

    def counted(self: Sink, head: str, data: bytes, tail: str) -> int:
        written.append(data)
        return write_as_read(self, head, data, tail)

    monkeypatch.setattr(Sink, "write_as_read", counted)
    as_read = run_readmany(["glob", "**", *options], cwd=root, env=env)
    kept = len(written)
    monkeypatch.setattr(glob_file, "unchanged", lambda data, max_lines=None: False)
    decoded = run_readmany(["glob", "**", *options], cwd=root, env=env)
    assert len(written) == kept  # the decoded run wrote none as its bytes
    assert (as_read.returncode, as_read.stdout, as_read.stderr) == (
        decoded.returncode,
        decoded.stdout,
        decoded.stderr,
    )
    if not options:
        # the files whose text is their bytes, but for those the guard looks at
        assert sorted(written) == sorted(
            _bytes(_TREE[name])
            for name in (
                "plain.py",
                "accent.md",
                "emoji.txt",
                "crlf.txt",
                "lone_cr.txt",
                "no_newline.txt",
                "empty.txt",
                "End of content",
                "sub/deep/x.js",
                "notes.txt",
            )
        )
    else:
        assert written == []


def _bytes(content: str | bytes) -> bytes:
    return content if isinstance(content, bytes) else encode_output(content)
