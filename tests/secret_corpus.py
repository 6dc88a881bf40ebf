"""Samples of real secret formats, each in the kind of file it is found in, and near misses.

Every value is fake: made here, at test time, from a seeded generator and from prefixes cut
in two, so that no file of the repository holds a string a scanner would take for a live
key. Each value has the shape its service gives (prefix, alphabet, length, checksum-free).
"""

from __future__ import annotations

import base64
import random
from typing import NamedTuple

UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LOWER = UPPER.lower()
DIGITS = "0123456789"
ALNUM = UPPER + LOWER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def fake(alphabet: str, length: int, seed: str) -> str:
    """`length` characters of `alphabet`, the same for the same seed; with a digit, a
    capital and a small letter where the alphabet has them (real random keys do)."""
    rng = random.Random(seed)
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(length))
        wanted = [set(part) & set(alphabet) for part in (DIGITS, UPPER, LOWER)]
        if all(not want or want & set(value) for want in wanted):
            return value


def j(*parts: str) -> str:
    """Parts joined: a prefix written in two halves is no key in this file."""
    return "".join(parts)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _b64_lines(seed: str, lines: int, width: int = 64) -> str:
    return "\n".join(fake(B64, width, f"{seed}{n}") for n in range(lines))


def pem(kind: str, seed: str, headers: str = "") -> str:
    """A PEM block: `-----BEGIN {kind}-----`, base64 lines, the END line."""
    dashes = "-" * 5
    return (
        f"{dashes}{j('BEG', 'IN')} {kind}{dashes}\n{headers}{_b64_lines(seed, 6)}\n"
        f"{fake(B64, 20, seed + 'tail')}==\n{dashes}END {kind}{dashes}\n"
    )


def jwt(seed: str) -> str:
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    claims = f'{{"sub":"{fake(DIGITS, 10, seed)}","name":"Fake User","iat":1700000000}}'
    payload = base64.urlsafe_b64encode(claims.encode()).decode().rstrip("=")
    return f"{header}.{payload}.{fake(URLSAFE, 43, seed + 'sig')}"


class Sample(NamedTuple):
    """A secret format: a name, the rule that must find it, the text of a file that holds
    it, and the parts of that text that must not be shown once it is redacted."""

    name: str
    rule: str
    text: str
    secrets: tuple[str, ...]


def _sample(name: str, rule: str, template: str, *secrets: str) -> Sample:
    return Sample(name, rule, template.format(*secrets), secrets)


