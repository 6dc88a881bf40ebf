"""The request of `readmany many` and what both its faces write from it: the request
values, the blocks joined, a file's `--json` record. Both `many` and `many_default` use
it, so neither imports the other back."""

from __future__ import annotations

from collections.abc import Sequence

from readmany.emit.sink import Sink
from readmany.faces import Face
from readmany.frame import weigh
from readmany.pack import SEPARATOR, Budget
from readmany.read.line_range import Number, ToolRead
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.frame.heredoc import Block
    from readmany.pack import Block as Packed


class FileRequest(NamedTuple):
    path: str
    offset: Number | None = None
    limit: Number | None = None
    literal: bool = False  # from --stdin: never rewritten, whatever the face
    root: str | None = None  # a directory it was judged to lie in: opened beneath it


class BudgetAsked(NamedTuple):
    """The budget options as given on the command line (None: not given)."""

    max_bytes: int | None = None
    max_lines: int | None = None
    max_tokens: int | None = None


class ManyRequest(NamedTuple):
    files: tuple[FileRequest, ...]
    stop_on_error: bool = False
    budget: Budget = Budget()
    cwd: str = "."
    face: Face = Face.reference()
    asked: BudgetAsked = BudgetAsked()
    secrets: str = "off"  # --secrets: off, warn, skip or redact
    # A directory every file was judged to lie in (the MCP tools' root): each is opened
    # beneath it (`read_tool`'s `root`), never by its name alone. None: by name.
    root: str | None = None


def write_blocks(sink: Sink, shown: Sequence[Packed]) -> None:
    """The blocks shown, joined by `SEPARATOR`; each weighed as a budget of tokens weighs
    it (frame and body apart), where the sink counts tokens."""
    for number, block in enumerate(shown):
        tokens = None
        if sink.weigh:
            tokens = block.tokens + (weigh(SEPARATOR) if number else 0.0)
        sink.write_all((SEPARATOR, block.text) if number else (block.text,), tokens)


def file_detail(
    request: FileRequest, result: ToolRead, block: Block, *, weigh: bool
) -> dict[str, Any]:
    """A file's record of `--json` details; its tokens are weighed only with `weigh` (the
    details are written), else they are 0."""
    detail: dict[str, Any] = {"path": request.path, "ok": result.ok}
    if result.error is not None:
        detail["error"] = result.error
    else:
        detail["imageCount"] = result.image_count
        if result.truncation is not None:
            detail["truncation"] = result.truncation.as_json()
    detail["bytes"] = block.bytes
    detail["lines"] = block.lines
    detail["estimatedTokens"] = round(block.tokens) if weigh else 0
    return detail
