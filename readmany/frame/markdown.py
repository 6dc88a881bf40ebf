"""The Markdown framing: a heading with the path, then the file in a fenced code block.

    ## src/app.py

    ```python
    print("hello")
    ```

The fence is three backticks, or one more than the longest run of backticks anywhere in
the file, so no line of the file can close it (CommonMark closes a fence only with at
least as many backticks) and the first line that is the fence alone is its end. The info
string is the language of the file's extension or name (`LANGUAGES`), empty if unknown.

What the fence holds is the file exactly: its lines, each ended by `\\n`. A file whose
last line has no newline gets one before the closing fence and, right after it, the
line `\\ No newline at end of file` (as `diff` marks it); an empty file is a fence with
nothing inside. So every file, final newline or not, empty or not, parses back exactly.

The heading shows the path as every header does (`paths.header_path`: a JSON string when
it holds a control character or starts with `"`), and also quoted when Markdown would
change it: leading or trailing whitespace, or a trailing `#`. A note (say, that the file
was cut) may stand on its own line between heading and fence. Blocks are separated by a
blank line; an optional directory tree comes first, under `# Directory tree`, and an
optional closing note (the files a budget left out) last: one line that starts with `[`.
A part of `glob --parts` starts with `# Part 2 of 5` and the line that says what each
part holds.

An outline (a file a budget shows as what it defines, not as its text) is headed with
the path and `OUTLINE_MARK`, `## src/big.py (outline)`, and always has a note; a path
that itself ends with the mark is quoted. `parse_markdown` gives the files' texts only;
`parse_markdown_outlines` gives the outlines.
"""

from __future__ import annotations

from collections.abc import Iterator

from readmany.frame.numbering import number_lines, numbered_pieces, strip_line_numbers
from readmany.frame.paths import header_path, quoted
from readmany.frame.separator import OUTLINE_MARK
from readmany.record import NamedTuple

HEADING = "## "
TREE_HEADING = "# Directory tree"
PART_HEADING = "# Part "
NO_FINAL_NEWLINE = "\\ No newline at end of file"
BLOCK_SEPARATOR = "\n\n"
CLOSING_NOTE = "["  # how the closing note starts
MIN_FENCE = 3

# Extension (lower case, without the dot) or whole file name -> info string.
LANGUAGES = {
    "py": "python", "pyi": "python", "pyw": "python",
    "js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "jsx",
    "ts": "typescript", "mts": "typescript", "cts": "typescript", "tsx": "tsx",
    "json": "json", "jsonc": "jsonc", "json5": "json5", "ipynb": "json",
    "md": "markdown", "markdown": "markdown", "rst": "rst", "txt": "text",
    "html": "html", "htm": "html", "xml": "xml", "svg": "xml", "xsl": "xml",
    "css": "css", "scss": "scss", "sass": "sass", "less": "less",
    "vue": "vue", "svelte": "svelte", "astro": "astro",
    "c": "c", "h": "c", "cc": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp", "hh": "cpp",
    "hxx": "cpp", "m": "objectivec", "mm": "objectivec", "cs": "csharp", "fs": "fsharp",
    "java": "java", "kt": "kotlin", "kts": "kotlin", "scala": "scala", "groovy": "groovy",
    "gradle": "groovy", "go": "go", "rs": "rust", "swift": "swift", "dart": "dart",
    "rb": "ruby", "php": "php", "pl": "perl", "pm": "perl", "lua": "lua", "r": "r",
    "jl": "julia", "ex": "elixir", "exs": "elixir", "erl": "erlang", "hs": "haskell",
    "ml": "ocaml", "mli": "ocaml", "clj": "clojure", "elm": "elm", "zig": "zig",
    "nim": "nim", "v": "v", "sol": "solidity",
    "sh": "bash", "bash": "bash", "zsh": "zsh", "fish": "fish", "ps1": "powershell",
    "bat": "batch", "cmd": "batch",
    "sql": "sql", "graphql": "graphql", "gql": "graphql", "proto": "protobuf",
    "yaml": "yaml", "yml": "yaml", "toml": "toml", "ini": "ini", "cfg": "ini",
    "conf": "ini", "env": "dotenv", "properties": "properties",
    "tf": "hcl", "hcl": "hcl", "nix": "nix", "cmake": "cmake",
    "tex": "latex", "bib": "bibtex", "csv": "csv", "tsv": "tsv",
    "diff": "diff", "patch": "diff", "dockerfile": "dockerfile", "mk": "makefile",
    "Makefile": "makefile", "GNUmakefile": "makefile", "makefile": "makefile",
    "Dockerfile": "dockerfile", "Containerfile": "dockerfile", "CMakeLists.txt": "cmake",
    "Gemfile": "ruby", "Rakefile": "ruby", "Justfile": "just", "justfile": "just",
}  # fmt: skip