def samples() -> list[Sample]:
    """The 55 formats."""
    out: list[Sample] = []
    add = out.append

    # -- private keys --
    for name, kind in [
        ("pem-rsa", "RSA PRIVATE KEY"),
        ("pem-pkcs8", "PRIVATE KEY"),
        ("pem-pkcs8-encrypted", "ENCRYPTED PRIVATE KEY"),
        ("pem-ec", "EC PRIVATE KEY"),
        ("pem-dsa", "DSA PRIVATE KEY"),
        ("openssh", "OPENSSH PRIVATE KEY"),
        ("pgp", "PGP PRIVATE KEY BLOCK"),
    ]:
        block = pem(kind, name)
        body = block.split("\n", 2)[1]
        add(Sample(name, "private-key", f"# deploy key\n{block}# end\n", (body,)))
    ppk_private = _b64_lines("ppk-private", 2)
    add(
        Sample(
            "putty-ppk",
            "private-key",
            j("PuTTY-User-Key-", "File-3: ssh-ed25519\n")
            + "Encryption: none\nComment: eddsa-key-20240101\nPublic-Lines: 2\n"
            + _b64_lines("ppk-public", 2)
            + f"\nPrivate-Lines: 2\n{ppk_private}\nPrivate-MAC: {fake(HEX, 64, 'ppk-mac')}\n",
            (ppk_private.split("\n")[0], ppk_private.split("\n")[1]),
        )
    )
    inner = pem("PRIVATE KEY", "service-account").replace("\n", "\\n")
    key_line = inner.split("\\n")[1]
    add(
        Sample(
            "gcp-service-account-json",
            "private-key",
            '{\n  "type": "service_account",\n  "project_id": "fake-project",\n'
            f'  "private_key_id": "{fake(HEX, 40, "sa-id")}",\n'
            f'  "private_key": "{inner}",\n'
            '  "client_email": "bot@fake-project.iam.gserviceaccount.com"\n}\n',
            (key_line,),
        )
    )

    # -- AWS --
    akia = j("AK", "IA") + fake(UPPER + "234567", 16, "akia")
    asia = j("AS", "IA") + fake(UPPER + "234567", 16, "asia")
    aws_secret = fake(B64, 40, "aws-secret")
    add(_sample("aws-access-key-id", "aws-access-key-id", 'AWS_KEY = "{}"\n', akia))
    add(
        _sample(
            "aws-temporary-key-id",
            "aws-access-key-id",
            '{{\n  "Credentials": {{\n    "AccessKeyId": "{}",\n',
            asia,
        )
    )
    add(
        _sample(
            "aws-credentials-file",
            "aws-secret-access-key",
            "[default]\naws_access_key_id = " + akia + "\naws_secret_access_key = {}\n",
            aws_secret,
        )
    )
    csv_secret = fake(B64, 40, "aws-csv")
    add(
        _sample(
            "aws-credentials-csv",
            "aws-secret-access-key",
            "User name,Access key ID,Secret access key\ndeploy,{},{}\n",
            akia,
            csv_secret,
        )
    )
    session = "IQoJb3JpZ2luX2Vj" + fake(B64, 300, "aws-session")
    add(
        _sample(
            "aws-session-token",
            "aws-session-token",
            "export AWS_SESSION_TOKEN={}\n",
            session,
        )
    )

    # -- Kubernetes, Docker, package registries --
    client_key = b64(pem("RSA PRIVATE KEY", "kube").encode())
    add(
        _sample(
            "kubeconfig-client-key-data",
            "private-key",
            "users:\n- name: admin\n  user:\n    client-certificate-data: "
            + b64(pem("CERTIFICATE", "kube-cert").encode())
            + "\n    client-key-data: {}\n",
            client_key,
        )
    )
    add(
        _sample(
            "kubeconfig-token",
            "secret-assignment",
            "users:\n- name: ci\n  user:\n    token: {}\n",
            fake(LOWER + DIGITS, 6, "kt") + "." + fake(LOWER + DIGITS, 16, "kt2"),
        )
    )
    docker_auth = b64(f"fakeuser:{fake(ALNUM, 20, 'docker')}".encode())
    add(
        _sample(
            "docker-config-auth",
            "basic-auth",
            '{{\n  "auths": {{\n    "registry.example.com": {{\n      "auth": "{}"\n'
            "    }}\n  }}\n}}\n",
            docker_auth,
        )
    )
    add(
        _sample(
            "npm-token",
            "npm-token",
            'echo "//registry.npmjs.org/:_authToken={}" > ~/.npmrc\n',
            j("np", "m_") + fake(ALNUM, 36, "npm"),
        )
    )
    add(
        _sample(
            "pypi-token",
            "pypi-token",
            "twine upload -u __token__ -p {} dist/*\n",
            j("py", "pi-") + "AgEIcHlwaS5vcmc" + fake(URLSAFE, 150, "pypi"),
        )
    )
    add(
        _sample(
            "jwt",
            "jwt",
            "fetch(url, {{ headers: {{ 'X-Session': '{}' }} }})\n",
            jwt("jwt"),
        )
    )

    # -- chat, code hosting --
    slack_digits = fake(DIGITS, 11, "slack-a") + "-" + fake(DIGITS, 13, "slack-b")
    add(
        _sample(
            "slack-bot-token",
            "slack-token",
            "SLACK_BOT = '{}'\n",
            j("xo", "xb-") + slack_digits + "-" + fake(ALNUM, 24, "xoxb"),
        )
    )
    add(
        _sample(
            "slack-user-token",
            "slack-token",
            "slack_client(token='{}')\n",
            j("xo", "xp-") + slack_digits + "-" + fake(DIGITS, 13, "c") + "-" + fake(HEX, 32, "p"),
        )
    )
    add(
        _sample(
            "slack-webhook",
            "slack-webhook",
            "curl -X POST -d @msg.json {}\n",
            j("https://hooks.", "slack.com/services/T")
            + fake(UPPER + DIGITS, 10, "t")
            + "/B"
            + fake(UPPER + DIGITS, 10, "b")
            + "/"
            + fake(ALNUM, 24, "w"),
        )
    )
    add(
        _sample(
            "slack-app-token",
            "slack-token",
            "app = App(app_token='{}')\n",
            j("xa", "pp-1-A")
            + fake(UPPER + DIGITS, 10, "xapp")
            + "-"
            + fake(DIGITS, 13, "xapp2")
            + "-"
            + fake(HEX, 64, "xapp3"),
        )
    )
    for prefix in ("ghp", "gho", "ghu", "ghs", "ghr"):
        add(
            _sample(
                f"github-{prefix}",
                "github-token",
                "git clone https://x-access-token@github.com/o/r # {}\n",
                j(prefix[:2], prefix[2:] + "_") + fake(ALNUM, 36, prefix),
            )
        )
    add(
        _sample(
            "github-fine-grained",
            "github-token",
            "env:\n  GH_AUTH: {}\n",
            j("github", "_pat_11") + fake(UPPER + DIGITS, 20, "pat") + "_" + fake(ALNUM, 59, "p2"),
        )
    )
    add(
        _sample(
            "gitlab-token",
            "gitlab-token",
            "curl --header 'PRIVATE-TOKEN: {}' https://gitlab.example.com/api/v4/projects\n",
            j("gl", "pat-") + fake(URLSAFE, 20, "glpat"),
        )
    )

    # -- clouds and services --
    add(
        _sample(
            "huggingface-token",
            "huggingface-token",
            "from huggingface_hub import login\nlogin('{}')\n",
            j("h", "f_") + fake(UPPER + LOWER, 34, "hf"),
        )
    )
    add(
        _sample(
            "digitalocean-token",
            "digitalocean-token",
            'provider "digitalocean" {{\n  token = "{}"\n}}\n',
            j("do", "p_v1_") + fake(HEX, 64, "do"),
        )
    )
    add(
        _sample(
            "vault-token",
            "vault-token",
            "vault login {}\n",
            j("hv", "s.") + fake(URLSAFE, 90, "hvs"),
        )
    )
    add(
        _sample(
            "sendgrid-key",
            "sendgrid-api-key",
            "sg = SendGridAPIClient('{}')\n",
            j("S", "G.") + fake(URLSAFE, 22, "sg1") + "." + fake(URLSAFE, 43, "sg2"),
        )
    )
    add(
        _sample(
            "twilio-account",
            "twilio-key",
            "client = Client('{}', '{}')\n",
            j("A", "C") + fake(HEX, 32, "ac"),
            fake(HEX, 32, "twilio-auth"),
        )
    )
    add(
        _sample(
            "twilio-api-key",
            "twilio-key",
            "client = Client('{}', '{}', account_sid)\n",
            j("S", "K") + fake(HEX, 32, "sk"),
            fake(ALNUM, 32, "twilio-secret"),
        )
    )
    for prefix, rule in [
        ("sk_live_", "stripe-secret-key"),
        ("rk_live_", "stripe-secret-key"),
        ("whsec_", "stripe-webhook-secret"),
    ]:
        add(
            _sample(
                f"stripe-{prefix.split('_')[0]}",
                rule,
                "stripe.api_key = '{}'\n",
                j(prefix[:2], prefix[2:]) + fake(ALNUM, 32, prefix),
            )
        )
    account_key = fake(B64, 86, "azure") + "=="
    add(
        _sample(
            "azure-storage-key",
            "azure-storage-key",
            "AZURE_STORAGE_ACCOUNT=fakeaccount\nAZURE_STORAGE_KEY={}\n",
            account_key,
        )
    )
    conn_key = fake(B64, 86, "azure-conn") + "=="
    add(
        _sample(
            "azure-connection-string",
            "azure-storage-key",
            '"ConnectionStrings": {{ "Blob": "DefaultEndpointsProtocol=https;'
            'AccountName=fakeaccount;AccountKey={};EndpointSuffix=core.windows.net" }}\n',
            conn_key,
        )
    )
    sas = fake(B64, 43, "sas").replace("+", "%2B").replace("/", "%2F") + "%3D"
    add(
        _sample(
            "azure-sas-token",
            "azure-sas-signature",
            "https://fakeaccount.blob.core.windows.net/c/b.bin?sv=2022-11-02&ss=b&srt=o"
            "&sp=r&se=2030-01-01T00:00:00Z&spr=https&sig={}\n",
            sas,
        )
    )
    add(
        _sample(
            "google-api-key",
            "google-api-key",
            '<meta name="maps-key" content="{}">\n',
            j("AI", "za") + fake(URLSAFE, 35, "google"),
        )
    )
    add(
        _sample(
            "google-oauth-secret",
            "google-oauth-secret",
            '{{"installed": {{"client_id": "123.apps.googleusercontent.com", "x": "{}"}}}}\n',
            j("GOC", "SPX-") + fake(URLSAFE, 28, "gocspx"),
        )
    )
    add(
        _sample(
            "openai-project-key",
            "openai-api-key",
            "client = OpenAI(api_key='{}')\n",
            j("sk", "-proj-") + fake(URLSAFE, 120, "openai"),
        )
    )
    add(
        _sample(
            "openai-legacy-key",
            "openai-api-key",
            "openai.api_key = '{}'\n",
            j("s", "k-") + fake(ALNUM, 20, "oa1") + j("T3Blbk", "FJ") + fake(ALNUM, 20, "oa2"),
        )
    )
    add(
        _sample(
            "anthropic-key",
            "anthropic-api-key",
            "client = Anthropic(api_key='{}')\n",
            j("sk", "-ant-api03-") + fake(URLSAFE, 93, "anthropic") + "AA",
        )
    )

    # -- passwords --
    add(
        _sample(
            "netrc-line",
            "netrc-password",
            'RUN echo "machine github.com login ci password {}" > /root/.netrc\n',
            fake(ALNUM, 18, "netrc"),
        )
    )
    add(
        _sample(
            "url-password",
            "url-password",
            "DATABASE_URL=postgres://app:{}@db.internal:5432/app\n",
            fake(ALNUM, 16, "url"),
        )
    )
    add(
        _sample(
            "url-password-with-at",
            "url-password",
            "CACHE = 'redis://:{}@cache.internal:6379/0'\n",
            "p@ss" + fake(ALNUM, 10, "url-at") + "@x",
        )
    )
    add(
        _sample(
            "env-assignment",
            "secret-assignment",
            "DEBUG=false\nDB_PASSWORD={}\nSTRIPE_WEBHOOK_TOKEN={}\n",
            fake(ALNUM + "!#%", 20, "env"),
            fake(ALNUM, 24, "env2"),
        )
    )
    add(
        _sample(
            "compose-password",
            "secret-assignment",
            "services:\n  db:\n    image: postgres:16\n    environment:\n"
            "      POSTGRES_PASSWORD: {}\n",
            fake(ALNUM, 14, "compose"),
        )
    )
    add(
        _sample(
            "django-secret-key",
            "secret-assignment",
            "DEBUG = False\nSECRET_KEY = '{}'\n",
            "django-insecure-" + fake(LOWER + DIGITS + "!@#$%^&*(-_=+)", 50, "django"),
        )
    )
    add(
        _sample(
            "basic-auth-header",
            "basic-auth",
            "curl -H 'Authorization: Basic {}' https://api.example.com/\n",
            b64(f"admin:{fake(ALNUM, 16, 'basic')}".encode()),
        )
    )
    return out


