"""Completions and man page: in sync with the CLI, valid, and complete."""

from __future__ import annotations

import atexit
import functools
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import typer

from readmany.cli import app

ROOT = Path(__file__).resolve().parent.parent
MAN = ROOT / "man" / "readmany.1"
COMPLETIONS = ROOT / "completions"
DOCS = ROOT / "docs"


@functools.cache
def installed() -> Path:
    """The completion scripts as a user installs them: what `readmany completions SHELL`
    prints, saved under the name each shell looks for (tests/test_package.py checks they
    are the files of completions/)."""
    from helpers import run_readmany

    where = Path(tempfile.mkdtemp(prefix="readmany-completions-"))
    atexit.register(shutil.rmtree, where, ignore_errors=True)
    for shell, name in (("bash", "readmany.bash"), ("zsh", "_readmany"), ("fish", "readmany.fish")):
        result = run_readmany(["completions", shell])
        assert result.returncode == 0, result.stderr
        (where / name).write_bytes(result.stdout)
    return where


def require(shell: str) -> None:
    """CI installs every shell (.ci/run); elsewhere a missing one is a skip, said clearly."""
    if shutil.which(shell) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{shell} is not installed; .ci/run should have installed it")
        pytest.skip(f"{shell} is not installed here (CI installs it)")


def require_package(name: str) -> None:
    """As `require`, for a Debian package that CI installs."""
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed; .ci/run should have installed it")
    pytest.skip(f"{name} is not installed here (CI installs it)")


def all_options() -> dict[str, list[str]]:
    group = typer.main.get_command(app)
    context = typer.Context(group, info_name="readmany")
    found = {}
    for name in group.list_commands(context):  # type: ignore[attr-defined]
        command = group.get_command(context, name)  # type: ignore[attr-defined]
        found[name] = [
            opt for p in command.params if p.param_type_name == "option" for opt in p.opts
        ]
    return found


def test_generated_files_are_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "generate_docs.py"), "--check"],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()


def test_man_page_renders_without_warnings() -> None:
    result = subprocess.run(
        ["groff", "-man", "-Tutf8", "-ww", "-z", str(MAN)], capture_output=True, check=False
    )
    assert result.returncode == 0
    assert result.stderr == b""


def test_man_page_documents_every_command_option_and_exit_code() -> None:
    rendered = subprocess.run(
        ["man", "-l", str(MAN)],
        capture_output=True,
        check=True,
        env={"MANWIDTH": "200", "MANPAGER": "cat", "PATH": "/usr/bin:/bin"},
    ).stdout.decode()
    text = rendered.replace("\u2010", "-").replace("\u2212", "-")
    for command, options in all_options().items():
        assert f"readmany {command}" in text
        for option in options:
            assert option in text, option
    status = text.split("EXIT STATUS")[1].split("ENVIRONMENT")[0]
    codes = [line.split()[0] for line in status.splitlines() if line.strip()[:1].isdigit()]
    assert codes == ["0", "1", "2", "3", "70"]
    assert "EXIT STATUS" in text and "NO_COLOR" in text


def _bash_complete(words: list[str], cwd: Path = ROOT, preamble: str = "") -> list[str]:
    """COMPREPLY of a real bash for the command line `words`, the cursor at its end.

    bash gets the words as arguments, as typed (quotes and backslashes included), so no
    quoting of this test's own stands between them and the completion function."""
    script = (
        f"{preamble}\n"
        f'source "{installed() / "readmany.bash"}"\n'
        'COMP_WORDS=("$@")\n'
        "COMP_CWORD=$(($# - 1))\n"
        'COMP_LINE="$*"\n'
        "COMP_POINT=${#COMP_LINE}\n"
        "_readmany\n"
        'printf "%s\\0" "${COMPREPLY[@]}"\n'
    )
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script, "bash", *words],
        capture_output=True,
        check=True,
        cwd=cwd,
    )
    assert result.stderr == b""
    return [word for word in result.stdout.decode().split("\0") if word]


