"""`readmany glob`: select by globs and ignore rules, read, frame with `--- path ---`.

The walk, the reads and the output advance together: each file is read and its section
written as the walk reaches it, in output order (the walk may run in a helper process
that also reads ahead: see `walker`). Memory does not grow with the number of
files: the per-file records of `--json` details are kept as text, in a temporary file
once they are long (`emit.jsonarray`).
"""

from __future__ import annotations

import os
import re

from readmany.commands import secrets_mode, stdin_only
from readmany.commands.glob_files import shown_files
from readmany.commands.glob_request import GlobRequest, candidate_reader, open_selection
from readmany.emit.messages import error_line
from readmany.emit.outcome import Outcome
from readmany.emit.render import Presentation, present
from readmany.emit.report import Report, git_kind
from readmany.emit.sink import Sink
from readmany.emit.streamed import StreamedSections
from readmany.errors import UsageError
from readmany.faces import Face
from readmany.frame.formats import FORMATS, framing_for
from readmany.frame.sections import (
    diff_label,
)
from readmany.frame.separator import frame_end
from readmany.invoke import Options, StdinPaths, current_directory
from readmany.read.safe import refuse_root
from readmany.select.lookahead import Selection
from readmany.units import parse_size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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
    ("order", "--order"),
    ("prefer", "--prefer"),
    ("tokenizer", "--tokenizer"),
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
    from readmany.rank import ORDERS

    order = options.text("order") or "rank"
    if order not in ORDERS:
        raise UsageError(f"--order {order!r}: give {', '.join(ORDERS)}")
    prefer = options.texts("prefer")
    if prefer:
        from readmany.select.patterns import compile_paths

        for pattern in prefer:
            try:
                compile_paths([pattern])
            except Exception:  # wcmatch's errors, or a brace too deep
                raise UsageError(f"--prefer {pattern!r}: not a glob readmany can read") from None
    return {
        "tokenizer": _tokenizer(options.text("tokenizer"), max_tokens is not None),
        "order": order,
        "prefer": prefer,
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


def _tokenizer(name: str | None, budgeted: bool) -> str:
    """What counts a budget of tokens (`tokenizer.TOKENIZERS`): the one asked for, else
    the best installed; an exact one not installed is a usage error naming the extra."""
    from readmany import tokenizer

    if name is None:
        return tokenizer.default() if budgeted else "estimate"
    if name not in tokenizer.TOKENIZERS:
        raise UsageError(f"--tokenizer {name!r}: give {', '.join(tokenizer.TOKENIZERS)}")
    if not budgeted:
        raise UsageError("--tokenizer counts a budget of tokens: add --max-tokens N")
    if name != "estimate" and not tokenizer.available():
        raise UsageError(f"--tokenizer {name} needs bpe-openai: {tokenizer.EXTRA}")
    return name


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


def run_glob(request: GlobRequest, sink: Sink, selection: Selection | None = None) -> Outcome:
    """Select, read, frame and write; `selection` is the walk if it was started already."""
    with (
        selection or open_selection(request) as selection,
        candidate_reader(request) as read,
    ):
        selection.when_waiting(sink.flush)
        compat = request.face.compat
        label = diff_label(request.staged, request.changed)
        framing = framing_for(
            request.format,
            line_numbers=request.line_numbers,
            reserved=label if request.with_diff else None,
            guard=request.face.guard_sections,
        )
        report = Report(
            selection.root,
            keep_records=sink.json_mode,
            reference_reasons=compat,
            git=git_kind(request.staged, request.changed),
            stdin_only=stdin_only(request),
            hook_id=request.hook_id,
        )
        sections = StreamedSections(framing, sink, report)
        shown = shown_files(
            selection,
            report,
            read,
            secrets=request.secrets,
            absolute=request.absolute,
            sink=sink,
        )
        for _ordinal, event, path, result, _cost in shown:
            sections.file(event.rel, path, result)
        diff = report.checked_diff(selection.diff, request.secrets, label)
    if diff is not None:
        sections.diff(label, diff)
    index = sections.written
    any_section = index > 0 or report.any_shown
    if compat:
        sink.write(frame_end(any_section))
    else:
        if any_section and not index:  # attachments alone (--json)
            sink.write(framing.start(None))
        sink.write(framing.end(any_section))
    if not any_section and not compat:
        report.nothing_read_from(request.staged, request.changed)
    return report.outcome(sink.bytes_written, sink.tokens)
