"""Secrets: files refused by name, and keys found in text by rule, caught and redacted."""

from __future__ import annotations

from typing import Any

import pytest
from secret_corpus import ALNUM, fake, j, near_misses, samples

from readmany.read.secrets import (
    RULES,
    Finding,
    holds_credentials,
    redact,
    scan,
)
from readmany.select.boundary import is_secret_name

# A made-up key of each of the first rules (none is real, and none is written whole in
# this file: each is built from parts, as in `secret_corpus`).
AWS = j("AK", "IA") + "IOSFODNN7EXAMPLE"
GOOGLE = j("AI", "za") + "SyD-1234567890abcdefghijklmnopqrstu"
GITHUB = j("gh", "p_") + "0123456789abcdefghijABCDEFGHIJ012345"
GITHUB_PAT = j("github", "_pat_") + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
SLACK = j("xo", "xb-") + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
STRIPE = j("sk", "_live_") + "4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_RESTRICTED = j("rk", "_live_") + "4eC39HqLyjWDarjtT1zdp7dc"
OPENAI = j("sk", "-proj-") + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7C"
OPENAI_LEGACY = j("s", "k-") + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CdEf6hIj9kLm2n"
ANTHROPIC = j("sk", "-ant-") + "api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CDEF"
PRIVATE_KEY = (
    j("-----BEG", "IN OPENSSH PRIVATE KEY-----\n")
    + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n"
    "-----END OPENSSH PRIVATE KEY-----"
)

PLANTED = [
    ("aws-access-key-id", f'key = "{AWS}"', 8),
    ("google-api-key", f"GOOGLE={GOOGLE}", 8),
    ("github-token", f"token: {GITHUB}", 8),
    ("github-token", f"token: {GITHUB_PAT}", 8),
    ("slack-token", f"  slack({SLACK})", 9),
    ("stripe-secret-key", f"Stripe.api_key = '{STRIPE}'", 19),
    ("stripe-secret-key", f"restricted={STRIPE_RESTRICTED}", 12),
    ("openai-api-key", f"OPENAI_API_KEY={OPENAI}", 16),
    ("openai-api-key", f"OPENAI_API_KEY={OPENAI_LEGACY}", 16),
    ("anthropic-api-key", f"client = Anthropic(api_key='{ANTHROPIC}')", 29),
    ("private-key", f"{PRIVATE_KEY}\n", 1),
    ("url-password", j("DATABASE_URL=postgres:", "//admin:hunter2@db.example.com/app"), 31),
]


@pytest.mark.parametrize(("rule", "line", "column"), PLANTED)
def test_each_rule_catches_its_key(rule: str, line: str, column: int) -> None:
    text = f"first line\n{line}\nlast line\n"
    assert scan(text) == [Finding(rule, 2, column)]


def test_the_planted_keys_are_of_the_first_rules() -> None:
    assert {rule for rule, _, _ in PLANTED} < set(RULES)


def test_all_keys_in_one_text_are_found_in_order() -> None:
    text = "\n".join(line for _, line, _ in PLANTED)
    found = scan(text)
    assert [f.rule for f in found] == [rule for rule, _, _ in PLANTED]
    assert [f.line for f in found] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15]


def test_a_key_after_many_anchors_is_still_found() -> None:
    # Past the first few occurrences of an anchor, one regex search takes over.
    text = "A Ant AB " * 50 + AWS + " sk- " * 50 + STRIPE + " g " * 50 + GITHUB
    assert [f.rule for f in scan(text)] == [
        "aws-access-key-id",
        "stripe-secret-key",
        "github-token",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "a task-runner-for-everything-in-the-whole-world and risk-free",
        "pip install sk-learn-compatible-estimators-and-more-things",  # no digit, no capital
        "see https://user@example.com/path and https://example.com:8080/a@b",
        "my password@home is not a URL, nor is user:pass@host without a scheme",
        "postgres://user:${DB_PASSWORD}@db/app mysql://root:<password>@localhost",
        "redis://:@localhost:6379 and amqp://guest:%(password)s@rabbit",
        "AKIA1234 is too short",
        "SLACK_TOKEN=xoxb-your-token-here",
        "ghp_short and ghp_ alone, github_pat_short",
        "pk_live_4eC39HqLyjWDarjtT1zdp7dc is a publishable key",
        "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        "",
    ],
)
def test_common_look_alikes_are_not_secrets(text: str) -> None:
    assert scan(text) == []


