"""Anchored edits applied to a file's bytes, exactly as doompi-edit applies them.

An edit names inclusive line ranges by anchor (`5#abc`) in the numbering of the snapshot
its file tag names, and says what replaces each range. Every check refuses, nothing is
repaired: a tag or anchor that no longer matches is *stale*, a malformed, overlapping or
out-of-range request is *invalid* (spec/hashline.md §10). Line endings are kept line by
line, a BOM is kept, and all ranges refer to the original numbering.

`apply_edits` is pure: bytes in, the new bytes (or an `EditError`) out. Reading and
writing files is the command's business (`readmany.commands.edit`).
"""

from __future__ import annotations

import re
from itertools import pairwise

from readmany.read.hashline import (
    BOM,
    HashlineError,
    decode_lines,
    decode_text,
    file_tag,
    is_valid_tag,
    line_anchor,
    normalize_line_breaks,
    not_utf8_message,
    split_lines,
)
from readmany.record import NamedTuple
from readmany.units import SURROGATE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

INVALID = "invalid"
"""A request that cannot be right, whatever the file holds now: fix the request."""
STALE = "stale"
"""A request made against another snapshot of the file: re-read it and retry."""

REPLACE = "replace"
DELETE = "delete"
INSERT_AFTER = "insert-after"
INSERT_BEFORE = "insert-before"
APPEND = "append"
OPS = (REPLACE, DELETE, INSERT_AFTER, INSERT_BEFORE, APPEND)

RANGE_SEPARATOR = ".."
UTF8_BOM = b"\xef\xbb\xbf"

# JavaScript's `\s` and `trim()` set: the reference's anchor pattern and tag trimming use it.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_S = "[" + re.escape(JS_WHITESPACE) + "]"
# What follows the optional markers (`>`, `+`, `-`) and spaces, which are stripped first:
# a regular expression for them too would backtrack quadratically on long runs of spaces.
_ANCHOR_BODY = re.compile(
    rf"([0-9]+){_S}*[:#]{_S}*([a-zA-Z]{{3}})(?:{_S}*\|[^\n\r\u2028\u2029]*)?{_S}*"
)
_MAX_SAFE_INTEGER = 2**53 - 1  # a larger line number is no JavaScript integer
_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")


class EditError(HashlineError):
    """An edit refused: `str(error)` is the exact message, `kind` is INVALID or STALE."""

    def __init__(self, message: str, kind: str = INVALID) -> None:
        super().__init__(message)
        self.kind = kind


class Anchor(NamedTuple):
    """A parsed `5#abc`: the 1-based line and its three letters, lower-cased."""

    line: int
    letters: str


class RangeEdit(NamedTuple):
    """One inclusive range and what replaces it, as the request gives them.

    `content` None or "" deletes the range; otherwise one trailing newline is dropped and
    the rest, split at line breaks, replaces it (so "\\n" deletes too).
    """

    first: str  # the request's `from`
    last: str  # the request's `to`
    content: str | None = None


class LineOp(NamedTuple):
    """A command-line edit (`--insert-after 5#abc` …), made one RangeEdit against the file."""

    op: str  # one of OPS
    first: str = ""  # anchor A ("" for append)
    last: str = ""  # anchor B of a range A..B ("" when the op names one line)
    text: str | None = None


Edit: TypeAlias = RangeEdit | LineOp


class FileEdit(NamedTuple):
    """doompi-edit's arguments for one file: `{"path", "hash", "edits"}`."""

    path: str  # as given: messages show it so
    hash: str  # the tag, or anything ending in it (`@file p#TAG`, `#TAG`)
    edits: tuple[Edit, ...]


class EditRequest(NamedTuple):
    """Edits of one or more files; `listed` when the request was a JSON list."""

    files: tuple[FileEdit, ...]
    listed: bool = False


class AppliedRange(NamedTuple):
    """One range as applied: lines `first`..`last` of the snapshot became `added` lines,
    which start at line `new_first` of the edited file."""

    first: int
    last: int
    removed: int
    added: int
    new_first: int

    def as_json(self) -> dict[str, int]:
        return {"from": self.first, "to": self.last, "removed": self.removed, "added": self.added}


