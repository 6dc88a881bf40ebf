"""A hostile repository: its configuration names programs, a file races the diff, a name
forges the diff section, a `.git` file points at another repository. End to end, through
the installed command, against repositories built with the `git` command."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from helpers import run_readmany, scaled

from readmany.frame.paths import header_path
from readmany.read import gitcontent

# The diff as `glob --with-diff` asks for it: a left-out file named as headers name it.
diff_text = functools.partial(gitcontent.diff_text, header=header_path)


@pytest.fixture(autouse=True)
def _git_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No configuration of this machine, English messages, and no repository above."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.setenv("LC_ALL", "C")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"):
        monkeypatch.delenv(name, raising=False)
    for name in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{name}_NAME", "Dev")
        monkeypatch.setenv(f"GIT_{name}_EMAIL", "dev@example.org")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def new_repo(path: Path, files: Mapping[str, str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    for rel, text in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "first")
    return path


# --- no program the repository names runs --------------------------------------------------


def _marking_script(place: Path, marker: Path, name: str, then: str) -> str:
    """A script that leaves its name in `marker`, then does `then` (what git expects)."""
    script = place / name
    script.write_text(f'#!/bin/sh\necho "{name} $*" >> "{marker}"\n{then}\n')
    script.chmod(0o755)
    return str(script)


@pytest.fixture
def rigged(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A repository whose configuration points every program it can at a script that
    leaves a marker: fsmonitor, a clean filter (with `.gitattributes`), textconv, an
    external diff, the pager, and a hook git runs when it writes an index."""
    repo = new_repo(
        tmp_path / "repo",
        {"a.txt": "one\n", "b.txt": "two\n", "sub/c.py": "three = 3\n", ".gitattributes": ""},
    )
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    marker = tmp_path / "marker"
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n*.py filter=dotted.Name\n")
    hooks = scripts / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "pre-commit", "post-checkout"):
        _marking_script(hooks, marker, hook, "exit 0")
    settings = {
        "core.fsmonitor": _marking_script(scripts, marker, "fsmonitor", "exit 1"),
        "filter.evil.clean": _marking_script(scripts, marker, "clean", "cat"),
        "filter.evil.smudge": _marking_script(scripts, marker, "smudge", "cat"),
        "filter.evil.required": "true",
        "filter.dotted.Name.process": _marking_script(scripts, marker, "process", "exit 1"),
        "filter.dotted.Name.clean": _marking_script(scripts, marker, "clean-dotted", "cat"),
        "diff.evil.textconv": _marking_script(scripts, marker, "textconv", 'cat "$1"'),
        "diff.evil.command": _marking_script(scripts, marker, "diff-command", "exit 0"),
        "diff.external": _marking_script(scripts, marker, "external", "exit 0"),
        "core.pager": _marking_script(scripts, marker, "pager", "cat"),
        "core.hooksPath": str(hooks),
        "core.askPass": _marking_script(scripts, marker, "askpass", "exit 0"),
        "core.sshCommand": _marking_script(scripts, marker, "ssh", "exit 1"),
        "gpg.program": _marking_script(scripts, marker, "gpg", "exit 1"),
        "credential.helper": _marking_script(scripts, marker, "credential", "exit 0"),
    }
    # Work to do for each: a staged change, an unstaged one (git hashes it, through the
    # filter), an untracked file, a file rewritten with the same size (stat data stale).
    (repo / "a.txt").write_text("one, staged\n")
    git(repo, "add", "a.txt")
    (repo / "b.txt").write_text("two, not staged\n")
    (repo / "sub/c.py").write_text("three = 4\n")
    (repo / "new.txt").write_text("untracked\n")
    for key, value in settings.items():  # last: setting it up runs none of them
        git(repo, "config", key, value)
    marker.unlink(missing_ok=True)
    yield repo, marker


