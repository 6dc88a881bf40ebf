"""Secrets end to end: every rule's fake key caught by `--secrets` through the installed
command (warn, skip, redact), let through with `off`, and files refused by name."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import run_readmany
from test_secrets import PLANTED

KEYS = [(rule, line) for rule, line, _ in PLANTED]


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    for number, (_, line) in enumerate(KEYS):
        (tmp_path / f"k{number:02d}.txt").write_text(f"first\n{line}\nlast\n")
    (tmp_path / "plain.txt").write_text("nothing to see\n")
    return tmp_path


def names() -> list[str]:
    return [f"k{number:02d}.txt" for number in range(len(KEYS))]


def test_off_lets_every_key_through(planted: Path) -> None:
    result = run_readmany(["glob", "*.txt", "--secrets", "off"], cwd=planted)
    assert result.returncode == 0 and result.stderr == b""
    for _, line in KEYS:
        assert line.encode() in result.stdout


def test_warn_names_each_file_line_and_rule(planted: Path) -> None:
    result = run_readmany(["glob", "*.txt", "--secrets", "warn", "--json"], cwd=planted)
    assert result.returncode == 0
    found = json.loads(result.stdout)["details"]["secrets"]
    assert [(f["path"], f["line"], f["rule"]) for f in found] == [
        (name, 2, rule) for name, (rule, _) in zip(names(), KEYS, strict=True)
    ]
    lines = result.stderr.decode().splitlines()
    assert lines == [
        f"readmany: {name}: looks like a secret: line 2 ({rule}); --secrets skip leaves "
        "such files out, --secrets redact masks them"
        for name, (rule, _) in zip(names(), KEYS, strict=True)
    ]


def test_skip_leaves_every_such_file_out(planted: Path) -> None:
    result = run_readmany(["glob", "*.txt", "--secrets", "skip", "--json"], cwd=planted)
    details = json.loads(result.stdout)["details"]
    assert details["files"] == ["plain.txt"]
    assert {s["path"]: s["reason"] for s in details["skipped"]} == dict.fromkeys(names(), "secret")


def test_redact_masks_every_key_and_keeps_the_lines(planted: Path) -> None:
    result = run_readmany(["glob", "*.txt", "--secrets", "redact"], cwd=planted)
    text = result.stdout.decode()
    for rule, line in KEYS:
        assert line not in text
        assert f"[REDACTED:{rule}]" in text
    assert text.count("\nfirst\n") == len(KEYS) and text.count("\nlast\n") == len(KEYS) + 0


def test_many_and_hashline_warn_and_skip(planted: Path) -> None:
    many = run_readmany(["many", "k00.txt", "plain.txt", "--secrets", "warn"], cwd=planted)
    assert many.returncode == 0 and KEYS[0][1].encode() in many.stdout
    assert b"k00.txt: looks like a secret: line 2 (aws-access-key-id)" in many.stderr
    redacted = run_readmany(["many", "k00.txt", "--secrets", "redact"], cwd=planted)
    assert b"[REDACTED:aws-access-key-id]" in redacted.stdout
    assert KEYS[0][1].encode() not in redacted.stdout
    warned = run_readmany(["hashline", "k00.txt", "--secrets", "warn"], cwd=planted)
    assert warned.stderr.decode().splitlines() == [  # it does not offer what it refuses
        "readmany: k00.txt: looks like a secret: line 2 (aws-access-key-id); "
        "--secrets skip leaves such files out"
    ]
    hashline = run_readmany(["hashline", "k00.txt", "--secrets", "skip"], cwd=planted)
    assert hashline.returncode == 1 and hashline.stdout == b""
    refused = run_readmany(["hashline", "k00.txt", "--secrets", "redact"], cwd=planted)
    assert refused.returncode == 2
    assert b"--secrets redact would change the bytes the anchors stand for" in refused.stderr


def test_copy_warns_by_default_and_compat_never_scans(planted: Path, tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "xclip").write_text("#!/bin/sh\ncat > /dev/null\n")
    (fake / "xclip").chmod(0o755)
    env = {"PATH": f"{fake}:/usr/bin:/bin", "DISPLAY": ":0"}
    copied = run_readmany(["glob", "k00.txt", "--copy"], cwd=planted, env=env)
    assert b"k00.txt: looks like a secret" in copied.stderr
    compat = run_readmany(["glob", "--compat", "k00.txt", "--secrets", "warn"], cwd=planted)
    assert compat.returncode == 2
    assert b"--compat writes the reference's text: leave out --secrets" in compat.stderr


@pytest.mark.parametrize(
    "name", [".env.local", ".envrc", ".netrc", ".git-credentials", "id_ed25519", "server.pem"]
)
def test_secret_files_are_refused_by_name_from_every_source(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text("SECRET\n")
    (tmp_path / "a.txt").write_text("a\n")
    for args, stdin in (
        (["glob", "**", "--json"], b""),
        (["glob", name, "--json"], b""),
        (["glob", "--stdin", "--json"], name.encode()),
    ):
        result = run_readmany(args, cwd=tmp_path, stdin=stdin)
        assert b"SECRET" not in result.stdout
        skipped = json.loads(result.stdout)["details"]["skipped"]
        assert {"path": name, "reason": "secret file"} in skipped
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-f", name, "a.txt"], cwd=tmp_path, check=True)
    staged = run_readmany(["glob", "--staged", "--with-diff"], cwd=tmp_path)
    assert b"SECRET" not in staged.stdout and b"--- a.txt ---" in staged.stdout


def test_a_masked_text_is_weighed_as_it_is_shown(planted: Path) -> None:
    # The tokens of a masked file are those of what is shown, not of what was read.
    from readmany.frame.formats import framing_for

    result = run_readmany(["glob", "k00.txt", "--secrets", "redact", "--json"], cwd=planted)
    report = json.loads(result.stdout)
    (record,) = report["details"]["read"]
    body = report["content"].split("--- k00.txt ---\n\n", 1)[1].split("\n\n\n--- End")[0]
    assert "[REDACTED:" in body
    shown = framing_for("text").tokens("k00.txt", body, 1)
    read = framing_for("text").tokens("k00.txt", (planted / "k00.txt").read_text(), 1)
    assert record["estimatedTokens"] == round(shown) != round(read)


@pytest.mark.parametrize("budget", [[], ["--max-tokens", "10k"]], ids=["plain", "budget"])
@pytest.mark.parametrize("mode", [["--staged"], ["--changed", "HEAD"]])
def test_the_diff_of_with_diff_is_held_to_secrets_too(
    tmp_path: Path, mode: list[str], budget: list[str]
) -> None:
    """A key masked (or a file left out) in the files must not be shown by the diff."""
    key = "gh" + "p_0123456789abcdefghijklmnopqrstuvwxyzAB"
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    (tmp_path / "c.txt").write_text("base\n")
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True, env=env)
    subprocess.run([*git, "add", "c.txt"], cwd=tmp_path, check=True, env=env)
    subprocess.run([*git, "commit", "-qm", "i"], cwd=tmp_path, check=True, env=env)
    (tmp_path / "c.txt").write_text(f"base\ntok={key}\n")
    subprocess.run([*git, "add", "c.txt"], cwd=tmp_path, check=True, env=env)
    label = "git diff --cached" if mode == ["--staged"] else "git diff HEAD"
    args = ["glob", *mode, "--with-diff", *budget]
    redacted = run_readmany([*args, "--secrets", "redact", "--json"], cwd=tmp_path)
    content = json.loads(redacted.stdout)["content"]
    assert key.encode() not in redacted.stdout and "[REDACTED:github-token]" in content
    # The file shows the key masked; its hunks are left out of the diff, which might show
    # a key's lines without the line that marks it (a hunk inside a key block).
    assert f"--- {label} ---" in content
    assert "[its changes are left out: c.txt holds what looks like a secret]" in content
    skipped = run_readmany([*args, "--secrets", "skip", "--json"], cwd=tmp_path)
    details = json.loads(skipped.stdout)["details"]
    assert key.encode() not in skipped.stdout
    assert {"path": "c.txt", "reason": "secret"} in details["skipped"]
    assert label not in [entry["path"] for entry in details["skipped"]]  # the diff stays,
    assert "[its changes are left out: c.txt" in json.loads(skipped.stdout)["content"]
    warned = run_readmany([*args, "--secrets", "warn"], cwd=tmp_path)
    assert f"readmany: {label}: looks like a secret".encode() in warned.stderr


def test_the_diff_leaves_out_files_whose_names_git_quotes(tmp_path: Path) -> None:
    """git quotes a name with bytes past ASCII or a quote in a diff header: the file's
    changes are left out all the same."""
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    (tmp_path / "dé").mkdir()
    (tmp_path / "dé" / ".npmrc").write_text("registry=https://r.example\n")
    (tmp_path / 'qu"ote.py').write_text("x = 1\n")
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True, env=env)
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True, env=env)
    subprocess.run([*git, "commit", "-qm", "i"], cwd=tmp_path, check=True, env=env)
    token = "np" + "m_abcdefghijklmnopqrstuvwxyz0123456789"
    with open(tmp_path / "dé" / ".npmrc", "a") as npmrc:
        npmrc.write(f"//r/:_authToken={token}\n")
    key = "gh" + "p_0123456789abcdefghijklmnopqrstuvwxyzAB"
    (tmp_path / 'qu"ote.py').write_text(f"x = 1\ntok = '{key}'\n")
    for secrets in ([], ["--secrets", "redact"], ["--secrets", "skip"]):
        result = run_readmany(["glob", "--changed", "HEAD", "--with-diff", *secrets], cwd=tmp_path)
        assert token.encode() not in result.stdout
        if secrets:
            assert key.encode() not in result.stdout


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-16-be"])
def test_redact_masks_keys_in_utf16_and_utf32_files(tmp_path: Path, encoding: str) -> None:
    from secret_corpus import samples

    chosen = [s for s in samples() if s.name in ("huggingface-token", "pem-ec", "env-assignment")]
    text = "".join(sample.text for sample in chosen)
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    (tmp_path / "wide.txt").write_bytes(data)
    result = run_readmany(["glob", "wide.txt", "--secrets", "redact"], cwd=tmp_path)
    shown = result.stdout.decode()
    assert result.returncode == 0
    for sample in chosen:
        assert f"[REDACTED:{sample.rule}]" in shown
        for secret in sample.secrets:
            assert secret not in shown


def test_the_corpus_through_the_command(tmp_path: Path) -> None:
    """Each format in a file of its own: `redact` masks it in glob and many, `warn` names it."""
    from secret_corpus import samples

    corpus = samples()
    for number, sample in enumerate(corpus):
        (tmp_path / f"f{number:02d}.txt").write_text(sample.text)
    result = run_readmany(["glob", "f*.txt", "--secrets", "redact", "--json"], cwd=tmp_path)
    shown = json.loads(result.stdout)["content"]
    for sample in corpus:
        for secret in sample.secrets:
            assert secret not in shown, sample.name
    many = run_readmany(
        ["many", *(f"f{n:02d}.txt" for n in range(len(corpus))), "--secrets", "redact"],
        cwd=tmp_path,
    )
    for sample in corpus:
        for secret in sample.secrets:
            assert secret.encode() not in many.stdout, sample.name
    warned = run_readmany(["glob", "f*.txt", "--secrets", "warn", "--json"], cwd=tmp_path)
    assert {f["path"] for f in json.loads(warned.stdout)["details"]["secrets"]} == {
        f"f{n:02d}.txt" for n in range(len(corpus))
    }
