"""`readmany edit` end to end: every op, requests for several files, feedback, safe writes."""

from __future__ import annotations

import io
import json
import os
import resource
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    NOBODY,
    readmany_command,
    run_readmany,
    run_unprivileged,
    unprivileged_prefix,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_terminal import run_with_terminal_stdout_and_stderr

from readmany.read.hashline import decode_lines, file_tag, line_anchor

FOUR = b"one\ntwo\nthree\nfour\n"  # 1#uwt 2#nbl 3#fod 4#jdl 5#zyb


def edit(cwd: Path, *args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    result = run_readmany(["edit", *args], cwd=cwd, stdin=stdin)
    return result.returncode, result.stdout.decode("utf-8"), result.stderr.decode("utf-8")


def place(directory: Path, name: str = "a.txt", data: bytes = FOUR) -> str:
    """Write a file; return its PATH#TAG."""
    (directory / name).write_bytes(data)
    return f"{name}#{file_tag(data)}"


def edited(name: str, ranges: int = 1) -> str:
    noun = "range" if ranges == 1 else "ranges"
    return f"Edited {name} ({ranges} {noun}). Re-read before editing it again.\n"


def hashline_read(cwd: Path, path: str) -> tuple[str, dict[int, str]]:
    """What a user copies from `readmany hashline`: the tag, and each line's anchor."""
    result = run_readmany(["hashline", path], cwd=cwd)
    assert result.returncode == 0
    header, *rows = result.stdout.decode("utf-8").rstrip("\n").split("\n")
    anchors = {}
    for row in rows:
        number, rest = row.split("#", 1)
        anchors[int(number)] = f"{number}#{rest[:3]}"
    return header.removeprefix("@file "), anchors


def only_file_left(directory: Path, *names: str) -> None:
    """No temporary file stays behind."""
    assert sorted(p.name for p in directory.iterdir()) == sorted(names)


# --- every op ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "after"),
    [
        (["--replace", "2#nbl", "--content", "TWO"], b"one\nTWO\nthree\nfour\n"),
        (["--replace", "2#nbl..3#fod", "--content", "2-3\n"], b"one\n2-3\nfour\n"),
        (["--delete", "2#nbl"], b"one\nthree\nfour\n"),
        (["--delete", "1#uwt..4#jdl"], b""),
        (["--insert-after", "1#uwt", "--content", "x\ny"], b"one\nx\ny\ntwo\nthree\nfour\n"),
        (["--insert-before", "1#uwt", "--content", "x"], b"x\none\ntwo\nthree\nfour\n"),
        (["--append", "--content", "five"], b"one\ntwo\nthree\nfour\nfive\n"),
        (["--insert-after", "5#zyb", "--content", "five"], b"one\ntwo\nthree\nfour\nfive\n"),
    ],
)
def test_each_op(args: list[str], after: bytes, tmp_path: Path) -> None:
    target = place(tmp_path)
    assert edit(tmp_path, target, *args) == (0, edited("a.txt"), "")
    assert (tmp_path / "a.txt").read_bytes() == after
    only_file_left(tmp_path, "a.txt")


def test_several_ops_at_once_share_the_content(tmp_path: Path) -> None:
    target = place(tmp_path)
    code, out, err = edit(
        tmp_path, target, "--delete", "1#uwt", "--insert-after", "2#nbl",
        "--insert-after", "4#jdl", "--replace", "3#fod", "--content", "X",
    )  # fmt: skip
    assert (code, out, err) == (0, edited("a.txt", 4), "")
    assert (tmp_path / "a.txt").read_bytes() == b"two\nX\nX\nfour\nX\n"


def test_content_from_a_file_and_from_stdin(tmp_path: Path) -> None:
    (tmp_path / "new.txt").write_bytes(b"first\r\nsecond\r\n")
    target = place(tmp_path)
    assert edit(tmp_path, target, "--replace", "4#jdl", "--content-file", "new.txt")[0] == 0
    assert (tmp_path / "a.txt").read_bytes() == b"one\ntwo\nthree\nfirst\nsecond\n"
    target = f"a.txt#{file_tag((tmp_path / 'a.txt').read_bytes())}"
    code, out, _ = edit(tmp_path, target, "--append", "--content-file", "-", stdin=b"last\n")
    assert (code, out) == (0, edited("a.txt"))
    assert (tmp_path / "a.txt").read_bytes() == b"one\ntwo\nthree\nfirst\nsecond\nlast\n"