@pytest.mark.parametrize(
    "args",
    [
        ["glob", "--staged"],
        ["glob", "--staged", "--with-diff"],
        ["glob", "--changed", "HEAD"],
        ["glob", "--changed", "HEAD", "--with-diff"],
        ["glob", "--changed", "main...", "--with-diff", "--format", "xml"],
        ["glob", ".", "-o", "ctx.txt"],  # the walk; `-o` asks git whether it is tracked
        ["glob", "--changed", "HEAD", "-o", "ctx.txt", "--root", "sub"],
        ["many", "a.txt", "sub/c.py"],
        ["hashline", "a.txt"],
    ],
    ids=lambda args: " ".join(args),
)
def test_no_program_the_repository_configures_runs(
    rigged: tuple[Path, Path], args: list[str]
) -> None:
    repo, marker = rigged
    result = run_readmany(args, cwd=repo)
    assert result.returncode == 0, result.stderr.decode()
    assert not marker.exists(), marker.read_text()
    shown = result.stdout + (repo / "ctx.txt").read_bytes() if "-o" in args else result.stdout
    assert b"one" in shown or b"three = 4" in shown


def test_the_diff_is_git_s_own_with_the_programs_off(rigged: tuple[Path, Path]) -> None:
    """With the textconv, external diff and filter turned off, the diff is the plain one."""
    repo, marker = rigged
    result = run_readmany(["glob", "--changed", "HEAD", "--with-diff", "--json"], cwd=repo)
    diff = result.stdout.decode()
    assert "+two, not staged" in diff and "+three = 4" in diff and "+one, staged" in diff
    assert not marker.exists()


# --- the diff never shows bytes from outside the root ----------------------------------------

_SWAPPER = """
import ctypes, os, sys, time
stop, pairs = sys.argv[1], sys.argv[2:]
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
swaps = []
for i in range(0, len(pairs), 2):
    name, target = pairs[i], pairs[i + 1]
    link = f"{stop}.{i}.link"
    os.symlink(target, link)
    swaps.append((name.encode(), link.encode()))
deadline = time.monotonic() + 120
while not os.path.exists(stop) and time.monotonic() < deadline:
    for name, link in swaps:  # one atomic step: the name is a file, then a link, ...
        for _ in range(500):
            libc.renameat2(AT_FDCWD, name, AT_FDCWD, link, RENAME_EXCHANGE)
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's")
def test_a_file_swapped_for_a_link_never_puts_outside_bytes_in_the_diff(tmp_path: Path) -> None:
    """A tracked file, and a directory holding one, each swapped in a loop with a link to
    a file (a directory) outside the root: in 500 diffs (READMANY_TESTS_FULL=1; else 100), not
    one byte from outside appears.
    git reading the work tree itself showed them within a hundred."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("OUTSIDE-SECRET\n" * 3)
    repo = new_repo(tmp_path / "repo", {"tracked.txt": "tracked\n", "d/f.txt": "in d\n"})
    (repo / "tracked.txt").write_text("tracked, edited\n" * 3)
    (repo / "d/f.txt").write_text("in d, edited\n" * 3)
    stop = tmp_path / "stop"
    swapped = [str(repo / "tracked.txt"), str(outside / "f.txt"), str(repo / "d"), str(outside)]
    swapper = subprocess.Popen([sys.executable, "-c", _SWAPPER, str(stop), *swapped])
    seen = set()
    try:
        for _ in range(scaled(500)):
            try:
                diff = diff_text(str(repo), staged=False, rev="HEAD")
            except Exception as failure:  # git meeting the swap half-way may fail: never leak
                diff = str(failure)
            assert "OUTSIDE-SECRET" not in diff, diff
            seen.update(edit for edit in ("tracked, edited", "in d, edited") if edit in diff)
    finally:
        stop.touch()
        swapper.wait(timeout=30)
    assert seen == {"tracked, edited", "in d, edited"}  # the diffs did see the edited files


# --- no file can forge the diff section ------------------------------------------------------

_FORGED = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-safe\n+forged\n"


