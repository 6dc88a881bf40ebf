"""Secrets kept out of the output: files refused by name, and keys found by rules in text.

Names: `.env` and `.env.*` (but not the committed templates `.env.example`,
`.env.sample`, `.env.template`, `.env.dist`, which exist to be shared and hold no real
values), `.envrc`, `.netrc`, `.git-credentials`, SSH private keys and their kin, and key
stores by extension. `.npmrc` and `.pypirc` are refused only when they hold credentials,
which takes their text: see `holds_credentials`.

Contents: fixed rules, each a prefix a service puts on its keys, a private-key block, or a
password in a URL. No entropy guessing: a rule either matches or not. The text is searched
in a few passes, one a family of rules that share an anchor character; a pass runs only
when its anchor occurs, and looks at each occurrence with `str.find` (memchr speed) until
the anchor proves common in the text, then hands over to one regular-expression search.
"""

from __future__ import annotations

import re

from readmany.read.classify import credentials_name
from readmany.record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# -- names: `readmany.select.boundary.is_secret_name`; files whose content decides:
# `read.classify.CREDENTIAL_FILES` --


_NPM_CREDENTIAL = r"(?m)^[^#;\n]*?(?:_authToken|_auth|_password)\s*=\s*(?!\$\{)\S"
_PYPI_CREDENTIAL = r"(?mi)^[ \t]*password[ \t]*[=:][ \t]*(?!\$\{)\S"


def holds_credentials(rel_path: str, text: str) -> bool:
    """Whether an `.npmrc` or `.pypirc` holds a token or password (not a `${VAR}` reference).

    Other names: False. The caller reads the file (it is small) and refuses it on True.
    """
    name = credentials_name(rel_path)
    if name == ".npmrc":
        return re.search(_NPM_CREDENTIAL, text) is not None
    if name == ".pypirc":
        return re.search(_PYPI_CREDENTIAL, text) is not None
    return False


# -- contents --


class Finding(NamedTuple):
    """A secret found in a text: its rule, and where it starts (1-based line and column)."""

    rule: str
    line: int
    column: int


class _Hit(NamedTuple):
    start: int  # the span redacted
    end: int
    rule: str


_OPENAI_KINDS = {"ant": "anthropic-api-key"}

# Each family: its anchor, and an expression that starts at the anchor (lookbehinds see
# what comes before it, and check that a key does not continue a longer word). Group
# names are rules; `_BEFORE` says how far before the anchor each rule's secret starts.
# How each kind of key starts: a key of fixed length may be followed by another with
# nothing between (see `_glued`), not by any other letter.
_KEY_PREFIXES = r"AKIA|AIza|gh[pousr]_|github_pat_|[sr]k_live_|xox[abpors]-|sk-"
_CLOUD = (
    "A",
    r"A(?:(?<![A-Za-z0-9]A)(?P<aws_access_key_id>KIA[0-9A-Z]{16})"
    r"(?!(?!" + _KEY_PREFIXES + r")[0-9A-Za-z])"
    r"|(?<![A-Za-z0-9_\-]A)(?P<google_api_key>Iza[0-9A-Za-z_\-]{35})"
    r"(?!(?!" + _KEY_PREFIXES + r")[0-9A-Za-z_\-]))",
)
_KEYED = (
    "k",
    r"k(?:_live_(?<=[sr]k_live_)(?<![A-Za-z0-9_].{8})(?P<stripe_key>[0-9A-Za-z]{24,255})"
    r"|-(?<=sk-)(?<![A-Za-z0-9_\-].{3})"
    r"(?P<sk_key>(?:(?P<sk_kind>ant|proj|svcacct|admin)-)?[A-Za-z0-9_\-]{32,255}))",
)
_DASHED = (
    "-",
    r"-(?:(?<=xox[abpors]-)(?<![A-Za-z0-9_\-].{5})(?P<slack_token>[0-9A-Za-z\-]{10,255})"
    r"|----BEGIN(?P<private_key>[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----))",
)
_GITHUB = (
    "g",
    r"g(?:h[pousr]_(?<![A-Za-z0-9_].{4})(?P<github_token>[A-Za-z0-9]{36,255})"
    r"|ithub_pat_(?<![A-Za-z0-9_].{11})(?P<github_pat>[A-Za-z0-9_]{22,255}))",
)
_URL = ("@", r"://(?P<user>[^\s:/@]{1,256}):(?P<url_password>[^\s/@]{1,256})@")

