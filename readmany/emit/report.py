"""What became of each file `glob` matched: the tally, the lines said on stderr (skips,
failures, warnings about what git names, the budget's notes), the `--json` records, and
what `--secrets` found.
"""

from __future__ import annotations

from readmany.emit.outcome import FileStat, Outcome, Tally
from readmany.emit.sink import Attachment
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK
from readmany.frame import notices
from readmany.frame.sections import line_count
from readmany.read.classify import credentials_name
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
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from readmany.frame.sections import OutlineBlock
    from readmany.read.glob_file import AssetFile, Failed, TextFile

_TRUNCATED = "truncated to the line limits"
LEFT_OUT = "left out by the budget"
CUT_BY_BUDGET = "cut by the budget"
OUTLINED = "shown as its outline by the budget"
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


def secret_file_warning(path: str, git: str) -> str:
    """A secret file git names: left out of the dump, yet staged or changed."""
    if git == "staged":
        return (
            f"{path}: a secret file is staged: the dump leaves it out, the commit will not; "
            f"unstage it with: git restore --staged {notices.shell_word(path)}"
        )
    return f"{path}: a secret file is among the changes: the dump leaves it out"


def staged_secret_refusal(path: str, hook_id: str) -> str:
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


def git_kind(staged: bool, changed: str | None) -> str | None:
    """What `Report.git` is for a request: "staged", "changed" or None (a walk)."""
    if staged:
        return "staged"
    return "changed" if changed is not None else None


OUTSIDE_ADVICE = (
    "a path outside the root ({root}) is never read: run readmany from a directory that "
    "holds it, or give one as --root"
)


class FileRecords:
    """The `--json` records of what became of each file: the paths shown, the files read
    and the files skipped (those outside the root first, as the reference lists them),
    kept as their JSON text, which goes to a temporary file once it is long: a run can
    name many files."""

    def __init__(self, *, reference_reasons: bool) -> None:
        from readmany.emit.jsonarray import JsonArray

        self.reference_reasons = reference_reasons
        self.files = JsonArray()
        self.read = JsonArray()
        self.outside = JsonArray()  # listed first, as the reference does
        self.skipped = JsonArray()

    def file_read(
        self, path: str, result: TextFile | AssetFile, size: int, tokens: float, **facts: Any
    ) -> None:
        """A file read: what it is and what it took of the output."""
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

    def file_outlined(self, path: str, shown: OutlineBlock, size: int, tokens: float) -> None:
        """A file shown as its outline: `outline` says how it was made, never its text."""
        self.files.append(path)
        self.read.append(
            {
                "path": path,
                "kind": shown.kind,
                "bytes": shown.size,
                "outline": shown.method,
                "outputBytes": size,
                "estimatedTokens": round(tokens),
            }
        )

    def file_skipped(self, path: str, reason: str, category: str) -> None:
        records = self.outside if reason == REASON_OUTSIDE else self.skipped
        records.append({"path": path, "reason": reason if self.reference_reasons else category})

    def file_failed(self, path: str, reason: str) -> None:
        self.skipped.append({"path": path, "reason": reason})

    def details(self) -> dict[str, Any]:
        """`files`, `skipped` and `read` of the `--json` details."""
        from readmany.emit.jsonarray import JoinedArrays

        skipped = JoinedArrays(self.outside, self.skipped)
        return {"files": self.files, "skipped": skipped, "read": self.read}