@pytest.mark.parametrize(
    ("mode", "label"),
    [
        (["--staged"], "git diff --cached"),
        (["--changed", "HEAD"], "git diff HEAD"),
        (["--changed", "main..."], "git diff $(git merge-base main HEAD)"),
    ],
)
@pytest.mark.parametrize(
    ("fmt", "header", "quoted"),
    [
        ("text", "--- {} ---", '--- "{}" ---'),
        ("markdown", "## {}\n", '## "{}"\n'),
        ("xml", "<source>{}</source>", '<source>"{}"</source>'),
    ],
)
def test_a_file_named_as_the_diff_section_cannot_take_its_header(
    tmp_path: Path, mode: list[str], label: str, fmt: str, header: str, quoted: str
) -> None:
    repo = new_repo(tmp_path / "repo", {"x": "safe\n"})
    (repo / label).write_text(_FORGED)
    (repo / "x").write_text("real change\n")
    git(repo, "add", "-A")
    result = run_readmany(["glob", *mode, "--with-diff", "--format", fmt], cwd=repo)
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()
    assert out.count(header.format(label)) == 1  # the diff's, and only it
    assert out.count(quoted.format(label)) == 1  # the file's, as a JSON string
    assert out.index(quoted.format(label)) < out.index(header.format(label))


def test_without_a_diff_a_file_named_so_is_headed_as_it_is(tmp_path: Path) -> None:
    """Only a run with a diff section reserves its header: `--compat` is untouched."""
    repo = new_repo(tmp_path / "repo", {"x": "safe\n"})
    (repo / "git diff --cached").write_text(_FORGED)
    git(repo, "add", "-A")
    for args in (["glob", "--staged"], ["glob", "--compat", "--staged"]):
        out = run_readmany(args, cwd=repo).stdout.decode()
        assert "--- git diff --cached ---\n" in out and '"git diff --cached"' not in out


# --- git edge cases ---------------------------------------------------------------------------


def test_a_tracked_file_replaced_by_a_fifo_is_skipped_and_the_diff_still_made(
    tmp_path: Path,
) -> None:
    repo = new_repo(tmp_path / "repo", {"pipe.txt": "a file\n", "b.txt": "b\n"})
    (repo / "pipe.txt").unlink()
    os.mkfifo(repo / "pipe.txt")
    (repo / "b.txt").write_text("b, edited\n")
    without = run_readmany(["glob", "--changed", "HEAD"], cwd=repo, timeout=20)
    result = run_readmany(["glob", "--changed", "HEAD", "--with-diff"], cwd=repo, timeout=20)
    out, err = result.stdout.decode(), result.stderr.decode()
    assert result.returncode == without.returncode == 1  # a file that is not read
    assert "readmany: pipe.txt: not a regular file (FIFO), not read" in err
    assert "--- git diff HEAD ---" in out and "+b, edited" in out
    assert "[its changes are left out: pipe.txt: not a regular file (FIFO)]" in out


