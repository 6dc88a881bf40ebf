"""A file's outline: what it imports and defines, each with its 1-based line number.

`outline(path, text)` is the outline a budget shows of a file that does not fit whole:
its imports, its class, function and method signatures (each with the first line of
its docstring or of the comment just above it), and its top-level constants, so that
a reader knows what the file holds and which lines to ask for. `render` writes it as
text, a line an entry: the line number, then the entry indented by its depth.

Source files are parsed with tree-sitter and the grammar of their language, from the
optional extra `readmany[outline]` (`tree-sitter` and the `tree-sitter-LANGUAGE`
packages of `GRAMMARS`), imported on first use only; nothing is downloaded. A file of
another language, or of one whose grammar is not installed, gets the line rule
(`LINE_RULE`): each line that starts, at column 0, with a keyword that begins a
definition or an import in most languages (`def`, `class`, `fn`, `func`, `function`,
`import`, `#include`, …), and a Markdown file its headings. A file the rule finds
nothing in has no outline (None): the budget then names it only.

Costs (bench/outline_cost.py): tree-sitter parses at several MB/s; the walk over the
top of the tree is a few tens of microseconds a file.
"""

from __future__ import annotations

from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from tree_sitter import Node, Parser

# A language's grammar: the module, the function in it that gives the language.
GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "rust": ("tree_sitter_rust", "language"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "php": ("tree_sitter_php", "language_php"),
}
EXTENSIONS: dict[str, str] = {
    **dict.fromkeys(("py", "pyi", "pyw"), "python"),
    **dict.fromkeys(("js", "mjs", "cjs", "jsx"), "javascript"),
    **dict.fromkeys(("ts", "mts", "cts"), "typescript"),
    "tsx": "tsx",
    "rs": "rust",
    "go": "go",
    "java": "java",
    **dict.fromkeys(("c", "h"), "c"),
    **dict.fromkeys(("cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp"), "cpp"),
    **dict.fromkeys(("rb", "rake", "gemspec"), "ruby"),
    "cs": "csharp",
    "php": "php",
}
MARKDOWN_EXTENSIONS = frozenset(("md", "markdown", "mdx", "rst"))
# The line rule: a line that starts with one of these at column 0 is in the outline.
LINE_RULE = (
    "def ", "async def ", "class ", "fn ", "pub fn ", "pub(crate) fn ", "async fn ",
    "func ", "function ", "async function ", "export ", "import ", "from ", "use ",
    "#include ", "#define ", "module ", "interface ", "struct ", "enum ", "trait ",
    "impl ", "type ", "const ", "package ", "sub ", "proc ", "local function ", "defmodule ",
    "defn ", "(defun ", "(defn ", "object ", "namespace ", "public ", "private ",
    "protected ", "static ", "abstract ", "final ", "data ", "val ", "let ", "var ",
)  # fmt: skip
SIGNATURE_CHARS = 200  # an entry longer than this is cut, with "…"
MAX_ENTRIES = 2000  # an outline longer than this is cut (generated code)
MAX_DEPTH = 3  # classes in classes in namespaces: deeper is not walked


class OutlineEntry(NamedTuple):
    """One line of an outline."""

    line: int  # 1-based, where the entry starts in the file
    depth: int  # 0 at the top level, 1 in a class, …
    kind: str  # "import", "class", "function", "constant", "test", "heading", "line"
    text: str  # the signature, the import, the constant's first line
    doc: str = ""  # the first line of its docstring or of the comment above it


class Outline(NamedTuple):
    language: str  # "python" …, "markdown", or "" (the line rule)
    method: str  # "tree-sitter" or "lines"
    items: tuple[OutlineEntry, ...]
    lines: int  # the file's lines


def language_of(path: str) -> str | None:
    """The language `path`'s extension names, if a grammar of `GRAMMARS` reads it."""
    name = path.rpartition("/")[2].lower()
    if "." not in name:
        return None
    return EXTENSIONS.get(name.rpartition(".")[2])


