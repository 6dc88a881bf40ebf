"""What the select stage yields: a file to read, or a matched path skipped with its reason;
and how a path of the stream is shown (`--absolute`).

Kept apart from the walk so that a process that only consumes the stream (the main
process, when the walk runs in a helper) need not import the walk.
"""

from __future__ import annotations

import os

from readmany.record import NamedTuple

REASON_IGNORED = "ignored by project ignore files"
REASON_OUTSIDE = "Security: Path not in workspace"
REASON_LINK_OUTSIDE = "ignored: symlink target is outside the root"
# The default face: a link to a directory is not read as a file (nor walked into by `**`).
REASON_LINKED_DIRECTORY = "symlink to a directory, not followed"
# ... and a link to nothing (its target does not exist) holds nothing to read.
REASON_DANGLING_LINK = "symlink to nothing: its target does not exist"
# A directory listed on `--stdin` with no file under it (as git lists a submodule that
# is not checked out): nothing to read, said so.
REASON_EMPTY_DIRECTORY = "empty directory: no file under it"
# The default face's own reasons (with `--compat` such files are dropped silently).
REASON_DEFAULT_EXCLUDE = "default exclude"
REASON_EXCLUDED = "excluded"  # a named file that an `--exclude` pattern leaves out
REASON_OUTPUT = "output file"  # the `-o` target, or the temporary file it is written to
REASON_SECRET_FILE = "secret file"  # refused by its name (.env.*, id_rsa, *.pem …), always
REASON_DELETED = "deleted"  # git names it as deleted: nothing of it to read
REASON_NO_MATCH = "no file matches this pattern"  # a command-line pattern, not a path


class Candidate(NamedTuple):
    """A file to read: `rel` is relative to the root with `/`, `path` is absolute."""

    rel: str
    path: str
    regular: bool = False  # the directory listing said: a regular file, not a link
    named: bool = False  # named exactly (a literal path), which requests it even as an asset
    # Where `rel` leads, root-relative, when a symbolic link is on its way (None: no link
    # was, and none may be when it is opened): the read opens exactly that, or refuses.
    real: str | None = None


class Skip(NamedTuple):
    """A matched path that will not be read. `failed`: it could not even be looked at."""

    rel: str  # a directory ends with "/"
    reason: str
    failed: bool = False


Event = Candidate | Skip


class Item(NamedTuple):
    """A file a planned run shows (or the diff), as its first pass found it."""

    ordinal: int  # its place among the selection's events
    candidate: Candidate | None  # None: the diff of --with-diff
    rel: str
    path: str  # as shown


def shown_path(root: str, rel: str, absolute: bool) -> str:
    """How a root-relative path is written: as it is, or absolute with `--absolute`."""
    if not absolute:
        return rel
    path = os.path.normpath(os.path.join(root, rel))
    return path + "/" if rel.endswith("/") else path
