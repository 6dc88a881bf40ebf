"""`readmany glob`: select by globs and ignore rules, read, frame with `--- path ---`.

The walk, the reads and the output advance together: each file is read and its section
written as the walk reaches it, in output order (the walk may run in a helper process
that also reads ahead: see `walker`). Memory does not grow with the number of
files, except for the per-file records of `--json` details.
"""

from __future__ import annotations

import contextlib
import os

from readmany.commands import FileStat, Outcome, Tally
from readmany.commands.walker import (
    GlobRequest,
    Selection,
    candidate_reader,
    open_selection,
    shown_path,
)
from readmany.emit.messages import error_line
from readmany.emit.render import Presentation, present
from readmany.emit.sink import Attachment, Sink
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK, UsageError
from readmany.faces import Face
from readmany.frame.separator import cut_notice, frame_data_url, frame_end, frame_separator
from readmany.invoke import Options, current_directory, stdin_paths
from readmany.read.matched import AssetFile, Skipped, TextFile
from readmany.read.safe import refuse_root
from readmany.read.secrets import CREDENTIAL_FILES, holds_credentials, secrets_mode, secrets_warning
from readmany.select.candidates import (
    REASON_DEFAULT_EXCLUDE,
    REASON_EXCLUDED,
    REASON_IGNORED,
    REASON_LINK_OUTSIDE,
    REASON_NO_MATCH,
    REASON_OUTPUT,
    REASON_OUTSIDE,
    REASON_SECRET_FILE,
    Skip,
)
from readmany.tokens import estimate_tokens
from readmany.units import parse_size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TRUNCATED = "truncated to the line limits"
_SELECT_CATEGORIES = {
    REASON_OUTSIDE: "boundary",
    REASON_IGNORED: "ignored",
    REASON_LINK_OUTSIDE: "symlink outside the root",
    REASON_DEFAULT_EXCLUDE: "default exclude",
    REASON_EXCLUDED: "excluded",
    REASON_OUTPUT: "output file",
    REASON_SECRET_FILE: "secret file",
}


