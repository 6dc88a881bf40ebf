"""The command line as a Typer app: every command, option, help text and example.

This is the definition the help, the error messages, the completions and the man page
come from. Each command function hands its parsed parameters to `readmany.invoke`; a
well-formed command line takes the fast path (`readmany.fastargs`, whose table is generated
from this app) to the same place without importing Typer.
"""

from __future__ import annotations

import sys
from typing import Annotated, NoReturn

import typer

from readmany import __version__
from readmany.emit.messages import error_line
from readmany.errors import EXIT_OK, EXIT_USAGE
from readmany.helptext import HelpCommand, HelpGroup
from readmany.invoke import invoke
from readmany.limits import EDIT_TEXT_MAX_BYTES, READ_MAX_BYTES, READ_MAX_LINES

# The exit statuses: (code, meaning, more). `--help` shows code and meaning; the man page
# and docs/exit-status.md's table show meaning + more (tests/test_docs.py keeps them in step).
EXIT_CODES: tuple[tuple[str, str, str], ...] = (
    (
        "0",
        "every requested file was read",
        ", or left out by a rule the details name (ignored, excluded, binary file, …), "
        "or cut or left out by the budget",
    ),
    (
        "1",
        "output was written but a file could not be read, a pattern matched nothing or a "
        "--stdin path does not exist, nothing at all was read, or (--hook-id) a secret "
        "file is staged",
        "; many writes an error block for a file it cannot read, and the rest; glob writes "
        "what it read (with nothing read: nothing, or with --json one JSON object whose "
        "content is empty, or with a budget only its notice); hashline writes nothing",
    ),
    (
        "2",
        "usage error (bad arguments, a malformed pattern, -o naming an input or a "
        "directory, --compat with an option of the default face, more than 26 files to "
        "many --compat, --copy with no clipboard, --staged or --changed outside a git "
        "work tree), nothing on stdout",
        "",
    ),
    (
        "3",
        "edit only: stale (the file tag, a line anchor, or the file changed during the "
        "edit), nothing written",
        ": re-read the file and retry",
    ),
    (
        "70",
        "internal error: a bug in readmany",
        " (one line on stderr; READMANY_DEBUG=1 shows the traceback)",
    ),
)
EXIT_CODES_HELP = (
    "Exit status: " + "; ".join(f"{code} {meaning}" for code, meaning, _ in EXIT_CODES) + "."
)


def _count(text: str) -> int:
    """An integer option's value: the digits 0-9 alone, at least 1 (`readmany.numbers`)."""
    from readmany.numbers import whole_number

    number = whole_number(text.removeprefix("-"))
    if number is None:
        raise ValueError("give a whole number")
    if number < 1 or text.startswith("-"):
        raise ValueError("give a number of at least 1")
    return number


app = typer.Typer(
    name="readmany",
    help=(
        "Read many files at once and write them as one framed text: heredoc batches "
        "under a budget (many), glob concatenation honouring .gitignore (glob), or "
        "snapshot-bound hashline anchors (hashline)."
    ),
    epilog=EXIT_CODES_HELP,
    cls=HelpGroup,
    add_completion=False,
    rich_markup_mode=None,  # plain help, the same on a terminal, in a pipe and in `less`
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

JsonOpt = Annotated[
    bool, typer.Option("--json", help="Write one JSON object: content, details, attachments.")
]
OutputOpt = Annotated[
    str | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="Write to FILE (atomically) instead of stdout; git-dir:NAME is NAME in the "
        "repository's git directory (git rev-parse --git-dir).",
    ),
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="No notes or summary on stderr; errors still.")
]
StdinOpt = Annotated[bool, typer.Option("--stdin", help="Read more paths from stdin, one a line.")]
NullOpt = Annotated[
    bool,
    typer.Option(
        "-0", "--null", help="With --stdin: NUL-separated (git ls-files -z, find -print0)."
    ),
]
CompatOpt = Annotated[
    bool,
    typer.Option(
        "--compat",
        help="The reference tool's exact text, limits and exit behaviour (for agents and "
        "scripts that expect them).",
    ),
]
SecretsOpt = Annotated[
    str | None,
    typer.Option(
        "--secrets",
        metavar="MODE",
        help="What to do with text that looks like a secret (cloud keys, tokens, private "
        "keys, passwords in URLs): off, warn (name file and line on stderr), skip (leave "
        "the file out) or redact (mask it). Default: warn with --copy, else off.",
    ),
]
HashlineSecretsOpt = Annotated[
    str | None,
    typer.Option(
        "--secrets",
        metavar="MODE",
        help="What to do with text that looks like a secret (cloud keys, tokens, private "
        "keys, passwords in URLs): off, warn (name file and line on stderr) or skip (show "
        "nothing, exit 1); not redact, which would change the bytes the anchors stand "
        "for. Default: warn with --copy, else off.",
    ),
]
ManyCompatOpt = Annotated[
    bool,
    typer.Option(
        "--compat",
        help="The reference read_many tool's exact text: at most 26 files, each read cut at "
        f"{READ_MAX_LINES} lines / 50 KB, its notices (Use offset=N), its error texts, "
        "@ ~ and Unicode spaces rewritten in paths, budgets in plain numbers.",
    ),
]
HashlineCompatOpt = Annotated[
    bool,
    typer.Option(
        "--compat",
        help="The reference hashline read's exact text: its notices (Use offset=N) and "
        "error texts, @ ~ and Unicode spaces rewritten in the path.",
    ),
]
CopyOpt = Annotated[
    bool,
    typer.Option(
        "--copy",
        help="Put the output on the clipboard instead of stdout: with wl-copy, xclip, xsel "
        "or pbcopy, else tmux's buffer, else the terminal's OSC 52 escape.",
    ),
]


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"readmany {__version__}\n")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_version,
            is_eager=True,
            help="Show the version and exit.",
        ),
    ] = False,
) -> None:
    """Read many files at once: batch, glob, hashline."""


