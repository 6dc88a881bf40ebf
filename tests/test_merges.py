"""`merges`: a close count of o200k_base tokens without the tokenizer, by o200k_base's
pieces and its merges with the vocabulary readmany ships; checked against bpe-openai's
own pieces and counts on the recorded samples and on readmany's own source."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import run_readmany

from readmany import merges
from readmany.tokenizer import _load_bindings, count

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
SAMPLES = json.loads((FIXTURES / "token_counts.json").read_text(encoding="utf-8"))["samples"]


def _texts() -> list[tuple[str, str]]:
    """The recorded samples and readmany's own modules and docs."""
    texts = [(sample["name"], sample["text"]) for sample in SAMPLES]
    for path in sorted([*ROOT.glob("readmany/**/*.py"), *ROOT.glob("docs/*.md")]):
        texts.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    return texts


TEXTS = _texts()


@pytest.fixture(scope="module")
def encoding():  # type: ignore[no-untyped-def]
    return _load_bindings().tokenizer_for_encoding("o200k_base")


def test_ascii_text_is_cut_into_the_pieces_o200k_cuts_it_into(encoding) -> None:  # type: ignore[no-untyped-def]
    cut = 0
    for name, text in TEXTS:
        if text.isascii():
            assert merges.split(text) == encoding.pretokenize(text), name
            cut += 1
    assert cut > 50
    # the spaces o200k's \s knows (not 0x1C-0x1F, which Python's \s would take)
    for text in ("a\x1cb  c", "x \t\x0b\x0c\r\n  y", "  \n\n  z", "it's THEY'LL don'T"):
        assert merges.split(text) == encoding.pretokenize(text), repr(text)


def test_the_count_is_the_real_count_or_a_little_more() -> None:
    counted = 0
    for name, text in TEXTS:
        found = merges.count(text)
        if found is None:
            continue
        real = count(text)
        if text.isascii():  # every piece a token or merged as o200k merges it: exact
            assert found.tokens == real, name
        else:  # and each byte of a character that is not ASCII a token, at most
            assert real <= found.tokens <= real + 2 * found.other + 10, name
        counted += 1
    assert counted > 60


def test_a_piece_that_is_a_token_counts_one_and_any_other_is_merged_exactly() -> None:
    ranks = merges.ranks()
    assert merges.count(" the function") == (2, 0, 0)
    # pieces no token is: merged by rank with every ASCII token, as o200k merges them
    # (merged with only the tokens some text uses, `floods` and ` Manifestaed` came out
    # at 2 tokens, not 3 and 4)
    for name in ("_ULONGLONGLTR", "floods", " Manifestaed", "transparenteesbloomes"):
        assert name not in ranks
        assert merges.merge_count(name, ranks) == count(name), name
    # a run of 100,000 spaces, merged a stretch at a time: 782 tokens, as o200k counts
    text = " " * 100_000 + "a\n"
    assert merges.count(text) == (2, 782, 0) and count(text) == 784


def test_the_vocabulary_is_o200k_tokens_in_the_order_they_merge(encoding) -> None:  # type: ignore[no-untyped-def]
    tokens = json.loads((ROOT / "readmany" / "data" / merges.VOCABULARY).read_text())["tokens"]
    # every ASCII token of o200k_base, in the order of their ids, the merges' order (a
    # few, such as "\n//", are made only inside a longer piece: encoded alone they are
    # cut in two)
    ids = [found[0] for found in map(encoding.encode, tokens) if len(found) == 1]
    assert len(ids) > len(tokens) * 0.99
    assert ids == sorted(ids)
    assert all(token.isascii() for token in tokens) and len(tokens) == len(set(tokens)) > 128_000


def test_characters_that_are_not_ascii_count_their_bytes_and_a_margin() -> None:
    # In mostly ASCII text, each run of them its UTF-8 bytes (the most a tokenizer of
    # bytes makes of it) and two tokens more, for the words beside it: never under
    # o200k's count (titlecase letters inside words cut them otherwise than a space)
    mixed = ("plain words " * 10 + "naïve\n") * 20  # 2 bytes in 128
    found = merges.count(mixed)
    assert found.other == 20 * (2 + merges.RUN_MARGIN)
    assert count(mixed) <= found.tokens
    filler = "plain words of the line, " * 8
    words = "".join(f"The con\u01c5sider and the f\u01c5lour, {filler}{i}\n" for i in range(300))
    assert merges.count(words).known and count(words) <= merges.count(words).tokens
    # Text more than 2% of whose bytes are not: the bound of its estimate, alone (bytes
    # would count prose in other scripts 2-4 times over)
    prose = "Überblick: données, 数据, данные.\n" * 200
    bounded = merges.count(prose)
    assert bounded.known == bounded.split == 0
    assert count(prose) <= bounded.tokens < 2 * count(prose)


def test_a_long_text_is_counted_a_stretch_at_a_time() -> None:
    line = "".join(f"value_{i} = compute({i}, 'x')  # row\n" for i in range(100))
    text = line * (merges.STRETCH_CHARS // len(line) * 3)
    found = merges.count(text)
    assert count(text) <= found.tokens <= count(text) + 4  # a token at most at each seam


def test_running_counts_are_the_counts_of_each_head() -> None:
    text = "".join(f"line {i}: some words, and a number {i * 37}\n" for i in range(200))
    ends = [0]
    for line in text.splitlines(keepends=True):
        ends.append(ends[-1] + len(line))
    running = merges.running_counts(text, ends)
    assert running is not None and len(running) == len(ends)
    for lines in (1, 50, 200):
        whole = merges.count(text[: ends[lines]])
        assert whole is not None
        assert abs(running[lines] - whole.tokens) <= lines * 0.05 + 1


@pytest.mark.smoke
def test_the_installed_command_counts_a_budget_with_its_vocabulary(tmp_path: Path) -> None:
    # A large ASCII file under a budget without a tokenizer: counted by its pieces, with
    # the vocabulary the package ships, and within the budget.
    body = "".join(f"def handler_{i}(request, *args):\n    return route({i})\n" for i in range(800))
    (tmp_path / "app.py").write_text(body, encoding="utf-8")
    args = ["glob", "app.py", "--max-tokens", "3000", "--tokenizer", "estimate", "-q"]
    result = run_readmany(args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    written = result.stdout.decode()
    assert 0.9 * 3000 <= count(written) <= 3000


def test_pieces_no_vocabulary_knows_are_merged_only_up_to_a_share_of_the_text() -> None:
    # Random letters: every piece unknown, merging each costs most. Past a quarter of the
    # text merged, the rest counts a token a character: more than o200k's count, never
    # fewer.
    import string

    letters = random.Random(7)
    words = " ".join(
        "".join(letters.choice(string.ascii_lowercase) for _ in range(14)) for _ in range(3000)
    )
    found = merges.count(words)
    assert found is not None
    merged_alone = sum(merges.merge_count(piece, merges.ranks()) for piece in merges.split(words))
    assert count(words) <= merged_alone < found.tokens <= len(words)
