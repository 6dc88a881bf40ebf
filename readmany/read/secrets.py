"""Secrets kept out of the output: files refused by name, and keys found by rules in text.

Names: `.env` and `.env.*` (but not the committed templates `.env.example`,
`.env.sample`, `.env.template`, `.env.dist`, which exist to be shared and hold no real
values), `.envrc`, `.netrc`, `.git-credentials`, SSH private keys and their kin, and key
stores by extension. `.npmrc` and `.pypirc` are refused only when they hold credentials,
which takes their text: see `holds_credentials`.

Contents: fixed rules, each a prefix or shape a service gives its keys (and the secret
written beside an id), a private-key block, a password in a URL or a `.netrc` line,
base64 that decodes to `user:password` or a private key, or a value given to a name that
says it is secret. No entropy guessing: a rule either matches or not; placeholders
(`${VAR}`, `xxxx`, `<token>`, `changeme`) are not secrets. Each token rule is one search
for its literal (`re` finds a leading literal with a fast scan); the names of secrets
are found with `str.find` in a small-letter copy of the text. `tests/secret_corpus.py`
holds a sample of each of 55 formats, and near misses of every rule.
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
    generic: bool  # found by a name (`secret-assignment`), not by the key's own shape
    rule: str


RULES = (
    "private-key",
    "aws-access-key-id",
    "aws-secret-access-key",
    "aws-session-token",
    "azure-storage-key",
    "azure-sas-signature",
    "google-api-key",
    "google-oauth-secret",
    "github-token",
    "gitlab-token",
    "slack-token",
    "slack-webhook",
    "stripe-secret-key",
    "stripe-webhook-secret",
    "npm-token",
    "pypi-token",
    "jwt",
    "huggingface-token",
    "digitalocean-token",
    "vault-token",
    "sendgrid-api-key",
    "twilio-key",
    "openai-api-key",
    "anthropic-api-key",
    "basic-auth",
    "netrc-password",
    "url-password",
    "secret-assignment",
)

# Each rule: the literal its matches start with (the rule runs only where one occurs, and
# `re` finds a leading literal at memchr speed), the expression, and its rule name. The
# group `s`, where there is one, is the span redacted; else the whole match. A lookbehind
# written after the literal sees what comes before it. Prefixes no ordinary word holds
# (`AKIA`, `ghp_`, `glpat-`, ...) match wherever they are, glued to other characters or
# not: a key written inside a longer token is still a key. Prefixes that end ordinary
# words (`sk-` in `task-`, `AC` in `MAC`) must start one.
_B62 = "[0-9A-Za-z]"
_URLSAFE = "[0-9A-Za-z_-]"
# After `machine` (its host) or `default`: `login`, `account` or `port` and their values,
# then `password` and the password, on one line or several (`.netrc`'s syntax).
_NETRC_REST = (
    r"(?:[ \t\n]+(?:login|account|port)[ \t\n]+[^\s\"']+)*[ \t\n]+password[ \t\n]+"
    r"(?P<s>[^\s\"'`]+)"
)
_TOKENS: tuple[tuple[str, str, str], ...] = (
    ("AKIA", r"[0-9A-Z]{16}", "aws-access-key-id"),
    ("ASIA", r"[0-9A-Z]{16}", "aws-access-key-id"),
    ("AIza", r"[0-9A-Za-z_\-]{35}", "google-api-key"),
    ("GOCSPX-", r"[0-9A-Za-z_\-]{28}", "google-oauth-secret"),
    ("gh", rf"[pousr]_{_B62}{{36,255}}", "github-token"),
    ("github_pat_", r"[0-9A-Za-z_]{22,255}", "github-token"),
    ("gl", r"(?:pat|dt|rt|ptt|soat|cbt|oas|imt|ft)-[0-9A-Za-z_\-]{20,255}", "gitlab-token"),
    ("xox", r"[abporsa]-[0-9A-Za-z\-]{10,255}", "slack-token"),
    ("xapp-", r"\d-[0-9A-Za-z]{6,}-\d{6,}-[0-9A-Za-z]{20,}", "slack-token"),
    (
        "hooks.slack.com/",
        r"(?:services|workflows|triggers)/(?P<s>[0-9A-Za-z_/]{20,255})",
        "slack-webhook",
    ),
    ("_live_", rf"(?<=[sr]k_live_){_B62}{{24,255}}", "stripe-secret-key"),
    ("whsec_", r"[0-9A-Za-z+/=]{32,255}", "stripe-webhook-secret"),
    ("npm_", rf"{_B62}{{36}}(?!{_B62})", "npm-token"),
    ("pypi-Ag", r"(?:EIcHlwaS5vcmc|ENdGVzdC5weXBpLm9yZw)[0-9A-Za-z_\-]{50,}", "pypi-token"),
    ("eyJ", rf"{_URLSAFE}{{10,}}\.eyJ{_URLSAFE}{{10,}}\.{_URLSAFE}{{10,}}", "jwt"),
    ("hf_", rf"{_B62}{{34,40}}(?![0-9A-Za-z_])", "huggingface-token"),
    ("_v1_", r"(?<=do[por]_v1_)[0-9a-f]{64}", "digitalocean-token"),
    ("hv", rf"[sbr]\.{_URLSAFE}{{24,255}}", "vault-token"),
    ("SG.", rf"{_URLSAFE}{{22}}\.{_URLSAFE}{{43}}", "sendgrid-api-key"),
    ("AC", r"(?<![0-9A-Za-z]AC)[0-9a-f]{32}(?![0-9A-Za-z])", "twilio-key"),
    ("SK", r"(?<![0-9A-Za-z]SK)[0-9a-f]{32}(?![0-9A-Za-z])", "twilio-key"),
    (
        "sk-",
        r"(?:(?P<openai>(?:proj|svcacct|admin)-[0-9A-Za-z_\-]{20,255})"
        r"|(?P<anthropic>ant-(?:api|admin|sid)\d\d-[0-9A-Za-z_\-]{20,255})"
        rf"|(?P<legacy>{_B62}{{20}}T3BlbkFJ{_B62}{{20}})"
        r"|(?<![0-9A-Za-z_\-]sk-)(?P<other>[0-9A-Za-z_\-]{32,255}))",
        "openai-api-key",
    ),
    ("AccountKey=", r"(?P<s>[0-9A-Za-z+/]{40,}={0,2})", "azure-storage-key"),
    ("SharedAccessKey=", r"(?P<s>[0-9A-Za-z+/]{40,}={0,2})", "azure-storage-key"),
    ("sig=", r"(?<=[?&]sig=)(?P<s>[0-9A-Za-z%+/]{30,}(?:%3[Dd]|=)*)", "azure-sas-signature"),
    ("Basic ", r"[ \t]*(?P<s>[0-9A-Za-z+/]{8,}={0,2})", "basic-auth"),
    ('"auth"', r'[ \t]*:[ \t]*"(?P<s>[0-9A-Za-z+/]{8,}={0,2})"', "basic-auth"),
    (
        "machine",
        r"(?<![0-9A-Za-z_]machine)[ \t\n]+[^\s\"']+" + _NETRC_REST,
        "netrc-password",
    ),
    ("default", r"(?<![0-9A-Za-z_]default)" + _NETRC_REST, "netrc-password"),
)
_PAIRED = frozenset({"AKIA", "ASIA", "AC", "SK"})
# How far before the literal a key starts, where the literal is not its first part.
_BACK = {"_live_": 2, "_v1_": 3}
# Where the last part of the key's own text starts, for the checks: the rule's prefix.
_BODY_START = re.compile(r"^(?:[^_\-.]*?[_\-.])?(?:v1_|pat_|ant-\w+?-|proj-|svcacct-|admin-)?")

_PRIVATE_KEY = r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PRIVATE_KEY_END = r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PUTTY = r"PuTTY-User-Key-File-\d+:"
_PUTTY_END = r"Private-MAC:[^\n]*"
_BASE64_PEM = r"LS0tLS1CRUdJTi[0-9A-Za-z+/]*={0,2}"  # `-----BEGIN` in base64: kubeconfig's key data

# `scheme://user:password@host`: the password runs to the last `@` before the host, so
# that one holding `@` is masked whole.
_URL = r"://[^\s:/@]{0,256}:(?P<s>[^\s/?#\"'`<>]{1,256})@(?=[0-9A-Za-z\[])"

# An assignment of a value to a name that says it is secret: `DB_PASSWORD=...`,
# `"client_secret": "..."`, `token: ...`, `SECRET_KEY = '...'`. The name ends with one of
# these words, in any case; a `key` is one of `_KEY_OWNERS` (`api_key`, `AccessKey`,
# `secret-key`). The words are found with `str.find` in the text in small letters; what
# follows each is matched where it is.
_SECRET_WORDS = ("password", "passwd", "passphrase", "secret", "token", "key")
_AFTER_NAME = frozenset("\"' \t:=")
_KEY_OWNERS = (
    "api",
    "access",
    "private",
    "account",
    "storage",
    "master",
    "signing",
    "encryption",
    "secret",
)
_ASSIGNED = (
    r"(?![0-9A-Za-z_])[\"']?[ \t]*(?::=|=>|=|:)[ \t]*"
    r"(?P<s>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'#;,]+(?=[ \t]*(?:#[^\n]*)?(?:\n|$)))"
)
# Letters that start the secret words: the assignment pass runs only where one occurs.
_PLACEHOLDER_START = frozenset("$%{<*[(")
_PLACEHOLDER_WORDS = (
    "xxx",
    "your",
    "changeme",
    "change_me",
    "change-me",
    "example",
    "placeholder",
    "redacted",
    "dummy",
    "replace",
    "insert",
    "todo",
    "fixme",
    "secret",
    "password",
    "passwd",
    "token",
)
_NOT_VALUES = frozenset({"none", "null", "nil", "true", "false", "undefined", "required"})


if TYPE_CHECKING:
    _Rule = tuple[str, re.Pattern[str], str]
_compiled: tuple[tuple[_Rule, ...], dict[str, re.Pattern[str]]] | None = None


def _patterns() -> tuple[tuple[_Rule, ...], dict[str, re.Pattern[str]]]:
    """The token rules, compiled, and the other expressions by name."""
    global _compiled
    if _compiled is None:
        tokens = tuple(
            (prefix, re.compile(re.escape(prefix) + rest), rule) for prefix, rest, rule in _TOKENS
        )
        others = {
            "private_key": _PRIVATE_KEY,
            "private_key_end": _PRIVATE_KEY_END,
            "putty": _PUTTY,
            "putty_end": _PUTTY_END,
            "base64_pem": _BASE64_PEM,
            "url": _URL,
            "assigned": _ASSIGNED,
            "aws_secret": r"(?<![0-9A-Za-z+/])[0-9A-Za-z+/]{40}(?![0-9A-Za-z+/])",
            "twilio_secret": r"(?<![0-9A-Za-z])[0-9A-Za-z]{32}(?![0-9A-Za-z])",
        }
        _compiled = (tokens, {name: re.compile(p) for name, p in others.items()})
    return _compiled


_gated: list[tuple[re.Pattern[str], tuple[_Rule, ...]]] | None = None


def _gates() -> list[tuple[re.Pattern[str], tuple[_Rule, ...]]]:
    """The token rules grouped by their prefix's first character, each group with one
    expression that matches where any of its rules does (their union, names of groups
    left out): a text is scanned once a group, not once a rule, and `re` finds the
    group's first character with its fast scan for a literal."""
    global _gated
    if _gated is None:
        groups: dict[str, list[_Rule]] = {}
        for token in _patterns()[0]:
            groups.setdefault(token[0][0], []).append(token)
        _gated = []
        for first, rules in groups.items():
            union = "|".join(
                re.sub(r"\(\?P<\w+>", "(?:", rule[1].pattern[len(re.escape(first)) :])
                for rule in rules
            )
            _gated.append((re.compile(f"{re.escape(first)}(?:{union})"), tuple(rules)))
    return _gated


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
    add = hits.append
    other = _patterns()[1]
    for gate, rules in _gates():
        if gate.search(text) is None:
            continue  # no rule of this group matches anywhere: one scan for all of them
        for prefix, pattern, rule in rules:
            _token_hits(text, prefix, pattern, rule, other, add)
    if "PRIVATE KEY" in text:
        _block_hits(text, other["private_key"], other["private_key_end"], add)
    if "PuTTY-User-Key-File-" in text:
        _block_hits(text, other["putty"], other["putty_end"], add)
    if "LS0tLS1CRUdJTi" in text:
        for match in other["base64_pem"].finditer(text):
            if _decoded_private_key(match.group()):
                add(_Hit(match.start(), match.end(), False, "private-key"))
    if "://" in text and "@" in text:
        for match in other["url"].finditer(text):
            _url_hit(text, match, add)
    _assignment_hits(text, other["assigned"], add)
    if len(hits) < 2:
        return hits
    hits.sort(key=lambda hit: (hit.start, hit.generic, -hit.end))
    return _merged(hits)