@app.command(
    "many",
    cls=HelpCommand,
    epilog=(
        "Examples:\n\n"
        "  readmany many src/a.py src/b.py:40:120\n\n"
        "  readmany many big.py:1647 --max-tokens 100k\n\n"
        "  readmany many --request request.json --json\n\n" + EXIT_CODES_HELP
    ),
)
def many_command(
    files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="FILE[:OFFSET[:LIMIT]]...",
            help="Files to read; OFFSET is the 1-based first line, LIMIT a line count.",
            show_default=False,
        ),
    ] = None,
    request: Annotated[
        str | None,
        typer.Option(
            "--request",
            metavar="FILE|-",
            help='The tool\'s argument object as JSON: {"files": [{"path", "offset", '
            '"limit"}], "stopOnError": …}.',
        ),
    ] = None,
    stop_on_error: Annotated[
        bool, typer.Option("--stop-on-error", help="Stop after the first file that fails.")
    ] = False,
    max_bytes: Annotated[
        str | None,
        typer.Option(
            "--max-bytes",
            metavar="SIZE",
            help="Byte budget of the whole output: 51200, 100k, 2M. Without any budget "
            f"option the budget is {READ_MAX_BYTES} bytes and {READ_MAX_LINES} lines; "
            "a budget you set replaces it.",
            show_default=False,
        ),
    ] = None,
    max_lines: Annotated[
        int | None,
        typer.Option(
            "--max-lines",
            min=1,
            parser=_count,
            metavar="N",
            help="Line budget of the whole output.",
        ),
    ] = None,
    max_tokens: Annotated[
        str | None,
        typer.Option(
            "--max-tokens",
            metavar="N",
            help="Token budget of the whole output (100k = 100,000), in tokens as "
            "readmany estimates them for o200k_base (see README).",
        ),
    ] = None,
    stdin: StdinOpt = False,
    null: NullOpt = False,
    secrets: SecretsOpt = None,
    compat: ManyCompatOpt = False,
    json_mode: JsonOpt = False,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
    copy: CopyOpt = False,
) -> None:
    """Batch read: each file in a heredoc block, packed under a combined budget."""
    _invoke("many", locals())