def outline(path: str, text: str) -> Outline | None:
    """The outline of the file `path` holding `text`; None if it has nothing to show."""
    total = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    language = language_of(path)
    if language is not None:
        parser = parser_for(language)
        if parser is not None:
            items = _tree_items(parser, language, text)
            return Outline(language, "tree-sitter", tuple(items), total) if items else None
    extension = path.rpartition(".")[2].lower() if "." in path.rpartition("/")[2] else ""
    if extension in MARKDOWN_EXTENSIONS:
        items = _heading_items(text)
        return Outline("markdown", "lines", tuple(items), total) if items else None
    items = line_rule_items(text)
    return Outline("", "lines", tuple(items), total) if items else None


def render(shown: Outline) -> str:
    """The outline as text, one line an entry: `  12  def name(args):  # doc`; the
    numbers right-aligned to the widest."""
    width = len(str(shown.lines or 1))
    out = []
    for item in shown.items:
        doc = f"  # {item.doc}" if item.doc else ""
        out.append(f"{item.line:>{width}}  {'    ' * item.depth}{item.text}{doc}")
    return "\n".join(out) + ("\n" if out else "")


# --- the line rule ---------------------------------------------------------------------


def line_rule_items(text: str) -> list[OutlineEntry]:
    """The lines that start with a `LINE_RULE` keyword at column 0."""
    items: list[OutlineEntry] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(LINE_RULE):
            items.append(OutlineEntry(number, 0, "line", _one_line(line)))
            if len(items) >= MAX_ENTRIES:
                break
    return items


def _heading_items(text: str) -> list[OutlineEntry]:
    """A Markdown file's `#` headings (not in a fenced block); an RST file's titles."""
    items: list[OutlineEntry] = []
    fence = ""
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = "" if fence == marker else (fence or marker)
            continue
        if fence:
            continue
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            if level <= 6 and line[level : level + 1] in (" ", ""):
                items.append(OutlineEntry(number, level - 1, "heading", _one_line(line)))
        elif (
            number > 1
            and line
            and set(line) <= set("=-~^*#")
            and len(line) >= 3
            and lines[number - 2].strip()
            and not lines[number - 2].startswith(("=", "-"))
        ):
            items.append(
                OutlineEntry(
                    number - 1, 0 if line[0] == "=" else 1, "heading", _one_line(lines[number - 2])
                )
            )
        if len(items) >= MAX_ENTRIES:
            break
    return items


def _one_line(text: str) -> str:
    """`text` on one line, its runs of white space one space, cut at `SIGNATURE_CHARS`."""
    joined = " ".join(text.split())
    for spaced, tight in (("( ", "("), (" )", ")"), ("[ ", "["), (" ]", "]"), (",)", ")")):
        joined = joined.replace(spaced, tight)
    if len(joined) > SIGNATURE_CHARS:
        return joined[: SIGNATURE_CHARS - 1] + "…"
    return joined


# --- tree-sitter -----------------------------------------------------------------------

_parsers: dict[str, Parser | None] = {}


def parser_for(language: str) -> Parser | None:
    """A parser of `language`, or None when tree-sitter or its grammar is not installed."""
    if language in _parsers:
        return _parsers[language]
    parser: Parser | None = None
    module_name, function = GRAMMARS[language]
    try:
        import importlib

        from tree_sitter import Language, Parser

        grammar = importlib.import_module(module_name)
        parser = Parser(Language(getattr(grammar, function)()))
    except (ImportError, AttributeError, ValueError, TypeError):
        parser = None
    _parsers[language] = parser
    return parser


def installed() -> list[str]:
    """The languages of `GRAMMARS` whose grammar is installed."""
    return [language for language in GRAMMARS if parser_for(language) is not None]


