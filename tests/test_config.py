"""The project configuration of `readmany glob`: each key, precedence, refusals, mistakes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import make, run_readmany


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = make(
        tmp_path / "project",
        {
            "src/a.py": "a = 1\n",
            "src/test_a.py": "assert a\n",
            "docs/guide.md": "# guide\n" + "words " * 400 + "\n",
            "README.md": "# readme\n",
        },
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def configure(root: Path, text: str, name: str = ".readmany.toml") -> None:
    (root / name).write_text(text)


def glob(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return run_readmany(["glob", *args], cwd=cwd or root)


def details(root: Path, *args: str, cwd: Path | None = None) -> dict[str, Any]:
    result = glob(root, "--json", *args, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    found: dict[str, Any] = json.loads(result.stdout)["details"]
    return found


def refused(root: Path, *args: str) -> str:
    """The one stderr line of a refused configuration (exit 2, nothing on stdout)."""
    result = glob(root, *args)
    assert (result.returncode, result.stdout) == (2, b""), result.stderr
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


# --- each key ---


def test_patterns_are_the_default_of_a_walk(tree: Path) -> None:
    configure(tree, 'patterns = ["src/**"]\n')
    assert details(tree)["files"] == ["src/a.py", "src/test_a.py"]


def test_exclude_is_added_to_the_command_lines(tree: Path) -> None:
    configure(tree, 'exclude = ["**/test_*"]\n')
    assert details(tree, ".")["files"] == [
        ".readmany.toml",
        "README.md",
        "docs/guide.md",
        "src/a.py",
    ]
    assert details(tree, ".", "--exclude", "docs/**")["files"] == [
        ".readmany.toml",
        "README.md",
        "src/a.py",
    ]


@pytest.mark.parametrize(
    ("setting", "flag"),
    [
        ('max-tokens = "50"', "--max-tokens"),
        ("max-bytes = 300", "--max-bytes"),
        ("max-lines = 4", "--max-lines"),
    ],
)
def test_a_budget(tree: Path, setting: str, flag: str) -> None:
    configure(tree, setting + "\n")
    shown = details(tree, ".")
    assert shown["packing"]["omittedPaths"] or shown["packing"]["fullIncludedCount"] < 5, shown
    assert "packing" not in details(tree, ".", "--no-config")  # no budget, no packing
    given = details(tree, ".", "--no-config", flag, setting.split("=")[1].strip().strip('"'))
    assert shown["packing"] == given["packing"]


def test_format_and_tree(tree: Path) -> None:
    configure(tree, 'format = "xml"\ntree = true\npatterns = ["README.md"]\n')
    out = glob(tree).stdout.decode()
    assert out.startswith("<documents>\n<directory_tree>")  # the tree comes first
    assert '<document index="1">\n<source>README.md</source>' in out


def test_secrets_can_be_made_stricter(tree: Path) -> None:
    make(tree, {"src/key.py": 'KEY = "AKIAIOSFODNN7EXAMPLE"\n'})
    configure(tree, 'secrets = "skip"\n')
    result = glob(tree, "src/**")
    assert b"AKIAIOSFODNN7EXAMPLE" not in result.stdout
    assert b"--- src/a.py ---" in result.stdout
    # The command line wins: the user's own choice for this run.
    assert b"AKIAIOSFODNN7EXAMPLE" in glob(tree, "src/**", "--secrets", "off").stdout


def test_pyproject_tool_table(tree: Path) -> None:
    configure(
        tree, '[project]\nname = "x"\n\n[tool.readmany]\npatterns = ["docs/**"]\n', "pyproject.toml"
    )
    shown = details(tree)
    assert (shown["files"], shown["config"]) == (["docs/guide.md"], "pyproject.toml")


# --- precedence, where it is found, --no-config, --compat ---


def test_the_command_line_wins(tree: Path) -> None:
    configure(tree, 'patterns = ["src/**"]\nformat = "xml"\nmax-lines = 1\n')
    result = glob(tree, "README.md", "--format", "text", "--max-lines", "100")
    assert result.stdout.decode().startswith("--- README.md ---")


def test_no_config_reads_none(tree: Path) -> None:
    configure(tree, 'format = "xml"\nexclude = ["README.md"]\n')
    shown = details(tree, "README.md", "--no-config")
    assert (shown["files"], shown["config"]) == (["README.md"], None)
    assert glob(tree, "README.md", "--no-config").stdout.startswith(b"--- README.md ---")


def test_compat_reads_none(tree: Path) -> None:
    configure(tree, 'exclude = ["README.md"]\nsecrets = "skip"\n')
    result = glob(tree, "--compat", "README.md")
    assert result.returncode == 0
    assert b"--- " in result.stdout and b"README.md" in result.stdout


def test_the_nearest_file_above_the_working_directory(tree: Path) -> None:
    configure(tree, 'exclude = ["**/test_*"]\n')
    shown = details(tree, ".", cwd=tree / "src")
    assert (shown["files"], shown["config"]) == (["a.py"], "../.readmany.toml")
    # a nearer one (a pyproject.toml without [tool.readmany] does not count)
    configure(tree / "src", '[project]\nname = "x"\n', "pyproject.toml")
    configure(tree / "src", 'exclude = ["a.py"]\n')
    shown = details(tree, ".", cwd=tree / "src")
    assert shown["files"] == [".readmany.toml", "pyproject.toml", "test_a.py"]
    assert shown["config"] == ".readmany.toml"


def test_readmany_toml_is_read_before_pyproject(tree: Path) -> None:
    configure(tree, '[tool.readmany]\nexclude = ["README.md"]\n', "pyproject.toml")
    configure(tree, 'exclude = ["docs/**"]\n')
    shown = details(tree, "README.md", "docs/guide.md")
    assert (shown["files"], shown["config"]) == (["README.md"], ".readmany.toml")


def test_the_search_stops_at_the_top_of_the_work_tree(tree: Path) -> None:
    configure(tree.parent, 'exclude = ["README.md"]\n')  # above the repository
    assert details(tree, "README.md")["config"] is None


def test_a_linked_configuration_is_not_followed(tree: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.toml").write_text('exclude = ["README.md"]\n')
    (tree / ".readmany.toml").symlink_to(tmp_path / "elsewhere.toml")
    assert details(tree, "README.md")["files"] == ["README.md"]


def test_verbose_says_which_file_was_read(tree: Path) -> None:
    configure(tree, 'format = "markdown"\nexclude = ["x"]\n')
    result = glob(tree, "README.md", "-v", "--format", "text")
    assert result.stderr.decode().splitlines()[0] == (
        "readmany: configuration: .readmany.toml (exclude)"
    )
    (tree / ".readmany.toml").unlink()
    assert b"no configuration file" in glob(tree, "README.md", "-v").stderr
    assert (
        b"no configuration read (--no-config)"
        in glob(tree, "README.md", "-v", "--no-config").stderr
    )


# --- a hostile configuration: refused, one line, exit 2 ---


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('root = "/"', ".readmany.toml: root: a configuration cannot move the root"),
        ('output = "/tmp/x"', ".readmany.toml: output: a configuration cannot write a file"),
        ('o = "x.txt"', ".readmany.toml: o: a configuration cannot write a file"),
        ('secrets = "off"', ".readmany.toml: secrets: 'off' would turn off secret protection"),
        ("no-gitignore = true", ".readmany.toml: no-gitignore: a configuration can only narrow"),
        ("no-default-excludes = true", ".readmany.toml: no-default-excludes: a configuration can"),
        ('include = ["**"]', ".readmany.toml: include: a configuration cannot add to the patterns"),
        ('ignore-file = [".x"]', ".readmany.toml: ignore-file: a configuration cannot name files"),
        ('patterns = ["../**"]', ".readmany.toml: patterns: '../**' names a path outside the tree"),
        (
            'patterns = ["/etc/passwd"]',
            ".readmany.toml: patterns: '/etc/passwd' names a path outside",
        ),
        ('patterns = ["~/.ssh/*"]', ".readmany.toml: patterns: '~/.ssh/*' names a path outside"),
        ('exclude = ["a/../../x"]', ".readmany.toml: exclude: 'a/../../x' names a path outside"),
        ('patterns = ["{..,a}/x"]', ".readmany.toml: patterns: '{..,a}/x' names a path outside"),
        ('patterns = ["@(..)/x"]', ".readmany.toml: patterns: '@(..)/x' names a path outside"),
        ('patterns = ["..\\\\x"]', ".readmany.toml: patterns: '..\\\\x' names a path outside"),
        # braces and extglob that spell `..` out
        (
            'patterns = [".{.,}/.{.,}/outside/o/*"]',
            ".readmany.toml: patterns: '.{.,}/.{.,}/outside/o/*' names a path outside",
        ),
        ('exclude = ["{.,x}./x"]', ".readmany.toml: exclude: '{.,x}./x' names a path outside"),
        ('patterns = ["{/etc,a}/x"]', ".readmany.toml: patterns: '{/etc,a}/x' names a path"),
        ('patterns = ["+(.)/x"]', ".readmany.toml: patterns: '+(.)/x' names a path outside"),
        (
            "patterns = ['\\.\\./x']",
            ".readmany.toml: patterns: '\\\\.\\\\./x' names a path outside",
        ),
        ("patterns = ['" + "{" * 40 + "a" + "}" * 40 + "']", ".readmany.toml: patterns: pattern"),
        ('prefer = "head"', ".readmany.toml: prefer: give a list of patterns"),
    ],
)
def test_a_configuration_cannot_widen_weaken_or_write(tree: Path, text: str, line: str) -> None:
    configure(tree, text + "\n")
    assert refused(tree, "README.md").startswith("readmany: " + line)
    assert not (tree / "x.txt").exists()
    # --no-config leaves the file out, refusals and all
    assert glob(tree, "README.md", "--no-config").returncode == 0


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("format = [", ".readmany.toml: not valid TOML: "),
        ('format = "html"', ".readmany.toml: format: give one of text, markdown, xml"),
        ("tree = 1", ".readmany.toml: tree: give true or false"),
        ('secrets = "loud"', ".readmany.toml: secrets: give one of warn, skip, redact"),
        ("max-lines = 0", ".readmany.toml: max-lines: give a whole number of at least 1"),
        ('max-tokens = "lots"', ".readmany.toml: max-tokens: "),
        ('patterns = "src/**"', ".readmany.toml: patterns: give a list of patterns"),
        ('budget = "100k"', ".readmany.toml: budget: not a setting of readmany: give one of"),
    ],
)
def test_a_malformed_configuration_is_one_line(tree: Path, text: str, line: str) -> None:
    configure(tree, text + "\n")
    assert refused(tree, "README.md").startswith("readmany: " + line)


def test_a_malformed_pyproject_names_the_table(tree: Path) -> None:
    configure(tree, '[tool]\nreadmany = "yes"\n', "pyproject.toml")
    assert refused(tree, "README.md") == (
        "readmany: pyproject.toml: tool.readmany: give a table of settings"
    )
    configure(tree, '[tool.readmany]\nsecrets = "off"\n', "pyproject.toml")
    assert refused(tree, "README.md").startswith(
        "readmany: pyproject.toml: tool.readmany.secrets: 'off' would turn off"
    )
    (tree / "pyproject.toml").write_bytes(b"[tool.readmany]\nformat = '\xff'\n")
    assert refused(tree, "README.md") == (
        "readmany: pyproject.toml: not UTF-8 text: save it as UTF-8"
    )