@pytest.mark.smoke
def test_bash_completion_completes_commands_and_options() -> None:
    assert _bash_complete(["readmany", ""]) == [
        "many",
        "glob",
        "hashline",
        "edit",
        "mcp",
        "completions",
        "man",
        "--version",
        "-V",
        "--help",
        "-h",
    ]
    assert _bash_complete(["readmany", "glob", "--no-"]) == [
        "--no-default-excludes",
        "--no-gitignore",
        "--no-recursive",
        "--no-outline",
        "--no-config",
    ]
    assert "--stop-on-error" in _bash_complete(["readmany", "many", "--s"])
    assert _bash_complete(["readmany", "gl"]) == ["glob"]
    assert _bash_complete(["readmany", "glob", "--root", "complet"]) == ["completions"]
    assert _bash_complete(["readmany", "many", "--max-bytes", ""]) == []
    assert _bash_complete(["readmany", "completions", ""]) == ["bash", "zsh", "fish"]
    assert _bash_complete(["readmany", "man", ""]) == []


@pytest.fixture
def spaced(tmp_path: Path) -> Path:
    """A directory of names with spaces and quotes, as a user's downloads folder has."""
    for name in ("my file.txt", "my notes.md", "it's here.txt", "plain.txt"):
        (tmp_path / name).write_text("x\n")
    (tmp_path / "a dir").mkdir()
    (tmp_path / "a dir" / "inner file.py").write_text("x\n")
    return tmp_path


@pytest.mark.smoke
@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("my", ["my file.txt", "my notes.md"]),
        ("my\\ f", ["my file.txt"]),  # my\ f, the space escaped
        ('"my f', ["my file.txt"]),
        ("'my f", ["my file.txt"]),
        ("it", ["it's here.txt"]),
        ("a\\ dir/in", ["a dir/inner file.py"]),
        ("nothing", []),
    ],
)
def test_bash_completes_names_with_spaces_as_one_word(
    spaced: Path, typed: str, expected: list[str]
) -> None:
    assert sorted(_bash_complete(["readmany", "many", typed], spaced)) == expected
    assert sorted(_bash_complete(["readmany", "glob", "-o", typed], spaced)) == expected


@pytest.mark.smoke
def test_bash_completes_directories_with_spaces_for_root(spaced: Path) -> None:
    assert _bash_complete(["readmany", "glob", "--root", "a"], spaced) == ["a dir"]


@pytest.mark.smoke
def test_bash_completes_names_after_double_dash_and_options_before(spaced: Path) -> None:
    (spaced / "-dash name.txt").write_text("x\n")
    assert _bash_complete(["readmany", "many", "--", "-dash"], spaced) == ["-dash name.txt"]
    assert _bash_complete(["readmany", "many", "--st"], spaced) == ["--stop-on-error", "--stdin"]


@pytest.mark.smoke
def test_bash_completion_keeps_glob_characters_literal(spaced: Path) -> None:
    (spaced / "[x] star*.txt").write_text("x\n")
    assert _bash_complete(["readmany", "many", "["], spaced) == ["[x] star*.txt"]


def _interactive_line(shell: str, setup: str, typed: str, cwd: Path) -> list[str]:
    """Type `typed` and Tab into an interactive `shell` (bash or zsh) on a terminal, the
    completion script loaded after `setup`; return the words of the line it then holds,
    as the shell would pass them to a command."""
    home = cwd.parent / f"{shell}-home"
    home.mkdir(exist_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "TERM": "dumb"}
    if shell == "bash":
        (home / "rc").write_text(
            f"{setup}\nsource {installed() / 'readmany.bash'}\nPS1='READY> '\n"
        )
        command = ["bash", "--noprofile", "--rcfile", str(home / "rc"), "-i"]
    else:
        (home / ".zshrc").write_text(
            f"fpath=({installed()} $fpath)\nautoload -U compinit\ncompinit -u -D\n"
            f"bindkey -e\n{setup}\nPS1='READY> '\n"
        )
        command = ["zsh", "-i"]
        env["ZDOTDIR"] = str(home)
    master, slave = pty.openpty()
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    screen = b""

    def read_until(marker: bytes) -> None:
        nonlocal screen
        while marker not in screen:
            if not select.select([master], [], [], 60)[0]:
                return  # a shell that hangs fails the assertions instead of the suite
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the shell has gone: the terminal is closed
                return
            if not chunk:
                return
            screen += chunk

    # Keys typed before the line editor starts would meet the terminal's own line
    # discipline (where ^U erases), so they wait for the prompt. Then: Tab, to the end of
    # the line, cut it, and print the cut words one a line between markers.
    read_until(b"READY> ")
    os.write(master, typed.encode() + b"\t\x05\x15printf '[%s]\\n' BEGIN \x19 END\nexit\n")
    read_until(b"\0")  # to the end
    os.close(master)
    if process.poll() is None:  # still waiting for input: a quote left open, say
        process.kill()
    process.wait(timeout=60)
    printed = re.findall(r"^\[(.*)\]\r?$", screen.decode(errors="replace"), re.M)
    return printed[printed.index("BEGIN") + 1 : printed.index("END")]


