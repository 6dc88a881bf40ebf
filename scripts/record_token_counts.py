#!/usr/bin/env python3
"""Record the o200k_base token counts of a table of text samples, for tests/fixtures.

    mkdir -p /tmp/tok && (cd /tmp/tok && npm install js-tiktoken)
    python scripts/record_token_counts.py --tokenizer-dir /tmp/tok
    python scripts/record_token_counts.py --tokenizer-dir /tmp/tok --recount

The samples are slices of this repository's files, the hand-written files in
tests/fixtures/token_samples/ (languages and prose the repository has none of), and text
generated from a fixed seed (base64, hex, tables, logs, minified code). Each is counted
once by `js-tiktoken`'s o200k_base encoding, run by node; the table, texts included, is
written to tests/fixtures/token_counts.json. `--recount` counts the texts already in the
table again instead of collecting them anew (to check the recorded counts).

    python scripts/record_token_counts.py --tokenizer-dir /tmp/tok --compare FILE...

counts the given files instead and prints how far the byte rule and the calibrated
estimate are from the tokenizer, on text the weights were not fitted to; nothing is
written.

    python scripts/record_token_counts.py --tokenizer-dir /tmp/tok \
        --repos ../typer=https://github.com/fastapi/typer ...

records tests/fixtures/token_counts_repos.json instead: files of real repositories (git
work trees, each with the address it was cloned from). Of each, the files `git ls-files`
names that are UTF-8 text (not binary as `glob` judges it, not empty, at most 1 MiB), at
most `REPO_FILES` of them spread evenly over the sorted list; per file its path, bytes,
o200k_base count and the counts `token_features` makes of all of it. The texts are not
stored (they are the repositories'): the table says where each came from (repository,
commit, path), and must be recorded again when the counted features change.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "token_counts.json"
HAND_WRITTEN = ROOT / "tests" / "fixtures" / "token_samples"
SLICE_BYTES = 3000
ENCODING = "o200k_base"
REPOS_FIXTURE = ROOT / "tests" / "fixtures" / "token_counts_repos.json"
REPO_FILES = 300  # files recorded of one repository, at most
REPO_FILE_BYTES = 1 << 20  # a larger file is left out

# (kind, repository path, which slice): slices of about SLICE_BYTES, cut at line ends.
REPO_SLICES = (
    ("python", "readmany/frame/heredoc.py", 0),
    ("python", "readmany/read/text.py", 0),
    ("python", "readmany/read/text.py", 2),
    ("python", "readmany/pack.py", 1),
    ("python", "readmany/units.py", 0),
    ("python", "tests/test_framing_properties.py", 1),
    ("python", "bench/run.py", 1),
    ("python", "bench/run.py", 5),
    ("python", "bench/make_trees.py", 2),
    ("python", "scripts/generate_docs.py", 1),
    ("markdown", "README.md", 0),
    ("markdown", "README.md", 2),
    ("markdown", "README.md", 4),
    ("markdown", "bench/README.md", 0),
    ("markdown", "tests/conformance/README.md", 0),
    ("roff", "man/readmany.1", 0),
    ("shell", "completions/readmany.bash", 0),
    ("shell", "completions/_readmany", 0),
    ("shell", "completions/readmany.fish", 0),
    ("toml", "pyproject.toml", 0),
    ("json", "tests/conformance/glob/golden/20_encodings.json", 0),
    ("json", "tests/conformance/glob/golden/34_outside_dotdot.json", 0),
    ("json", "tests/conformance/many/cases.json", 0),
    ("json", "tests/conformance/many/cases.json", 3),
    ("text", "tests/conformance/many/golden/31_all_26_words/output.txt", 0),
)

# Hand-written samples: the kind of each file, by its first suffix (a Python sample is
# `.py.txt`, so that linters leave its text alone).
HAND_WRITTEN_KINDS = {
    ".ts": "javascript",
    ".tsx": "javascript",
    ".js": "javascript",
    ".mjs": "javascript",
    ".go": "code",
    ".rs": "code",
    ".c": "code",
    ".html": "code",
    ".sql": "code",
    ".sh": "shell",
    ".md": "prose-non-ascii",
    ".txt": "prose-non-ascii",
    ".py": "python",
}


def slices(text: str, size: int) -> list[str]:
    """`text` cut into pieces of about `size` UTF-8 bytes, each ending at a line end."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for line in text.splitlines(keepends=True):
        current.append(line)
        used += len(line.encode("utf-8"))
        if used >= size:
            pieces.append("".join(current))
            current, used = [], 0
    if current:
        pieces.append("".join(current))
    return pieces


