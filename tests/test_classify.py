"""Classification of matched files, the binary sniff, MIME types and the asset gate."""

from __future__ import annotations

import pytest

from readmany.read.classify import (
    BINARY_EXTENSIONS,
    classify,
    extension,
    is_binary,
    kind_by_name,
    mime_type,
)
from readmany.select.patterns import RequestedAssets


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("a.ts", "text"),
        ("a.MTS", "text"),
        ("a.cts", "text"),
        ("icon.svg", "svg"),
        ("logo.png", "image"),
        ("photo.JPG", "image"),
        ("pic.gif", "image"),
        ("scan.bmp", "image"),  # the MIME type decides before the binary list
        ("manual.pdf", "pdf"),
        ("blob.dat", "binary"),
        ("x.wasm", "binary"),
        ("lib.a", "binary"),
    ],
)
def test_kind_decided_by_the_name(name: str, kind: str) -> None:
    assert kind_by_name(name) == kind
    assert classify(name, b"\0\0\0") == kind


@pytest.mark.parametrize("name", ["notes.txt", "Makefile", ".env", "a.mp3", "a.flac", "a.mp4"])
def test_content_decides_for_other_names(name: str) -> None:
    assert kind_by_name(name) is None


@pytest.mark.parametrize(
    ("name", "binary_kind"),
    [
        ("sound.mp3", "audio"),
        ("a.wav", "audio"),
        ("a.aiff", "audio"),
        ("a.aif", "audio"),
        ("a.flac", "audio"),
        ("a.aac", "audio"),
        ("a.ogg", "audio"),
        ("a.m4a", "audio"),
        ("clip.mp4", "video"),
        ("a.mov", "video"),
        ("a.webm", "video"),
        ("data.bin.txt", "binary"),
    ],
)
def test_audio_and_video_are_text_when_their_content_is(name: str, binary_kind: str) -> None:
    assert classify(name, b"this mp3 is actually text\n") == "text"
    assert classify(name, b"ID3\x03\x00\x00\x00") == binary_kind


def test_extension_is_lower_cased_and_dotfiles_have_none() -> None:
    assert extension("photo.JPG") == ".jpg"
    assert extension(".env") == ""
    assert extension("archive.tar.gz") == ".gz"
    assert extension("a.") == "."


def test_binary_list_is_the_reference_list() -> None:
    assert len(BINARY_EXTENSIONS) == 41
    assert {".svg", ".png", ".pdf", ".dat", ".wasm"} <= BINARY_EXTENSIONS


# --- the sniff (spec section 13, items 3 and 4) ---


def test_empty_is_text() -> None:
    assert is_binary(b"") is False


def test_nul_anywhere_in_the_first_8000_bytes_is_binary() -> None:
    assert is_binary(b"a" * 600 + b"\0tail\n") is True
    assert is_binary(b"a" * 7999 + b"\0") is True
    assert is_binary(b"a" * 8000 + b"\0") is False  # beyond the window


def test_pdf_signature_is_binary() -> None:
    assert is_binary(b"%PDF-1.4 pretend\n") is True
    assert is_binary(b" %PDF-1.4\n") is False


def test_control_characters_over_ten_percent_are_binary() -> None:
    assert is_binary(b"\x01" * 10 + b"a" * 90) is False  # exactly 10%
    assert is_binary(b"\x01" * 11 + b"a" * 89) is True
    assert is_binary(bytes(range(1, 7)) * 20 + b"\n") is True
    for byte in (0x01, 0x06, 0x0E, 0x1A, 0x1C, 0x1F, 0x7F):
        assert is_binary(bytes([byte]) * 2 + b"a"), hex(byte)


def test_tab_newlines_form_feed_and_escape_are_text() -> None:
    assert is_binary(b"\t\n\x0b\x0c\r\x1b" * 100) is False


def test_high_bytes_never_make_a_file_binary() -> None:
    assert is_binary("café crème\n".encode("latin-1")) is False
    assert is_binary(bytes(range(0x80, 0x100)) * 10) is False


@pytest.mark.parametrize(
    "bom",
    [b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"],
)
def test_byte_order_marks_are_text_even_with_nul_bytes(bom: bytes) -> None:
    assert is_binary(bom + "utf16 text\n".encode("utf-16-le")) is False


# --- MIME types ---


@pytest.mark.parametrize(
    ("name", "kind", "mime"),
    [
        ("logo.png", "image", "image/png"),
        ("photo.JPG", "image", "image/jpeg"),
        ("pic.gif", "image", "image/gif"),
        ("a.webp", "image", "image/webp"),
        ("manual.pdf", "pdf", "application/pdf"),
        ("clip.mp4", "video", "video/mp4"),
        ("a.mov", "video", "video/quicktime"),
        ("sound.mp3", "audio", "audio/mpeg"),
        ("a.wav", "audio", "audio/wav"),
        ("a.aif", "audio", "audio/aiff"),
        ("a.aiff", "audio", "audio/aiff"),
        ("a.flac", "audio", "audio/flac"),
        ("a.aac", "audio", "audio/aac"),
        ("a.ogg", "audio", "audio/ogg"),
        ("a.m4a", "audio", "audio/mp4"),
        ("a.unknown", "video", "application/octet-stream"),
    ],
)
def test_mime_types(name: str, kind: str, mime: str) -> None:
    assert mime_type(name, kind) == mime  # type: ignore[arg-type]


# --- the asset gate (spec section 13, item 7) ---


@pytest.mark.parametrize(
    ("patterns", "name", "requested"),
    [
        (["img/*.png"], "logo.png", True),
        (["img/*.PNG"], "logo.png", True),
        (["*.png"], "LOGO.PNG", True),
        (["img/logo.png"], "logo.png", True),
        (["img/logo.*"], "logo.png", True),
        (["img/photo.*"], "photo.JPG", True),
        (["img/*", "logo"], "logo.png", True),
        (["img/*", "logo"], "photo.JPG", False),
        (["img/*"], "logo.png", False),
        (["**"], "logo.png", False),
        (["img/"], "logo.png", False),
        (["img"], "logo.png", False),
        (["*.*"], "logo.png", False),
        (["img/*.jpg"], "logo.png", False),
        (["other.png"], "logo.png", False),
        (["logo*"], "logo.png", False),
        (["img/*.{png,jpg}"], "logo.png", True),
        (["img\\*.png"], "logo.png", True),
        (["media/*.mp4"], "clip.mp4", True),
        (["media/*"], "clip.mp4", False),
        (["l?go.png"], "logo.png", True),
        (["logo.p?g"], "logo.png", True),
        (["logo.txt"], "logo.png", False),
    ],
)
def test_asset_requested_by_name_or_extension(
    patterns: list[str], name: str, requested: bool
) -> None:
    assert RequestedAssets(patterns)(name) is requested


def test_requested_by_names_with_glob_characters() -> None:
    requested = RequestedAssets(["img/[id].png", "pics/photo (1).JPG"])
    assert requested("[id].png")  # names itself, although `[id]` is a class as a glob
    assert requested("photo (1).jpg")
    assert not requested("other.png")