def main(options: Options) -> int:
    """`readmany glob` with its parsed options: the request value, run and presented."""
    current_directory()  # a deleted working directory: one line, before anything else
    root = options.text("root") or "."
    if not os.path.isdir(root):
        raise UsageError(f"--root {root!r} is not a directory")
    refusal = refuse_root(root)
    if refusal is not None:
        raise UsageError(refusal)
    stdin = options.flag("stdin")
    staged, changed = options.flag("staged"), options.text("changed")
    by_git = staged or changed is not None
    if staged and changed is not None:
        raise UsageError("--staged and --changed select in two ways: give one of them")
    if by_git and stdin:
        raise UsageError("--stdin lists files itself: leave out --staged and --changed")
    if options.flag("with_diff") and not by_git:
        raise UsageError("--with-diff adds the diff of --staged or --changed: give one of them")
    value = GlobRequest(
        face=_face(options),
        output=options.text("output"),
        staged=staged,
        changed=changed,
        with_diff=options.flag("with_diff"),
        secrets=secrets_mode(options, redact=True),
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
    if not value.patterns and not stdin and not by_git:
        raise UsageError(
            "no pattern given: name at least one PATTERN (or use --stdin, --staged, --changed)"
        )
    if value.output and by_git:
        _warn_if_tracked(root, value.output)
    if value.output and not value.face.compat:
        _refuse_output_as_input(value)
    # The walk starts first: in a helper process, it goes on while the rest is set up.
    with open_selection(value) as selection:
        return present(lambda sink: run_glob(value, sink, selection), Presentation.of(options))


def _face(options: Options) -> Face:
    max_file_lines = options.number("max_file_lines")
    max_file_size = options.text("max_file_size")
    if options.flag("compat"):
        if max_file_lines is not None or max_file_size is not None:
            raise UsageError(
                "--max-file-lines and --max-file-size change the default face's limits; "
                "--compat keeps the reference's (2000 lines, 20MB): drop one or the other"
            )
        return Face.reference()
    size = parse_size(max_file_size, "--max-file-size") if max_file_size is not None else None
    return Face.people(max_file_lines=max_file_lines, max_file_bytes=size)


def _warn_if_tracked(root: str, output: str) -> None:
    """A dump written into the work tree and tracked changes at every commit."""
    from readmany.select.git import is_tracked

    if is_tracked(root, output):
        error_line(
            f"warning: -o {output} is tracked by git: every run rewrites it, and pre-commit "
            "fails a hook that changes a tracked file; add it to .gitignore and run "
            f"`git rm --cached {output}`, or write it under .git/"
        )


def _refuse_output_as_input(request: GlobRequest) -> None:
    """`-o FILE` never overwrites a file the same run is asked to read by name."""
    assert request.output is not None
    try:
        target = os.stat(request.output)
    except OSError:
        return  # not there yet: nothing named can be it
    for named in (*request.patterns, *request.literal_paths):
        try:
            same = os.path.samestat(os.stat(os.path.join(request.root, named)), target)
        except (OSError, ValueError):
            continue
        if same:
            raise UsageError(
                f"-o {request.output}: that file is also named as input ({named}); "
                "write the output elsewhere"
            )


def run_glob(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """Select, read, frame and write; `selection` is the walk if it was started already."""
    with selection or open_selection(request) as selection:
        compat = request.face.compat
        report = _Report(selection.root, keep_records=sink.json_mode, compat=compat)
        read = candidate_reader(request)
        any_section = False
        absolute = request.absolute
        for event, done in selection:
            if isinstance(event, Skip) and event.reason == REASON_NO_MATCH:
                report.unmatched(event.rel)
                continue
            path = shown_path(report.root, event.rel, True) if absolute else event.rel
            if isinstance(event, Skip):
                if event.failed:
                    report.fail(path, f"{path}: {event.reason}", event.reason)
                else:
                    report.skip(
                        path, event.reason, _SELECT_CATEGORIES.get(event.reason, event.reason)
                    )
                continue
            result = done if done is not None else read(event, path)
            if isinstance(result, TextFile):
                if event.rel.endswith(CREDENTIAL_FILES) and holds_credentials(
                    event.rel, result.text.body
                ):
                    report.skip(path, REASON_SECRET_FILE, REASON_SECRET_FILE)
                    continue
                if request.secrets != "off":
                    checked = report.secrets(path, result, request.secrets)
                    if checked is None:
                        continue
                    result = checked
                text = result.text
                if text.total_lines:  # cut to its first lines: say how to get the rest
                    shown = text.body.count("\n")
                    command = _continue_with(report.root, event.rel, shown + 1)
                    notice = cut_notice(shown, text.total_lines, command)
                    block = frame_separator(path, text.body, notice=notice)
                else:
                    block = frame_separator(path, text.body, text.truncated)
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
        diff = selection.diff
    if diff is not None:
        label = "git diff --cached" if request.staged else f"git diff {request.changed}"
        sink.write(frame_separator(label, diff))
        any_section = True
        report.diff = diff
    sink.write(frame_end(any_section, compat=compat))
    by_git = request.staged or request.changed is not None
    if not any_section and not compat and not by_git:
        report.nothing_read()
    return report.outcome(sink.bytes_written)


def _continue_with(root: str, rel: str, first_line: int) -> str:
    """The command that shows a file from `first_line` on, run where readmany was."""
    import shlex

    path = os.path.join(root, rel)
    with contextlib.suppress(ValueError, OSError):
        path = os.path.relpath(path)
    return f"readmany many {shlex.quote(f'{path}:{first_line}')}"


class _Report:
    """What became of each matched file: details, the tally and stderr lines.

    Per-file records are kept only for `--json` details (`keep_records`); otherwise
    memory does not grow with the number of files.
    """

    def __init__(self, root: str, *, keep_records: bool, compat: bool = True) -> None:
        self.root = root
        self.keep_records = keep_records
        self.compat = compat  # the reference's long reasons in details, else the short ones
        self.unmatched_patterns: list[str] = []
        self.diff: str | None = None
        self.found_secrets: list[dict[str, Any]] = []
        self.warnings: list[str] = []  # said on stderr, the exit status unchanged
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
            records.append({"path": path, "reason": reason if self.compat else category})

    def secrets(self, path: str, result: TextFile, mode: str) -> TextFile | None:
        """`--secrets`: name what looks like a secret (warn), leave the file out (skip) or
        mask it (redact); None when the file is left out."""
        from readmany.read.secrets import redact, scan

        if mode == "redact":
            body, findings = redact(result.text.body)
            result = result._replace(text=result.text._replace(body=body))
        else:
            findings = scan(result.text.body)
        if not findings:
            return result
        self.found_secrets.extend(
            {"path": path, "line": f.line, "rule": f.rule, "action": mode} for f in findings
        )
        if mode == "skip":
            self.skip(path, "secret", "secret")
            return None
        if mode == "warn":
            self.warnings.append(secrets_warning(path, findings))
        return result

    def unmatched(self, pattern: str) -> None:
        """A command-line pattern that matched no file at all."""
        self.unmatched_patterns.append(pattern)
        self.problems.append(f"no file matches {pattern!r}")

    def nothing_read(self) -> None:
        if not self.problems:
            self.problems.append("no file was read: every file matched was skipped")

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
            if not self.compat:
                details.update(unmatched=self.unmatched_patterns)
            if self.diff is not None:
                details.update(diff=self.diff)
            if self.found_secrets:
                details.update(secrets=self.found_secrets)
        details.update(bytes=content_bytes, estimatedTokens=estimate_tokens(content_bytes))
        return Outcome(
            details=details,
            exit_code=EXIT_FILE_ERROR if self.problems else EXIT_OK,
            attachments=tuple(self.attachments),
            problems=(*self.problems, *self.warnings),
            notices=tuple(self.notices()),
            stats=self.tally,
        )