def test_nothing_staged_with_the_diff_says_so_and_writes_nothing(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", {"a.txt": "a\n"})
    result = run_readmany(["glob", "--staged", "--with-diff"], cwd=repo)
    assert result.returncode == 0
    assert result.stdout == b""
    assert "nothing is staged" in result.stderr.decode()


def test_a_git_file_pointing_at_another_repository_is_refused(tmp_path: Path) -> None:
    victim = new_repo(tmp_path / "victim", {"secret.txt": "VICTIM-SECRET\n"})
    (victim / "staged.txt").write_text("VICTIM-STAGED\n")
    git(victim, "add", "staged.txt")
    tree = tmp_path / "unpacked"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {victim / '.git'}\n")
    (tree / "mine.txt").write_text("mine\n")
    for args in (["--staged"], ["--changed", "HEAD", "--with-diff"], ["--staged", "--with-diff"]):
        result = run_readmany(["glob", *args], cwd=tree)
        assert result.returncode == 2
        assert b"VICTIM" not in result.stdout
        assert result.stderr.decode() == (
            f"readmany: {args[0]}: {tree}/.git "
            f"points at {victim}/.git, the git directory of another work tree: readmany "
            "reads only a work tree's own repository (set GIT_DIR to name another on "
            "purpose)\n"
        )


_REFUSED = (
    ": readmany reads only a work tree's own repository (set GIT_DIR to name another on purpose)\n"
)


def _victim(tmp_path: Path) -> Path:
    victim = new_repo(tmp_path / "victim", {"secret.txt": "VICTIM-SECRET\n"})
    (victim / "staged.txt").write_text("VICTIM-STAGED\n")
    git(victim, "add", "staged.txt")
    return victim


def _mine(path: Path) -> Path:
    repo = new_repo(path, {"mine.txt": "mine\n"})
    (repo / "mine.txt").write_text("mine, edited\n")
    git(repo, "add", "mine.txt")
    return repo


@pytest.mark.parametrize(
    "plant",
    ["objects", "index", "pack", "loose", "alternates", "ref", "head", "packed-refs", "refs"],
)
def test_a_git_directory_holding_links_into_another_repository_is_refused(
    tmp_path: Path, plant: str
) -> None:
    """The `.git` directory is the work tree's own, but what git reads in it is a link
    into another repository (or borrows its objects): refused, nothing of it shown."""
    victim = _victim(tmp_path)
    repo = _mine(tmp_path / "mine")
    mine, theirs = repo / ".git", victim / ".git"
    if plant in ("objects", "index", "refs", "packed-refs"):
        git(victim, "pack-refs", "--all")
        git(repo, "pack-refs", "--all")
        target = mine / plant
        if target.is_dir():
            import shutil

            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)
        target.symlink_to(theirs / plant)
        named = target
    elif plant == "pack":
        git(victim, "gc", "-q")
        named = mine / "objects" / "pack" / "borrowed.pack"
        named.symlink_to(next((theirs / "objects" / "pack").glob("*.pack")))
    elif plant == "loose":
        some = next(p for p in (theirs / "objects").iterdir() if len(p.name) == 2)
        named = mine / "objects" / f"{some.name}x"
        named.symlink_to(some)
    elif plant == "alternates":
        named = mine / "objects" / "info" / "alternates"
        named.write_text(f"{theirs / 'objects'}\n")
    elif plant == "ref":
        named = mine / "refs" / "heads" / "main"
        named.unlink()
        named.symlink_to(theirs / "refs" / "heads" / "main")
    else:  # HEAD
        named = mine / "HEAD"
        named.unlink()
        named.symlink_to(theirs / "HEAD")
    for args in (["--staged"], ["--changed", "HEAD", "--with-diff"], ["--staged", "--with-diff"]):
        result = run_readmany(["glob", *args], cwd=repo)
        assert b"VICTIM" not in result.stdout
        if plant == "head":  # git itself takes no HEAD that leads out of its directory
            assert result.returncode == 2
            continue
        what = (
            "borrows another repository's objects"
            if plant == "alternates"
            else ("is a symbolic link, which can lead into another repository")
        )
        assert (result.returncode, result.stderr.decode()) == (
            2,
            f"readmany: {args[0]}: {named} {what}{_REFUSED}",
        )


def test_borrowed_objects_in_the_environment_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = _victim(tmp_path)
    repo = _mine(tmp_path / "mine")
    commit = git(victim, "rev-parse", "HEAD").strip()
    monkeypatch.setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", str(victim / ".git" / "objects"))
    result = run_readmany(["glob", "--changed", commit, "--with-diff"], cwd=repo)
    assert b"VICTIM" not in result.stdout
    assert result.returncode == 2
    assert f"--changed {commit}: unknown revision" in result.stderr.decode()


def test_a_worktree_whose_commondir_leads_to_another_repository_is_refused(
    tmp_path: Path,
) -> None:
    """A `.git` file naming a worktree directory of the tree's own making, whose `gitdir`
    names it back and whose `commondir` is another repository's `.git`."""
    victim = _victim(tmp_path)
    tree = tmp_path / "unpacked"
    fake = tree / "store" / "worktrees" / "w"
    fake.mkdir(parents=True)
    (fake / "gitdir").write_text(f"{tree / '.git'}\n")
    (fake / "commondir").write_text(f"{victim / '.git'}\n")
    (fake / "HEAD").write_text("ref: refs/heads/main\n")
    (tree / ".git").write_text(f"gitdir: {fake}\n")
    (tree / "mine.txt").write_text("mine\n")
    result = run_readmany(["glob", "--staged", "--with-diff"], cwd=tree)
    assert b"VICTIM" not in result.stdout
    assert (result.returncode, result.stderr.decode()) == (
        2,
        f"readmany: --staged: {tree}/.git points at {fake}, a worktree's git directory "
        f"whose commondir leads to another repository's{_REFUSED}",
    )


