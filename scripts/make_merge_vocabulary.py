"""Make readmany/data/o200k_ascii.json, the tokens `readmany.merges` counts text with.

    python scripts/make_merge_vocabulary.py [--out PATH]

Needs the tokens extra (bpe-openai). Every token of o200k_base that is ASCII text (but
NUL) is kept, in the order of their ids, which is the order o200k_base merges in
(`merges.merge_count`): with all of them, merging a piece as o200k_base does is exact.
(With only the tokens some text uses, merging took other paths, and counted fewer
tokens than o200k_base for `floods` or ` Manifestaed`.) Token ids past the vocabulary's
ordinary tokens, and those that are not text alone (a byte of a UTF-8 sequence), are
skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from readmany.merges import VOCABULARY
from readmany.tokenizer import _load_bindings

OUT = Path(__file__).resolve().parent.parent / "readmany" / "data" / VOCABULARY
IDS = 200_019  # o200k_base's ids, its special tokens among the last


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """bpe-openai prints a panic for an id it cannot decode alone: out of sight."""
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    encoding = _load_bindings().tokenizer_for_encoding("o200k_base")
    tokens: list[str] = []
    with quiet_stderr():
        for token in range(IDS):
            try:
                text = encoding.decode([token])
            except BaseException:  # a Rust panic is a BaseException
                continue
            if text and text.isascii() and "\0" not in text:
                tokens.append(text)
    document = {"encoding": "o200k_base", "tokens": tokens}
    args.out.write_text(json.dumps(document, indent=0, separators=(",", ":")) + "\n")
    print(f"{len(tokens)} tokens -> {args.out}")


if __name__ == "__main__":
    main()