def test_redact_replaces_each_key_and_keeps_the_lines() -> None:
    text = (
        f'aws = "{AWS}"\n'
        f"{PRIVATE_KEY}\n"
        + j("url = https:", "//bob:s3cret@example.com/x\n")
        + f"two = {GITHUB} {STRIPE}\n"
    )
    redacted, found = redact(text)
    assert redacted == (
        'aws = "[REDACTED:aws-access-key-id]"\n'
        "[REDACTED:private-key]\n\n\n"
        "url = https://bob:[REDACTED:url-password]@example.com/x\n"
        "two = [REDACTED:github-token] [REDACTED:stripe-secret-key]\n"
    )
    assert redacted.count("\n") == text.count("\n")
    assert found == scan(text)
    assert [(f.rule, f.line, f.column) for f in found] == [
        ("aws-access-key-id", 1, 8),
        ("private-key", 2, 1),
        ("url-password", 5, 19),
        ("github-token", 6, 7),
        ("stripe-secret-key", 6, 48),
    ]


def test_redact_without_secrets_returns_the_text_itself() -> None:
    text = "nothing to see\n"
    redacted, found = redact(text)
    assert redacted is text and found == []


def test_an_unterminated_key_block_is_redacted_to_the_end() -> None:
    text = j("before\n-----BEG", "IN RSA PRIVATE KEY-----\nMIIE\nrest")
    assert redact(text)[0] == "before\n[REDACTED:private-key]\n\n"


# -- names --


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        (".env", "env file"),
        ("app/.env.local", "env file"),
        (".env.production", "env file"),
        (".envrc", "env file"),
        (".netrc", "netrc"),
        ("home/_netrc", "netrc"),
        (".git-credentials", "git credentials"),
        ("keys/id_rsa", "ssh private key"),
        ("id_dsa", "ssh private key"),
        ("id_ecdsa", "ssh private key"),
        ("id_ed25519", "ssh private key"),
        ("id_ed25519_sk", "ssh private key"),
        ("id_rsa.bak", "ssh private key"),
        ("certs/server.pem", "pem file"),
        ("tls/server.KEY", "key file"),
        ("store.p12", "pkcs12 file"),
        ("store.pfx", "pkcs12 file"),
        ("putty.ppk", "putty key"),
        # Case, and trailing dots and spaces, do not hide one (a file system may fold case):
        (".ENV", "env file"),
        (".Env.Local", "env file"),
        ("ID_RSA", "ssh private key"),
        (".netrc. ", "netrc"),
        (".ENV.EXAMPLE", None),
        # Not secrets by name:
        (".env.example", None),
        ("config/.env.sample", None),
        (".env.template", None),
        (".env.dist", None),
        ("id_rsa.pub", None),
        ("id_ed25519.pub", None),
        ("id_rsa_test.go", None),
        ("environment.py", None),
        (".envrc.d/x.sh", None),
        ("keyboard.py", None),
        ("monkey", None),
        (".npmrc", None),  # only with credentials: see holds_credentials
        (".pem", None),  # a dot file with no name before the extension
    ],
)
def test_secret_names(path: str, rule: str | None) -> None:
    assert is_secret_name(path) == rule


