"""A planned `glob` run's reads between its two passes: the texts of the first pass kept
for the second while they fit, the others read again (from where they are, or from git's
index) and checked again; and what a file read whole costs as stored (`--stats`).

The texts kept are the smallest first, within the budget and `KEEP_BYTES`: memory holds
at most a budget's worth of text, and the files a plan shows are mostly those. A text
read again is checked as the first pass checked it (`--secrets`, a credentials file),
without saying anything again: the first pass reported it.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence

from readmany.read.classify import ASSET_KINDS, credentials_name
from readmany.read.glob_file import AssetFile, Failed, MeasuredFile, Skipped, TextFile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.read.glob_file import CandidateReader, MatchedRead, MeasureChunks
    from readmany.read.measure import Cost
    from readmany.select.candidates import Candidate, Item
    from readmany.select.lookahead import Selection

KEEP_BYTES = 8 << 20  # of framed text kept from the first pass for the second, at most
KEEP_BYTES_PER_TOKEN = 8  # ... and with a budget of tokens, this many bytes a token


def keep_bytes(max_bytes: float, max_tokens: float) -> int:
    """How many bytes of framed text the first pass keeps for the second, in a budget."""
    return int(min(max_bytes, max_tokens * KEEP_BYTES_PER_TOKEN, KEEP_BYTES))


class ReadAgain:
    """Reads a file of the first pass again: from where it is, or from git's index."""

    def __init__(self, selection: Selection | None, reader: CandidateReader):
        self._reader = reader
        self._selection = selection  # the staged files' (None: read where they are)
        # The staged files read again from the index: a walk of git's batch, which holds
        # a process and its pipes until it is closed.
        self._walk: Iterator[tuple[object, MatchedRead | MeasuredFile | None]] | None = None
        self._at = -1

    def read(self, item: Item, keep: int | None = None) -> MatchedRead | None:
        assert item.candidate is not None
        if self._selection is None:
            return self._reader(item.candidate, item.path, keep)
        if self._walk is None or self._at >= item.ordinal:
            self.close()
            self._walk = iter(self._selection)
            self._at = -1
        for _event, done in self._walk:
            self._at += 1
            if self._at == item.ordinal:
                return None if isinstance(done, MeasuredFile) else done
        return None

    def close(self) -> None:
        """End the walk of the index begun for the files read again (its git process)."""
        walk, self._walk = self._walk, None
        close = getattr(walk, "close", None)  # a generator's
        if close is not None:
            close()


class Texts:
    """The texts of the first pass for the second: kept, the largest dropped first when
    a smaller one needs its place; or read again and checked again."""

    def __init__(
        self,
        source: ReadAgain,
        items: Sequence[Item],
        *,
        keep_bytes: int,
        hold: int | None,
        secrets: str,
    ) -> None:
        self.source = source
        self._items = items  # the run's, as the first pass finds them
        self._keep_bytes = keep_bytes
        self._hold = hold  # of a long text, what the first pass holds (`held_chars`)
        self._secrets = secrets
        self.keeping = False  # the texts written stay kept (`pop`)
        self.kept: dict[int, TextFile] = {}
        self._sizes: list[tuple[int, int]] = []  # a heap of (-bytes, position)
        self._bytes = 0
        self._last: tuple[int, TextFile | None] | None = None  # the last text cut
        self._read_whole: set[int] = set()  # positions whose text is never held in part

    def keep(self, position: int, text: TextFile, size: int) -> None:
        """Keep the text at `position` for the second pass while there is room: the
        largest kept goes when a smaller one needs its place."""
        if size > self._keep_bytes:
            return
        self.kept[position] = text
        heapq.heappush(self._sizes, (-size, position))
        self._bytes += size
        while self._bytes > self._keep_bytes:
            negative, dropped = heapq.heappop(self._sizes)
            del self.kept[dropped]
            self._bytes += negative

    def read_whole(self, position: int, item: Item, result: TextFile) -> TextFile:
        """The text at `position` (`item`, of which `result` holds the start) read again
        whole, and never held in part again (a cut of it is cut from all of it): its
        block is to be measured exactly. `result` as it is where it is no longer a text,
        or no longer held whole (it grew)."""
        again = self.source.read(item)
        if not isinstance(again, TextFile) or again.whole is not None:
            return result
        self._read_whole.add(position)
        return again

    def pop(self, position: int) -> TextFile | None:
        """The text kept at `position`, no longer kept (it is written as it was); still
        kept while `keeping` (an output rendered to be counted, then written)."""
        if self.keeping:
            return self.kept.get(position)
        return self.kept.pop(position, None)

    def again(self, position: int) -> tuple[MatchedRead | None, bool]:
        """The file at `position` for the second pass, and whether it was kept: a text
        kept is as it was checked and measured; any other is read again and checked again
        (None: a text no longer shown)."""
        kept = self.pop(position)
        if kept is not None:
            return kept, True
        item = self._items[position]
        result = self.source.read(item)
        if isinstance(result, TextFile):
            return self.recheck(item, result), False
        return result, False

    def whole(self, position: int) -> TextFile | None:
        """The whole text of the entry at `position` (not just a held start): kept, or
        read again whole and checked again; None if it is no longer a text shown."""
        text = self.kept.get(position)
        if text is not None and text.whole is None:
            return text
        item = self._items[position]
        result = self.source.read(item)
        text = self.recheck(item, result) if isinstance(result, TextFile) else None
        return text if text is not None and text.whole is None else None

    def text_of(self, position: int) -> TextFile | None:
        """The text of the entry at `position`: kept, or read again (the last one is kept)."""
        if self._last is not None and self._last[0] == position:
            return self._last[1]
        text = self.kept.get(position)
        if text is None:
            item = self._items[position]
            keep = self._hold
            if credentials_name(item.rel) or position in self._read_whole:
                keep = None
            result = self.source.read(item, keep)
            text = self.recheck(item, result) if isinstance(result, TextFile) else None
        self._last = (position, text)
        return text

    def recheck(self, item: Item, result: TextFile) -> TextFile | None:
        """The checks of the first pass, said nothing of again (they were reported)."""
        from readmany.read.secrets import holds_credentials, redact, scan

        body = result.text.body
        if credentials_name(item.rel) and holds_credentials(item.rel, body):
            return None
        mode = self._secrets
        if mode == "skip" and scan(body):
            return None
        if mode == "redact":
            masked = result.text._replace(body=redact(body)[0])
            return result._replace(text=masked, weight=-1.0)
        return result


