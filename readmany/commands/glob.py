"""`readmany glob`: select by globs and ignore rules, read, frame with `--- path ---`.

The walk, the reads and the output advance together: each file is read and its section
written as the walk reaches it, in output order (the walk may run in a helper process
that also reads ahead: see `walker`). Memory does not grow with the number of
files, except for the per-file records of `--json` details.
"""

from __future__ import annotations

import os

from readmany.commands import FileStat, Outcome, Tally
from readmany.commands.walker import GlobRequest, Selection, open_selection, shown_path
from readmany.emit.render import Presentation, present
from readmany.emit.sink import Attachment, Sink
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK, UsageError
from readmany.frame.separator import frame_data_url, frame_end, frame_separator
from readmany.invoke import Options, stdin_paths
from readmany.read.matched import AssetFile, CandidateReader, Skipped, TextFile
from readmany.select.candidates import REASON_IGNORED, REASON_LINK_OUTSIDE, REASON_OUTSIDE, Skip
from readmany.select.patterns import RequestedAssets
from readmany.tokens import estimate_tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TRUNCATED = "truncated to the line limits"
_SELECT_CATEGORIES = {
    REASON_OUTSIDE: "outside the root",
    REASON_IGNORED: "ignored",
    REASON_LINK_OUTSIDE: "symlink outside the root",
}


def main(options: Options) -> int:
    """`readmany glob` with its parsed options: the request value, run and presented."""
    root = options.text("root") or "."
    if not os.path.isdir(root):
        raise UsageError(f"--root {root!r} is not a directory")
    stdin = options.flag("stdin")
    value = GlobRequest(
        patterns=options.texts("patterns") + options.texts("include"),
        excludes=options.texts("exclude"),
        use_default_excludes=not options.flag("no_default_excludes"),
        use_gitignore=not options.flag("no_gitignore"),
        ignore_files=options.texts("ignore_file"),
        recursive=not options.flag("no_recursive"),
        root=root,
        absolute=options.flag("absolute"),
        literal_paths=tuple(stdin_paths(options.flag("null"))) if stdin else (),
    )
    if not value.patterns and not stdin:
        raise UsageError("no pattern given: name at least one PATTERN (or use --stdin)")
    # The walk starts first: in a helper process, it goes on while the rest is set up.
    with open_selection(value) as selection:
        return present(lambda sink: run_glob(value, sink, selection), Presentation.of(options))


def run_glob(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """Select, read, frame and write; `selection` is the walk if it was started already."""
    with selection or open_selection(request) as selection:
        report = _Report(selection.root, keep_records=sink.json_mode)
        read = CandidateReader(RequestedAssets(request.patterns))
        any_section = False
        absolute = request.absolute
        for event, done in selection:
            path = shown_path(report.root, event.rel, True) if absolute else event.rel
            if isinstance(event, Skip):
                if event.failed:
                    report.fail(path, f"{path}: {event.reason}", event.reason)
                else:
                    report.skip(path, event.reason, _SELECT_CATEGORIES[event.reason])
                continue
            result = done if done is not None else read(event, path)
            if isinstance(result, TextFile):
                block = frame_separator(path, result.text.body, result.text.truncated)
                report.text(path, result, sink.write(block))
                any_section = True
            elif isinstance(result, AssetFile):
                if sink.json_mode:
                    report.attachments.append(Attachment(path, result.mime_type, result.data))
                    report.asset(path, result, 0)
                else:
                    block = frame_data_url(path, result.mime_type, result.data)
                    report.asset(path, result, sink.write(block))
                any_section = True
            elif isinstance(result, Skipped):
                report.skip(path, result.reason, result.category)
            else:  # Failed
                report.fail(path, result.reason, result.reason)
            sink.file_done(path)
    sink.write(frame_end(any_section))
    return report.outcome(sink.bytes_written)


class _Report:
    """What became of each matched file: details, the tally and stderr lines.

    Per-file records are kept only for `--json` details (`keep_records`); otherwise
    memory does not grow with the number of files.
    """

    def __init__(self, root: str, *, keep_records: bool) -> None:
        self.root = root
        self.keep_records = keep_records
        self.files: list[str] = []
        self.read: list[dict[str, Any]] = []
        self.outside: list[dict[str, str]] = []  # listed first, as the reference does
        self.skipped: list[dict[str, str]] = []
        self.attachments: list[Attachment] = []
        self.problems: list[str] = []
        self.tally = Tally()

    def text(self, path: str, result: TextFile, size: int) -> None:
        text = result.text
        if text.truncated:
            self.tally.add(FileStat(path, "cut", size, _TRUNCATED))
        else:
            self.tally.add_read(path, size)
        if self.keep_records:
            self._record(path, result, size, truncated=text.truncated, lossy=text.lossy)

    def asset(self, path: str, result: AssetFile, size: int) -> None:
        self.tally.add(FileStat(path, "read", size))
        self._record(path, result, size, mimeType=result.mime_type)

    def _record(self, path: str, result: TextFile | AssetFile, size: int, **facts: Any) -> None:
        """The `--json` record of a file read: what it is and what it took of the output."""
        if not self.keep_records:
            return
        self.files.append(path)
        self.read.append(
            {
                "path": path,
                "kind": result.kind,
                "bytes": result.size,
                **facts,
                "outputBytes": size,
                "estimatedTokens": estimate_tokens(size),
            }
        )

    def skip(self, path: str, reason: str, category: str) -> None:
        self.tally.add(FileStat(path, "skipped", 0, category))
        if self.keep_records:
            records = self.outside if reason == REASON_OUTSIDE else self.skipped
            records.append({"path": path, "reason": reason})

    def fail(self, path: str, problem: str, reason: str) -> None:
        self.tally.add(FileStat(path, "error", 0, "read failed"))
        self.problems.append(problem)
        if self.keep_records:
            self.skipped.append({"path": path, "reason": reason})

    def notices(self) -> list[str]:
        """One line per kind of skip, and one for truncated files, naming a few paths."""
        lines = []
        for category, count in sorted(self.tally.reasons.items()):
            lines.append(self._notice(f"skipped ({category})", count, category))
        if self.tally.counts["cut"]:
            lines.append(self._notice("truncated", self.tally.counts["cut"], _TRUNCATED))
        return lines

    def _notice(self, label: str, count: int, reason: str) -> str:
        examples = self.tally.examples.get(reason, [])
        more = ", …" if count > len(examples) else ""
        return f"{count} {label}: {', '.join(examples)}{more}"

    def outcome(self, content_bytes: int) -> Outcome:
        details: dict[str, Any] = {"root": self.root}
        if self.keep_records:
            details.update(files=self.files, skipped=[*self.outside, *self.skipped], read=self.read)
        details.update(bytes=content_bytes, estimatedTokens=estimate_tokens(content_bytes))
        return Outcome(
            details=details,
            exit_code=EXIT_FILE_ERROR if self.problems else EXIT_OK,
            attachments=tuple(self.attachments),
            problems=tuple(self.problems),
            notices=tuple(self.notices()),
            stats=self.tally,
        )
