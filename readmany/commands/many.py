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
2000 lines / 50 KB, the reference's notices). Both faces run the one code path below;
each difference is a field of `Face` (`many_read_notices`, `many_errors_reserved`,
`many_omitted_notice`, `nothing_shown_fails`, `refuse_secret_files`, `shell_notices`,
`report_left_out`, …). The request is `request.many`'s, the blocks in `frame.pages`, what
is left to read in `pack.continuation`, the report of each file's fate in
`emit.many_report`.
"""

from __future__ import annotations

from collections.abc import Sequence

from readmany.choices import Secrets
from readmany.emit.many_report import (
    NOT_READ_REASON,
    advice_of,
    budget_words,
    fates_of,
    file_detail,
    not_read_line,
    nothing_listed,
    reference_notes,
    reference_stats,
    truncation_detail,
    write_blocks,
)
from readmany.emit.outcome import FileStat, Outcome, Tally
from readmany.emit.render import present
from readmany.emit.sink import Sink
from readmany.errors import EXIT_FILE_ERROR, EXIT_OK
from readmany.faces import Face
from readmany.frame import notices, weigh
from readmany.frame.pages import Piece, parts_of, piece_of, problem, reference_piece
from readmany.pack import SEPARATOR, SEPARATOR_BYTES, SEPARATOR_LINES, Budget, Entry, pack_blocks
from readmany.pack.bounded import bound_of_texts, made_within
from readmany.pack.budget import options_to_hold, size_at_least
from readmany.pack.continuation import need_of_pieces, rest_specs
from readmany.pack.fit import NOTHING, cost_of, fit, less, with_reserved
from readmany.read.classify import credentials_name
from readmany.read.guard import SECRET_FILE, check_secrets, credentials_refusal, empty_directory
from readmany.read.line_range import ReadStyle, ToolRead, read_tool, resolve_path
from readmany.request.many import FileRequest, ManyRequest
from readmany.select.boundary import secret_file_refusal, target_name
from readmany.units import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.pack import Packing


def main(request: ManyRequest) -> int:
    """`readmany many` with its request: run and presented."""
    if not request.files:  # `--stdin` listed nothing
        return present(nothing_listed, request.presentation)
    return present(lambda sink: run_many(request, sink), request.presentation)


READ_BYTES_PER_TOKEN = 8  # a budget of tokens reads at most this many bytes a token


def read_style(budget: Budget, face: Face) -> ReadStyle:
    """How each file is read: capped by the budget alone (unless the face caps each file
    as the reference's read does), without the read's notices (unless the face shows
    them), which `piece_of` words. A budget of tokens caps a read at
    `READ_BYTES_PER_TOKEN` bytes a token."""
    capped = ReadStyle()
    max_bytes = budget.max_bytes
    if budget.counts_tokens:
        max_bytes = min(max_bytes, int(budget.max_tokens * READ_BYTES_PER_TOKEN))
    return ReadStyle(
        rewrite_paths=face.rewrite_paths,
        max_lines=capped.max_lines if face.many_file_cap else budget.max_lines,
        max_bytes=capped.max_bytes if face.many_file_cap else max_bytes,
        notices=face.many_read_notices,
        refuse_binary=face.many_binary_error,
        reference_window_end=face.many_read_notices,
        keep_window=budget.counts_tokens and not face.many_read_notices,
    )


def _read(file: FileRequest, request: ManyRequest, style: ReadStyle) -> ToolRead:
    """One file read as the face reads it: a secret file refused by its name (or its
    link's target's), or one that holds credentials once read, where the face refuses
    them."""
    face = request.face
    rewrite = style.rewrite_paths and not file.literal
    target = None
    if face.refuse_secret_files:
        target = target_name(resolve_path(file.path, request.cwd, rewrite=rewrite))
        refusal = secret_file_refusal(file.path, target)
        if refusal is not None:  # as glob and hashline: never read, whoever names it
            return ToolRead(error=refusal, error_code=SECRET_FILE)
    result = read_tool(
        file.path,
        file.offset,
        file.limit,
        request.cwd,
        count_trailing_empty=face.many_read_notices,
        style=style._replace(rewrite_paths=rewrite),
        root=file.root or request.root,
    )
    if face.refuse_secret_files and result.ok:
        kind = credentials_name(file.path) or (target and credentials_name(target))
        refusal = None if kind is None else credentials_refusal(file.path, kind, result.text)
        if refusal is not None:
            result = ToolRead(error=refusal, error_code=SECRET_FILE, size=result.size)
    return result


def run_many(request: ManyRequest, sink: Sink) -> Outcome:
    """Read, frame, pack and write the files of `request`, in either face."""
    face = request.face
    style = read_style(request.budget, face)
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
        result = _read(file, request, style)
        if request.secrets != Secrets.OFF and result.ok and result.text:
            result = check_secrets(file.path, result, request.secrets, warnings, found)
        if face.shell_notices and result.error_code == "EISDIR" and empty_directory(file.path):
            result = result._replace(error_detail="empty")  # as `glob` of it would read
        if face.many_read_notices:
            piece = reference_piece(file, index + 1, result)
        else:
            piece = piece_of(file, index + 1, result, carry, size_words=size_at_least)
        pieces.append(piece)
        entries.append(Entry(index, file.path, piece.block, result.ok, piece.cutter))
        detail = file_detail(file.path, result, piece.block, weigh=sink.weigh)
        result = result._replace(text="", window=None)  # the text is held in its block alone
        if face.shell_notices:
            if result.error is not None:
                detail["error"] = problem(file, result)
            elif "truncation" in detail:
                detail["truncation"] = truncation_detail(detail["truncation"])
                if detail["truncation"] is None:
                    del detail["truncation"]
        details.append(detail)
        sink.file_done(file.path, len(request.files))
        if not result.ok:
            problems.append(
                detail["error"] if face.shell_notices else f"{file.path}: {result.error}"
            )
            if (
                face.shell_notices
                and result.error_code == "ENOENT"
                and notices.git_quoted(file.path)
            ):
                quoted_names = True
            if request.stop_on_error:
                if face.report_left_out:
                    not_read = request.files[index + 1 :]
                if not_read:
                    problems.append(not_read_line(file.path, not_read, carry))
                break
    # what would hold every file (of a bounded budget, as the plan needs): notice, advice
    need = need_of_pieces(pieces, request.budget, bounded=face.many_token_bound)
    raise_to = options_to_hold(need, request.budget)
    packing, left_out, rest, named = _pack(entries, pieces, request, raise_to)
    shown = packing.blocks(entries)
    write_blocks(sink, shown)
    if left_out is not None:
        sink.write(SEPARATOR + left_out if shown else left_out)
    errors = sum(not entry.ok for entry in entries)
    fates = fates_of(entries, packing)
    advice = advice_of(rest if named else (), raise_to, carry) if rest else None
    shown_none = not any(fate.stat.status in ("read", "cut") for fate in fates)
    shown_none = shown_none and face.nothing_shown_fails
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
    }
    if face.shell_notices:
        report["continueWith"] = notices.many_command(rest, carry) if rest else None
    if face.report_left_out:
        report["notReadPaths"] = [file.path for file in not_read]
    if found and face.details_secrets:
        report["secrets"] = found
    report["bytes"] = sink.bytes_written
    report["estimatedTokens"] = round(sink.tokens)
    if face.shell_notices:
        stats = [fate.stat for fate in fates]
        said = tuple(fate.note for fate in fates if fate.note is not None)
        problems += warnings
    else:
        stats = reference_stats(entries, packing)
        said = (*warnings, *reference_notes(packing.omitted, packing.plan.partial_index, entries))
    return Outcome(
        details=report,
        exit_code=EXIT_FILE_ERROR if errors or shown_none else EXIT_OK,
        problems=tuple(problems),
        notices=said,
        advice=(
            *((advice,) if advice is not None else ()),
            *((notices.GIT_QUOTED_ADVICE.format(command="many"),) if quoted_names else ()),
        ),
        stats=Tally.of(
            [*stats, *(FileStat(file.path, "skipped", 0, NOT_READ_REASON) for file in not_read)]
        ),
    )


def _pack(
    entries: Sequence[Entry], pieces: Sequence[Piece], request: ManyRequest, raise_to: list[str]
) -> tuple[Packing, str | None, list[str], bool]:
    """`_packed` for the budget; a budget of tokens, where the face bounds them, made
    again for fewer estimated tokens until the bound of the real count of what it
    writes is within it (`pack.bounded.made_within`): a file's estimate can be a few
    percent low (of a table of numbers, half)."""
    budget = request.budget
    if not (budget.counts_tokens and request.face.many_token_bound):
        return _packed(entries, pieces, request, budget, raise_to)

    def written(made: tuple[Packing, str | None, list[str], bool]) -> list[str]:
        texts = ["".join(parts_of(block)) for block in made[0].blocks(entries)]
        return texts if made[1] is None else [*texts, made[1]]

    return made_within(
        lambda room: _packed(entries, pieces, request, room, raise_to),
        lambda made: bound_of_texts(written(made), weigh(SEPARATOR)),
        budget,
    )


def _packed(
    entries: Sequence[Entry],
    pieces: Sequence[Piece],
    request: ManyRequest,
    within: Budget,
    raise_to: list[str],
) -> tuple[Packing, str | None, list[str], bool]:
    """The packing within `within` (the budget, or less of its tokens), the notice
    naming what it left out (and `raise_to`, the options that would hold every file),
    the specs that read the rest, and whether the notice names them all with the
    command that reads them.

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
    face = request.face
    carry = request.asked.options()
    counting = budget.counts_tokens
    files = request.files[: len(entries)]  # --stop-on-error: those read
    failed = [entry for entry in entries if not entry.ok] if face.many_errors_reserved else []
    readable = [entry for entry in entries if entry.ok or not face.many_errors_reserved]
    joint = (SEPARATOR_BYTES, SEPARATOR_LINES, weigh(SEPARATOR) if counting else 0.0)
    errors = cost_of((entry.block for entry in failed), joint, tokens=counting)
    if less(within, errors) is None:
        failed = []
        errors = NOTHING

    def packed(room: Budget) -> Packing:
        return with_reserved(pack_blocks(readable, room), failed)

    def rest_of(packing: Packing) -> list[str]:
        """The arguments that read what `packing` leaves out, where the face names them."""
        return rest_specs(entries, pieces, packing, files) if face.shell_notices else []

    def attempt(room: Budget) -> tuple[tuple[Packing, str | None, list[str], bool], Budget]:
        packing = packed(room)
        rest = rest_of(packing)
        if not packing.omitted or not face.many_omitted_notice:
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

    fitted, _fits = fit(within, attempt, keep=errors, attempts=len(entries) + 2)
    if fitted is None:  # not even the notice fits the budget: it is said on stderr alone
        packing = packed(less(within, errors) or NOTHING)
        return packing, None, rest_of(packing), True
    return fitted