def _token_hits(
    text: str,
    prefix: str,
    pattern: re.Pattern[str],
    rule: str,
    other: dict[str, re.Pattern[str]],
    add: Callable[[_Hit], None],
) -> None:
    """A token rule's hits; searched again from just after each start, so that a key
    written inside another's text is found too (their spans are merged)."""
    position = 0
    while True:
        match = pattern.search(text, position)
        if match is None:
            return
        position = match.start() + 1
        start, end = match.span("s") if "s" in pattern.groupindex else match.span()
        start -= _BACK.get(prefix, 0)
        body = text[start:end]
        if _kept(prefix, body, rule, match):
            found = "anthropic-api-key" if prefix == "sk-" and match["anthropic"] else rule
            add(_Hit(start, end, False, found))
            if prefix in _PAIRED:
                _paired_hit(text, end, prefix, other, add)


def _kept(prefix: str, body: str, rule: str, match: re.Match[str]) -> bool:
    """Whether a token rule's match is a key, not a placeholder or a word."""
    if not _random(body, rule):
        return False
    if rule == "basic-auth":
        return _basic_credentials(body)
    if rule == "slack-token":
        return any(c.isdigit() for c in body)  # `xoxb-your-token-here`: Slack's hold numbers
    if rule == "netrc-password":
        return not _placeholder(body)
    if prefix == "sk-" and match["other"] is not None:
        return _mixed(body[3:])  # `sk-` before a long hyphenated word is no key
    if rule == "jwt":
        return _issued(body)
    return True


