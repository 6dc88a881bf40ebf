"""The read tool: offsets, limits, caps, notices, errors, images, bounded memory."""

from __future__ import annotations

import os
import socket
import struct
import zlib
from pathlib import Path

import pytest
from helpers import scaled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readmany.read import line_range
from readmany.read.images import sniff_image
from readmany.read.line_range import format_size, js_number, read_tool, truncate_head


def write(tmp_path: Path, name: str, data: bytes | str) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return name


def png(width: int, height: int, animated: bool = False) -> bytes:
    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)
        return struct.pack(">I", len(payload)) + kind + payload + crc

    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
    actl = chunk(b"acTL", b"\0\0\0\1\0\0\0\0") if animated else b""
    return (
        b"\x89PNG\r\n\x1a\n"
        + ihdr
        + actl
        + chunk(b"IDAT", zlib.compress(b"\0"))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    ("size", "text"),
    [(0, "0B"), (1023, "1023B"), (1024, "1.0KB"), (51200, "50.0KB"), (60008, "58.6KB"),
     (1048576, "1.0MB"), (1572864, "1.5MB")],
)  # fmt: skip
def test_format_size(size: int, text: str) -> None:
    assert format_size(size) == text


def test_js_number() -> None:
    assert [js_number(v) for v in (3, 3.0, 2.5, -1, 0.1)] == ["3", "3", "2.5", "-1", "0.1"]


def test_whole_file_keeps_bom_and_cr(tmp_path: Path) -> None:
    write(tmp_path, "f", b"\xef\xbb\xbfa\r\nb\x80\n")
    assert read_tool("f", None, None, str(tmp_path)).text == "\ufeffa\r\nb\ufffd\n"


def test_limit_notice_counts_the_phantom_last_line(tmp_path: Path) -> None:
    write(tmp_path, "f", "a\nb\nc\n")
    result = read_tool("f", 2, 1, str(tmp_path))
    assert result.text == "b\n\n[2 more lines in file. Use offset=3 to continue.]"


def test_offset_beyond_end_and_at_the_phantom_line(tmp_path: Path) -> None:
    write(tmp_path, "f", "a\n")
    assert read_tool("f", 3, None, str(tmp_path)).error == (
        "Offset 3 is beyond end of file (2 lines total)"
    )
    assert read_tool("f", 2, None, str(tmp_path)).text == ""


def test_line_cap_notice(tmp_path: Path) -> None:
    write(tmp_path, "f", "".join(f"{n}\n" for n in range(2500)))
    result = read_tool("f", None, None, str(tmp_path))
    assert result.text.endswith(
        "1999\n\n[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]"
    )
    assert result.truncation is not None and result.truncation.truncated_by == "lines"


def test_byte_cap_notice(tmp_path: Path) -> None:
    write(tmp_path, "f", ("x" * 99 + "\n") * 600)
    result = read_tool("f", 10, None, str(tmp_path))
    assert result.text.endswith(
        "\n\n[Showing lines 10-521 of 601 (50.0KB limit). Use offset=522 to continue.]"
    )


def test_first_line_too_long(tmp_path: Path) -> None:
    write(tmp_path, "d/f", "é" * 30000 + "\nok")
    result = read_tool("d/f", None, None, str(tmp_path))
    assert result.text == (
        "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' d/f | head -c 51200]"
    )


