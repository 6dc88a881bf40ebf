"""Reading one file that `readmany glob` matched: classify, gate, check the size, read.

The checks run in the reference's order: the asset gate first (an unrequested image is
reported as such even when it is huge or cannot be opened), then the size limit, then
the kind: binary files are skipped, text and SVG are decoded, assets are base64-encoded.
A per-file problem becomes a value, never an exception.
"""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Callable, Iterator

from readmany.errors import errno_text
from readmany.limits import (
    GLOB_MAX_FILE_BYTES,
    GLOB_MAX_LINE_UNITS,
    GLOB_MAX_LINES,
    GLOB_MAX_SVG_BYTES,
)
from readmany.read.classify import (
    ASSET_KINDS,
    BINARY_SNIFF_BYTES,
    Kind,
    is_binary,
    kinds_by_name,
)
from readmany.read.classify import mime_type as asset_mime_type
from readmany.read.safe import (
    Boundary,
    OpenFailure,
    chunks,
    open_regular,
    read_all,
    read_prefix,
    read_unsized,
    refusal_text,
)
from readmany.read.text import (
    TextRead,
    Whole,
    decode_whole,
    exact_text,
    file_weight,
    read_exact,
    read_text,
    text_of_bytes,
    unchanged,
)
from readmany.record import NamedTuple

Kinds = tuple[Kind | None, Kind]  # what `kinds_by_name` says of a name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from readmany.select.candidates import Candidate

    class Blob(Protocol):
        """A file's bytes held elsewhere (a staged blob): its size first, then its bytes."""

        @property
        def size(self) -> int: ...

        @property
        def missing(self) -> bool: ...

        def head(self, count: int) -> bytes: ...

        def read(self) -> bytes: ...

    from readmany.read.measure import Cost

    MeasureChunks = Callable[[Iterator[bytes], int], Cost]


WHOLE_FILE_BYTES = 256 * 1024  # read at once; bigger text is decoded as it is read

REASON_BINARY = "binary file"
REASON_ASSET = "asset file (image/pdf/audio) was not explicitly requested by name or extension"
REASON_VIDEO = "asset file (video) was not explicitly requested by name or extension"


class MatchedLimits(NamedTuple):
    """What a face allows a matched file: the reference's cuts, or the file as it is."""

    max_lines: int | None = GLOB_MAX_LINES  # None: every line
    max_line_units: int | None = GLOB_MAX_LINE_UNITS  # None: lines are never cut
    max_file_bytes: int = GLOB_MAX_FILE_BYTES  # a larger file is skipped
    exact: bool = False  # the text as it is (line breaks kept), not the reference's lines
    # An SVG larger than this is replaced by the reference's sentence; None: an SVG is
    # read as any text file is.
    max_svg_bytes: int | None = GLOB_MAX_SVG_BYTES
    sniff_typescript: bool = False  # `.ts` decided by content, not taken as text by name


class TextFile(NamedTuple):
    kind: Kind  # "text" or "svg"
    text: TextRead
    size: int
    # The text's estimated tokens (`tokens.text_weight`), where the reader was asked to
    # weigh what it reads (a budget of tokens); else negative.
    weight: float = -1.0
    # What the file costs as stored, (bytes, lines, tokens) as `--stats` measures it from
    # the bytes read, where the reader was asked to (`--stats` with a budget); else None.
    cost: tuple[int, int, int] | None = None
    # Where the reader was asked to keep only the start of a long text (`keep`): `text`
    # holds that start, and this what the whole text holds (its bytes, newlines and
    # weight); None where `text` is all of it.
    whole: Whole | None = None
    # Where the reader was asked for it (`CandidateReader.as_read`) and the text is its
    # bytes unchanged (`text.unchanged`): those bytes, written as they are; `text` is
    # then `AS_READ` (nothing decoded them) and `decoded` gives the text.
    data: bytes | None = None


AS_READ = TextRead("")
"""The `text` of a file kept as its bytes (`TextFile.data`): not its text (`decoded`)."""


def decoded(result: TextFile) -> TextFile:
    """`result` with its text decoded, where it was kept as its bytes (`TextFile.data`)."""
    if result.data is None:
        return result
    return result._replace(text=exact_text(result.data), data=None)


class AssetFile(NamedTuple):
    kind: Kind
    mime_type: str
    data: str  # base64 of the whole file
    size: int


