"""The tools as `tools/list` shows them (plain JSON Schema, as the references declare
their arguments), and the checking of a call's arguments against them: a bad one is
refused in one line that names the argument and what it takes.

No SDK and no pydantic here: the schemas are data, checked by the few rules they use.
"""

from __future__ import annotations

import json
from typing import Any

from readmany.limits import MANY_MAX_FILES, NO_LIMIT
from readmany.serve.config import LOG
from readmany.serve.roots import ToolFailed

MAX_TOKENS = {
    "type": "integer",
    "minimum": 1,
    "maximum": NO_LIMIT,  # past it, the budget's arithmetic overflows (10**400, 1e308)
    "description": "readmany's own: a budget of estimated tokens (o200k_base) for the "
    "whole result, in place of the 50 KB / 2000 lines limit, within the server's "
    "--max-tokens.",
}
PATTERNS = {"type": "array", "items": {"type": "string", "minLength": 1}}
SOME_PATTERNS = {**PATTERNS, "minItems": 1}
FILTERING = {
    "type": "object",
    "properties": {
        "respect_git_ignore": {"type": "boolean", "default": True},
        "respect_gemini_ignore": {"type": "boolean", "default": True},
    },
    "description": "Whether .gitignore and .geminiignore files are honoured.",
}
USE_DEFAULT_EXCLUDES = {
    "type": "boolean",
    "default": True,
    "description": "Leave out node_modules, .git, build output and the like.",
}

READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}

TOOLS: dict[str, dict[str, Any]] = {
    "read_many": {
        "description": (
            "Read 1 to 26 files in one call, each in a heredoc block, packed under one "
            "budget (50 KB / 2000 lines, or maxTokens); a cut file ends with the offset "
            "to continue from."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "files": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": MANY_MAX_FILES,
                    "description": "The files to read, in order.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {
                                "type": "string",
                                "description": "Relative (to the first root) or absolute.",
                            },
                            "offset": {"type": "number", "description": "1-based first line."},
                            "limit": {"type": "number", "description": "The most lines to read."},
                        },
                        "required": ["path"],
                    },
                },
                "stopOnError": {
                    "type": "boolean",
                    "default": False,
                    "description": "Stop after the first file that cannot be read.",
                },
                "maxTokens": MAX_TOKENS,
            },
            "required": ["files"],
        },
        "annotations": READ_ONLY,
    },
    "read_many_files": {
        "description": (
            "Read the files that glob patterns match in every root, honouring .gitignore "
            "and .geminiignore, concatenated with --- path --- separators; images and "
            "PDFs named explicitly come as image or resource content."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "include": {**SOME_PATTERNS, "description": "Glob patterns, in each root."},
                "exclude": {**PATTERNS, "description": "Glob patterns to leave out."},
                "recursive": {"type": "boolean", "default": True},
                "useDefaultExcludes": USE_DEFAULT_EXCLUDES,
                "file_filtering_options": FILTERING,
                "paths": {**SOME_PATTERNS, "description": "The same as include."},
                "maxTokens": MAX_TOKENS,
                "format": {
                    "type": "string",
                    "enum": ["text", "markdown", "xml"],
                    "default": "text",
                    "description": "readmany's own: the framing of the files.",
                },
            },
        },
        "annotations": READ_ONLY,
    },
    "read": {
        "description": (
            "Read one file as hashline: '@file path#TAG', then 'N#abc|line' for every line; "
            "the tag and anchors are what edit checks."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Relative (to the first root) or absolute.",
                },
                "offset": {"type": "integer", "minimum": 1, "description": "1-based first line."},
                "limit": {"type": "integer", "minimum": 1, "description": "Lines to show."},
            },
            "required": ["path"],
        },
        "annotations": READ_ONLY,
    },
    "context_stats": {
        "description": (
            "What the files that glob patterns match in every root cost, before reading "
            "them: a tree of bytes, lines and estimated tokens per file and directory, the "
            "most first; with maxTokens, what that budget would leave out or cut."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "include": {**SOME_PATTERNS, "description": "Glob patterns, in each root."},
                "exclude": {**PATTERNS, "description": "Glob patterns to leave out."},
                "useDefaultExcludes": USE_DEFAULT_EXCLUDES,
                "file_filtering_options": FILTERING,
                "maxTokens": MAX_TOKENS,
            },
            "required": ["include"],
        },
        "annotations": READ_ONLY,
    },
    "edit": {
        "description": (
            "Apply anchored edits to a file read with read: {path, hash (the tag), "
            "edits: [{from, to, content}]}; refused, nothing written, when the file "
            "changed since (stale). dryRun shows the diff and writes nothing."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The file, as read gave it."},
                "hash": {"type": "string", "description": "The file's tag, from read."},
                "edits": {
                    "type": "array",
                    "description": "Each replaces the lines from one anchor to another.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "from": {"type": "string"},
                            "to": {"type": "string"},
                            "content": {"type": "string"},
                        },
                    },
                },
                "dryRun": {"type": "boolean", "default": False},
            },
            "required": ["path", "hash", "edits"],
        },
        "annotations": {
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": False,
            "openWorldHint": False,
        },
    },
}