_TIME_CLAIMS = ('"iat"', '"exp"', '"nbf"')


def _issued(token: str) -> bool:
    """Whether a JWT is one an issuer made: its claims carry a time (`iat`, `exp`, `nbf`),
    as every identity provider and signing library stamps them. A token without one was
    written by hand for a test or a tutorial (`{"sub": "foo"}`): it stands for a token,
    it grants nothing. Claims that cannot be decoded are taken for a real token's."""
    import base64
    import binascii

    payload = token.split(".")[1]
    try:
        claims = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    except (binascii.Error, ValueError):
        return True
    text = claims.decode("utf-8", "replace").replace(" ", "")
    if not text.startswith("{"):
        return True
    return any(claim + ":" in text for claim in _TIME_CLAIMS)


def _paired_hit(
    text: str, end: int, prefix: str, other: dict[str, re.Pattern[str]], add: Callable[[_Hit], None]
) -> None:
    """The secret written beside a key's id: an AWS secret access key on the id's line or
    the next two (a credentials file, the console's CSV), a Twilio auth token or API
    secret on the SID's line (`Client(sid, token)`)."""
    if prefix in ("AKIA", "ASIA"):
        stop = end
        for _ in range(3):
            stop = text.find("\n", stop + 1)
            if stop < 0:
                stop = len(text)
                break
        found = other["aws_secret"].search(text, end, stop)
        name = "aws-secret-access-key"
    else:
        stop = text.find("\n", end)
        found = other["twilio_secret"].search(text, end, len(text) if stop < 0 else stop)
        name = "twilio-key"
    if found is None:
        return
    value = found.group()
    if _mixed(value) if name == "aws-secret-access-key" else _random(value, name):
        add(_Hit(found.start(), found.end(), False, name))


