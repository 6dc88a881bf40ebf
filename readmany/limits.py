"""Every limit readmany applies, once, with the reference it comes from.

The `--compat` face applies the reference tools' limits as they are; the default face
uses those a person asked for (whole files unless a budget or a per-file limit says
otherwise). A module that applies a limit imports it from here.
"""

from __future__ import annotations

import sys

# --- the read tool of `many` (pi's read tool; spec/many.md) ------------------------------
READ_MAX_LINES = 2000
"""Lines one read shows (and `many`'s default combined line budget)."""
READ_MAX_BYTES = 50 * 1024
"""UTF-8 bytes one read shows (and `many`'s default combined byte budget)."""
MANY_MAX_FILES = 26
"""Files one `read_many` call takes (its schema's maxItems)."""

# --- the matched-file read of `glob` (Gemini CLI's read_many_files; spec/glob.md) ---------
CUT_BYTES_PER_TOKEN = 16
"""The bytes a budget's cut of a file is searched within, a token of the room left (a
token is rarely more): also how much of a long text a budget of tokens holds."""
GLOB_MAX_LINES = 2000
"""Lines of a text file shown before it is cut."""
GLOB_MAX_LINE_UNITS = 2000
"""UTF-16 code units of one line shown before it is cut."""
GLOB_MAX_FILE_BYTES = 20 * 1024 * 1024
"""A file larger than this is skipped, not read."""
GLOB_MAX_SVG_BYTES = 1024 * 1024
"""An SVG larger than this is skipped (it is read as text)."""
IMAGE_MAX_SIDE = 2000
"""Pixels on an image's longer side before the tool notes it would shrink it."""

# --- the hashline read (doompi's read; spec/hashline.md) ---------------------------------
HASHLINE_MAX_LINES = 2000
"""Lines of one hashline read, the header row included."""
HASHLINE_MAX_BYTES = 50 * 1024
"""UTF-8 bytes of one hashline read."""
HASHLINE_MAX_ANCHORED_BYTES = 32 << 20
"""An anchor hashes its whole line, byte by byte: the time a huge file can take is bounded."""

# --- readmany's own --------------------------------------------------------------------
WHOLE_FILE_READ_BYTES = 8 << 20
"""Above this a file is read in chunks, never whole."""

EDIT_TEXT_MAX_BYTES = HASHLINE_MAX_ANCHORED_BYTES
"""`edit --content-file` (a file or stdin) is read up to this: no edit's text need be
larger than the largest file an edit anchors, and `/dev/zero` must not fill memory."""
REQUEST_MAX_BYTES = 4 * HASHLINE_MAX_ANCHORED_BYTES
"""`--request` (a file or stdin) is read up to this: an edit's text of the largest size,
with room for JSON's escapes and for several files (`many`'s paths need far less)."""
PATTERN_MAX_BRACE_DEPTH = 32
"""Braces nested in one pattern (`{a,{b,{c}}}`): the expansion recurses once a level, and a
deeper pattern was a RecursionError. No shell or git pattern nests anywhere near this."""
PATTERN_MAX_CHARS = 16 * 1024
"""Characters in one pattern (an include, an exclude, a configuration's): a pattern names
paths, no path is longer than PATH_MAX (4096 bytes on Linux), and four of them spelled out
by braces is far past any pattern people write. Matching costs grow with the length: a
10 MB pattern took 72 s of CPU before it was refused."""
UNSIZED_READ_BYTES = 32 << 20
"""A file whose size says 0 (procfs, sysfs) is read to its end, up to this, before it is
judged (`many`, `hashline`); `glob` reads such a file up to its own size limit."""

CONFIG_MAX_BYTES = 1 << 20
"""A configuration file (`.readmany.toml`, `pyproject.toml`, git's configuration files for
`core.excludesFile`) is read up to this: none is anywhere near it, and a larger one is
refused rather than read whole."""

NO_LIMIT = sys.maxsize
"""A budget dimension nobody set (`--max-bytes` given alone has no line limit)."""
UNCOUNTED = float("inf")
"""The tokens of a budget that counts none (no `--max-tokens`)."""

OUTLINE_MAX_BYTES = 1 << 20
"""A file larger than this (framed) is never outlined by a budget, only named (readmany's
own): an outline reads the file again whole and parses it, so a 20 MB file would take
several times its size for a few lines of output; source people write is far smaller."""

MAX_PARTS = 100
"""The most parts `glob --parts` writes (readmany's own): past it, the budget is too small
for the selection, and each part's head, which names what every other part holds, grows."""