# Node types, by what the outline does with them. Of a definition, the signature is its
# text up to its body (the field `body`, or the first block-like child).
_IMPORTS = frozenset(
    (
        "import_statement", "import_from_statement", "future_import_statement",  # python, js
        "use_declaration", "extern_crate_declaration", "mod_item",  # rust (a `mod x;`)
        "import_declaration", "package_clause", "package_declaration",  # go, java
        "preproc_include", "using_directive", "namespace_use_declaration",  # c, c#, php
        "using_declaration",
    )
)  # fmt: skip
_CLASSES = frozenset(
    (
        "class_definition", "class_declaration", "abstract_class_declaration",
        "interface_declaration", "enum_declaration", "record_declaration",
        "struct_item", "enum_item", "trait_item", "impl_item", "union_item",
        "struct_specifier", "class_specifier", "union_specifier", "enum_specifier",
        "namespace_definition", "namespace_declaration", "file_scoped_namespace_declaration",
        "module", "class", "singleton_class", "struct_declaration", "trait_declaration",
        "type_declaration", "type_alias_declaration", "type_item", "annotation_type_declaration",
        "internal_module", "module_declaration",
    )
)  # fmt: skip
_FUNCTIONS = frozenset(
    (
        "function_definition", "function_declaration", "generator_function_declaration",
        "method_definition", "method_declaration", "constructor_declaration",
        "function_item", "function_signature_item", "method_signature", "abstract_method_signature",
        "function_signature", "method", "singleton_method", "operator_declaration",
        "destructor_declaration", "property_declaration", "compact_constructor_declaration",
        "macro_definition",
    )
)  # fmt: skip
_CONSTANTS = frozenset(
    (
        "const_item", "static_item", "const_declaration", "var_declaration",  # rust, go
        "preproc_def", "preproc_function_def",  # c
        "lexical_declaration", "variable_declaration",  # js: `const X = …` (or a function)
        "field_declaration", "constant_declaration",  # java: `static final`
        "expression_statement", "assignment",  # python: `NAME = …` at the top
    )
)  # fmt: skip
# Wrappers whose children are walked at the same depth.
_WRAPPERS = frozenset(
    (
        "decorated_definition", "export_statement", "template_declaration", "ambient_declaration",
        "declaration_list", "class_body", "body_statement", "field_declaration_list",
        "block", "program", "source_file", "translation_unit", "compilation_unit",
        "linkage_specification", "php_tag", "declaration_list", "enum_body", "interface_body",
        "object_type", "statement_block",
    )
)  # fmt: skip
_COMMENTS = frozenset(("comment", "line_comment", "block_comment"))
_BODY_TYPES = frozenset(
    (
        "block", "statement_block", "class_body", "declaration_list", "field_declaration_list",
        "compound_statement", "enum_variant_list", "interface_body", "enum_body", "body_statement",
        "object_type", "struct_type", "interface_type", "enumerator_list", "do_block",
    )
)  # fmt: skip


def _tree_items(parser: Parser, language: str, text: str) -> list[OutlineEntry]:
    source = text.encode("utf-8", "surrogatepass")
    tree = parser.parse(source)
    walker = _Walker(source, language)
    walker.walk(tree.root_node, 0)
    return walker.items