def _block_hits(
    text: str, begin: re.Pattern[str], end: re.Pattern[str], add: Callable[[_Hit], None]
) -> None:
    """Key blocks, each from its first line to its last (an unterminated one to the end)."""
    for match in begin.finditer(text):
        tail = end.search(text, match.end())
        add(
            _Hit(match.start(), tail.end() if tail is not None else len(text), False, "private-key")
        )


def _decoded_private_key(data: str) -> bool:
    """Whether base64 text starting `LS0tLS1CRUdJTi` encodes a private key's first line."""
    import binascii

    try:
        head = binascii.a2b_base64(data[:80])
    except binascii.Error:
        return False
    return b"PRIVATE KEY" in head.split(b"\n", 1)[0]


def _basic_credentials(data: str) -> bool:
    """Whether base64 text encodes `user:password` (HTTP basic auth, docker's `auth`)."""
    import binascii

    try:
        decoded = binascii.a2b_base64(data + "=" * (-len(data) % 4))
    except binascii.Error:
        return False
    user, colon, password = decoded.partition(b":")
    return bool(colon and user and password) and all(32 < byte < 127 for byte in decoded)


def _mixed(body: str) -> bool:
    """Whether a key body has a digit, a lower- and an upper-case letter (real keys do)."""
    return (
        any(c.isdigit() for c in body)
        and any(c.islower() for c in body)
        and any(c.isupper() for c in body)
    )


