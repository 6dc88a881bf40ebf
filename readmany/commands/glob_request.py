"""`readmany glob`'s request, and the wiring of its selection: the walk or git, the reads.

From `GlobRequest` (`readmany.request.glob`) come the select
stage's request (`select_request`), the read of a matched file with the limits of the
face (`candidate_reader`), and the selection (`open_selection`): the walk, a step ahead
in a helper process where it pays (`select/lookahead.py`), given what to do to a file
ahead of the main process and how a read result travels, or the files git names, read
from the index when staged (`read/gitfiles.py`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from readmany.choices import Secrets
from readmany.faces import Face
from readmany.request.glob import GlobRequest
from readmany.request.inputs import StdinPaths
from readmany.select.lookahead import Selection, Source

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.read.glob_file import CandidateReader, MatchedLimits
    from readmany.select.walk import SelectRequest, WalkRules

# This module is imported before the fork and kept light: the stages are imported where
# they are used, so that each process imports its own while the other does the same.


def select_request(request: GlobRequest) -> SelectRequest:
    from readmany.select.walk import SelectRequest

    return SelectRequest(
        root=request.root,
        patterns=request.patterns,
        literal_paths=request.literal_paths,
        excludes=request.excludes,
        use_default_excludes=request.use_default_excludes,
        use_gitignore=request.use_gitignore,
        ignore_files=request.ignore_files,
        recursive=request.recursive,
        rules=walk_rules(request.face),
        outputs=_outputs(request),
        global_excludes=request.face.global_excludes,
    )


def walk_rules(face: Face) -> WalkRules:
    """How the walk of a face treats what is named and what it leaves out."""
    from readmany.select.walk import WalkRules

    return WalkRules(
        listed_order=face.listed_order,
        named_paths_bypass_ignore=face.named_paths_bypass_ignore,
        report_left_out=face.report_left_out,
        listed_paths_request_assets=face.listed_paths_request_assets,
        walk_listed_directory_links=face.walk_listed_directory_links,
        list_outside_directories=face.list_outside_directories,
    )


def _outputs(request: GlobRequest) -> tuple[str, ...]:
    """What the run writes, as the walk may meet it (never selected): the `-o` target, or
    with `--parts` every file it may write for it (`ctx.1.txt` …)."""
    from readmany.select.boundary import output_paths

    if not request.parts or not request.output:
        return output_paths(request.output)
    from readmany.emit.target import part_names

    return tuple(path for name in part_names(request.output) for path in output_paths(name))


def candidate_reader(request: GlobRequest) -> CandidateReader:
    """The read of a matched file, with the limits of the request's face."""
    from readmany.read.glob_file import CandidateReader, MatchedLimits
    from readmany.select.patterns import RequestedAssets

    face = request.face
    limits = MatchedLimits(
        max_lines=face.glob_max_lines,
        max_line_units=face.glob_max_line_units,
        max_file_bytes=face.glob_max_file_bytes,
        exact=face.glob_exact_text,
        sniff_typescript=face.glob_sniff_typescript,
        max_svg_bytes=face.glob_max_svg_bytes,
    )
    requested = RequestedAssets(request.patterns)
    reader = CandidateReader(requested, limits, os.path.abspath(request.root))
    # Each process weighs what it reads, where the tokens are wanted; and for `--stats`
    # with a budget, measures it as it reads it.
    reader.weigh = request.weighs
    # A run that writes each file as read, looking at no text, keeps the bytes.
    reader.as_read = (
        face.glob_exact_text
        and request.format == "text"
        and not request.line_numbers
        and request.secrets == "off"
        and not request.json
        and not (request.budgeted or request.tree or request.stats)
        and not (request.outline or request.parts)
    )
    if request.stats and request.budgeted:
        from readmany.read.measure import measure_for_stats

        reader.measure_as_read = measure_for_stats
    return reader


def held_chars(request: GlobRequest, limits: MatchedLimits) -> int | None:
    """How much of a long text a budgeted run's first pass holds (`read_matched`'s `keep`,
    `glob_file.held_text`), in whichever process reads it; None: all of it."""
    if not request.budgeted:
        return None
    from readmany.limits import CUT_BYTES_PER_TOKEN
    from readmany.read.glob_file import held_text

    # Numbered lines, markdown and xml hold a start too: their block is at least the
    # text's raw bytes, so a text longer than a budget's cut is past the budget in any
    # format; the first pass reads again whole a text whose lower bound still fits
    # (`PlannedFrames.held_exactly`, `FirstPass.past`, `Texts.read_whole`).
    plain = request.secrets == Secrets.OFF and not request.stats
    return held_text(
        limits,
        max_bytes=request.max_bytes,
        max_tokens=request.max_tokens,
        bytes_per_token=CUT_BYTES_PER_TOKEN,
        plain=plain,
    )


def open_selection(request: GlobRequest) -> Selection:
    """The files of a request: from git, or the walk in a helper process where that is
    possible and useful, else in this one."""
    from readmany.select import lookahead

    return lookahead.open_selection(lookahead_source(request))


def lookahead_source(request: GlobRequest) -> Source:
    """What the look-ahead walks for a request, and what it does to a file ahead."""
    from readmany.read import transfer

    listed = request.literal_paths
    by_git = request.by_git
    planned = request.budgeted or request.tree or request.stats
    return Source(
        walk=lambda: _walk(request),
        read_ahead=lambda: _ahead(request),
        pack=transfer.pack_result,
        unpack=transfer.unpack_result,
        packed_size=transfer.packed_size,
        absolute=request.absolute,
        listed=listed if isinstance(listed, StdinPaths) else None,
        from_git=(lambda: _from_git(request)) if by_git else None,
        # The diff is the main process's to write; a plan reads staged files twice.
        git_here=request.with_diff or planned,
        root=request.root,
        patterns=request.patterns,
    )


def _from_git(request: GlobRequest) -> Selection:
    from readmany.frame.paths import header_path
    from readmany.read.gitfiles import FromGit

    return FromGit(
        request.root,
        staged=request.staged,
        changed=request.changed,
        patterns=request.patterns,
        output=request.output,
        with_diff=request.with_diff,
        absolute=request.absolute,
        reader=lambda: candidate_reader(request),
        header=header_path,
    )


def _walk(request: GlobRequest) -> tuple[str, Iterator[Any]]:
    from readmany.select.walk import iter_selection

    return iter_selection(select_request(request))


def _ahead(request: GlobRequest) -> Any:
    """What the helper does to a file for a lagging main process: read it (with a budget,
    of a long text only what a cut can show, as the main process does), or for `--stats`
    measure it (it must not decode), unless a budget needs the files decoded and framed
    anyway."""
    reader = candidate_reader(request)
    hold = held_chars(request, reader.limits)
    if hold is not None:
        from readmany.read.classify import credentials_name

        return lambda candidate, shown: reader(
            candidate, shown, None if credentials_name(candidate.rel) else hold
        )
    if not request.stats or request.budgeted:
        return reader
    from readmany.read.measure import measure_for_stats

    return lambda candidate, shown: reader.measure(candidate, shown, measure_for_stats)