def language_of(path: str) -> str:
    """The info string for `path`: by file name, then by extension; empty if unknown."""
    name = path.rpartition("/")[2]
    if name in LANGUAGES:
        return LANGUAGES[name]
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem:
        return ""
    return LANGUAGES.get(extension.lower(), "")


def fence_for(text: str) -> str:
    """Backticks one more than the longest run in `text`, at least three."""
    if "`" * MIN_FENCE not in text:
        return "`" * MIN_FENCE
    import re

    longest = max(len(run) for run in re.findall("`+", text))
    return "`" * (longest + 1)


def heading_path(path: str, *, quote: bool = False) -> str:
    """The path as the heading shows it (quoted where a heading would change it)."""
    shown = header_path(path)
    if quote and shown == path:
        return quoted(path)
    if shown == path and (path != path.strip() or path.endswith("#")):
        import json

        return json.dumps(path, ensure_ascii=False)
    return shown


def _fenced(body: str, info: str) -> str:
    fence = fence_for(body)
    if not body:
        return f"{fence}{info}\n{fence}"
    if body.endswith("\n"):
        return f"{fence}{info}\n{body}{fence}"
    return f"{fence}{info}\n{body}\n{fence}\n{NO_FINAL_NEWLINE}"


def frame_markdown(
    path: str,
    body: str,
    *,
    line_numbers: bool = False,
    note: str = "",
    quote: bool = False,
    outline: bool = False,
) -> str:
    """One file's block (no trailing newline; join blocks with `BLOCK_SEPARATOR`).

    `note` is one line shown between heading and fence; it may not start with a backtick.
    `quote`: the path as a JSON string whatever it holds. `outline`: `body` is the file's
    outline (headed with `OUTLINE_MARK`, fenced without a language).
    """
    if "\n" in note or note.startswith("`"):
        raise ValueError("a note is one line that does not start with a backtick")
    if line_numbers:
        body = number_lines(body)
    mark = OUTLINE_MARK if outline else ""
    head = f"{HEADING}{heading_path(path, quote=quote)}{mark}\n\n"
    if note:
        head += note + "\n\n"
    return head + _fenced(body, "" if outline else language_of(path))


def markdown_pieces(
    path: str, body: str, *, line_numbers: bool = False, note: str = "", quote: bool = False
) -> Iterator[str]:
    """`frame_markdown(...)` as pieces to write one after the other: the text is one of
    them, not copied into the block; numbered a piece at a time. (Numbers go after a line
    break, where no run of backticks is: the fence is the text's own.)"""
    if "\n" in note or note.startswith("`"):
        raise ValueError("a note is one line that does not start with a backtick")
    head = f"{HEADING}{heading_path(path, quote=quote)}\n\n"
    if note:
        head += note + "\n\n"
    info = language_of(path)
    if not body:
        yield head + _fenced(body, info)
        return
    fence = fence_for(body)
    yield head
    yield f"{fence}{info}\n"
    if line_numbers:
        yield from numbered_pieces(body)
    else:
        yield body
    yield fence if body.endswith("\n") else f"\n{fence}\n{NO_FINAL_NEWLINE}"


def markdown_part(number: int, count: int, head: str) -> str:
    """The head of part `number` of `count` (`glob --parts`): a heading, and `head`, the
    line that says what each part holds."""
    return f"{PART_HEADING}{number} of {count}\n\n{head}"


def markdown_tree(tree: str) -> str:
    """The directory tree's block, to put before the first file's."""
    return f"{TREE_HEADING}\n\n{_fenced(tree, '')}"


def render_markdown(
    files: list[tuple[str, str]], *, tree: str | None = None, line_numbers: bool = False
) -> str:
    """A whole Markdown output: the tree if given, then a block per (path, body)."""
    blocks = [markdown_tree(tree)] if tree is not None else []
    blocks += [frame_markdown(path, body, line_numbers=line_numbers) for path, body in files]
    return BLOCK_SEPARATOR.join(blocks)


