"""Putting the content on the clipboard, for pasting into a chat.

The first that works of: `wl-copy` (Wayland), `xclip`, `xsel` (X11), `pbcopy` (macOS),
`clip.exe` (WSL); inside tmux, tmux's own paste buffer (`tmux load-buffer -w -`, which
tmux passes on to the outer terminal's clipboard: tmux drops an application's escape by
default); else the OSC 52 escape written to the terminal. Only a tool confirms a copy; an
escape is sent and the terminal may ignore it, so stderr says "sent", never "copied".
VTE terminals (GNOME Terminal, Tilix, …) ignore OSC 52, so there `--copy` refuses with
the tool to install rather than say something that did not happen.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys

from readmany.errors import UsageError
from readmany.record import NamedTuple

TOOL = "tool"
TMUX = "tmux"
OSC52 = "osc52"

_TMUX_LOAD = ("tmux", "load-buffer", "-w", "-")


class Clipboard(NamedTuple):
    name: str  # as stderr names it
    kind: str = TOOL  # TOOL, TMUX or OSC52
    command: tuple[str, ...] = ()  # what runs with the content on its stdin

    def copy(self, data: bytes) -> Clipboard:
        """Hand `data` over; return the clipboard that took it (tmux older than 3.2, which
        has no `load-buffer -w`, still passes an escape through to the terminal)."""
        if self.kind == OSC52:
            _osc52(data)
            return self
        try:
            _run(self.name, self.command, data)
        except ClipboardError as exc:
            too_old = self.kind == TMUX and "unknown flag" in str(exc)
            if not too_old or _terminal_fd() is None:
                raise
            _osc52(data)
            return Clipboard("the terminal (OSC 52, through tmux)", OSC52)
        return self

    def report(self, amount: str) -> str:
        """The stderr line for `amount` (e.g. "120 bytes (~30 tokens)") handed over."""
        if self.kind == OSC52:
            return f"sent {amount} to {self.name}; most terminals put it on the clipboard"
        if self.kind == TMUX:
            said = (
                f"sent {amount} to tmux's paste buffer (tmux load-buffer -w), which tmux "
                "passes on to the terminal's clipboard"
            )
            if os.environ.get("VTE_VERSION"):
                said += "; this terminal (VTE) ignores that: paste with tmux's prefix key and ]"
            return said
        return f"copied {amount} with {self.name}"


class ClipboardError(Exception):
    """The clipboard tool was found but did not take the content."""


def _run(name: str, command: tuple[str, ...], data: bytes) -> None:
    try:
        subprocess.run(command, input=data, check=True, capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ClipboardError(f"--copy: {name} failed: {_reason(exc)}") from None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, subprocess.CalledProcessError):
        message = (exc.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        return message[0] if message else f"exit status {exc.returncode}"
    return str(exc)


def _candidates() -> list[Clipboard]:
    env = os.environ
    found: list[Clipboard] = []
    if env.get("WAYLAND_DISPLAY") and shutil.which("wl-copy"):
        found.append(Clipboard("wl-copy", TOOL, ("wl-copy",)))
    if env.get("DISPLAY"):
        if shutil.which("xclip"):
            found.append(Clipboard("xclip", TOOL, ("xclip", "-selection", "clipboard")))
        if shutil.which("xsel"):
            found.append(Clipboard("xsel", TOOL, ("xsel", "--clipboard", "--input")))
    if sys.platform == "darwin" and shutil.which("pbcopy"):
        found.append(Clipboard("pbcopy", TOOL, ("pbcopy",)))
    if shutil.which("clip.exe"):
        found.append(Clipboard("clip.exe", TOOL, ("clip.exe",)))
    if env.get("TMUX") and shutil.which("tmux"):
        found.append(Clipboard("tmux", TMUX, _TMUX_LOAD))
    return found


def _install_hint() -> str:
    """The clipboard tool for this session's display server; or, where one is installed
    and no display is set, that it needs one."""
    if os.environ.get("WAYLAND_DISPLAY"):
        return "install wl-clipboard (wl-copy)"
    if os.environ.get("DISPLAY"):
        return "install xclip or xsel"
    installed = [tool for tool in ("wl-copy", "xclip", "xsel") if shutil.which(tool)]
    if installed:
        return (
            f"{' and '.join(installed)} {'is' if len(installed) == 1 else 'are'} installed, "
            "but this session has no display (DISPLAY or WAYLAND_DISPLAY) for it"
        )
    return "install wl-clipboard (Wayland) or xclip or xsel (X11)"


def find_clipboard() -> Clipboard:
    """The clipboard to use, or a usage error saying why there is none."""
    found = _candidates()
    if found:
        return found[0]
    if _terminal_fd() is not None:
        if os.environ.get("VTE_VERSION") and not os.environ.get("TMUX"):
            raise UsageError(
                f"--copy: this terminal (VTE) ignores OSC 52, the escape that copies without "
                f"a tool: {_install_hint()}, or leave out --copy (-o FILE writes a file)"
            )
        return Clipboard("the terminal (OSC 52)", OSC52)
    raise UsageError(
        f"--copy: no clipboard found: {_install_hint()}; or run in a terminal for OSC 52, "
        "or leave out --copy (-o FILE writes a file)"
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
    if os.environ.get("TMUX"):  # only without a tmux command, or one older than 3.2
        sequence = b"\x1bPtmux;\x1b" + sequence + b"\x1b\\"
    os.write(fd, sequence)