class Skipped(NamedTuple):
    """Not read, by a rule. `category` is the short form of `reason`, for summaries."""

    reason: str
    category: str


class Failed(NamedTuple):
    """Could not be read: `reason` is one line naming the file, in the reference's words.

    `code` says why for a person's words (`frame.notices.read_problem`): an errno name
    (`ENOENT`, `EACCES` …), `ESPECIAL` with the kind of file as `detail`, `EMISSING` for
    a file git's index does not hold; empty where `reason` is all there is to say (a
    refusal at the boundary)."""

    reason: str
    code: str = ""
    detail: str = ""


MatchedRead = TextFile | AssetFile | Skipped | Failed
_REFERENCE = MatchedLimits()


def read_matched(
    path: str,
    rel: str,
    shown: str,
    requested: Callable[[str], bool],
    *,
    listed_regular: bool = False,
    limits: MatchedLimits = _REFERENCE,
    boundary: Boundary | None = None,
    real: str | None = None,
    weigh: bool = False,
    measure: MeasureChunks | None = None,
    keep: int | None = None,
    as_read: bool = False,
) -> MatchedRead:
    """Read the file at `path`; `rel` is its root-relative path, `shown` how it is shown.

    `weigh`: a text shown whole is weighed from its bytes as read (`TextFile.weight`).
    `measure`: such a text is measured too, as `--stats` measures it (`TextFile.cost`).
    `listed_regular`: the walk saw a regular file there (see `open_regular`).
    `boundary`: the root held open, beneath which `rel` is opened without following a
    link the walk did not follow to `real` (see `Boundary.open`), so a file swapped for a
    link between the walk and the read is refused, never read.
    `keep`: of a long text shown as it is (`MatchedLimits.exact`), hold only its first
    `keep` characters, and say what the whole holds (`TextFile.whole`): a budget that
    can show no more than that never holds the file.
    `as_read`: a text that goes out unchanged is kept as its bytes (`TextFile.data`).
    """
    opened = _gate_and_open(path, rel, shown, requested, limits, listed_regular, boundary, real)
    if isinstance(opened, (Skipped, Failed)):
        return opened
    name, kinds, fd, st = opened
    try:
        source = _OpenFile(fd, st.st_size, limits.max_file_bytes)
        return _read_kind(
            name, rel, shown, requested, limits, source, kinds, weigh, measure, keep, as_read
        )
    except OSError as exc:
        return _read_failed(exc, shown)
    finally:
        os.close(fd)


def _gate_and_open(
    path: str,
    rel: str,
    shown: str,
    requested: Callable[[str], bool],
    limits: MatchedLimits,
    listed_regular: bool,
    boundary: Boundary | None,
    real: str | None,
) -> tuple[str, Kinds, int, os.stat_result] | Skipped | Failed:
    """The first steps of a read and of a measure: the asset gate by name, then the file
    opened (beneath `boundary` where there is one). Its name, its kinds by name, the open
    descriptor (the caller closes it) and its stat; or why it is not read."""
    name = os.path.basename(path)
    kinds = kinds_by_name(name, sniff_typescript=limits.sniff_typescript)
    unrequested = _unrequested_by_name(name, kinds, requested)
    if unrequested is not None:
        return unrequested
    try:
        if boundary is not None:
            fd, st = boundary.open(rel, real=real)
        else:
            fd, st = open_regular(path, listed_regular=listed_regular)
    except OpenFailure as failure:
        code = "" if refusal_text(failure) is not None else failure.code
        return Failed(f"Read error: {_open_failure_text(failure)}: {shown}", code, failure.kind)
    return name, kinds, fd, st


def read_blob(
    rel: str,
    shown: str,
    blob: Blob,
    requested: Callable[[str], bool],
    limits: MatchedLimits = _REFERENCE,
) -> MatchedRead:
    """Read a file whose bytes come from elsewhere than the file system (git's index),
    by the same rules as `read_matched`."""
    name = rel.rpartition("/")[2]
    kinds = kinds_by_name(name, sniff_typescript=limits.sniff_typescript)
    unrequested = _unrequested_by_name(name, kinds, requested)
    if unrequested is not None:
        return unrequested
    if blob.missing:
        return Failed(f"Read error: not in the repository: {shown}", "EMISSING")
    return _read_kind(name, rel, shown, requested, limits, blob, kinds)


