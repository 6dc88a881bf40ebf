"""Arrays of a `--json` document that grow with the number of files, held as their text.

`glob --json` over 100,000 files names every file in its details, a few times over: held
as Python lists of dicts, and then as one JSON string, that was most of the run's memory.
A `JsonArray` encodes its items a batch at a time, as `json.dumps` would write them, and
keeps the text (in memory while it is short, then in an anonymous temporary file); the
sink copies that text into the document when it writes the details.
"""

from __future__ import annotations

from collections.abc import Iterator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

_BATCH = 256  # items encoded together (one `json.dumps` call a batch)
_IN_MEMORY = 1 << 18  # bytes of text kept in memory before the rest goes to a file
_READ = 1 << 16  # bytes a piece, when the text is written out


class _Array:
    """What both arrays share: `pieces()`, their JSON text; equal to a list of the same
    items (tests compare details with lists); shown by their items."""

    def pieces(self) -> Iterator[bytes]:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (_Array, list)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class JsonArray(_Array):
    """An append-only array, kept as JSON text (`pieces()`); reads back as its items."""

    def __init__(self) -> None:
        self._pending: list[Any] = []
        self._text: list[bytes] = []  # encoded batches, each `item, item, …`
        self._held = 0  # bytes in `_text`
        self._file: IO[bytes] | None = None
        self._count = 0

    def append(self, item: Any) -> None:
        self._pending.append(item)
        self._count += 1
        if len(self._pending) >= _BATCH:
            self._encode()

    def __len__(self) -> int:
        return self._count

    def _encode(self) -> None:
        from readmany.emit.sink import json_text

        if not self._pending:
            return
        text = json_text(self._pending)[1:-1]  # `[a, b]` -> `a, b`
        data = b", " + text if self._count > len(self._pending) else text
        self._pending = []
        self._text.append(data)
        self._held += len(data)
        if self._held > _IN_MEMORY:
            self._spill()

    def _spill(self) -> None:
        try:
            if self._file is None:
                from readmany.scratch import anonymous_file

                self._file = open(anonymous_file(), "w+b")  # noqa: SIM115 (open for the run)
            self._file.writelines(self._text)
        except OSError:
            return  # no room for a temporary file: the text stays in memory
        self._text, self._held = [], 0

    def pieces(self) -> Iterator[bytes]:
        """The array's JSON text (UTF-8), in pieces: `[`, the items, `]`."""
        yield b"["
        yield from self.item_pieces()
        yield b"]"

    def item_pieces(self) -> Iterator[bytes]:
        """The items' JSON text, `a, b, …`, in pieces."""
        self._encode()
        if self._file is not None:
            self._file.flush()
            self._file.seek(0)
            while piece := self._file.read(_READ):
                yield piece
            self._file.seek(0, 2)  # appending may go on
        yield from self._text

    def __iter__(self) -> Iterator[Any]:
        import json

        return iter(json.loads(b"".join(self.pieces())))


class JoinedArrays(_Array):
    """Arrays written as one, one after the other (`[*a, *b]`), without copying them."""

    def __init__(self, *arrays: JsonArray) -> None:
        self._arrays = arrays

    def __len__(self) -> int:
        return sum(len(array) for array in self._arrays)

    def pieces(self) -> Iterator[bytes]:
        yield b"["
        first = True
        for array in self._arrays:
            if not len(array):
                continue
            if not first:
                yield b", "
            first = False
            yield from array.item_pieces()
        yield b"]"

    def __iter__(self) -> Iterator[Any]:
        for array in self._arrays:
            yield from array
