"""`readmany glob`'s request, made from its command line with the project configuration
beneath it (`readmany.config`): the root checked, the ways of selecting (patterns,
`--stdin`, `--staged`, `--changed`) checked against each other, the options of a context
for a chat (a budget, `--stats`, `--tree`, `--format`, `-n`, `--order`, `--prefer`),
none of which `--compat` takes, the face's per-file limits, and `-o` never an input."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from readmany.choices import Format, Order, Secrets, Tokenizer
from readmany.emit.render import Presentation
from readmany.errors import UsageError
from readmany.faces import Face
from readmany.read.safe import refuse_root
from readmany.record import NamedTuple
from readmany.request.given import Given, choice, parse_size, presentation_of, secrets_of
from readmany.request.inputs import StdinPaths, current_directory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class GlobRequest(NamedTuple):
    """What one `readmany glob` reads and how it shows it (made from the command line by
    `readmany.request.glob`; by the MCP tools from their arguments)."""

    patterns: tuple[str, ...]  # positional patterns, then --include
    excludes: tuple[str, ...] = ()
    use_default_excludes: bool = True
    use_gitignore: bool = True
    ignore_files: tuple[str, ...] = ()  # extra ignore-file names; .readmanyignore is implied
    recursive: bool = True
    root: str = "."
    absolute: bool = False
    # From --stdin: exact paths, never globs; a list, or `StdinPaths` read as the walk goes.
    literal_paths: Iterable[str] = ()
    face: Face = Face.reference()
    output: str | None = None  # the -o target: never read as input
    staged: bool = False  # the files staged for the next commit, as staged (git's index)
    changed: str | None = None  # the files that differ from this revision (the work tree)
    with_diff: bool = False  # one more section: the diff itself
    secrets: Secrets = Secrets.OFF
    hook_id: str | None = None  # --hook-id: run as this pre-commit hook (with --staged)
    # -- context for a chat (the default face only) --
    format: Format = Format.TEXT
    line_numbers: bool = False  # -n
    tree: bool = False  # --tree: a directory tree of the files shown, first
    stats: bool = False  # --stats: what each file costs, instead of the files
    max_bytes: int | None = None  # the budget, as given (None: not given)
    max_lines: int | None = None
    max_tokens: int | None = None
    # --tokenizer: what counts max_tokens; "estimate" plans with a margin (the most
    # whose bound, tokens.real_at_most, is within), an exact one counts what it writes
    tokenizer: Tokenizer = Tokenizer.ESTIMATE
    order: Order = Order.SMALLEST  # which files a budget keeps; the reference's rule
    prefer: tuple[str, ...] = ()  # --prefer: globs a budget keeps first
    outline: bool = False  # --outline: a file a budget leaves out may be shown as its outline
    parts: bool = False  # --parts: the whole selection, in parts that each fit the budget
    part: int | None = None  # --part K: only the K-th of those (1-based)
    json: bool = False  # --json: its details say what each file takes, in tokens too
    presentation: Presentation = Presentation()  # where the content goes, from the CLI
    config: str | None = None  # the project configuration read (`readmany.config`)

    @property
    def weighs(self) -> bool:
        """Whether each text is weighed as it is read (`TextFile.weight`): for a budget of
        tokens, or the tokens `--json` details give."""
        return self.json or self.max_tokens is not None

    @property
    def by_git(self) -> bool:
        """Whether git names the files (`--staged`, `--changed`), not a walk."""
        return self.staged or self.changed is not None

    @property
    def budgeted(self) -> bool:
        """Whether a budget was given."""
        return (self.max_bytes, self.max_lines, self.max_tokens) != (None, None, None)


_HOOK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def glob_request(given: Given) -> GlobRequest:
    """The request of `readmany glob`, with the project configuration beneath it."""
    current_directory()  # a deleted working directory: one line, before anything else
    from readmany.config import project_config

    values, config = project_config(given.values)
    options = Given(values)
    root = options.text("root")
    if root == "":
        raise UsageError("--root '' names no directory: give one, such as --root . or --root src")
    root = root or "."
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
    face = _face(options)
    if face.glob_empty_values_refused:
        for option, name in (("exclude", "--exclude"), ("ignore_file", "--ignore-file")):
            if "" in options.texts(option):
                what = "pattern" if option == "exclude" else "file"
                raise UsageError(f"{name} '' names no {what}: give one, or leave {name} out")
    value = GlobRequest(
        **_chat(options),
        face=face,
        output=options.text("output"),
        staged=staged,
        changed=changed,
        with_diff=options.flag("with_diff"),
        hook_id=hook_id,
        secrets=secrets_of(options, redact=True),
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
        presentation=presentation_of(options),
        config=config,
    )
    if not value.patterns and not stdin and not by_git:
        raise UsageError(
            "no pattern given: name at least one PATTERN (or use --stdin, --staged, --changed)"
        )
    written = value.output
    if written is not None and value.parts:  # -o names the parts: ctx.txt writes ctx.1.txt
        from readmany.emit.target import check_parts_output, part_name

        check_parts_output(written)
        written = part_name(written, value.part or 1)
    if written:  # in both faces: -o is readmany's own, the reference has none
        _refuse_output_as_input(value._replace(output=written))
    return value


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
    ("outline", "--outline"),
    ("no_outline", "--no-outline"),
    ("parts", "--parts"),
    ("part", "--part"),
    ("tokenizer", "--tokenizer"),
)


def _chat(options: Given) -> dict[str, Any]:
    """The budget, --stats, --tree, --format and -n, checked, as `GlobRequest` fields."""
    if options.flag("compat"):
        for name, option in _CHAT_OPTIONS:
            given = options.text(name) is not None or options.number(name) or options.flag(name)
            if given:
                raise UsageError(
                    f"{option} is not part of --compat, which writes the reference's exact "
                    "text: drop one or the other"
                )
        return {}
    word = _word(options, "format_name", Format.TEXT)
    format_name = choice(Format, word, f"--format {word!r}: give text, markdown or xml")
    if options.flag("stats") and options.flag("tree"):
        raise UsageError("--stats draws a tree of its own: drop --tree")
    max_bytes, max_tokens = options.text("max_bytes"), options.text("max_tokens")
    word = _word(options, "order", Order.RANK)
    order = choice(Order, word, f"--order {word!r}: give {', '.join(Order.words())}")
    prefer = options.texts("prefer")
    if "" in prefer:  # an empty variable in `--prefer "$PATTERN"`: it matched nothing
        raise UsageError("--prefer '' names no pattern: give one, or leave --prefer out")
    if prefer:
        from readmany.select.patterns import compile_paths

        for pattern in prefer:
            try:
                compile_paths([pattern])
            except Exception:  # wcmatch's errors, or a brace too deep
                raise UsageError(f"--prefer {pattern!r}: not a glob readmany can read") from None
    budgeted = (max_bytes, max_tokens, options.number("max_lines")) != (None, None, None)
    return {
        "tokenizer": _tokenizer(options.text("tokenizer"), max_tokens is not None),
        "order": order,
        "prefer": prefer,
        "outline": _outline(options, order, budgeted),
        **_parts(options, budgeted),
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


def _word(options: Given, name: str, default: str) -> str:
    """The word given for a choice, or `default` when none was: an empty word is a word,
    refused as any other the choice does not hold (not taken for the default)."""
    word = options.text(name)
    return default if word is None else word


def _tokenizer(word: str | None, budgeted: bool) -> Tokenizer:
    """What counts a budget of tokens: the one asked for, else the best installed; an
    exact one not installed is a usage error naming the extra."""
    from readmany import tokenizer

    if word is None:
        return tokenizer.default() if budgeted else Tokenizer.ESTIMATE
    name = choice(Tokenizer, word, f"--tokenizer {word!r}: give {', '.join(Tokenizer.words())}")
    if not budgeted:
        raise UsageError("--tokenizer counts a budget of tokens: add --max-tokens N")
    if name is not Tokenizer.ESTIMATE and not tokenizer.available():
        raise UsageError(f"--tokenizer {name} needs bpe-openai: {tokenizer.EXTRA}")
    return name


def _outline(options: Given, order: Order, budgeted: bool) -> bool:
    """Whether a file a budget leaves out may be shown as its outline: asked for with
    `--outline`, refused with `--no-outline`, and by default wherever it can be (a budget
    that ranks: `--order rank` or `given`; not `--stats`)."""
    asked, refused = options.flag("outline"), options.flag("no_outline")
    if asked and refused:
        raise UsageError("--outline and --no-outline say opposite things: give one")
    if asked:
        if not budgeted:
            raise UsageError(
                "--outline shows what a budget leaves out: give --max-tokens, --max-bytes "
                "or --max-lines too"
            )
        if order is Order.SMALLEST:
            raise UsageError(
                "--outline needs a budget that ranks (--order rank or given); --order "
                "smallest is the reference's rule, whole files only"
            )
        if options.flag("stats"):
            raise UsageError("--stats measures whole files only: drop --outline")
        if options.flag("parts"):
            raise UsageError("--parts shows every file whole or cut across parts: drop --outline")
    return (
        not refused
        and budgeted
        and order is not Order.SMALLEST
        and not options.flag("stats")
        and not options.flag("parts")
    )


def _parts(options: Given, budgeted: bool) -> dict[str, Any]:
    """`--parts` and `--part K`, checked: parts need a budget, and a part needs parts."""
    parts, part = options.flag("parts"), options.number("part")
    if part is not None and not parts:
        raise UsageError(f"--part {part} picks one of the parts --parts writes: add --parts")
    if parts and not budgeted:
        raise UsageError(
            "--parts splits the selection by a budget: give --max-tokens, --max-bytes or "
            "--max-lines too"
        )
    if parts and options.flag("stats"):
        raise UsageError("--stats writes no parts: drop --parts or --stats")
    if parts and options.flag("tree"):
        raise UsageError("--parts heads each part with what every part holds: drop --tree")
    if parts and options.flag("copy") and part is None:
        raise UsageError("--copy takes one part at a time: add --part 1 (then 2, …)")
    return {"parts": parts, "part": part}


def _face(options: Given) -> Face:
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
