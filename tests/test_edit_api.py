"""readmany.edit.anchored: parsing, the reference's checks and messages, line endings, ops."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from readmany.edit.anchored import (
    INVALID,
    STALE,
    AppliedRange,
    EditError,
    EditRequest,
    EditResult,
    FileEdit,
    LineOp,
    RangeEdit,
    apply_edits,
    changed_spans,
    line_op,
    normalize_tag,
    parse_anchor,
    parse_request,
    replacement_lines,
    split_range,
    unified_diff,
)
from readmany.read.hashline import decode_lines, file_tag, line_anchor

FOUR = b"one\ntwo\nthree\nfour"  # anchors: 1#uwt 2#nbl 3#fod 4#jdl


def anchor(lines: list[str], number: int) -> str:
    return f"{number}#{line_anchor(lines[number - 1])}"


def edit(data: bytes, *edits: RangeEdit | LineOp, path: str = "f.txt") -> EditResult:
    return apply_edits(data, FileEdit(path, file_tag(data), edits))


def refusal(data: bytes, *edits: RangeEdit | LineOp, tag: str | None = None) -> EditError:
    with pytest.raises(EditError) as caught:
        apply_edits(data, FileEdit("f.txt", tag or file_tag(data), edits))
    return caught.value


# --- tags and anchors --------------------------------------------------------------------


@pytest.mark.parametrize(
    "given_tag",
    ["wvp9OEBl", " wvp9OEBl\t", "#wvp9OEBl", "@file e.txt#wvp9OEBl", "@file a#b.txt#wvp9OEBl",
     "\u00a0wvp9OEBl\u3000", "\ufeffwvp9OEBl"],
)  # fmt: skip
def test_tag_is_found_after_the_last_hash_and_trimmed(given_tag: str) -> None:
    assert normalize_tag(given_tag) == "wvp9OEBl"


@pytest.mark.parametrize("given_tag", ["short", "wvp9OEBl9", "wvp9OEB!", "e.txt#", "", "a b#c"])
def test_malformed_tag_is_invalid_and_quoted_raw(given_tag: str) -> None:
    with pytest.raises(EditError) as caught:
        normalize_tag(given_tag)
    assert caught.value.kind == INVALID
    assert str(caught.value) == (
        f"Invalid file hash: {given_tag}. Expected the eight-character tag from @file path#HASH."
    )


def test_a_python_space_that_javascript_does_not_trim_is_kept() -> None:
    with pytest.raises(EditError):
        normalize_tag("\x1cwvp9OEBl")  # str.strip() would remove it; trim() does not


@pytest.mark.parametrize(
    ("text", "line", "letters"),
    [
        ("5#abc", 5, "abc"),
        ("5:abc", 5, "abc"),
        (" > 3 : FOD |three", 3, "fod"),
        ("+ 3#fod", 3, "fod"),
        (">>-+ 12 #  XyZ", 12, "xyz"),
        ("0007#abc", 7, "abc"),
        ("5#abc|anything | at all ", 5, "abc"),
        ("5#abc|", 5, "abc"),
        ("\u00a05#abc\u3000", 5, "abc"),
        ("9007199254740991#abc", 2**53 - 1, "abc"),
    ],
)
def test_anchor_forms(text: str, line: int, letters: str) -> None:
    assert parse_anchor(text) == (line, letters)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("5#ab", "from the latest read or grep result."),
        ("5#abcd", "from the latest read or grep result."),
        ("#abc", "from the latest read or grep result."),
        ("5abc", "from the latest read or grep result."),
        ("5#ab1", "from the latest read or grep result."),
        ("x5#abc", "from the latest read or grep result."),
        ("> + 5#abc", "from the latest read or grep result."),
        ("\uff15#abc", "from the latest read or grep result."),  # a full-width digit
        ("5#abc|x\u2028y", "from the latest read or grep result."),
        (" " * 20000 + "x", "from the latest read or grep result."),  # and quickly
        ("0#abc", "Expected a positive line number and three letters, such as 5#abc."),
        ("000#abc", "Expected a positive line number and three letters, such as 5#abc."),
        ("9007199254740992#abc", "Expected a positive line number and three letters"),
        ("9" * 5000 + "#abc", "Expected a positive line number and three letters"),
        ("5#abc\n6#def", "not a pasted multiline block."),
        ("5#abc\r", "not a pasted multiline block."),
    ],
)
def test_bad_anchor_messages(text: str, reason: str) -> None:
    with pytest.raises(EditError) as caught:
        parse_anchor(text)
    assert caught.value.kind == INVALID
    assert str(caught.value).startswith(f"Invalid line anchor: {text}. Expected ")
    assert reason in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "parts"),
    [
        ("2#nbl..3#fod", ("2#nbl", "3#fod")),
        ("2#nbl", ("2#nbl", "")),
        ("2#nbl|a..b", ("2#nbl|a..b", "")),
        ("2#nbl|a..b..3#fod", ("2#nbl|a..b", "3#fod")),
        ("2#nbl..", ("2#nbl..", "")),
        ("..3#fod", ("..3#fod", "")),
    ],
)
def test_split_range(spec: str, parts: tuple[str, str]) -> None:
    assert split_range(spec) == parts


# --- the reference's checks, in its order ------------------------------------------------


def test_stale_tag_comes_before_the_utf8_check() -> None:
    data = b"\xff"
    error = refusal(data, RangeEdit("1#abc", "1#abc"), tag="AAAAAAAA")
    assert error.kind == STALE
    assert str(error) == (
        f"Stale file hash AAAAAAAA. Current hash is {file_tag(data)}. Re-read the file and retry."
    )


def test_not_utf8_names_the_path_as_given() -> None:
    data = b"ok\n\xc3\x28\n"
    with pytest.raises(EditError) as caught:
        apply_edits(data, FileEdit("./odd.txt", file_tag(data), (RangeEdit("1#a", "1#a"),)))
    assert caught.value.kind == INVALID
    assert (
        str(caught.value) == "Cannot use hashline tools on ./odd.txt: the file is not valid UTF-8."
    )


def test_edits_are_checked_in_order_each_from_before_to() -> None:
    error = refusal(FOUR, RangeEdit("2#nbl", "9#abc"), RangeEdit("x", "x"))
    assert str(error) == "Invalid edit range 2#nbl to 9#abc: the file has 4 lines."
    error = refusal(FOUR, RangeEdit("2#zzz", "3#yyy"))
    assert str(error) == (
        "Stale line anchor 2#zzz. Current anchor is 2#nbl. Re-read the file and retry."
    )
    error = refusal(FOUR, RangeEdit("2#nbl", "3#yyy"))
    assert error.kind == STALE
    assert str(error) == (
        "Stale line anchor 3#yyy. Current anchor is 3#fod. Re-read the file and retry."
    )


def test_range_backwards_is_invalid_and_quotes_the_request() -> None:
    error = refusal(FOUR, RangeEdit(" 3#fod ", "2#nbl"))
    assert error.kind == INVALID
    assert str(error) == (
        "Invalid edit range  3#fod  to 2#nbl: the starting line follows the ending line."
    )


def test_interior_lines_of_a_range_are_not_checked() -> None:
    assert edit(FOUR, RangeEdit("1#uwt", "4#jdl", "x")).after == b"x"


def test_overlaps_are_refused_after_sorting() -> None:
    error = refusal(FOUR, RangeEdit("3#fod", "4#jdl", "x"), RangeEdit("1#uwt", "3#fod", "y"))
    assert error.kind == INVALID
    assert str(error) == "Overlapping edit ranges 1-3 and 3-4. Merge them and retry."


def test_duplicates_collapse_but_none_and_empty_content_differ() -> None:
    result = edit(FOUR, RangeEdit("2#nbl", "2#NBL", "X"), RangeEdit("2#nbl", "2#nbl", "X"))
    assert (result.after, result.message()) == (
        b"one\nX\nthree\nfour",
        "Edited f.txt (1 range). Re-read before editing it again.",
    )
    error = refusal(FOUR, RangeEdit("2#nbl", "2#nbl"), RangeEdit("2#nbl", "2#nbl", ""))
    assert str(error) == "Overlapping edit ranges 2-2 and 2-2. Merge them and retry."


def test_adjacent_ranges_apply_in_the_original_numbering() -> None:
    result = edit(
        FOUR,
        RangeEdit("3#fod", "3#fod", "c1\nc2\nc3"),
        RangeEdit("1#uwt", "1#uwt", "a1\na2"),
        RangeEdit("2#nbl", "2#nbl"),
    )
    assert result.after == b"a1\na2\nc1\nc2\nc3\nfour"
    assert result.ranges == (
        AppliedRange(1, 1, 1, 2, 1),
        AppliedRange(2, 2, 1, 0, 3),
        AppliedRange(3, 3, 1, 3, 3),
    )
    assert result.message() == "Edited f.txt (3 ranges). Re-read before editing it again."


@pytest.mark.parametrize(
    ("content", "lines"),
    [(None, []), ("", []), ("\n", []), ("\r\n", []), ("\n\n", ["", ""]), ("a", ["a"]),
     ("a\n", ["a"]), ("a\n\n", ["a", ""]), ("a\r\nb\rc", ["a", "b", "c"]),
     ("3#abc|x", ["3#abc|x"])],
)  # fmt: skip
def test_replacement_lines(content: str | None, lines: list[str]) -> None:
    assert replacement_lines(content) == lines


def test_no_change_keeps_the_bytes_and_the_tag() -> None:
    data = b"a\r\nb\nc\rd"
    result = edit(data, RangeEdit("1#buy", "3#urq", "a\nb\nc"))
    assert not result.changed
    assert result.after is data
    assert result.tag_after == result.tag_before == file_tag(data)
    assert result.message() == "No changes needed in f.txt. Re-read before editing it again."


# --- line endings and BOMs ---------------------------------------------------------------


def test_untouched_lines_keep_their_own_endings() -> None:
    data = b"a\r\nb\nc\rd\r\ne"
    result = edit(data, RangeEdit("3#urq", "3#urq", "C1\nC2"))
    # New lines take the first replaced ending; the last one the last replaced ending.
    assert result.after == b"a\r\nb\nC1\rC2\rd\r\ne"


def test_new_lines_of_a_range_take_its_first_ending_and_its_last() -> None:
    data = b"a\nb\r\nc\rd"
    result = edit(data, RangeEdit("1#buy", "3#urq", "1\n2\n3\n4"))
    assert result.after == b"1\n2\n3\n4\rd"


def test_lines_added_at_an_unterminated_end_use_the_files_first_ending() -> None:
    assert edit(b"a\r\nb", RangeEdit("2#ecz", "2#ecz", "b\nc")).after == b"a\r\nb\r\nc"
    assert edit(b"x", RangeEdit("1#dsp", "1#dsp", "x\ny")).after == b"x\ny"


def test_deleting_through_an_unterminated_end_adds_no_newline() -> None:
    assert edit(b"one\r\ntwo\r\nthree", RangeEdit("2#nbl", "3#fod")).after == b"one"
    assert edit(b"a\nb\n", RangeEdit("3#zyb", "3#zyb")).after == b"a\nb"
    assert edit(b"a\nb\n", RangeEdit("1#buy", "3#zyb")).after == b""


def test_bom_is_kept_and_a_second_one_dropped() -> None:
    result = edit(b"\xef\xbb\xbfa\r\nb\r\n", RangeEdit("2#ecz", "2#ecz", "B"))
    assert result.after == b"\xef\xbb\xbfa\r\nB\r\n"
    result = edit(b"\xef\xbb\xbf\xef\xbb\xbfx\n", RangeEdit("1#dsp", "1#dsp", "y"))
    assert result.after == b"\xef\xbb\xbfy\n"


def test_three_boms_cannot_keep_their_endings() -> None:
    data = b"\xef\xbb\xbf" * 3 + b"x\ny"
    error = refusal(data, RangeEdit("2#uhg", "2#uhg", "z"))
    assert line_anchor("y") == "uhg"
    assert error.kind == INVALID
    assert str(error) == (
        "Could not preserve the file line endings safely. The file was not changed."
    )


def test_a_lone_surrogate_from_json_is_written_as_replacement_character() -> None:
    result = edit(b"a", RangeEdit("1#buy", "1#buy", "x\ud800y"))
    assert result.after == "x\ufffdy".encode()


# --- command-line ops --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "text", "after"),
    [
        (b"a\nb\n", "c", b"a\nb\nc\n"),
        (b"a\nb", "c", b"a\nb\nc"),
        (b"a\nb\n", "c\n", b"a\nb\nc\n"),
        (b"a\nb\n", "c\nd", b"a\nb\nc\nd\n"),
        (b"", "c", b"c"),
        (b"", "c\n", b"c"),
        (b"\n", "c", b"\nc\n"),
        (b"a\r\nb\r\n", "c", b"a\r\nb\r\nc\r\n"),
        (b"a\rb", "c\nd", b"a\rb\rc\rd"),
        (b"\xef\xbb\xbfa\n", "c", b"\xef\xbb\xbfa\nc\n"),
        (b"a\n", "\n", b"a\n\n"),
    ],
)
def test_append_keeps_the_final_newline_or_its_absence(
    data: bytes, text: str, after: bytes
) -> None:
    result = edit(data, line_op("append", "", text))
    assert result.after == after
    assert result.message() == "Edited f.txt (1 range). Re-read before editing it again."


@pytest.mark.parametrize(
    ("data", "op", "at", "after"),
    [
        (FOUR, "insert-after", "2#nbl", b"one\ntwo\nX\nY\nthree\nfour"),
        (FOUR, "insert-before", "2#nbl", b"one\nX\nY\ntwo\nthree\nfour"),
        (FOUR, "insert-after", "4#jdl", b"one\ntwo\nthree\nfour\nX\nY"),
        (FOUR, "insert-before", "1#uwt", b"X\nY\none\ntwo\nthree\nfour"),
        (b"a\r\nb\r\n", "insert-before", "1#buy", b"X\r\nY\r\na\r\nb\r\n"),
        (b"a\r\nb\r\n", "insert-after", "3#zyb", b"a\r\nb\r\nX\r\nY\r\n"),
        (b"a\r\nb\r\n", "insert-before", "3#zyb", b"a\r\nb\r\nX\r\nY\r\n"),
        (b"", "insert-before", "1#zyb", b"X\nY"),
        (b"", "insert-after", "1#zyb", b"X\nY"),
        (b"a\n\n", "insert-after", "2#zyb", b"a\n\nX\nY\n"),
    ],
)
def test_inserts(data: bytes, op: str, at: str, after: bytes) -> None:
    assert edit(data, line_op(op, at, "X\nY\n")).after == after


def test_ops_check_their_anchors_like_ranges() -> None:
    assert str(refusal(FOUR, line_op("insert-after", "2#abc", "x"))) == (
        "Stale line anchor 2#abc. Current anchor is 2#nbl. Re-read the file and retry."
    )
    assert str(refusal(FOUR, line_op("insert-before", "7#abc", "x"))) == (
        "Invalid edit range 7#abc to 7#abc: the file has 4 lines."
    )
    assert str(refusal(FOUR, line_op("insert-after", "two", "x"))).startswith(
        "Invalid line anchor: two. "
    )
    assert str(refusal(FOUR, line_op("delete", "3#fod..2#nbl"))) == (
        "Invalid edit range 3#fod to 2#nbl: the starting line follows the ending line."
    )


def test_replace_and_delete_ranges() -> None:
    assert edit(FOUR, line_op("replace", "2#nbl..3#fod", "X")).after == b"one\nX\nfour"
    assert edit(FOUR, line_op("delete", "2#nbl..3#fod")).after == b"one\nfour"
    assert edit(FOUR, line_op("replace", "2#nbl", "")).after == b"one\nthree\nfour"


@pytest.mark.parametrize(
    ("op", "spec", "text", "message"),
    [
        ("replace", "2#nbl", None,
         "--replace needs text: give --content TEXT or --content-file FILE "
         "(to remove lines, use --delete)"),
        ("insert-after", "2#nbl", None,
         "--insert-after needs text: give --content TEXT or --content-file FILE"),
        ("append", "", "", "empty insert: --append needs at least one line of text"),
        ("insert-before", "2#nbl", "",
         "empty insert: --insert-before needs at least one line of text"),
        ("insert-after", "2#nbl..3#fod", "x",
         "--insert-after takes one anchor, not a range: 2#nbl..3#fod"),
        ("delete", "", None, "--delete needs an anchor such as 5#abc"),
        ("move", "2#nbl", None, "unknown edit 'move': use one of --replace, --delete, "
         "--insert-after, --insert-before, --append"),
    ],
)  # fmt: skip
def test_op_usage_errors(op: str, spec: str, text: str | None, message: str) -> None:
    with pytest.raises(EditError) as caught:
        line_op(op, spec, text)
    assert (caught.value.kind, str(caught.value)) == (INVALID, message)


# --- requests ----------------------------------------------------------------------------


def test_request_object_and_list() -> None:
    one = {"path": "a", "hash": "h", "edits": [{"from": "1#a", "to": "2#b"}]}
    assert parse_request(one) == EditRequest(
        (FileEdit("a", "h", (RangeEdit("1#a", "2#b", None),)),), False
    )
    two = {"path": "b", "hash": "g", "edits": [{"from": "1#a", "to": "1#a", "content": None}]}
    assert parse_request([one, {**two, "edits": [{**two["edits"][0], "content": "x"}]}]) == (
        EditRequest(
            (
                FileEdit("a", "h", (RangeEdit("1#a", "2#b"),)),
                FileEdit("b", "g", (RangeEdit("1#a", "1#a", "x"),)),
            ),
            True,
        )
    )


GOOD = {"path": "a", "hash": "h", "edits": [{"from": "1#a", "to": "1#a"}]}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("x", "request: must be object or array of objects"),
        ([], "request: must NOT have fewer than 1 items"),
        ([GOOD, 3], "request: 1: must be object"),
        ({"hash": "h", "edits": []}, "request: must have required property 'path'"),
        ({"path": "a", "edits": []}, "request: must have required property 'hash'"),
        ({"path": "a", "hash": "h"}, "request: must have required property 'edits'"),
        ({**GOOD, "path": 1}, "request: path: must be string"),
        ({**GOOD, "hash": None}, "request: hash: must be string"),
        ({**GOOD, "edits": {}}, "request: edits: must be array"),
        ({**GOOD, "edits": []}, "request: edits: must NOT have fewer than 1 items"),
        ({**GOOD, "edits": ["1#a"]}, "request: edits/0: must be object"),
        ({**GOOD, "edits": [{"to": "1#a"}]},
         "request: edits/0: must have required property 'from'"),
        ({**GOOD, "edits": [{"from": "1#a"}]},
         "request: edits/0: must have required property 'to'"),
        ({**GOOD, "edits": [{"from": 1, "to": "1#a"}]}, "request: edits/0/from: must be string"),
        ({**GOOD, "edits": [{"from": "1#a", "to": "1#a", "content": ["x"]}]},
         "request: edits/0/content: must be string"),
        ([GOOD, {**GOOD, "edits": [GOOD["edits"][0], {"from": "x"}]}],
         "request: 1/edits/1: must have required property 'to'"),
    ],
)  # fmt: skip
def test_request_schema_errors(value: object, message: str) -> None:
    with pytest.raises(EditError) as caught:
        parse_request(value)
    assert (caught.value.kind, str(caught.value)) == (INVALID, message)


# --- views -------------------------------------------------------------------------------


def test_changed_spans_with_context() -> None:
    data = "".join(f"l{n}\n" for n in range(1, 21)).encode()
    lines = decode_lines(data)
    result = edit(
        data,
        RangeEdit(anchor(lines, 3), anchor(lines, 3), "x\ny"),
        RangeEdit(anchor(lines, 6), anchor(lines, 6)),
        RangeEdit(anchor(lines, 15), anchor(lines, 16), "z"),
    )
    # Line 3 became 3-4, line 6 (now 7) went, 15-16 became line 15 of 20 lines.
    assert changed_spans(result) == [(1, 8), (13, 17)]
    assert changed_spans(result, 0) == [(3, 4), (15, 15)]  # a deletion alone has no rows
    whole = edit(b"a\nb", RangeEdit("1#buy", "2#ecz"))
    assert changed_spans(whole) == [(1, 1)]


def test_unified_diff() -> None:
    result = edit(FOUR, RangeEdit("4#jdl", "4#jdl", "FOUR\n\n"), path="src/f.txt")
    assert unified_diff(result) == (
        "--- src/f.txt\n+++ src/f.txt\n@@ -1,4 +1,4 @@\n one\n two\n three\n-four\n"
        "\\ No newline at end of file\n+FOUR\n"
    )
    assert unified_diff(edit(FOUR, RangeEdit("1#uwt", "1#uwt", "one"))) == ""


def test_result_as_json() -> None:
    result = edit(b"a\nb\n", RangeEdit("2#ecz", "2#ecz", "B\nC"))
    assert result.as_json() == {
        "path": "f.txt",
        "tagBefore": file_tag(b"a\nb\n"),
        "tagAfter": file_tag(b"a\nB\nC\n"),
        "changed": True,
        "ranges": [{"from": 2, "to": 2, "removed": 1, "added": 2}],
    }


# --- properties --------------------------------------------------------------------------

_body = st.lists(st.sampled_from(["a", "b", " ", "\t", "é", "😀", "\r", "\n", "\r\n"])).map("".join)


@st.composite
def files(draw: st.DrawFn) -> bytes:
    """Text with any mix of CRLF, LF and lone CR, and up to two BOMs."""
    boms = draw(st.integers(0, 2))
    return b"\xef\xbb\xbf" * boms + draw(_body).encode("utf-8")


def _tokens(text: str) -> list[tuple[str, str]]:
    pieces = re.split(r"(\r\n|\r|\n)", text)
    return list(zip(pieces[0::2], [*pieces[1::2], ""], strict=True))


def _text(data: bytes) -> str:
    text = data.decode("utf-8")
    while text.startswith("\ufeff"):
        text = text[1:]
    return text


@st.composite
def edits_of(draw: st.DrawFn, data: bytes) -> list[tuple[int, int, str | None]]:
    """Disjoint ranges over the file's lines, each with a content or None."""
    count = len(decode_lines(data))
    cuts = sorted(draw(st.sets(st.integers(1, count), min_size=1, max_size=6)))
    chosen: list[tuple[int, int, str | None]] = []
    for index in range(0, len(cuts), 2):
        if chosen and draw(st.booleans()):
            continue
        start = cuts[index]
        end = cuts[index + 1] if index + 1 < len(cuts) and draw(st.booleans()) else start
        content = draw(st.none() | st.text(alphabet="xy\r\n", max_size=8))
        chosen.append((start, end, content))
    return chosen