def repo_samples() -> list[dict[str, str]]:
    samples = []
    for kind, path, index in REPO_SLICES:
        text = (ROOT / path).read_text(encoding="utf-8")
        pieces = slices(text, SLICE_BYTES)
        samples.append(
            {"name": f"{path}#{index}", "path": path, "kind": kind, "text": pieces[index]}
        )
    return samples


def hand_written_samples() -> list[dict[str, str]]:
    samples = []
    for file in sorted(HAND_WRITTEN.iterdir()):
        text = file.read_text(encoding="utf-8")
        name = f"tests/fixtures/token_samples/{file.name}"
        samples.append(
            {
                "name": name,
                "path": file.name,
                "kind": HAND_WRITTEN_KINDS[file.suffixes[0]],
                "text": text,
            }
        )
    return samples


def minify_js(text: str) -> str:
    """A crude minifier: comments, indentation and line breaks out (enough to sample)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    text = re.sub(r"\n\s*", "", text)
    return re.sub(r" ?([=+\-*/<>{}(),;:?]) ?", r"\1", text)


def generated_samples() -> list[dict[str, str]]:
    rng = random.Random(14)
    words = [
        "alpha", "beta", "gamma", "delta", "file", "path", "token", "budget", "render", "parse",
        "frame", "index", "cache", "store", "value", "queue", "error", "result", "stream",
        "buffer", "record", "table",
    ]  # fmt: skip
    out: list[dict[str, str]] = []

    def add(name: str, path: str, kind: str, text: str) -> None:
        out.append({"name": f"generated:{name}", "path": path, "kind": kind, "text": text})

    raw = bytes(rng.randrange(256) for _ in range(2200))
    add("base64", "image.txt", "data", base64.b64encode(raw).decode("ascii"))
    add(
        "data-url",
        "logo.png",
        "data",
        "data:image/png;base64," + base64.encodebytes(raw[:1800]).decode("ascii"),
    )
    hexdump = []
    for offset in range(0, 1024, 16):
        row = raw[offset : offset + 16]
        hexes = " ".join(f"{b:02x}" for b in row)
        shown = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        hexdump.append(f"{offset:08x}: {hexes}  {shown}")
    add("hexdump", "dump.txt", "data", "\n".join(hexdump) + "\n")

    lock = {
        "name": "app",
        "lockfileVersion": 3,
        "packages": {
            f"node_modules/{rng.choice(words)}-{rng.choice(words)}": {
                "version": f"{rng.randrange(10)}.{rng.randrange(30)}.{rng.randrange(20)}",
                "resolved": f"https://registry.npmjs.org/pkg/-/pkg-{rng.randrange(99)}.tgz",
                "integrity": "sha512-"
                + base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode(),
                "dev": rng.random() < 0.5,
            }
            for _ in range(12)
        },
    }
    add("lockfile", "package-lock.json", "json", json.dumps(lock, indent=2))
    records = [
        {
            "id": rng.randrange(10**6),
            "name": f"{rng.choice(words)} {rng.choice(words)}",
            "score": round(rng.random() * 100, 3),
            "tags": rng.sample(words, 3),
            "active": rng.random() < 0.7,
        }
        for _ in range(24)
    ]
    add("json-records", "records.json", "json", json.dumps(records, indent=2))
    add("json-minified", "records.min.json", "minified", json.dumps(records, separators=(",", ":")))
    add("json-deep", "config.json", "whitespace", _deep_json(rng, words))

    js = (HAND_WRITTEN / "retry.mjs").read_text(encoding="utf-8")
    add("js-minified", "retry.min.js", "minified", minify_js(js))
    ts = (HAND_WRITTEN / "event_store.ts").read_text(encoding="utf-8")
    add("ts-minified", "store.min.js", "minified", minify_js(ts))

    rows = ["id,name,city,amount,date"]
    for number in range(80):
        rows.append(
            f"{number},{rng.choice(words).title()} {rng.choice(words).title()},"
            f"{rng.choice(['Berlin', 'Lyon', 'Osaka', 'Lima', 'Oslo'])},"
            f"{rng.randrange(100000) / 100:.2f},"
            f"2024-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
        )
    add("csv", "sales.csv", "data", "\n".join(rows) + "\n")

    logs = []
    for second in range(40):
        level = rng.choice(["INFO", "INFO", "DEBUG", "WARN", "ERROR"])
        logs.append(
            f"2024-05-14T10:{second // 60:02d}:{second % 60:02d}.{rng.randrange(1000):03d}Z "
            f"{level:<5} [{rng.choice(words)}-{rng.randrange(8)}] "
            f"{rng.choice(words)} {rng.choice(words)} took {rng.randrange(2000)}ms "
            f"id={rng.randrange(16**8):08x}"
        )
    add("log", "server.log", "data", "\n".join(logs) + "\n")

    table = [f"{'name':<28}{'bytes':>12}{'lines':>10}{'tokens':>10}"]
    for _ in range(45):
        name = "/".join(rng.choice(words) for _ in range(rng.randrange(1, 3)))
        table.append(
            f"{name + '.py':<28}{rng.randrange(10**6):>12,}{rng.randrange(5000):>10,}"
            f"{rng.randrange(10**5):>10,}"
        )
    add("aligned-table", "sizes.txt", "whitespace", "\n".join(table) + "\n")

    tree = ["."]
    for _ in range(60):
        depth = rng.randrange(1, 6)
        tree.append(
            "│   " * (depth - 1) + "├── " + rng.choice(words) + rng.choice([".py", "/", ".md"])
        )
    add("tree", "tree.txt", "whitespace", "\n".join(tree) + "\n")

    indented = []
    for _ in range(50):
        depth = rng.randrange(0, 7)
        indented.append(
            "\t" * depth + f"{rng.choice(words)}({rng.choice(words)}, {rng.randrange(99)})"
        )
    add("tabs", "nested.mk", "whitespace", "\n".join(indented) + "\n")

    yaml = ["services:"]
    for _ in range(10):
        name = rng.choice(words)
        yaml += [
            f"  {name}:",
            f"    image: registry.example.org/{name}:{rng.randrange(9)}.{rng.randrange(9)}",
            "    restart: unless-stopped",
            "    environment:",
            f"      - {name.upper()}_PORT={rng.randrange(1024, 65535)}",
            f"      - LOG_LEVEL={rng.choice(['debug', 'info', 'warn'])}",
            "    ports:",
            f'      - "{rng.randrange(1024, 9999)}:{rng.randrange(1024, 9999)}"',
        ]
    add("yaml", "compose.yaml", "config", "\n".join(yaml) + "\n")

    emoji = []
    for _ in range(60):
        emoji.append(
            f"- {rng.choice('✅❌⚠️🚀🔥📦🐛✨')} {rng.choice(words)} — {rng.choice(words)} "
            f"→ {rng.choice(words)} ({rng.randrange(100)} %) «{rng.choice(words)}»"
        )
    add("symbols", "changelog.md", "prose-non-ascii", "\n".join(emoji) + "\n")

    numbers = " ".join(f"{rng.random() * 1000:.4f}" for _ in range(350))
    add("numbers", "weights.txt", "data", numbers + "\n")
    return out


def _deep_json(rng: random.Random, words: list[str]) -> str:
    def node(depth: int) -> object:
        if depth == 0:
            return rng.choice([rng.randrange(100), rng.choice(words), True, None])
        return {rng.choice(words): node(depth - 1) for _ in range(rng.randrange(1, 4))}

    return json.dumps(node(6), indent=8)


NODE_COUNTER = """
const { getEncoding } = require("js-tiktoken");
const encoding = getEncoding(process.argv[1]);
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const texts = JSON.parse(input);
  // A special token's text (`<|endoftext|>`) counts as the ordinary text it is in a prompt.
  process.stdout.write(JSON.stringify(texts.map((t) => encoding.encode(t, [], []).length)));
});
"""


def count_tokens(texts: list[str], tokenizer_dir: Path) -> list[int]:
    """o200k_base counts of `texts`, by js-tiktoken installed in `tokenizer_dir`."""
    done = subprocess.run(
        ["node", "-e", NODE_COUNTER, ENCODING],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        cwd=tokenizer_dir,
        check=True,
    )
    counts = json.loads(done.stdout)
    assert isinstance(counts, list) and len(counts) == len(texts)
    return [int(c) for c in counts]


def tokenizer_version(tokenizer_dir: Path) -> str:
    package = tokenizer_dir / "node_modules" / "js-tiktoken" / "package.json"
    return str(json.loads(package.read_text(encoding="utf-8"))["version"])


def compare(files: list[Path], tokenizer_dir: Path) -> int:
    """Print the estimates' errors on `files` (UTF-8 text; others are skipped): per file,
    and of their sum (what `--stats` shows of a directory)."""
    from readmany.read.measure import measure_for_stats
    from readmany.tokens import estimate_tokens, estimate_tokens_for

    datas = []
    for file in files:
        data = file.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if data:
            datas.append(data)
    counts = count_tokens([data.decode("utf-8") for data in datas], tokenizer_dir)
    for label, estimate in (
        ("bytes/4", lambda data: estimate_tokens(len(data))),
        ("estimate_tokens_for", estimate_tokens_for),
        ("all of it", lambda data: estimate_tokens_for(data, len(data))),
        ("--stats (512 bytes)", lambda data: measure_for_stats([data], len(data)).tokens),
    ):
        estimates = [estimate(data) for data in datas]
        errors = sorted(
            abs(e - t) / t for e, t in zip(estimates, counts, strict=True) if t
        )  # fmt: skip
        total = sum(counts)
        print(
            f"{label:20} {len(errors)} files: mean |error| {sum(errors) / len(errors):.1%},"
            f" median {errors[len(errors) // 2]:.1%}, max {max(errors):.1%};"
            f" sum {(sum(estimates) - total) / total:+.1%}"
        )
    return 0


def repo_files(checkout: Path) -> list[tuple[str, bytes]]:
    """The text files of a git work tree that are recorded: (path, bytes), sorted."""
    from readmany.read.classify import BINARY_SNIFF_BYTES, is_binary

    listed = subprocess.run(
        ["git", "-C", str(checkout), "ls-files", "-z"], capture_output=True, check=True
    ).stdout.decode("utf-8", "surrogateescape")
    found = []
    for path in sorted(name for name in listed.split("\0") if name):
        file = checkout / path
        if file.is_symlink() or not file.is_file():
            continue  # a link, a submodule's directory, a file deleted in the work tree
        data = file.read_bytes()
        if not data or len(data) > REPO_FILE_BYTES or is_binary(data[:BINARY_SNIFF_BYTES]):
            continue
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        found.append((path, data))
    if len(found) > REPO_FILES:  # spread evenly over the sorted list
        found = [found[i * len(found) // REPO_FILES] for i in range(REPO_FILES)]
    return found


def record_repos(specs: list[str], tokenizer_dir: Path) -> int:
    """Record `REPOS_FIXTURE` from `DIR=URL` checkouts."""
    from readmany.tokens import token_features

    repos = []
    files = []
    for spec in specs:
        directory, _, url = spec.partition("=")
        checkout = Path(directory)
        commit = subprocess.run(
            ["git", "-C", directory, "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        name = url.rstrip("/").rpartition("/")[2] or checkout.name
        repos.append({"name": name, "url": url, "commit": commit})
        found = repo_files(checkout)
        counts = count_tokens([data.decode("utf-8") for _, data in found], tokenizer_dir)
        for (path, data), tokens in zip(found, counts, strict=True):
            features = [round(value) for value in token_features(data, len(data))]
            files.append(
                {"repo": name, "path": path, "bytes": len(data), "tokens": tokens,
                 "features": features}
            )  # fmt: skip
        print(f"{name}: {len(found)} files", file=sys.stderr)
    table = {
        "encoding": ENCODING,
        "tokenizer": f"js-tiktoken {tokenizer_version(tokenizer_dir)}",
        "features": "readmany.tokens.token_features of the whole file, in WEIGHTS order",
        "repos": repos,
        "files": files,
    }
    text = json.dumps(table, ensure_ascii=False, separators=(",", ":"))
    # One file a line: a diff of the table shows which files changed.
    text = text.replace(',{"repo":', ',\n{"repo":')
    REPOS_FIXTURE.write_text(text + "\n", encoding="utf-8")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer-dir", type=Path, required=True)
    parser.add_argument("--recount", action="store_true")
    parser.add_argument("--compare", nargs="+", type=Path, metavar="FILE")
    parser.add_argument("--repos", nargs="+", metavar="DIR=URL")
    args = parser.parse_args()
    if args.compare:
        return compare(args.compare, args.tokenizer_dir)
    if args.repos:
        return record_repos(args.repos, args.tokenizer_dir)
    if args.recount:
        samples = json.loads(FIXTURE.read_text(encoding="utf-8"))["samples"]
        for sample in samples:
            del sample["tokens"], sample["bytes"]
    else:
        samples = repo_samples() + hand_written_samples() + generated_samples()
    counts = count_tokens([s["text"] for s in samples], args.tokenizer_dir)
    table = []
    for sample, tokens in zip(samples, counts, strict=True):
        size = len(sample["text"].encode("utf-8"))
        table.append({**sample, "bytes": size, "tokens": tokens})
    fixture = {
        "encoding": ENCODING,
        "tokenizer": f"js-tiktoken {tokenizer_version(args.tokenizer_dir)}",
        "samples": table,
    }
    FIXTURE.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    total_bytes = sum(s["bytes"] for s in table)
    total_tokens = sum(s["tokens"] for s in table)
    print(f"{len(table)} samples, {total_bytes} bytes, {total_tokens} tokens", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
