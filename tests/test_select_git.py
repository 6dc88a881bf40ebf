"""Selection by git, against real repositories built with the `git` command."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from helpers import run_readmany

from readmany.errors import UsageError
from readmany.frame.paths import header_path
from readmany.read import gitcontent
from readmany.read.gitcontent import index_blobs
from readmany.select.candidates import REASON_LINK_OUTSIDE, REASON_OUTSIDE, Candidate, Skip
from readmany.select.git import (
    REASON_DELETED,
    REASON_NESTED_REPOSITORY,
    REASON_SUBMODULE,
    REASON_SYMLINK,
    GitEntry,
    GitSelection,
    changed,
    is_tracked,
    staged,
)

# The diff as `glob --with-diff` asks for it: a left-out file named as headers name it.
diff_text = functools.partial(gitcontent.diff_text, header=header_path)

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\0" * 20
BINARY = b"\x00\x01\x02\xff" * 64


@pytest.fixture(autouse=True)
def _git_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No configuration of this machine, English messages, and no repository above."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.setenv("LC_ALL", "C")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{name}_NAME", "Dev")
        monkeypatch.setenv(f"GIT_{name}_EMAIL", "dev@example.org")


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, check=False, env=env or None
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def write(repo: Path, files: Mapping[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


def new_repo(path: Path, files: Mapping[str, str | bytes] | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    if files:
        write(path, files)
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "first")
    return path


def listed(selection: GitSelection) -> list[tuple[str, str]]:
    return [(entry.rel, entry.status) for entry in selection.entries]


def skipped(selection: GitSelection) -> list[tuple[str, str]]:
    return [(skip.rel, skip.reason) for skip in selection.skipped]


def contents(selection: GitSelection) -> dict[str, bytes]:
    with index_blobs(selection) as blobs:
        return {blob.entry.rel: blob.read() for blob in blobs}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return new_repo(
        tmp_path / "repo",
        {
            "README.md": "# readme\n",
            "src/app.py": "print('v1')\n",
            "src/old_name.py": "moved = True\n" * 20,
            "src/gone.py": "bye\n",
            "src/config.txt": "a file, later a link\n",
            ".gitignore": "*.log\nbuild/\n",
        },
    )


# --- staged ---------------------------------------------------------------------------------


def test_staged_lists_each_kind_of_change_and_reads_the_index(repo: Path) -> None:
    write(repo, {"src/app.py": "print('staged')\n"})
    git(repo, "add", "src/app.py")
    write(repo, {"src/app.py": "print('work tree, not staged')\n"})  # partially staged
    git(repo, "mv", "src/old_name.py", "src/new_name.py")
    git(repo, "rm", "-q", "src/gone.py")
    (repo / "src/config.txt").unlink()
    (repo / "src/config.txt").symlink_to("app.py")  # type change: file -> link
    write(repo, {"debug.log": "forced\n", "build/helper.py": "def helper(): ...\n"})
    write(repo, {".vscode/settings.json": "{}\n", "img.png": PNG, "blob.dat": BINARY})
    git(repo, "add", "-f", "debug.log", "build/helper.py")
    git(repo, "add", ".vscode", "img.png", "blob.dat", "src/config.txt")
    write(repo, {"untracked.txt": "not staged\n"})

    selection = staged(str(repo))

    assert selection.root == str(repo)
    assert selection.from_index
    assert listed(selection) == [
        (".vscode/settings.json", "A"),
        ("blob.dat", "A"),
        ("build/helper.py", "A"),
        ("debug.log", "A"),
        ("img.png", "A"),
        ("src/app.py", "M"),
        ("src/new_name.py", "R"),
    ]
    assert selection.entries[-1].source == "src/old_name.py"
    assert selection.entries[0].path == str(repo / ".vscode/settings.json")
    assert skipped(selection) == [
        ("src/config.txt", REASON_SYMLINK),
        ("src/gone.py", REASON_DELETED),
    ]
    assert contents(selection) == {
        ".vscode/settings.json": b"{}\n",
        "blob.dat": BINARY,
        "build/helper.py": b"def helper(): ...\n",
        "debug.log": b"forced\n",
        "img.png": PNG,
        "src/app.py": b"print('staged')\n",
        "src/new_name.py": b"moved = True\n" * 20,
    }


def test_the_select_stream_merges_entries_and_skips_in_order(repo: Path) -> None:
    git(repo, "rm", "-q", "src/gone.py")
    write(repo, {"src/zzz.py": "z\n", "a.py": "a\n"})
    git(repo, "add", "src/zzz.py", "a.py")
    assert list(staged(str(repo)).events()) == [
        Candidate("a.py", str(repo / "a.py")),
        Skip("src/gone.py", REASON_DELETED),
        Candidate("src/zzz.py", str(repo / "src/zzz.py")),
    ]


def test_unborn_head_stages_everything(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    write(repo, {"a.txt": "alpha\n", "dir/b.txt": "beta\n", "later.txt": "unstaged\n"})
    git(repo, "add", "a.txt", "dir/b.txt")
    selection = staged(str(repo))
    assert listed(selection) == [("a.txt", "A"), ("dir/b.txt", "A")]
    assert contents(selection) == {"a.txt": b"alpha\n", "dir/b.txt": b"beta\n"}
    assert diff_text(str(repo), staged=True) == (
        "diff --git a/a.txt b/a.txt\nnew file mode 100644\nindex 0000000..4a58007\n"
        "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+alpha\n"
        "diff --git a/dir/b.txt b/dir/b.txt\nnew file mode 100644\nindex 0000000..65b2df8\n"
        "--- /dev/null\n+++ b/dir/b.txt\n@@ -0,0 +1 @@\n+beta\n"
    )


@pytest.mark.smoke
def test_nothing_staged_starts_no_batch(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = count_processes(monkeypatch)
    selection = staged(str(repo))
    assert selection.entries == () and selection.skipped == ()
    assert contents(selection) == {}
    assert subcommands(started) == ["config", "rev-parse", "diff-index"]


def test_non_ascii_and_newlines_in_names_come_back_exactly(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", {"keep.txt": "k\n"})
    names = ["line\nbreak.txt", "naïve café.md", "tab\there.txt", 'quote".txt', "日本/語.txt"]
    names += ["\uff5e.txt", "\U0001f600.txt"]  # git's byte order puts U+FF5E first
    write(repo, {name: f"content of {name}\n" for name in names})
    git(repo, "add", "-A")
    selection = staged(str(repo))
    assert [entry.rel for entry in selection.entries] == [
        "line\nbreak.txt",
        "naïve café.md",
        'quote".txt',
        "tab\there.txt",
        "日本/語.txt",
        "\U0001f600.txt",
        "\uff5e.txt",
    ]
    assert contents(selection) == {name: f"content of {name}\n".encode() for name in names}
    assert listed(changed(str(repo), "HEAD")) == [(e.rel, "A") for e in selection.entries]


def test_a_name_that_is_not_utf8_round_trips(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    name = os.fsdecode(b"latin-\xe9.txt")
    (repo / name).write_bytes(b"x\n")
    git(repo, "add", "-A")
    selection = staged(str(repo))
    assert [entry.rel for entry in selection.entries] == [name]
    assert os.path.exists(selection.entries[0].path)


def test_a_submodule_is_skipped_never_entered(tmp_path: Path) -> None:
    library = new_repo(tmp_path / "library", {"lib.py": "LIB = 1\n"})
    repo = new_repo(tmp_path / "repo", {"main.py": "import lib\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    selection = staged(str(repo))
    assert listed(selection) == [(".gitmodules", "A")]
    assert skipped(selection) == [("lib", REASON_SUBMODULE)]
    assert contents(selection) == {
        ".gitmodules": f'[submodule "lib"]\n\tpath = lib\n\turl = {library}\n'.encode()
    }
    git(repo, "commit", "-q", "-m", "with a submodule")
    write(repo, {"lib/lib.py": "LIB = 2\n", "main.py": "import lib  # 2\n"})
    assert listed(changed(str(repo), "HEAD")) == [("main.py", "M")]
    # Edits inside a submodule are its own: asking would run `git status` in it, with
    # its configuration's filters. A commit of its own moves it, and that is listed.
    assert skipped(changed(str(repo), "HEAD")) == []
    git(repo / "lib", "commit", "-q", "-am", "lib 2")
    assert skipped(changed(str(repo), "HEAD")) == [("lib", REASON_SUBMODULE)]


def test_a_root_below_the_top_limits_and_relativises(repo: Path) -> None:
    write(repo, {"src/app.py": "v2\n", "README.md": "outside the root\n", "src/deep/x.py": "x\n"})
    git(repo, "mv", "src/old_name.py", "renamed_out.py")
    git(repo, "add", "-A")
    selection = staged(str(repo / "src"))
    assert selection.root == str(repo / "src")
    assert listed(selection) == [("app.py", "M"), ("deep/x.py", "A")]
    # the rename left the root: from inside, the old path was deleted
    assert skipped(selection) == [("old_name.py", REASON_DELETED)]
    assert selection.entries[1].path == str(repo / "src/deep/x.py")
    assert contents(selection) == {"app.py": b"v2\n", "deep/x.py": b"x\n"}


def test_the_boundary_still_refuses_env_files(repo: Path) -> None:
    write(repo, {".env": "SECRET=1\n", "pkg/node_modules/m.js": "m\n", "ok.py": "ok\n"})
    git(repo, "add", "-f", ".env", "pkg/node_modules/m.js", "ok.py")
    selection = staged(str(repo))
    assert listed(selection) == [("ok.py", "A")]
    assert skipped(selection) == [
        (".env", REASON_OUTSIDE),
        ("pkg/node_modules/m.js", REASON_OUTSIDE),
    ]
    diff = diff_text(str(repo), staged=True)
    assert "SECRET" not in diff and "node_modules" not in diff
    assert diff.startswith("diff --git a/ok.py b/ok.py\n")


def test_the_batch_follows_the_index_file_git_names(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git commit -a` runs its hook with GIT_INDEX_FILE naming a temporary index."""
    write(repo, {"README.md": "in the other index\n"})
    other = {**os.environ, "GIT_INDEX_FILE": str(repo / ".git" / "other-index")}
    git(repo, "read-tree", "HEAD", env=other)
    git(repo, "add", "README.md", env=other)
    assert staged(str(repo)).entries == ()
    monkeypatch.setenv("GIT_INDEX_FILE", other["GIT_INDEX_FILE"])
    selection = staged(str(repo))
    assert contents(selection) == {"README.md": b"in the other index\n"}