class SecretsCheck:
    """`--secrets` and credentials files, for the texts shown: what looks like a secret
    is named (warn), its file left out (skip) or masked (redact); the files masked or
    left out are left out of the diff of `--with-diff` too.

    `skip` reports a file left out; `warnings`, the lines said on stderr, is added to."""

    def __init__(self, skip: Callable[[str, str, str], None], warnings: list[str]) -> None:
        self.skip = skip
        self.warnings = warnings
        self.found: list[dict[str, Any]] = []  # `details.secrets`
        self.rels: set[str] = set()  # files masked or left out

    def checked(self, rel: str, path: str, result: TextFile, mode: str) -> TextFile | None:
        """The text as it may be shown: None for a credentials file or, with `--secrets
        skip`, a file that holds a secret (each reported); redacted with `redact`."""
        credentials = credentials_name(rel)
        if result.data is not None and (credentials or mode != "off"):
            from readmany.read.glob_file import decoded

            result = decoded(result)  # kept as its bytes: its text is looked at here
        if credentials and _holds_credentials(rel, result.text.body):
            self.skip(path, REASON_SECRET_FILE, REASON_SECRET_FILE)
            self.rels.add(rel)  # nor are its lines shown in a diff
            return None
        if mode != "off":
            checked = self.file(path, result, mode)
            if checked is not result:  # masked or left out: so are its lines in the diff
                self.rels.add(rel)
            return checked
        return result

    def file(self, path: str, result: TextFile, mode: str) -> TextFile | None:
        """`--secrets`: name what looks like a secret (warn), leave the file out (skip) or
        mask it (redact); None when the file is left out."""
        body = self.text(path, result.text.body, mode)
        if body is None:
            return None
        if body is not result.text.body:
            # Masked: its weight, if it was weighed, is no longer its text's.
            result = result._replace(text=result.text._replace(body=body), weight=-1.0)
        return result

    def text(self, path: str, text: str, mode: str) -> str | None:
        """`file` of any text shown as `path` (a file, the diff of `--with-diff`): the
        text, masked with `redact`; None when `skip` leaves it out."""
        from readmany.read.secrets import redact, scan

        if mode == "redact":
            masked, findings = redact(text)
        else:
            masked, findings = text, scan(text)
        if not findings:
            return text
        self.found.extend(
            {"path": path, "line": f.line, "rule": f.rule, "action": mode} for f in findings
        )
        if mode == "skip":
            self.skip(path, "secret", "secret")
            return None
        if mode == "warn":
            from readmany.read.secrets import secrets_warning

            self.warnings.append(secrets_warning(path, findings))
        return masked

    def checked_diff(self, diff: str | None, mode: str, label: str) -> str | None:
        """The diff of `--with-diff` as it may be shown: `--secrets` holds for it as for
        the files (a key masked in a file must not be shown by the diff's lines), and a
        credentials file left out is left out of it too."""
        if diff is None or (mode == "off" and not self.rels):
            return diff
        from readmany.read.secrets import diff_without

        diff = diff_without(diff, self.rels, headers=mode != "off")
        if mode == "off":
            return diff
        return self.text(label, diff, mode)