# A key of any kind where it starts, with no look at what comes before: a hit goes on
# over the keys written right after it (`_glued`). Two keys with nothing between them
# are both hidden; else the first one's body takes the next one's prefix, and the next,
# glued to a word, is not a key by the rules above, so its body would be shown.
_KEY_AT = (
    r"gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}"
    r"|[sr]k_live_[0-9A-Za-z]{24,255}|xox[abpors]-[0-9A-Za-z\-]{10,255}"
    r"|sk-[A-Za-z0-9_\-]{32,255}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35}"
)
_LONGEST_PREFIX = len("github_pat_")  # a glued key starts this far into a hit at most

_BEFORE = {
    "aws_access_key_id": 0,
    "google_api_key": 0,
    "slack_token": 4,
    "sk_key": 1,
    "private_key": 0,
    "github_token": 0,
    "github_pat": 0,
    "stripe_key": 1,
}
_RULE_NAMES = {
    "aws_access_key_id": "aws-access-key-id",
    "google_api_key": "google-api-key",
    "slack_token": "slack-token",
    "private_key": "private-key",
    "github_token": "github-token",
    "github_pat": "github-token",
    "stripe_key": "stripe-secret-key",
}
RULES = (
    "aws-access-key-id",
    "google-api-key",
    "github-token",
    "slack-token",
    "stripe-secret-key",
    "openai-api-key",
    "anthropic-api-key",
    "private-key",
    "url-password",
)

_PRIVATE_KEY_END = r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PLACEHOLDER_START = frozenset("$%{<*")

# Anchors found one by one with `str.find` (memchr speed) while they are rare; after this
# many in a text, one regular-expression search does the rest. Letters common in any text
# go to the search at once.
_FIND_LIMIT = 8


if TYPE_CHECKING:
    _Family = tuple[str, re.Pattern[str], int]
_compiled: tuple[tuple[_Family, ...], re.Pattern[str]] | None = None


def _patterns() -> tuple[tuple[_Family, ...], re.Pattern[str]]:
    """The families' anchors, compiled expressions and find limits, and the URL expression."""
    global _compiled
    if _compiled is None:
        families = (
            (*_CLOUD, _FIND_LIMIT),
            (*_KEYED, 0),
            (*_DASHED, _FIND_LIMIT),
            (*_GITHUB, 0),
        )
        _compiled = (
            tuple((anchor, re.compile(pattern), limit) for anchor, pattern, limit in families),
            re.compile(_URL[1]),
        )
    return _compiled


def scan(text: str) -> list[Finding]:
    """Every secret the rules find in `text`, in order."""
    return [_finding(text, hit) for hit in _hits(text)]


def redact(text: str) -> tuple[str, list[Finding]]:
    """`text` with each secret replaced by `[REDACTED:rule]`, the line count kept."""
    hits = _hits(text)
    if not hits:
        return text, []
    parts: list[str] = []
    position = 0
    for hit in hits:
        parts.append(text[position : hit.start])
        parts.append(f"[REDACTED:{hit.rule}]" + "\n" * text.count("\n", hit.start, hit.end))
        position = hit.end
    parts.append(text[position:])
    return "".join(parts), [_finding(text, hit) for hit in hits]


def _finding(text: str, hit: _Hit) -> Finding:
    line_start = text.rfind("\n", 0, hit.start) + 1
    return Finding(hit.rule, text.count("\n", 0, hit.start) + 1, hit.start - line_start + 1)


def _hits(text: str) -> list[_Hit]:
    hits: list[_Hit] = []
    families, url_pattern = _patterns()
    for anchor, pattern, find_limit in families:
        if anchor in text:
            _search(text, anchor, pattern, find_limit, hits.append)
    if _URL[0] in text:
        for match in url_pattern.finditer(text):
            _url_hit(text, match, hits.append)
    if len(hits) < 2:
        return hits
    hits.sort()
    return _without_overlaps(hits)


def _search(
    text: str,
    anchor: str,
    pattern: re.Pattern[str],
    find_limit: int,
    add: Callable[[_Hit], None],
) -> None:
    position = text.find(anchor)
    seen = 0
    while position >= 0:
        seen += 1
        if seen > find_limit:
            for found in pattern.finditer(text, position):
                _token_hit(text, found, add)
            return
        match = pattern.match(text, position)
        if match is None:
            position = text.find(anchor, position + 1)
        else:
            _token_hit(text, match, add)
            position = text.find(anchor, max(match.end(), position + 1))


