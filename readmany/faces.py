"""The two faces of every command: what differs between the default and `--compat`.

`--compat` is the reference tool's text byte for byte, its limits and its exit behaviour
(spec/many.md, glob.md, hashline.md, with the decided departures of glob.md §13). The
default is for people at a shell (spec/cli.md, "Two faces"): whole files unless asked,
named paths never dropped by ignore rules, notices in command-line terms. Both faces run
the same code; the differences are the values below, chosen here and nowhere else.
"""

from __future__ import annotations

from readmany.limits import (
    GLOB_MAX_FILE_BYTES,
    GLOB_MAX_LINE_UNITS,
    GLOB_MAX_LINES,
    GLOB_MAX_SVG_BYTES,
    MANY_MAX_FILES,
)
from readmany.record import NamedTuple


class Face(NamedTuple):
    """The limits and texts one run uses."""

    compat: bool
    # -- glob --
    glob_max_lines: int | None = None  # lines of a file shown before it is cut; None: all
    glob_max_line_units: int | None = None  # UTF-16 units of a line before it is cut
    glob_max_file_bytes: int = GLOB_MAX_FILE_BYTES  # a larger file is skipped
    glob_max_svg_bytes: int | None = None  # a larger SVG is a sentence; None: read as text
    glob_exact_text: bool = True  # text as it is (line breaks kept), not the reference's lines
    glob_sniff_typescript: bool = True  # a `.ts` file is text or binary by content, not by name
    # a file glob leaves out or cannot read is given the reference's reason (in `--json`
    # details and on stderr), not the kind of skip or the problem in a person's words
    glob_reference_reasons: bool = False
    # glob's content ends as the reference's: its end marker alone, or with no section its
    # "No files matching …" sentence; else the format's end (nothing, with nothing shown)
    glob_reference_ending: bool = False
    # glob: a run that shows nothing says why (no file read: exit 1; nothing staged or
    # changed: said on stderr), where the reference's sentence alone would
    glob_nothing_shown_said: bool = True
    glob_details_config: bool = True  # glob: `--json` details name the configuration applied
    # glob: an empty `--exclude` or `--ignore-file` is a mistake said, not a pattern that
    # matches nothing or a file that is never there
    glob_empty_values_refused: bool = True
    # -- the walk of glob (`select.walk.WalkRules`) --
    listed_order: bool = True  # `--stdin` paths in the order listed, not sorted in
    # a file named exactly is read whatever ignore files and default excludes say
    named_paths_bypass_ignore: bool = True
    report_left_out: bool = True  # every path left out is reported; else some silently dropped
    listed_paths_request_assets: bool = False  # a `--stdin` path asks for an asset by name
    walk_listed_directory_links: bool = False  # a listed link to a directory is walked into
    list_outside_directories: bool = False  # a pattern's directory outside the root is listed
    global_excludes: bool = True  # git's `core.excludesFile` is read in a git tree
    # -- many and hashline --
    many_max_files: int | None = None  # files one call takes; None: the budget decides
    many_file_cap: bool = False  # each file capped at the read tool's 2000 lines / 50 KB
    rewrite_paths: bool = False  # the read tool's `~`, `@` and Unicode-space rewriting
    # hashline: a name with CR or LF is the reference's error, not a quoted header
    header_line_breaks_refused: bool = False
    shell_notices: bool = True  # notices and errors name the command that continues or fixes
    many_binary_error: bool = True  # a binary file is an error block, never its bytes
    many_omitted_notice: bool = True  # files left out by the budget named after the last block
    # many: a budget of tokens is planned so that the bound of the real count of what is
    # written (`tokens.real_at_most`) is within it; else the estimate is held to the budget
    many_token_bound: bool = True
    # many: each block is the read tool's text with the read's own notices, cut by its head
    # (`frame.pages.reference_piece`); else the pages' notices in command-line terms
    many_read_notices: bool = False
    # many: error blocks are always shown, their room kept before the files read are packed
    many_errors_reserved: bool = True
    # many: a budget that shows none of the files read is an error (exit 1), said with the fix
    nothing_shown_fails: bool = True
    # a secret file (by its name or its link's target's; an `.npmrc` holding a token) is
    # never read, whoever names it
    refuse_secret_files: bool = True
    details_secrets: bool = True  # many: `--json` details name each secret found
    # many: a `--stdin` list that names no file is nothing read (exit 1), not a usage error
    empty_list_read: bool = True
    refuse_limit_zero: bool = True  # many: `FILE:N:0`, which shows no line, is a usage error
    budget_sizes: bool = True  # `--max-bytes 100k`, `--max-tokens`; else plain numbers only
    guard_sections: bool = True  # a text section whose body reads as a header is guarded

    @classmethod
    def reference(cls) -> Face:
        """`--compat`: the reference tools' limits and texts."""
        return cls(
            compat=True,
            glob_max_lines=GLOB_MAX_LINES,
            glob_max_line_units=GLOB_MAX_LINE_UNITS,
            glob_max_svg_bytes=GLOB_MAX_SVG_BYTES,
            glob_exact_text=False,
            glob_sniff_typescript=False,
            glob_reference_reasons=True,
            glob_reference_ending=True,
            glob_nothing_shown_said=False,
            glob_details_config=False,
            glob_empty_values_refused=False,
            listed_order=False,
            named_paths_bypass_ignore=False,
            report_left_out=False,
            listed_paths_request_assets=True,
            walk_listed_directory_links=True,
            list_outside_directories=True,
            global_excludes=False,
            many_max_files=MANY_MAX_FILES,
            many_file_cap=True,
            rewrite_paths=True,
            header_line_breaks_refused=True,
            shell_notices=False,
            many_binary_error=False,
            many_omitted_notice=False,
            many_token_bound=False,
            many_read_notices=True,
            many_errors_reserved=False,
            nothing_shown_fails=False,
            refuse_secret_files=False,
            details_secrets=False,
            empty_list_read=False,
            refuse_limit_zero=False,
            budget_sizes=False,
            guard_sections=False,
        )

    @classmethod
    def people(
        cls, *, max_file_lines: int | None = None, max_file_bytes: int | None = None
    ) -> Face:
        """The default: whole files, unless the user set a per-file limit."""
        return cls(
            compat=False,
            glob_max_lines=max_file_lines,
            glob_max_file_bytes=GLOB_MAX_FILE_BYTES if max_file_bytes is None else max_file_bytes,
        )
