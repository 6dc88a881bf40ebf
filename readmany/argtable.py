"""The command-line table of the fast path, generated from the Typer app: do not edit.

Regenerate with `python scripts/generate_docs.py`; a test fails when it is stale.
Per command: positional arguments (name, kind, required), options (flag: name, kind,
minimum) and the defaults of the command function.
"""

from __future__ import annotations

ARGUMENTS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "many": (("files", "list", False),),
    "glob": (("patterns", "list", False),),
    "hashline": (("file", "str", True),),
}

OPTIONS: dict[str, dict[str, tuple[str, str, int | None]]] = {
    "many": {
        "--request": ("request", "str", None),
        "--stop-on-error": ("stop_on_error", "flag", None),
        "--max-bytes": ("max_bytes", "size", None),
        "--max-lines": ("max_lines", "int", 1),
        "--max-tokens": ("max_tokens", "str", None),
        "--stdin": ("stdin", "flag", None),
        "-0": ("null", "flag", None),
        "--null": ("null", "flag", None),
        "--compat": ("compat", "flag", None),
        "--json": ("json_mode", "flag", None),
        "--output": ("output", "str", None),
        "-o": ("output", "str", None),
        "--quiet": ("quiet", "flag", None),
        "-q": ("quiet", "flag", None),
        "--copy": ("copy", "flag", None),
    },
    "glob": {
        "--include": ("include", "list", None),
        "--exclude": ("exclude", "list", None),
        "--no-default-excludes": ("no_default_excludes", "flag", None),
        "--no-gitignore": ("no_gitignore", "flag", None),
        "--ignore-file": ("ignore_file", "list", None),
        "--no-recursive": ("no_recursive", "flag", None),
        "--root": ("root", "str", None),
        "--absolute": ("absolute", "flag", None),
        "--stdin": ("stdin", "flag", None),
        "-0": ("null", "flag", None),
        "--null": ("null", "flag", None),
        "--compat": ("compat", "flag", None),
        "--json": ("json_mode", "flag", None),
        "--output": ("output", "str", None),
        "-o": ("output", "str", None),
        "--quiet": ("quiet", "flag", None),
        "-q": ("quiet", "flag", None),
        "--copy": ("copy", "flag", None),
    },
    "hashline": {
        "--offset": ("offset", "int", 1),
        "--limit": ("limit", "int", 1),
        "--compat": ("compat", "flag", None),
        "--json": ("json_mode", "flag", None),
        "--output": ("output", "str", None),
        "-o": ("output", "str", None),
        "--quiet": ("quiet", "flag", None),
        "-q": ("quiet", "flag", None),
        "--copy": ("copy", "flag", None),
    },
}

DEFAULTS: dict[str, dict[str, object]] = {
    "many": {
        "files": None,
        "request": None,
        "stop_on_error": False,
        "max_bytes": None,
        "max_lines": None,
        "max_tokens": None,
        "stdin": False,
        "null": False,
        "compat": False,
        "json_mode": False,
        "output": None,
        "quiet": False,
        "copy": False,
    },
    "glob": {
        "patterns": None,
        "include": None,
        "exclude": None,
        "no_default_excludes": False,
        "no_gitignore": False,
        "ignore_file": None,
        "no_recursive": False,
        "root": ".",
        "absolute": False,
        "stdin": False,
        "null": False,
        "compat": False,
        "json_mode": False,
        "output": None,
        "quiet": False,
        "copy": False,
    },
    "hashline": {
        "offset": None,
        "limit": None,
        "compat": False,
        "json_mode": False,
        "output": None,
        "quiet": False,
        "copy": False,
    },
}