@pytest.mark.smoke
def test_the_round_trip_a_user_makes(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_bytes(b"def f():\r\n    return 1\r\n")
    header, anchors = hashline_read(tmp_path, "src/a.py")
    code, out, err = edit(tmp_path, header, "--replace", anchors[2], "--content", "    return 2")
    assert (code, out, err) == (0, edited("src/a.py"), "")
    assert (tmp_path / "src" / "a.py").read_bytes() == b"def f():\r\n    return 2\r\n"
    # The same edit again: the file is not the snapshot it was made from.
    code, out, err = edit(tmp_path, header, "--replace", anchors[2], "--content", "    return 2")
    tag = header.rsplit("#", 1)[1]
    now = file_tag(b"def f():\r\n    return 2\r\n")
    assert (code, out) == (3, "")
    assert err == (
        f"readmany: Stale file hash {tag}. Current hash is {now}. Re-read the file and retry.\n"
    )


def test_a_pasted_header_and_a_path_holding_hashes(tmp_path: Path) -> None:
    target = place(tmp_path, "a#b.txt")
    assert edit(tmp_path, f"@file {target}", "--delete", "1#uwt") == (0, edited("a#b.txt"), "")
    assert (tmp_path / "a#b.txt").read_bytes() == b"two\nthree\nfour\n"


def test_nothing_to_change(tmp_path: Path) -> None:
    target = place(tmp_path)
    before = os.stat(tmp_path / "a.txt")
    code, out, err = edit(tmp_path, target, "--replace", "1#uwt", "--content", "one")
    assert (code, out, err) == (
        0,
        "No changes needed in a.txt. Re-read before editing it again.\n",
        "",
    )
    assert os.stat(tmp_path / "a.txt").st_ino == before.st_ino  # not rewritten


# --- requests ----------------------------------------------------------------------------


def test_request_for_several_files(tmp_path: Path) -> None:
    a = place(tmp_path, "a.txt").split("#")[1]
    b = place(tmp_path, "b.txt", b"x\r\ny").split("#")[1]
    request = [
        {"path": "a.txt", "hash": a, "edits": [{"from": "4#jdl", "to": "4#jdl"}]},
        {"path": "b.txt", "hash": f"@file b.txt#{b}", "edits": [
            {"from": "2#uhg", "to": "2#uhg", "content": "Y"},
            {"from": "1#dsp", "to": "1#dsp", "content": "X\nX"},
        ]},
    ]  # fmt: skip
    assert line_anchor("y") == "uhg" and line_anchor("x") == "dsp"
    code, out, err = edit(tmp_path, "--request", "-", "--json", stdin=json.dumps(request).encode())
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "content": edited("a.txt") + edited("b.txt", 2).rstrip("\n"),
        "details": {
            "files": [
                {"path": "a.txt", "tagBefore": a, "tagAfter": file_tag(b"one\ntwo\nthree\n"),
                 "changed": True, "written": True,
                 "ranges": [{"from": 4, "to": 4, "removed": 1, "added": 0}]},
                {"path": "b.txt", "tagBefore": b, "tagAfter": file_tag(b"X\r\nX\r\nY"),
                 "changed": True, "written": True,
                 "ranges": [{"from": 1, "to": 1, "removed": 1, "added": 2},
                            {"from": 2, "to": 2, "removed": 1, "added": 1}]},
            ],
            "notWritten": [],
        },
        "attachments": [],
    }  # fmt: skip
    assert (tmp_path / "a.txt").read_bytes() == b"one\ntwo\nthree\n"
    assert (tmp_path / "b.txt").read_bytes() == b"X\r\nX\r\nY"


def test_one_bad_file_of_several_writes_none(tmp_path: Path) -> None:
    a = place(tmp_path, "a.txt").split("#")[1]
    place(tmp_path, "b.txt")
    request = [
        {"path": "a.txt", "hash": a, "edits": [{"from": "1#uwt", "to": "1#uwt"}]},
        {"path": "b.txt", "hash": a, "edits": [{"from": "9#uwt", "to": "9#uwt"}]},
        {"path": "c.txt", "hash": "short", "edits": [{"from": "1#uwt", "to": "1#uwt"}]},
    ]
    (tmp_path / "r.json").write_text(json.dumps(request))
    # Every tag's form is checked before any file is read.
    assert edit(tmp_path, "--request", "r.json") == (
        2,
        "",
        "readmany: c.txt: Invalid file hash: short. Expected the eight-character tag from "
        "@file path#HASH.\nreadmany: nothing was written: 1 of 3 files could not be edited\n",
    )
    request[2]["hash"] = a
    (tmp_path / "r.json").write_text(json.dumps(request))
    code, out, err = edit(tmp_path, "--request", "r.json")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "readmany: b.txt: Invalid edit range 9#uwt to 9#uwt: the file has 5 lines.",
        f"readmany: c.txt: ENOENT: no such file or directory, access '{tmp_path / 'c.txt'}'",
        "readmany: nothing was written: 2 of 3 files could not be edited",
    ]
    assert (tmp_path / "a.txt").read_bytes() == FOUR


def test_stale_files_of_several_exit_3_only_when_all_refusals_are_stale(tmp_path: Path) -> None:
    a = place(tmp_path, "a.txt").split("#")[1]
    place(tmp_path, "b.txt", b"changed\n")
    request = [
        {"path": "a.txt", "hash": a, "edits": [{"from": "1#uwt", "to": "1#uwt"}]},
        {"path": "b.txt", "hash": a, "edits": [{"from": "1#uwt", "to": "1#uwt"}]},
    ]
    code, out, err = edit(tmp_path, "--request", "-", stdin=json.dumps(request).encode())
    now = file_tag(b"changed\n")
    assert (code, out) == (3, "")
    assert err == (
        f"readmany: b.txt: Stale file hash {a}. Current hash is {now}. "
        "Re-read the file and retry.\nreadmany: nothing was written: 1 of 2 files could not "
        "be edited\n"
    )
    assert (tmp_path / "a.txt").read_bytes() == FOUR


def test_a_file_named_twice_is_refused(tmp_path: Path) -> None:
    a = place(tmp_path, "a.txt").split("#")[1]
    os.symlink("a.txt", tmp_path / "link")
    request = [
        {"path": "a.txt", "hash": a, "edits": [{"from": "1#uwt", "to": "1#uwt"}]},
        {"path": "link", "hash": a, "edits": [{"from": "2#nbl", "to": "2#nbl"}]},
    ]
    code, out, err = edit(tmp_path, "--request", "-", stdin=json.dumps(request).encode())
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == (
        "readmany: link: link is a.txt again: put all edits of a file in one entry of the request"
    )
    assert (tmp_path / "a.txt").read_bytes() == FOUR