class _MarkdownReader:
    """Reads what `render_markdown` wrote; ValueError where the text departs from it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def done(self) -> bool:
        return self.at >= len(self.text)

    def line(self) -> str:
        end = self.text.find("\n", self.at)
        if end < 0:
            end = len(self.text)
        line = self.text[self.at : end]
        self.at = end + 1
        return line

    def expect(self, literal: str) -> None:
        if not self.text.startswith(literal, self.at):
            found = self.text[self.at : self.at + 40]
            raise ValueError(f"expected {literal!r} at {self.at}, found {found!r}")
        self.at += len(literal)

    def fenced(self) -> str:
        """The text of the fenced block that starts here."""
        opening = self.line()
        fence = opening[: len(opening) - len(opening.lstrip("`"))]
        if len(fence) < MIN_FENCE:
            raise ValueError(f"expected a fence at {self.at}, found {opening!r}")
        if self._closes_here(fence):
            self.at += len(fence)
            return ""
        start = self.at
        at = start - 1
        while True:
            at = self.text.find("\n" + fence, at + 1)
            if at < 0:
                raise ValueError(f"a fence opened before {start} is never closed")
            if self._closes_here(fence, at + 1):
                break
        body = self.text[start : at + 1]
        self.at = at + 1 + len(fence)
        if self.text.startswith("\n" + NO_FINAL_NEWLINE, self.at):
            after = self.at + 1 + len(NO_FINAL_NEWLINE)
            if after == len(self.text) or self.text[after] == "\n":
                self.at = after
                body = body[:-1]
        return body

    def _closes_here(self, fence: str, at: int | None = None) -> bool:
        at = self.at if at is None else at
        end = at + len(fence)
        return self.text.startswith(fence, at) and (end == len(self.text) or self.text[end] == "\n")

    def separator(self) -> None:
        if not self.done():
            self.expect(BLOCK_SEPARATOR)


def _unquote(shown: str) -> str:
    if shown.startswith('"'):
        import json

        path = json.loads(shown)
        if not isinstance(path, str):
            raise ValueError(f"not a quoted path: {shown!r}")
        return path
    return shown


class _MarkdownRead(NamedTuple):
    tree: str | None
    files: list[tuple[str, str]]
    outlines: list[tuple[str, str]]


def _read(text: str) -> _MarkdownRead:
    reader = _MarkdownReader(text)
    tree = None
    if text.startswith(PART_HEADING):  # a part's head: its heading, and the line after
        reader.line()
        reader.expect("\n")
        reader.line()
        if not reader.done():
            reader.expect("\n")
    if text.startswith(TREE_HEADING + "\n\n", reader.at):
        reader.expect(TREE_HEADING + "\n\n")
        tree = reader.fenced()
        reader.separator()
    files: list[tuple[str, str]] = []
    outlines: list[tuple[str, str]] = []
    while not reader.done():
        if reader.text.startswith(CLOSING_NOTE, reader.at) and "\n" not in reader.text[reader.at :]:
            break  # the closing note
        reader.expect(HEADING)
        heading = reader.line()
        # A path that ends with the mark is quoted: an unquoted heading that does is an
        # outline's, and so is a quoted path followed by the mark.
        is_outline = heading.endswith(OUTLINE_MARK) and not (
            heading.startswith('"') and heading.endswith('"')
        )
        path = _unquote(heading.removesuffix(OUTLINE_MARK) if is_outline else heading)
        reader.expect("\n")
        if not reader.text.startswith("`", reader.at):
            reader.line()  # the note
            reader.expect("\n")
        (outlines if is_outline else files).append((path, reader.fenced()))
        reader.separator()
    return _MarkdownRead(tree, files, outlines)


def parse_markdown(text: str, *, line_numbers: bool = False) -> list[tuple[str, str]]:
    """(path, text) of every file of a Markdown output, exactly as they were framed.

    With `line_numbers`, the numbers `-n` added are taken off again. A newline after
    the last block (as the output is written) is allowed: no block ends with one.
    """
    files = _read(_without_final_newline(text)).files
    if line_numbers:
        return [(path, strip_line_numbers(body)) for path, body in files]
    return files


def parse_markdown_tree(text: str) -> str | None:
    """The directory tree of a Markdown output, if it has one."""
    return _read(_without_final_newline(text)).tree


def parse_markdown_outlines(text: str) -> list[tuple[str, str]]:
    """(path, outline) of every outline of a Markdown output (never numbered by `-n`)."""
    return _read(_without_final_newline(text)).outlines


def _without_final_newline(text: str) -> str:
    return text[:-1] if text.endswith("\n") else text