@app.command(
    "glob",
    cls=HelpCommand,
    epilog=(
        "Examples:\n\n"
        "  readmany glob 'src/**/*.py' --exclude '**/test_*'\n\n"
        "  git ls-files -z | readmany glob --stdin -0\n\n"
        "  readmany glob . --stats --max-tokens 100k\n\n"
        "  readmany glob 'src/**' --max-tokens 100k --format xml --tree --copy\n\n"
        + EXIT_CODES_HELP
    ),
)
def glob_command(
    patterns: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PATTERN...",
            help="Globs, file names or directories, relative to the root.",
            show_default=False,
        ),
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option("--include", metavar="PATTERN", help="Another pattern (repeatable)."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", metavar="PATTERN", help="Leave out matches (repeatable)."),
    ] = None,
    no_default_excludes: Annotated[
        bool,
        typer.Option(
            "--no-default-excludes", help="Drop the default excludes (node_modules, .git, …)."
        ),
    ] = False,
    no_gitignore: Annotated[
        bool,
        typer.Option(
            "--no-gitignore",
            help="Do not honour .gitignore files, .git/info/exclude or git's global "
            "excludes file (core.excludesFile).",
        ),
    ] = False,
    ignore_file: Annotated[
        list[str] | None,
        typer.Option(
            "--ignore-file",
            metavar="NAME",
            help="Another ignore file at the root, gitignore syntax (repeatable); "
            ".readmanyignore is always honoured.",
        ),
    ] = None,
    no_recursive: Annotated[
        bool,
        typer.Option("--no-recursive", help="A directory means only the files directly in it."),
    ] = False,
    root: Annotated[
        str, typer.Option("--root", metavar="DIR", help="The root: files outside are refused.")
    ] = ".",
    absolute: Annotated[
        bool, typer.Option("--absolute", help="Show absolute paths in separators.")
    ] = False,
    staged: Annotated[
        bool,
        typer.Option(
            "--staged",
            help="Read the files staged for the next commit, as staged (git's index); "
            "patterns filter them.",
        ),
    ] = False,
    changed: Annotated[
        str | None,
        typer.Option(
            "--changed",
            metavar="REV",
            help="Read the files that differ from REV in the work tree, and untracked "
            "ones (REV... starts from the merge base); patterns filter them.",
        ),
    ] = None,
    with_diff: Annotated[
        bool,
        typer.Option(
            "--with-diff", help="With --staged or --changed: add the diff as one more section."
        ),
    ] = False,
    hook_id: Annotated[
        str | None,
        typer.Option(
            "--hook-id",
            metavar="ID",
            help="With --staged: run as the pre-commit hook ID; a staged secret file "
            "(.env, id_rsa, …) fails it (exit 1), with the command that commits anyway "
            "(SKIP=ID git commit).",
        ),
    ] = None,
    secrets: SecretsOpt = None,
    max_file_lines: Annotated[
        int | None,
        typer.Option(
            "--max-file-lines",
            metavar="N",
            min=1,
            parser=_count,
            help="Show at most N lines of each file; a cut file ends with the command "
            "that shows the rest (default: whole files).",
        ),
    ] = None,
    max_file_size: Annotated[
        str | None,
        typer.Option(
            "--max-file-size",
            metavar="SIZE",
            help="Skip files larger than SIZE (k, M, G suffixes; default 20M).",
        ),
    ] = None,
    max_bytes: Annotated[
        str | None,
        typer.Option(
            "--max-bytes",
            metavar="SIZE",
            help="Budget of the whole output in bytes (100k, 2M): files taken in --order "
            "(shown in output order), each whole where it fits, else its outline "
            "(--outline); the first that fits neither cut; the files left out named at "
            "the end, on stderr and in --json details.packing.",
        ),
    ] = None,
    max_lines: Annotated[
        int | None,
        typer.Option(
            "--max-lines",
            metavar="N",
            min=1,
            parser=_count,
            help="Budget of the whole output in lines.",
        ),
    ] = None,
    max_tokens: Annotated[
        str | None,
        typer.Option(
            "--max-tokens",
            metavar="N",
            help="Budget of the whole output in tokens (100k = 100,000), never over: "
            "counted by --tokenizer.",
        ),
    ] = None,
    tokenizer: Annotated[
        str | None,
        typer.Option(
            "--tokenizer",
            metavar="NAME",
            help="What counts --max-tokens: o200k (GPT-4o's) or cl100k (GPT-4's), the "
            "output counted exactly and trimmed until it fits (the tokens extra: pip "
            "install 'readmany[tokens]'), or estimate (no extra: what is written counted "
            "by o200k's pieces and merges, exact for ASCII text; other text within a "
            "margin). Default: o200k when the extra is installed, else estimate.",
        ),
    ] = None,
    order: Annotated[
        str | None,
        typer.Option(
            "--order",
            metavar="RULE",
            help="Which files a budget keeps when not all fit: rank (the default: "
            "--prefer matches, named paths, earlier patterns, then entry points and "
            "source above tests and docs (docs as source where they outweigh it), "
            "licenses, lock files, CI, dot-file configuration, images and fixtures "
            "last, the files most tied by imports (importing "
            "or imported) first; each file in turn whole, else its outline, the "
            "first that fits neither cut with up to a quarter of the budget, bulk files "
            "outlined or cut last), smallest (the most files whole, the reference's rule, "
            "--compat's) or given (output order). Output order is kept.",
        ),
    ] = None,
    prefer: Annotated[
        list[str] | None,
        typer.Option(
            "--prefer",
            metavar="PATTERN",
            help="With a budget: files this glob matches are kept first (repeatable; an "
            "earlier --prefer first).",
        ),
    ] = None,
    outline: Annotated[
        bool,
        typer.Option(
            "--outline",
            help="With a budget: a file that does not fit whole is shown as its outline "
            "(imports, class and function signatures with their first docstring line, "
            "constants, a test file's describe/it blocks, each at its line number), where "
            "it fits when its turn comes. On by "
            "default with --order rank or given; tree-sitter with readmany[outline], a "
            "line rule without.",
        ),
    ] = False,
    no_outline: Annotated[
        bool,
        typer.Option(
            "--no-outline", help="With a budget: no outlines, whole files and names only."
        ),
    ] = False,
    parts: Annotated[
        bool,
        typer.Option(
            "--parts",
            help="With a budget: write the whole selection as numbered parts that each fit "
            "it, headed 'part 2 of 5' with what the other parts hold; -o ctx.txt writes "
            "ctx.1.txt, ctx.2.txt, …",
        ),
    ] = False,
    part: Annotated[
        int | None,
        typer.Option(
            "--part",
            metavar="K",
            min=1,
            parser=_count,
            help="With --parts: write only part K (one paste at a time with --copy).",
        ),
    ] = None,
    stats: Annotated[
        bool,
        typer.Option(
            "--stats",
            help="Instead of the files, a tree of what each costs: bytes, lines and "
            "estimated tokens per file and directory, the most tokens first, the total on top; "
            "with a budget, what it leaves out or cuts is marked.",
        ),
    ] = False,
    tree: Annotated[
        bool,
        typer.Option("--tree", help="A directory tree of the files shown, before the first."),
    ] = False,
    format_name: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="text (--- path --- sections, the default), markdown (a heading and a "
            "fenced block a file) or xml (a document element a file, in a documents "
            "element: the form Anthropic's prompting guide shows).",
        ),
    ] = None,
    line_numbers: Annotated[
        bool, typer.Option("--line-numbers", "-n", help="Number the lines of every file.")
    ] = False,
    stdin: StdinOpt = False,
    null: NullOpt = False,
    no_config: Annotated[
        bool,
        typer.Option(
            "--no-config",
            help="Read no project configuration (.readmany.toml, or [tool.readmany] in "
            "pyproject.toml, the nearest at or above the working directory).",
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Say on stderr which configuration file was read and which of its "
            "settings applied.",
        ),
    ] = False,
    compat: CompatOpt = False,
    json_mode: JsonOpt = False,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
    copy: CopyOpt = False,
) -> None:
    """Glob read: matching files concatenated with --- path --- separators.

    A project configuration (.readmany.toml, or [tool.readmany] in pyproject.toml) sets
    defaults the command line overrides: patterns, exclude, a budget, format, tree and a
    stricter secrets mode; it can only narrow what is read (README: Project configuration).
    --compat reads none.
    """
    _invoke("glob", locals())


