"""`readmany edit`'s run, made from its command line: a target (`PATH#TAG`, or a pasted
`@file` line) with the edit options and their text, or a `--request` object; the root,
and what is shown (`--dry-run`, `--show`, `--json`)."""

from __future__ import annotations

import os
import sys

from readmany.edit.anchored import (
    APPEND,
    DELETE,
    INSERT_AFTER,
    INSERT_BEFORE,
    REPLACE,
    EditError,
    EditRequest,
    FileEdit,
    line_op,
    parse_request,
)
from readmany.edit.files import EditRun
from readmany.errors import UsageError
from readmany.request.given import Given
from readmany.request.inputs import current_directory, load_json
from readmany.select.boundary import secret_file_refusal, target_name


def edit_run(given: Given) -> EditRun:
    """The run of `readmany edit`."""
    target = given.text("target")
    request = given.text("request")
    content = given.text("content")
    content_file = given.text("content_file")
    dry_run, show = given.flag("dry_run"), given.flag("show")
    json_mode, quiet = given.flag("json_mode"), given.flag("quiet")
    root = given.text("root") or "."
    replace, delete = given.texts("replace"), given.texts("delete")
    insert_after, insert_before = given.texts("insert_after"), given.texts("insert_before")
    append = given.flag("append")
    cwd = current_directory()
    if not os.path.isdir(root):
        raise UsageError(f"--root {root!r} is not a directory")
    if dry_run and show:
        raise UsageError("--show shows a written file: leave it out with --dry-run")
    ops = [
        *((REPLACE, spec) for spec in replace or ()),
        *((DELETE, spec) for spec in delete or ()),
        *((INSERT_AFTER, spec) for spec in insert_after or ()),
        *((INSERT_BEFORE, spec) for spec in insert_before or ()),
        *([(APPEND, "")] if append else []),
    ]
    try:
        if request is not None:
            if target is not None or ops or content is not None or content_file is not None:
                raise UsageError(
                    "--request holds the whole edit: leave out PATH#TAG, the edit options "
                    "and --content"
                )
            value = parse_request(load_json(request))
        else:
            value = EditRequest((_command_line_edit(target, ops, content, content_file),))
    except EditError as error:
        raise UsageError(str(error)) from None
    if sys.stdout is None:
        raise UsageError("standard output is closed: redirect it")
    return EditRun(value, cwd, root, dry_run, show, json_mode, quiet)


def _command_line_edit(
    target: str | None, ops: list[tuple[str, str]], content: str | None, content_file: str | None
) -> FileEdit:
    if target is None:
        raise UsageError(
            "name the file as PATH#TAG (the @file line of `readmany hashline PATH`), "
            "or give --request FILE"
        )
    if not ops:
        raise UsageError(
            "no edit given: add --replace A[..B], --delete A[..B], --insert-after A, "
            "--insert-before A or --append"
        )
    # A pasted header row names the file as well: `@file src/a.py#TAG`, or the quoted
    # form a header gives an odd name, `@file "a\u2028b.py"#TAG` (a JSON string).
    path, hash_mark, tag = target.removeprefix("@file ").rpartition("#")
    if target.startswith('@file "') and hash_mark:
        path = _header_path(path)
    if not target.removeprefix("@file "):
        raise UsageError(
            "the target is empty: name the file as PATH#TAG, the tag from the @file line of "
            "`readmany hashline PATH`"
        )
    if hash_mark and not path:
        raise UsageError(
            f"{target!r} names no file before its tag: give PATH#TAG, as the @file line of "
            "`readmany hashline PATH` writes it"
        )
    if not hash_mark:
        raise UsageError(
            f"{target!r} is not PATH#TAG: add the tag from the @file line of "
            "`readmany hashline PATH`"
        )
    text = _content_text(content, content_file)
    if text is not None and all(op == DELETE for op, _ in ops):
        raise UsageError("--delete takes no text: leave out --content and --content-file")
    return FileEdit(path, tag, tuple(line_op(op, spec, text) for op, spec in ops))


def _header_path(shown: str) -> str:
    """The name a header's JSON string stands for (`frame.paths.quoted` reversed)."""
    import json

    try:
        path = json.loads(shown)
    except ValueError:
        path = None
    if not isinstance(path, str):
        raise UsageError(
            f"{shown} is not a quoted path as a header writes it: copy the whole @file line "
            "of `readmany hashline PATH`"
        )
    return path


def _content_text(content: str | None, content_file: str | None) -> str | None:
    if content is not None and content_file is not None:
        raise UsageError("give --content or --content-file, not both")
    if content is not None:
        try:
            content.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError("--content is not valid UTF-8") from None
        return content
    if content_file is None:
        return None
    from readmany.limits import EDIT_TEXT_MAX_BYTES
    from readmany.request.inputs import read_input

    credentials = _refuse_secret_content(content_file)
    data = read_input(content_file, "--content-file", EDIT_TEXT_MAX_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"--content-file {content_file}: not valid UTF-8") from None
    if credentials is not None:
        from readmany.read.guard import credentials_refusal

        refusal = credentials_refusal(content_file, credentials, text)
        if refusal is not None:
            raise UsageError(f"--content-file {refusal}")
    return text


def _refuse_secret_content(content_file: str) -> str | None:
    """Refuse a secret file by its name (or its link's target's) as the text of an edit:
    `--dry-run` would print it, and the edit would copy it into a file readmany reads.
    Returns the credentials name (`.npmrc`, `.pypirc`) whose text decides, or None."""
    if content_file == "-":
        return None
    from readmany.read.classify import credentials_name

    target = target_name(content_file)  # None: a link on the way cannot be followed
    refusal = secret_file_refusal(content_file, target)
    if refusal is not None or target is None:
        raise UsageError(f"--content-file {refusal}")
    return credentials_name(content_file) or credentials_name(target)