@pytest.mark.parametrize("written", ["a.txt/", "a.txt/.", "./a.txt/"])
def test_a_file_written_as_a_directory_is_refused_not_edited(tmp_path: Path, written: str) -> None:
    # `readmany hashline a.txt/` refuses it (a part of the path is not a directory): an
    # edit of `a.txt/` must not write `a.txt`.
    tag = place(tmp_path).split("#")[1]
    code, out, err = edit(tmp_path, f"{written}#{tag}", "--replace", "2#nbl", "--content", "X")
    assert (code, out) == (1, "")
    assert "not a directory" in err and "Edited" not in err
    assert (tmp_path / "a.txt").read_bytes() == FOUR
    request = [{"path": written, "hash": tag, "edits": [{"from": "2#nbl", "to": "2#nbl"}]}]
    code, _out, _err = edit(tmp_path, "--request", "-", stdin=json.dumps(request).encode())
    assert code == 1 and (tmp_path / "a.txt").read_bytes() == FOUR
    only_file_left(tmp_path, "a.txt")


# --- feedback ----------------------------------------------------------------------------


def test_dry_run_prints_a_diff_and_writes_nothing(tmp_path: Path) -> None:
    target = place(tmp_path)
    code, out, err = edit(tmp_path, target, "--replace", "2#nbl", "--content", "TWO", "--dry-run")
    assert (code, err) == (0, "")
    assert out == ("--- a.txt\n+++ a.txt\n@@ -1,4 +1,4 @@\n one\n-two\n+TWO\n three\n four\n")
    assert (tmp_path / "a.txt").read_bytes() == FOUR
    only_file_left(tmp_path, "a.txt")
    assert edit(tmp_path, target, "--delete", "5#zyb", "--dry-run")[1] == (
        "--- a.txt\n+++ a.txt\n@@ -1,4 +1,4 @@\n one\n two\n three\n-four\n+four\n"
        "\\ No newline at end of file\n"
    )
    code, out, err = edit(tmp_path, target, "--replace", "1#uwt", "--content", "one", "--dry-run")
    assert (code, out, err) == (0, "", "")  # no change, no diff


def test_show_gives_the_new_tag_and_the_changed_rows(tmp_path: Path) -> None:
    data = "".join(f"line {n}\n" for n in range(1, 13)).encode()
    target = place(tmp_path, "a.txt", data)
    lines = decode_lines(data)

    def at(n: int) -> str:
        return f"{n}#{line_anchor(lines[n - 1])}"

    request = {"path": "a.txt", "hash": target.split("#")[1], "edits": [
        {"from": at(2), "to": at(2), "content": "TWO"},
        {"from": at(9), "to": at(10)},
    ]}  # fmt: skip
    code, out, err = edit(tmp_path, "--request", "-", "--show", stdin=json.dumps(request).encode())
    after = (tmp_path / "a.txt").read_bytes()
    assert (code, err) == (0, "")
    shown = run_readmany(["hashline", "a.txt"], cwd=tmp_path).stdout.decode().split("\n")
    # Line 2 with two lines around it; the deletion: lines 7-8 before it, 9-10 after.
    assert (
        out
        == "\n".join([edited("a.txt", 2).rstrip("\n"), shown[0], *shown[1:5], "...", *shown[7:11]])
        + "\n"
    )
    assert shown[0] == f"@file a.txt#{file_tag(after)}"
    assert shown[2] == f"2#{line_anchor('TWO')}|TWO"


def test_json_of_one_file(tmp_path: Path) -> None:
    target = place(tmp_path)
    code, out, err = edit(tmp_path, target, "--insert-before", "2#nbl", "--content", "x", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "content": edited("a.txt").rstrip("\n"),
        "details": {
            "path": "a.txt",
            "tagBefore": file_tag(FOUR),
            "tagAfter": file_tag(b"one\nx\ntwo\nthree\nfour\n"),
            "changed": True,
            "written": True,
            "ranges": [{"from": 2, "to": 2, "removed": 1, "added": 2}],
        },
        "attachments": [],
    }


def test_json_of_a_dry_run_says_nothing_was_written(tmp_path: Path) -> None:
    target = place(tmp_path)
    code, out, _ = edit(tmp_path, target, "--delete", "1#uwt", "--json", "--dry-run")
    value = json.loads(out)
    assert code == 0
    assert value["content"] == "--- a.txt\n+++ a.txt\n@@ -1,4 +1,3 @@\n-one\n two\n three\n four"
    assert (value["details"]["changed"], value["details"]["written"]) == (True, False)
    assert (tmp_path / "a.txt").read_bytes() == FOUR


def on_a_terminal(cwd: Path, *args: str) -> tuple[int, bytes, bytes]:
    """`readmany edit` with stdout on a pseudo-terminal; (status, the screen, stderr)."""
    return run_with_terminal_stdout_and_stderr(["edit", *args], cwd)


HOSTILE_NAME = "n\x1b]0;T\x07.txt"
HOSTILE_LINES = b"one\n\x1b]0;PWNED\x07two\n"


def raw(screen: bytes) -> bytes:
    """What the terminal guard wrote as escapes of the file's lines, as the bytes they stand
    for (the name is quoted as a header writes it, on a terminal or not)."""
    return screen.replace(b"\\u001b]0;PWNED\\u0007", b"\x1b]0;PWNED\x07")


