"""Make readmany/data/o200k_ascii.json, the tokens `readmany.merges` counts ASCII text with.

    python scripts/make_piece_vocabulary.py ROOT [ROOT ...] [--out PATH]

Needs the tokens extra (bpe-openai). Each ROOT's tracked text files (`git ls-files`,
ASCII, not over 1 MB, no NUL) are tokenized with o200k_base, and every token they use
that is ASCII text is kept: the vocabulary of the text that source code and its docs
are made of, a fifth of o200k_base's. So is every ASCII token of up to `SHORT`
characters, which the merges of a word pass through, and every run of spaces, tabs
or line breaks that is a token. Written as JSON: the roots with
their commits and files, and the tokens in the order of their ids (which is the order
o200k_base merges in: `merges.merge_count`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from readmany.merges import VOCABULARY
from readmany.tokenizer import _load_bindings

MAX_BYTES = 1 << 20
SHORT = 3  # characters: every ASCII token this short is kept
LONG_RUN = 256  # characters: every token that is a run of one space character, up to this
OUT = Path(__file__).resolve().parent.parent / "readmany" / "data" / VOCABULARY


def texts(root: Path) -> list[str]:
    """The ASCII text of each file git tracks under `root`."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True
    ).stdout
    found = []
    for name in sorted(listed.decode("utf-8", "surrogateescape").split("\0")):
        path = root / name
        if not name or path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if data and len(data) <= MAX_BYTES and data.isascii() and b"\0" not in data:
            found.append(data.decode("ascii"))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    encoding = _load_bindings().tokenizer_for_encoding("o200k_base")
    used: set[int] = set()
    sources = []
    for root in args.roots:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        found = texts(root)
        for text in found:
            used.update(encoding.encode(text))
        sources.append({"name": root.resolve().name, "commit": commit, "files": len(found)})
    ids = {}
    for token in used:
        text = encoding.decode([token])
        if text and text.isascii():
            ids[text] = token
    characters = [chr(code) for code in range(1, 128)]
    for size in range(1, SHORT + 1):
        for letters in itertools.product(characters, repeat=size):
            text = "".join(letters)
            encoded = encoding.encode(text)
            if len(encoded) == 1:
                ids[text] = encoded[0]
    for character in " \t\n":  # runs of spaces, tabs, line breaks: indentation, padding
        for size in range(SHORT + 1, LONG_RUN + 1):
            encoded = encoding.encode(character * size)
            if len(encoded) == 1:
                ids[character * size] = encoded[0]
    tokens = sorted(ids, key=ids.__getitem__)
    document = {"encoding": "o200k_base", "sources": sources, "tokens": tokens}
    args.out.write_text(json.dumps(document, indent=0, separators=(",", ":")) + "\n")
    print(f"{len(tokens)} tokens from {sum(s['files'] for s in sources)} files -> {args.out}")


if __name__ == "__main__":
    main()