# --- reading the batch ----------------------------------------------------------------------


def count_processes(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The argument lists of the processes started from now on (`run` starts them too)."""
    started: list[list[str]] = []
    original = subprocess.Popen

    def counted(args: list[str], *rest: Any, **options: Any) -> subprocess.Popen[bytes]:
        started.append(list(args))
        process: subprocess.Popen[bytes] = original(args, *rest, **options)
        return process

    monkeypatch.setattr(subprocess, "Popen", counted)
    return started


def subcommands(started: list[list[str]]) -> list[str]:
    """The git command of each argument list: what follows git's own options."""
    names = []
    for args in started:
        at = 1
        while args[at].startswith("-"):
            at += 2 if args[at] == "-c" else 1
        names.append(args[at])
    return names


@pytest.mark.smoke
def test_thousands_of_files_are_read_by_one_batch(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"many/{i // 100:02d}/file{i:04d}.txt": f"file {i}\n" * (i % 7) for i in range(3001)}
    write(repo, files)
    git(repo, "add", "many")
    write(repo, {rel: "edited after staging\n" for rel in files})  # all partially staged
    started = count_processes(monkeypatch)
    selection = staged(str(repo))
    assert contents(selection) == {rel: text.encode() for rel, text in files.items()}
    assert subcommands(started) == ["config", "rev-parse", "diff-index", "config", "cat-file"]
    assert started[-1][-2:] == ["cat-file", "--batch"]


@pytest.mark.smoke
def test_a_clean_work_tree_copy_is_read_without_a_batch(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"many/file{i:04d}.txt": f"file {i}\n" * (i % 7) for i in range(3001)}
    write(repo, files)
    git(repo, "add", "many")
    write(repo, {"many/file0005.txt": "edited after staging\n"})
    started = count_processes(monkeypatch)
    selection = staged(str(repo))
    with index_blobs(selection) as blobs:
        read = {
            blob.entry.rel: blob.read() for blob in blobs if blob.entry.rel != "many/file0005.txt"
        }
    assert read == {rel: text.encode() for rel, text in files.items() if rel != "many/file0005.txt"}
    assert subcommands(started) == ["config", "rev-parse", "diff-index"]
    assert contents(selection)["many/file0005.txt"] == b"file 5\n" * 5
    assert subcommands(started) == ["config", "rev-parse", "diff-index", "config", "cat-file"]


def test_the_staged_bytes_win_over_filters_and_odd_files(repo: Path) -> None:
    """Whatever the work tree holds (line endings converted, a FIFO, a link), the staged
    bytes are what is read."""
    write(repo, {".gitattributes": "*.txt text=auto\n", "crlf.txt": "one\r\ntwo\r\n"})
    write(repo, {"fifo.py": "was a file\n", "linked.py": "was a file\n", "same.py": "same\n"})
    git(repo, "add", ".")
    (repo / "fifo.py").unlink()
    os.mkfifo(repo / "fifo.py")  # opening it for reading would wait for a writer
    (repo / "linked.py").unlink()
    (repo / "linked.py").symlink_to("same.py")  # not the staged content: from the index
    selection = staged(str(repo))
    assert contents(selection) == {
        ".gitattributes": b"*.txt text=auto\n",
        "crlf.txt": b"one\ntwo\n",  # as committed: git converts on the way in
        "fifo.py": b"was a file\n",
        "linked.py": b"was a file\n",
        "same.py": b"same\n",
    }


def test_a_large_blob_can_be_passed_over_by_its_size(repo: Path) -> None:
    big = bytes(range(256)) * (5 * 4096 + 1)  # 5 MiB and a bit: too large to hold, from git
    medium = bytes(range(256)) * (2 * 4096 + 3)  # 2 MiB and a bit: verified in the work tree
    files = {"a_big.bin": big, "b_small.txt": b"small\n", "c_big.bin": big, "d_mid.bin": medium}
    write(repo, {**files, "e_mid.bin": medium})
    git(repo, "add", ".")
    write(repo, {"e_mid.bin": b"edited after staging"})
    seen = []
    with index_blobs(staged(str(repo))) as blobs:
        for blob in blobs:
            seen.append((blob.entry.rel, blob.size))
            if blob.entry.rel == "a_big.bin":
                assert blob.head(4) == b"\x00\x01\x02\x03"  # sniffed, then left unread
            elif blob.entry.rel == "b_small.txt":
                assert blob.read() == b"small\n"
            elif blob.entry.rel == "c_big.bin":
                assert blob.head(2) == b"\x00\x01"
                pieces = list(blob.chunks(1 << 20))
                assert [len(p) for p in pieces] == [2, *[1 << 20] * 5, 256 - 2]
                assert b"".join(pieces) == big
            elif blob.entry.rel == "d_mid.bin":
                assert blob.head(3) == b"\x00\x01\x02"
                pieces = list(blob.chunks(1 << 20))
                assert [len(p) for p in pieces] == [1 << 20, 1 << 20, 3 * 256]
                assert b"".join(pieces) == medium
            else:
                assert not blob.missing
                assert blob.head(1) == b"\x00"  # and the rest dropped
    assert seen == [
        ("a_big.bin", len(big)),
        ("b_small.txt", 6),
        ("c_big.bin", len(big)),
        ("d_mid.bin", len(medium)),
        ("e_mid.bin", len(medium)),
    ]


def test_a_blob_cannot_be_read_once_the_batch_moved_on(repo: Path) -> None:
    write(repo, {"one.txt": "1\n", "two.txt": "2\n"})
    git(repo, "add", ".")
    with index_blobs(staged(str(repo))) as blobs:
        stream = iter(blobs)
        first = next(stream)
        second = next(stream)
        assert second.read() == b"2\n"
        with pytest.raises(RuntimeError, match=r"^one\.txt: the batch has moved past this blob$"):
            first.read()


@pytest.mark.smoke
def test_stopping_early_ends_the_batch(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(repo, {f"f{i}.txt": "x\n" for i in range(100)})
    git(repo, "add", ".")
    write(repo, {f"f{i}.txt": "edited after staging\n" for i in range(100)})
    selection = staged(str(repo))
    processes: list[subprocess.Popen[bytes]] = []
    original = subprocess.Popen

    def kept(*args: Any, **options: Any) -> subprocess.Popen[bytes]:
        process: subprocess.Popen[bytes] = original(*args, **options)
        processes.append(process)
        return process

    monkeypatch.setattr(subprocess, "Popen", kept)
    with index_blobs(selection) as blobs:
        for blob in blobs:
            assert blob.read() == b"x\n"
            break
    batches = [process for process in processes if "cat-file" in process.args]
    assert len(batches) == 1 and batches[0].returncode is not None


def test_a_changed_selection_has_no_index_to_read(repo: Path) -> None:
    with pytest.raises(ValueError, match="index_blobs reads a staged selection"):
        index_blobs(changed(str(repo), "HEAD"))


# --- changed --------------------------------------------------------------------------------


def test_changed_lists_staged_unstaged_and_untracked_against_a_revision(repo: Path) -> None:
    write(repo, {"src/app.py": "print('staged')\n"})
    git(repo, "add", "src/app.py")
    write(repo, {"README.md": "# changed, not staged\n", "new.txt": "untracked\n"})
    write(repo, {"trace.log": "ignored\n", "build/out.py": "ignored\n", "kept.log": "forced\n"})
    git(repo, "add", "-f", "kept.log")
    git(repo, "mv", "src/old_name.py", "src/new_name.py")
    (repo / "src/gone.py").unlink()
    (repo / "src/config.txt").unlink()
    (repo / "src/config.txt").symlink_to("app.py")

    selection = changed(str(repo), "HEAD")

    assert not selection.from_index
    assert listed(selection) == [
        ("README.md", "M"),
        ("kept.log", "A"),
        ("new.txt", "?"),
        ("src/app.py", "M"),
        ("src/config.txt", "T"),
        ("src/new_name.py", "R"),
    ]
    assert selection.entries[4] == GitEntry(
        "src/config.txt", str(repo / "src/config.txt"), "T", 0o120000
    )
    assert skipped(selection) == [("src/gone.py", REASON_DELETED)]


def test_changed_from_the_merge_base(repo: Path) -> None:
    git(repo, "switch", "-q", "-c", "feature")
    write(repo, {"feature.py": "on the branch\n"})
    git(repo, "add", "feature.py")
    git(repo, "commit", "-q", "-m", "feature")
    git(repo, "switch", "-q", "main")
    write(repo, {"README.md": "main moved on\n", "main_only.py": "main\n"})
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "main moves")
    git(repo, "switch", "-q", "feature")
    write(repo, {"src/app.py": "uncommitted\n"})

    assert listed(changed(str(repo), "main...")) == [("feature.py", "A"), ("src/app.py", "M")]
    # against main itself, main's own commit shows up reversed
    assert listed(changed(str(repo), "main")) == [
        ("README.md", "M"),
        ("feature.py", "A"),
        ("src/app.py", "M"),
    ]
    assert skipped(changed(str(repo), "main")) == [("main_only.py", REASON_DELETED)]
    assert diff_text(str(repo), staged=False, rev="main...", paths=["feature.py"]) == (
        "diff --git a/feature.py b/feature.py\nnew file mode 100644\nindex 0000000..d02117b\n"
        "--- /dev/null\n+++ b/feature.py\n@@ -0,0 +1 @@\n+on the branch\n"
    )


def test_a_deleted_file_that_is_still_on_disk_is_listed_as_untracked(repo: Path) -> None:
    git(repo, "rm", "-q", "--cached", "src/gone.py")
    selection = changed(str(repo), "HEAD")
    assert listed(selection) == [("src/gone.py", "?")]
    assert selection.skipped == ()


def test_a_nested_repository_is_skipped(repo: Path) -> None:
    new_repo(repo / "vendor/other", {"x.py": "x\n"})
    assert skipped(changed(str(repo), "HEAD")) == [("vendor/other/", REASON_NESTED_REPOSITORY)]


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        (
            "nope",
            "--changed nope: unknown revision 'nope' (give a branch, tag or commit, "
            "e.g. main, HEAD~1 or main...; branches here: main (checked out))",
        ),
        (
            "nope...",
            "--changed nope...: unknown revision 'nope' (give a branch, tag or commit, "
            "e.g. main, HEAD~1 or main...; branches here: main (checked out))",
        ),
        (
            "main..HEAD",
            "--changed main..HEAD: give one revision, or BASE... to start from the merge "
            "base of BASE and HEAD",
        ),
        ("--output=x", "--changed '--output=x': not a revision (give a branch, tag or commit)"),
        ("", "--changed '': not a revision (give a branch, tag or commit)"),
    ],
)
def test_a_bad_revision_is_one_clear_line(repo: Path, rev: str, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        changed(str(repo), rev)
    assert str(raised.value) == message


def test_unrelated_histories_have_no_merge_base(repo: Path) -> None:
    git(repo, "switch", "-q", "--orphan", "other")
    write(repo, {"o.txt": "o\n"})
    git(repo, "add", "o.txt")
    git(repo, "commit", "-q", "-m", "other root")
    with pytest.raises(UsageError) as raised:
        changed(str(repo), "main...")
    assert (
        str(raised.value) == "--changed main...: no merge base of main and HEAD (no common commit)"
    )


# --- no repository, no git ------------------------------------------------------------------


def test_outside_a_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(UsageError) as raised:
        staged(str(plain))
    assert str(raised.value) == (
        f"--staged needs a git work tree, and {plain} is not in one "
        "(not a git repository (or any of the parent directories): .git)"
    )
    with pytest.raises(UsageError, match=r"^--changed needs a git work tree, and "):
        changed(str(plain), "HEAD")
    with pytest.raises(UsageError, match=r"^--with-diff needs a git work tree, and "):
        diff_text(str(plain), staged=True)
    assert not is_tracked(str(plain), "out.txt")


def test_inside_the_git_directory(repo: Path) -> None:
    with pytest.raises(UsageError) as raised:
        staged(str(repo / ".git"))
    assert str(raised.value) == (
        f"--staged needs a git work tree, and {repo / '.git'} is inside a .git directory"
    )


def test_without_git(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(UsageError) as raised:
        staged(str(repo))
    assert str(raised.value) == "--staged runs git, and no `git` command was found: install git"
    with pytest.raises(UsageError) as raised:
        changed(str(repo), "main...")
    assert str(raised.value) == "--changed runs git, and no `git` command was found: install git"
    assert not is_tracked(str(repo), "README.md")


def test_a_root_that_is_not_a_directory(repo: Path) -> None:
    with pytest.raises(UsageError) as raised:
        staged(str(repo / "README.md"))
    assert str(raised.value) == f"root is not a directory: {repo / 'README.md'}"


# --- diff, tracking ---------------------------------------------------------------------------


def test_the_staged_diff_is_the_index_not_the_work_tree(repo: Path) -> None:
    write(repo, {"src/app.py": "print('staged')\n"})
    git(repo, "add", "src/app.py")
    write(repo, {"src/app.py": "print('not staged')\n", "README.md": "# not staged\n"})
    assert diff_text(str(repo), staged=True) == (
        "diff --git a/src/app.py b/src/app.py\nindex e59f059..31dace4 100644\n"
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-print('v1')\n+print('staged')\n"
    )
    assert diff_text(str(repo), staged=False, rev="HEAD", paths=["README.md"]) == (
        "diff --git a/README.md b/README.md\nindex 89931ee..2da14cd 100644\n"
        "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# readme\n+# not staged\n"
    )
    assert diff_text(str(repo), staged=True, paths=[]) == ""


def test_the_diff_ignores_diff_configuration(repo: Path) -> None:
    write(repo, {"README.md": "# other\n"})
    git(repo, "add", "README.md")
    for key, value in [
        ("color.ui", "always"),
        ("diff.noprefix", "true"),
        ("diff.external", "false"),
        ("diff.relative", "true"),
    ]:
        git(repo, "config", key, value)
    assert diff_text(str(repo), staged=True) == (
        "diff --git a/README.md b/README.md\nindex 89931ee..f752c11 100644\n"
        "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# readme\n+# other\n"
    )


def test_a_filtered_selection_gives_the_paths_of_its_diff(repo: Path) -> None:
    git(repo, "mv", "src/old_name.py", "src/new_name.py")
    git(repo, "rm", "-q", "src/gone.py")
    write(repo, {"docs/a.md": "a\n"})
    git(repo, "add", "docs")
    selection = staged(str(repo)).filtered(lambda rel: rel.startswith("src/"))
    assert listed(selection) == [("src/new_name.py", "R")]
    assert selection.diff_paths() == ["src/new_name.py", "src/old_name.py", "src/gone.py"]
    diff = diff_text(str(repo), staged=True, paths=selection.diff_paths())
    assert diff == (
        "diff --git a/src/gone.py b/src/gone.py\ndeleted file mode 100644\n"
        "index b023018..0000000\n--- a/src/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
        "diff --git a/src/old_name.py b/src/new_name.py\nsimilarity index 100%\n"
        "rename from src/old_name.py\nrename to src/new_name.py\n"
    )


def test_is_tracked(repo: Path, tmp_path: Path) -> None:
    write(repo, {"staged.json": "{}\n", "untracked.json": "{}\n", "dump.log": "ignored\n"})
    git(repo, "add", "staged.json")
    root = str(repo)
    assert is_tracked(root, "README.md")
    assert is_tracked(root, str(repo / "src/app.py"))
    assert is_tracked(root, "staged.json")  # staged, not committed yet: still tracked
    assert not is_tracked(root, "untracked.json")
    assert not is_tracked(root, "dump.log")
    assert not is_tracked(root, ".git/readmany-context.txt")
    assert not is_tracked(root, "no/such/dir/out.txt")
    assert not is_tracked(root, str(tmp_path / "elsewhere.txt"))
    assert not is_tracked(root, "[*].md")  # a name, never a pattern


@pytest.mark.smoke
def test_a_long_path_list_is_split_over_command_lines(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo, {f"f{i}.txt": f"{i}\n" for i in range(12)})
    git(repo, "add", ".")
    paths = staged(str(repo)).diff_paths()
    whole = diff_text(str(repo), staged=True, paths=paths)
    started = count_processes(monkeypatch)
    monkeypatch.setattr("readmany.read.gitcontent._ARGV_BUDGET", 20)  # two names a call
    assert diff_text(str(repo), staged=True, paths=paths) == whole
    assert subcommands(started) == ["config", "rev-parse", *["diff"] * 6]
    assert whole.count("diff --git") == 12


def test_changed_links_keep_to_the_boundary(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not in the repository\n")
    write(repo, {".env": "SECRET=1\n"})
    (repo / "to_outside").symlink_to(outside)  # untracked
    (repo / "to_env").symlink_to(".env")
    (repo / "to_readme").symlink_to("README.md")
    (repo / "src/config.txt").unlink()
    (repo / "src/config.txt").symlink_to(outside)  # tracked: a type change
    selection = changed(str(repo), "HEAD")
    assert listed(selection) == [("to_readme", "?")]
    assert skipped(selection) == [
        (".env", REASON_OUTSIDE),
        ("src/config.txt", REASON_LINK_OUTSIDE),
        ("to_env", REASON_OUTSIDE),
        ("to_outside", REASON_LINK_OUTSIDE),
    ]


def test_writing_over_a_tracked_file_is_said(tmp_path: Path) -> None:
    """`-o` naming a file git tracks: a staged dump is told how to keep the dump out of
    commits; a walk that replaces a tracked file is told how to bring it back. An
    untracked or new target is written without a word."""
    repo = new_repo(tmp_path / "repo", {"main.py": "x = 1\n", "ctx.txt": "old dump\n"})
    sub = repo / "sub"
    sub.mkdir()
    walk = run_readmany(["glob", "--root", "..", ".", "-o", "../main.py"], cwd=sub)
    assert walk.stderr.decode().splitlines()[0] == (
        "readmany: warning: -o ../main.py is a file git tracks: the dump replaces it "
        "(`git restore ../main.py` brings back what was committed); write the dump under "
        ".git/ or to a name in .gitignore"
    )
    git(repo, "restore", "main.py")
    write(repo, {"main.py": "x = 2\n"})
    git(repo, "add", "main.py")
    staged_run = run_readmany(["glob", "--staged", "-o", "ctx.txt"], cwd=repo)
    assert staged_run.returncode == 0, staged_run.stderr
    assert (
        staged_run.stderr.decode()
        .splitlines()[0]
        .startswith("readmany: warning: -o ctx.txt is tracked by git: every run rewrites it")
    )
    for target in ("new.txt", ".git/context.txt"):
        quiet = run_readmany(["glob", ".", "-o", target, "-q"], cwd=repo)
        assert quiet.returncode == 0 and quiet.stderr == b"", quiet.stderr
        again = run_readmany(["glob", ".", "-o", target, "-q"], cwd=repo)
        assert again.stderr == b"", again.stderr  # it exists now, and git does not track it


def test_git_selections_say_what_matched_nothing(tmp_path: Path) -> None:
    """A pattern that matches none of git's paths is said, with exit status 1, as a
    walk says it; nothing staged or changed at all is said too, and passes (a
    pre-commit hook with nothing to dump must not fail the commit)."""
    repo = new_repo(tmp_path / "repo", {"main.py": "x = 1\n", "b.txt": "y\n"})
    nothing = run_readmany(["glob", "--staged"], cwd=repo)
    assert (nothing.returncode, nothing.stdout) == (0, b"")
    assert nothing.stderr == b"readmany: nothing is staged: git add the files first\n"
    same = run_readmany(["glob", "--changed", "HEAD", "--max-tokens", "1k"], cwd=repo)
    assert (same.returncode, same.stdout) == (0, b"")
    assert same.stderr == b"readmany: no file differs from HEAD\n"
    write(repo, {"b.txt": "z\n"})
    for extra in ([], ["--max-tokens", "1k"], ["--stats"]):
        result = run_readmany(
            ["glob", "--changed", "HEAD", "b.txt", "nomatch/**", *extra], cwd=repo
        )
        assert result.returncode == 1, result.stderr
        assert b"readmany: no file matches 'nomatch/**'\n" in result.stderr
        assert b"b.txt" in result.stdout
    git(repo, "add", "b.txt")
    report = run_readmany(["glob", "--staged", "*.py", "b.txt", "--json"], cwd=repo)
    assert report.returncode == 1
    assert json.loads(report.stdout)["details"]["unmatched"] == ["*.py"]
    assert json.loads(report.stdout)["details"]["files"] == ["b.txt"]
    # A pattern that matches a file git names but does not read is not unmatched.
    git(repo, "rm", "-q", "main.py")
    deleted = run_readmany(["glob", "--staged", "main.py"], cwd=repo)
    assert deleted.returncode == 0, deleted.stderr
    assert b"no file matches" not in deleted.stderr


def _write_index(repo: Path, names: list[bytes]) -> None:
    """An index naming `names` (each a blob of its own), written by hand: git refuses
    to stage such paths, an archive of a repository need not."""
    import hashlib
    import struct

    body = b""
    for name in sorted(names):
        done = subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=repo,
            input=b"staged " + name + b"\n",
            capture_output=True,
            check=True,
        )
        oid = done.stdout.decode().strip()
        entry = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o100644, 0, 0, 0)
        entry += bytes.fromhex(oid) + struct.pack(">H", len(name)) + name
        body += entry + b"\0" * (8 - len(entry) % 8)
    index = b"DIRC" + struct.pack(">II", 2, len(names)) + body
    (repo / ".git" / "index").write_bytes(index + hashlib.sha1(index).digest())


@pytest.mark.parametrize("mode", [["--staged"], ["--changed", "HEAD"]])
def test_an_index_naming_paths_outside_the_root_is_refused(tmp_path: Path, mode: list[str]) -> None:
    (tmp_path / "outside.txt").write_text("SECRET outside the root\n")
    repo = new_repo(tmp_path / "repo", {"ok.txt": "ok\n"})
    names = [b"../outside.txt", b"a/../../outside.txt", b"./ok.txt", b"/ok.txt", b"ok.txt"]
    _write_index(repo, names)
    result = run_readmany(["glob", *mode, "--json", "--with-diff"], cwd=repo)
    assert b"SECRET" not in result.stdout
    report = json.loads(result.stdout)
    skipped = {entry["path"]: entry["reason"] for entry in report["details"]["skipped"]}
    assert skipped["../outside.txt"] == "boundary"
    for name in ("../outside.txt", "a/../../outside.txt", "./ok.txt", "/ok.txt"):
        assert skipped.get(name, "boundary") == "boundary"  # refused, where git names it
        assert name not in report["details"]["files"]
        assert f"--- {name} ---" not in report["content"]


@pytest.mark.parametrize("extra", [[], ["--max-tokens", "1k"], ["--json"]])
def test_a_staged_secret_file_is_warned_about_even_quietly(
    tmp_path: Path, extra: list[str]
) -> None:
    """The dump leaves a secret file out, the commit does not: the pre-commit hooks run
    with --quiet, and must still say so."""
    repo = new_repo(tmp_path / "repo", {"a.txt": "a\n"})
    write(repo, {".env": "TOKEN=x\n", "k/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n"})
    git(repo, "add", "-f", ".env", "k/id_rsa")
    result = run_readmany(["glob", "--staged", "--quiet", *extra, "-o", ".git/ctx"], cwd=repo)
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode().splitlines() == [
        f"readmany: {name}: a secret file is staged: the dump leaves it out, the commit "
        f"will not; unstage it with: git restore --staged {name}"
        for name in (".env", "k/id_rsa")
    ]
    changed = run_readmany(["glob", "--changed", "HEAD", "-q", *extra], cwd=repo)
    assert b"readmany: .env: a secret file is among the changes" in changed.stderr
    walk = run_readmany(["glob", "**", "-q"], cwd=repo)
    assert b"secret file" not in walk.stderr  # a walk never offers them to a commit


def test_the_diff_section_is_headed_with_the_command_that_shows_it(tmp_path: Path) -> None:
    """`--changed main...` diffs the merge base against the work tree (uncommitted edits
    too), which `git diff main...` does not: the heading runs as it reads."""
    repo = new_repo(tmp_path / "repo", {"a.txt": "a\n", "b.txt": "b\n"})
    git(repo, "switch", "-q", "-c", "topic")
    write(repo, {"a.txt": "a2\n"})
    git(repo, "commit", "-qam", "topic")
    git(repo, "switch", "-q", "main")
    write(repo, {"b.txt": "b on main\n"})
    git(repo, "commit", "-qam", "main moves on")
    git(repo, "switch", "-q", "topic")
    write(repo, {"b.txt": "b uncommitted\n"})
    for rev, heading in (
        ("main...", "git diff $(git merge-base main HEAD)"),
        ("HEAD", "git diff HEAD"),
    ):
        result = run_readmany(["glob", "--changed", rev, "--with-diff", "--json"], cwd=repo)
        content = json.loads(result.stdout)["content"]
        assert f"--- {heading} ---\n\n" in content
        shown = subprocess.run(
            heading, shell=True, cwd=repo, capture_output=True, text=True, check=True
        ).stdout
        assert content.split(f"--- {heading} ---\n\n", 1)[1].startswith(shown)
        assert "b uncommitted" in shown


def test_an_unknown_revision_names_the_branches_there_are(tmp_path: Path) -> None:
    """`main...` in a repository whose branch is `master`: the message says so."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "master")
    write(repo, {"a.txt": "a\n"})
    git(repo, "add", "a.txt")
    git(repo, "commit", "-qm", "first")
    git(repo, "switch", "-q", "-c", "topic")
    with pytest.raises(UsageError) as raised:
        changed(str(repo), "main...")
    message = str(raised.value)
    lead = (
        "--changed main...: unknown revision 'main' (give a branch, tag or commit, e.g. "
        "master, HEAD~1 or master...; branches here: "
    )
    assert message.startswith(lead) and message.endswith(")")
    # the same commit time: either order
    assert sorted(message[len(lead) : -1].split(", ")) == ["master", "topic (checked out)"]


@pytest.mark.parametrize(
    "budget", [["--max-tokens", "3500"], ["--max-bytes", "6k"], ["--max-lines", "500"]]
)
def test_under_a_budget_the_diff_comes_first(tmp_path: Path, budget: list[str]) -> None:
    """A review in a chat is for the change: the diff is kept whole where it fits, and
    the files share what room is left (they were packed first, and the diff left out)."""
    # Twenty small files changed whole: each smaller than the diff, which smallest-first
    # packing left out for them.
    repo = new_repo(tmp_path / "repo", {f"f{i:02d}.py": f"a{i} = 0\n" * 8 for i in range(20)})
    write(repo, {f"f{i:02d}.py": f"b{i} = 1\n" * 8 for i in range(20)})
    write(repo, {"f03.py": "x5 = 500\n" * 8, "f07.py": "y = 1\n" * 8})
    args = ["glob", "--changed", "HEAD", "--with-diff", *budget]
    result = run_readmany([*args, "--json"], cwd=repo)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    content = report["content"]
    assert "--- git diff HEAD ---" in content
    assert "+x5 = 500" in content and "+y = 1" in content
    assert "git diff HEAD" not in report["details"]["packing"]["omittedPaths"]
    assert report["details"]["packing"]["omittedPaths"]  # the files do not all fit
    plain = run_readmany(args, cwd=repo).stdout
    if budget[0] == "--max-tokens":
        from readmany.tokenizer import count

        assert count(plain.decode(), "o200k") <= 3500
    if budget[0] == "--max-bytes":
        assert len(plain) <= 6144
    if budget[0] == "--max-lines":
        assert plain.count(b"\n") <= 500


def test_a_staged_deletion_of_a_secret_file_is_reported_as_deleted(tmp_path: Path) -> None:
    """`git rm --cached .env` takes the secret out: no warning, and no advice to run
    `git restore --staged .env`, which would stage it again."""
    repo = new_repo(tmp_path / "repo", {"a.txt": "a\n"})
    write(repo, {".env": "TOKEN=x\n", "k/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n"})
    git(repo, "add", "-f", ".env", "k/id_rsa")
    git(repo, "commit", "-qm", "keys")
    git(repo, "rm", "-q", "--cached", ".env", "k/id_rsa")
    for extra in ([], ["--hook-id", "readmany-context"]):
        result = run_readmany(["glob", "--staged", *extra], cwd=repo)
        assert result.returncode == 0, result.stderr
        assert result.stderr.decode() == "readmany: 2 skipped (deleted): .env, k/id_rsa\n"
    report = json.loads(run_readmany(["glob", "--staged", "--json", "-q"], cwd=repo).stdout)
    assert report["details"]["skipped"] == [
        {"path": ".env", "reason": "deleted"},
        {"path": "k/id_rsa", "reason": "deleted"},
    ]


def test_a_staged_secret_file_fails_a_hook_with_the_way_to_commit_anyway(
    tmp_path: Path,
) -> None:
    repo = new_repo(tmp_path / "repo", {"a.txt": "a\n"})
    write(repo, {"b.txt": "b\n", "config/.env": "TOKEN=x\n"})
    git(repo, "add", "b.txt")
    git(repo, "add", "-f", "config/.env")
    args = ["glob", "--staged", "-q", "--hook-id", "readmany-context", "-o", "git-dir:ctx"]
    result = run_readmany(args, cwd=repo)
    assert result.returncode == 1
    assert result.stderr.decode() == (
        "readmany: config/.env: a secret file is staged for this commit: unstage it with "
        "`git restore --staged config/.env`, or commit it anyway with "
        "`SKIP=readmany-context git commit …`\n"
    )
    # The dump is written all the same, without the secret file.
    assert (repo / ".git" / "ctx").read_text() == (
        "--- b.txt ---\n\nb\n\n\n\n--- End of content ---\n"
    )
    bad = run_readmany(["glob", "--hook-id", "x", "**"], cwd=repo)
    assert (bad.returncode, bad.stderr) == (
        2,
        b"readmany: --hook-id runs as the pre-commit hook of --staged: add --staged\n",
    )
    bad = run_readmany(["glob", "--staged", "--hook-id", "x; rm -rf ~"], cwd=repo)
    assert bad.returncode == 2
    assert bad.stderr.startswith(b"readmany: --hook-id 'x; rm -rf ~': give the hook's id")


@pytest.mark.parametrize("mode", [["--staged"], ["--changed", "HEAD"]])
def test_a_file_git_names_that_the_dump_never_reads_is_said_even_quietly(
    tmp_path: Path, mode: list[str]
) -> None:
    repo = new_repo(tmp_path / "repo", {"a.txt": "a\n"})
    write(repo, {"node_modules/x/i.js": "1\n", "web/node_modules/y.js": "2\n", "b.txt": "b\n"})
    git(repo, "add", "b.txt")
    git(repo, "add", "-f", "node_modules", "web/node_modules")
    result = run_readmany(["glob", *mode, "--quiet"], cwd=repo)
    assert result.returncode == 0, result.stderr
    what = "2 staged files" if mode == ["--staged"] else "2 changed files"
    holds = "the commit holds" if mode == ["--staged"] else "the changes hold"
    assert result.stderr.decode() == (
        f"readmany: {what} left out of the dump, which never reads a path through .git, "
        f".env or node_modules, nor outside the root ({holds} them): node_modules/x/i.js, "
        "web/node_modules/y.js\n"
    )
    loud = run_readmany(["glob", *mode], cwd=repo)
    assert loud.stderr.decode().count("node_modules/x/i.js") == 1  # said once, not twice


def test_o_git_dir_writes_into_the_repositorys_own_git_directory(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", {"a.txt": "a\n"})
    tree = tmp_path / "tree"
    git(repo, "worktree", "add", "-q", str(tree), "-b", "topic")
    write(tree, {"a.txt": "changed\n"})
    git(tree, "add", "a.txt")
    (tree / "sub").mkdir()
    # From a subdirectory of a linked work tree, whose .git is a file.
    args = ["glob", "--staged", "--root", "..", "-o", "git-dir:ctx.txt"]
    result = run_readmany(args, cwd=tree / "sub")
    assert result.returncode == 0, result.stderr
    dump = repo / ".git" / "worktrees" / "tree" / "ctx.txt"
    assert dump.read_text() == "--- a.txt ---\n\nchanged\n\n\n\n--- End of content ---\n"
    assert not (repo / ".git" / "ctx.txt").exists()
    # many and hashline take the form too
    result = run_readmany(["many", "a.txt", "-o", "git-dir:many.txt"], cwd=repo)
    assert result.returncode == 0, result.stderr
    assert (repo / ".git" / "many.txt").read_text().startswith("@a.txt\n")
    for name in ("", "../out.txt", "/tmp/out.txt", "a/../../out.txt", "dir/"):
        bad = run_readmany(["glob", "--staged", "-o", f"git-dir:{name}"], cwd=repo)
        assert (bad.returncode, bad.stderr) == (
            2,
            f"readmany: -o git-dir:{name}: name a file inside the git directory, "
            "e.g. -o git-dir:readmany-context.txt\n".encode(),
        )
    outside = tmp_path / "plain"
    outside.mkdir()
    bad = run_readmany(["many", str(repo / "a.txt"), "-o", "git-dir:x"], cwd=outside)
    assert bad.returncode == 2
    assert bad.stderr.startswith(
        f"readmany: -o git-dir:x names the git directory, and {outside} is not in a git "
        "repository (".encode()
    )
    assert bad.stdout == b""