def test_a_separate_git_directory_must_name_this_work_tree(tmp_path: Path) -> None:
    """`git init --separate-git-dir` elsewhere: a `.git` file naming it from another tree
    is refused; one that names this work tree in `core.worktree` is read."""
    owner = tmp_path / "owner"
    owner.mkdir()
    store = tmp_path / "outside" / "sepgd"
    store.parent.mkdir()
    git(owner, "init", "-q", "-b", "main", "--separate-git-dir", str(store), ".")
    (owner / "secret.txt").write_text("VICTIM-SECRET\n")
    git(owner, "add", "secret.txt")
    tree = tmp_path / "unpacked"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {store}\n")
    (tree / "mine.txt").write_text("mine\n")
    result = run_readmany(["glob", "--staged"], cwd=tree)
    assert b"VICTIM" not in result.stdout
    assert (result.returncode, result.stderr.decode()) == (
        2,
        f"readmany: --staged: {tree}/.git points at {store}, a git directory that does not "
        f"name this work tree as its own (to use it, run: git --git-dir={store} config "
        f"core.worktree {tree}){_REFUSED}",
    )
    # The owner's own tree, once its git directory names it, reads as before.
    git(owner, "config", "core.worktree", str(owner))
    result = run_readmany(["glob", "--staged"], cwd=owner)
    assert result.returncode == 0, result.stderr.decode()
    assert b"VICTIM-SECRET" in result.stdout
    # A git directory kept inside the work tree is the tree's own.
    inner = tmp_path / "inner"
    inner.mkdir()
    git(inner, "init", "-q", "-b", "main", "--separate-git-dir", str(inner / "store"), ".")
    (inner / "a.txt").write_text("INNER\n")
    git(inner, "add", "a.txt")
    result = run_readmany(["glob", "--staged", "a.txt"], cwd=inner)
    assert result.returncode == 0, result.stderr.decode()
    assert b"INNER" in result.stdout