class Report:
    """What became of each matched file: the tally, the lines said on stderr, and the
    `--json` details (`FileRecords`, kept only with `keep_records`: otherwise memory
    does not grow with the number of files); `--secrets` is `SecretsCheck`'s.
    """

    def __init__(
        self,
        root: str,
        *,
        keep_records: bool,
        reference_reasons: bool = True,
        git: str | None = None,
        hook_id: str | None = None,
        stdin_only: bool = False,
    ) -> None:
        self.root = root
        self.stdin_only = stdin_only  # the files are a `--stdin` list alone
        # the reference's long reasons and words (`--compat`), else the short ones
        self.reference_reasons = reference_reasons
        self.git = git  # "staged" or "changed" when git names the files
        self.hook_id = hook_id  # the pre-commit hook this run is (--hook-id)
        # Files git names that the boundary keeps out of the dump (`node_modules/…`):
        # said even with --quiet, as the commit holds them and the dump does not.
        self.left_out_by_git: list[str] = []  # the first few
        self.left_out_count = 0
        self.unmatched_patterns: list[str] = []
        self.diff: str | None = None
        self.warnings: list[str] = []  # said on stderr, the exit status unchanged
        self.advice: list[str] = []  # what to run instead, said once after the rest
        self.records = FileRecords(reference_reasons=reference_reasons) if keep_records else None
        self.secrets = SecretsCheck(self.skip, self.warnings)
        self.attachments: list[Attachment] = []
        self.problems: list[str] = []
        self.tally = Tally()
        self.budget_notes: list[str] = []  # what the budget cut or left out, a line a file
        self.details: dict[str, Any] = {}  # more details: packing, stats

    def selected_skip(self, event: Skip, path: str) -> None:
        """A file the select stage left out (shown as `path`), or a pattern that matched
        nothing."""
        if event.reason == REASON_NO_MATCH:
            self.unmatched(event.rel)
            return
        if self.git is not None and event.reason != REASON_DELETED:
            if is_secret_name(event.rel):
                # Not in the dump, but in the commit: said even with --quiet, as a secret
                # is; and a hook fails (exit 1), saying how to go on.
                if self.hook_id is not None and self.git == "staged":
                    self.problems.append(staged_secret_refusal(path, self.hook_id))
                else:
                    self.warnings.append(secret_file_warning(path, self.git))
            elif event.reason == REASON_OUTSIDE:
                self.left_out_count += 1
                if len(self.left_out_by_git) < _NAMED_AT_MOST:
                    self.left_out_by_git.append(path)
        if (
            event.reason == REASON_OUTSIDE
            and event.rel.startswith("../")
            and not self.reference_reasons
        ):
            advice = OUTSIDE_ADVICE.format(root=notices.shell_word(self.root))
            if advice not in self.advice:
                self.advice.append(advice)
        if event.failed:
            reason = (
                event.reason
                if self.reference_reasons
                else event.reason.removeprefix("Read error: ")
            )
            self.fail(path, f"{path}: {reason}", reason)
        else:
            self.skip(path, event.reason, _SELECT_CATEGORIES.get(event.reason, event.reason))

    def checked(self, rel: str, path: str, result: TextFile, mode: str) -> TextFile | None:
        """`SecretsCheck.checked`."""
        return self.secrets.checked(rel, path, result, mode)

    def checked_diff(self, diff: str | None, mode: str, label: str) -> str | None:
        """`SecretsCheck.checked_diff`."""
        return self.secrets.checked_diff(diff, mode, label)

    def text(self, path: str, result: TextFile, size: int, tokens: float, **facts: object) -> None:
        """A text shown: `size` bytes and about `tokens` tokens of the output (the
        tokens are weighed for `--json` alone); `facts`, more of its `--json` record."""
        text = result.text
        if text.truncated:
            self.tally.add(FileStat(path, "cut", size, _TRUNCATED))
        else:
            self.tally.add_read(path, size)
        if self.records is not None:
            self.records.file_read(
                path, result, size, tokens, truncated=text.truncated, lossy=text.lossy, **facts
            )

    def piece(
        self, path: str, size: int, tokens: float, lines: tuple[int, int, int], part: int
    ) -> None:
        """A piece of a file cut across the parts of `--parts`: its `lines` (first, last,
        of how many), in part `part`. The file is counted once, with its first piece."""
        first, last, total = lines
        if first == 1:
            self.tally.add_read(path, size)
        if self.records is not None:
            if first == 1:
                self.records.files.append(path)
            self.records.read.append(
                {
                    "path": path,
                    "kind": "text",
                    "lines": [first, last],
                    "totalLines": total,
                    "part": part,
                    "outputBytes": size,
                    "estimatedTokens": round(tokens),
                }
            )

    def cut(self, path: str, result: TextFile, size: int, tokens: float, shown: int) -> None:
        """A text the budget cut to its first `shown` lines."""
        self.tally.add(FileStat(path, "cut", size, CUT_BY_BUDGET))
        total = result.text.total_lines or line_count(result.text.body)
        self.budget_notes.append(f"{path}: lines 1-{shown} of {total} shown, {CUT_BY_BUDGET}")
        if self.records is not None:
            self.records.file_read(
                path, result, size, tokens, truncated=True, lossy=result.text.lossy
            )

    def outlined(self, path: str, shown: OutlineBlock, size: int, tokens: float) -> None:
        """A file the budget shows as its outline (`frame.sections.OutlineBlock`)."""
        self.tally.add(FileStat(path, "outlined", size, OUTLINED))
        if self.records is not None:
            self.records.file_outlined(path, shown, size, tokens)

    def left_out(self, paths: list[str]) -> None:
        """Files the budget left out (named in one of `budget_notes`)."""
        self.tally.add_many(paths, "omitted", LEFT_OUT)

    def asset(
        self, path: str, result: AssetFile, size: int, tokens: float, **facts: object
    ) -> None:
        self.tally.add(FileStat(path, "read", size))
        if self.records is not None:
            self.records.file_read(path, result, size, tokens, mimeType=result.mime_type, **facts)

    def attach(self, path: str, result: AssetFile) -> None:
        """An asset sent as an attachment (`--json`), not as content: none of the output."""
        self.attachments.append(Attachment(path, result.mime_type, result.data))
        self.asset(path, result, 0, 0.0)

    @property
    def any_shown(self) -> bool:
        """Whether something is shown outside the content: an attachment counts."""
        return bool(self.attachments)

    def skip(self, path: str, reason: str, category: str) -> None:
        self.tally.add(FileStat(path, "skipped", 0, category))
        if self.records is not None:
            self.records.file_skipped(path, reason, category)

    def unmatched(self, pattern: str) -> None:
        """A command-line pattern that matched no file at all."""
        self.unmatched_patterns.append(pattern)
        self.problems.append(f"no file matches {pattern!r}")

    def nothing_read(self) -> None:
        if not self.problems:
            self.problems.append("no file was read: every file matched was skipped")

    def nothing_read_from(self, staged: bool, changed: str | None) -> None:
        """Nothing was shown: a walk's failure (`nothing_read`); for git's files, an
        answer said on stderr, the exit status unchanged (a pre-commit hook with nothing
        to dump passes): nothing is staged, or nothing differs."""
        if not staged and changed is None:
            if self.stdin_only and not self.tally.counts and not self.problems:
                self.problems.append(notices.NOTHING_LISTED)
            self.nothing_read()
        elif not self.tally.counts and not self.problems:
            if staged:
                self.advice.append("nothing is staged: git add the files first")
            else:
                self.advice.append(f"no file differs from {changed}")

    def read_failed(self, path: str, result: Failed) -> None:
        """A file that could not be read: in the reference's words with `reference_reasons`, else
        in a person's: `PATH: no such file or directory` on stderr, the part after the
        path as the reason in `--json` details (as a skip's reason is its kind)."""
        if self.reference_reasons or not result.code:
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
        if self.records is not None:
            self.records.file_failed(path, reason)

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
        if self.records is not None:
            details.update(self.records.details())
            if not self.reference_reasons:
                details.update(unmatched=self.unmatched_patterns)
            if self.diff is not None:
                details.update(diff=self.diff)
            if self.secrets.found:
                details.update(secrets=self.secrets.found)
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