# Arguments the command checks itself, so that a bad one is refused in the CLI's words
# (`too many files: 27 given, at most 26 per call (files: must NOT have more than 26 items)`).
CHECKED_BY_THE_COMMAND = {
    ("read_many", "files"),
    ("read_many", "stopOnError"),
    ("edit", "edits"),
}


def listed(allow_edit: bool) -> list[dict[str, Any]]:
    """The tools as `tools/list` gives them: edit only with --allow-edit."""
    return [{"name": name, **tool} for name, tool in TOOLS.items() if allow_edit or name != "edit"]


def checked(name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The call's arguments, each checked against the tool's schema (a null counts as not
    given); a bad one raises ToolFailed in one line."""
    schema = TOOLS[name]["inputSchema"]
    properties: dict[str, Any] = schema["properties"]
    given = {key: value for key, value in (arguments or {}).items() if value is not None}
    for key in [key for key in given if key not in properties]:
        # The references take an argument they do not know and leave it (case
        # 48_extra_unknown_keys of many's conformance): so do the tools, and say so.
        LOG.warning("%s: argument %r left alone: it takes %s", name, key, ", ".join(properties))
        del given[key]
    for key in schema.get("required", ()):
        if key not in given:
            raise ToolFailed(f"{name}: give the argument {key} ({expected(properties[key])})")
    for key, value in given.items():
        if (name, key) not in CHECKED_BY_THE_COMMAND:
            _check(name, key, value, properties[key])
    return given


def _check(tool: str, where: str, value: Any, schema: dict[str, Any]) -> None:
    if not _fits(value, schema):
        raise ToolFailed(f"{tool}: {where}: expected {expected(schema)}, got {_shown(value)}")
    if "maximum" in schema and value > schema["maximum"]:
        said = f"expected {expected(schema)} and at most {schema['maximum']}"
        raise ToolFailed(f"{tool}: {where}: {said}, got {_shown(value)}")
    if schema["type"] == "array":
        for number, item in enumerate(value):
            _check(tool, f"{where}[{number}]", item, schema["items"])
    elif schema["type"] == "object":
        inner: dict[str, Any] = schema.get("properties", {})
        for key, item in value.items():
            if key not in inner:
                LOG.warning(
                    "%s: %s: key %r left alone: it takes %s", tool, where, key, ", ".join(inner)
                )
            elif item is not None:
                _check(tool, f"{where}.{key}", item, inner[key])


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    """Whether `value` has the schema's type and is within its bounds (not its items)."""
    kind = schema["type"]
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if kind == "integer" and not (isinstance(value, int) or value.is_integer()):
            return False
        return bool(value >= schema.get("minimum", value))
    if kind == "string":
        if not isinstance(value, str) or len(value) < schema.get("minLength", 0):
            return False
        return "enum" not in schema or value in schema["enum"]
    if kind == "array":
        return isinstance(value, list) and len(value) >= schema.get("minItems", 0)
    return isinstance(value, dict)


def expected(schema: dict[str, Any]) -> str:
    """What a schema takes, in words: `an integer of at least 1`, `a list of 1 or more
    non-empty strings`, `one of "text", "markdown", "xml"`."""
    kind = schema["type"]
    if kind == "boolean":
        return "true or false"
    if kind in ("integer", "number"):
        words = "an integer" if kind == "integer" else "a number"
        return f"{words} of at least {schema['minimum']}" if "minimum" in schema else words
    if kind == "string":
        if "enum" in schema:
            return "one of " + ", ".join(json.dumps(choice) for choice in schema["enum"])
        return "a non-empty string" if schema.get("minLength") else "a string"
    if kind == "array":
        least = schema.get("minItems", 0)
        item = expected(schema["items"])
        plural = item.removeprefix("an ").removeprefix("a ") + "s"
        if item.startswith("an object"):
            plural = "objects"
        return f"a list of {least} or more {plural}" if least else f"a list of {plural}"
    keys = ", ".join(schema.get("properties", {}))
    return f"an object with {keys}" if keys else "an object"


def _shown(value: Any) -> str:
    """The value a call gave, in JSON, cut to stay one short line."""
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."
