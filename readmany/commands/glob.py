"""`readmany glob`: select by globs and ignore rules, read, frame with `--- path ---`.

Sections are written to the sink as each file is read, in output order; only the list
of paths (with the skip records) is held in memory, never the contents of all files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from readmany.commands import FileStat, Outcome
from readmany.emit import Attachment, Sink
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK
from readmany.frame.separator import frame_data_url, frame_end, frame_separator
from readmany.read.classify import RequestedAssets
from readmany.read.matched import AssetFile, Skipped, TextFile, read_matched
from readmany.select import (
    REASON_IGNORED,
    REASON_LINK_OUTSIDE,
    REASON_OUTSIDE,
    SelectRequest,
    select_files,
)

_NOTICE_PATHS = 3  # paths named per notice line
_TRUNCATED = "truncated to the line limits"
_SELECT_CATEGORIES = {
    REASON_OUTSIDE: "outside the root",
    REASON_IGNORED: "ignored",
    REASON_LINK_OUTSIDE: "symlink outside the root",
}


@dataclass(frozen=True)
class GlobRequest:
    """The flags of `readmany glob`, as the CLI parsed them."""

    patterns: tuple[str, ...]  # positional patterns, then --include
    excludes: tuple[str, ...] = ()
    use_default_excludes: bool = True
    use_gitignore: bool = True
    ignore_files: tuple[str, ...] = ()  # extra ignore-file names; .readmanyignore is implied
    recursive: bool = True
    root: str = "."
    absolute: bool = False
    literal_paths: tuple[str, ...] = ()  # from --stdin: exact paths, never globs


def run_glob(request: GlobRequest, sink: Sink) -> Outcome:
    selection = select_files(
        SelectRequest(
            root=request.root,
            patterns=request.patterns,
            literal_paths=request.literal_paths,
            excludes=request.excludes,
            use_default_excludes=request.use_default_excludes,
            use_gitignore=request.use_gitignore,
            ignore_files=request.ignore_files,
            recursive=request.recursive,
        )
    )
    report = _Report(selection.root, request.absolute)
    for record in selection.skipped:
        path = report.shown(record.rel)
        if record.failed:
            report.fail(path, f"{path}: {record.reason}", record.reason)
        else:
            report.skip(path, record.reason, _SELECT_CATEGORIES[record.reason])

    requested = RequestedAssets(request.patterns, request.literal_paths)
    any_section = False
    for candidate in selection.candidates:
        path = report.shown(candidate.rel)
        result = read_matched(
            candidate.path, candidate.rel, path, requested, listed_regular=candidate.regular
        )
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
        sink.file_done(path, len(selection.candidates))
    sink.write(frame_end(any_section))
    return report.outcome()


class _Report:
    """What became of each matched file: details, stats and stderr lines."""

    def __init__(self, root: str, absolute: bool) -> None:
        self.root = root
        self.absolute = absolute
        self.files: list[str] = []
        self.read: list[dict[str, Any]] = []
        self.skipped: list[dict[str, str]] = []
        self.attachments: list[Attachment] = []
        self.problems: list[str] = []
        self.stats: list[FileStat] = []
        self.skipped_by: dict[str, list[str]] = {}

    def shown(self, rel: str) -> str:
        """How a root-relative path is written: as it is, or absolute with `--absolute`."""
        if not self.absolute:
            return rel
        path = os.path.normpath(os.path.join(self.root, rel))
        return path + "/" if rel.endswith("/") else path

    def text(self, path: str, result: TextFile, size: int) -> None:
        text = result.text
        self.files.append(path)
        self.read.append(
            {
                "path": path,
                "kind": result.kind,
                "bytes": result.size,
                "truncated": text.truncated,
                "lossy": text.lossy,
            }
        )
        if text.truncated:
            self.stats.append(FileStat(path, "cut", size, _TRUNCATED))
        else:
            self.stats.append(FileStat(path, "read", size))

    def asset(self, path: str, result: AssetFile, size: int) -> None:
        self.files.append(path)
        self.read.append(
            {"path": path, "kind": result.kind, "bytes": result.size, "mimeType": result.mime_type}
        )
        self.stats.append(FileStat(path, "read", size))

    def skip(self, path: str, reason: str, category: str) -> None:
        self.skipped.append({"path": path, "reason": reason})
        self.stats.append(FileStat(path, "skipped", 0, category))
        self.skipped_by.setdefault(category, []).append(path)

    def fail(self, path: str, problem: str, reason: str) -> None:
        self.skipped.append({"path": path, "reason": reason})
        self.stats.append(FileStat(path, "error", 0, "read failed"))
        self.problems.append(problem)

    def notices(self) -> list[str]:
        """One line per kind of skip, and one for truncated files, naming a few paths."""
        truncated = [stat.path for stat in self.stats if stat.status == "cut"]
        groups = [
            *((f"skipped ({category})", paths) for category, paths in self.skipped_by.items()),
            ("truncated", truncated),
        ]
        lines = []
        for label, paths in sorted(groups[:-1]) + groups[-1:]:
            if paths:
                named = ", ".join(paths[:_NOTICE_PATHS])
                more = ", …" if len(paths) > _NOTICE_PATHS else ""
                lines.append(f"{len(paths)} {label}: {named}{more}")
        return lines

    def outcome(self) -> Outcome:
        return Outcome(
            details={
                "root": self.root,
                "files": self.files,
                "skipped": self.skipped,
                "read": self.read,
            },
            exit_code=EXIT_FILE_ERROR if self.problems else EXIT_OK,
            attachments=tuple(self.attachments),
            problems=tuple(self.problems),
            notices=tuple(self.notices()),
            stats=tuple(self.stats),
        )