def _unrequested_by_name(
    name: str, kinds: Kinds, requested: Callable[[str], bool]
) -> Skipped | None:
    """The asset gate, first of all (the reference's order): an image no pattern asked
    for is reported as such even when it is huge or cannot be opened. `kinds`: what
    `kinds_by_name` says of `name`."""
    if kinds[0] in ASSET_KINDS and not requested(name):
        return Skipped(REASON_ASSET, "asset not requested")
    return None


class _OpenFile:
    """An open file as `_read_kind` reads it: a small one read whole, once."""

    def __init__(self, fd: int, size: int, cap: int) -> None:
        self.fd = fd
        if size == 0:
            # procfs and sysfs give a size of 0 for files that hold text: read to the
            # end, at most `cap` bytes (and one more, so that a larger one is skipped).
            self.whole: bytes | None = read_unsized(fd, cap + 1)
            self.size = len(self.whole)
            return
        self.size = size
        self.whole = read_all(fd, size) if size <= WHOLE_FILE_BYTES else None

    def head(self, count: int) -> bytes:
        return self.whole[:count] if self.whole is not None else read_prefix(self.fd, count)

    def read(self) -> bytes:
        return self.whole if self.whole is not None else read_all(self.fd, self.size)

    def reference_text(self) -> TextRead:
        if self.whole is not None:
            return text_of_bytes(self.whole)
        return read_text(self.fd, self.size)  # decoded as it is read, up to the limits

    def base64(self) -> str:
        return _base64(self.fd, self.size)

    def exact(
        self, max_lines: int | None, keep: int | None
    ) -> tuple[TextRead, Whole | None, bytes | None]:
        """The text as it is (`exact_text`), and its bytes where they were read whole; a
        long one decoded as it is read, only its first `keep` characters held if given."""
        if self.whole is not None:
            return exact_text(self.whole, max_lines), None, self.whole
        text, whole = read_exact(self.fd, self.size, max_lines, keep)
        return text, whole, None


def _read_kind(
    name: str,
    rel: str,
    shown: str,
    requested: Callable[[str], bool],
    limits: MatchedLimits,
    source: _OpenFile | Blob,
    kinds: Kinds,
    weigh: bool = False,
    measure: MeasureChunks | None = None,
    keep: int | None = None,
    as_read: bool = False,
) -> MatchedRead:
    """Classify by name and content, gate assets, check the size, and read; `as_read`
    as `read_matched` takes it (a small file read whole, neither weighed nor measured)."""
    kind = _shown_kind(name, shown, requested, limits, source, kinds)
    if isinstance(kind, Skipped):
        return kind
    size = source.size
    if kind == "svg" and limits.max_svg_bytes is not None:
        if size > limits.max_svg_bytes:
            note = f"Cannot display content of SVG file larger than 1MB: {rel}"
            return TextFile(kind, TextRead(note), size)
        return TextFile(kind, decode_whole(source.read()), size)
    if kind in ("text", "svg") and limits.exact:
        if as_read and not weigh and measure is None and isinstance(source, _OpenFile):
            raw = source.whole
            if raw is not None and unchanged(raw, limits.max_lines):
                return TextFile(kind, AS_READ, size, data=raw)
        whole = None
        if isinstance(source, _OpenFile):
            text, whole, raw = source.exact(limits.max_lines, keep)
        else:
            raw = source.read()
            text = exact_text(raw, limits.max_lines)
        cost = None
        if measure is not None:  # the bytes as stored, as --stats measures them
            if raw is not None:
                stored = measure(iter((raw,)), len(raw))
            else:
                assert isinstance(source, _OpenFile)
                stored = measure(chunks(source.fd, source.size), source.size)
            cost = (stored.bytes, stored.lines, stored.tokens)
        weight = -1.0
        if weigh and not text.truncated:  # the text is the bytes: weighed before decoding
            if raw is not None:
                weight = _weigher()(raw)
            else:
                assert isinstance(source, _OpenFile)
                weight = file_weight(source.fd, source.size)
        if whole is not None:
            whole = whole._replace(weight=weight)
            weight = -1.0  # the text held is not all of it
        return TextFile(kind, text, size, weight, cost, whole)
    if kind == "text":
        if isinstance(source, _OpenFile):
            return TextFile(kind, source.reference_text(), size)
        return TextFile(kind, text_of_bytes(source.read()), size)
    if isinstance(source, _OpenFile):
        return AssetFile(kind, asset_mime_type(name, kind), source.base64(), size)
    import base64

    data = base64.b64encode(source.read()).decode("ascii")
    return AssetFile(kind, asset_mime_type(name, kind), data, size)