@pytest.mark.parametrize("feedback", [[], ["--dry-run"], ["--show"]], ids=["", "dry", "show"])
def test_a_name_and_lines_cannot_reach_a_terminal_raw(feedback: list[str], tmp_path: Path) -> None:
    # On a terminal the diff and the rows are guarded as every command's output is; into a
    # pipe they are the bytes, exactly. The name is quoted in `Edited NAME`, the rows' header
    # and the diff's, as every header writes it: it forges no row, wherever it goes.
    target = place(tmp_path, HOSTILE_NAME, HOSTILE_LINES)
    args = [target, "--append", "--content", "x", *feedback]
    status, screen, stderr = on_a_terminal(tmp_path, *args)
    assert (status, stderr) == (0, b"")
    assert b"\x1b" not in screen and b"\x07" not in screen
    assert b"n\\u001b]0;T\\u0007.txt" in screen
    if feedback:
        assert b"\\u001b]0;PWNED\\u0007two" in screen
    (tmp_path / HOSTILE_NAME).write_bytes(HOSTILE_LINES)
    piped = run_readmany(["edit", *args], cwd=tmp_path)
    assert (piped.returncode, piped.stderr) == (0, b"")
    assert piped.stdout == raw(screen)
    assert HOSTILE_NAME.encode() not in piped.stdout
    assert b'"n\\u001b]0;T\\u0007.txt"' in piped.stdout
    if feedback:
        assert b"\x1b]0;PWNED\x07two" in piped.stdout


def test_a_name_on_stderr_is_escaped(tmp_path: Path) -> None:
    place(tmp_path, HOSTILE_NAME, HOSTILE_LINES)
    place(tmp_path)
    request = [
        {"path": name, "hash": file_tag(FOUR), "edits": [{"from": "1#uwt", "to": "1#uwt"}]}
        for name in ("a.txt", HOSTILE_NAME)
    ]
    (tmp_path / "r.json").write_text(json.dumps(request))
    status, screen, stderr = on_a_terminal(tmp_path, "--request", "r.json")
    assert (status, screen) == (3, b"")
    assert stderr.startswith(b"readmany: n\\u001b]0;T\\u0007.txt: Stale file hash ")
    assert b"\x1b" not in stderr and b"\x07" not in stderr


# --- safe writes -------------------------------------------------------------------------


def test_mode_is_kept(tmp_path: Path) -> None:
    target = place(tmp_path)
    os.chmod(tmp_path / "a.txt", 0o751)
    assert edit(tmp_path, target, "--delete", "1#uwt")[0] == 0
    assert stat.S_IMODE(os.stat(tmp_path / "a.txt").st_mode) == 0o751


def test_hard_linked_file_is_written_in_place(tmp_path: Path) -> None:
    target = place(tmp_path)
    os.link(tmp_path / "a.txt", tmp_path / "other.txt")
    inode = os.stat(tmp_path / "a.txt").st_ino
    code, out, err = edit(tmp_path, target, "--replace", "1#uwt", "--content", "ONE")
    assert (code, out) == (0, edited("a.txt"))
    assert err == (
        "readmany: a.txt has 2 hard links: written in place (not atomically), "
        "so they stay one file\n"
    )
    assert os.stat(tmp_path / "a.txt").st_ino == inode
    assert (tmp_path / "other.txt").read_bytes() == b"ONE\ntwo\nthree\nfour\n"
    target = "a.txt#" + file_tag(b"ONE\ntwo\nthree\nfour\n")
    assert edit(tmp_path, target, "--delete", "2#nbl..5#zyb", "-q") == (0, edited("a.txt"), "")
    assert (tmp_path / "other.txt").read_bytes() == b"ONE"  # shrunk in place


def test_symlink_is_edited_at_its_target_inside_the_root(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    place(tmp_path / "real")
    os.symlink("real/a.txt", tmp_path / "link.txt")
    assert edit(tmp_path, f"link.txt#{file_tag(FOUR)}", "--delete", "1#uwt") == (
        0,
        edited("link.txt"),
        "",
    )
    assert os.path.islink(tmp_path / "link.txt")
    assert (tmp_path / "real" / "a.txt").read_bytes() == b"two\nthree\nfour\n"
    only_file_left(tmp_path / "real", "a.txt")


def test_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "work").mkdir()
    place(tmp_path / "outside")
    os.symlink("../outside/a.txt", tmp_path / "work" / "link.txt")
    real = tmp_path.resolve() / "outside" / "a.txt"
    root = tmp_path.resolve() / "work"
    code, out, err = edit(tmp_path / "work", f"link.txt#{file_tag(FOUR)}", "--delete", "1#uwt")
    assert (code, out) == (2, "")
    assert err == (
        f"readmany: link.txt leads to {real}, outside the root {root}: run readmany from the "
        "file's project, or give --root DIR\n"
    )
    assert real.read_bytes() == FOUR
    code, out, _ = edit(
        tmp_path / "work", f"link.txt#{file_tag(FOUR)}", "--delete", "1#uwt", "--root", ".."
    )
    assert (code, out) == (0, edited("link.txt"))
    assert real.read_bytes() == b"two\nthree\nfour\n"


EMPTY_TAG = file_tag(b"")  # an empty file: its one row is 1#zyb
APPEND_KEY = [{"from": "1#zyb", "to": "1#zyb", "content": "ssh-ed25519 AAAA attacker"}]


def out_of_root_fix(root: Path) -> str:
    fix = "run readmany from the file's project, or give --root DIR"
    return f"outside the root {root.resolve()}: {fix}"