def first_look(
    reader: CandidateReader,
    measure: MeasureChunks | None,
    *,
    staged: bool,
    sizes: bool,
    every_text: bool,
    attachments: bool,
) -> Callable[
    [Candidate, str, MatchedRead | MeasuredFile | None],
    tuple[bool, MeasuredFile | Skipped | Failed | None, MatchedRead | None],
]:
    """What is known of a file before the first pass reads it: whether that is enough
    (where it costs what it `measure`s and its text cannot change whether it is shown),
    what it costs (or why it is not shown), and what was read of it. The text must be
    read where `sizes` (a budget) weighs it, where `every_text` (`--secrets`) checks it,
    for a credentials file, and for an asset `attachments` (`--json`) keep."""

    def look(
        event: Candidate, path: str, done: MatchedRead | MeasuredFile | None
    ) -> tuple[bool, MeasuredFile | Skipped | Failed | None, MatchedRead | None]:
        cost: MeasuredFile | None = None
        if isinstance(done, MeasuredFile):  # measured by the helper process
            cost, done = done, None
        elif measure is not None and not staged and not sizes:
            # (staged: measured as read; with a budget, a text is measured as it is
            # read, in whichever process reads it: `TextFile.cost`)
            measured = reader.measure(event, path, measure)
            if isinstance(measured, (Skipped, Failed)):
                return True, measured, None
            cost = measured
        enough = (
            cost is not None
            and not sizes
            and not (every_text or credentials_name(event.rel))
            and not (attachments and cost.kind in ASSET_KINDS)
        )
        return enough, cost, None if enough else done

    return look


def stored_cost(
    reader: CandidateReader,
    event: Candidate,
    path: str,
    result: TextFile | AssetFile,
    *,
    staged: bool,
) -> Cost:
    """What a file read whole costs as stored (as `--stats` measures it): measured as it
    was read, or now; from what was read where it is not stored (git's index), or changed
    since."""
    if isinstance(result, TextFile) and result.cost is not None:
        return MeasuredFile(result.kind, *result.cost)
    if not staged:
        from readmany.read.measure import measure_for_stats

        measured = reader.measure(event, path, measure_for_stats)
        if isinstance(measured, MeasuredFile):
            return measured
    return _text_cost(result) if isinstance(result, TextFile) else _asset_cost(result)


def unmeasured(chunks: Iterator[bytes], size: int) -> Cost:
    """No measure (`--tree` alone): the file's size, nothing read."""
    from readmany.read.measure import Measure

    return Measure(size, 0, 0)


def _text_cost(result: TextFile) -> Cost:
    """What a text from git's index costs, measured from it as read."""
    from readmany.read.measure import measure_for_stats

    data = result.text.body.encode("utf-8", "surrogateescape")
    return measure_for_stats([data], len(data))


def _asset_cost(result: AssetFile) -> Cost:
    """What an asset from git's index costs: its size, and the tokens of its base64."""
    from readmany.read.measure import Measure
    from readmany.tokens import token_weight

    tokens = max(1, round(token_weight(result.data.encode("ascii")))) if result.data else 0
    return Measure(result.size, 0, tokens)
