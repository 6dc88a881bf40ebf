"""`readmany mcp` driven over stdio by the SDK's own client, as an agent would drive it.

Each tool's text must be what `--compat` writes for the same request, byte for byte, on
the conformance fixtures; every path a tool is given stays inside the roots; every
refusal is a tool error, and the server keeps serving after it. One server a root.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio.from_thread
import pytest
from helpers import readmany_command, run_readmany
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

HERE = Path(__file__).parent
MANY = HERE / "conformance" / "many"
GLOB = HERE / "conformance" / "glob"
HASHLINE = HERE / "conformance" / "hashline" / "golden"


class Server:
    """A `readmany mcp` subprocess and a client session to it, called synchronously."""

    def __init__(self, *args: str, cwd: Path | None = None) -> None:
        command = readmany_command()
        # The whole environment: the SDK's default passes on a few variables only, and
        # PYTHONPATH (a work tree's code, not the installed one's) is not among them.
        params = StdioServerParameters(
            command=command[0], args=[*command[1:], "mcp", *args], cwd=cwd, env=dict(os.environ)
        )
        self._stack = ExitStack()
        self.errors = open(os.devnull, "w")  # noqa: SIM115 (closed with the server)
        self._stack.callback(self.errors.close)
        portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal())
        self.portal = portal
        transport = portal.wrap_async_context_manager(stdio_client(params, errlog=self.errors))
        read, write = self._stack.enter_context(transport)
        session = portal.wrap_async_context_manager(ClientSession(read, write))
        self.session: ClientSession = self._stack.enter_context(session)
        portal.call(self.session.initialize)

    def tools(self) -> dict[str, Any]:
        listed = self.portal.call(self.session.list_tools)
        return {tool.name: tool for tool in listed.tools}

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        return self.portal.call(self.session.call_tool, name, arguments)

    def text(self, name: str, arguments: dict[str, Any]) -> str:
        result = self.call(name, arguments)
        assert not result.is_error, result.content[0].text
        return str(result.content[0].text)

    def refused(self, name: str, arguments: dict[str, Any]) -> str:
        result = self.call(name, arguments)
        assert result.is_error, result.content[0].text
        assert len(result.content) == 1
        return str(result.content[0].text)

    def close(self) -> None:
        self._stack.close()


@pytest.fixture(scope="module")
def many_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Compared with the CLI, not the goldens: a root of its own, not theirs.
    root = Path(os.path.realpath(tmp_path_factory.mktemp("mcp-many"))) / "fx"
    subprocess.run([sys.executable, str(MANY / "make_fixtures.py"), str(root)], check=True)
    return root


@pytest.fixture(scope="module")
def many_server(many_root: Path) -> Iterator[Server]:
    server = Server("--root", str(many_root))
    yield server
    server.close()


def test_tools_and_schemas(many_server: Server) -> None:
    tools = many_server.tools()
    assert sorted(tools) == ["context_stats", "read", "read_many", "read_many_files"]
    files = tools["read_many"].input_schema["properties"]["files"]
    assert (files["minItems"], files["maxItems"]) == (1, 26)
    assert tools["read_many"].input_schema["required"] == ["files"]
    item = files["items"]
    assert item["required"] == ["path"] and {"offset", "limit"} <= set(item["properties"])
    glob = tools["read_many_files"].input_schema["properties"]
    assert {"include", "exclude", "recursive", "useDefaultExcludes", "paths"} <= set(glob)
    assert {"file_filtering_options", "maxTokens", "format"} <= set(glob)
    assert set(tools["read"].input_schema["properties"]) == {"path", "offset", "limit"}
    for tool in tools.values():
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.destructive_hint is False


def test_read_many_is_compat_text(many_server: Server, many_root: Path, tmp_path: Path) -> None:
    cases = json.loads((MANY / "cases.json").read_text(encoding="utf-8"))
    compared = 0
    for case in cases:
        params = json.loads(json.dumps(case["params"]).replace("{ROOT}", str(many_root)))
        result = many_server.call("read_many", params)
        golden = json.loads((MANY / "golden" / case["name"] / "result.json").read_text())
        paths = [f.get("path", "") for f in params["files"]]
        if case["cwd"] or any(".." in p.split("/") for p in paths):
            assert result.is_error, case["name"]  # '..' leaves the root
            assert "'..' is not allowed" in result.content[0].text
            continue
        request = tmp_path / "request.json"
        request.write_text(json.dumps(params), encoding="utf-8")
        cli = run_readmany(["many", "--compat", "--request", str(request)], cwd=many_root)
        if golden["isError"] or case["name"] == "50_27_files_direct_no_validation":
            # The schema's bounds (27 files, none, no path), in the CLI's own words.
            assert result.is_error, case["name"]
            assert cli.stderr == f"readmany: {result.content[0].text}\n".encode(), case["name"]
            continue
        assert not result.is_error, (case["name"], result.content[0].text)
        assert result.content[0].text.encode("utf-8") + b"\n" == cli.stdout, case["name"]
        details = result.meta["readmany/details"]
        assert details["processedCount"] == len(details["files"])
        assert "packing" in details
        compared += 1
    assert compared >= 35


def test_max_tokens_is_a_budget(many_server: Server) -> None:
    whole = many_server.text("read_many", {"files": [{"path": "big/3000.txt"}]})
    files = [{"path": "big/3000.txt"}, {"path": "small/a.txt"}]
    result = many_server.call("read_many", {"files": files, "maxTokens": 200})
    cut = result.content[0].text
    assert len(cut) < 1000 < len(whole)
    packing = result.meta["readmany/details"]["packing"]
    assert packing["partialIncludedPath"] == "big/3000.txt"  # as the reference says a cut
    # read_many_files has no budget in the reference; here a result keeps the limit.
    text = many_server.text("read_many_files", {"include": ["big/**"]})
    assert len(text.encode("utf-8")) <= 51_200
    assert text.count("\n") < 2000
    assert "All 6 take" in text  # what was left out is said
    small = many_server.text("read_many_files", {"include": ["big/**"], "maxTokens": 1000})
    assert len(small) < len(text) / 2


def test_safety(many_server: Server, many_root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours\n")
    link = many_root / "small" / "link_out.txt"
    link.unlink(missing_ok=True)
    link.symlink_to(outside)
    secret = many_root / "small" / ".env"
    secret.write_text("TOKEN=1\n")
    try:
        said = many_server.refused("read_many", {"files": [{"path": str(outside)}]})
        assert said.startswith(f"{outside}: outside the roots")
        said = many_server.refused("read", {"path": "small/link_out.txt"})
        assert (
            said == f"small/link_out.txt: a link that leads out of the root {many_root}: not read"
        )
        said = many_server.refused("read_many", {"files": [{"path": "small/.env"}]})
        assert said == "small/.env: not read: a secret file (env file), which readmany never reads"
        npmrc = many_root / "small" / ".npmrc"
        npmrc.write_text("//registry.npmjs.org/:_authToken=abcdef0123456789abcdef0123456789\n")
        for tool, arguments in (
            ("read_many", {"files": [{"path": "small/.npmrc"}]}),
            ("read", {"path": "small/.npmrc"}),
        ):
            said = many_server.refused(tool, arguments)
            assert said == (
                "small/.npmrc: not read: a secret file (it holds a token or password), "
                "which readmany never reads"
            )
        npmrc.unlink()
        said = many_server.refused("read_many", {"files": [{"path": "small/../../etc/passwd"}]})
        assert "'..' is not allowed" in said
        # Malformed requests: a schema error each, never a crash.
        many_server.refused("read_many", {"files": "small/a.txt"})
        many_server.refused("read_many", {})
        many_server.refused("read", {"path": "small/a.txt", "offset": 0})
        huge = {"files": [{"path": "small/a.txt"}] * 10_000}
        said = many_server.refused("read_many", huge)
        assert said == (
            "too many files: 10000 given, at most 26 per call "
            "(files: must NOT have more than 26 items)"
        )
        # A path no file system holds: the reference's read error, packed out of the budget.
        result = many_server.call("read_many", {"files": [{"path": "x" * 1_000_000}]})
        assert result.meta["readmany/details"]["errorCount"] == 1
        # Edit is not offered without --allow-edit.
        result = many_server.call("edit", {"path": "small/a.txt", "hash": "x", "edits": []})
        assert result.is_error
        # Still serving.
        assert many_server.text("read_many", {"files": [{"path": "small/a.txt"}]})
    finally:
        link.unlink()
        secret.unlink()


@pytest.fixture(scope="module")
def glob_fixtures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("mcp-glob") / "fixtures"
    subprocess.run(
        [sys.executable, str(GLOB / "make_fixtures.py"), str(dest)], check=True, capture_output=True
    )
    return Path(os.path.realpath(dest))


def test_read_many_files_is_compat_text(glob_fixtures: Path) -> None:
    from test_glob_conformance import CASES, DEPARTURES, case_args, load

    servers: dict[str, Server] = {}
    try:
        for name in (c for c in CASES if c not in DEPARTURES):
            case, _golden = load(name)
            root = str(glob_fixtures / case["fixture"])
            if case["fixture"] not in servers:
                servers[case["fixture"]] = Server("--root", root)
            params = json.loads(json.dumps(case["params"]).replace("{ROOT}", root))
            result = servers[case["fixture"]].call("read_many_files", params)
            assert not result.is_error, (name, result.content[0].text)
            args = case_args(case["params"], root)
            done = run_readmany(["glob", "--compat", "--json", *args], cwd=root)
            cli = json.loads(done.stdout)
            assert result.content[0].text == cli["content"], name
            media = [
                {"mimeType": c.mime_type, "data": c.data}
                if c.type == "image"
                else {"mimeType": c.resource.mime_type, "data": c.resource.blob}
                for c in result.content[1:]
            ]
            assert media == [
                {"mimeType": a["mimeType"], "data": a["data"]} for a in cli["attachments"]
            ], name
        assert len(servers) == 2
        repo = servers["repo"]
        stats = repo.text("context_stats", {"include": ["**"]})
        flags = ["--ignore-file", ".geminiignore", "--exclude", "**/GEMINI.md"]  # as the tool
        cli = run_readmany(["glob", "--stats", *flags, "**"], cwd=glob_fixtures / "repo")
        assert stats.encode("utf-8") + b"\n" == cli.stdout
        xml = repo.text("read_many_files", {"include": ["README.md"], "format": "xml"})
        assert xml.startswith("<documents>")
    finally:
        for server in servers.values():
            server.close()


@pytest.fixture(scope="module")
def edit_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(os.path.realpath(tmp_path_factory.mktemp("mcp-edit")))


@pytest.fixture(scope="module")
def edit_server(edit_root: Path) -> Iterator[Server]:
    server = Server("--root", str(edit_root), "--allow-edit")
    yield server
    server.close()


def test_read_is_hashline_compat(edit_server: Server, edit_root: Path) -> None:
    vectors = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(HASHLINE.glob("*.json"))]
    compared = 0
    for vector in vectors:
        if vector["kind"] != "read" or str(vector["path"]).startswith("/"):
            continue
        target = edit_root / "v" / str(vector["path"])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(vector["input_b64"]))
        path = f"v/{vector['path']}"
        args = {k: vector[k] for k in ("offset", "limit") if vector[k] is not None}
        cli_args = [x for k, v in args.items() for x in (f"--{k}", str(v))]
        cli = run_readmany(["hashline", "--compat", path, *cli_args], cwd=edit_root)
        result = edit_server.call("read", {"path": path, **args})
        if cli.returncode:
            assert result.is_error
            assert cli.stderr.decode() == f"readmany: {result.content[0].text}\n"
        else:
            assert result.content[0].text.encode("utf-8", "surrogatepass") + b"\n" == cli.stdout
        target.unlink()
        compared += 1
    assert compared >= 20


def test_edit(edit_server: Server, edit_root: Path) -> None:
    tools = edit_server.tools()
    assert tools["edit"].annotations.destructive_hint is True
    assert tools["edit"].annotations.read_only_hint is False
    (edit_root / "e.py").write_text("one\ntwo\n")
    head, first, _second = edit_server.text("read", {"path": "e.py"}).splitlines()[:3]
    tag = head.rpartition("#")[2]
    anchor = first.partition("|")[0]
    edits = [{"from": anchor, "to": anchor, "content": "ONE"}]
    preview = edit_server.text(
        "edit", {"path": "e.py", "hash": tag, "edits": edits, "dryRun": True}
    )
    assert "-one" in preview and "+ONE" in preview
    assert (edit_root / "e.py").read_text() == "one\ntwo\n"
    edit_server.text("edit", {"path": "e.py", "hash": tag, "edits": edits})
    assert (edit_root / "e.py").read_text() == "ONE\ntwo\n"
    stale = edit_server.refused("edit", {"path": "e.py", "hash": tag, "edits": edits})
    assert "stale" in stale.lower() or "changed" in stale.lower()
    assert (edit_root / "e.py").read_text() == "ONE\ntwo\n"
    outside = edit_server.refused("edit", {"path": "/etc/hostname", "hash": tag, "edits": edits})
    assert "outside the roots" in outside


def _readmany(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return run_readmany(args, cwd=cwd)


def test_roots_refused(tmp_path: Path) -> None:
    for root, words in (("/", "the whole file system"), (os.path.expanduser("~"), "home")):
        done = _readmany(["mcp", "--root", root], tmp_path)
        assert done.returncode == 2 and done.stdout == b""
        assert words in done.stderr.decode() and done.stderr.count(b"\n") == 1
    home = tmp_path / "users" / "me"
    home.mkdir(parents=True)
    environment = {**os.environ, "HOME": str(home)}
    done = run_readmany(["mcp", "--root", str(tmp_path / "users")], cwd=tmp_path, env=environment)
    assert done.returncode == 2
    assert done.stderr.endswith(b": holds your home directory: give a project's directory\n")
    done = _readmany(["mcp"], tmp_path)
    assert done.returncode == 2 and b"--root DIR" in done.stderr


def test_without_the_extra_and_never_imported(tmp_path: Path) -> None:
    # The SDK hidden: the command says how to install it, one line, exit 2.
    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "from readmany.__main__ import main\n"
        f"code = main(['mcp', '--root', {str(tmp_path)!r}])\n"
        "assert code == 2, code\n"
        # Every other command never imports it.
        f"assert main(['many', {str(tmp_path / 'a.txt')!r}]) == 0\n"
        f"assert main(['glob', '--root', {str(tmp_path)!r}, '*.txt']) == 0\n"
        "assert main(['--version']) == 0\n"
        "assert all(not n.startswith('mcp') for n in sys.modules if sys.modules[n] is not None)\n"
    )
    (tmp_path / "a.txt").write_text("a\n")
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().splitlines()[0] == (
        "readmany: readmany mcp needs the MCP SDK, an optional extra: pip install 'readmany[mcp]'"
    )


def _inspector(npx: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [npx, "--yes", "@modelcontextprotocol/inspector", "--cli", *args],
        capture_output=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow  # npx starts the inspector three times
def test_inspector_lists_the_tools(many_root: Path) -> None:
    """The MCP inspector's CLI, a client of another SDK, lists the tools and calls one.
    Its `--strict` is used where the inspector offers it; every schema is checked against
    its JSON Schema meta-schema either way."""
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is not installed: the MCP inspector cannot run here")
    server = [*readmany_command(), "mcp", "--root", str(many_root)]
    try:
        usage = _inspector(npx, "--help")
    except subprocess.TimeoutExpired:
        pytest.skip("npx could not fetch @modelcontextprotocol/inspector in 300 s")
    if usage.returncode != 0:
        pytest.skip(f"npx could not install the inspector: {usage.stderr[-300:]!r}")
    strict = ["--strict"] if b"--strict" in usage.stdout + usage.stderr else []
    done = _inspector(npx, *strict, *server, "--method", "tools/list")
    assert done.returncode == 0, done.stderr
    assert b"rror" not in done.stderr, done.stderr
    from jsonschema.validators import validator_for

    tools = json.loads(done.stdout)["tools"]
    assert {tool["name"] for tool in tools} == {
        "read_many",
        "read_many_files",
        "read",
        "context_stats",
    }
    for tool in tools:
        validator_for(tool["inputSchema"]).check_schema(tool["inputSchema"])
        assert tool["annotations"]["readOnlyHint"] is True
    called = _inspector(
        npx,
        *server,
        "--method",
        "tools/call",
        "--tool-name",
        "read",
        "--tool-arg",
        "path=small/a.txt",
    )
    assert called.returncode == 0, called.stderr
    text = json.loads(called.stdout)["content"][0]["text"]
    assert text.startswith("@file small/a.txt#")


# -- several roots -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("mcp-roots")))
    # `b-side` sorts before `b` + "/" (as "-" < "/"): the union is ordered by the paths.
    first, second = base / "b", base / "b-side"
    for root, words in ((first, "first"), (second, "second")):
        (root / "src").mkdir(parents=True)
        (root / "notes.txt").write_text(f"notes of the {words} root\n")
        (root / "src" / "main.py").write_text(f"print({words!r})\n")
        (root / ".geminiignore").write_text("ignored.txt\n")
        (root / "ignored.txt").write_text("never shown\n")
    (first / "only-first.md").write_text("# first\n")
    return first, second


@pytest.fixture(scope="module")
def roots_server(two_roots: tuple[Path, Path]) -> Iterator[Server]:
    first, second = two_roots
    server = Server("--root", str(first), "--root", str(second))
    yield server
    server.close()


def _glob_content(root: Path, *patterns: str) -> str:
    flags = ["--ignore-file", ".geminiignore", "--exclude", "**/GEMINI.md"]  # as the tool
    done = run_readmany(["glob", "--compat", "--json", "--absolute", *flags, *patterns], cwd=root)
    return str(json.loads(done.stdout)["content"])


def test_read_many_files_reads_every_root(
    roots_server: Server, two_roots: tuple[Path, Path]
) -> None:
    first, second = two_roots
    text = roots_server.text("read_many_files", {"include": ["**/*.txt", "**/*.py"]})
    # As the reference reads several workspace directories: the union, sorted by the
    # absolute paths, one end marker; each root's ignore files honoured in it.
    end = "\n--- End of content ---"
    parts = [_glob_content(root, "**/*.txt", "**/*.py") for root in (second, first)]
    assert text == "".join(part.removesuffix(end) for part in parts) + end
    headers = [line for line in text.splitlines() if line.startswith("--- /")]
    assert headers == [
        f"--- {second}/notes.txt ---",
        f"--- {second}/src/main.py ---",
        f"--- {first}/notes.txt ---",
        f"--- {first}/src/main.py ---",
    ]
    assert "never shown" not in text
    # A pattern only one root matches: that root's text, as the CLI writes it there.
    only = roots_server.call("read_many_files", {"include": ["only-first.md"]})
    assert only.content[0].text == _glob_content(first, "only-first.md")
    assert [d["root"] for d in only.meta["readmany/details"]["roots"]] == [
        str(second),
        str(first),
    ]
    none = roots_server.text("read_many_files", {"include": ["nothing-*.rs"]})
    assert none == "No files matching the criteria were found or all were skipped."
    # Packed (a format, or more than the limit): each root in turn, within one budget.
    xml = roots_server.text("read_many_files", {"include": ["**/*.py"], "format": "xml"})
    assert f"{first}/src/main.py" in xml and f"{second}/src/main.py" in xml


def test_context_stats_covers_every_root(
    roots_server: Server, two_roots: tuple[Path, Path]
) -> None:
    first, second = two_roots
    text = roots_server.text("context_stats", {"include": ["**"]})
    flags = ["--ignore-file", ".geminiignore", "--exclude", "**/GEMINI.md"]
    trees = [
        f"{root}:\n" + run_readmany(["glob", "--stats", *flags, "**"], cwd=root).stdout.decode()
        for root in (first, second)
    ]
    assert text + "\n" == "\n".join(trees)


def test_read_tools_in_every_root(roots_server: Server, two_roots: tuple[Path, Path]) -> None:
    first, second = two_roots
    # A relative path starts at the first root; an absolute one may be in any root.
    files = [{"path": "notes.txt"}, {"path": str(second / "notes.txt")}]
    text = roots_server.text("read_many", {"files": files})
    assert "notes of the first root" in text and "notes of the second root" in text
    head = roots_server.text("read", {"path": str(second / "src" / "main.py")})
    assert head.startswith(f"@file {second}/src/main.py#")
    said = roots_server.refused("read", {"path": str(first.parent / "elsewhere.txt")})
    assert said.endswith(f"outside the roots: give a path inside {first} or {second}")


def test_nested_roots_are_refused(two_roots: tuple[Path, Path]) -> None:
    first, _second = two_roots
    done = run_readmany(["mcp", "--root", str(first), "--root", str(first / "src")], cwd=first)
    assert done.returncode == 2 and done.stdout == b""
    assert (
        done.stderr
        == (
            f"readmany: --root {first / 'src'} is inside --root {first}: give one of them\n"
        ).encode()
    )


# -- a bad argument: one line that says how to fix the call --------------------------------


BAD_CALLS = [
    (
        "read",
        {"path": "small/a.txt", "offset": 0},
        "read: offset: expected an integer of at least 1, got 0",
    ),
    (
        "read",
        {"path": "small/a.txt", "limit": "ten"},
        'read: limit: expected an integer of at least 1, got "ten"',
    ),
    (
        "read",
        {"path": "small/a.txt", "offset": True},
        "read: offset: expected an integer of at least 1, got true",
    ),
    ("read", {}, "read: give the argument path (a string)"),
    (
        "read_many_files",
        {"include": "src"},
        'read_many_files: include: expected a list of 1 or more non-empty strings, got "src"',
    ),
    (
        "read_many_files",
        {"include": ["a", ""]},
        'read_many_files: include[1]: expected a non-empty string, got ""',
    ),
    (
        "read_many_files",
        {"include": ["*"], "format": "html"},
        'read_many_files: format: expected one of "text", "markdown", "xml", got "html"',
    ),
    (
        "read_many_files",
        {"include": ["*"], "file_filtering_options": {"respect_git_ignore": "yes"}},
        "read_many_files: file_filtering_options.respect_git_ignore: expected true or false, "
        'got "yes"',
    ),
    ("read_many_files", {}, "read_many_files: give the argument include (a list of glob patterns)"),
    (
        "read_many",
        {"files": [{"path": "small/a.txt"}], "maxTokens": 0.5},
        "read_many: maxTokens: expected an integer of at least 1, got 0.5",
    ),
    # Past what a count holds: the budget's arithmetic raised OverflowError.
    (
        "read_many",
        {"files": [{"path": "small/a.txt"}], "maxTokens": 10**400},
        "read_many: maxTokens: expected an integer of at least 1 and at most "
        "9223372036854775807, got " + str(10**400)[:57] + "...",
    ),
    (
        "read_many_files",
        {"include": ["*"], "maxTokens": 1e308},
        "read_many_files: maxTokens: expected an integer of at least 1 and at most "
        "9223372036854775807, got 1e+308",
    ),
    (
        "context_stats",
        {"include": []},
        "context_stats: include: expected a list of 1 or more non-empty strings, got []",
    ),
    (
        "edit",
        {"path": "small/a.txt", "hash": "x", "edits": []},
        "edit: not offered: start the server with readmany mcp --allow-edit",
    ),
    (
        "write_file",
        {"path": "x"},
        "no tool 'write_file': the tools are read_many, read_many_files, read, context_stats",
    ),
]


def test_bad_arguments_are_one_line(many_server: Server) -> None:
    for name, arguments, words in BAD_CALLS:
        assert many_server.refused(name, arguments) == words, (name, arguments)
    # A long value is cut, so the line stays short.
    said = many_server.refused("read", {"path": "a", "offset": "x" * 500})
    assert said.endswith("xxx...") and len(said) < 120
    assert many_server.text("read", {"path": "small/a.txt", "offset": None}).startswith("@file")
    # An argument the tool does not know is left alone, as the references leave it.
    plain = many_server.text("read", {"path": "small/a.txt"})
    assert many_server.text("read", {"path": "small/a.txt", "pathz": 1}) == plain


def test_schemas_are_json_schema_and_checked_as_they_say() -> None:
    from jsonschema import Draft202012Validator

    from readmany.serve import schemas

    for name, tool in schemas.TOOLS.items():
        Draft202012Validator.check_schema(tool["inputSchema"])
        validator = Draft202012Validator(tool["inputSchema"])
        for bad_name, arguments, _words in BAD_CALLS:
            if bad_name != name or arguments == {}:
                continue
            checked_here = all(
                (name, key) not in schemas.CHECKED_BY_THE_COMMAND for key in arguments
            )
            if checked_here and name != "edit":
                # What the check refuses, JSON Schema refuses too.
                assert not validator.is_valid(arguments), (name, arguments)


def test_one_budget_across_the_roots(roots_server: Server) -> None:
    from readmany.frame import weigh

    arguments = {"include": ["**/*.txt", "**/*.py", "*.md"], "format": "markdown"}
    whole = roots_server.text("read_many_files", arguments)
    budget = int(weigh(whole) * 0.6)
    packed = roots_server.text("read_many_files", {**arguments, "maxTokens": budget})
    # The roots packed in turn: together within the one budget, not a budget each.
    assert weigh(packed) <= budget < weigh(whole)