def test_a_path_out_of_the_root_is_refused_however_it_gets_there(tmp_path: Path) -> None:
    # `..`, an absolute path, a link to a directory above: the file itself is outside.
    work = tmp_path / "work"
    work.mkdir()
    keys = tmp_path / "authorized_keys"
    keys.write_bytes(b"")
    os.symlink("..", work / "up")
    request = {"path": "../authorized_keys", "hash": EMPTY_TAG, "edits": APPEND_KEY}
    code, out, err = edit(work, "--request", "-", stdin=json.dumps(request).encode())
    assert (code, out) == (2, "")
    assert err == f"readmany: ../authorized_keys is {out_of_root_fix(work)}\n"
    absolute = str(keys.resolve())
    assert edit(work, f"{absolute}#{EMPTY_TAG}", "--append", "--content", "x") == (
        2,
        "",
        f"readmany: {absolute} is {out_of_root_fix(work)}\n",
    )
    assert edit(work, f"up/authorized_keys#{EMPTY_TAG}", "--append", "--content", "x") == (
        2,
        "",
        f"readmany: up/authorized_keys leads to {absolute}, {out_of_root_fix(work)}\n",
    )
    assert keys.read_bytes() == b""
    only_file_left(tmp_path, "work", "authorized_keys")
    only_file_left(work, "up")
    # The root says where files may be written.
    code, out, err = edit(
        work, "--request", "-", "--root", "..", stdin=json.dumps(request).encode()
    )
    assert (code, out, err) == (0, edited("../authorized_keys"), "")
    assert keys.read_bytes() == b"ssh-ed25519 AAAA attacker"


def git_config(directory: Path) -> bytes:
    subprocess.run(["git", "init", "-q", str(directory)], check=True, capture_output=True)
    return (directory / ".git" / "config").read_bytes()


GIT_WHY = (
    "where readmany edit writes nothing (git's config and hooks run as code): change it "
    "with git itself\n"
)
GIT_REFUSAL = f"is inside a git directory, {GIT_WHY}"
FSMONITOR = '[core]\n\tfsmonitor = "touch PWNED; false"'