class NearMiss(NamedTuple):
    """A text no rule must take for a secret, and the rule it comes near."""

    rule: str
    text: str


def near_misses() -> list[NearMiss]:
    """Placeholders, documentation, hashes, identifiers and data that look like keys."""
    sha = fake(HEX, 40, "sha")
    untimed_jwt = ".".join(
        (
            base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("="),
            base64.urlsafe_b64encode(b'{"sub":"username:bob"}').decode().rstrip("="),
            fake(URLSAFE, 43, "untimed"),
        )
    )
    out = [
        # private-key
        NearMiss("private-key", pem("PUBLIC KEY", "pub")),
        NearMiss("private-key", pem("CERTIFICATE", "cert")),
        NearMiss(
            "private-key", "client-certificate-data: " + b64(pem("CERTIFICATE", "c").encode())
        ),
        NearMiss("private-key", "if line.startswith('-----BEGIN') and 'PRIVATE KEY' in line:"),
        NearMiss("private-key", "The file starts with `PuTTY-User-Key-File` and a version."),
        NearMiss("private-key", "ssh-ed25519 " + fake(B64, 68, "pub") + " user@host"),
        # aws
        NearMiss("aws-access-key-id", j("AK", "IA") + "1234 is too short"),
        NearMiss("aws-access-key-id", "AKIA_REPLACE_ME and ASIA/AKIA in prose"),
        NearMiss("aws-access-key-id", "MALAYSIA" + fake(UPPER, 4, "m") + " ASIANFOODS"),
        NearMiss("aws-secret-access-key", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}"),
        NearMiss("aws-secret-access-key", "aws_secret_access_key = <your-secret-key>"),
        NearMiss("aws-secret-access-key", f"commit {sha} by AKIA"),
        # jwt and base64
        NearMiss("aws-session-token", "aws_session_token = ${AWS_SESSION_TOKEN}"),
        NearMiss("google-oauth-secret", '"client_secret": "GOCSPX-<secret>"'),
        NearMiss("jwt", "header = base64url(json) and eyJ is how a JSON object starts"),
        NearMiss("jwt", "data:image/png;base64," + fake(B64, 300, "png")),
        NearMiss("basic-auth", "Authorization: Basic <base64 of user:password>"),
        NearMiss("basic-auth", "Authorization: Basic ${BASIC_AUTH}"),
        NearMiss("basic-auth", '"auth": "' + fake(B64, 24, "noauth") + '"'),  # no `user:`
        NearMiss("basic-auth", '"auth": "oauth2", "auth": true'),
        # tokens by prefix
        NearMiss("github-token", "ghp_short and ghp_ alone, github_pat_short, gho_xxx"),
        NearMiss("github-token", "ghp_" + "x" * 36),
        NearMiss("gitlab-token", "glpat-XXXXXXXXXXXXXXXXXXXX or glpat-<token>"),
        NearMiss("slack-token", "SLACK_TOKEN=xoxb-your-token-here and xapp-1-..."),
        NearMiss("slack-webhook", "https://hooks.slack.com/services/T000/B000/XXXX"),
        NearMiss("npm-token", "npm_config_cache=/tmp/npm_cache_directory_for_the_build1"),
        NearMiss("pypi-token", "password: pypi-<your token>, see pypi-upload-docs"),
        NearMiss("huggingface-token", "hf_hub_download(repo_id, filename) and hf_transfer"),
        NearMiss("huggingface-token", "hf_" + "x" * 34),
        NearMiss(
            "digitalocean-token",
            "dop_v1_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ),
        NearMiss("vault-token", "hvs.example and hvs.s.t.u in a dotted name"),
        NearMiss("sendgrid-api-key", "SG.apikey.example, np.SG.x and SG.RegisterModel()"),
        NearMiss("twilio-key", "MAC" + fake(HEX, 32, "mac") + " and " + "AC" + fake(HEX, 10, "a")),
        NearMiss("twilio-key", "The hash is " + fake(HEX, 32, "md5") + ", the sid AC..."),
        NearMiss("stripe-secret-key", "pk_live_" + fake(ALNUM, 24, "pk") + " is publishable"),
        NearMiss("stripe-secret-key", "sk_test_" + fake(ALNUM, 24, "test") + " is a test key"),
        NearMiss("stripe-webhook-secret", "whsec_... and whsec_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        NearMiss("azure-storage-key", "AccountKey=<key>;EndpointSuffix=core.windows.net"),
        NearMiss("azure-storage-key", "UseDevelopmentStorage=true; AccountKey=${AZ_KEY}"),
        NearMiss("azure-sas-signature", "?sv=2022-11-02&sig=<signature>"),
        NearMiss("google-api-key", "AIza is how the keys start; AIzaSy..."),
        NearMiss("openai-api-key", "a task-runner-for-everything-in-the-whole-world and risk-free"),
        NearMiss("openai-api-key", "pip install sk-learn-compatible-estimators-and-more-things"),
        NearMiss("openai-api-key", "OPENAI_API_KEY=sk-...  # your key"),
        NearMiss("openai-api-key", "disk-" + fake(ALNUM, 40, "disk") + " is a volume id"),
        NearMiss(
            "anthropic-api-key", "ANTHROPIC_API_KEY=sk-ant-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        ),
        # passwords
        NearMiss("netrc-password", "machine api.example.com login alice password <password>"),
        NearMiss("netrc-password", "a machine that stores a password in a keyring"),
        NearMiss(
            "url-password", "see https://user@example.com/path and https://example.com:8080/a@b"
        ),
        NearMiss("url-password", "my password@home is not a URL, nor is user:pass@host"),
        NearMiss("url-password", "postgres://user:${DB_PASSWORD}@db/app mysql://root:<password>@x"),
        NearMiss("url-password", "redis://:@localhost:6379 and amqp://guest:%(password)s@rabbit"),
        NearMiss("url-password", "`scheme://user:password@` and postgresql://user:pass@localhost"),
        NearMiss("url-password", "git@github.com:org/repo.git and ssh://git@host:22/x@y"),
        NearMiss("secret-assignment", "DB_PASSWORD=\nAPI_KEY=your-api-key-here\nTOKEN=${TOKEN}"),
        NearMiss("secret-assignment", "password = get_password()\ntoken = self.tokens[0]"),
        NearMiss("secret-assignment", "SECRET_KEY = os.environ['SECRET_KEY']"),
        NearMiss("secret-assignment", "password: '********'\nsecret: xxxxxxxxxxxx\ntoken: null"),
        NearMiss("secret-assignment", 'password_hash = "' + sha + '"\nmax_tokens = 4096'),
        NearMiss("secret-assignment", "token = next_token\napi_key: str = field(default='')"),
        NearMiss("secret-assignment", "password: {{ .Values.db.password }}\ntoken: <token>"),
        NearMiss("secret-assignment", "SECRET_KEY=changeme\nPASSWORD=example-password"),
        NearMiss("secret-assignment", "id = 550e8400-e29b-41d4-a716-446655440000  # a UUID"),
        NearMiss("secret-assignment", 'token_type = "bearer_authentication"'),
        # A tutorial's example passwords (fastapi's docs_src): words, not generated.
        NearMiss(
            "secret-assignment",
            '"johndoe": {"username": "johndoe", "password": "coneofsilence"},\n'
            'data = {"username": "johndoe", "password": "incorrect"}\n'
            'form = {"username": "deadpool", "password": "chimichangas4life"}\n',
        ),
        # A token written by hand for a test: claims with no time (fastapi's tests).
        NearMiss("jwt", f'headers = {{"Authorization": "Bearer {untimed_jwt}"}}'),
    ]
    return out
