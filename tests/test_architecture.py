"""The import rules of the stages, checked from the code.

The stages run select → read → frame → pack → emit, and the commands wire them: a stage
never imports one that comes after it or the commands, `pack` is given what it needs
rather than importing `read` or `frame`, and no module imports itself back through others.
Every import counts, those made lazily inside a function and those for type checking alike.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "readmany"

# Stage -> the packages it must not import.
FORBIDDEN = {
    "select": {"read", "frame", "pack", "emit", "edit", "commands"},
    "read": {"frame", "pack", "emit", "edit", "commands"},
    "frame": {"pack", "emit", "edit", "commands"},
    "pack": {"read", "frame", "emit", "edit", "commands"},
    "emit": {"edit", "commands"},
    # The edit (an anchored edit, written safely) uses the stages; only `edit` runs it.
    "edit": {"commands"},
}

# Known debts: imports that break a rule today, each (importer, imported). The list can
# only shrink: a new rule-breaking import fails the test, and so does an entry that is
# no longer needed.
ALLOWED: set[tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of readmany that `name` imports, wherever in the file it does."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from readmany.commands import glob_plan` imports the submodule.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _stage(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def upward_imports(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {
        (importer, imported)
        for importer, targets in graph.items()
        for imported in targets
        if _stage(imported) in FORBIDDEN.get(_stage(importer), set())
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def _without_allowed(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    return {
        importer: {t for t in targets if (importer, t) not in ALLOWED}
        for importer, targets in graph.items()
    }


def test_the_graph_is_read_from_the_code() -> None:
    graph = _graph()
    # Imports at the top and lazy ones inside a function (glob's dispatch) are found.
    assert "readmany.emit.outcome" in graph["readmany.emit.render"]
    assert "readmany.commands.glob_plan" in graph["readmany.commands.glob"]


def test_no_stage_imports_one_after_it_or_the_commands() -> None:
    assert upward_imports(_without_allowed(_graph())) == set()


def test_no_import_cycles() -> None:
    assert cycles(_without_allowed(_graph())) == []


def test_every_allowed_import_is_still_needed() -> None:
    graph = _graph()
    gone = {(a, b) for a, b in ALLOWED if b not in graph.get(a, set())}
    assert gone == set(), "drop these from ALLOWED: the debt is paid"


def test_a_rule_breaking_import_is_caught() -> None:
    graph = _graph()
    graph["readmany.pack"] = {*graph["readmany.pack"], "readmany.read.line_range"}
    graph["readmany.emit.render"] = {*graph["readmany.emit.render"], "readmany.commands"}
    assert upward_imports(_without_allowed(graph)) == {
        ("readmany.pack", "readmany.read.line_range"),
        ("readmany.emit.render", "readmany.commands"),
    }
    graph = _graph()
    graph["readmany.request.many"] = {*graph["readmany.request.many"], "readmany.commands.many"}
    assert cycles(_without_allowed(graph)) == [["readmany.commands.many", "readmany.request.many"]]


# -- the two faces: one code path ----------------------------------------------------------

# The stages are given the face's choices as values (`faces.Face`, chosen in one place);
# none of them asks which face it runs in.
FACE_BLIND = ("select", "read", "frame", "pack", "emit")
_COMPAT_WORD = re.compile(r"(?:^|_)compat(?:_|$)", re.IGNORECASE)


def compat_identifiers(source: str) -> list[tuple[int, str]]:
    """The identifiers of `source` (names, attributes, arguments, keywords) that hold the
    word `compat`, with their line; comments and strings do not count."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and _COMPAT_WORD.search(token.string):
            found.append((token.start[0], token.string))
    return found


def _face_blind_modules() -> list[Path]:
    return [
        path for path in sorted(PACKAGE.rglob("*.py")) if _stage(_module_name(path)) in FACE_BLIND
    ]


def test_no_stage_asks_which_face_it_runs_in() -> None:
    found = {
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name}"
        for path in _face_blind_modules()
        for line, name in compat_identifiers(path.read_text(encoding="utf-8"))
    }
    assert found == set(), "give the stage a field of `Face` instead"