@pytest.mark.parametrize(
    ("path", "text", "holds"),
    [
        (".npmrc", "//registry.npmjs.org/:_authToken=npm_abcdef123456\n", True),
        (".npmrc", "_auth = dXNlcjpwYXNz\n", True),
        (".npmrc", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n", False),
        (".npmrc", "registry=https://registry.npmjs.org/\nsave-exact=true\n", False),
        (".npmrc", "# _authToken=old-commented-out\n", False),
        (".pypirc", "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc\n", True),
        (".pypirc", "[pypi]\nusername = __token__\npassword: ${PYPI_TOKEN}\n", False),
        (".pypirc", "[distutils]\nindex-servers = pypi\n", False),
        ("notes.txt", "password = x\n", False),
    ],
)
def test_credential_files_are_refused_only_with_credentials(
    path: str, text: str, holds: bool
) -> None:
    assert holds_credentials(path, text) is holds


KEYS = {
    "aws-access-key-id": AWS,
    "google-api-key": GOOGLE,
    "github-token": j("gh", "p_") + fake(ALNUM, 36, "glued-gh"),
    "slack-token": j("xo", "xb-") + "1234567890-abcdefghij",
    "stripe-secret-key": j("sk", "_live_") + fake(ALNUM, 24, "glued-sk"),
    "openai-api-key": j("sk", "-proj-") + fake(ALNUM, 36, "glued-oa"),
}


@pytest.mark.parametrize("first", sorted(KEYS))
@pytest.mark.parametrize("second", sorted(KEYS))
def test_keys_written_with_nothing_between_are_all_hidden(first: str, second: str) -> None:
    # The first key's body would take the second one's prefix, and the second, glued to
    # a word, would not count as a key: its body was shown. The hit goes on over it.
    for text in (KEYS[first] + KEYS[second], f"token={KEYS[first]}{KEYS[second]};"):
        masked, findings = redact(text)
        assert KEYS[first][6:] not in masked and KEYS[second][6:] not in masked, masked
        assert [finding.rule for finding in findings] == [first]
    # A key of fixed length is a key whatever follows it: `xAKIA…y` hides nothing.
    assert redact(AWS + "plain") == (
        "[REDACTED:aws-access-key-id]plain",
        [Finding("aws-access-key-id", 1, 1)],
    )


DIFF = """diff --git a/deploy.yaml b/deploy.yaml
index 1..2 100644
--- a/deploy.yaml
+++ b/deploy.yaml
@@ -12,3 +12,3 @@ deploy:
-    QUFBQUFB
+    QkJCQkJC
diff --git a/settings.py b/settings.py
index 3..4 100644
--- a/settings.py
+++ b/settings.py
@@ -8,3 +8,3 @@ XXXXXXXX = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6
-    filler 8
+    changed 8
"""


def test_a_diff_without_the_files_left_out_and_without_hunk_context() -> None:
    from readmany.read.secrets import diff_without

    out = diff_without(DIFF, {"deploy.yaml"})
    assert "QUFBQUFB" not in out and "QkJCQkJC" not in out
    assert "[its changes are left out: deploy.yaml holds what looks like a secret]\n" in out
    assert "@@ -8,3 +8,3 @@\n" in out and "ghp_" not in out  # git's repeated line is gone
    assert "+    changed 8\n" in out
    assert diff_without(DIFF, set(), headers=False) == DIFF


def test_a_diff_without_finds_names_git_quotes() -> None:
    """git quotes a path with bytes past ASCII, a quote or a backslash in a diff header:
    the file is found either way."""
    from readmany.read.secrets import diff_without

    quoted = (
        'diff --git "a/d\\303\\251/.npmrc" "b/d\\303\\251/.npmrc"\n'
        "+//r/:_authToken=npm_x\n"
        'diff --git "a/qu\\"ote.py" "b/qu\\"ote.py"\n'
        "+KEYLINE\n"
        "diff --git a/plain.py b/plain.py\n"
        "+kept\n"
    )
    out = diff_without(quoted, {"dé/.npmrc", 'qu"ote.py'})
    assert "npm_x" not in out and "KEYLINE" not in out and "+kept\n" in out
    assert out.count("[its changes are left out: ") == 2


@pytest.mark.parametrize("name", [".NPMRC", ".npmrc.", "sub/.PyPiRc"])
def test_credentials_names_ignore_case_and_trailing_dots(name: str) -> None:
    from readmany.read.classify import credentials_name
    from readmany.read.secrets import holds_credentials

    assert credentials_name(name) in (".npmrc", ".pypirc")
    text = "//r/:_authToken=npm_abc\n" if "npm" in name.lower() else "[pypi]\npassword = x\n"
    assert holds_credentials(name, text)


def test_the_select_stage_knows_the_credentials_names_the_read_stage_does() -> None:
    from readmany.read.classify import CREDENTIAL_FILES
    from readmany.select.boundary import CREDENTIALS_NAMES

    assert frozenset(CREDENTIAL_FILES) == CREDENTIALS_NAMES


# -- the corpus: a sample of each real format, and near misses --

SAMPLES = samples()
NEAR_MISSES = near_misses()


def test_the_corpus_has_55_formats_and_every_rule() -> None:
    assert len(SAMPLES) == 55 and len({sample.name for sample in SAMPLES}) == 55
    assert {sample.rule for sample in SAMPLES} == set(RULES)


@pytest.mark.parametrize("sample", SAMPLES, ids=[sample.name for sample in SAMPLES])
def test_redact_masks_each_format(sample: Any) -> None:
    masked, findings = redact(sample.text)
    for secret in sample.secrets:
        assert secret not in masked, masked
        assert secret in sample.text
    assert sample.rule in {finding.rule for finding in findings}
    assert f"[REDACTED:{sample.rule}]" in masked
    assert masked.count("\n") == sample.text.count("\n")
    assert scan(sample.text) == findings


@pytest.mark.parametrize("sample", SAMPLES, ids=[sample.name for sample in SAMPLES])
def test_each_format_is_found_in_a_diff(sample: Any) -> None:
    # `--with-diff` shows the diff through the same rules: each line behind git's `+`.
    diff = "".join(f"+{line}\n" for line in sample.text.splitlines())
    masked, _ = redact(diff)
    for secret in sample.secrets:
        for part in secret.split("\n"):
            assert part not in masked, masked


def test_every_rule_has_a_near_miss() -> None:
    assert {miss.rule for miss in NEAR_MISSES} == set(RULES)


@pytest.mark.parametrize(
    "miss", NEAR_MISSES, ids=[f"{m.rule}-{n}" for n, m in enumerate(NEAR_MISSES)]
)
def test_near_misses_are_not_secrets(miss: Any) -> None:
    assert scan(miss.text) == []


@pytest.mark.parametrize(
    ("text", "secret", "rule"),
    [
        # A prefix no word holds is a key glued to other characters too.
        (f"x{AWS}y", AWS, "aws-access-key-id"),
        (f"key=abc{GITHUB}", GITHUB[4:], "github-token"),
        (f"my{STRIPE}", STRIPE[8:], "stripe-secret-key"),
        ("X" + j("AS", "IA") + "ZZ7EXAMPLEFAKE42Q", "ZZ7EXAMPLEFAKE42Q", "aws-access-key-id"),
        # A password holding `@`, or with no user before it.
        (j("redis:", "//:p@ssw0rd-x@cache:6379/0"), "p@ssw0rd-x", "url-password"),
        (j("amqp:", "//bob:s3@cr3t@@rabbit/"), "s3@cr3t@", "url-password"),
        (j("redis:", "//:Zq9rT2vLx@cache"), "Zq9rT2vLx", "url-password"),
    ],
)
def test_the_bypasses_are_closed(text: str, secret: str, rule: str) -> None:
    masked, findings = redact(text)
    assert secret not in masked and [f.rule for f in findings] == [rule]


def test_a_placeholder_word_in_a_url_is_no_password_but_one_holding_at_is() -> None:
    assert scan("postgresql://user:password@localhost/db") == []
    assert [f.rule for f in scan(j("postgresql:", "//user:password@x@localhost/db"))] == [
        "url-password"
    ]


def test_a_key_in_a_text_that_is_not_ascii_is_found_where_it_is() -> None:
    # The names are looked for in a small-letter copy; `İ` is two letters in small ones.
    text = "İİİ ünïcode\nDB_PASSWORD=" + fake(ALNUM, 16, "wide") + "\n"
    [finding] = scan(text)
    assert finding == Finding("secret-assignment", 2, 13)
    assert redact(text)[0] == "İİİ ünïcode\nDB_PASSWORD=[REDACTED:secret-assignment]\n"


@pytest.mark.parametrize(
    "text",
    [
        fake(ALNUM + "+/", 40, "alone") + "\n",  # an AWS secret key with no id nor name
        "password: hunter2\n",  # unquoted, its digit at the end of a word: a name in code
        "heroku: 01234567-89ab-cdef-0123-456789abcdef\n",  # a UUID, by a name no rule knows
    ],
)
def test_what_the_rules_do_not_find_as_readme_says(text: str) -> None:
    assert scan(text) == []


# -- no false positive on this repository's own tree --

# The samples tests plant on purpose (a credentials file's token, in the tests of reads).
PLANTED_SAMPLES = (
    "AKIAIOSFODNN7EXAMPLE",
    "PRIVATE KEY-----",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
)


def test_no_false_positive_on_this_repository_s_own_tree() -> None:
    # Every file git tracks here: none outside the tests holds a secret, and in the tests
    # each finding is on a line that plants one of the known samples (the corpus files,
    # which build every format, are left out).
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
    ).stdout.decode()
    corpus = {"tests/secret_corpus.py", "tests/test_secrets.py", "tests/test_secrets_cli.py"}
    scanned = 0
    for rel in filter(None, listed.split("\0")):
        if rel in corpus or rel.startswith("tests/fixtures/secrets"):
            continue
        try:
            text = (root / rel).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        scanned += 1
        lines = text.splitlines()
        for finding in scan(text):
            line = lines[finding.line - 1]
            assert rel.startswith("tests/"), f"{rel}:{finding.line}: {finding.rule}"
            assert any(sample in line for sample in PLANTED_SAMPLES), (
                f"{rel}:{finding.line}: {line}"
            )
    assert scanned > 300