def test_nothing_in_a_git_directory_is_written(tmp_path: Path) -> None:
    config = git_config(tmp_path)
    os.symlink(".git", tmp_path / "g")
    for path, cwd in [
        (".git/config", tmp_path),
        ("g/config", tmp_path),  # a link to it
        ("config", tmp_path / ".git"),  # from inside it
        ("../.git/config", tmp_path / "g"),
    ]:
        target = f"{path}#{file_tag(config)}"
        assert edit(cwd, target, "--append", "--content", FSMONITOR) == (
            2,
            "",
            f"readmany: {path} {GIT_REFUSAL}",
        )
    # A bare repository under the root is a git directory too, and so is a `.git` file.
    bare = tmp_path / "mirror.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True, capture_output=True)
    target = f"mirror.git/config#{file_tag((bare / 'config').read_bytes())}"
    code, _, err = edit(tmp_path, target, "--append", "--content", FSMONITOR)
    assert (code, err) == (2, f"readmany: mirror.git/config {GIT_REFUSAL}")
    (tmp_path / "sub").mkdir()
    gitfile = b"gitdir: ../.git\n"
    (tmp_path / "sub" / ".git").write_bytes(gitfile)
    first = f"1#{line_anchor('gitdir: ../.git')}"
    target = f"sub/.git#{file_tag(gitfile)}"
    code, _, err = edit(tmp_path, target, "--replace", first, "--content", "gitdir: /evil")
    assert (code, err) == (2, f"readmany: sub/.git is named .git, {GIT_WHY}")
    assert (tmp_path / ".git" / "config").read_bytes() == config
    assert (tmp_path / "sub" / ".git").read_bytes() == gitfile


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("node_modules/a.js", "is under node_modules, where readmany edit writes nothing"),
        ("nm/a.js", "is under node_modules, where readmany edit writes nothing"),
        (".env", "is a secret file by its name (env file), which readmany edit never writes"),
        ("id_ed25519", "is a secret file by its name (ssh private key)"),
        ("key.txt", "is a secret file by its name (ssh private key)"),
    ],
    ids=["node_modules", "link-to-node_modules", "env", "ssh-key", "link-to-ssh-key"],
)
def test_names_the_walk_never_reads_are_not_written(
    path: str, message: str, tmp_path: Path
) -> None:
    for name in ("node_modules/a.js", ".env", "id_ed25519"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(FOUR)
    os.symlink("node_modules", tmp_path / "nm")
    os.symlink("id_ed25519", tmp_path / "key.txt")  # a link to one, too
    code, out, err = edit(tmp_path, f"{path}#{file_tag(FOUR)}", "--delete", "1#uwt")
    assert (code, out) == (2, "")
    assert err.startswith(f"readmany: {path} {message}")
    assert err.endswith(": edit it with another tool\n")
    for name in ("node_modules/a.js", ".env", "id_ed25519"):
        assert (tmp_path / name).read_bytes() == FOUR


def test_a_refused_file_of_a_list_request_writes_none(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    place(work)
    (tmp_path / "authorized_keys").write_bytes(b"")
    request = [
        {"path": "a.txt", "hash": file_tag(FOUR), "edits": [{"from": "1#uwt", "to": "1#uwt"}]},
        {"path": "../authorized_keys", "hash": EMPTY_TAG, "edits": APPEND_KEY},
    ]
    code, out, err = edit(work, "--request", "-", "--json", stdin=json.dumps(request).encode())
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"readmany: ../authorized_keys: ../authorized_keys is {out_of_root_fix(work)}",
        "readmany: nothing was written: 1 of 2 files could not be edited",
    ]
    assert (work / "a.txt").read_bytes() == FOUR
    assert (tmp_path / "authorized_keys").read_bytes() == b""
    only_file_left(work, "a.txt")


def test_directory_fifo_and_missing_file_are_refused_as_the_read_tool_refuses(
    tmp_path: Path,
) -> None:
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    tag = file_tag(FOUR)
    assert edit(tmp_path, f"dir#{tag}", "--delete", "1#uwt") == (
        1,
        "",
        "readmany: EISDIR: illegal operation on a directory, read\n",
    )
    assert edit(tmp_path, f"fifo#{tag}", "--delete", "1#uwt") == (
        1,
        "",
        f"readmany: Not a regular file (FIFO), refusing to read: {tmp_path / 'fifo'}\n",
    )
    assert edit(tmp_path, f"none#{tag}", "--delete", "1#uwt") == (
        1,
        "",
        f"readmany: ENOENT: no such file or directory, access '{tmp_path / 'none'}'\n",
    )


def test_not_utf8_is_refused_as_the_read_refuses_it(tmp_path: Path) -> None:
    target = place(tmp_path, "bin.txt", b"\x80\ntwo")
    assert edit(tmp_path, target, "--delete", "2#nbl") == (
        2,
        "",
        "readmany: Cannot use hashline tools on bin.txt: the file is not valid UTF-8.\n",
    )


def _as_nobody(*paths: Path) -> None:
    if os.geteuid() == 0:
        for path in paths:
            os.chown(path, NOBODY, NOBODY)


@pytest.mark.smoke
def test_read_only_file_is_refused(shared_dir: Path) -> None:
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("running as root without setpriv/runuser: every file is writable")
    target = place(shared_dir)
    _as_nobody(shared_dir / "a.txt")
    os.chmod(shared_dir / "a.txt", 0o444)
    result = run_unprivileged(prefix, ["edit", target, "--delete", "1#uwt"], shared_dir)
    assert (result.returncode, result.stdout) == (1, b"")
    message = f"readmany: EACCES: permission denied, access '{shared_dir / 'a.txt'}'\n"
    assert result.stderr.decode() == message
    assert (shared_dir / "a.txt").read_bytes() == FOUR


@pytest.mark.smoke
def test_an_unwritable_directory_stops_the_edit_before_any_write(shared_dir: Path) -> None:
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("running as root without setpriv/runuser: every file is writable")
    for name in ("open", "locked"):
        (shared_dir / name).mkdir()
        place(shared_dir / name)
        _as_nobody(shared_dir / name, shared_dir / name / "a.txt")
    os.chmod(shared_dir / "locked", 0o555)
    delete_first = [{"from": "1#uwt", "to": "1#uwt"}]
    request = [
        {"path": f"{name}/a.txt", "hash": file_tag(FOUR), "edits": delete_first}
        for name in ("open", "locked")
    ]
    (shared_dir / "r.json").write_text(json.dumps(request))
    os.chmod(shared_dir / "r.json", 0o644)
    result = run_unprivileged(prefix, ["edit", "--request", "r.json"], shared_dir)
    assert (result.returncode, result.stdout) == (1, b"")
    assert result.stderr.decode() == (
        f"readmany: locked/a.txt: cannot write a temporary file in {shared_dir / 'locked'}: "
        "Permission denied\nreadmany: nothing was written: 1 of 2 files could not be edited\n"
    )
    assert (shared_dir / "open" / "a.txt").read_bytes() == FOUR
    only_file_left(shared_dir / "open", "a.txt")


def run_with_file_size_limit(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """Run readmany unable to make any file larger than 4 KiB."""

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    return subprocess.run(
        [*readmany_command(), *args],
        cwd=cwd,
        capture_output=True,
        preexec_fn=limit_file_size,
        check=False,
    )


@pytest.mark.smoke
def test_a_failed_write_in_place_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    target = place(tmp_path)
    os.link(tmp_path / "a.txt", tmp_path / "link.txt")
    result = run_with_file_size_limit(tmp_path, "edit", target, "--append", "--content", "x" * 5000)
    assert (result.returncode, result.stdout) == (1, b"")
    assert result.stderr == b"readmany: writing a.txt failed: File too large\n"
    assert (tmp_path / "a.txt").read_bytes() == FOUR


@pytest.mark.smoke
def test_a_failure_in_the_middle_of_the_writes_says_what_was_written(tmp_path: Path) -> None:
    # The second file has another link, so it is written in place, after the first was
    # renamed into place; a file size limit stops it before any of its bytes change.
    place(tmp_path, "a.txt")
    place(tmp_path, "b.txt")
    place(tmp_path, "c.txt")
    os.link(tmp_path / "b.txt", tmp_path / "b-link.txt")
    big = "x" * 5000
    request = [
        {
            "path": name,
            "hash": file_tag(FOUR),
            "edits": [{"from": "1#uwt", "to": "1#uwt", "content": text}],
        }
        for name, text in (("a.txt", "ONE"), ("b.txt", big), ("c.txt", "ONE"))
    ]
    (tmp_path / "r.json").write_text(json.dumps(request))

    result = run_with_file_size_limit(tmp_path, "edit", "--request", "r.json", "--json")
    assert result.returncode == 1
    assert result.stderr.decode() == (
        "readmany: writing b.txt failed: File too large\n"
        "readmany: partial edit: written: a.txt; not written: b.txt, c.txt\n"
    )
    details = json.loads(result.stdout)["details"]
    assert [entry["path"] for entry in details["files"]] == ["a.txt"]
    assert details["notWritten"] == ["b.txt", "c.txt"]
    assert (tmp_path / "a.txt").read_bytes() == b"ONE\ntwo\nthree\nfour\n"
    assert (tmp_path / "b.txt").read_bytes() == FOUR
    assert (tmp_path / "c.txt").read_bytes() == FOUR
    only_file_left(tmp_path, "a.txt", "b.txt", "b-link.txt", "c.txt", "r.json")


@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    before=st.binary(max_size=40).map(lambda b: b.replace(b"\x80", b"")),
    change=st.data(),
)
def test_an_edit_after_any_change_of_the_file_is_stale_and_leaves_it(
    before: bytes, change: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    directory = tmp_path_factory.mktemp("stale")
    text = before.decode("utf-8", "replace").encode()
    lines = decode_lines(text)
    changed = change.draw(st.binary(max_size=48).filter(lambda b: b != text))
    (directory / "f.txt").write_bytes(changed)
    last = f"{len(lines)}#{line_anchor(lines[-1])}"
    code, out, err = edit(directory, f"f.txt#{file_tag(text)}", "--replace", last, "--content", "z")
    assert (code, out) == (3, "")
    assert err == (
        f"readmany: Stale file hash {file_tag(text)}. Current hash is {file_tag(changed)}. "
        "Re-read the file and retry.\n"
    )
    assert (directory / "f.txt").read_bytes() == changed


# --- bad input ---------------------------------------------------------------------------


BAD: list[tuple[list[str], bytes | None, str]] = [
    (["--request", "-"], b"{not json", "readmany: --request -: not valid JSON: "),
    (["--request", "-"], b'{"path": "a.txt", "hash": "x"}',
     "readmany: request: must have required property 'edits'"),
    (["--request", "-"], b'{"path": "a.txt", "hash": "x", "edits": [{"from": "1#uwt"}]}',
     "readmany: request: edits/0: must have required property 'to'"),
    (["--request", "missing.json"], None, "readmany: --request missing.json: No such file"),
    (["A", "--insert-after", "1#uwt", "--content", ""], None,
     "readmany: empty insert: --insert-after needs at least one line of text"),
    (["A", "--append"], None,
     "readmany: --append needs text: give --content TEXT or --content-file FILE"),
    (["A", "--replace", "1#uwt"], None,
     "readmany: --replace needs text: give --content TEXT or --content-file FILE "
     "(to remove lines, use --delete)"),
    (["A"], None, "readmany: no edit given: add --replace A[..B], --delete A[..B], "
     "--insert-after A, --insert-before A or --append"),
    (["--delete", "1#uwt"], None, "readmany: name the file as PATH#TAG"),
    (["a.txt", "--delete", "1#uwt"], None, "readmany: 'a.txt' is not PATH#TAG: add the tag"),
    (["A", "--delete", "1#uwt", "--content", "x"], None,
     "readmany: --delete takes no text: leave out --content and --content-file"),
    (["A", "--append", "--content", "x", "--content-file", "-"], None,
     "readmany: give --content or --content-file, not both"),
    (["A", "--request", "-"], b"{}", "readmany: --request holds the whole edit"),
    (["A", "--delete", "1#uwt", "--dry-run", "--show"], None,
     "readmany: --show shows a written file: leave it out with --dry-run"),
    (["A", "--delete", "1#uwt", "--root", "nowhere"], None,
     "readmany: --root 'nowhere' is not a directory"),
    (["A", "--delete", "one"], None, "readmany: Invalid line anchor: one. Expected one anchor"),
    (["A", "--delete", "3#fod..1#uwt"], None,
     "readmany: Invalid edit range 3#fod to 1#uwt: the starting line follows the ending line."),
    (["A", "--delete", "1#uwt..2#nbl", "--delete", "2#nbl"], None,
     "readmany: Overlapping edit ranges 1-2 and 2-2. Merge them and retry."),
    (["a.txt#short", "--delete", "1#uwt"], None, "readmany: Invalid file hash: short. "),
    (["A", "--content-file", "nope.txt", "--append"], None,
     "readmany: --content-file nope.txt: No such file or directory"),
    (["A", "--bogus"], None, "readmany: No such option: --bogus"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "stdin", "message"), BAD, ids=[" ".join(b[0]) for b in BAD])
def test_bad_input_is_one_clear_line_and_exit_2(
    args: list[str], stdin: bytes | None, message: str, tmp_path: Path
) -> None:
    target = place(tmp_path)
    args = [target if arg == "A" else arg for arg in args]
    code, out, err = edit(tmp_path, *args, stdin=stdin)
    assert (code, out) == (2, "")
    assert err.startswith(message)
    assert err.endswith("\n") and err.count("\n") == 1
    assert (tmp_path / "a.txt").read_bytes() == FOUR
    only_file_left(tmp_path, "a.txt")


def run_with_memory_limit(
    cwd: Path, *args: str, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    """Run readmany with 1 GiB of address space: a read without bound fails, not the host."""

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    return subprocess.run(
        [*readmany_command(), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        preexec_fn=limit_memory,
        timeout=60,
        check=False,
    )


@pytest.mark.smoke
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["A", "--append", "--content-file", "/dev/zero"],
            "readmany: --content-file /dev/zero: more than 32.0 MB, the most readmany reads "
            "for it: give a smaller file\n",
        ),
        (
            ["--request", "/dev/zero"],
            "readmany: --request /dev/zero: more than 128.0 MB, the most readmany reads "
            "for it: give a smaller file\n",
        ),
    ],
    ids=["content-file", "request"],
)
def test_an_endless_input_is_read_to_its_limit_and_refused(
    args: list[str], message: str, tmp_path: Path
) -> None:
    target = place(tmp_path)
    result = run_with_memory_limit(tmp_path, "edit", *[target if a == "A" else a for a in args])
    assert (result.returncode, result.stdout, result.stderr.decode()) == (2, b"", message)
    assert (tmp_path / "a.txt").read_bytes() == FOUR


@pytest.mark.smoke
def test_content_from_stdin_is_bounded_too(tmp_path: Path) -> None:
    from readmany.limits import EDIT_TEXT_MAX_BYTES

    target = place(tmp_path)
    over = b"x" * (EDIT_TEXT_MAX_BYTES + 1)
    result = run_with_memory_limit(
        tmp_path, "edit", target, "--append", "--content-file", "-", stdin=over
    )
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr.startswith(b"readmany: --content-file -: more than 32.0 MB")
    assert (tmp_path / "a.txt").read_bytes() == FOUR


SECRET_LINE = "AWS_SECRET=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        (".env", SECRET_LINE, "env file"),
        ("id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----", "ssh private key"),
        ("deploy.pem", "-----BEGIN PRIVATE KEY-----", "pem file"),
        (
            ".npmrc",
            "//registry.npmjs.org/:_authToken=npm_abcdefabcdef",
            "it holds a token or password",
        ),
    ],
    ids=[".env", "id_ed25519", "pem", ".npmrc"],
)
@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "write"])
def test_a_secret_file_is_refused_as_content(
    tmp_path: Path, name: str, text: str, kind: str, dry_run: bool
) -> None:
    target = place(tmp_path)
    (tmp_path / name).write_text(text + "\n")
    args = [target, "--append", "--content-file", name, *(["--dry-run"] if dry_run else [])]
    code, out, err = edit(tmp_path, *args)
    assert (code, out) == (2, "")
    assert err == (
        f"readmany: --content-file {name}: not read: a secret file ({kind}), "
        "which readmany never reads\n"
    )
    assert (tmp_path / "a.txt").read_bytes() == FOUR


