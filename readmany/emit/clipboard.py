"""Putting the content on the clipboard, for pasting into a chat.

The first that works of: `wl-copy` (Wayland), `xclip`, `xsel` (X11), `pbcopy` (macOS),
`clip.exe` (WSL); else the OSC 52 escape written to the terminal, which most terminal
emulators (and tmux with `set-clipboard on`) turn into a clipboard copy.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys

from readmany.errors import UsageError
from readmany.record import NamedTuple


class Clipboard(NamedTuple):
    name: str
    command: tuple[str, ...] = ()  # empty: OSC 52 to the terminal

    def copy(self, data: bytes) -> None:
        if not self.command:
            _osc52(data)
            return
        try:
            subprocess.run(self.command, input=data, check=True, capture_output=True, timeout=10)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ClipboardError(f"--copy: {self.name} failed: {_reason(exc)}") from None


class ClipboardError(Exception):
    """The clipboard tool was found but did not take the content."""


def _reason(exc: BaseException) -> str:
    if isinstance(exc, subprocess.CalledProcessError):
        message = (exc.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        return message[0] if message else f"exit status {exc.returncode}"
    return str(exc)


def _candidates() -> list[Clipboard]:
    env = os.environ
    found: list[Clipboard] = []
    if env.get("WAYLAND_DISPLAY") and shutil.which("wl-copy"):
        found.append(Clipboard("wl-copy", ("wl-copy",)))
    if env.get("DISPLAY"):
        if shutil.which("xclip"):
            found.append(Clipboard("xclip", ("xclip", "-selection", "clipboard")))
        if shutil.which("xsel"):
            found.append(Clipboard("xsel", ("xsel", "--clipboard", "--input")))
    if sys.platform == "darwin" and shutil.which("pbcopy"):
        found.append(Clipboard("pbcopy", ("pbcopy",)))
    if shutil.which("clip.exe"):
        found.append(Clipboard("clip.exe", ("clip.exe",)))
    return found


def find_clipboard() -> Clipboard:
    """The clipboard to use, or a usage error saying why there is none."""
    found = _candidates()
    if found:
        return found[0]
    if _terminal_fd() is not None:
        return Clipboard("the terminal (OSC 52)")
    raise UsageError(
        "--copy: no clipboard found: install wl-copy, xclip or xsel (with a display), "
        "or run in a terminal for OSC 52"
    )


def _terminal_fd() -> int | None:
    for stream in (sys.stderr, sys.stdout):
        try:
            if stream.isatty():
                return stream.fileno()
        except (OSError, ValueError):
            continue
    return None


def _osc52(data: bytes) -> None:
    fd = _terminal_fd()
    if fd is None:
        raise ClipboardError("--copy: the terminal went away")
    sequence = b"\x1b]52;c;" + base64.b64encode(data) + b"\x07"
    if os.environ.get("TMUX"):
        sequence = b"\x1bPtmux;\x1b" + sequence + b"\x1b\\"
    os.write(fd, sequence)