class EditResult(NamedTuple):
    """A file's bytes before and after the edit, and what the edit did."""

    path: str
    before: bytes
    after: bytes  # `before` itself when nothing changed
    tag_before: str
    tag_after: str
    changed: bool
    ranges: tuple[AppliedRange, ...]  # in file order, duplicates collapsed

    def message(self, shown: str | None = None) -> str:
        """The reference's result text, naming the file as `shown` (default: its path)."""
        name = self.path if shown is None else shown
        if not self.changed:
            return f"No changes needed in {name}. Re-read before editing it again."
        count = len(self.ranges)
        noun = "range" if count == 1 else "ranges"
        return f"Edited {name} ({count} {noun}). Re-read before editing it again."

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "tagBefore": self.tag_before,
            "tagAfter": self.tag_after,
            "changed": self.changed,
            "ranges": [applied.as_json() for applied in self.ranges],
        }


# --- parsing -----------------------------------------------------------------------------


def normalize_tag(value: str) -> str:
    """The tag in `value`: trimmed, after its last `#`; eight base64url characters."""
    trimmed = value.strip(JS_WHITESPACE)
    tag = trimmed[trimmed.rfind("#") + 1 :]
    if not is_valid_tag(tag):
        raise EditError(
            f"Invalid file hash: {value}. Expected the eight-character tag from @file path#HASH."
        )
    return tag


def parse_anchor(value: str) -> Anchor:
    """`5#abc`, tolerating what a read or grep row carries around it (` > 5 : ABC |text`)."""
    if "\n" in value or "\r" in value:
        raise EditError(
            f"Invalid line anchor: {value}. "
            "Expected one anchor such as 5#abc, not a pasted multiline block."
        )
    rest = value.lstrip(JS_WHITESPACE).lstrip(">+-").lstrip(JS_WHITESPACE)
    match = _ANCHOR_BODY.fullmatch(rest)
    if match is None:
        raise EditError(
            f"Invalid line anchor: {value}. "
            "Expected one anchor such as 5#abc from the latest read or grep result."
        )
    digits = match.group(1).lstrip("0")
    # Beyond 16 digits it is no safe integer, and int() of thousands of digits is refused.
    line = int(digits) if 0 < len(digits) <= 16 else 0
    if not 1 <= line <= _MAX_SAFE_INTEGER:
        raise EditError(
            f"Invalid line anchor: {value}. "
            "Expected a positive line number and three letters, such as 5#abc."
        )
    return Anchor(line, match.group(2).lower())


def split_range(spec: str) -> tuple[str, str]:
    """`A..B` to (A, B); a spec with no `..` between two anchors is one anchor: (A, "")."""
    start = spec.find(RANGE_SEPARATOR)
    while start != -1:
        first, last = spec[:start], spec[start + len(RANGE_SEPARATOR) :]
        if _is_anchor(first) and _is_anchor(last):
            return first, last
        start = spec.find(RANGE_SEPARATOR, start + 1)
    return spec, ""


def _is_anchor(value: str) -> bool:
    try:
        parse_anchor(value)
    except EditError:
        return False
    return True


def line_op(op: str, spec: str = "", text: str | None = None) -> LineOp:
    """A command-line op, checked for what it needs; raises EditError (INVALID)."""
    flag = f"--{op}"
    if op not in OPS:
        raise EditError(f"unknown edit {op!r}: use one of " + ", ".join(f"--{o}" for o in OPS))
    first, last = split_range(spec) if spec else ("", "")
    if op == APPEND:
        first = last = ""
    elif not first:
        raise EditError(f"{flag} needs an anchor such as 5#abc")
    if op in (INSERT_AFTER, INSERT_BEFORE) and last:
        raise EditError(f"{flag} takes one anchor, not a range: {spec}")
    if op == DELETE:
        return LineOp(op, first, last)
    if text is None:
        hint = " (to remove lines, use --delete)" if op == REPLACE else ""
        raise EditError(f"{flag} needs text: give --content TEXT or --content-file FILE{hint}")
    if op != REPLACE and text == "":
        raise EditError(f"empty insert: {flag} needs at least one line of text")
    return LineOp(op, first, last, text)


def parse_request(value: object) -> EditRequest:
    """doompi-edit's arguments (`{"path", "hash", "edits"}`) or a non-empty list of them.

    Raises EditError (INVALID) naming the first thing that does not fit the schema.
    """
    if isinstance(value, list):
        if not value:
            raise EditError("request: must NOT have fewer than 1 items")
        return EditRequest(
            tuple(_file_edit(item, f"{index}/") for index, item in enumerate(value)), True
        )
    return EditRequest((_file_edit(value, ""),), False)


