"""`readmany many`: read files, frame each in a heredoc block, pack to a budget.

The default face: the budget is the only limit, and nothing is silent. A file may take
all that is left of the budget (no per-file cap, no 26-file limit). A block the budget
cuts ends with a notice naming the lines shown and the command that continues
(`[Showing lines 1-1646 of 3624. Continue with: readmany many big.py:1647]`); files the
budget leaves out are named in one notice after the last block, with the budget that
would hold everything and the command that reads the rest. That notice is counted in the
budget like a block. Binary files and directories are error blocks that say so; an error
block is always shown, its room kept before the rest is packed. A budget that shows no
file read is an error (exit 1), and the files `--stop-on-error` did not read are named.

With `--compat` it is the reference's `read_many` (at most 26 files, each read capped at
2000 lines / 50 KB, the reference's notices). The request values are in `many_request`,
the blocks in `frame.pages`, what is left to read in `pack.continuation`, the report of
each file's fate in `emit.many_report`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from readmany.commands import secrets_mode
from readmany.commands.many_request import (
    FileRequest,
    ManyRequest,
    budget_of,
    check_file_count,
    file_detail,
    parse_file_spec,
    write_blocks,
)
from readmany.commands.many_request import (
    parse_request_object as parse_request_object,  # serve/tools.py imports it from here
)
from readmany.emit.many_report import (
    NOT_READ_REASON,
    advice_of,
    budget_words,
    fates_of,
    not_read_line,
    reference_notes,
    reference_stats,
    truncation_detail,
)
from readmany.emit.outcome import FileStat, Outcome, Tally
from readmany.emit.render import Presentation, present
from readmany.emit.sink import Sink
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK, UsageError
from readmany.faces import Face
from readmany.frame import notices, weigh
from readmany.frame.heredoc import frame_heredoc
from readmany.frame.pages import Piece, body_of, cut_heredoc_head, piece_of, problem
from readmany.invoke import Options, current_directory, load_json, stdin_paths
from readmany.pack import SEPARATOR, SEPARATOR_BYTES, SEPARATOR_LINES, Budget, Entry, pack_blocks
from readmany.pack.budget import options_to_hold, size_at_least
from readmany.pack.continuation import need_of_pieces, rest_specs
from readmany.pack.fit import NOTHING, cost_of, fit, less, with_reserved
from readmany.read.classify import credentials_name
from readmany.read.guard import SECRET_FILE, check_secrets, empty_directory
from readmany.read.line_range import ReadStyle, ToolRead, read_tool, resolve_path
from readmany.select.boundary import secret_file_refusal, secret_file_words, target_name
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.pack import Packing


def main(options: Options) -> int:
    """`readmany many` with its parsed options: the request value, run and presented."""
    face = Face.reference() if options.flag("compat") else Face.people()
    asked, budget = budget_of(options, face)
    cwd = current_directory()
    specs = list(options.texts("files"))
    piped: list[str] = []
    if options.flag("stdin"):
        piped = stdin_paths(options.flag("null"), quiet=options.flag("quiet"))
    stop_on_error = options.flag("stop_on_error")
    source = options.text("request")
    if source is not None:
        if specs or piped:
            raise UsageError("--request cannot be mixed with FILE arguments or --stdin")
        parsed = parse_request_object(load_json(source), cwd, face.many_max_files)
        value = parsed._replace(stop_on_error=parsed.stop_on_error or stop_on_error)
    elif not (specs or piped) and options.flag("stdin") and not face.compat:
        # An empty list (`rg -l NOMATCH | readmany many --stdin`) is nothing read, as in
        # glob: exit 1 and one line, not a usage error.
        return present(_nothing_listed, Presentation.of(options))
    else:
        check_file_count(len(specs) + len(piped), face.many_max_files)
        files = (
            *(parse_file_spec(spec, cwd) for spec in specs),
            *(parse_file_spec(spec, cwd, literal=True) for spec in piped),
        )
        if not face.compat:
            for spec, file in zip(specs, files, strict=False):
                if file.limit == 0:  # the reference shows nothing for it, without a word
                    raise UsageError(
                        f"{spec}: a LIMIT of 0 shows no line: give 1 or more, or leave it "
                        f"out for the rest of the file ({spec.rpartition(':')[0]})"
                    )
        value = ManyRequest(files, stop_on_error=stop_on_error, cwd=cwd)
    secrets = secrets_mode(options, redact=True)
    value = value._replace(budget=budget, face=face, asked=asked, secrets=secrets)
    output = options.text("output")
    if output is not None:
        from readmany.emit.target import named_input_check

        check = named_input_check(output, cwd)
        if source is not None and source != "-":
            check(source)
        for file in value.files:
            rewrite = face.rewrite_paths and not file.literal
            check(file.path, resolve_path(file.path, cwd, rewrite=rewrite))
    return present(lambda sink: run_many(value, sink), Presentation.of(options))


def _nothing_listed(sink: Sink) -> Outcome:
    """`--stdin` that listed no path: nothing written (with `--json`, empty content)."""
    from readmany.frame.notices import NOTHING_LISTED

    details = {"processedCount": 0, "successCount": 0, "errorCount": 0, "files": []}
    return Outcome(details, exit_code=EXIT_FILE_ERROR, problems=(NOTHING_LISTED,))


def run_many(request: ManyRequest, sink: Sink) -> Outcome:
    if not request.face.compat:
        return run_default(request, sink)
    candidates: list[Entry] = []
    details: list[dict[str, Any]] = []
    problems: list[str] = []
    warnings: list[str] = []  # --secrets warn, which only `readmany mcp` sets here
    for index, file in enumerate(request.files):
        style = ReadStyle(rewrite_paths=request.face.rewrite_paths and not file.literal)
        result = read_tool(
            file.path,
            file.offset,
            file.limit,
            request.cwd,
            style=style,
            root=file.root or request.root,
        )
        if request.secrets != "off" and result.ok and result.text:  # never from the CLI
            result = check_secrets(file.path, result, request.secrets, warnings, [])
        body = body_of(result)
        block = frame_heredoc(file.path, body, index + 1)
        cut = partial(cut_heredoc_head, file.path, index + 1, body) if result.ok else None
        candidates.append(Entry(index, file.path, block, result.ok, cut))
        details.append(file_detail(file, result, block, weigh=sink.weigh))
        sink.file_done(file.path, len(request.files))
        if not result.ok:
            problems.append(f"{file.path}: {result.error}")
            if request.stop_on_error:
                break
    packing = pack_blocks(candidates, request.budget)
    shown = packing.blocks(candidates)
    write_blocks(sink, shown)
    errors = sum(not c.ok for c in candidates)
    report: dict[str, Any] = {
        "processedCount": len(candidates),
        "successCount": len(candidates) - errors,
        "errorCount": errors,
        "files": details,
        "packing": packing.as_json(candidates),
        "bytes": sink.bytes_written,
        "estimatedTokens": round(sink.tokens),
    }
    return Outcome(
        details=report,
        exit_code=EXIT_FILE_ERROR if errors else EXIT_OK,
        problems=tuple(problems),
        notices=(
            *warnings,
            *reference_notes(packing.omitted, packing.plan.partial_index, candidates),
        ),
        stats=Tally.of(reference_stats(candidates, packing)),
    )


READ_BYTES_PER_TOKEN = 8  # a budget of tokens reads at most this many bytes a token


def read_style(budget: Budget, face: Face) -> ReadStyle:
    """How each file is read: capped by the budget alone (unless the face caps each file
    as the reference's read does), without the read's notices, which `piece_of` words.
    A budget of tokens caps a read at `READ_BYTES_PER_TOKEN` bytes a token."""
    capped = ReadStyle()
    max_bytes = budget.max_bytes
    if budget.counts_tokens:
        max_bytes = min(max_bytes, int(budget.max_tokens * READ_BYTES_PER_TOKEN))
    return ReadStyle(
        rewrite_paths=face.rewrite_paths,
        max_lines=capped.max_lines if face.many_file_cap else budget.max_lines,
        max_bytes=capped.max_bytes if face.many_file_cap else max_bytes,
        notices=False,
        refuse_binary=face.many_binary_error,
        reference_window_end=False,
        keep_window=budget.counts_tokens,
    )


def _credentials_refused(path: str, kind: str, result: ToolRead) -> ToolRead:
    """An `.npmrc` or `.pypirc` (`kind`: by its name or its link's target's) that holds a
    token or password is a secret file, as glob refuses it: the read becomes its refusal."""
    from readmany.read.secrets import holds_credentials

    if not holds_credentials(kind, result.text):
        return result
    refusal = secret_file_words(path, "it holds a token or password")
    return ToolRead(error=refusal, error_code=SECRET_FILE, size=result.size)


def run_default(request: ManyRequest, sink: Sink) -> Outcome:
    style = read_style(request.budget, request.face)
    pieces: list[Piece] = []
    entries: list[Entry] = []
    details: list[dict[str, Any]] = []
    problems: list[str] = []
    quoted_names = False  # a name not found that git ls-files quoted (listed without -z)
    warnings: list[str] = []  # said on stderr, the exit status unchanged
    found: list[dict[str, Any]] = []  # details.secrets
    not_read: Sequence[FileRequest] = ()  # after the failure that --stop-on-error stops at
    carry = request.asked.options()  # kept by every command a notice offers
    for index, file in enumerate(request.files):
        rewrite = style.rewrite_paths and not file.literal
        target = target_name(resolve_path(file.path, request.cwd, rewrite=rewrite))
        refusal = secret_file_refusal(file.path, target)
        if refusal is not None:  # as glob and hashline: never read, whoever names it
            result = ToolRead(error=refusal, error_code=SECRET_FILE)
        else:
            result = read_tool(
                file.path,
                file.offset,
                file.limit,
                request.cwd,
                count_trailing_empty=False,
                style=style._replace(rewrite_paths=rewrite),
                root=file.root or request.root,
            )
        if result.ok:
            kind = credentials_name(file.path) or (target and credentials_name(target))
            if kind is not None:
                result = _credentials_refused(file.path, kind, result)
        if request.secrets != "off" and result.ok and result.text:
            result = check_secrets(file.path, result, request.secrets, warnings, found)
        if result.error_code == "EISDIR" and empty_directory(file.path):
            result = result._replace(error_detail="empty")  # as `glob` of it would read
        piece = piece_of(file, index + 1, result, carry, size_words=size_at_least)
        pieces.append(piece)
        entries.append(Entry(index, file.path, piece.block, result.ok, piece.cutter))
        detail = file_detail(file, result, piece.block, weigh=sink.weigh)
        result = result._replace(text="", window=None)  # the text is held in its block alone
        if result.error is not None:
            detail["error"] = problem(file, result)
        elif "truncation" in detail:
            detail["truncation"] = truncation_detail(detail["truncation"])
            if detail["truncation"] is None:
                del detail["truncation"]
        details.append(detail)
        sink.file_done(file.path, len(request.files))
        if not result.ok:
            problems.append(detail["error"])
            if result.error_code == "ENOENT" and notices.git_quoted(file.path):
                quoted_names = True
            if request.stop_on_error:
                not_read = request.files[index + 1 :]
                if not_read:
                    problems.append(not_read_line(file.path, not_read, carry))
                break
    packing, left_out, rest, named = _pack(entries, pieces, request)
    shown = packing.blocks(entries)
    write_blocks(sink, shown)
    if left_out is not None:
        sink.write(SEPARATOR + left_out if shown else left_out)
    errors = sum(not entry.ok for entry in entries)
    fates = fates_of(entries, packing)
    raise_to = (
        options_to_hold(need_of_pieces(pieces, request.budget), request.budget) if rest else []
    )
    advice = advice_of(rest if named else (), raise_to, carry) if rest else None
    shown_none = not any(fate.stat.status in ("read", "cut") for fate in fates)
    if shown_none and errors < len(entries):
        # Files were read and the budget shows none of them: an error, said with the fix.
        readable = [entry.path for entry in entries if entry.ok]
        what = readable[0] if len(readable) == 1 else f"the {len(readable)} files read"
        how = advice or "the files left out are listed in the --json details"
        errors_shown = any(not e.ok and e.position in packing.plan.full for e in entries)
        problems.append(
            notices.nothing_fits(
                budget_words(request.asked, request.budget), what, how, errors_shown
            )
        )
        advice = None
    report: dict[str, Any] = {
        "processedCount": len(entries),
        "successCount": len(entries) - errors,
        "errorCount": errors,
        "files": details,
        "packing": packing.as_json(entries),
        "continueWith": notices.many_command(rest, carry) if rest else None,
        "notReadPaths": [file.path for file in not_read],
        **({"secrets": found} if found else {}),
        "bytes": sink.bytes_written,
        "estimatedTokens": round(sink.tokens),
    }
    return Outcome(
        details=report,
        exit_code=EXIT_FILE_ERROR if errors or shown_none else EXIT_OK,
        problems=(*problems, *warnings),
        notices=tuple(fate.note for fate in fates if fate.note is not None),
        advice=(
            *((advice,) if advice is not None else ()),
            *((notices.GIT_QUOTED_ADVICE.format(command="many"),) if quoted_names else ()),
        ),
        stats=Tally.of(
            [
                *(fate.stat for fate in fates),
                *(FileStat(file.path, "skipped", 0, NOT_READ_REASON) for file in not_read),
            ]
        ),
    )


def _pack(
    entries: Sequence[Entry], pieces: Sequence[Piece], request: ManyRequest
) -> tuple[Packing, str | None, list[str], bool]:
    """The packing, the notice naming what it left out, the specs that read the rest, and
    whether the notice names them all with the command that reads them.

    The notice is part of the output, so it is part of the budget: the planner runs
    again with room kept for it until the notice fits the room kept. A notice that would
    take more than a quarter of the budget (thousands of files from --stdin) names the
    first few and the count instead; stderr and the JSON details name them all.

    Error blocks are shown whenever they fit the budget together: their room (with a
    joint each) is kept before the files read are packed, and they are never left out.
    When they do not fit (a tiny budget, a long list of missing files), none is shown:
    the budget holds, and stderr and the exit status say what failed.
    """
    budget = request.budget
    raise_to = options_to_hold(need_of_pieces(pieces, budget), budget)
    carry = request.asked.options()
    counting = budget.counts_tokens
    files = request.files[: len(entries)]  # --stop-on-error: those read
    failed = [entry for entry in entries if not entry.ok]
    readable = [entry for entry in entries if entry.ok]
    joint = (SEPARATOR_BYTES, SEPARATOR_LINES, weigh(SEPARATOR) if counting else 0.0)
    errors = cost_of((entry.block for entry in failed), joint, tokens=counting)
    if less(budget, errors) is None:
        failed = []
        errors = NOTHING

    def packed(room: Budget) -> Packing:
        return with_reserved(pack_blocks(readable, room), failed)

    def attempt(room: Budget) -> tuple[tuple[Packing, str | None, list[str], bool], Budget]:
        packing = packed(room)
        rest = rest_specs(entries, pieces, packing, files)
        if not packing.omitted or not request.face.many_omitted_notice:
            return (packing, None, rest, True), NOTHING
        names = [entries[i].path for i in packing.omitted]
        notice = notices.left_out(names, raise_to, notices.many_command(rest, carry))
        named = utf8_len(notice) <= budget.max_bytes // 4 and (
            not counting or weigh(notice) <= budget.max_tokens / 4
        )
        if not named:
            notice = notices.left_out_many(names, raise_to)
        any_shown = bool(packing.plan.full) or packing.plan.partial is not None
        cost_bytes = utf8_len(notice) + (SEPARATOR_BYTES if any_shown else 0)
        cost_lines = notice.count("\n") + 1 + (SEPARATOR_LINES if any_shown else 0)
        cost_tokens = 0.0
        if counting:
            cost_tokens = weigh(SEPARATOR + notice if any_shown else notice)
        cost = Budget(
            cost_bytes + errors.max_bytes,
            cost_lines + errors.max_lines,
            cost_tokens + errors.max_tokens,
        )
        return (packing, notice, rest, named), cost

    fitted, _fits = fit(budget, attempt, keep=errors, attempts=len(entries) + 2)
    if fitted is None:  # not even the notice fits the budget: it is said on stderr alone
        packing = packed(less(budget, errors) or NOTHING)
        return packing, None, rest_specs(entries, pieces, packing, files), True
    return fitted