def _shown_kind(
    name: str,
    shown: str,
    requested: Callable[[str], bool],
    limits: MatchedLimits,
    source: _OpenFile | Blob | _Head,
    kinds: Kinds,
) -> Kind | Skipped:
    """The kind of a file that is shown, or why it is not: by name (`kinds`) and first
    bytes, the asset gate, the size limit, binary content."""
    by_name, binary_kind = kinds
    size = source.size
    kind = by_name or (binary_kind if is_binary(source.head(BINARY_SNIFF_BYTES)) else "text")
    if kind in ASSET_KINDS and not requested(name):
        return Skipped(REASON_VIDEO if kind == "video" else REASON_ASSET, "asset not requested")
    if size > limits.max_file_bytes:
        if limits.exact:
            return Skipped(
                f"too large ({_megabytes(size)} MB, more than --max-file-size "
                f"{_megabytes(limits.max_file_bytes)} MB)",
                "too large",
            )
        return Skipped(
            f"Read error: File size exceeds the 20MB limit: {shown} ({_megabytes(size)}MB)",
            "too large",
        )
    if kind == "binary":
        return Skipped(REASON_BINARY, "binary file")
    return kind


class MeasuredFile(NamedTuple):
    """What a file that would be shown costs, measured from its bytes without decoding:
    bytes and lines as stored, estimated tokens (`read.measure.measure_chunks`); an asset's
    tokens are those of its base64 text."""

    kind: Kind
    bytes: int
    lines: int
    tokens: int


class _Head:
    """An open file as `_shown_kind` looks at it: its size and first bytes, read once."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd = fd
        self.size = size
        self.first = b""

    def head(self, count: int) -> bytes:
        if len(self.first) < min(count, self.size):
            self.first = read_prefix(self.fd, min(count, self.size))
        return self.first[:count]

    def chunks(self) -> Iterator[bytes]:
        """The file's bytes up to its size when opened: the head read, then the rest."""
        if self.first:
            yield self.first
        yield from chunks(self.fd, self.size, start=len(self.first))


def measure_matched(
    path: str,
    rel: str,
    shown: str,
    requested: Callable[[str], bool],
    measure: MeasureChunks,
    *,
    listed_regular: bool = False,
    limits: MatchedLimits = _REFERENCE,
    boundary: Boundary | None = None,
    real: str | None = None,
) -> MeasuredFile | Skipped | Failed:
    """`read_matched`'s decision, with the file measured instead of decoded (`--stats`):
    `measure` is given the file's chunks and its size (`read.measure.measure_chunks`).
    `boundary` and `real` as `read_matched` takes them: nothing outside is opened."""
    opened = _gate_and_open(path, rel, shown, requested, limits, listed_regular, boundary, real)
    if isinstance(opened, (Skipped, Failed)):
        return opened
    name, kinds, fd, st = opened
    try:
        source = _Head(fd, st.st_size)
        kind = _shown_kind(name, shown, requested, limits, source, kinds)
        if isinstance(kind, Skipped):
            return kind
        if kind in ASSET_KINDS:
            return MeasuredFile(kind, st.st_size, 0, _base64_tokens(fd, st.st_size))
        cost = measure(source.chunks(), st.st_size)
        return MeasuredFile(kind, cost.bytes, cost.lines, cost.tokens)
    except OSError as exc:
        return _read_failed(exc, shown)
    finally:
        os.close(fd)


