"""`glob`'s sections written as the files are read (the run without a budget): each file
shown framed and streamed to the sink in pieces, weighed where the sink counts tokens,
and reported; an attachment of `--json` kept for the details instead; the diff of
`--with-diff` last.
"""

from __future__ import annotations

import itertools

from readmany.frame import weigh
from readmany.frame.sections import (
    diff_block,
    diff_tokens,
    text_block_tokens,
    text_pieces,
)
from readmany.read.glob_file import TextFile, decoded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.emit.report import Report
    from readmany.emit.sink import Sink
    from readmany.frame.formats import GlobFraming
    from readmany.read.glob_file import AssetFile


class StreamedSections:
    """The sections of one streamed run, written to `sink` in `framing`, reported to
    `report`; `written`: the blocks written so far."""

    def __init__(self, framing: GlobFraming, sink: Sink, report: Report) -> None:
        self._framing = framing
        self._sink = sink
        self._report = report
        self.written = 0

    def _prefix(self) -> str:
        """What comes before the next block: the start, or what joins two blocks."""
        return self._framing.start(None) if self.written == 1 else self._framing.joint

    def file(self, rel: str, path: str, result: TextFile | AssetFile) -> None:
        """A file shown: its block written and reported, or (`--json`) an asset attached."""
        framing, sink, report = self._framing, self._sink, self._report
        if isinstance(result, TextFile) and result.data is not None:
            frame = None if sink.weigh else framing.frame_as_read(path, result.data)
            if frame is not None:  # the bytes as read, in their frame
                self.written += 1
                head, tail = frame
                size = sink.write_as_read(self._prefix() + head, result.data, tail)
                report.text(path, result, size, 0.0)
                return
            result = decoded(result)
        if isinstance(result, TextFile):
            self.written += 1
            index, text = self.written, result.text
            pieces = text_pieces(framing, report.root, rel, path, text, index)
            prefix = self._prefix()
            tokens = None
            if sink.weigh:
                tokens = weigh(prefix) + text_block_tokens(
                    framing, report.root, rel, path, text, index, result.weight
                )
            size = sink.write_all(itertools.chain((prefix,), pieces), tokens)
            report.text(path, result, size, sink.last_tokens)
        elif sink.json_mode:
            report.attach(path, result)
        else:
            self.written += 1
            index = self.written
            mime, data = result.mime_type, result.data
            block = framing.data_url(path, mime, data, index)
            prefix = self._prefix()
            tokens = None
            if sink.weigh:
                tokens = weigh(prefix) + framing.data_url_tokens(path, mime, data, index)
            size = sink.write_all((prefix, block), tokens)
            report.asset(path, result, size, sink.last_tokens)

    def diff(self, label: str, diff: str) -> None:
        """The diff of `--with-diff`, its section headed `label`, after the files."""
        framing, sink = self._framing, self._sink
        self.written += 1
        index = self.written
        block = diff_block(framing, label, diff, index)
        prefix = self._prefix()
        tokens = None
        if sink.weigh:
            tokens = weigh(prefix) + diff_tokens(framing, label, diff, index)
        sink.write_all((prefix, block), tokens)
        self._report.diff = diff