def test_errors(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    write(tmp_path, "file", "x")
    cwd = str(tmp_path)
    assert read_tool("missing", None, None, cwd).error == (
        f"ENOENT: no such file or directory, access '{tmp_path}/missing'"
    )
    assert read_tool("dir", None, None, cwd).error == (
        "EISDIR: illegal operation on a directory, read"
    )
    assert read_tool("", None, None, cwd).error == "EISDIR: illegal operation on a directory, read"
    assert read_tool("file/x", None, None, cwd).error == (
        f"ENOTDIR: not a directory, access '{tmp_path}/file/x'"
    )
    os.symlink("loop", tmp_path / "loop")
    assert read_tool("loop", None, None, cwd).error == (
        f"ELOOP: too many symbolic links encountered, access '{tmp_path}/loop'"
    )


def test_special_files_are_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    assert read_tool("fifo", None, None, str(tmp_path)).error == (
        f"Not a regular file (FIFO), refusing to read: {tmp_path}/fifo"
    )
    assert read_tool("/dev/zero", None, None, "/").error == (
        "Not a regular file (character device), refusing to read: /dev/zero"
    )
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        assert "(socket)" in (read_tool("sock", None, None, str(tmp_path)).error or "")


def test_path_spellings(tmp_path: Path) -> None:
    write(tmp_path, "a b.txt", "x")
    assert read_tool("@a\u00a0b.txt", None, None, str(tmp_path)).text == "x"


def test_images_by_content(tmp_path: Path) -> None:
    write(tmp_path, "pic.txt", png(1, 1))
    write(tmp_path, "wide.png", png(2500, 4))
    write(tmp_path, "anim.png", png(1, 1, animated=True))
    cwd = str(tmp_path)
    assert read_tool("pic.txt", None, None, cwd).text == "Read image file [image/png]"
    assert read_tool("wide.png", None, None, cwd).text == (
        "Read image file [image/png]\n[Image: original 2500x4, displayed at 2000x3. "
        "Multiply coordinates by 1.25 to map to original image.]"
    )
    animated = read_tool("anim.png", None, None, cwd)
    assert animated.image_count == 0 and animated.text.startswith("\ufffdPNG")


@pytest.mark.parametrize(
    ("head", "mime"),
    [(b"\xff\xd8\xff\xe0", "image/jpeg"), (b"\xff\xd8\xff\xf7", None), (b"GIF89a", "image/gif"),
     (b"RIFF\0\0\0\0WEBPVP8 ", "image/webp"), (b"%PDF-1.4", None), (b"", None)],
)  # fmt: skip
def test_sniff_image(head: bytes, mime: str | None) -> None:
    assert sniff_image(head) == mime


def test_truncate_head_record() -> None:
    record = truncate_head("a\nbb\nccc", max_lines=2, max_bytes=100)
    assert record.content == "a\nbb"
    assert (record.truncated, record.truncated_by, record.output_lines) == (True, "lines", 2)
    assert (record.total_lines, record.total_bytes, record.output_bytes) == (3, 8, 4)


def test_newer_tool_does_not_count_the_trailing_empty_line(tmp_path: Path) -> None:
    write(tmp_path, "f", "x\n" * 2000)
    assert read_tool("f", None, None, str(tmp_path), count_trailing_empty=False).text == (
        "x\n" * 2000
    )
    assert "[Showing lines 1-2000 of 2001." in read_tool("f", None, None, str(tmp_path)).text


line_text = st.text(alphabet=st.sampled_from("ab é\r\x00😀"), max_size=8)
file_bytes = st.one_of(
    st.lists(line_text, max_size=12).map(lambda ls: "\n".join(ls).encode()),
    st.binary(max_size=64).map(lambda b: b.replace(b"\x01", b"\n")),
)
numbers = st.one_of(st.none(), st.integers(-3, 15), st.sampled_from([0.5, 2.5, -1.5]))


@pytest.mark.slow
@settings(
    max_examples=scaled(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=file_bytes, offset=numbers, limit=numbers)
def test_streamed_read_equals_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, offset: float | None,
    limit: float | None,
) -> None:  # fmt: skip
    (tmp_path / "f").write_bytes(data)
    whole = read_tool("f", offset, limit, str(tmp_path))
    monkeypatch.setattr(line_range, "WHOLE_FILE_LIMIT", -1)
    monkeypatch.setattr(line_range, "CHUNK", 3)
    streamed = read_tool("f", offset, limit, str(tmp_path))
    monkeypatch.undo()
    assert streamed == whole


@pytest.mark.parametrize(("offset", "limit"), [(None, None), (3, 5), (1500, None), (1, 3000)])
def test_streamed_caps_equal_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offset: int | None, limit: int | None
) -> None:
    lines = [("y" * (n % 97)) + ("é" if n % 5 else "\udc80") for n in range(3000)]
    lines[1700] = "z" * 70000
    (tmp_path / "f").write_bytes("\n".join(lines).encode("utf-8", "surrogateescape"))
    whole = read_tool("f", offset, limit, str(tmp_path))
    monkeypatch.setattr(line_range, "WHOLE_FILE_LIMIT", -1)
    monkeypatch.setattr(line_range, "CHUNK", 1000)
    assert read_tool("f", offset, limit, str(tmp_path)) == whole


def test_read_all_stops_at_the_size_it_was_opened_with(tmp_path: Path) -> None:
    from readmany.read.safe import open_regular, read_all

    path = tmp_path / "log"
    path.write_bytes(b"first\n")
    fd, st = open_regular(str(path))
    try:
        with open(path, "ab") as handle:
            handle.write(b"written later\n")
        assert read_all(fd, st.st_size) == b"first\n"
    finally:
        os.close(fd)
