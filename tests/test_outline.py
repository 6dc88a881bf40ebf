"""Outlines (readmany/read/outline.py): what each language's shows, with line numbers,
the line rule where no grammar reads the file, and what has no outline."""

from __future__ import annotations

import pytest

from readmany.read import outline as outlines
from readmany.read.outline import (
    OutlineEntry,
    installed,
    language_of,
    line_rule_items,
    outline,
    render,
)

PYTHON = '''"""The module."""

from __future__ import annotations

import os.path
from .core import (
    run,
    stop,
)

LIMIT = 10
__all__ = ["Walker"]
lower_case = 3


@decorated
def walk(root: str,
         depth: int = 0) -> list[str]:
    """Walk the tree.

    More about it.
    """
    inner = 1
    return []


class Walker(Base):
    """A walker."""

    SIZE = 3

    async def run(self) -> None:
        # no docstring: the comment inside is not the method's
        pass

    class Inner:
        def deep(self): ...


if __name__ == "__main__":
    walk(".")
'''


def items(path: str, text: str) -> list[tuple[int, int, str, str, str]]:
    shown = outline(path, text)
    assert shown is not None
    return [tuple(item) for item in shown.items]  # type: ignore[misc]


def test_python() -> None:
    shown = outline("pkg/walk.py", PYTHON)
    assert shown is not None
    assert shown.language == "python" and shown.method == "tree-sitter"
    assert shown.lines == PYTHON.count("\n")
    assert [tuple(item) for item in shown.items] == [
        (3, 0, "import", "from __future__ import annotations", ""),
        (5, 0, "import", "import os.path", ""),
        (6, 0, "import", "from .core import (run, stop)", ""),
        (11, 0, "constant", "LIMIT = 10", ""),
        (12, 0, "constant", '__all__ = ["Walker"]', ""),
        (17, 0, "function", "def walk(root: str, depth: int = 0) -> list[str]", "Walk the tree."),
        (27, 0, "class", "class Walker(Base)", "A walker."),
        (32, 1, "function", "async def run(self) -> None", ""),  # class constants: not shown
        (36, 1, "class", "class Inner", ""),
        (37, 2, "function", "def deep(self)", ""),
    ]
    text = render(shown)
    assert (
        text.splitlines()[5]
        == "17  def walk(root: str, depth: int = 0) -> list[str]  # Walk the tree."
    )
    assert "32      async def run(self) -> None" in text.splitlines()
    assert text.endswith("37          def deep(self)\n")


def test_line_numbers_point_at_the_definitions() -> None:
    shown = outline("pkg/walk.py", PYTHON)
    assert shown is not None
    lines = PYTHON.splitlines()
    for item in shown.items:
        first_word = item.text.split()[0]
        assert first_word in lines[item.line - 1], item


def test_typescript() -> None:
    source = """import { readFile } from "fs";

/** The biggest size. */
export const MAX_SIZE = 10;

// Reads a thing.
export function read(name: string): string {
  return name;
}

export const helper = (a: number, b: number): number => a + b;

export interface Options {
  verbose: boolean;
}

export class Reader extends Base {
  /** Opens it. */
  open(path: string): void {}
}
"""
    assert items("src/read.ts", source) == [
        (1, 0, "import", 'import { readFile } from "fs";', ""),
        (4, 0, "constant", "const MAX_SIZE = 10;", "The biggest size."),
        (7, 0, "function", "function read(name: string): string", "Reads a thing."),
        (11, 0, "function", "const helper = (a: number, b: number) =>", ""),
        (13, 0, "class", "interface Options", ""),
        (17, 0, "class", "class Reader extends Base", ""),
        (19, 1, "function", "open(path: string): void", "Opens it."),
    ]
    assert outline("src/view.tsx", "export function View() { return <div/>; }\n") is not None


def test_javascript() -> None:
    source = (
        "const fs = require('fs');\nimport x from './x';\n/** Reads. */\n"
        "function read(a) {}\nclass B { m() {} }\n"
    )
    assert items("lib/read.js", source) == [
        (1, 0, "import", "const fs = require('fs');", ""),
        (2, 0, "import", "import x from './x';", ""),
        (4, 0, "function", "function read(a)", "Reads."),
        (5, 0, "class", "class B", ""),
        (5, 1, "function", "m()", ""),
    ]


def test_javascript_commonjs_names_its_requires_and_the_functions_it_assigns() -> None:
    # A CommonJS module (express's lib/application.js) defines its API by assignment: the
    # outline names each method, as it names a declared function.
    source = (
        "var View = require('./view');\n"
        "var methods = require('./utils').methods;\n"
        "var app = exports = module.exports = {};\n"
        "// Use a middleware.\n"
        "app.use = function use(fn) {\n  return this;\n};\n"
        "exports.twice = (a) => a * 2;\n"
        "module.exports.Thing = class Thing {};\n"
        "app.count = 3;\n"
        "if (x) { y = function () {}; }\n"
    )
    assert items("lib/application.js", source) == [
        (1, 0, "import", "var View = require('./view');", ""),
        (2, 0, "import", "var methods = require('./utils').methods;", ""),
        (5, 0, "function", "app.use = function use(fn)", "Use a middleware."),
        (8, 0, "function", "exports.twice = (a) =>", ""),
        (9, 0, "class", "module.exports.Thing = class Thing", ""),
    ]


