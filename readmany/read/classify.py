"""What a matched file is: text, SVG, image, PDF, audio, video or binary.

The rules run in a fixed order: TypeScript names are text; `.svg` is SVG; the MIME type
of the extension decides images, PDFs, and audio or video (those only when the content
is binary, else they are text); a few more audio extensions; the list of binary
extensions; and last a look at the first bytes. Images, PDFs, audio and video are
*assets*: read only when a pattern asks for them by name or extension.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

if TYPE_CHECKING:
    Kind = Literal["text", "svg", "image", "pdf", "audio", "video", "binary"]
else:
    Kind = str  # the same strings, without importing typing
ASSET_KINDS: frozenset[Kind] = frozenset(("image", "pdf", "audio", "video"))

BINARY_SNIFF_BYTES = 8000  # git's window for telling binary from text

# Files whose text decides whether they are secret (`read.secrets.holds_credentials`):
# names a file ends with, for `str.endswith`.
CREDENTIAL_FILES = (".npmrc", ".pypirc")


def credentials_name(path: str) -> str | None:
    """`.npmrc` or `.pypirc` when the last part of `path` is one, case, trailing dots and
    spaces ignored (as secret names are: a file system may fold case); else None."""
    name = path.rpartition("/")[2].rstrip(". ").lower()
    return name if name in CREDENTIAL_FILES else None


_TYPESCRIPT = frozenset((".ts", ".mts", ".cts"))  # not MPEG transport streams
_AUDIO_EXTENSIONS = frozenset((".mp3", ".wav", ".aiff", ".aif", ".aac", ".ogg", ".flac"))
BINARY_EXTENSIONS = frozenset(
    [
        ".7z",
        ".a",
        ".bin",
        ".bmp",
        ".bz2",
        ".class",
        ".dat",
        ".dll",
        ".doc",
        ".docx",
        ".dylib",
        ".exe",
        ".gif",
        ".gz",
        ".jar",
        ".jpeg",
        ".jpg",
        ".lib",
        ".o",
        ".obj",
        ".odp",
        ".ods",
        ".odt",
        ".pak",
        ".pdf",
        ".png",
        ".ppt",
        ".pptx",
        ".pyc",
        ".pyo",
        ".rar",
        ".rpa",
        ".so",
        ".svg",
        ".tar",
        ".war",
        ".wasm",
        ".webp",
        ".xls",
        ".xlsx",
        ".zip",
    ]
)


def _table(entries: dict[str, str]) -> dict[str, str]:
    return {f".{ext}": mime for mimes, mime in entries.items() for ext in mimes.split()}


# The image, audio, video and PDF types of the `mime/lite` database, by extension.
_MIME_BY_EXTENSION = _table(
    {
        "exr": "image/aces",
        "apng": "image/apng",
        "avci": "image/avci",
        "avcs": "image/avcs",
        "avif": "image/avif",
        "bmp dib": "image/bmp",
        "cgm": "image/cgm",
        "drle": "image/dicom-rle",
        "dpx": "image/dpx",
        "emf": "image/emf",
        "fits": "image/fits",
        "g3": "image/g3fax",
        "gif": "image/gif",
        "heic": "image/heic",
        "heics": "image/heic-sequence",
        "heif": "image/heif",
        "heifs": "image/heif-sequence",
        "hej2": "image/hej2k",
        "hsj2": "image/hsj2",
        "ief": "image/ief",
        "jls": "image/jls",
        "jp2 jpg2": "image/jp2",
        "jpeg jpg jpe jfif": "image/jpeg",
        "jph": "image/jph",
        "jhc": "image/jphc",
        "jpm jpgm": "image/jpm",
        "jpx jpf": "image/jpx",
        "jxr": "image/jxr",
        "jxra": "image/jxra",
        "jxrs": "image/jxrs",
        "jxs": "image/jxs",
        "jxsc": "image/jxsc",
        "jxsi": "image/jxsi",
        "jxss": "image/jxss",
        "ktx": "image/ktx",
        "ktx2": "image/ktx2",
        "png": "image/png",
        "sgi": "image/sgi",
        "svg svgz": "image/svg+xml",
        "t38": "image/t38",
        "tif tiff": "image/tiff",
        "tfx": "image/tiff-fx",
        "webp": "image/webp",
        "wmf": "image/wmf",
        "adp": "audio/adpcm",
        "amr": "audio/amr",
        "au snd": "audio/basic",
        "mid midi kar rmi": "audio/midi",
        "mxmf": "audio/mobile-xmf",
        "m4a mp4a": "audio/mp4",
        "mpga mp2 mp2a mp3 m2a m3a": "audio/mpeg",
        "oga ogg spx opus": "audio/ogg",
        "s3m": "audio/s3m",
        "sil": "audio/silk",
        "wav": "audio/wav",
        "weba": "audio/webm",
        "xm": "audio/xm",
        "adts aac": "audio/aac",
        "3gp 3gpp": "video/3gpp",
        "3g2": "video/3gpp2",
        "h261": "video/h261",
        "h263": "video/h263",
        "h264": "video/h264",
        "m4s": "video/iso.segment",
        "jpgv": "video/jpeg",
        "mj2 mjp2": "video/mj2",
        "ts": "video/mp2t",
        "mp4 mp4v mpg4": "video/mp4",
        "mpeg mpg mpe m1v m2v": "video/mpeg",
        "ogv": "video/ogg",
        "qt mov": "video/quicktime",
        "webm": "video/webm",
        "pdf": "application/pdf",
    }
)

_AUDIO_MIME = _table(
    {
        "mp3": "audio/mpeg",
        "wav": "audio/wav",
        "aiff aif": "audio/aiff",
        "aac": "audio/aac",
        "ogg": "audio/ogg",
        "flac": "audio/flac",
    }
)

_TEXT_BOMS = (
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\xfe\xff",
    b"\x00\x00\xfe\xff",
    b"\x84\x31\x95\x33",  # GB18030
)
# Control characters that do not occur in text: all but tab, LF, VT, FF, CR and ESC.
_CONTROL_BYTES = bytes((*range(0x01, 0x07), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F))


def extension(name: str) -> str:
    """The lower-cased extension with its dot (`.png`), or "" (`.env` has none).

    As `os.path.splitext` has it: leading dots start no extension.
    """
    dot = name.rfind(".")
    if dot <= 0 or len(name) - len(name.lstrip(".")) > dot:
        return ""
    return name[dot:].lower()


def kind_by_name(name: str) -> Kind | None:
    """The kind the name alone decides, or None when the content must be looked at."""
    return kinds_by_name(name)[0]


def kinds_by_name(name: str, *, sniff_typescript: bool = False) -> tuple[Kind | None, Kind]:
    """What the name says: the kind it decides (or None), and the kind of the file if
    its content turns out binary (audio, video or binary; else it is text).

    `sniff_typescript`: a `.ts` name decides nothing (the default face): an MPEG
    transport stream is binary by its content, as any other file is."""
    ext = extension(name)
    if sniff_typescript and ext in _TYPESCRIPT:
        return None, "binary"
    kinds = _KINDS_BY_EXTENSION.get(ext)
    if kinds is None:
        kinds = _KINDS_BY_EXTENSION[ext] = (_decided_by(ext), _binary_kind(ext))
    return kinds


_KINDS_BY_EXTENSION: dict[str, tuple[Kind | None, Kind]] = {}


def _decided_by(ext: str) -> Kind | None:
    if ext in _TYPESCRIPT:
        return "text"
    if ext == ".svg":
        return "svg"
    mime = _MIME_BY_EXTENSION.get(ext, "")
    if mime.startswith("image/"):
        return "image"
    if mime == "application/pdf":
        return "pdf"
    if mime.startswith(("audio/", "video/")) or ext in _AUDIO_EXTENSIONS:
        return None
    if ext in BINARY_EXTENSIONS:
        return "binary"
    return None


def classify(name: str, head: bytes) -> Kind:
    """The kind of a file named `name` whose first bytes (up to BINARY_SNIFF_BYTES) are `head`."""
    return kind_by_name(name) or kind_by_content(name, head)


def kind_by_content(name: str, head: bytes) -> Kind:
    """The kind of a file whose name alone did not decide (`kind_by_name` said None)."""
    return kinds_by_name(name)[1] if is_binary(head) else "text"


def _binary_kind(ext: str) -> Kind:
    mime = _MIME_BY_EXTENSION.get(ext, "")
    if mime.startswith("video/"):
        return "video"
    if mime.startswith("audio/") or ext in _AUDIO_EXTENSIONS:
        return "audio"
    return "binary"


def is_binary(head: bytes) -> bool:
    """Binary: a NUL byte, a `%PDF-` start, or more than 10% control characters.

    A Unicode byte-order mark makes it text (UTF-16 and UTF-32 text holds NUL bytes);
    bytes 0x80 and above never count, so text in a legacy 8-bit encoding is text.
    """
    window = head[:BINARY_SNIFF_BYTES]
    if not window or window.startswith(_TEXT_BOMS):
        return False
    if window.startswith(b"%PDF-") or b"\0" in window:
        return True
    controls = len(window) - len(window.translate(None, _CONTROL_BYTES))
    return controls * 10 > len(window)


def mime_type(name: str, kind: Kind) -> str:
    """The MIME type an asset is sent with."""
    ext = extension(name)
    if kind == "audio" and ext in _AUDIO_MIME:
        return _AUDIO_MIME[ext]
    return _MIME_BY_EXTENSION.get(ext, "application/octet-stream")
