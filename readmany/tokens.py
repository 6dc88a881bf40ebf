"""The token estimate: one token per four bytes of UTF-8, rounded up.

A documented rule of thumb, not a tokenizer: for English prose and source code the common
language-model tokenizers average three to five bytes per token, so four is a middle
estimate that needs no model at run time.
"""

from __future__ import annotations

BYTES_PER_TOKEN = 4


def estimate_tokens(byte_count: int) -> int:
    return -(-byte_count // BYTES_PER_TOKEN)