def _file_edit(value: object, where: str) -> FileEdit:
    if not isinstance(value, dict):
        if where:
            raise EditError(f"request: {where[:-1]}: must be object")
        raise EditError("request: must be object or array of objects")
    for key in ("path", "hash", "edits"):
        if key not in value:
            raise EditError(f"request: {where}must have required property '{key}'")
    for key in ("path", "hash"):
        if not isinstance(value[key], str):
            raise EditError(f"request: {where}{key}: must be string")
    edits = value["edits"]
    if not isinstance(edits, list):
        raise EditError(f"request: {where}edits: must be array")
    if not edits:
        raise EditError(f"request: {where}edits: must NOT have fewer than 1 items")
    parsed = []
    for index, edit in enumerate(edits):
        at = f"{where}edits/{index}"
        if not isinstance(edit, dict):
            raise EditError(f"request: {at}: must be object")
        for key in ("from", "to"):
            if key not in edit:
                raise EditError(f"request: {at}: must have required property '{key}'")
            if not isinstance(edit[key], str):
                raise EditError(f"request: {at}/{key}: must be string")
        content = edit.get("content")
        if content is not None and not isinstance(content, str):
            raise EditError(f"request: {at}/content: must be string")
        parsed.append(RangeEdit(edit["from"], edit["to"], content))
    return FileEdit(value["path"], value["hash"], tuple(parsed))


# --- applying ----------------------------------------------------------------------------


class _Checked(NamedTuple):
    first: Anchor
    last: Anchor
    content: str | None


def apply_edits(data: bytes, request: FileEdit) -> EditResult:
    """Apply `request` to a file's bytes. Raises EditError (INVALID or STALE).

    Checks in the reference's order: the tag's form, the tag, UTF-8, then each edit in
    turn (its anchors' form, its range, its two anchors' letters), then overlaps.
    """
    tag = normalize_tag(request.hash)
    actual = file_tag(data)
    if actual != tag:
        raise EditError(
            f"Stale file hash {tag}. Current hash is {actual}. Re-read the file and retry.", STALE
        )
    try:
        decoded = decode_text(data)
    except UnicodeDecodeError:
        raise EditError(not_utf8_message(request.path)) from None
    original = decoded[1:] if decoded.startswith(BOM) else decoded
    before = normalize_line_breaks(original)
    lines = split_lines(before)

    checked = [_check(_as_range(edit, lines), lines) for edit in request.edits]
    # Exact duplicates (content None and "" differ) collapse, the first kept.
    unique = list(dict.fromkeys(checked))
    ordered = sorted(unique, key=lambda e: (e.first.line, e.last.line))
    for previous, current in pairwise(ordered):
        if current.first.line <= previous.last.line:
            raise EditError(
                f"Overlapping edit ranges {previous.first.line}-{previous.last.line} and "
                f"{current.first.line}-{current.last.line}. Merge them and retry."
            )

    replacements = [replacement_lines(edit.content) for edit in ordered]
    result = list(lines)
    for edit, new in zip(reversed(ordered), reversed(replacements), strict=True):
        result[edit.first.line - 1 : edit.last.line] = new
    text = "\n".join(result)
    edited = _with_original_endings(original, ordered, replacements)
    if normalize_line_breaks(edited) != text:
        raise EditError(
            "Could not preserve the file line endings safely. The file was not changed."
        )

    changed = text != before
    after = _js_utf8((BOM if data.startswith(UTF8_BOM) else "") + edited) if changed else data
    applied = []
    shift = 0
    for edit, new in zip(ordered, replacements, strict=True):
        removed = edit.last.line - edit.first.line + 1
        applied.append(
            AppliedRange(
                edit.first.line, edit.last.line, removed, len(new), edit.first.line + shift
            )
        )
        shift += len(new) - removed
    return EditResult(request.path, data, after, actual, file_tag(after), changed, tuple(applied))


def replacement_lines(content: str | None) -> list[str]:
    """The lines `content` stands for: line breaks normalised, one trailing LF dropped."""
    if not content:
        return []
    text = normalize_line_breaks(content)
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []


def _as_range(edit: Edit, lines: list[str]) -> RangeEdit:
    """A command-line op as the one range edit it stands for, in this file."""
    if isinstance(edit, RangeEdit):
        return edit
    if edit.op in (REPLACE, DELETE):
        return RangeEdit(edit.first, edit.last or edit.first, edit.text)
    new = _op_lines(edit.text)
    count = len(lines)
    if edit.op == APPEND:
        anchor = f"{count}#{line_anchor(lines[-1])}"
    else:
        anchor = edit.first
        line = parse_anchor(anchor).line
        if not 1 <= line <= count:
            return RangeEdit(anchor, anchor, edit.text)  # refused as out of range
        if line < count or lines[-1]:
            own = lines[line - 1]
            both = [own, *new] if edit.op == INSERT_AFTER else [*new, own]
            return RangeEdit(anchor, anchor, _content_of(both))
    # The end of the file. The empty piece after a final newline, or an empty file's one
    # empty line, holds no text: what goes next to it is appended, and the file keeps
    # its final newline, or its lack of one.
    if count == 1 and not lines[0]:
        return RangeEdit(anchor, anchor, _content_of(new))
    if not lines[-1]:
        return RangeEdit(anchor, anchor, _content_of([*new, ""]))
    return RangeEdit(anchor, anchor, _content_of([lines[-1], *new]))