def test_a_link_to_a_secret_file_is_refused_as_content_and_a_plain_npmrc_is_not(
    tmp_path: Path,
) -> None:
    target = place(tmp_path)
    (tmp_path / ".env").write_text(SECRET_LINE + "\n")
    (tmp_path / "notes.txt").symlink_to(".env")
    code, out, err = edit(tmp_path, target, "--append", "--content-file", "notes.txt", "--dry-run")
    assert (code, out) == (2, "")
    assert err == (
        "readmany: --content-file notes.txt: not read: a secret file (env file), "
        "which readmany never reads\n"
    )
    (tmp_path / ".npmrc").write_text("registry=https://registry.npmjs.org/\n")
    code, out, err = edit(tmp_path, target, "--append", "--content-file", ".npmrc", "--dry-run")
    assert (code, err) == (0, "")
    assert "+registry=https://registry.npmjs.org/" in out


@pytest.mark.smoke
def test_a_stale_anchor_is_exit_3(tmp_path: Path) -> None:
    target = place(tmp_path)
    assert edit(tmp_path, target, "--insert-after", "2#abc", "--content", "x") == (
        3,
        "",
        "readmany: Stale line anchor 2#abc. Current anchor is 2#nbl. Re-read the file and retry.\n",
    )


def test_help_names_the_ops_and_the_exit_status() -> None:
    result = run_readmany(["edit", "--help"], env={"COLUMNS": "200", "PATH": "/usr/bin"})
    text = result.stdout.decode()
    for option in (
        "--replace",
        "--delete",
        "--insert-after",
        "--insert-before",
        "--append",
        "--content-file",
        "--dry-run",
        "--show",
        "--json",
        "--root",
        "--request",
    ):
        assert option in text
    assert "3 stale" in text


