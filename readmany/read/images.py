"""Image detection by content, as the read tool does it: PNG, JPEG, GIF and WebP.

An animated PNG is not an image here (the tool sees `image/apng`, which it does not
support, and reads the file as text).
"""

from __future__ import annotations

import struct

from readmany.limits import IMAGE_MAX_SIDE

IMAGE_SNIFF_BYTES = 4100
MAX_SIDE = IMAGE_MAX_SIDE


def sniff_image(head: bytes) -> str | None:
    """The MIME type of a supported image, judged by its first bytes, or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png_kind(head)
    if head.startswith(b"\xff\xd8\xff"):
        return None if head[3:4] == b"\xf7" else "image/jpeg"
    if head.startswith(b"GIF"):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _png_kind(head: bytes) -> str | None:
    position = 8
    while True:
        if position + 8 > len(head):
            return "image/png"
        length, kind = struct.unpack(">i4s", head[position : position + 8])
        if length < 0:
            return None
        if kind == b"IDAT":
            return "image/png"
        if kind == b"acTL":
            return None
        position += 8 + length + 4
        if position + 8 >= len(head):
            return "image/png"


def dimensions(head: bytes, mime: str) -> tuple[int, int] | None:
    """Width and height where the header says them within the sniffed bytes."""
    if mime == "image/png" and len(head) >= 24 and head[12:16] == b"IHDR":
        width, height = struct.unpack(">II", head[16:24])
        return width, height
    if mime == "image/gif" and len(head) >= 10:
        width, height = struct.unpack("<HH", head[6:10])
        return width, height
    return None


def resize_note(head: bytes, mime: str, size: int) -> str:
    """The tool's note for an image it would shrink to 2000 by 2000 px, else "".

    Only the side limit is modelled; an image over 4.5 MB would also be re-encoded,
    which depends on the encoder, so no note is given for that alone.
    """
    dims = dimensions(head, mime)
    if dims is None:
        return ""
    width, height = dims
    if width <= MAX_SIDE and height <= MAX_SIDE:
        return ""
    new_width, new_height = width, height
    if new_width > MAX_SIDE:
        new_height = _round_half_up(new_height * MAX_SIDE / new_width)
        new_width = MAX_SIDE
    if new_height > MAX_SIDE:
        new_width = _round_half_up(new_width * MAX_SIDE / new_height)
        new_height = MAX_SIDE
    factor = f"{width / new_width:.2f}"
    return (
        f"[Image: original {width}x{height}, displayed at {new_width}x{new_height}. "
        f"Multiply coordinates by {factor} to map to original image.]"
    )


def _round_half_up(value: float) -> int:
    return int(value + 0.5)