def _op_lines(text: str | None) -> list[str]:
    """An op's text as lines: "\\n" is one empty line, a trailing newline is dropped."""
    if not text:
        raise EditError("empty insert: an insert needs at least one line of text")
    normalized = normalize_line_breaks(text)
    return (normalized[:-1] if normalized.endswith("\n") else normalized).split("\n")


def _content_of(lines: list[str]) -> str:
    """A content that stands for exactly `lines` (one trailing LF is dropped on reading)."""
    return "\n".join(lines) + "\n"


def _check(edit: RangeEdit, lines: list[str]) -> _Checked:
    first = parse_anchor(edit.first)
    last = parse_anchor(edit.last)
    if first.line > last.line:
        raise EditError(
            f"Invalid edit range {edit.first} to {edit.last}: "
            "the starting line follows the ending line."
        )
    if last.line > len(lines):
        raise EditError(
            f"Invalid edit range {edit.first} to {edit.last}: the file has {len(lines)} lines."
        )
    for anchor in (first, last):
        current = line_anchor(lines[anchor.line - 1])
        if current != anchor.letters:
            raise EditError(
                f"Stale line anchor {anchor.line}#{anchor.letters}. "
                f"Current anchor is {anchor.line}#{current}. Re-read the file and retry.",
                STALE,
            )
    return _Checked(first, last, edit.content)


def _with_original_endings(
    original: str, ordered: list[_Checked], replacements: list[list[str]]
) -> str:
    """The edited text with every line break as the original had it, line by line.

    New lines take the ending of the first replaced line that had one (else the file's
    first ending, else LF); the last new line takes the ending of the last replaced line.
    A range deleted up to an unterminated last line takes its predecessor's ending away,
    so no newline appears at the end of the file.
    """
    pieces = _LINE_BREAK.split(original)
    texts = pieces[0::2]
    endings = [*pieces[1::2], ""]
    default = next((ending for ending in endings if ending), "\n")
    for edit, new in zip(reversed(ordered), reversed(replacements), strict=True):
        start, stop = edit.first.line - 1, edit.last.line
        removed = endings[start:stop]
        inherited = removed[-1]
        internal = next((ending for ending in removed if ending), default)
        if not new and inherited == "" and start > 0:
            endings[start - 1] = ""
        texts[start:stop] = new
        endings[start:stop] = [internal] * (len(new) - 1) + [inherited] if new else []
    return "".join(text + ending for text, ending in zip(texts, endings, strict=True))


def _js_utf8(text: str) -> bytes:
    """UTF-8 as the reference writes it: a lone surrogate (from JSON) becomes U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub(SURROGATE, "\ufffd", text).encode("utf-8")


# --- views of a result -------------------------------------------------------------------


def changed_spans(result: EditResult, context: int = 2) -> list[tuple[int, int]]:
    """Inclusive line windows of the edited file around each range's new lines.

    A deleted range shows the `context` lines on either side of where it was; windows
    that touch are merged.
    """
    total = len(decode_lines(result.after))
    windows: list[tuple[int, int]] = []
    for applied in result.ranges:
        start = applied.new_first
        end = start + applied.added - 1 if applied.added else start - 1
        low, high = max(1, start - context), min(total, end + context)
        if low > high:
            continue
        if windows and low <= windows[-1][1] + 1:
            windows[-1] = (windows[-1][0], max(windows[-1][1], high))
        else:
            windows.append((low, high))
    return windows


def unified_diff(result: EditResult, context: int = 3, shown: str | None = None) -> str:
    """The edit as a unified diff of the line-break-normalised texts ("" when unchanged),
    naming the file as `shown` (default: its path)."""
    if not result.changed:
        return ""
    import difflib

    old = _diff_lines(decode_lines(result.before))
    new = _diff_lines(decode_lines(result.after))
    out = []
    name = result.path if shown is None else shown
    for line in difflib.unified_diff(old, new, name, name, n=context):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _diff_lines(lines: list[str]) -> list[str]:
    """Lines with their newlines, as diff counts them: the empty piece after a final LF
    is no line."""
    with_ends = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        with_ends.append(lines[-1])
    return with_ends