def test_no_command_asks_which_face_it_runs_in() -> None:
    # A command wires the stages with its face's fields (`Face.glob_reference_ending`, ...),
    # each named for what it decides, as the stages are given them.
    found = {
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if _stage(_module_name(path)) in ("commands", "serve")
        for line, name in compat_identifiers(path.read_text(encoding="utf-8"))
    }
    assert found == set(), "give the command a field of `Face` instead"


def test_an_identifier_named_compat_is_caught() -> None:
    assert len(_face_blind_modules()) > 40  # pack.py, as it stands, and the packages
    source = (
        "# --compat is the reference's face\n"
        "def run(request, is_compat=False):\n"
        "    '''Without compat.'''\n"
        "    return request.face.compat or render(compat=True)\n"
    )
    assert compat_identifiers(source) == [(2, "is_compat"), (4, "compat"), (4, "compat")]


# -- one name per thing ----------------------------------------------------------------------

# Names defined twice today, each in modules another change is rebuilding (the budget's
# move into `pack/`): the list can only shrink, as ALLOWED.
KNOWN_TWICE = {
    "Block",  # pack/plan.py's protocol of a block it weighs, and frame/heredoc.py's block
}


def _top_level(body: list[ast.stmt]) -> list[str]:
    """Classes and module-level constants (a name in capitals, a type alias in CapWords)
    that `body` defines, including those under `if TYPE_CHECKING:`."""
    names: list[str] = []
    for node in body:
        if isinstance(node, ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, ast.If):
            names += _top_level(node.body) + _top_level(node.orelse)
    return [
        name
        for name in names
        if name != "TYPE_CHECKING"  # `typing`'s own name, set False to import no `typing`
        and name.lstrip("_")[:1].isupper()
    ]


def definitions(sources: dict[str, str]) -> dict[str, list[str]]:
    """Each class and constant name, with the modules that define it."""
    found: dict[str, list[str]] = {}
    for module, source in sorted(sources.items()):
        for name in dict.fromkeys(_top_level(ast.parse(source).body)):
            found.setdefault(name, []).append(module)
    return found


def _sources() -> dict[str, str]:
    return {name: path.read_text(encoding="utf-8") for name, path in _modules().items()}


def test_no_class_or_constant_name_is_defined_twice() -> None:
    twice = {name: where for name, where in definitions(_sources()).items() if len(where) > 1}
    assert set(twice) - KNOWN_TWICE == set(), twice


def test_every_known_duplicate_is_still_one() -> None:
    twice = {name for name, where in definitions(_sources()).items() if len(where) > 1}
    assert KNOWN_TWICE - twice == set(), "drop these from KNOWN_TWICE: the name is one"


def test_a_name_defined_twice_is_caught() -> None:
    found = definitions(
        {
            "a": "MAX_LINES = 2000\nclass Item: ...\n_FLAGS = 1\nlimit = 3\n",
            "b": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    class Item: ...\nMAX_LINES = 1\n",
            "c": "TYPE_CHECKING = False\n_FLAGS: int = 2\ndef Item(): ...\n",
        }
    )
    assert {name: where for name, where in found.items() if len(where) > 1} == {
        "MAX_LINES": ["a", "b"],
        "Item": ["a", "b"],
        "_FLAGS": ["a", "c"],
    }


# -- classes of one concern ------------------------------------------------------------------

CLASS_LINES = 250  # a class longer than this holds more than one concern: split it

# Known debts: classes over the limit today, each "module:Class". The list can only shrink:
# a new long class fails the test, and so does an entry that is no longer long.
LONG_CLASSES: set[str] = set()


def class_lengths(sources: dict[str, str]) -> dict[str, int]:
    """Each class of `sources`, nested ones too, as "module:Class", with its lines (from
    its `class` line, or its first decorator's, to its last)."""
    found = {}
    for module, source in sorted(sources.items()):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                found[f"{module}:{node.name}"] = (node.end_lineno or node.lineno) - first + 1
    return found