BASH_COMPLETION = Path("/usr/share/bash-completion/bash_completion")
SETUPS = {
    "bash": ("bash", ""),
    "bash with bash-completion": ("bash", f"source {BASH_COMPLETION}"),
    "zsh": ("zsh", ""),
}


@pytest.mark.smoke
@pytest.mark.parametrize("setup", SETUPS)
def test_interactive_shell_puts_a_spaced_name_on_the_line_as_one_word(
    spaced: Path, setup: str
) -> None:
    shell, preamble = SETUPS[setup]
    require(shell)
    if preamble and not BASH_COMPLETION.exists():
        require_package("bash-completion")
    line = _interactive_line(shell, preamble, "readmany many my\\ f", spaced)
    assert line == ["readmany", "many", "my file.txt"]
    line = _interactive_line(shell, preamble, "readmany many it", spaced)
    assert line == ["readmany", "many", "it's here.txt"]
    # zsh takes back the slash it added to a directory once the cursor moves on.
    line = _interactive_line(shell, preamble, "readmany glob --root a", spaced)
    assert line in (["readmany", "glob", "--root", d] for d in ("a dir/", "a dir"))
    line = _interactive_line(shell, preamble, "readmany glob --no-g", spaced)
    assert line == ["readmany", "glob", "--no-gitignore"]


@pytest.mark.smoke
def test_fish_completes_names_with_spaces_as_one_word(spaced: Path) -> None:
    require("fish")
    script = f"source {installed() / 'readmany.fish'}; complete -C 'readmany many my\\ f'"
    result = subprocess.run(["fish", "-c", script], capture_output=True, check=True, cwd=spaced)
    assert result.stdout.decode().splitlines() == ["my file.txt"]


@pytest.mark.parametrize(
    ("shell", "path", "check"),
    [
        ("bash", COMPLETIONS / "readmany.bash", ["bash", "-n"]),
        ("zsh", COMPLETIONS / "_readmany", ["zsh", "-n"]),
        ("fish", COMPLETIONS / "readmany.fish", ["fish", "--no-execute"]),
    ],
)
def test_completion_scripts_parse(shell: str, path: Path, check: list[str]) -> None:
    require(shell)
    result = subprocess.run([*check, str(path)], capture_output=True, check=False)
    assert result.returncode == 0, result.stderr.decode()


@pytest.mark.smoke
def test_fish_completion_offers_options() -> None:
    require("fish")
    script = f"source {installed() / 'readmany.fish'}; complete -C 'readmany glob --no-g'"
    result = subprocess.run(["fish", "-c", script], capture_output=True, check=True)
    assert result.stdout.decode().split("\t")[0] == "--no-gitignore"


def test_every_command_help_shows_examples() -> None:
    from helpers import run_readmany

    for command in all_options():
        result = run_readmany([command, "--help"], env={"COLUMNS": "120", "PATH": "/usr/bin"})
        assert result.returncode == 0
        assert f"readmany {command} " in result.stdout.decode().split("Examples:")[1]


@pytest.mark.smoke
def test_completions_offer_the_values_of_format_and_secrets(tmp_path: Path) -> None:
    assert _bash_complete(["readmany", "glob", "--format", ""]) == ["text", "markdown", "xml"]
    assert _bash_complete(["readmany", "glob", "--format", "m"]) == ["markdown"]
    modes = ["off", "warn", "skip", "redact"]
    assert _bash_complete(["readmany", "glob", "--secrets", ""]) == modes
    assert _bash_complete(["readmany", "many", "--secrets", "r"]) == ["redact"]
    # hashline refuses redact: its bytes must stay exact.
    assert _bash_complete(["readmany", "hashline", "--secrets", ""]) == modes[:3]
    zsh = (COMPLETIONS / "_readmany").read_text()
    assert ":format:(text markdown xml)'" in zsh
    assert zsh.count(":mode:(off warn skip redact)'") == 3  # many, glob, mcp
    assert zsh.count(":mode:(off warn skip)'") == 1
    fish = (COMPLETIONS / "readmany.fish").read_text()
    assert "-l format -r -f -a 'text markdown xml' " in fish
    assert fish.count("-l secrets -r -f -a 'off warn skip redact' ") == 3