@app.command(
    "hashline",
    cls=HelpCommand,
    epilog=(
        "Examples:\n\n"
        "  readmany hashline src/a.py\n\n"
        "  readmany hashline src/a.py --offset 2000 --limit 100 --json\n\n" + EXIT_CODES_HELP
    ),
)
def hashline_command(
    file: Annotated[str, typer.Argument(metavar="FILE", help="The file to read.")],
    offset: Annotated[
        int | None, typer.Option("--offset", min=1, parser=_count, help="1-based first line.")
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, parser=_count, help="Lines to show.")
    ] = None,
    secrets: HashlineSecretsOpt = None,
    compat: HashlineCompatOpt = False,
    json_mode: JsonOpt = False,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
    copy: CopyOpt = False,
) -> None:
    """Hashline read: @file path#TAG, then N#abc|line for every line."""
    _invoke("hashline", locals())


def _invoke(command: str, values: dict[str, object]) -> NoReturn:
    """Run the command. A command function calls this as its first statement with its
    `locals()`: exactly its parameters, by name, as Typer parsed them (the fast path
    hands `invoke` the same mapping)."""
    raise typer.Exit(invoke(command, values))


EDIT_EXIT_CODES_HELP = (
    "Exit status: 0 edited, or nothing to change; 1 a file could not be read or written "
    "(after a partial write of several files, stderr says which were written); 2 usage "
    "error or invalid request (tag form, anchor, range, overlap, not UTF-8), nothing "
    "written; 3 stale: the file changed since it was read (tag, anchor, or during the "
    "edit), nothing written: re-read it and retry; 70 internal error: a bug in readmany."
)


