"""The import rules of the stages, checked from the code.

The stages run select → read → frame → pack → emit, and the commands wire them: a stage
never imports one that comes after it or the commands, `pack` is given what it needs
rather than importing `read` or `frame`, and no module imports itself back through others.
Every import counts, those made lazily inside a function and those for type checking alike.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "readmany"

# Stage -> the packages it must not import.
FORBIDDEN = {
    "select": {"read", "frame", "pack", "emit", "commands"},
    "read": {"frame", "pack", "emit", "commands"},
    "frame": {"pack", "emit", "commands"},
    "pack": {"read", "frame", "emit", "commands"},
    "emit": {"commands"},
}

# Known debts: imports that break a rule today, each (importer, imported). The list can
# only shrink: a new rule-breaking import fails the test, and so does an entry that is
# no longer needed.
ALLOWED = {
    # A cycle: the server imports `ServerConfig` from the command that starts it (lazily,
    # once the SDK is known to be installed); the config is to move below both.
    ("readmany.commands.mcp_tools", "readmany.commands.mcp"),
    # select reads contents: the work-tree side of `--with-diff` is read beneath the root
    # (read.safe) and a left-out file's line is headed as frames head it (frame.paths);
    # that diff is to move to read/.
    ("readmany.select.git", "readmany.read.safe"),
    ("readmany.select.git", "readmany.frame.paths"),
    # A cycle: the global excludes file is read with the ignore files' own reader, and the
    # ignore stack asks gitconfig for its path (lazily); the reader is to move below both.
    ("readmany.select.gitconfig", "readmany.select.ignore"),
}


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
    graph["readmany.pack"] = {*graph["readmany.pack"], "readmany.read.tool"}
    graph["readmany.emit.render"] = {*graph["readmany.emit.render"], "readmany.commands"}
    assert upward_imports(_without_allowed(graph)) == {
        ("readmany.pack", "readmany.read.tool"),
        ("readmany.emit.render", "readmany.commands"),
    }
    graph["readmany.commands.many_request"] = {
        *graph["readmany.commands.many_request"],
        "readmany.commands.many",
    }
    assert cycles(_without_allowed(graph)) == [
        ["readmany.commands.many", "readmany.commands.many_request"]
    ]