def test_a_change_while_the_edit_is_prepared_is_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another writer between the check and the write: nothing is written, exit 3."""
    from readmany.edit import files as command
    from readmany.edit.anchored import EditRequest, FileEdit, line_op

    place(tmp_path)
    stage = command._stage

    def stage_then_someone_writes(target: Any) -> str:
        temporary = stage(target)
        (tmp_path / "a.txt").write_bytes(b"theirs\n")
        return temporary

    monkeypatch.setattr(command, "_stage", stage_then_someone_writes)
    request = EditRequest((FileEdit("a.txt", file_tag(FOUR), (line_op("delete", "1#uwt"),)),))
    out = io.BytesIO()
    assert command.run_edit(command.EditRun(request, str(tmp_path)), out) == 3
    assert out.getvalue() == b""
    assert capsys.readouterr().err == (
        "readmany: The file changed while the edit was being prepared. Re-read it and retry.\n"
    )
    assert (tmp_path / "a.txt").read_bytes() == b"theirs\n"
    only_file_left(tmp_path, "a.txt")


@pytest.mark.smoke
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("dry_run", [False, True])
def test_a_report_that_cannot_be_written_is_said_not_a_bug(tmp_path: Path, dry_run: bool) -> None:
    (tmp_path / "e.txt").write_text("one\ntwo\n")
    tag = run_readmany(["hashline", "e.txt"], cwd=tmp_path).stdout.split(b"\n")[0].rsplit(b"#")[1]
    args = ["edit", f"e.txt#{tag.decode()}", "--append", "--content", "three"]
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [*readmany_command(), *args, *(["--dry-run"] if dry_run else [])],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
        )
    assert done.returncode == 1
    what = "nothing was written" if dry_run else "the edit was written"
    assert done.stderr.decode() == (
        f"readmany: standard output ({what}): cannot write the output: no space left on device\n"
    )
    assert (tmp_path / "e.txt").read_text() == ("one\ntwo\n" if dry_run else "one\ntwo\nthree\n")