@pytest.mark.smoke
def test_fish_offers_the_values_of_format_and_secrets() -> None:
    require("fish")
    for typed, expected in [
        ("readmany glob --format ", ["text", "markdown", "xml"]),
        ("readmany many --secrets ", ["off", "warn", "skip", "redact"]),
        ("readmany hashline --secrets ", ["off", "warn", "skip"]),
    ]:
        script = f"source {installed() / 'readmany.fish'}; complete -C '{typed}'"
        result = subprocess.run(["fish", "-c", script], capture_output=True, check=True)
        offered = [line.split("\t")[0] for line in result.stdout.decode().splitlines()]
        assert sorted(offered) == sorted(expected), typed  # fish sorts them


@pytest.mark.smoke
def test_zsh_offers_the_values_of_format_and_secrets(tmp_path: Path) -> None:
    require("zsh")
    line = _interactive_line("zsh", "", "readmany glob --format ma", tmp_path)
    assert line == ["readmany", "glob", "--format", "markdown"]
    line = _interactive_line("zsh", "", "readmany many --secrets red", tmp_path)
    assert line == ["readmany", "many", "--secrets", "redact"]


def test_completion_descriptions_are_whole_sentences() -> None:
    """A description is the option's first sentence: never cut inside parentheses
    (`--changed`'s `(REV... starts from the merge base)`)."""
    fish = (COMPLETIONS / "readmany.fish").read_text()
    descriptions = re.findall(r" -d '((?:[^'\\]|\\.)*)'$", fish, re.M)
    assert descriptions
    for text in descriptions:
        assert text.count("(") == text.count(")"), text
    zsh = (COMPLETIONS / "_readmany").read_text()
    helps = re.findall(r"\[((?:[^\]\\]|\\.)*)\]", zsh)
    assert helps
    for text in helps:
        assert text.count("(") == text.count(")"), text
    assert "untracked ones (REV... starts from the merge base); patterns filter them" in fish
    assert "untracked ones (REV... starts from the merge base); patterns filter them" in zsh


def _rendered_man() -> str:
    rendered = subprocess.run(
        ["man", "-l", str(MAN)],
        capture_output=True,
        check=True,
        env={"MANWIDTH": "2000", "MANPAGER": "cat", "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
    ).stdout.decode()
    return rendered.replace("\u2010", "-").replace("\u2212", "-")


def test_man_page_shows_every_example_of_the_help() -> None:
    text = _rendered_man()
    group = typer.main.get_command(app)
    context = typer.Context(group, info_name="readmany")
    examples = []
    for name in group.list_commands(context):  # type: ignore[attr-defined]
        epilog = group.get_command(context, name).epilog or ""  # type: ignore[attr-defined]
        examples += [line.strip() for line in epilog.splitlines() if line.startswith("  ")]
    assert "git ls-files -z | readmany glob --stdin -0" in examples
    for example in examples:
        assert example in text, example


def test_man_page_synopsis_shows_the_request_form_of_edit() -> None:
    synopsis = _rendered_man().split("SYNOPSIS")[1].split("DESCRIPTION")[0]
    assert "readmany edit [OPTIONS] PATH#TAG" in synopsis
    assert "readmany edit --request FILE|- [OPTIONS]" in synopsis
    assert "readmany many [OPTIONS] [FILE[:OFFSET[:LIMIT]]...]" in synopsis


def test_exit_statuses_agree_in_help_man_page_and_docs() -> None:
    from readmany.cli import EXIT_CODES, EXIT_CODES_HELP

    text = " ".join(_rendered_man().split())
    status = text.split("EXIT STATUS")[1].split("ENVIRONMENT")[0]
    notes = text.split("NOTES")[1]
    table = (DOCS / "exit-status.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (\d+) \| (.*) \|$", table, re.M))
    for code, meaning, more in EXIT_CODES:
        assert f"{code} {meaning}" in EXIT_CODES_HELP
        whole = meaning + more
        assert f"{code} {whole[:1].upper()}{whole[1:]}." in status, code
        assert rows[code].replace("`", "") == whole, code
    assert "Exit status" not in notes
    assert "four bytes" not in notes


def _reference_of(command: str) -> Path:
    """The file of docs/ that holds the command's reference: a heading `readmany COMMAND`
    (in backquotes), with the usage block under it."""
    heading = re.compile(rf"^#+ `readmany {command}`", re.M)
    (found,) = [path for path in sorted(DOCS.glob("*.md")) if heading.search(path.read_text())]
    return found


