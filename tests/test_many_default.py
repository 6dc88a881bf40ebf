"""`readmany many` without `--compat`: the default face (issue 12, rules 9-13), end to end."""

from __future__ import annotations

import json
import os
import pty
import random
import re
import shlex
import subprocess
import time
from pathlib import Path

import pytest
from helpers import readmany_command, run_readmany
from test_terminal import run_with_terminal_stderr

from readmany.frame.heredoc import base_delimiter
from readmany.tokenizer import count

BIG_LINES = 3624


def big_text() -> str:
    """A generated Python module of 3,624 lines, 29 bytes each."""
    return "".join(f"x_{n:04d} = compute({n:06d})  # \n" for n in range(1, BIG_LINES + 1))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "big.py").write_text(big_text())
    (tmp_path / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (tmp_path / "b.txt").write_text("one\ntwo\nthree")
    (tmp_path / "sub").mkdir()
    return tmp_path


def block(path: str, index: int, body: str) -> str:
    delimiter = base_delimiter(path, index)
    return f"@{path}\n<<'{delimiter}'\n{body}\n{delimiter}"


def big_lines(first: int, last: int) -> str:
    return "\n".join(big_text().split("\n")[first - 1 : last])


def blocks_of(output: str) -> list[tuple[str, str]]:
    """(header path, body) of every heredoc block in `output`."""
    found = re.findall(r"^@([^\n]*)\n<<'([^'\n]+)'\n(.*?)\n\2$", output, re.M | re.S)
    return [(path, body) for path, _delimiter, body in found]


# --- rule 9: the budget is the only limit ------------------------------------------------


def test_one_big_file_fills_the_budget_and_ends_with_the_command_that_continues(
    tree: Path,
) -> None:
    result = run_readmany(["many", "big.py"], cwd=tree)
    notice = "[Showing lines 1-1759 of 3624. Continue with: readmany many big.py:1760]"
    assert result.stdout.decode() == block("big.py", 1, f"{big_lines(1, 1759)}\n\n{notice}") + "\n"
    assert len(result.stdout) - 1 == 51124  # within 51200; the final newline is not content
    assert result.stderr.decode().splitlines() == [
        "readmany: big.py: lines 1-1759 of 3624 shown, cut by the budget",
        "readmany: to read all at once: --max-bytes 103k --max-lines 3628; "
        "or continue with: readmany many big.py:1760",
    ]
    assert result.returncode == 0


def test_following_the_continuations_gives_every_line_once(tree: Path) -> None:
    command = "readmany many big.py a.txt b.txt"
    bodies: dict[str, str] = {}
    runs = 0
    while command:
        runs += 1
        words = shlex.split(command)[1:]
        result = run_readmany(words, cwd=tree)
        assert result.returncode == 0
        output = result.stdout.decode()[:-1]
        command = ""
        for header, body in blocks_of(output):
            cut = re.search(r"\n\n\[Showing lines \d+-\d+ of \d+\. Continue with: (.*)\]$", body)
            if cut:
                body = body[: cut.start()]
                command = cut.group(1)
            name = header.partition(":")[0]
            bodies[name] = bodies.get(name, "") + body + "\n"
        left_out = re.search(r"\[Left out by the budget: .*Continue with: (.*)\]$", output)
        if left_out:
            command = left_out.group(1)
    assert runs == 3
    assert bodies["big.py"] == big_text() + "\n"  # a final newline shows as an empty line
    assert bodies["a.txt"] == "alpha\nbeta\ngamma\n\n"
    assert bodies["b.txt"] == "one\ntwo\nthree\n"


def test_a_larger_budget_takes_the_whole_file_where_compat_caps_it(tree: Path) -> None:
    whole = run_readmany(["many", "big.py", "--max-bytes", "500000"], cwd=tree)
    assert whole.stdout.decode() == block("big.py", 1, big_text()) + "\n"
    assert whole.stderr == b""
    compat = run_readmany(
        ["many", "--compat", "big.py", "--max-bytes", "500000", "--max-lines", "10000"], cwd=tree
    )
    # The reference's read stops at 50 KB whatever the budget.
    assert compat.stdout.decode() == (
        block(
            "big.py",
            1,
            f"{big_lines(1, 1765)}\n\n"
            "[Showing lines 1-1765 of 3625 (50.0KB limit). Use offset=1766 to continue.]",
        )
        + "\n"
    )


def test_sixty_files_each_with_its_own_delimiter(tmp_path: Path) -> None:
    names = [f"f{n:02d}.txt" for n in range(60)]
    for name in names:
        (tmp_path / name).write_text(f"{name}\n")
    result = run_readmany(["many", *names], cwd=tmp_path)
    assert result.returncode == 0
    output = result.stdout.decode()
    assert blocks_of(output) == [(name, f"{name}\n") for name in names]
    delimiters = re.findall(r"^<<'([^']+)'$", output, re.M)
    assert len(set(delimiters)) == 60
    assert delimiters[26:28] == [base_delimiter("f26.txt", 27), base_delimiter("f27.txt", 28)]
    assert run_readmany(["many", "--compat", *names], cwd=tmp_path).returncode == 2


# --- rule 10: sizes and tokens -----------------------------------------------------------


def test_budgets_take_sizes_and_tokens(tree: Path) -> None:
    sized = run_readmany(["many", "big.py", "--max-bytes", "2k"], cwd=tree)
    assert sized.stdout == run_readmany(["many", "big.py", "--max-bytes", "2048"], cwd=tree).stdout
    assert sized.stdout.decode() == (
        block(
            "big.py",
            1,
            f"{big_lines(1, 64)}\n\n"
            "[Showing lines 1-64 of 3624. Continue with: readmany many big.py:65 --max-bytes 2k]",
        )
        + "\n"
    )
    # --max-tokens: the head shown is within 1,000 real tokens (o200k) and about fills
    # them (planned with the estimate, which reads these lines of numbers 12% low, and
    # planned again for fewer where the bound of the real count was over), and the
    # advice holds all of it.
    tokens = run_readmany(["many", "big.py", "--max-tokens", "1k"], cwd=tree)
    content = tokens.stdout.decode().removesuffix("\n")
    assert 900 <= count(tokens.stdout.decode()) <= 1000
    shown = int(re.findall(r"Showing lines 1-(\d+) of 3624", content)[0])
    assert content == block(
        "big.py",
        1,
        f"{big_lines(1, shown)}\n\n"
        f"[Showing lines 1-{shown} of 3624. "
        f"Continue with: readmany many big.py:{shown + 1} --max-tokens 1k]",
    )
    advice = re.fullmatch(
        r"readmany: to read all at once: --max-tokens (\d+)k; or continue with: "
        r"readmany many big.py:(\d+) --max-tokens 1k",
        tokens.stderr.decode().splitlines()[-1],
    )
    assert advice is not None and int(advice[2]) == shown + 1
    # The rest was not read: estimated from what was, and bounded as a plan is: never
    # less than its real count, a little more.
    whole = count(block("big.py", 1, big_text()) + "\n")
    assert whole <= int(advice[1]) * 1000 <= whole * 1.3


def test_a_budget_given_replaces_the_default_one(tree: Path) -> None:
    # --max-bytes alone lifts the default 2000-line budget too.
    result = run_readmany(["many", "big.py", "--max-bytes", "103k"], cwd=tree)
    assert result.stdout.decode() == block("big.py", 1, big_text()) + "\n"
    lines = run_readmany(["many", "big.py", "--max-lines", "3628"], cwd=tree)
    assert lines.stdout == result.stdout


def test_compat_budgets_stay_plain_numbers(tree: Path) -> None:
    sized = run_readmany(["many", "--compat", "a.txt", "--max-bytes", "2k"], cwd=tree)
    assert (sized.returncode, sized.stdout) == (2, b"")
    assert sized.stderr == (
        b"readmany: --max-bytes '2k': give a whole number of bytes "
        b"(sizes such as 100k need the default face, without --compat)\n"
    )
    tokens = run_readmany(["many", "--compat", "a.txt", "--max-tokens", "10"], cwd=tree)
    assert (tokens.returncode, tokens.stdout) == (2, b"")
    assert tokens.stderr == b"readmany: --max-tokens is not part of --compat: use --max-bytes N\n"
    plain = run_readmany(["many", "--compat", "a.txt", "--max-bytes", "2048"], cwd=tree)
    assert plain.returncode == 0 and plain.stdout.startswith(b"@a.txt\n")
    for value in ("0", "x", "1.5k"):
        bad = run_readmany(["many", "a.txt", "--max-bytes", value], cwd=tree)
        assert (bad.returncode, bad.stdout, bad.stderr.count(b"\n")) == (2, b"", 1)


# --- rule 11: notices in command-line terms ----------------------------------------------


def test_files_left_out_are_named_after_the_last_block(tree: Path) -> None:
    (tree / "c.txt").write_text("".join(f"{n}\n" for n in range(1, 101)))
    args = ["many", "a.txt", "big.py", "c.txt", "--max-lines", "40"]
    result = run_readmany(args, cwd=tree)
    expected = "\n\n".join(
        [
            block("a.txt", 1, "alpha\nbeta\ngamma\n"),
            block(
                "big.py",
                2,
                f"{big_lines(1, 25)}\n\n"
                "[Showing lines 1-25 of 3624. "
                "Continue with: readmany many big.py:26 --max-lines 40]",
            ),
            "[Left out by the budget: c.txt. To read all at once: --max-lines 3741. "
            "Continue with: readmany many big.py:26 c.txt --max-lines 40]",
        ]
    )
    assert result.stdout.decode() == expected + "\n"
    assert result.stdout.count(b"\n") == 40  # the notice is inside the budget
    assert result.stderr.decode().splitlines() == [
        "readmany: big.py: lines 1-25 of 3624 shown, cut by the budget",
        "readmany: c.txt: left out by the budget",
        "readmany: to read all at once: --max-lines 3741; "
        "or continue with: readmany many big.py:26 c.txt --max-lines 40",
    ]
    assert result.returncode == 0
    whole = run_readmany([*args[:-1], "3741"], cwd=tree)
    assert (whole.stderr, whole.stdout.count(b"\n")) == (b"", 3741)
    report = json.loads(run_readmany([*args, "--json"], cwd=tree).stdout)
    assert report["content"] == expected
    assert report["details"]["continueWith"] == "readmany many big.py:26 c.txt --max-lines 40"
    assert report["details"]["packing"]["omittedPaths"] == ["c.txt"]


def test_a_range_continues_as_a_range(tree: Path) -> None:
    cut = run_readmany(["many", "big.py:100:500", "--max-lines", "50"], cwd=tree)
    assert cut.stdout.decode() == (
        block(
            "big.py",
            1,
            f"{big_lines(100, 144)}\n\n"
            "[Showing lines 100-144 of 3624. "
            "Continue with: readmany many big.py:145:455 --max-lines 50]",
        )
        + "\n"
    )
    page = run_readmany(["many", "a.txt:2:1", "b.txt:3"], cwd=tree)
    assert page.stdout.decode() == (
        block(
            "a.txt", 1, "beta\n\n[Showing lines 2-2 of 3. Continue with: readmany many a.txt:3:1]"
        )
        + "\n\n"
        + block("b.txt", 2, "three")
        + "\n"
    )
    assert page.stderr == b""


@pytest.mark.smoke
def test_continuations_are_quoted_for_the_shell(tmp_path: Path) -> None:
    (tmp_path / "my big.py").write_text(big_text())
    (tmp_path / "-dash.txt").write_text("x\n" * 3000)
    result = run_readmany(["many", "--", "my big.py", "-dash.txt"], cwd=tmp_path)
    notice = result.stdout.decode().splitlines()[-1]
    assert notice == (
        "[Left out by the budget: -dash.txt. To read all at once: --max-bytes 109k "
        "--max-lines 6633. Continue with: readmany many -- 'my big.py:1755' -dash.txt]"
    )
    command = notice.partition("Continue with: ")[2][:-1]
    # Run as a person pastes it: through a shell.
    shell = " ".join(shlex.quote(word) for word in readmany_command()) + command[len("readmany") :]
    rest = subprocess.run(
        ["sh", "-c", shell], cwd=tmp_path, capture_output=True, timeout=60, check=False
    )
    shown = blocks_of(rest.stdout.decode())
    assert shown[0][0] == "my big.py"
    assert shown[0][1].startswith("x_1755 = compute(001755)  # \n")


def test_a_line_longer_than_the_budget_says_how_to_show_it(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("short\n" + "w" * 3000 + "\nlast\n")
    result = run_readmany(["many", "wide.txt:2", "--max-bytes", "1k"], cwd=tmp_path)
    assert result.stdout.decode() == (
        block(
            "wide.txt",
            1,
            "[Line 2 is 2.9KB, more than the budget holds. "
            "Show it with: readmany many wide.txt:2:1 --max-bytes 4k]",
        )
        + "\n"
    )
    shown = run_readmany(["many", "wide.txt:2:1", "--max-bytes", "4k"], cwd=tmp_path)
    assert blocks_of(shown.stdout.decode()) == [
        (
            "wide.txt",
            "w" * 3000 + "\n\n[Showing lines 2-2 of 3. "
            "Continue with: readmany many wide.txt:3:1 --max-bytes 4k]",
        )
    ]


# --- rule 12: binary files ---------------------------------------------------------------


def test_a_binary_file_is_an_error_block(tree: Path) -> None:
    (tree / "bin.dat").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    (tree / "controls.txt").write_bytes(b"\x1b[0m\x01\x02\x03\x04" * 10)
    result = run_readmany(["many", "bin.dat", "controls.txt", "a.txt"], cwd=tree)
    assert result.stdout.decode() == (
        block("bin.dat", 1, "[Error: bin.dat: binary file, not shown]")
        + "\n\n"
        + block("controls.txt", 2, "[Error: controls.txt: binary file, not shown]")
        + "\n\n"
        + block("a.txt", 3, "alpha\nbeta\ngamma\n")
        + "\n"
    )
    assert result.stderr == (
        b"readmany: bin.dat: binary file, not shown\n"
        b"readmany: controls.txt: binary file, not shown\n"
    )
    assert result.returncode == 1


# --- rule 13: errors point to the fix ----------------------------------------------------


def test_a_directory_points_to_glob(tree: Path) -> None:
    (tree / "my dir").mkdir()
    (tree / "sub" / "s.txt").write_text("s\n")
    (tree / "my dir" / "m.txt").write_text("m\n")
    result = run_readmany(["many", "sub", "my dir", "missing.txt"], cwd=tree)
    assert result.stdout.decode() == (
        block("sub", 1, "[Error: sub: is a directory; read its files with: readmany glob sub]")
        + "\n\n"
        + block(
            "my dir",
            2,
            "[Error: my dir: is a directory; read its files with: readmany glob 'my dir']",
        )
        + "\n\n"
        + block("missing.txt", 3, "[Error: missing.txt: no such file or directory]")
        + "\n"
    )
    assert result.returncode == 1


def test_nul_separated_paths_without_0_are_a_usage_error(tree: Path) -> None:
    result = run_readmany(["many", "--stdin"], cwd=tree, stdin=b"a.txt\0b.txt\0")
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr == b"readmany: --stdin: the paths are NUL-separated: add -0 (--null)\n"
    compat = run_readmany(["many", "--compat", "--stdin"], cwd=tree, stdin=b"a.txt\0")
    assert (compat.returncode, compat.stderr) == (2, result.stderr)
    fixed = run_readmany(["many", "--stdin", "-0"], cwd=tree, stdin=b"a.txt\0b.txt\0")
    assert fixed.returncode == 0 and fixed.stdout.count(b"\n@") == 1


@pytest.mark.smoke
def test_stdin_from_a_terminal_says_it_waits_for_paths(tree: Path) -> None:
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [*readmany_command(), "many", "--stdin"],
            cwd=tree,
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        time.sleep(0.5)
        os.write(controller, b"b.txt\n\x04")
        out, err = process.communicate(timeout=30)
    finally:
        os.close(controller)
        os.close(terminal)
    assert err == b"readmany: reading paths from stdin, one a line (Ctrl-D ends)\n"
    assert out.decode() == block("b.txt", 1, "one\ntwo\nthree") + "\n"


# --- issue 17, item 1: paths are literal -------------------------------------------------


def test_paths_are_literal_except_in_compat_arguments(tree: Path) -> None:
    (tree / "@a.txt").write_text("the at file\n")
    default = run_readmany(["many", "@b.txt", "a\u00a0b"], cwd=tree)
    assert default.stdout.decode() == (
        block("@b.txt", 1, "[Error: @b.txt: no such file or directory]")
        + "\n\n"
        + block("a\u00a0b", 2, "[Error: a\u00a0b: no such file or directory]")
        + "\n"
    )
    literal = run_readmany(["many", "@a.txt"], cwd=tree)
    assert blocks_of(literal.stdout.decode()) == [("@a.txt", "the at file\n")]
    # --compat rewrites as the reference does: `@b.txt` reads b.txt ...
    compat = run_readmany(["many", "--compat", "@b.txt"], cwd=tree)
    assert blocks_of(compat.stdout.decode()) == [("@b.txt", "one\ntwo\nthree")]
    # ... but never a path from --stdin.
    piped = run_readmany(["many", "--compat", "--stdin"], cwd=tree, stdin=b"@a.txt\n")
    assert blocks_of(piped.stdout.decode()) == [("@a.txt", "the at file\n")]


def test_compat_keeps_the_reference_text(tree: Path) -> None:
    result = run_readmany(["many", "--compat", "sub", "a.txt:2:1"], cwd=tree)
    assert result.stdout.decode() == (
        block("sub", 1, "[Error: EISDIR: illegal operation on a directory, read]")
        + "\n\n"
        + block("a.txt", 2, "beta\n\n[2 more lines in file. Use offset=3 to continue.]")
        + "\n"
    )


def test_on_a_terminal_the_summary_is_followed_by_what_to_run(tree: Path) -> None:
    status, stdout, screen = run_with_terminal_stderr(
        ["many", "a.txt", "big.py", "b.txt", "--max-lines", "40"], tree, env={"NO_COLOR": "1"}
    )
    assert status == 0 and stdout.startswith(b"@a.txt\n")
    plain = re.sub(r"\x1b\[[0-9;]*m", "", screen.decode())  # rich still sets bold
    lines = plain.replace("\r\n", "\n").splitlines()
    assert lines[0].startswith("readmany: 2 read, 1 cut · ")
    assert lines[-1] == (
        "readmany: to read all at once: --max-lines 3643; "
        "or continue with: readmany many big.py:21 --max-lines 40"
    )
    quiet = run_with_terminal_stderr(["many", "big.py", "-q"], tree)[2]
    assert quiet == b""


PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00"
    b"\x00\x00\x00IEND\xaeB`\x82"
)


def test_an_image_is_named_with_the_command_that_gets_it(tree: Path) -> None:
    (tree / "dot.png").write_bytes(PNG)
    result = run_readmany(["many", "dot.png"], cwd=tree)
    assert result.stdout.decode() == (
        block(
            "dot.png",
            1,
            "[Image file (image/png, 67B), not shown as text. "
            "Get it as a data: URL with: readmany glob dot.png]",
        )
        + "\n"
    )
    assert result.returncode == 0
    glob = run_readmany(["glob", "dot.png"], cwd=tree)
    assert b"data:image/png;base64," in glob.stdout


def test_json_details_of_a_cut_read(tree: Path) -> None:
    report = json.loads(
        run_readmany(["many", "big.py", "a.txt", "--max-lines", "30", "--json"], cwd=tree).stdout
    )
    big, small = report["details"]["files"]
    assert big["truncation"] == {
        "truncated": True,
        "truncatedBy": "lines",
        "totalLines": 3624,
        "totalBytes": 105096,
        "outputLines": 30,
        "outputBytes": 869,
        "lastLinePartial": False,
        "firstLineExceedsLimit": False,
        "maxLines": 30,
        "maxBytes": None,  # no byte budget was set
    }
    assert "truncation" not in small
    assert report["details"]["continueWith"] == "readmany many big.py:18 --max-lines 30"


def test_too_many_files_left_out_to_name_are_counted(tmp_path: Path) -> None:
    names = [f"f{n}.txt" for n in range(10, 100)]
    for name in names:
        (tmp_path / name).write_text("x\n")
    result = run_readmany(["many", *names, "--max-bytes", "1k"], cwd=tmp_path)
    assert result.stdout.decode().split("\n")[-2:] == [
        "[Left out by the budget: 72 files (f28.txt, f29.txt, f30.txt, and 69 more), named on "
        "stderr and in the --json details. To read all at once: --max-bytes 5k.]",
        "",
    ]
    assert len(result.stdout) - 1 <= 1024
    stderr = result.stderr.decode().splitlines()
    assert stderr[0] == "readmany: f28.txt: left out by the budget"
    assert stderr[-2:] == [
        "readmany: f99.txt: left out by the budget",
        "readmany: to read all at once: --max-bytes 5k",
    ]
    whole = run_readmany(["many", *names, "--max-bytes", "5k"], cwd=tmp_path)
    assert (whole.stderr, len(blocks_of(whole.stdout.decode()))) == (b"", 90)


def test_names_git_quoted_without_z_get_the_command_that_lists_them(tmp_path: Path) -> None:
    for name in ("café.txt", "naïve.txt", "plain.txt"):
        (tmp_path / name).write_text(name + "\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    listed = subprocess.run(
        ["git", "-c", "core.quotePath=true", "ls-files"], cwd=tmp_path, capture_output=True
    ).stdout
    result = run_readmany(["many", "--stdin"], cwd=tmp_path, stdin=listed)
    assert result.returncode == 1
    lines = result.stderr.decode().splitlines()
    assert lines[-1] == (
        "readmany: git quotes names with special characters unless told not to: "
        "list them with git ls-files -z | readmany many --stdin -0"
    )
    assert sum("git quotes names" in line for line in lines) == 1  # once, for both names
    zero = subprocess.run(["git", "ls-files", "-z"], cwd=tmp_path, capture_output=True).stdout
    fixed = run_readmany(["many", "--stdin", "-0"], cwd=tmp_path, stdin=zero)
    assert (fixed.returncode, fixed.stderr) == (0, b"")


def test_a_limit_of_0_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    result = run_readmany(["many", "a.py:2:0"], cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr == (
        b"readmany: a.py:2:0: a LIMIT of 0 shows no line: give 1 or more, "
        b"or leave it out for the rest of the file (a.py:2)\n"
    )
    assert run_readmany(["many", "a.py:2:1"], cwd=tmp_path).returncode == 0
    # The reference's face shows the empty selection, as the reference did.
    assert run_readmany(["many", "--compat", "a.py:2:0"], cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("budget", [["--max-bytes", "114"], ["--max-tokens", "17"]])
def test_a_notice_that_cannot_fit_the_budget_is_said_on_stderr_alone(
    tmp_path: Path, budget: list[str]
) -> None:
    # A budget smaller than the notice that names what it left out: the output keeps to
    # the budget, and stderr names every file left out and how to read them. Nothing at
    # all is shown: that is an error (exit status 1), said with the budget that holds it.
    names = ["first.txt", "second.txt", "third.txt"]
    for name in names:
        (tmp_path / name).write_text(f"{name} " * 300 + "\n")
    result = run_readmany(["many", *names, *budget], cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.decode().startswith(
        f"readmany: nothing shown: the budget ({' '.join(budget)}) holds no line of the 3 "
        "files read; to read all at once: "
    )
    report = run_readmany(["many", *names, *budget, "--json", "-q"], cwd=tmp_path)
    details = json.loads(report.stdout)["details"]
    if budget[0] == "--max-bytes":
        assert len(result.stdout) <= 114
    else:
        assert details["estimatedTokens"] <= 17
    assert b"Left out by the budget" not in result.stdout
    stderr = result.stderr.decode()
    omitted = details["packing"]["omittedPaths"]
    assert omitted and all(
        f"readmany: {name}: left out by the budget" in stderr for name in omitted
    )
    assert "or continue with: readmany many " in stderr


@pytest.mark.parametrize(
    ("spec", "shown", "body", "after"),
    [
        ("blank.txt:1:2", "1-2", "a\n", "blank.txt:3:2"),
        ("blank.txt:2:2", "2-3", "\n", "blank.txt:4:2"),
        ("blank.txt:2:1", "2-2", "", "blank.txt:3:1"),
        ("blank.txt:1:3", "1-3", "a\n\n", "blank.txt:4:3"),
    ],
)
def test_lines_asked_for_that_end_on_a_blank_line_are_all_shown(
    tmp_path: Path, spec: str, shown: str, body: str, after: str
) -> None:
    """A blank line that ends the lines asked for is a line of the file, shown and
    counted: the notice names the lines asked for, its command goes on after them, and
    nothing claims a budget cut a read that has no budget."""
    (tmp_path / "blank.txt").write_bytes(b"a\n\n\nb\n")
    result = run_readmany(["many", spec], cwd=tmp_path)
    assert result.returncode == 0
    assert result.stderr == b""
    text = result.stdout.decode()
    notice = f"[Showing lines {shown} of 4. Continue with: readmany many {after}]"
    assert f"\n{body}\n\n{notice}\n" in text
    follow = run_readmany(["many", after], cwd=tmp_path)
    assert follow.returncode == 0 and follow.stderr == b""


# --- every file named is accounted for ----------------------------------------------------

MISSING = block("nope.txt", 2, "[Error: nope.txt: no such file or directory]")


@pytest.mark.parametrize(
    "budget",
    [[], ["--max-bytes", "2k"], ["--max-tokens", "1k"], ["--max-lines", "40"]],
    ids=["default", "bytes", "tokens", "lines"],
)
def test_an_error_block_is_always_shown_never_left_out_by_the_budget(
    tree: Path, budget: list[str]
) -> None:
    # big.py alone would fill any of these budgets: the error block's room is kept first.
    args = ["many", "big.py", "nope.txt", *budget]
    result = run_readmany(args, cwd=tree)
    assert result.returncode == 1
    output = result.stdout.decode()
    assert output.endswith(f"\n\n{MISSING}\n")
    assert [path for path, _body in blocks_of(output)] == ["big.py", "nope.txt"]
    assert "Left out by the budget" not in output
    assert "readmany many big.py:" in output  # big.py is cut, and continues
    continuations = re.findall(r"Continue with: ([^\]]*)\]", output)
    assert continuations and not any("nope.txt" in c for c in continuations)
    stderr = result.stderr.decode().splitlines()
    assert stderr[0] == "readmany: nope.txt: no such file or directory"
    assert not any("nope.txt" in line for line in stderr[1:])
    report = run_readmany([*args, "--json"], cwd=tree)
    assert report.returncode == 1
    details = json.loads(report.stdout)["details"]
    assert json.loads(report.stdout)["content"] == output.removesuffix("\n")
    assert details["packing"]["omittedPaths"] == []
    assert "nope.txt" not in details["continueWith"]
    assert details["errorCount"] == 1
    # The output keeps to the budget with the error block in it.
    if budget[:1] == ["--max-bytes"]:
        assert len(result.stdout) - 1 <= 2048
    elif budget[:1] == ["--max-tokens"]:
        assert details["estimatedTokens"] <= 1000
    elif budget[:1] == ["--max-lines"]:
        assert result.stdout.count(b"\n") <= 40
    else:
        assert len(result.stdout) - 1 <= 51200 and result.stdout.count(b"\n") <= 2000


@pytest.mark.parametrize("budget", [["--max-bytes", "60"], ["--max-tokens", "10"]])
def test_a_budget_smaller_than_the_error_blocks_holds_and_says_the_failure(
    tree: Path, budget: list[str]
) -> None:
    """The budget holds even against error blocks: when they do not fit it together,
    none is written; stderr and the exit status say what failed and what was left out."""
    result = run_readmany(["many", "a.txt", "nope.txt", *budget], cwd=tree)
    assert result.returncode == 1
    assert "nope.txt" not in result.stdout.decode()
    stderr = result.stderr.decode().splitlines()
    assert stderr[0] == "readmany: nope.txt: no such file or directory"
    details = json.loads(
        run_readmany(["many", "a.txt", "nope.txt", *budget, "--json"], cwd=tree).stdout
    )["details"]
    assert details["errorCount"] == 1
    if budget[0] == "--max-bytes":  # a.txt still fits, the error block does not
        assert result.stdout.startswith(b"@a.txt\n") and len(result.stdout) <= 60
        assert stderr == stderr[:1]
        assert details["packing"]["omittedPaths"] == [] and details["continueWith"] is None
    else:  # nothing fits: said as nothing shown, the error blocks not claimed as shown
        assert result.stdout == b""
        assert stderr[1].startswith(
            "readmany: nothing shown: the budget (--max-tokens 10) holds no line of a.txt"
        )
        assert details["packing"]["omittedPaths"] == ["a.txt"]
        assert details["estimatedTokens"] <= 10


@pytest.mark.parametrize("how", ["argument", "request"])
def test_stop_on_error_names_the_files_it_did_not_read(tree: Path, how: str) -> None:
    if how == "argument":
        args = ["many", "a.txt", "nope.txt", "b.txt", "big.py:5:3", "--stop-on-error"]
    else:
        files = [{"path": "a.txt"}, {"path": "nope.txt"}, {"path": "b.txt"}]
        files.append({"path": "big.py", "offset": 5, "limit": 3})  # type: ignore[dict-item]
        (tree / "request.json").write_text(json.dumps({"files": files, "stopOnError": True}))
        args = ["many", "--request", "request.json"]
    result = run_readmany(args, cwd=tree)
    assert result.returncode == 1
    assert result.stdout.decode() == (
        block("a.txt", 1, "alpha\nbeta\ngamma\n") + "\n\n" + MISSING + "\n"
    )
    said = (
        "readmany: not read, --stop-on-error stopped at nope.txt: b.txt, big.py; "
        "read them with: readmany many b.txt big.py:5:3"
    )
    assert result.stderr.decode().splitlines() == [
        "readmany: nope.txt: no such file or directory",
        said,
    ]
    # An error, not a note: -q keeps it.
    assert said in run_readmany([*args, "-q"], cwd=tree).stderr.decode().splitlines()
    report = run_readmany([*args, "--json"], cwd=tree)
    assert report.returncode == 1
    details = json.loads(report.stdout)["details"]
    assert details["notReadPaths"] == ["b.txt", "big.py"]
    assert (details["processedCount"], details["packing"]["omittedPaths"]) == (2, [])
    # The command said reads them.
    rest = run_readmany(shlex.split(said.partition("read them with: ")[2])[1:], cwd=tree)
    assert rest.returncode == 0
    assert [path for path, _body in blocks_of(rest.stdout.decode())] == ["b.txt", "big.py"]


def test_without_stop_on_error_every_file_is_read(tree: Path) -> None:
    report = run_readmany(["many", "nope.txt", "a.txt", "--json"], cwd=tree)
    details = json.loads(report.stdout)["details"]
    assert (report.returncode, details["notReadPaths"], details["processedCount"]) == (1, [], 2)


def test_stop_on_error_counts_what_it_did_not_read_when_too_many_to_name(tmp_path: Path) -> None:
    names = [f"f{n}.txt" for n in range(10, 40)]
    for name in names:
        (tmp_path / name).write_text("x\n")
    result = run_readmany(["many", "nope.txt", *names, "--stop-on-error"], cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.decode().splitlines() == [
        "readmany: nope.txt: no such file or directory",
        "readmany: not read, --stop-on-error stopped at nope.txt: 30 files (f10.txt, f11.txt, "
        "f12.txt, and 27 more), named in the --json details (notReadPaths)",
    ]
    report = run_readmany(["many", "nope.txt", *names, "--stop-on-error", "--json"], cwd=tmp_path)
    assert json.loads(report.stdout)["details"]["notReadPaths"] == names


@pytest.mark.parametrize(
    ("budget", "whole"),
    [(["--max-bytes", "50"], "--max-bytes 103k"), (["--max-tokens", "10"], None)],
)
def test_a_budget_that_shows_no_line_is_an_error(
    tree: Path, budget: list[str], whole: str | None
) -> None:
    result = run_readmany(["many", "big.py", *budget], cwd=tree)
    assert (result.returncode, result.stdout) == (1, b"")
    first, *rest = result.stderr.decode().splitlines()
    said = re.fullmatch(
        rf"readmany: nothing shown: the budget \({' '.join(budget)}\) holds no line of big\.py; "
        r"to read all at once: (--max-\w+ \w+); or continue with: readmany many big\.py "
        + re.escape(" ".join(budget)),
        first,
    )
    assert said is not None
    if whole is not None:
        assert said[1] == whole
    assert rest == ["readmany: big.py: left out by the budget"]
    # An error, not a note: -q keeps it.
    assert run_readmany(["many", "big.py", *budget, "-q"], cwd=tree).stderr.decode() == first + "\n"
    report = run_readmany(["many", "big.py", *budget, "--json"], cwd=tree)
    assert report.returncode == 1
    value = json.loads(report.stdout)
    assert value["content"] == ""
    assert value["details"]["packing"]["omittedPaths"] == ["big.py"]
    # The budget it names shows it all.
    follow = run_readmany(["many", "big.py", *said[1].split()], cwd=tree)
    assert (follow.returncode, follow.stderr) == (0, b"")


def test_a_budget_that_holds_only_the_notice_is_an_error(tree: Path) -> None:
    result = run_readmany(["many", "big.py", "--max-lines", "5"], cwd=tree)
    assert result.returncode == 1
    assert result.stdout.decode() == (
        "[Left out by the budget: big.py. To read all at once: --max-lines 3628. "
        "Continue with: readmany many big.py --max-lines 5]\n"
    )
    assert (
        result.stderr.decode()
        .splitlines()[0]
        .startswith("readmany: nothing shown: the budget (--max-lines 5) holds no line of big.py")
    )
    # One line more shows one: no error.
    assert run_readmany(["many", "big.py", "--max-lines", "6"], cwd=tree).returncode == 0


def test_a_line_longer_than_the_budget_is_named_with_its_command_on_stderr(
    tmp_path: Path,
) -> None:
    """stderr alone reads every line once: the command that shows the long line, then
    the command that goes on after it."""
    (tmp_path / "wide.txt").write_text("short\n" + "x" * 3000 + "\nafter\n")
    result = run_readmany(["many", "wide.txt:2", "--max-bytes", "1k"], cwd=tmp_path)
    assert result.returncode == 0
    assert result.stderr.decode().splitlines() == [
        "readmany: wide.txt: line 2 is longer than the budget holds; show it with: "
        "readmany many wide.txt:2:1 --max-bytes 4k",
        "readmany: to read all at once: --max-bytes 3k; or continue with: readmany many wide.txt:3 "
        "--max-bytes 1k",
    ]
    shown = run_readmany(["many", "wide.txt:2:1", "--max-bytes", "4k"], cwd=tmp_path)
    assert shown.returncode == 0 and "x" * 3000 in shown.stdout.decode()


@pytest.mark.parametrize("budget", [["--max-tokens", "1k"], ["--max-bytes", "3000"]])
def test_following_the_continue_commands_pages_through_with_the_same_budget(
    tree: Path, budget: list[str]
) -> None:
    """Each page is cut by the budget the first was, and the pages read every line once."""
    command = ["many", "big.py", *budget]
    pages = []
    while command:
        report = json.loads(run_readmany([*command, "--json"], cwd=tree).stdout)
        body = blocks_of(report["content"])[0][1]
        pages.append(re.sub(r"\n\n\[Showing lines [^\]]*\]$", "", body))
        follow = report["details"]["continueWith"]
        command = shlex.split(follow)[1:] if follow else []
        if command:
            assert command[-2:] == budget
        assert len(pages) < 200
    assert len(pages) > 3
    assert "\n".join(page.removesuffix("\n") for page in pages) + "\n" == big_text()


def test_an_empty_directory_is_said_as_such(tmp_path: Path) -> None:
    """A submodule git lists but has not checked out: `readmany glob` of it reads nothing
    either, so that is not offered."""
    (tmp_path / "sub").mkdir()
    result = run_readmany(["many", "sub"], cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.decode() == (
        "readmany: sub: is an empty directory (a submodule not checked out?): nothing to read\n"
    )


@pytest.mark.parametrize("budget", ["2k", "10k"])
def test_the_budget_that_reads_all_at_once_does(tmp_path: Path, budget: str) -> None:
    """A budget of tokens weighs the lines it did not show as it would weigh them shown,
    bounded as a plan is (`tokens.real_at_most` of its estimate): the budget it
    names holds them, and a quarter fewer does not."""
    (tmp_path / "big.py").write_text(
        "".join(f'value_{i} = compute({i * i}, "{i:x}")  # row {i}\n' for i in range(5000))
    )
    result = run_readmany(["many", "big.py", "--max-tokens", budget], cwd=tmp_path)
    said = re.search(r"to read all at once: --max-tokens (\d+)k;", result.stderr.decode())
    assert said is not None
    enough = int(said[1])
    whole = run_readmany(["many", "big.py", "--max-tokens", f"{enough}k"], cwd=tmp_path)
    assert whole.stderr == b"" and b"Showing lines" not in whole.stdout
    short = run_readmany(["many", "big.py", "--max-tokens", f"{enough * 3 // 4}k"], cwd=tmp_path)
    assert b"Showing lines" in short.stdout


@pytest.mark.parametrize("budget", [2000, 10000, 30000])
def test_a_budget_of_tokens_is_never_over_where_the_estimate_reads_low(
    tmp_path: Path, budget: int
) -> None:
    # A table of numbers: the estimate reads it about a third low (o200k splits each
    # number in threes). Planned on the estimate alone, 10k wrote 14,667 real tokens; the
    # plan is made again until the bound of what it writes is within the budget.
    rows = random.Random(3)
    table = "".join(
        "    " + ", ".join(str(rows.randrange(1, 5000)) for _ in range(16)) + ",\n"
        for _ in range(2000)
    )
    (tmp_path / "freq.py").write_text(f"TABLE = (\n{table})\n")
    result = run_readmany(["many", "freq.py", "--max-tokens", str(budget)], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    real = count(result.stdout.decode())
    assert 0.9 * budget <= real <= budget