def test_javascript_test_suites_show_their_groups_and_tests() -> None:
    # A mocha or jest file defines almost nothing by name: its outline is its suite, each
    # group's tests below it, so a reader can ask for the lines of the test they need.
    source = (
        "var assert = require('assert');\n"
        "describe('router', function () {\n"
        "  beforeEach(function () {});\n"
        "  it('routes', function () {\n    describe('not a group of the suite', () => {});\n  });\n"
        "  describe.only(`params`, () => {\n"
        "    test.skip('decodes', async () => {});\n"
        "    context('deeper', () => { it('one', () => {}); });\n"
        "  });\n"
        "  it(name, () => {});\n"
        "  helper.describe('x', () => {});\n"
        "});\n"
    )
    assert items("test/router.test.js", source) == [
        (1, 0, "import", "var assert = require('assert');", ""),
        (2, 0, "test", "describe('router')", ""),
        (4, 1, "test", "it('routes')", ""),
        (7, 1, "test", "describe.only(`params`)", ""),
        (8, 2, "test", "test.skip('decodes')", ""),
        (9, 2, "test", "context('deeper')", ""),
        (9, 3, "test", "it('one')", ""),
    ]
    ts = "describe('api', () => {\n  it('works', async (): Promise<void> => {});\n});\n"
    assert items("src/api.spec.ts", ts) == [
        (1, 0, "test", "describe('api')", ""),
        (2, 1, "test", "it('works')", ""),
    ]


def test_rust() -> None:
    source = """use std::io;
mod cli;

/// The number of workers.
pub const WORKERS: usize = 4;

/// Walks a tree.
/// More words.
pub fn walk(root: &Path) -> io::Result<()> {
    Ok(())
}

pub struct Walker {
    root: PathBuf,
}

impl Walker {
    /// Makes one.
    pub fn new(root: PathBuf) -> Self { Walker { root } }
}

trait Scan {
    fn scan(&self) -> usize;
}
"""
    assert items("src/walk.rs", source) == [
        (1, 0, "import", "use std::io;", ""),
        (2, 0, "import", "mod cli;", ""),
        (5, 0, "constant", "pub const WORKERS: usize = 4;", "The number of workers."),
        (9, 0, "function", "pub fn walk(root: &Path) -> io::Result<()>", "Walks a tree."),
        (13, 0, "class", "pub struct Walker", ""),
        (17, 0, "class", "impl Walker", ""),
        (19, 1, "function", "pub fn new(root: PathBuf) -> Self", "Makes one."),
        (22, 0, "class", "trait Scan", ""),
        (23, 1, "function", "fn scan(&self) -> usize;", ""),
    ]


def test_go() -> None:
    source = """package walk

import (
\t"fmt"
\t"os"
)

// Workers is how many.
const Workers = 4

// Walk walks.
func Walk(root string) error {
\treturn nil
}

type Walker struct {
\tRoot string
}

// Run runs it.
func (w *Walker) Run() {}
"""
    assert items("walk/walk.go", source) == [
        (1, 0, "import", "package walk", ""),
        (3, 0, "import", 'import ("fmt" "os")', ""),
        (9, 0, "constant", "const Workers = 4", "Workers is how many."),
        (12, 0, "function", "func Walk(root string) error", "Walk walks."),
        (16, 0, "class", "type Walker struct", ""),
        (21, 0, "function", "func (w *Walker) Run()", "Run runs it."),
    ]


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        ("A.java", "package x;\nimport java.util.List;\n/** A thing. */\npublic class A {\n"
         "    public static final int MAX = 3;\n"
         "    public int run(List<String> xs) { return 0; }\n}\n",
         ["package x;", "import java.util.List;", "public class A",
          "public static final int MAX = 3;", "public int run(List<String> xs)"]),
        ("a.c", "#include <stdio.h>\n#define MAX 10\nint add(int a, int b) { return a + b; }\n",
         ["#include <stdio.h>", "#define MAX 10", "int add(int a, int b)"]),
        ("a.cpp", "namespace n {\nclass A { public: void f(); };\n}\n", ["namespace n", "class A"]),
        ("a.rb", "require 'json'\nclass Walker\n  def walk(root)\n  end\nend\n",
         ["require 'json'", "class Walker", "def walk(root)"]),
        ("a.cs",
         "using System;\nnamespace X {\n  public class A { public void Run(int x) {} }\n}\n",
         ["using System;", "namespace X", "public class A", "public void Run(int x)"]),
        ("a.php",
         "<?php\nuse Foo\\Bar;\nfunction run($x) { return 1; }\n"
         "class A { public function go() {} }\n",
         ["use Foo\\Bar;", "function run($x)", "class A", "public function go()"]),
    ],
)  # fmt: skip
def test_other_grammars(path: str, source: str, expected: list[str]) -> None:
    assert [item[3] for item in items(path, source)] == expected


