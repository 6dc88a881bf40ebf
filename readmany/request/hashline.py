"""`readmany hashline`'s request, made from its command line: the file, the window of
lines, `--secrets` (never redact: the anchors stand for the exact bytes), and `-o`
checked against the file read."""

from __future__ import annotations

from readmany.choices import Secrets
from readmany.emit.render import Presentation
from readmany.faces import Face
from readmany.record import NamedTuple
from readmany.request.given import Given, presentation_of, secrets_of


class HashlineRequest(NamedTuple):
    """What one hashline read shows, and where."""

    path: str  # as given on the command line; shown in the header
    offset: int | None = None  # 1-based first line
    limit: int | None = None
    face: Face = Face.reference()
    secrets: Secrets = Secrets.OFF  # off, warn or skip (redact would change the anchors)
    # A directory the path was judged to lie in (the MCP tool's root): the file is opened
    # beneath it (`read.safe.open_beneath`), never by its name alone. None: by name.
    root: str | None = None
    presentation: Presentation = Presentation()  # where the content goes, from the CLI


def hashline_request(given: Given) -> HashlineRequest:
    """The request of `readmany hashline`."""
    value = HashlineRequest(
        given.text("file") or "",
        given.number("offset"),
        given.number("limit"),
        Face.reference() if given.flag("compat") else Face.people(),
        secrets_of(given, redact=False),
        presentation=presentation_of(given),
    )
    output = given.text("output")
    if output is not None and value.path:
        import os

        from readmany.emit.target import named_input_check
        from readmany.read.line_range import resolve_path

        cwd = os.getcwd()
        named_input_check(output, cwd)(
            value.path, resolve_path(value.path, cwd, rewrite=value.face.rewrite_paths)
        )
    return value