@given(st.data())
def test_an_edit_built_from_a_reads_anchors_applies(data: st.DataObject) -> None:
    before = data.draw(files())
    lines = decode_lines(before)
    ranges = data.draw(edits_of(before))
    requested = [
        RangeEdit(anchor(lines, first), anchor(lines, last), content)
        for first, last, content in ranges
    ]
    try:
        result = edit(before, *data.draw(st.permutations(requested)))
    except EditError as error:
        # A lone CR ending that new lines would follow with an LF reads back as one CRLF:
        # the reference refuses that rather than write lines it did not mean.
        assert str(error) == (
            "Could not preserve the file line endings safely. The file was not changed."
        )
        assert re.search(rb"\r(?!\n)", before)
        return

    expected = list(lines)
    for first, last, content in reversed(ranges):
        expected[first - 1 : last] = replacement_lines(content)
    assert decode_lines(result.after) == "\n".join(expected).split("\n")
    assert result.tag_after == file_tag(result.after)
    assert result.changed == ("\n".join(expected) != "\n".join(lines))
    assert result.after.startswith(b"\xef\xbb\xbf") == before.startswith(b"\xef\xbb\xbf")

    # Every line no range touched keeps its text and its own line ending, except the
    # line left last when deletions take away everything after it: a file that did not
    # end in a line break still does not.
    tail = len(lines) + 1
    for first, last, content in reversed(ranges):
        if replacement_lines(content) or last != tail - 1:
            break
        tail = first
    old, new = _tokens(_text(before)), _tokens(_text(result.after))
    shift, start = 0, 1
    for first, last, content in [*ranges, (len(lines) + 1, len(lines), "")]:
        for number in range(start, first):
            token = new[number - 1 + shift]
            if number == tail - 1:
                assert token == (old[number - 1][0], "")
            else:
                assert token == old[number - 1]
        shift += len(replacement_lines(content)) - (last - first + 1)
        start = last + 1