def test_no_class_is_over_the_limit() -> None:
    long = {name: lines for name, lines in class_lengths(_sources()).items() if lines > CLASS_LINES}
    assert set(long) - LONG_CLASSES == set(), long


def test_every_known_long_class_is_still_long() -> None:
    long = {name for name, lines in class_lengths(_sources()).items() if lines > CLASS_LINES}
    assert LONG_CLASSES - long == set(), "drop these from LONG_CLASSES: the class is short"


def test_a_long_class_is_caught() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(CLASS_LINES - 1))
    nested = body.replace("    ", "        ")
    found = class_lengths(
        {
            "a": f"class Short:\n{body}",
            "b": f"@dataclass\nclass Long:\n{body}",
            "c": f"def f():\n    class Inner:\n{nested}",
        }
    )
    assert found == {"a:Short": CLASS_LINES, "b:Long": CLASS_LINES + 1, "c:Inner": CLASS_LINES}


# -- commands are given typed requests ----------------------------------------------------

# What a command line holds before it is a request: the values as parsed (`request.given`),
# and the modules that parse or hand them on. A command imports none of them.
PARSED = {"readmany.cli", "readmany.fastargs", "readmany.invoke", "readmany.request.given"}
# Annotations that would let the values as parsed through to a command's `main`.
UNTYPED = {"Mapping", "dict", "Given", "Any", "object"}


def untyped_mains(sources: dict[str, str]) -> list[str]:
    """The `main` functions of `sources` that take other than one parameter annotated
    with a request type (a name that is none of `UNTYPED`, or None for `man`)."""
    found = []
    for module, source in sorted(sources.items()):
        for node in ast.parse(source).body:
            if not isinstance(node, ast.FunctionDef) or node.name != "main":
                continue
            params = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            annotation = params[0].annotation if len(params) == 1 else None
            if annotation is None or node.args.vararg or node.args.kwarg:
                found.append(f"{module}:main")
                continue
            nodes = list(ast.walk(annotation))
            names = {n.id for n in nodes if isinstance(n, ast.Name)}
            names |= {n.attr for n in nodes if isinstance(n, ast.Attribute)}
            if names & UNTYPED:
                found.append(f"{module}:main")
    return found


def _command_sources() -> dict[str, str]:
    return {name: text for name, text in _sources().items() if _stage(name) == "commands"}


def test_commands_never_import_the_values_as_parsed() -> None:
    graph = _graph()
    found = {
        (name, target)
        for name, targets in graph.items()
        if _stage(name) == "commands"
        for target in targets & PARSED
    }
    assert found == set(), "give the command its request (`readmany.request`) instead"


def test_every_command_is_given_one_typed_request() -> None:
    sources = _command_sources()
    mains = [name for name, source in sources.items() if "\ndef main(" in source]
    assert len(mains) >= 7  # many, glob, hashline, edit, mcp, completions, man
    assert untyped_mains(sources) == []


def test_a_command_given_the_values_as_parsed_is_caught() -> None:
    found = untyped_mains(
        {
            "a": "def main(request: ManyRequest) -> int: ...",
            "b": "def main(options: Mapping[str, object]) -> int: ...",
            "c": "def main(values: dict[str, object]) -> int: ...",
            "d": "def main(given: Given) -> int: ...",
            "e": "def main(command, values) -> int: ...",
            "f": "def main(**values) -> int: ...",
            "g": "def main(request: None) -> int: ...",
        }
    )
    assert found == ["b:main", "c:main", "d:main", "e:main", "f:main"]
    graph = _graph()
    graph["readmany.commands.many"] = {*graph["readmany.commands.many"], "readmany.request.given"}
    assert ("readmany.commands.many", "readmany.request.given") in {
        (name, target) for name, targets in graph.items() for target in targets & PARSED
    }


def test_no_command_raises_a_usage_error() -> None:
    # A command line's mistakes are found while its request is made (`readmany.request`).
    found = [name for name, source in _command_sources().items() if "UsageError" in source]
    assert found == []