def _token_hit(text: str, match: re.Match[str], add: Callable[[_Hit], None]) -> None:
    group = match.lastgroup
    if group is None:
        return
    start = match.start() - _BEFORE[group]
    end = match.end()
    if group == "sk_key":
        if not _mixed(match.group("sk_key")):
            return  # `sk-` before a long hyphenated word, not a key
        rule = _OPENAI_KINDS.get(match.group("sk_kind") or "", "openai-api-key")
    elif group == "slack_token":
        if not any(c.isdigit() for c in match.group(group)):
            return  # `xoxb-your-token-here`: Slack's tokens hold numbers
        rule = "slack-token"
    elif group == "private_key":
        tail = re.compile(_PRIVATE_KEY_END).search(text, end)
        end = tail.end() if tail is not None else len(text)
        rule = "private-key"
    else:
        rule = _RULE_NAMES[group]
    if group != "private_key":
        end = _glued(text, start, end)
    add(_Hit(start, end, rule))


def _glued(text: str, start: int, end: int) -> int:
    """Where a hit ends, with the keys written right after it: one that starts in its
    last few characters (its prefix taken by the hit's body) or where it ends."""
    key_at = re.compile(_KEY_AT).match  # re's cache: compiled once
    while True:
        for at in range(max(start + 1, end - _LONGEST_PREFIX), end + 1):
            more = key_at(text, at)
            if more is not None and more.end() > end:
                end = more.end()
                break
        else:
            return end


def _mixed(body: str) -> bool:
    """Whether a key body has a digit, a lower- and an upper-case letter (real keys do)."""
    return (
        any(c.isdigit() for c in body)
        and any(c.islower() for c in body)
        and any(c.isupper() for c in body)
    )


def _url_hit(text: str, match: re.Match[str], add: Callable[[_Hit], None]) -> None:
    start = match.start()
    if start == 0 or not text[start - 1].isalnum():
        return  # no scheme before `://`
    password = match.group("url_password")
    if password[0] in _PLACEHOLDER_START:
        return  # `${PASSWORD}`, `<password>`, `%(password)s`, `***`: a placeholder
    add(_Hit(match.start("url_password"), match.end("url_password"), "url-password"))


def _without_overlaps(hits: list[_Hit]) -> list[_Hit]:
    """Sorted hits, a hit inside an earlier one dropped (a key inside a key block)."""
    kept = [hits[0]]
    for hit in hits[1:]:
        if hit.start >= kept[-1].end:
            kept.append(hit)
    return kept


def secrets_warning(path: str, findings: list[Finding], *, can_redact: bool = True) -> str:
    """One stderr line naming a file's findings (the first few), and what the other
    modes do; `can_redact` False where the command refuses redact (hashline)."""
    shown = ", ".join(f"line {f.line} ({f.rule})" for f in findings[:3])
    more = f" and {len(findings) - 3} more" if len(findings) > 3 else ""
    modes = "--secrets skip leaves such files out"
    if can_redact:
        modes += ", --secrets redact masks them"
    return f"{path}: looks like a secret: {shown}{more}; {modes}"


_HUNK_CONTEXT = r"(?m)^(@@ -[0-9,]+ \+[0-9,]+ @@).+$"


def diff_without(diff: str, paths: set[str], *, headers: bool = True) -> str:
    """A unified diff for `--secrets`: the hunks of `paths` (files whose own text was
    masked or left out) replaced by a line saying so, for a hunk inside a key block shows
    its lines without the `BEGIN` line a rule looks for; and each hunk header without the
    line of context git repeats after it (a function's first line, which may hold part of
    a key, too little for a rule to match) where `headers`."""
    if headers:
        diff = re.sub(_HUNK_CONTEXT, r"\1", diff)
    if not paths:
        return diff
    # How each path ends a `diff --git` header: as it is, or quoted as git quotes it.
    ends = {p: (f" b/{p}", f' "b/{_git_quoted(p)}"') for p in paths}
    kept: list[str] = []
    dropping = False
    for line in diff.splitlines(keepends=True):
        if line.startswith("diff --git "):
            header = line.rstrip("\n")
            named = next((p for p, end in ends.items() if header.endswith(end)), None)
            dropping = named is not None
            kept.append(line)
            if named is not None:
                kept.append(f"[its changes are left out: {named} holds what looks like a secret]\n")
            continue
        if not dropping:
            kept.append(line)
    return "".join(kept)


_GIT_ESCAPES = {
    ord('"'): '\\"',
    ord("\\"): "\\\\",
    7: "\\a",
    8: "\\b",
    9: "\\t",
    10: "\\n",
    11: "\\v",
    12: "\\f",
    13: "\\r",
}


def _git_quoted(path: str) -> str:
    """`path` as git writes it between quotes in a diff header (`core.quotePath`, the
    default): `"`, `\\` and control characters escaped, bytes past ASCII in octal."""
    out = []
    for byte in path.encode("utf-8", "surrogateescape"):
        if byte in _GIT_ESCAPES:
            out.append(_GIT_ESCAPES[byte])
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    return "".join(out)
