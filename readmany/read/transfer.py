"""A read result as plain tuples and back: how it travels down the look-ahead's pipe.

The helper process of the look-ahead (`select/lookahead.py`) sends what it read with
`marshal`, which takes plain tuples, strings and numbers only. The result types are
imported when first needed: this module is imported before the fork and kept light.
A packed result's first item says its kind: "t" a text, "b" a text kept as its bytes
(`TextFile.data`), "a" an asset, "k" a skip, "f" a
failed read, "m" a file measured for `--stats`.
"""

from __future__ import annotations

import functools

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from readmany.read.glob_file import (
        AssetFile,
        Failed,
        MatchedRead,
        MeasuredFile,
        Skipped,
        TextFile,
    )
    from readmany.read.text import TextRead, Whole


@functools.cache
def _result_types() -> tuple[
    type[TextFile], type[TextRead], type[AssetFile], type[Skipped], type[Failed], type[MeasuredFile]
]:
    """The read stage's result types, imported once (an import statement a file costs µs)."""
    from readmany.read.glob_file import AssetFile, Failed, MeasuredFile, Skipped, TextFile
    from readmany.read.text import TextRead

    return TextFile, TextRead, AssetFile, Skipped, Failed, MeasuredFile


@functools.cache
def _whole_type() -> type[Whole]:
    from readmany.read.text import Whole

    return Whole


def pack_result(result: MatchedRead | MeasuredFile) -> tuple[Any, ...]:
    TextFile, _, AssetFile, Skipped, Failed, MeasuredFile = _result_types()
    if isinstance(result, MeasuredFile):
        return ("m", *result)
    if isinstance(result, TextFile):
        if result.data is not None:
            return ("b", result.kind, result.data, result.size)
        text = result.text
        whole = tuple(result.whole) if result.whole is not None else None
        return ("t", result.kind, *text, result.size, result.weight, result.cost, whole)
    if isinstance(result, AssetFile):
        return ("a", result.kind, result.mime_type, result.data, result.size)
    if isinstance(result, Skipped):
        return ("k", result.reason, result.category)
    if isinstance(result, Failed):
        return ("f", *result)
    raise TypeError(f"not a read result: {result!r}")


def packed_size(packed: tuple[Any, ...]) -> int:
    """About how many bytes a packed result holds."""
    if packed[0] in ("t", "b"):
        return len(packed[2])  # the text, or its bytes
    if packed[0] == "a":
        return len(packed[3])  # the base64 data
    return 0


def unpack_result(packed: tuple[Any, ...]) -> MatchedRead | MeasuredFile:
    TextFile, TextRead, AssetFile, Skipped, Failed, MeasuredFile = _result_types()
    tag = packed[0]
    if tag == "m":
        return MeasuredFile(*packed[1:])
    if tag == "t":
        size, weight, cost, whole = packed[-4:]
        held = _whole_type()(*whole) if whole is not None else None
        return TextFile(packed[1], TextRead(*packed[2:-4]), size, weight, cost, held)
    if tag == "b":
        from readmany.read.glob_file import AS_READ

        return TextFile(packed[1], AS_READ, packed[3], data=packed[2])
    if tag == "a":
        return AssetFile(packed[1], packed[2], packed[3], packed[4])
    if tag == "k":
        return Skipped(packed[1], packed[2])
    return Failed(*packed[1:])