@given(st.data())
def test_the_same_edit_after_any_change_of_the_bytes_is_stale(data: st.DataObject) -> None:
    before = data.draw(files())
    lines = decode_lines(before)
    ranges = data.draw(edits_of(before))
    requested = tuple(
        RangeEdit(anchor(lines, first), anchor(lines, last), content)
        for first, last, content in ranges
    )
    changed = data.draw(st.binary(max_size=len(before) + 2).filter(lambda b: b != before))
    with pytest.raises(EditError) as caught:
        apply_edits(changed, FileEdit("f.txt", file_tag(before), requested))
    assert caught.value.kind == STALE
    assert str(caught.value) == (
        f"Stale file hash {file_tag(before)}. Current hash is {file_tag(changed)}. "
        "Re-read the file and retry."
    )


def _ends_with_newline(data: bytes) -> bool:
    return _text(data).endswith(("\n", "\r"))


def _op_lines(text: str) -> list[str]:
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    return normalized.removesuffix("\n").split("\n")


@given(
    files(),
    st.text(alphabet="xy\r\n", min_size=1, max_size=6),
    st.sampled_from(["append", "insert-after", "insert-before"]),
    st.data(),
)
def test_appends_and_inserts_keep_the_final_newline_state(
    before: bytes, text: str, op: str, data: st.DataObject
) -> None:
    inserted = _op_lines(text)
    # A text whose last line is empty ends in a line break wherever it goes.
    assume(inserted[-1])
    lines = decode_lines(before)
    at = "" if op == "append" else anchor(lines, data.draw(st.integers(1, len(lines))))
    try:
        result = edit(before, line_op(op, at, text))
    except EditError as error:  # a lone CR followed by an LF: see the test above
        assert str(error).startswith("Could not preserve the file line endings safely.")
        assert re.search(rb"\r(?!\n)", before)
        return
    assert _ends_with_newline(result.after) == _ends_with_newline(before)
    assert len(decode_lines(result.after)) == len(lines) + len(inserted) - (lines == [""])