def _base64_tokens(fd: int, size: int) -> int:
    """Estimated tokens of the file's base64 text, weighed on the start of it."""
    import base64

    from readmany.tokens import SAMPLE_BYTES, weight_of_sample

    encoded_size = -(-size // 3) * 4
    sample = base64.b64encode(read_prefix(fd, min(size, SAMPLE_BYTES // 4 * 3)))
    return max(1, round(weight_of_sample(sample, encoded_size))) if size else 0


class CandidateReader:
    """Reads a file the glob walk found, in the main process or in the walk's helper.

    The root it reads beneath is held open from the first file on: close it when done
    (or use `with`)."""

    def __init__(
        self,
        requested: Callable[[str], bool],
        limits: MatchedLimits = _REFERENCE,
        root: str | None = None,
    ) -> None:
        self._requested = requested  # whether the patterns ask for an asset of this name
        self.limits = limits
        self._root = root
        self._boundary: Boundary | None = None  # opened on the first file inside the root
        # Whether a text read is weighed too (`TextFile.weight`): where a budget of tokens
        # needs it, in whichever process reads the file.
        self.weigh = False
        # ... and measured as `--stats` measures it (`TextFile.cost`): `--stats` with a
        # budget, which needs the text read, need not read it twice.
        self.measure_as_read: MeasureChunks | None = None
        # Whether a text that goes out unchanged is kept as the bytes it was read as
        # (`TextFile.data`), never decoded: for a run that writes each file as it reads
        # it and looks at no text (no budget, count, numbering, escape or secret scan;
        # a credentials file is decoded where it is checked, `Report.checked`).
        self.as_read = False

    def __enter__(self) -> CandidateReader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the root and the directories held open; a later read opens them again."""
        if self._boundary is not None:
            self._boundary.close()
            self._boundary = None

    def _boundary_of(self, candidate: Candidate) -> Boundary | None:
        """The root held open, for a candidate inside it (opened on the first)."""
        if self._root is None or candidate.rel.startswith("../"):
            return None
        if self._boundary is None:
            self._boundary = Boundary(self._root)
        return self._boundary

    def __call__(self, candidate: Candidate, shown: str, keep: int | None = None) -> MatchedRead:
        """Read the candidate; `keep` as `read_matched` takes it."""
        gate = _named if candidate.named else self._requested
        boundary = self._boundary_of(candidate)
        if self.as_read and boundary is not None and candidate.real is None:
            return self._as_read(candidate, shown, gate, boundary)
        result = read_matched(
            candidate.path,
            candidate.rel,
            shown,
            gate,
            listed_regular=candidate.regular,
            limits=self.limits,
            boundary=boundary,
            real=candidate.real,
            weigh=self.weigh,
            measure=self.measure_as_read,
            keep=keep,
            as_read=self.as_read,
        )
        return self._weighed(result)

    def _as_read(
        self,
        candidate: Candidate,
        shown: str,
        gate: Callable[[str], bool],
        boundary: Boundary,
    ) -> MatchedRead:
        """`read_matched` for a run that writes each file as it reads it (`as_read`), most
        files in the fewest steps: a small text that goes out unchanged is its bytes.
        Anything else takes `_read_kind`'s way from the same open file, read once."""
        rel = candidate.rel
        name = rel.rpartition("/")[2]
        limits = self.limits
        kinds = kinds_by_name(name, sniff_typescript=limits.sniff_typescript)
        if kinds[0] in ASSET_KINDS and not gate(name):
            return Skipped(REASON_ASSET, "asset not requested")
        try:
            fd, st = boundary.open(rel)
        except OpenFailure as failure:
            code = "" if refusal_text(failure) is not None else failure.code
            return Failed(f"Read error: {_open_failure_text(failure)}: {shown}", code, failure.kind)
        try:
            source = _OpenFile(fd, st.st_size, limits.max_file_bytes)
            raw = source.whole
            if (
                raw is not None
                and kinds[0] is None
                and limits.exact
                and source.size <= limits.max_file_bytes
                and not is_binary(raw)
                and unchanged(raw, limits.max_lines)
            ):
                return TextFile("text", AS_READ, source.size, data=raw)
            return _read_kind(name, rel, shown, gate, limits, source, kinds, as_read=True)
        except OSError as exc:
            return _read_failed(exc, shown)
        finally:
            os.close(fd)

    def _weighed(self, result: MatchedRead) -> MatchedRead:
        """The result, its text weighed where the read did not (a text cut or decoded
        from another encoding, an SVG, a blob)."""
        if self.weigh and isinstance(result, TextFile) and result.weight < 0:
            from readmany.tokens import text_weight

            if result.whole is not None:  # only its start is held: weighed in `whole_cost`
                return result

            return result._replace(weight=text_weight(result.text.body))
        return result

    def blob(self, rel: str, shown: str, blob: Blob) -> MatchedRead:
        """`read_blob` of a staged file, by the same gate and limits as a read."""
        return self._weighed(read_blob(rel, shown, blob, self._requested, self.limits))

    def measure(
        self, candidate: Candidate, shown: str, measure: MeasureChunks
    ) -> MeasuredFile | Skipped | Failed:
        """`measure_matched` of the candidate, by the same gate as a read."""
        gate = _named if candidate.named else self._requested
        return measure_matched(
            candidate.path,
            candidate.rel,
            shown,
            gate,
            measure,
            listed_regular=candidate.regular,
            limits=self.limits,
            boundary=self._boundary_of(candidate),
            real=candidate.real,
        )


@functools.cache
def _weigher() -> Callable[[bytes], float]:
    """`tokens.data_weight`, imported by the first read that weighs."""
    from readmany.tokens import data_weight

    return data_weight


def _named(name: str) -> bool:
    """The gate of a file named exactly: naming it requests it."""
    return True


def _megabytes(size: int) -> str:
    """`size` in MiB with two decimals, halves rounded up (JavaScript's `toFixed(2)`)."""
    hundredths = (size * 100 * 2 + 1024 * 1024) // (2 * 1024 * 1024)
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def _read_failed(exc: OSError, shown: str) -> Failed:
    """A read that failed after the file was opened."""
    code = errno.errorcode.get(exc.errno, "") if exc.errno is not None else ""
    return Failed(f"Read error: {exc.strerror or exc}: {shown}", code)


def _open_failure_text(failure: OpenFailure) -> str:
    refusal = refusal_text(failure)
    if refusal is not None:
        return refusal
    if failure.code in ("ENOENT", "ENOTDIR"):
        return "File not found"
    if failure.code == "EISDIR":
        return "Path is a directory, not a file"
    if failure.code == "ESPECIAL":
        return f"Not a regular file ({failure.kind})"
    return errno_text(failure.code)


def _base64(fd: int, size: int) -> str:
    """The file's bytes as base64, encoded chunk by chunk."""
    import base64

    return "".join(
        base64.b64encode(chunk).decode("ascii") for chunk in _whole_triples(chunks(fd, size))
    )


def _whole_triples(parts: Iterator[bytes]) -> Iterator[bytes]:
    """The same bytes, regrouped so that every piece but the last is a multiple of 3 long."""
    pending = b""
    for part in parts:
        pending += part
        whole = len(pending) - len(pending) % 3
        if whole:
            yield pending[:whole]
            pending = pending[whole:]
    yield pending


def with_total(result: TextFile) -> TextFile:
    """The text, its count of lines that of all of it where only its start is held."""
    if result.whole is None:
        return result
    return result._replace(text=result.text._replace(total_lines=result.whole.lines))


def whole_cost(result: TextFile) -> tuple[int, int, float]:
    """The UTF-8 bytes, newlines and estimated tokens of a text's body, all of it, also
    where only its start is held (`TextFile.whole`); the tokens weighed from the file's
    bytes where they were, else estimated from the start held."""
    from readmany.tokens import text_weight
    from readmany.units import utf8_len

    body = result.text.body
    whole = result.whole
    if whole is None:
        weight = result.weight if result.weight >= 0 else text_weight(body)
        return utf8_len(body), body.count("\n"), weight
    weight = whole.weight
    if weight < 0:  # cut by lines too: the start held, weighed and scaled to the whole
        held = utf8_len(body)
        weight = text_weight(body) * whole.bytes / held if held else 0.0
    return whole.bytes, whole.newlines, weight


HOLD_MARGIN = 1 << 12  # characters held past what a budget can show of a text


def held_text(
    limits: MatchedLimits,
    *,
    max_bytes: int | None,
    max_tokens: int | None,
    bytes_per_token: int,
    plain: bool,
) -> int | None:
    """How many characters of a long text a budget's first pass holds (`read_matched`'s
    `keep`): a little more than the budget's bytes, or its tokens at `bytes_per_token`,
    whichever is less: no cut can show more. None (the whole text) where the text is cut
    by lines (`MatchedLimits.max_lines`), where the budget bounds lines alone, or where
    the block is not the text as it is with a frame around it (`plain` false: numbered
    lines, markdown, xml, or a text checked for secrets)."""
    if not plain or not limits.exact or limits.max_lines is not None:
        return None
    caps = [cap for cap in (max_bytes, max_tokens and max_tokens * bytes_per_token) if cap]
    return min(caps) + HOLD_MARGIN if caps else None