class _Walker:
    def __init__(self, source: bytes, language: str) -> None:
        self.source = source
        self.language = language
        self.items: list[OutlineEntry] = []

    def text_of(self, start: int, end: int) -> str:
        return self.source[start:end].decode("utf-8", "replace")

    def walk(self, node: Node, depth: int) -> None:
        # A child at a time, by a cursor: `named_children` makes every child's object at
        # once (a 1 MB file of `a;` is 500,000 statements at the top: 370 MB held).
        cursor = node.walk()
        if not cursor.goto_first_child():
            return
        previous: Node | None = None
        while True:
            child = cursor.node
            if child is not None and child.is_named:
                if len(self.items) >= MAX_ENTRIES:
                    return
                self.visit(child, depth, previous)
                previous = child
            if not cursor.goto_next_sibling():
                return

    def visit(self, node: Node, depth: int, previous: Node | None) -> None:
        kind = node.type
        if kind in _IMPORTS and depth == 0:
            if kind == "mod_item" and node.child_by_field_name("body") is not None:
                self.definition(node, depth, "class", previous)
            else:
                self.add(node, depth, "import", self.text_of(node.start_byte, node.end_byte))
        elif kind in _CLASSES:
            self.definition(node, depth, "class", previous)
        elif kind in _FUNCTIONS:
            self.definition(node, depth, "function", previous, walk_body=False)
        elif kind in _CONSTANTS:
            self.constant(node, depth, previous)
        elif kind == "call" and self.language == "ruby" and depth == 0:
            text = self.text_of(node.start_byte, node.end_byte)
            if text.startswith(("require", "load ", "include ", "extend ")):
                self.add(node, depth, "import", text)
        elif kind in _WRAPPERS and depth <= MAX_DEPTH:
            if kind in ("decorated_definition", "export_statement"):
                field = "definition" if kind == "decorated_definition" else "declaration"
                inner = node.child_by_field_name(field)
                if inner is not None:  # the comment above the wrapper is the inner's
                    self.visit(inner, depth, previous)
                    return
            if kind in ("block", "statement_block") and depth == 0:
                return  # code at the top level (a script's `if __name__ …`): not walked
            self.walk(node, depth)

    def add(self, node: Node, depth: int, kind: str, text: str, doc: str = "") -> None:
        self.items.append(OutlineEntry(node.start_point[0] + 1, depth, kind, _one_line(text), doc))

    def definition(
        self, node: Node, depth: int, kind: str, previous: Node | None, walk_body: bool = True
    ) -> None:
        body = node.child_by_field_name("body")
        if body is None:
            body = next((c for c in node.named_children if c.type in _BODY_TYPES), None)
        if body is not None and self.language == "python":  # up to its colon: a comment
            colons = [c.start_byte for c in node.children if c.type == ":"]  # may follow
            signature = self.text_of(node.start_byte, colons[-1] if colons else body.start_byte)
        elif body is not None and self.language != "ruby":
            signature = self.text_of(node.start_byte, body.start_byte)
        else:  # its first line (Ruby's body starts after any comment in it)
            signature = self.text_of(node.start_byte, node.end_byte).split("\n", 1)[0]
        signature = signature.rstrip().rstrip("{").rstrip()
        doc = self.docstring(body) or self.comment_above(node, previous)
        self.add(node, depth, kind, signature, doc)
        if walk_body and body is not None and depth < MAX_DEPTH:
            self.walk(body, depth + 1)

    def constant(self, node: Node, depth: int, previous: Node | None) -> None:
        kind = node.type
        first = self.text_of(node.start_byte, node.end_byte).split("\n", 1)[0]
        if self.language == "python":
            if depth != 0 or kind != "expression_statement":
                return
            assignment = node.named_children[0] if node.named_children else None
            if assignment is None or assignment.type != "assignment":
                return
            left = assignment.child_by_field_name("left")
            if left is None or left.type != "identifier":
                return
            name = self.text_of(left.start_byte, left.end_byte)
            if not (name.isupper() or name == "__all__"):
                return
            self.add(node, depth, "constant", first, self.comment_above(node, previous))
            return
        if kind in ("lexical_declaration", "variable_declaration"):
            if depth != 0:
                return
            declarator = next(
                (c for c in node.named_children if c.type == "variable_declarator"), None
            )
            value = declarator.child_by_field_name("value") if declarator is not None else None
            if _required(value, self.text_of):  # CommonJS: `var x = require('x')`
                self.add(node, depth, "import", first)
                return
            if value is not None and value.type in _JS_FUNCTIONS:
                head = self.text_of(node.start_byte, value.start_byte)
                params = value.child_by_field_name("parameters")
                if params is not None:
                    head += self.text_of(params.start_byte, params.end_byte) + " =>"
                doc = self.comment_above(node, previous)
                self.add(node, depth, "function", head, doc)
                return
            if not first.lstrip().startswith(("const ", "export const ")):
                return
        elif kind == "field_declaration":
            if " static " not in f" {first} " or " final " not in f" {first} ":
                return
        elif kind == "expression_statement" and self.language in _JS_LANGUAGES:
            if not self.test_block(node, depth) and depth == 0:
                self.assigned(node, depth, previous)
            return
        elif kind in ("expression_statement", "assignment"):
            return
        self.add(node, depth, "constant", first, self.comment_above(node, previous))

    def assigned(self, node: Node, depth: int, previous: Node | None) -> None:
        """JavaScript's methods defined by assignment at the top (`app.use = function
        use(fn) {`, `exports.x = (a) => …`, `module.exports = class …`): the API of a
        CommonJS module, which declares few functions by name."""
        assignment = node.named_children[0] if node.named_children else None
        if assignment is None or assignment.type != "assignment_expression":
            return
        value = assignment.child_by_field_name("right")
        if value is None or value.type not in (*_JS_FUNCTIONS, "class"):
            return
        body = value.child_by_field_name("body")
        end = body.start_byte if body is not None else value.end_byte
        head = self.text_of(node.start_byte, end).rstrip().rstrip("{").rstrip()
        kind = "class" if value.type == "class" else "function"
        self.add(node, depth, kind, head, self.comment_above(node, previous))

    def test_block(self, node: Node, depth: int) -> bool:
        """A test of a JavaScript suite (`describe('name', () => {…})`, `it('does x', …)`,
        `test.skip(…)`): its call up to the name, a group's tests below it."""
        call = node.named_children[0] if node.named_children else None
        if call is None or call.type != "call_expression":
            return False
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None or not arguments.named_children:
            return False
        callee = self.text_of(function.start_byte, function.end_byte)
        head, _, modifier = callee.partition(".")
        if (head not in _TEST_GROUPS and head not in _TESTS) or modifier not in _TEST_MODIFIERS:
            return False
        name = arguments.named_children[0]
        if name.type not in ("string", "template_string"):
            return False
        label = self.text_of(name.start_byte, name.end_byte)
        self.add(node, depth, "test", f"{callee}({label})")
        if head in _TEST_GROUPS and depth < MAX_DEPTH:
            body = arguments.named_children[-1].child_by_field_name("body")
            if body is not None and body.type == "statement_block":
                self.walk(body, depth + 1)
        return True

    def docstring(self, body: Node | None) -> str:
        """Python's: the first statement of the body, when it is a string."""
        if self.language != "python" or body is None or not body.named_children:
            return ""
        first = body.named_children[0]
        if first.type != "expression_statement" or not first.named_children:
            return ""
        string = first.named_children[0]
        if string.type != "string":
            return ""
        return _first_line(self.text_of(string.start_byte, string.end_byte).strip("\"'rbuRBU"))

    def comment_above(self, node: Node, previous: Node | None) -> str:
        """The first line of the comments just above `node` (none between)."""
        if previous is None or previous.type not in _COMMENTS:
            return ""
        if previous.end_point[0] < node.start_point[0] - 1:
            return ""
        # Walk up the run of comments that ends just above `node`, to its first.
        first = previous
        while True:
            before = first.prev_named_sibling
            if before is None or before.type not in _COMMENTS:
                break
            if before.end_point[0] < first.start_point[0] - 1:
                break
            first = before
        text = self.text_of(first.start_byte, first.end_byte)
        return _first_line(text.lstrip("/*#!-; \t").removeprefix("*"))


_JS_LANGUAGES = frozenset(("javascript", "typescript", "tsx"))
# Test suites (mocha, jest, jasmine, vitest, node:test): groups, whose tests are listed
# below them, and tests; `describe.only`, `it.skip` … too.
_TEST_GROUPS = frozenset(("describe", "context", "suite", "xdescribe", "fdescribe"))
_TESTS = frozenset(("it", "test", "specify", "xit", "fit"))
_TEST_MODIFIERS = frozenset(("", "only", "skip", "todo", "concurrent"))
_JS_FUNCTIONS = ("arrow_function", "function_expression", "function")


def _required(value: Node | None, text_of: Callable[[int, int], str]) -> bool:
    """Whether a declared value is a CommonJS import: `require('x')`, or a member of one
    (`require('x').y`)."""
    while value is not None and value.type == "member_expression":
        value = value.child_by_field_name("object")
    if value is None or value.type != "call_expression":
        return False
    function = value.child_by_field_name("function")
    return function is not None and text_of(function.start_byte, function.end_byte) == "require"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("*/#! ").removesuffix("*/").strip()
        if line:
            return _one_line(line)
    return ""
