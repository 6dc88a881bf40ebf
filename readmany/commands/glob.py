"""`readmany glob`: select by globs and ignore rules, read, frame with `--- path ---`.

The walk, the reads and the output advance together: each file is read and its section
written as the walk reaches it, in output order (the walk may run in a helper process
that also reads ahead: see `walker`). Memory does not grow with the number of
files: the per-file records of `--json` details are kept as text, in a temporary file
once they are long (`emit.jsonarray`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re

from readmany.commands import secrets_mode
from readmany.commands.glob_request import GlobRequest, candidate_reader, open_selection
from readmany.emit.messages import error_line
from readmany.emit.outcome import FileStat, Outcome, Tally
from readmany.emit.render import Presentation, present
from readmany.emit.sink import Attachment, Sink
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK, UsageError
from readmany.faces import Face
from readmany.frame import notices, weigh
from readmany.frame.formats import FORMATS, GlobFraming, framing_for
from readmany.frame.separator import frame_end
from readmany.invoke import Options, StdinPaths, current_directory
from readmany.read.classify import credentials_name
from readmany.read.glob_file import AssetFile, Failed, Skipped, TextFile
from readmany.read.glob_file import MeasuredFile as Measured
from readmany.read.safe import refuse_root
from readmany.select.boundary import is_secret_name
from readmany.select.candidates import (
    REASON_DANGLING_LINK,
    REASON_DEFAULT_EXCLUDE,
    REASON_DELETED,
    REASON_EMPTY_DIRECTORY,
    REASON_EXCLUDED,
    REASON_IGNORED,
    REASON_LINK_OUTSIDE,
    REASON_LINKED_DIRECTORY,
    REASON_NO_MATCH,
    REASON_OUTPUT,
    REASON_OUTSIDE,
    REASON_SECRET_FILE,
    Skip,
    shown_path,
)
from readmany.select.lookahead import Selection
from readmany.units import parse_size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from readmany.read.text import TextRead

_TRUNCATED = "truncated to the line limits"
LEFT_OUT = "left out by the budget"
CUT_BY_BUDGET = "cut by the budget"
_SELECT_CATEGORIES = {
    REASON_OUTSIDE: "boundary",
    REASON_IGNORED: "ignored",
    REASON_LINK_OUTSIDE: "symlink outside the root",
    REASON_LINKED_DIRECTORY: "symlink to a directory",
    REASON_DANGLING_LINK: "symlink to nothing",
    REASON_EMPTY_DIRECTORY: "empty directory",
    REASON_DEFAULT_EXCLUDE: "default exclude",
    REASON_EXCLUDED: "excluded",
    REASON_OUTPUT: "output file",
    REASON_SECRET_FILE: "secret file",
}


# A hook id is said back in a command (`SKIP=ID git commit`): a plain word, nothing a
# shell or a terminal would take for more.
_HOOK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def main(options: Options) -> int:
    """`readmany glob` with its parsed options: the request value, run and presented."""
    current_directory()  # a deleted working directory: one line, before anything else
    from readmany.config import project_config

    values, config = project_config(options.values)
    options = Options(values)
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
    hook_id = options.text("hook_id")
    if hook_id is not None and not staged:
        raise UsageError("--hook-id runs as the pre-commit hook of --staged: add --staged")
    if hook_id is not None and not _HOOK_ID.fullmatch(hook_id):
        raise UsageError(
            f"--hook-id {hook_id!r}: give the hook's id as .pre-commit-config.yaml has it "
            "(letters, digits, '-', '_', '.')"
        )
    if options.flag("with_diff") and not by_git:
        raise UsageError("--with-diff adds the diff of --staged or --changed: give one of them")
    value = GlobRequest(
        **_chat(options),
        face=_face(options),
        output=options.text("output"),
        staged=staged,
        changed=changed,
        with_diff=options.flag("with_diff"),
        hook_id=hook_id,
        secrets=secrets_mode(options, redact=True),
        patterns=options.texts("patterns") + options.texts("include"),
        excludes=options.texts("exclude"),
        use_default_excludes=not options.flag("no_default_excludes"),
        use_gitignore=not options.flag("no_gitignore"),
        ignore_files=options.texts("ignore_file"),
        recursive=not options.flag("no_recursive"),
        root=root,
        absolute=options.flag("absolute"),
        literal_paths=StdinPaths(options.flag("null")) if stdin else (),
        json=options.flag("json_mode"),
    )
    if not value.patterns and not stdin and not by_git:
        raise UsageError(
            "no pattern given: name at least one PATTERN (or use --stdin, --staged, --changed)"
        )
    if value.output:  # in both faces: -o is readmany's own, the reference has none
        _refuse_output_as_input(value)
    if value.output and (by_git or os.path.isfile(value.output)):
        _warn_if_tracked(value.output, by_git)
    # The walk starts first: in a helper process, it goes on while the rest is set up.
    with open_selection(value) as selection:
        run = run_glob
        if value.stats or value.budgeted or value.tree:
            from readmany.commands import glob_plan

            run = glob_plan.run_stats if value.stats else glob_plan.run_planned

        def run_and_name_the_configuration(sink: Sink) -> Outcome:
            outcome = run(value, sink, selection)
            if not value.face.compat:
                outcome.details["config"] = config
            return outcome

        return present(run_and_name_the_configuration, Presentation.of(options))


# The options of a context for a chat, as the command line spells them: none is --compat's.
_CHAT_OPTIONS = (
    ("max_bytes", "--max-bytes"),
    ("max_lines", "--max-lines"),
    ("max_tokens", "--max-tokens"),
    ("stats", "--stats"),
    ("tree", "--tree"),
    ("format_name", "--format"),
    ("line_numbers", "-n"),
)


def _chat(options: Options) -> dict[str, Any]:
    """The budget, --stats, --tree, --format and -n, checked, as `GlobRequest` fields."""
    if options.flag("compat"):
        for name, option in _CHAT_OPTIONS:
            given = options.text(name) or options.number(name) or options.flag(name)
            if given:
                raise UsageError(
                    f"{option} is not part of --compat, which writes the reference's exact "
                    "text: drop one or the other"
                )
        return {}
    format_name = options.text("format_name") or "text"
    if format_name not in FORMATS:
        raise UsageError(f"--format {format_name!r}: give text, markdown or xml")
    if options.flag("stats") and options.flag("tree"):
        raise UsageError("--stats draws a tree of its own: drop --tree")
    max_bytes, max_tokens = options.text("max_bytes"), options.text("max_tokens")
    return {
        "format": format_name,
        "line_numbers": options.flag("line_numbers"),
        "tree": options.flag("tree"),
        "stats": options.flag("stats"),
        "max_bytes": parse_size(max_bytes, "--max-bytes") if max_bytes is not None else None,
        "max_lines": options.number("max_lines"),
        "max_tokens": (
            parse_size(max_tokens, "--max-tokens", base=1000) if max_tokens is not None else None
        ),
    }


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


def _warn_if_tracked(output: str, by_git: bool) -> None:
    """A dump written into the work tree and tracked changes at every commit; and a
    tracked file that is no dump (`glob . -o main.py`) is replaced by one."""
    from readmany.select.git import is_tracked

    if not is_tracked(".", os.path.abspath(output)):
        return
    if by_git:
        error_line(
            f"warning: -o {output} is tracked by git: every run rewrites it, and pre-commit "
            "fails a hook that changes a tracked file; add it to .gitignore and run "
            f"`git rm --cached {output}`, or write it under .git/"
        )
    else:
        error_line(
            f"warning: -o {output} is a file git tracks: the dump replaces it "
            f"(`git restore {output}` brings back what was committed); write the dump "
            "under .git/ or to a name in .gitignore"
        )


def _refuse_output_as_input(request: GlobRequest) -> None:
    """`-o FILE` never overwrites a file the same run is asked to read by name."""
    from readmany.emit.target import named_input_check

    assert request.output is not None
    check = named_input_check(request.output, request.root)
    for named in request.patterns:
        check(named)
    listed = request.literal_paths
    if isinstance(listed, StdinPaths):
        listed.check = check  # each path as it comes: the list is not read yet
    else:
        for named in listed:
            check(named)


def secret_file_warning(path: str, git: str) -> str:
    """A secret file git names: left out of the dump, yet staged or changed."""
    if git == "staged":
        return (
            f"{path}: a secret file is staged: the dump leaves it out, the commit will not; "
            f"unstage it with: git restore --staged {notices.shell_word(path)}"
        )
    return f"{path}: a secret file is among the changes: the dump leaves it out"


def secret_file_refusal(path: str, hook_id: str) -> str:
    """A secret file staged, in a pre-commit hook (`--hook-id`): what fails the hook."""
    word = notices.shell_word(path)
    return (
        f"{path}: a secret file is staged for this commit: unstage it with "
        f"`git restore --staged {word}`, or commit it anyway with "
        f"`SKIP={hook_id} git commit …`"
    )


def left_out_warning(paths: list[str], count: int, git: str) -> str:
    """`count` files git names that the boundary keeps out of the dump (the first of
    them, `paths`), in one line."""
    shown = ", ".join(paths) + (", …" if count > len(paths) else "")
    files = "file" if count == 1 else "files"
    what = f"{count} staged {files}" if git == "staged" else f"{count} changed {files}"
    tail = "the commit holds" if git == "staged" else "the changes hold"
    them = "it" if count == 1 else "them"
    return (
        f"{what} left out of the dump, which never reads a path through .git, .env or "
        f"node_modules, nor outside the root ({tail} {them}): {shown}"
    )


_NAMED_AT_MOST = 3


def git_kind(request: GlobRequest) -> str | None:
    """What `Report.git` is for a request: "staged", "changed" or None (a walk)."""
    if request.staged:
        return "staged"
    return "changed" if request.changed is not None else None


OUTSIDE_ADVICE = (
    "a path outside the root ({root}) is never read: run readmany from a directory that "
    "holds it, or give one as --root"
)


def run_glob(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """Select, read, frame and write; `selection` is the walk if it was started already."""
    with selection or open_selection(request) as selection, candidate_reader(request) as read:
        selection.when_waiting(sink.flush)
        compat = request.face.compat
        framing = framing_for(
            request.format,
            line_numbers=request.line_numbers,
            reserved=reserved_label(request),
            guard=request.face.guard_sections,
        )
        joint = framing.joint
        report = Report(
            selection.root,
            keep_records=sink.json_mode,
            compat=compat,
            git=git_kind(request),
            hook_id=request.hook_id,
        )
        index = 0  # blocks written
        absolute = request.absolute
        for event, done in selection:
            if isinstance(event, Skip):
                report.selected_skip(event, absolute)
                continue
            path = shown_path(report.root, event.rel, True) if absolute else event.rel
            result = done if done is not None else read(event, path)
            assert not isinstance(result, Measured)  # measured only for --stats
            if isinstance(result, TextFile):
                text_file = report.checked(event.rel, path, result, request.secrets)
                if text_file is None:
                    continue
                index += 1
                text = text_file.text
                block = text_pieces(framing, report.root, event.rel, path, text, index)
                prefix = framing.start(None) if index == 1 else joint
                tokens = None
                if sink.weigh:
                    tokens = weigh(prefix) + text_block_tokens(
                        framing, report.root, event.rel, path, text, index, text_file.weight
                    )
                size = sink.write_all(itertools.chain((prefix,), block), tokens)
                report.text(path, text_file, size, sink.last_tokens)
            elif isinstance(result, AssetFile):
                if sink.json_mode:
                    report.attach(path, result)
                else:
                    index += 1
                    mime, data = result.mime_type, result.data
                    block = framing.data_url(path, mime, data, index)
                    prefix = framing.start(None) if index == 1 else joint
                    tokens = None
                    if sink.weigh:
                        tokens = weigh(prefix) + framing.data_url_tokens(path, mime, data, index)
                    size = sink.write_all((prefix, block), tokens)
                    report.asset(path, result, size, sink.last_tokens)
            elif isinstance(result, Skipped):
                report.skip(path, result.reason, result.category)
            else:  # Failed
                report.read_failed(path, result)
            sink.file_done(path)
        diff = report.checked_diff(request, selection.diff)
    if diff is not None:
        index += 1
        block = diff_block(framing, request, diff, index)
        prefix = framing.start(None) if index == 1 else joint
        tokens = None
        if sink.weigh:
            tokens = weigh(prefix) + diff_tokens(framing, request, diff, index)
        sink.write_all((prefix, block), tokens)
        report.diff = diff
    any_section = index > 0 or report.any_shown
    if compat:
        sink.write(frame_end(any_section))
    else:
        if any_section and not index:  # attachments alone (--json)
            sink.write(framing.start(None))
        sink.write(framing.end(any_section))
    if not any_section and not compat:
        report.nothing_read_from(request)
    return report.outcome(sink.bytes_written, sink.tokens)


def text_block(
    framing: GlobFraming, root: str, rel: str, path: str, text: TextRead, index: int
) -> str:
    """A text file's block; a text cut to its first lines ends with the command that
    shows the rest."""
    note, truncated = _cut_of(root, rel, text)
    return framing.block(path, text.body, index, truncated=truncated, note=note)


def text_pieces(
    framing: GlobFraming, root: str, rel: str, path: str, text: TextRead, index: int
) -> Iterable[str]:
    """`text_block(...)` as pieces to write one after the other (`Sink.write_all`)."""
    note, truncated = _cut_of(root, rel, text)
    return framing.pieces(path, text.body, index, truncated=truncated, note=note)


def text_block_measure(
    framing: GlobFraming,
    root: str,
    rel: str,
    path: str,
    text: TextRead,
    index: int,
    *,
    lines: bool = True,
    tokens: bool = False,
    weight_of_text: float = -1.0,
) -> tuple[int, int, float]:
    """Bytes, newlines and estimated tokens of `text_block(...)` (newlines 0 without
    `lines`, tokens 0 without `tokens`); `weight_of_text` as `text_block_tokens` has it."""
    note, truncated = _cut_of(root, rel, text)
    return framing.measure(
        path,
        text.body,
        index,
        truncated=truncated,
        note=note,
        lines=lines,
        tokens=tokens,
        weight_of_body=weight_of_text,
    )


def text_block_tokens(
    framing: GlobFraming,
    root: str,
    rel: str,
    path: str,
    text: TextRead,
    index: int,
    weight_of_text: float = -1.0,
) -> float:
    """The estimated tokens of `text_block(...)`; `weight_of_text`, the text's own when
    it was weighed already (as it was read), else negative."""
    measured = text_block_measure(
        framing,
        root,
        rel,
        path,
        text,
        index,
        lines=False,
        tokens=True,
        weight_of_text=weight_of_text,
    )
    return measured[2]


def diff_tokens(framing: GlobFraming, request: GlobRequest, diff: str, index: int) -> float:
    """The estimated tokens of `diff_block(...)`."""
    return framing.tokens(diff_label(request), diff, index, line_numbers=False, label=True)


def _cut_of(root: str, rel: str, text: TextRead) -> tuple[str, bool]:
    """The notice a text cut to its first lines ends with (`cut_note`), and whether its
    block warns of a cut instead (the reference's line limits)."""
    note = cut_note(root, rel, text)
    return note, text.truncated and not note


def cut_note(root: str, rel: str, text: TextRead) -> str:
    """The notice a text cut to its first lines ends with: the command for the rest."""
    if not text.total_lines:
        return ""
    shown = text.body.count("\n")
    return notices.showing(1, shown, text.total_lines, continue_with(root, rel, shown + 1))


def diff_label(request: GlobRequest) -> str:
    """What the section of `--with-diff` is headed with: the command that shows it. The
    diff of `--changed A...` is from the merge base to the work tree, which `git diff A...`
    is not (it stops at the last commit): the label names the merge base."""
    if request.staged:
        return "git diff --cached"
    rev = request.changed or ""
    if "..." in rev:
        left, _, right = rev.partition("...")
        left, right = notices.shell_word(left or "HEAD"), notices.shell_word(right or "HEAD")
        return f"git diff $(git merge-base {left} {right})"
    return f"git diff {notices.shell_word(rev)}"


def reserved_label(request: GlobRequest) -> str | None:
    """The header no file may take: the diff section's, when there is one."""
    return diff_label(request) if request.with_diff else None


def diff_block(framing: GlobFraming, request: GlobRequest, diff: str, index: int) -> str:
    """The section of `--with-diff`: the diff itself, never numbered."""
    return framing.block(diff_label(request), diff, index, line_numbers=False, label=True)


def _line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def continue_with(root: str, rel: str, first_line: int) -> str:
    """The command that shows a file from `first_line` on, run where readmany was."""
    path = os.path.join(root, rel)
    with contextlib.suppress(ValueError, OSError):
        path = os.path.relpath(path)
    return notices.many_command([notices.many_spec(path, first_line)])


class Report:
    """What became of each matched file: details, the tally and stderr lines.

    Per-file records are kept only for `--json` details (`keep_records`), as JSON text
    that goes to a temporary file once it is long; otherwise memory does not grow with the
    number of files.
    """

    def __init__(
        self,
        root: str,
        *,
        keep_records: bool,
        compat: bool = True,
        git: str | None = None,
        hook_id: str | None = None,
    ) -> None:
        self.root = root
        self.keep_records = keep_records
        self.compat = compat  # the reference's long reasons in details, else the short ones
        self.git = git  # "staged" or "changed" when git names the files
        self.hook_id = hook_id  # the pre-commit hook this run is (--hook-id)
        # Files git names that the boundary keeps out of the dump (`node_modules/…`):
        # said even with --quiet, as the commit holds them and the dump does not.
        self.left_out_by_git: list[str] = []  # the first few
        self.left_out_count = 0
        self.unmatched_patterns: list[str] = []
        self.diff: str | None = None
        self.found_secrets: list[dict[str, Any]] = []
        self.warnings: list[str] = []  # said on stderr, the exit status unchanged
        self.secret_rels: set[str] = set()  # files --secrets masked or left out
        self.advice: list[str] = []  # what to run instead, said once after the rest
        # The records of `--json`, kept as their JSON text: a run can name many files.
        if keep_records:
            from readmany.emit.jsonarray import JsonArray

            self.files = JsonArray()
            self.read = JsonArray()
            self.outside = JsonArray()  # listed first, as the reference does
            self.skipped = JsonArray()
        self.attachments: list[Attachment] = []
        self.problems: list[str] = []
        self.tally = Tally()
        self.budget_notes: list[str] = []  # what the budget cut or left out, a line a file
        self.details: dict[str, Any] = {}  # more details: packing, stats

    def selected_skip(self, event: Skip, absolute: bool) -> None:
        """A file the select stage left out, or a pattern that matched nothing."""
        if event.reason == REASON_NO_MATCH:
            self.unmatched(event.rel)
            return
        path = shown_path(self.root, event.rel, True) if absolute else event.rel
        if self.git is not None and event.reason != REASON_DELETED:
            if is_secret_name(event.rel):
                # Not in the dump, but in the commit: said even with --quiet, as a secret
                # is; and a hook fails (exit 1), saying how to go on.
                if self.hook_id is not None and self.git == "staged":
                    self.problems.append(secret_file_refusal(path, self.hook_id))
                else:
                    self.warnings.append(secret_file_warning(path, self.git))
            elif event.reason == REASON_OUTSIDE:
                self.left_out_count += 1
                if len(self.left_out_by_git) < _NAMED_AT_MOST:
                    self.left_out_by_git.append(path)
        if event.reason == REASON_OUTSIDE and event.rel.startswith("../") and not self.compat:
            advice = OUTSIDE_ADVICE.format(root=notices.shell_word(self.root))
            if advice not in self.advice:
                self.advice.append(advice)
        if event.failed:
            reason = event.reason if self.compat else event.reason.removeprefix("Read error: ")
            self.fail(path, f"{path}: {reason}", reason)
        else:
            self.skip(path, event.reason, _SELECT_CATEGORIES.get(event.reason, event.reason))

    def checked(self, rel: str, path: str, result: TextFile, mode: str) -> TextFile | None:
        """The text as it may be shown: None for a credentials file or, with `--secrets
        skip`, a file that holds a secret (each reported); redacted with `redact`."""
        if credentials_name(rel) and _holds_credentials(rel, result.text.body):
            self.skip(path, REASON_SECRET_FILE, REASON_SECRET_FILE)
            self.secret_rels.add(rel)  # nor are its lines shown in a diff
            return None
        if mode != "off":
            checked = self.secrets(path, result, mode)
            if checked is not result:  # masked or left out: so are its lines in the diff
                self.secret_rels.add(rel)
            return checked
        return result

    def text(self, path: str, result: TextFile, size: int, tokens: float) -> None:
        """A text shown: `size` bytes and about `tokens` tokens of the output (the
        tokens are weighed for `--json` alone)."""
        text = result.text
        if text.truncated:
            self.tally.add(FileStat(path, "cut", size, _TRUNCATED))
        else:
            self.tally.add_read(path, size)
        if self.keep_records:
            self._record(path, result, size, tokens, truncated=text.truncated, lossy=text.lossy)

    def cut(self, path: str, result: TextFile, size: int, tokens: float, shown: int) -> None:
        """A text the budget cut to its first `shown` lines."""
        self.tally.add(FileStat(path, "cut", size, CUT_BY_BUDGET))
        total = result.text.total_lines or _line_count(result.text.body)
        self.budget_notes.append(f"{path}: lines 1-{shown} of {total} shown, {CUT_BY_BUDGET}")
        self._record(path, result, size, tokens, truncated=True, lossy=result.text.lossy)

    def left_out(self, paths: list[str]) -> None:
        """Files the budget left out (named in one of `budget_notes`)."""
        self.tally.add_many(paths, "omitted", LEFT_OUT)

    def asset(self, path: str, result: AssetFile, size: int, tokens: float) -> None:
        self.tally.add(FileStat(path, "read", size))
        self._record(path, result, size, tokens, mimeType=result.mime_type)

    def attach(self, path: str, result: AssetFile) -> None:
        """An asset sent as an attachment (`--json`), not as content: none of the output."""
        self.attachments.append(Attachment(path, result.mime_type, result.data))
        self.asset(path, result, 0, 0.0)

    @property
    def any_shown(self) -> bool:
        """Whether something is shown outside the content: an attachment counts."""
        return bool(self.attachments)

    def _record(
        self, path: str, result: TextFile | AssetFile, size: int, tokens: float, **facts: Any
    ) -> None:
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
                "estimatedTokens": round(tokens),
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
        body = self.secret_text(path, result.text.body, mode)
        if body is None:
            return None
        if body is not result.text.body:
            # Masked: its weight, if it was weighed, is no longer its text's.
            result = result._replace(text=result.text._replace(body=body), weight=-1.0)
        return result

    def secret_text(self, path: str, text: str, mode: str) -> str | None:
        """`secrets` of any text shown as `path` (a file, the diff of `--with-diff`): the
        text, masked with `redact`; None when `skip` leaves it out."""
        from readmany.read.secrets import redact, scan

        if mode == "redact":
            masked, findings = redact(text)
        else:
            masked, findings = text, scan(text)
        if not findings:
            return text
        self.found_secrets.extend(
            {"path": path, "line": f.line, "rule": f.rule, "action": mode} for f in findings
        )
        if mode == "skip":
            self.skip(path, "secret", "secret")
            return None
        if mode == "warn":
            from readmany.read.secrets import secrets_warning

            self.warnings.append(secrets_warning(path, findings))
        return masked

    def checked_diff(self, request: GlobRequest, diff: str | None) -> str | None:
        """The diff of `--with-diff` as it may be shown: `--secrets` holds for it as for
        the files (a key masked in a file must not be shown by the diff's lines), and a
        credentials file left out is left out of it too."""
        if diff is None or (request.secrets == "off" and not self.secret_rels):
            return diff
        from readmany.read.secrets import diff_without

        diff = diff_without(diff, self.secret_rels, headers=request.secrets != "off")
        if request.secrets == "off":
            return diff
        return self.secret_text(diff_label(request), diff, request.secrets)

    def unmatched(self, pattern: str) -> None:
        """A command-line pattern that matched no file at all."""
        self.unmatched_patterns.append(pattern)
        self.problems.append(f"no file matches {pattern!r}")

    def nothing_read(self) -> None:
        if not self.problems:
            self.problems.append("no file was read: every file matched was skipped")

    def nothing_read_from(self, request: GlobRequest) -> None:
        """Nothing was shown: a walk's failure (`nothing_read`); for git's files, an
        answer said on stderr, the exit status unchanged (a pre-commit hook with nothing
        to dump passes): nothing is staged, or nothing differs."""
        if not request.by_git:
            stdin_only = isinstance(request.literal_paths, StdinPaths) and not request.patterns
            if stdin_only and not self.tally.counts and not self.problems:
                self.problems.append(notices.NOTHING_LISTED)
            self.nothing_read()
        elif not self.tally.counts and not self.problems:
            if request.staged:
                self.advice.append("nothing is staged: git add the files first")
            else:
                self.advice.append(f"no file differs from {request.changed}")

    def read_failed(self, path: str, result: Failed) -> None:
        """A file that could not be read: in the reference's words with `--compat`, else
        in a person's: `PATH: no such file or directory` on stderr, the part after the
        path as the reason in `--json` details (as a skip's reason is its kind)."""
        if self.compat or not result.code:
            self.fail(path, result.reason, result.reason)
            return
        problem = notices.read_problem(path, result.code, result.detail)
        self.fail(path, problem, problem.removeprefix(f"{path}: "))
        advice = notices.GIT_QUOTED_ADVICE.format(command="glob")
        if result.code == "ENOENT" and notices.git_quoted(path) and advice not in self.advice:
            self.advice.append(advice)

    def fail(self, path: str, problem: str, reason: str) -> None:
        self.tally.add(FileStat(path, "error", 0, "read failed"))
        self.problems.append(problem)
        if self.keep_records:
            self.skipped.append({"path": path, "reason": reason})

    def notices(self) -> list[str]:
        """One line per kind of skip, and one for truncated files, naming a few paths."""
        lines = []
        for category, count in sorted(self.tally.reasons.items()):
            if category == LEFT_OUT:
                continue  # named one a line in `budget_notes`
            if category == "boundary" and self.left_out_by_git:
                continue  # said as a warning, quiet or not
            lines.append(self._notice(f"skipped ({category})", count, category))
        if self.tally.examples.get(_TRUNCATED):
            cut = self.tally.counts["cut"] - (self.tally.examples.get(CUT_BY_BUDGET) is not None)
            lines.append(self._notice("truncated", cut, _TRUNCATED))
        return lines + self.budget_notes

    def _notice(self, label: str, count: int, reason: str) -> str:
        examples = self.tally.examples.get(reason, [])
        more = ", …" if count > len(examples) else ""
        return f"{count} {label}: {', '.join(examples)}{more}"

    def outcome(self, content_bytes: int, content_tokens: float) -> Outcome:
        """The run's outcome; `content_tokens`, the content's estimated tokens."""
        details: dict[str, Any] = {"root": self.root}
        if self.keep_records:
            from readmany.emit.jsonarray import JoinedArrays

            skipped = JoinedArrays(self.outside, self.skipped)
            details.update(files=self.files, skipped=skipped, read=self.read)
            if not self.compat:
                details.update(unmatched=self.unmatched_patterns)
            if self.diff is not None:
                details.update(diff=self.diff)
            if self.found_secrets:
                details.update(secrets=self.found_secrets)
        details.update(self.details)
        details.update(bytes=content_bytes, estimatedTokens=round(content_tokens))
        warnings = self.warnings
        if self.left_out_by_git and self.git is not None:
            left_out = left_out_warning(self.left_out_by_git, self.left_out_count, self.git)
            warnings = [*warnings, left_out]
        return Outcome(
            details=details,
            exit_code=EXIT_FILE_ERROR if self.problems else EXIT_OK,
            attachments=tuple(self.attachments),
            problems=(*self.problems, *warnings),
            notices=tuple(self.notices()),
            stats=self.tally,
            advice=tuple(self.advice),
        )


def _holds_credentials(rel: str, text: str) -> bool:
    """`read.secrets.holds_credentials`, imported by the runs that meet such a file."""
    from readmany.read.secrets import holds_credentials

    return holds_credentials(rel, text)
