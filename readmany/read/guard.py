"""What a read may show, judged once it is made: a text that looks like it holds a secret
(`--secrets` warns, masks or refuses it), a file refused by its name or because it holds
credentials, and an empty directory told apart from one that holds files."""

from __future__ import annotations

import os

from readmany.read.line_range import ToolRead

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def check_secrets(
    path: str, result: ToolRead, mode: str, warnings: list[str], found: list[dict[str, Any]]
) -> ToolRead:
    """`--secrets`: warn about, mask (redact) or refuse (skip) a text that looks like it
    holds a secret."""
    from readmany.read.secrets import redact, scan, secrets_warning

    if mode == "redact":
        text, findings = redact(result.text)
        result = result._replace(text=text)
    else:
        findings = scan(result.text)
    if not findings:
        return result
    found.extend({"path": path, "line": f.line, "rule": f.rule, "action": mode} for f in findings)
    if mode == "warn":
        warnings.append(secrets_warning(path, findings))
    elif mode == "skip":
        rules = ", ".join(dict.fromkeys(f.rule for f in findings))
        return result._replace(text="", error=f"looks like a secret ({rules})", error_code="secret")
    return result


SECRET_FILE = "secret file"  # `ToolRead.error_code` of a file refused by its name


def empty_directory(path: str) -> bool:
    """Whether `path` is a directory with nothing in it (`readmany glob` of it would read
    nothing either: a submodule git lists but has not checked out)."""
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def credentials_refusal(path: str, kind: str, text: str) -> str | None:
    """The refusal of an `.npmrc` or `.pypirc` (`kind`: by its name or its link's
    target's) whose text holds a token or password: a secret file, as every command
    refuses one; None when it holds none."""
    from readmany.read.secrets import holds_credentials
    from readmany.select.boundary import secret_file_words

    if not holds_credentials(kind, text):
        return None
    return secret_file_words(path, "it holds a token or password")


def secrets_refusal(path: str, mode: str, text: str) -> str | None:
    """`--secrets warn|skip` where the bytes must stay exact (hashline): the line naming
    what looks like a secret in `text`, if any; with skip, the file is left out."""
    from readmany.read.secrets import scan, secrets_warning

    findings = scan(text)
    if not findings:
        return None
    if mode == "skip":
        rules = ", ".join(dict.fromkeys(f.rule for f in findings))
        return f"{path}: left out by --secrets skip: looks like a secret ({rules})"
    return secrets_warning(path, findings, can_redact=False)