def test_o_git_dir_never_writes_into_another_repository(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    tree = tmp_path / "unpacked"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {victim / '.git'}\n")
    (tree / "mine.txt").write_text("mine\n")
    result = run_readmany(["glob", "mine.txt", "-o", "git-dir:ctx.txt"], cwd=tree)
    assert not (victim / ".git" / "ctx.txt").exists()
    assert (result.returncode, result.stderr.decode()) == (
        2,
        f"readmany: -o git-dir:ctx.txt: {tree}/.git points at {victim}/.git, the git "
        f"directory of another work tree{_REFUSED}",
    )
    # and through links in a .git directory of its own
    repo = _mine(tmp_path / "mine")
    (repo / ".git" / "objects" / "info" / "alternates").write_text(f"{victim}/.git/objects\n")
    result = run_readmany(["many", "mine.txt", "-o", "git-dir:ctx.txt"], cwd=repo)
    assert result.returncode == 2
    assert not (repo / ".git" / "ctx.txt").exists()
    assert "borrows another repository's objects" in result.stderr.decode()


def test_worktrees_and_submodules_keep_their_own_repository(tmp_path: Path) -> None:
    main = new_repo(tmp_path / "main", {"a.txt": "a\n"})
    git(main, "worktree", "add", "-q", str(tmp_path / "linked"))
    linked = tmp_path / "linked"
    (linked / "a.txt").write_text("a, in the worktree\n")
    git(linked, "add", "a.txt")
    result = run_readmany(["glob", "--staged", "--with-diff"], cwd=linked)
    assert result.returncode == 0, result.stderr.decode()
    assert b"+a, in the worktree" in result.stdout

    library = new_repo(tmp_path / "library", {"lib.py": "LIB = 1\n"})
    git(main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    submodule = main / "lib"
    assert (submodule / ".git").is_file()
    (submodule / "lib.py").write_text("LIB = 2\n")
    git(submodule, "add", "lib.py")
    for args in (["--staged", "--with-diff"], ["--changed", "HEAD", "--with-diff"]):
        result = run_readmany(["glob", *args], cwd=submodule)
        assert result.returncode == 0, result.stderr.decode()
        assert b"--- lib.py ---" in result.stdout and b"+LIB = 2" in result.stdout


# --- the diff made from objects is git's own diff ---------------------------------------------

_GIT_DIFF = [
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--submodule=short",
    "-M",
    "--relative",
]


def test_the_diff_is_what_git_diff_shows_of_the_same_change(tmp_path: Path) -> None:
    """Edits, an added and a deleted file, a rename, a mode change, a link retargeted, a
    file made a link, binary files (by content and by `.gitattributes`), a missing final
    newline, names git quotes: `diff_text` equals `git diff` byte for byte, from the top
    and from a subdirectory."""
    moved = "".join(f"line {i}\n" for i in range(40))
    repo = new_repo(
        tmp_path / "repo",
        {
            ".gitattributes": "*.dat -diff\n",
            "src/app.py": "def main():\n    return 1\n\n\nclass A:\n    x = 1\n",
            "src/old.py": moved,
            "src/gone.txt": "bye\n",
            "src/run.sh": "echo hi\n",
            "src/table.dat": "a,b\n",
            'src/caf\u00e9 "q".txt': "quoted name\n",
            "top.txt": "top\n",
        },
    )
    os.symlink("app.py", repo / "src/link")
    (repo / "src/blob.bin").write_bytes(b"\0\1\2" * 10)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "second")
    (repo / "src/app.py").write_text("def main():\n    return 2\n\n\nclass A:\n    x = 2")
    (repo / "src/old.py").rename(repo / "src/new.py")
    (repo / "src/new.py").write_text(moved + "one more\n")
    (repo / "src/gone.txt").unlink()
    (repo / "src/run.sh").chmod(0o755)
    (repo / "src/table.dat").write_text("a,b\n1,2\n")
    (repo / "src/blob.bin").write_bytes(b"\0\1\3" * 10)
    (repo / "src/link").unlink()
    os.symlink("new.py", repo / "src/link")
    (repo / "top.txt").unlink()
    os.symlink("src/app.py", repo / "top.txt")
    (repo / 'src/caf\u00e9 "q".txt').write_text("quoted name, edited\n")
    (repo / "src/added.txt").write_text("added\n")
    git(repo, "add", "-N", "src/added.txt")  # intent to add: `git diff` shows it
    git(repo, "add", "src/new.py", "src/old.py")
    for root in (repo, repo / "src"):
        assert diff_text(str(root), staged=False, rev="HEAD") == git(root, *_GIT_DIFF, "HEAD")
    git(repo, "add", "-A")
    (repo / "src/app.py").write_text("not staged\n")
    for root in (repo, repo / "src"):
        expected = git(root, *_GIT_DIFF, "--cached", "HEAD")
        assert diff_text(str(root), staged=True) == expected


def test_the_staged_diff_is_the_index_s_not_the_work_tree_s(tmp_path: Path) -> None:
    """git takes a work-tree file for the staged blob when its stat data matches the index
    (a repository's `core.checkStat=minimal` makes that size and mtime): the staged diff
    must show the staged bytes, whatever the work tree holds."""
    repo = new_repo(tmp_path / "repo", {"a.txt": "committed\n"})
    git(repo, "config", "core.checkStat", "minimal")
    git(repo, "config", "core.trustctime", "false")
    (repo / "a.txt").write_text("staged-1\n")
    past = os.stat(repo / "a.txt").st_mtime_ns - 60 * 10**9  # older than the index: not racy
    os.utime(repo / "a.txt", ns=(past, past))
    git(repo, "add", "a.txt")
    (repo / "a.txt").write_text("WORKTREE\n")  # the same size, the same mtime
    os.utime(repo / "a.txt", ns=(past, past))
    diff = diff_text(str(repo), staged=True)
    assert "+staged-1" in diff and "WORKTREE" not in diff
    result = run_readmany(["glob", "--staged", "--with-diff"], cwd=repo)
    assert b"WORKTREE" not in result.stdout and b"+staged-1" in result.stdout
