"""`merges`: the count of o200k_base tokens without the tokenizer, by o200k_base's pieces
and its merges with the vocabulary readmany ships; checked against bpe-openai's own
pieces and counts on the recorded samples (prose in twelve languages among them), on
readmany's own source and on random strings of twenty scripts."""

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


def test_text_in_any_script_is_cut_into_the_pieces_o200k_cuts_it_into(encoding) -> None:  # type: ignore[no-untyped-def]
    cut = 0
    for name, text in TEXTS:
        if not text.isascii():
            assert merges.others().split(text)[0] == encoding.pretokenize(text), name
            cut += 1
    assert cut > 15
    # past U+FFFF (cut as a character of the BMP of the same classes): letters, numbers,
    # marks and symbols; an English contraction after a letter, with a long s
    astral = [
        "\U0001d4af2\U0001d6c2\u2058 \U000103481S!",
        "\U0001f376\U00010d79's",
        "a\U0001d7d7b \U0001e900\U0001e901 x\u0301y",
        "IT'\u017f 丈\U0002002b's",
    ]
    for text in astral:
        assert merges.others().split(text)[0] == encoding.pretokenize(text), repr(text)


def test_the_count_is_the_real_count_or_of_a_few_characters_a_little_more() -> None:
    counted = exact = 0
    for name, text in TEXTS:  # every piece a token or merged as o200k merges it
        found, real = merges.count(text), count(text)
        if text.isascii() or merges.other_bytes(text) > 0.02 * len(text.encode()):
            assert found.tokens == real, name
            exact += 1
        else:  # a few characters not ASCII: their bytes and a margin, at most
            assert real <= found.tokens <= real + 2 * found.other + 10, name
        counted += 1
    assert counted > 60 and exact > 50


def test_random_strings_of_twenty_scripts_count_what_o200k_counts() -> None:
    # Letters, marks, digits and symbols of the BMP and past it, controls, private use
    # and unassigned characters, beside ASCII words, contractions and line breaks: the
    # pieces and their merges, exact; only what Unicode 16.0 leaves unassigned adds a
    # margin (`other`), 2 tokens a run.
    blocks = [
        (0x20, 0x7E), (0x00, 0x1F), (0xA0, 0x24F), (0x300, 0x36F), (0x370, 0x4FF),
        (0x590, 0x6FF), (0x900, 0x97F), (0xE00, 0xE7F), (0x1100, 0x11FF), (0x2000, 0x206F),
        (0x3040, 0x30FF), (0x4E00, 0x4FFF), (0xAC00, 0xAD00), (0xE000, 0xE0FF),
        (0xFF00, 0xFFFF), (0x10000, 0x10FFF), (0x1D400, 0x1D7FF), (0x1E000, 0x1EFFF),
        (0x1F300, 0x1F6FF), (0x20000, 0x20100), (0x31350, 0x323AF), (0x10FFF0, 0x10FFFF),
    ]  # fmt: skip
    words = [" ", "\n", "\t", "\r\n", "'s", "'LL", "abc", " The", "123", ".,!", "\0", "\u017f"]
    rng = random.Random(20)
    for _ in range(3000):
        text = "".join(
            chr(rng.randint(*rng.choice(blocks))) if rng.random() < 0.6 else rng.choice(words)
            for _ in range(rng.randint(1, 50))
        )
        found = merges.count(text)
        assert found.known + found.split == count(text), repr(text)
        assert found.other % merges.UNASSIGNED_MARGIN == 0


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
    # the ASCII tokens and the others: every rank of o200k_base's 199,998 once
    others = merges.others()
    ranks = sorted([*others.ranks.values(), *others.ascii_ranks])
    assert ranks == list(range(199_998)) and len(others.ascii_ranks) == len(tokens)
    single = ["数据", " данные", " für", "\0\0"]
    single = [token for token in single if len(encoding.encode(token)) == 1]
    assert len(single) >= 3
    for token in single:
        assert others.get(token.encode(), -1) == encoding.encode(token)[0], token
    # every ASCII token of o200k_base, in the order of their ids, the merges' order (a
    # few, such as "\n//", are made only inside a longer piece: encoded alone they are
    # cut in two)
    ids = [found[0] for found in map(encoding.encode, tokens) if len(found) == 1]
    assert len(ids) > len(tokens) * 0.99
    assert ids == sorted(ids)
    assert all(token.isascii() for token in tokens) and len(tokens) == len(set(tokens)) > 128_000


def test_a_few_characters_that_are_not_ascii_count_their_bytes_and_a_margin() -> None:
    # In mostly ASCII text (2% of its bytes or fewer), each run of them its UTF-8 bytes
    # (the most a tokenizer of bytes makes of it) and two tokens more, for the words
    # beside it: never under o200k's count (titlecase letters inside words cut them
    # otherwise than a space), and the other tokens, 50 ms to load, are not needed.
    mixed = ("plain words " * 10 + "naïve\n") * 20  # 2 bytes in 128
    found = merges.count(mixed)
    assert found.other == 20 * (2 + merges.RUN_MARGIN)
    assert count(mixed) <= found.tokens
    filler = "plain words of the line, " * 8
    words = "".join(f"The con\u01c5sider and the f\u01c5lour, {filler}{i}\n" for i in range(300))
    assert merges.count(words).known and count(words) <= merges.count(words).tokens