def test_every_grammar_of_the_extra_is_installed_here() -> None:
    assert installed() == list(outlines.GRAMMARS)


def test_a_language_without_a_grammar_gets_the_line_rule() -> None:
    source = (
        "local x = 1\nfunction walk(root)\n  return root\nend\n\nlocal function helper()\nend\n"
    )
    assert language_of("walk.lua") is None
    shown = outline("walk.lua", source)
    assert shown is not None
    assert (shown.language, shown.method) == ("", "lines")
    assert [(i.line, i.text) for i in shown.items] == [
        (2, "function walk(root)"),
        (6, "local function helper()"),
    ]


def test_a_grammar_not_installed_falls_back_to_the_line_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(outlines.GRAMMARS, "python", ("tree_sitter_not_installed", "language"))
    monkeypatch.setattr(outlines, "_parsers", {})
    shown = outline("pkg/walk.py", PYTHON)
    assert shown is not None
    assert shown.method == "lines"
    assert [(i.line, i.text) for i in shown.items] == [
        (3, "from __future__ import annotations"),
        (5, "import os.path"),
        (6, "from .core import ("),
        (17, "def walk(root: str,"),
        (27, "class Walker(Base):"),
    ]
    assert outlines.parser_for("python") is None


def test_markdown_headings_not_in_fences() -> None:
    source = "# Title\n\ntext\n\n## Usage\n\n```sh\n# not a heading\n```\n\n### Deep\n"
    shown = outline("docs/guide.md", source)
    assert shown is not None
    assert [(i.line, i.depth, i.text) for i in shown.items] == [
        (1, 0, "# Title"),
        (5, 1, "## Usage"),
        (11, 2, "### Deep"),
    ]
    rst = outline("docs/guide.rst", "Title\n=====\n\ntext\n\nPart\n----\n")
    assert rst is not None and [(i.line, i.text) for i in rst.items] == [(1, "Title"), (6, "Part")]


def test_nothing_to_show_is_none() -> None:
    assert outline("data/table.csv", "a,b\n1,2\n") is None
    assert outline("pkg/empty.py", "") is None
    assert outline("pkg/script.py", "print('hi')\n") is None


def test_long_signatures_are_cut_and_outlines_bounded() -> None:
    long = "def f(" + ", ".join(f"a{n}" for n in range(200)) + "):\n    pass\n"
    shown = outline("long.py", long)
    assert shown is not None
    assert len(shown.items[0].text) == outlines.SIGNATURE_CHARS
    assert shown.items[0].text.endswith("…")
    many = "".join(f"def f{n}():\n    pass\n" for n in range(outlines.MAX_ENTRIES + 50))
    assert len(outline("many.py", many).items) == outlines.MAX_ENTRIES  # type: ignore[union-attr]
    assert len(line_rule_items("def x\n" * (outlines.MAX_ENTRIES + 5))) == outlines.MAX_ENTRIES


def test_render_aligns_numbers() -> None:
    shown = outlines.Outline(
        "",
        "lines",
        (OutlineEntry(3, 0, "line", "def a"), OutlineEntry(120, 1, "line", "def b", "doc")),
        150,
    )
    assert render(shown) == "  3  def a\n120      def b  # doc\n"


def test_text_that_does_not_parse_still_outlines() -> None:
    shown = outline("broken.py", "def ok():\n    pass\n\ndef broken(:\n")
    assert shown is not None
    assert shown.items[0].text == "def ok()"


def test_non_utf8_safe_text() -> None:
    shown = outline("u.py", "def caf\u00e9(x):\n    '''Sp\u00e4t.'''\n\nS = '\udcff'\n")
    assert shown is not None
    assert shown.items[0] == OutlineEntry(1, 0, "function", "def caf\u00e9(x)", "Sp\u00e4t.")


@pytest.mark.parametrize(
    ("language", "path", "text"),
    [("javascript", "a.js", "a;" * 50_000 + "\n"), ("python", "a.py", "a\n" * 50_000)],
)
def test_the_walk_holds_no_more_than_the_parse(language: str, path: str, text: str) -> None:
    # Every statement at the top made at once (`named_children`): a 1 MB file of `a;`
    # held 370 MB more than its tree (the tree itself: 230 MB, see docs/budget.md).
    import tracemalloc

    parser = outlines.parser_for(language)
    assert parser is not None
    tracemalloc.start()
    try:
        parser.parse(text.encode())
        parsed = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        tracemalloc.clear_traces()
        assert outlines.outline(path, text) is None  # nothing in it to outline
        walked = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert walked <= parsed * 1.15, (walked, parsed)