def _usage_block(command: str) -> str:
    """The usage block under the command's heading in its reference."""
    text = _reference_of(command).read_text(encoding="utf-8")
    section = re.split(rf"^#+ `readmany {command}`", text, flags=re.M)[1]
    return section.split("```\n")[1]


def test_reference_usage_lists_every_option() -> None:
    """Each command's usage block in docs/ names every option (one of its names), and
    README or docs/ names every name somewhere: `--null` as well as `-0`."""
    paths = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    docs = "\n".join(path.read_text(encoding="utf-8") for path in paths)
    group = typer.main.get_command(app)
    context = typer.Context(group, info_name="readmany")

    def named(name: str, text: str) -> bool:
        return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None

    for command in all_options():
        usage = _usage_block(command)
        assert usage.startswith(f"readmany {command} "), command
        params = group.get_command(context, command).params  # type: ignore[attr-defined]
        for param in params:
            if param.param_type_name != "option":
                continue
            names = [*param.opts, *param.secondary_opts]
            assert any(named(name, usage) for name in names), (command, names)
            for name in names:
                assert named(name, docs), name


def test_readme_is_under_250_lines_and_links_every_command_reference() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 250
    for command in all_options():
        assert f"](docs/{_reference_of(command).name})" in readme, command


def _modules_in_layout() -> set[str]:
    """The modules ARCHITECTURE.md's layout tree names, as paths (`readmany/read/safe.py`)."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    tree = text.split("## Layout")[1].split("```\n")[1]
    found: set[str] = set()
    parents: list[str] = []
    for line in tree.splitlines():
        match = re.match(r"^((?:│   |    )*)(?:├── |└── )?(\S+)", line)
        assert match is not None, line
        depth = len(match.group(1)) // 4 + (0 if line.startswith("readmany/") else 1)
        name = match.group(2)
        del parents[depth:]
        if name.endswith("/"):
            parents.append(name.rstrip("/"))
        else:
            assert name.endswith(".py"), line
            found.add("/".join([*parents, name]))
    return found


def test_architecture_layout_names_every_module_and_no_other() -> None:
    actual = {path.relative_to(ROOT).as_posix() for path in (ROOT / "readmany").rglob("*.py")}
    named = _modules_in_layout()
    assert sorted(actual - named) == [], "modules missing from ARCHITECTURE.md's layout"
    assert sorted(named - actual) == [], "ARCHITECTURE.md names modules that do not exist"


def _slug(heading: str) -> str:
    """The anchor a heading gets on GitHub: lower case, punctuation dropped, spaces to `-`."""
    text = heading.strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {_slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}


DOC_FILES = [
    ROOT / "README.md",
    ROOT / "ARCHITECTURE.md",
    ROOT / "bench" / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
]


@pytest.mark.parametrize("doc", DOC_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(doc: Path) -> None:
    text = re.sub(r"^```.*?^```", "", doc.read_text(encoding="utf-8"), flags=re.M | re.S)
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    relative = [link for link in links if not re.match(r"^[a-z]+:", link)]
    assert relative or doc.name != "README.md" or doc.parent != ROOT
    for link in relative:
        target, _, anchor = link.partition("#")
        path = (doc.parent / target).resolve() if target else doc
        assert path.exists(), f"{doc.name}: {link}"
        if anchor and path.suffix == ".md":
            assert anchor in _anchors(path), f"{doc.name}: {link}"


def _precommit_config(path: Path) -> str:
    found = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", path.read_text(), re.S)
    assert found is not None, f"{path.name} shows no pre-commit configuration"
    return found.group(1)


def test_readme_shows_the_pre_commit_configuration_of_docs() -> None:
    """tests/test_precommit.py runs docs/precommit.md's configuration as written; README's
    copy of it is the same text."""
    readme = _precommit_config(ROOT / "README.md")
    assert readme == _precommit_config(DOCS / "precommit.md")


def test_ci_runs_the_set_up_commands_of_readme() -> None:
    """.ci/run installs exactly as README says: each command of its two set-up blocks."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for heading in ("## Install and run", "## Run the tests"):
        block = readme.split(f"\n{heading}\n")[1].split("```sh\n")[1].split("```")[0]
        command = block.strip()
        if heading == "## Run the tests":
            assert command.endswith(" && pytest")
            command = command.removesuffix(" && pytest")
            assert "\npytest\n" in ci
        assert command in ci, heading