def test_text_that_is_not_ascii_is_counted_as_o200k_counts_it() -> None:
    # prose in other scripts, characters past U+FFFF: exact (text more than 2% of whose
    # bytes are not ASCII had been bounded by its estimate, 1.3 times its real count)
    texts = [
        "Überblick: données, 数据, данные.\n" * 200,
        "def \U0001d4bb(x): return '\U0001d7d9\U0001d7da' + x  # \U00010348\U00010349\n" * 50,
        "".join(f"The con\u01c5sider and the f\u01c5lour {i}\n" for i in range(30)),
    ]
    for text in texts:
        found = merges.count(text)
        assert found.tokens == count(text) and found.other == 0, text[:20]
    # a character Unicode 16.0 does not assign: 2 tokens more a run of them, never under
    # what a tokenizer of a later Unicode may make of the words beside it
    unassigned = "a\u0378b \U000e0080\U000e0081 c"
    found = merges.count(unassigned)
    assert found.other == 2 * merges.UNASSIGNED_MARGIN
    assert found.known + found.split == count(unassigned)


def test_pieces_that_are_not_ascii_are_merged_whole_and_ascii_ones_within_an_allowance() -> None:
    # 15,000 random emoji are one piece of 60,000 bytes, merged whole, a stretch at a
    # time, a margin at each seam (a token a byte past an allowance counted Japanese prose
    # 2.2 times over)
    rng = random.Random(0)
    emoji = "".join(chr(rng.randint(0x1F300, 0x1F6FF)) for _ in range(15_000))
    found = merges.count(emoji)
    seams = (len(emoji.encode()) - 1) // merges.LONGEST
    assert found.known + found.split == count(emoji) + merges.SEAM_MARGIN * seams
    # past 64 KiB, one piece (a file of one line of them) counts a token a byte: 19 MB of
    # it had taken 13 s to merge
    longer = emoji + emoji[:2000]
    assert merges.count(longer).split == len(longer.encode()) > count(longer)
    # random ASCII letters, which no token covers: a quarter of the text merged, the
    # rest a token a character, never under (merging it all took 2-3 ms a KB)
    letters = " ".join(
        "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(rng.randint(8, 30)))
        for _ in range(4000)
    )
    found = merges.count(letters)
    assert count(letters) < found.tokens <= len(letters)


def test_a_piece_over_256_bytes_is_merged_a_stretch_at_a_time_never_under() -> None:
    # Merged whole, a piece's tokens can cross the seam of two stretches and make more
    # (257 dots: 6 tokens, 5 in two stretches): a margin at each seam keeps it over.
    for text in (
        "." * 257,
        (":" * 256 + "\n") * 3,
        "." * 256 + "/",
        "~" * 133 + "-" * 195,
        "\u0430\u0432" * 1000,
        "".join(random.Random(3).choice("ACGT") for _ in range(3000)),
    ):
        found = merges.count(text)
        assert count(text) <= found.tokens, text[:12]
    seams = merges.count("." * 257).split - merges.count("." * 256).split - 1
    assert seams == merges.SEAM_MARGIN
    # white space of line breaks and spaces in turn: 2 more a seam merged whole (a run of
    # one white space character is as many tokens either way, and counts no margin)
    white = "x" + ("\n\n" + " " * 250 + "\r\r\r\n") * 400 + "y"
    assert count(white) <= merges.count(white).tokens
    spaces = " " * 100_000 + "a\n"
    assert merges.count(spaces).tokens == count(spaces)
    # lines of 300 spaces before a word: each run merged once, remembered (counted a
    # token a character past the allowance, 200 of them took 51,520 tokens, not 1,200)
    lines = "".join(" " * 300 + f"word{i}\n" for i in range(200))
    assert merges.count(lines).tokens <= 1.1 * count(lines)


def test_a_long_text_is_counted_a_stretch_at_a_time() -> None:
    line = "".join(f"value_{i} = compute({i}, 'x')  # row\n" for i in range(100))
    text = line * (merges.STRETCH_CHARS // len(line) * 3)
    found = merges.count(text)
    assert count(text) <= found.tokens <= count(text) + 4  # a token at most at each seam


def test_a_long_text_past_most_is_not_counted_on_but_taken_at_the_same_rate() -> None:
    # A budget asks whether a file fits: past `most`, the rest of a long text is taken at
    # the tokens a character of what was counted (a file of 5 MB read small by the
    # estimate was counted whole, seconds a file)
    line = "".join(f"value_{i} = compute({i}, 'x')  # row\n" for i in range(100))
    text = line * (merges.STRETCH_CHARS // len(line) * 8)
    whole = merges.count(text)
    cut = merges.count(text, most=1000)
    assert cut.known + cut.split < (whole.known + whole.split) / 4
    assert 0.95 * whole.tokens <= cut.tokens <= 1.05 * whole.tokens


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
    # A large file under a budget without a tokenizer, ASCII and in other scripts:
    # counted by its pieces, with both vocabularies the package ships, within the budget.
    body = "".join(f"def handler_{i}(request, *args):\n    return route({i})\n" for i in range(800))
    (tmp_path / "app.py").write_text(body, encoding="utf-8")
    line = "第{}章\uff1a数据的读取。Глава {}: чтение данных. Überblick.\n"
    prose = "".join(line.format(i, i) for i in range(900))
    (tmp_path / "notes.md").write_text(prose, encoding="utf-8")
    for name in ("app.py", "notes.md"):
        args = ["glob", name, "--max-tokens", "3000", "--tokenizer", "estimate", "-q"]
        result = run_readmany(args, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        written = result.stdout.decode()
        assert 0.9 * 3000 <= count(written) <= 3000, name


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