@app.command(
    "edit",
    cls=HelpCommand,
    epilog=(
        "Examples:\n\n"
        "  readmany edit src/a.py#5CeleQP4 --replace 2#qak --content 'export { value };'\n\n"
        "  readmany edit src/a.py#5CeleQP4 --insert-after 1#gzo --content-file new.txt --show\n\n"
        "  readmany edit --request - < edit.json\n\n" + EDIT_EXIT_CODES_HELP
    ),
)
def edit_command(
    target: Annotated[
        str | None,
        typer.Argument(
            metavar="PATH#TAG",
            help="The file and its tag, from the @file line of a hashline read; "
            "not with --request.",
            show_default=False,
        ),
    ] = None,
    request: Annotated[
        str | None,
        typer.Option(
            "--request",
            metavar="FILE|-",
            help='The edit tool\'s arguments as JSON: {"path", "hash", "edits": [{"from", '
            '"to", "content"}]}, or a list of them for several files.',
        ),
    ] = None,
    replace: Annotated[
        list[str] | None,
        typer.Option("--replace", metavar="A[..B]", help="Replace lines A to B with the text."),
    ] = None,
    delete: Annotated[
        list[str] | None, typer.Option("--delete", metavar="A[..B]", help="Delete lines A to B.")
    ] = None,
    insert_after: Annotated[
        list[str] | None,
        typer.Option("--insert-after", metavar="A", help="Insert the text after line A."),
    ] = None,
    insert_before: Annotated[
        list[str] | None,
        typer.Option("--insert-before", metavar="A", help="Insert the text before line A."),
    ] = None,
    append: Annotated[
        bool,
        typer.Option(
            "--append", help="Add the text at the end; a final newline stays, or stays absent."
        ),
    ] = False,
    content: Annotated[
        str | None, typer.Option("--content", metavar="TEXT", help="The text of the edit.")
    ] = None,
    content_file: Annotated[
        str | None,
        typer.Option(
            "--content-file",
            metavar="FILE|-",
            help=f"Read the text from FILE (up to {EDIT_TEXT_MAX_BYTES >> 20} MiB; "
            "never a secret file).",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the edit as a unified diff; write nothing.")
    ] = False,
    show: Annotated[
        bool,
        typer.Option(
            "--show",
            help="After the result, the new @file line and the changed rows with two "
            "lines around them.",
        ),
    ] = False,
    json_mode: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Write one JSON object: content, details (path, tagBefore, tagAfter, "
            "changed, written, ranges; for a list request, files and notWritten).",
        ),
    ] = False,
    quiet: QuietOpt = False,
    root: Annotated[
        str,
        typer.Option(
            "--root",
            metavar="DIR",
            help="Every file edited must be inside DIR (a link: its target); none in a git "
            "directory, under node_modules, or a secret file by name.",
        ),
    ] = ".",
) -> None:
    """Anchored edit: apply edits checked against a hashline read, or refuse stale ones.

    A and B are anchors as a hashline read prints them (5#abc). Ranges are inclusive and all
    refer to the snapshot the tag names. --content is the text of every edit that takes
    one; one trailing newline of it is dropped.
    """
    _invoke("edit", locals())


MCP_EXIT_CODES_HELP = (
    "Exit status: 0 the client closed the connection; 2 usage error (no --root, a root "
    "that is /, your home directory or a git directory, the mcp extra not installed); "
    "70 internal error: a bug in readmany."
)


SHIPPED_EXIT_CODES_HELP = (
    "Exit status: 0 printed; 1 the file is missing from this install (reinstall readmany); "
    "2 usage error (a shell other than bash, zsh or fish); 70 internal error: a bug in "
    "readmany."
)