def _random(body: str, rule: str) -> bool:
    """Whether a key's text varies as a random one does: `ghp_xxxx…`, `hf_` followed by 34
    `x`, `dop_v1_` and 64 zeros are placeholders."""
    if rule in ("basic-auth", "netrc-password", "azure-sas-signature"):
        return True
    # `_BODY_START` matches every text (each part of it is optional).
    tail = body[4:] if rule == "aws-access-key-id" else _BODY_START.sub("", body, count=1)
    return len(set(tail)) >= min(8, len(tail) // 2) and "xxxx" not in tail.lower()


def _placeholder(value: str) -> bool:
    """`${PASSWORD}`, `<password>`, `%(password)s`, `***`, `your-token-here`, `changeme`,
    `password`: a value standing for a secret, not one."""
    lowered = value.lower()
    return (
        value[0] in _PLACEHOLDER_START
        or len(set(value)) < 4
        or lowered in _NOT_VALUES
        or any(word in lowered for word in _PLACEHOLDER_WORDS)
    )


def _url_hit(text: str, match: re.Match[str], add: Callable[[_Hit], None]) -> None:
    start = match.start()
    if start == 0 or not text[start - 1].isalnum():
        return  # no scheme before `://`
    password = match.group("s")
    if _placeholder(password) and not (password[0] not in _PLACEHOLDER_START and "@" in password):
        return  # `${PASSWORD}`, `<password>`, `%(password)s`, `***`: a placeholder
    add(_Hit(match.start("s"), match.end("s"), False, "url-password"))


# A name in code (`next_token`, `self.tokens`, `settings.API_KEY_V2`): words, each with its
# digits only at its end; a random value has them among its letters.
_CODE_NAME = re.compile(r"[A-Za-z_]+[0-9]*(?:\.[A-Za-z_]+[0-9]*)*")


def _assignment_hits(text: str, assigned: re.Pattern[str], add: Callable[[_Hit], None]) -> None:
    # The words are ASCII: other letters become `?`, so that no small form longer than
    # its letter (`İ`) moves what follows.
    ascii_text = text if text.isascii() else text.encode("ascii", "replace").decode("ascii")
    lowered = ascii_text.lower()
    for word in _SECRET_WORDS:
        position = lowered.find(word)
        while position >= 0:
            after = position + len(word)
            if after < len(text) and text[after] not in _AFTER_NAME:
                pass  # `tokens`, `keyboard`, `password_hash`: another name
            elif word == "key" and not (
                lowered[max(0, position - 14) : position].rstrip("_-").endswith(_KEY_OWNERS)
            ):
                pass
            else:
                match = assigned.match(text, after)
                if match is not None:
                    _assignment_hit(lowered[max(0, position - 30) : after], match, add)
            position = lowered.find(word, after)


def _assignment_hit(name: str, match: re.Match[str], add: Callable[[_Hit], None]) -> None:
    """A value given to a secret's name, if it looks like one: 8 characters or more, no
    placeholder; unquoted, with a digit and not a name in code (`token = next_token`)."""
    start, end = match.span("s")
    value = match.group("s")
    quoted = value[0] in "\"'"
    if quoted:
        value = value[1:-1]
        start, end = start + 1, end - 1
    if len(value) < 8 or any(c.isspace() for c in value) or _placeholder(value):
        return
    if _words(value):
        return  # `coneofsilence`, `chimichangas4life`: a tutorial's example password
    if not quoted and (
        not any(c.isdigit() for c in value)
        or any(c in "()[]{}" for c in value)
        or _CODE_NAME.fullmatch(value)
    ):
        return
    if len(value) == 88 and value.endswith("==") and name.endswith("key"):
        rule = "azure-storage-key"
    elif "secret" in name and "access" in name and len(value) == 40:
        rule = "aws-secret-access-key"
    elif "session" in name and "aws" in name:
        rule = "aws-session-token"
    else:
        rule = "secret-assignment"
    add(_Hit(start, end, True, rule))


# Small letters in runs that each hold a vowel, with at most one number of up to four
# digits: words written together, as people make up an example password. A generated
# secret mixes cases, digits or symbols, or runs consonants together.
_WORDS = re.compile(r"[a-z]+(?:[0-9]{1,4}[a-z]*)?|[0-9]{1,4}[a-z]+")
_CONSONANTS = re.compile(r"[b-df-hj-np-tv-xz]{5,}")


def _words(value: str) -> bool:
    """Whether a value given to a secret's name reads as words, not as a generated
    secret: small letters (and at most one short number), each run of letters holding
    a vowel a few letters apart at most."""
    if not _WORDS.fullmatch(value) or _CONSONANTS.search(value):
        return False
    letters = [run for run in re.split("[0-9]+", value) if run]
    return all(len(run) >= 3 and any(v in run for v in "aeiouy") for run in letters)


def _merged(hits: list[_Hit]) -> list[_Hit]:
    """Sorted hits, those that overlap or touch joined into the first one's (a key inside
    a key block, keys written with nothing between them)."""
    kept = [hits[0]]
    for hit in hits[1:]:
        last = kept[-1]
        if hit.start > last.end:
            kept.append(hit)
        elif hit.end > last.end:
            kept[-1] = last._replace(end=hit.end)
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
