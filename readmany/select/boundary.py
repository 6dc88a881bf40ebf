"""The boundary of a selection: what no file may be read under, and paths against the root.

A path is inside the root when it is the root or below it; a segment named `.git`,
`.env` or `node_modules` (without case, trailing dots and spaces removed) is refused
wherever it appears, even when nothing excludes it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable

# Segments a path may not contain even when nothing excludes them (compared without case,
# trailing dots and spaces removed).
BLOCKED_SEGMENTS = frozenset((".git", ".env", "node_modules"))


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def rel_parts(path: str, root: str) -> list[str]:
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    return [] if rel == "." else rel.split("/")


def join_clean(root: str, rel: str) -> str:
    """`normpath(join(root, rel))` for a normalised `root`, quicker for a plain `rel`."""
    plain = rel[0] not in "./" and rel[-1] != "/" and "//" not in rel and "/." not in rel
    if plain and os.sep == "/":
        return f"{root}/{rel}" if root != "/" else f"/{rel}"
    return os.path.normpath(os.path.join(root, rel))


def stat_mode(path: str, *, follow: bool = True) -> int | None:
    try:
        return os.stat(path, follow_symlinks=follow).st_mode
    except (OSError, ValueError):
        return None


def blocked(parts: Iterable[str]) -> bool:
    return any(blocked_name(part) for part in parts)


def blocked_name(part: str) -> bool:
    name = part.rstrip(". ").lower()
    if name in BLOCKED_SEGMENTS:
        return True
    return name.startswith("gha-creds-") and name.endswith(".json")


# -- secrets by name: refused wherever they are, whatever selected them --------------------

ENV_TEMPLATES = frozenset((".env.example", ".env.sample", ".env.template", ".env.dist"))
_SECRET_NAMES = {
    ".env": "env file",
    ".envrc": "env file",
    ".netrc": "netrc",
    "_netrc": "netrc",
    ".git-credentials": "git credentials",
}
_KEY_EXTENSIONS = {
    ".pem": "pem file",
    ".key": "key file",
    ".p12": "pkcs12 file",
    ".pfx": "pkcs12 file",
    ".ppk": "putty key",
}
# Expressions are compiled on first use (by re's cache, or `_compiled`): names are checked
# on every run, contents only when asked, and compiling costs milliseconds at start-up.
_SSH_KEY = r"id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:\.(?:old|bak|orig|backup)|~)?"


def is_secret_name(rel_path: str) -> str | None:
    """The rule that refuses a file by its name (`env file`, `ssh private key` …), or None.

    Only the last component counts; case and trailing dots and spaces are ignored, as
    `blocked_name` ignores them (`.ENV` opens `.env` on a file system that folds case).
    """
    name = rel_path.rpartition("/")[2].rstrip(". ").lower()
    known = _SECRET_NAMES.get(name)
    if known is not None:
        return known
    if name.startswith(".env."):
        return None if name in ENV_TEMPLATES else "env file"
    dot = name.rfind(".")
    if dot > 0:
        kind = _KEY_EXTENSIONS.get(name[dot:])
        if kind is not None:
            return kind
    if name.startswith("id_") and re.fullmatch(_SSH_KEY, name):
        return "ssh private key"
    return None


# The files whose text decides whether they are secret (`read.classify.CREDENTIAL_FILES`,
# which the select stage may not import; a test keeps the two alike).
CREDENTIALS_NAMES = frozenset((".npmrc", ".pypirc"))


def links_to_credentials(rel: str, real_rel: str) -> bool:
    """Whether `rel`, a link, leads to an `.npmrc` or `.pypirc` under another name: its
    text would be judged by the name it is shown under, so it is refused as a secret file."""
    name = real_rel.rpartition("/")[2].rstrip(". ").lower()
    shown = rel.rpartition("/")[2].rstrip(". ").lower()
    return name in CREDENTIALS_NAMES and shown not in CREDENTIALS_NAMES


def target_name(path: str) -> str | None:
    """The name of the file `path` leads to: its own, unless it is a link (one `lstat`:
    a link on the way to it does not change its name) or ends in `.` or `..`. None where
    that link cannot be followed (it is being swapped, or loops): `secret_file_refusal`
    then refuses the path, whose target cannot be judged."""
    name = os.path.basename(path)
    if name in ("", ".", "..") or os.path.islink(path):
        try:
            return os.path.basename(os.path.realpath(path))
        except OSError:
            return None
    return name


UNFOLLOWED = "a link on its way could not be followed (it changed, or loops)"


def secret_file_refusal(named: str, target: str | None) -> str | None:
    """Why a file named on the command line (`named`, leading to a file named `target`,
    see `target_name`) is not read: either name is a secret file's, or the target could
    not be found (`target` None); None if neither."""
    if target is None:
        return f"{named}: not read: {UNFOLLOWED}"
    kind = is_secret_name(named) or is_secret_name(target)
    return None if kind is None else secret_file_words(named, kind)


def secret_file_words(named: str, kind: str) -> str:
    """The refusal of a secret file named on the command line, `kind` saying which."""
    return f"{named}: not read: a secret file ({kind}), which readmany never reads"


def self_or_above(known: dict[str, bool], rel_dir: str, judge: Callable[[str], bool]) -> bool:
    """Whether `judge` holds for `rel_dir` or a directory above it (below the root),
    the directories above judged first; every verdict is remembered in `known`."""
    unknown: list[str] = []  # from `rel_dir` up to the first directory already judged
    directory = rel_dir
    verdict = False
    while directory:
        known_verdict = known.get(directory)
        if known_verdict is not None:
            verdict = known_verdict
            break
        unknown.append(directory)
        directory = directory.rpartition("/")[0]
    for directory in reversed(unknown):  # any depth: no recursion
        verdict = known[directory] = verdict or judge(directory)
    return verdict


def output_paths(output: str | None) -> tuple[str, ...]:
    """The `-o` target as the walk may meet it: absolute, and with links resolved."""
    if not output:
        return ()
    absolute = os.path.abspath(output)
    try:
        real = os.path.realpath(absolute)
    except OSError:  # a link on the way swapped while it was resolved (EINVAL): the
        return (absolute,)  # write itself refuses it, or writes where it was checked
    return tuple(dict.fromkeys((absolute, real)))