@app.command(
    "mcp",
    cls=HelpCommand,
    epilog=(
        "Examples:\n\n"
        "  readmany mcp --root .\n\n"
        "  readmany mcp --root ~/src/app --root ~/src/lib --allow-edit\n\n"
        "  uvx --from 'readmany[mcp]' readmany mcp --root .\n\n" + MCP_EXIT_CODES_HELP
    ),
)
def mcp_command(
    root: Annotated[
        list[str] | None,
        typer.Option(
            "--root",
            metavar="DIR",
            help="A directory the tools may read (repeatable; the first is where relative "
            "paths start). Nothing outside the roots is read, through no link; / and your "
            "home directory are refused.",
        ),
    ] = None,
    allow_edit: Annotated[
        bool,
        typer.Option(
            "--allow-edit", help="Offer the edit tool, which writes files inside the roots."
        ),
    ] = False,
    max_tokens: Annotated[
        str | None,
        typer.Option(
            "--max-tokens",
            metavar="N",
            help="The most tokens a tool's maxTokens may ask for (100k = 100,000); without "
            f"it, each result stays within {READ_MAX_BYTES} bytes and {READ_MAX_LINES} lines.",
        ),
    ] = None,
    secrets: Annotated[
        str | None,
        typer.Option(
            "--secrets",
            metavar="MODE",
            help="What to do with text that looks like a secret: redact (mask it, the "
            "default; read, whose anchors need the exact bytes, leaves such a file out), "
            "skip (leave the file out), warn (log it on stderr) or off.",
        ),
    ] = None,
) -> None:
    """Serve the read tools to an agent over the Model Context Protocol (stdio).

    The tools: read_many, read_many_files, read (hashline), context_stats and, with
    --allow-edit, edit; on stdin/stdout.

    Needs the mcp extra: pip install 'readmany[mcp]'. Each tool's text is what --compat
    writes for the same request. Logs go to stderr.
    """
    _invoke("mcp", locals())


@app.command(
    "completions",
    cls=HelpCommand,
    epilog=(
        "Examples:\n\n"
        "  readmany completions bash > ~/.local/share/bash-completion/completions/readmany\n\n"
        "  readmany completions zsh > ~/.zfunc/_readmany\n\n"
        "  readmany completions fish > ~/.config/fish/completions/readmany.fish\n\n"
        + SHIPPED_EXIT_CODES_HELP
    ),
)
def completions_command(
    shell: Annotated[str, typer.Argument(metavar="SHELL", help="bash, zsh or fish.")],
) -> None:
    """Print the completion script of a shell, as installed with readmany.

    Save it where the shell looks for completions (README: Shell completions and man page).
    """
    _invoke("completions", locals())


@app.command(
    "man",
    cls=HelpCommand,
    epilog=(
        "Examples:\n\n"
        "  readmany man > ~/.local/share/man/man1/readmany.1\n\n"
        "  readmany man | man -l -\n\n" + SHIPPED_EXIT_CODES_HELP
    ),
)
def man_command() -> None:
    """Print the man page (roff), as installed with readmany.

    Save it as readmany.1 in a man1 directory on the manual's path, or read it with man -l -.
    """
    _invoke("man", locals())


def short_usage() -> str:
    """What `readmany` alone says on stderr: how it is called and where the help is."""
    names = "|".join(info.name or "" for info in app.registered_commands)
    return (
        f"Usage: readmany {names} [OPTIONS] [ARGS]...\n"
        "Try 'readmany --help' or 'readmany COMMAND --help' for help.\n"
    )


def run(args: list[str]) -> int:
    """Run the command line; return the exit code. Never lets a traceback out for users."""
    if not args:
        sys.stderr.write(short_usage())
        return EXIT_USAGE
    command = typer.main.get_command(app)
    try:
        code = command.main(args, prog_name="readmany", standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        sys.stderr.write("\n")
        return 130
    except Exception as exc:
        click_code = getattr(exc, "exit_code", None)
        if hasattr(exc, "format_message") and isinstance(click_code, int):
            error_line(_plain_words(exc.format_message()))
            return EXIT_USAGE if click_code == 2 else click_code
        raise
    return code if isinstance(code, int) else EXIT_OK


# The parser's words for a bad number (`_count`'s), as readmany says the same elsewhere
# (`--max-tokens '0': give a number of at least 1`).
_PARSER_WORDS = ((r"Invalid value for '([^']+)': Value error, (.*)", r"\1: \2"),)


def _plain_words(message: str) -> str:
    import re

    for pattern, words in _PARSER_WORDS:
        message = re.sub(pattern, words, message)
    return message


__all__ = ["app", "run"]
