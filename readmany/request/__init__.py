"""The command line to one typed request per command, built here and nowhere else.

Both parsers (`readmany.cli`, `readmany.fastargs`) give the values of a command
function's parameters by name; `build` turns them into the command's request: its
options checked one by one and against each other, each choice an enum
(`readmany.choices`), sizes as numbers, stdin and `--request` read, `-o` checked against
the inputs. Every usage error of a command line is raised from this package (what a
command line reads besides its arguments is `request.inputs`); a command's `main` is
given its request, never the values as parsed.

- `many`: `request.many.ManyRequest`
- `glob`: `request.glob.GlobRequest`, its configuration beneath the command line
- `hashline`: `request.hashline.HashlineRequest`
- `edit`: `edit.files.EditRun`
- `mcp`: `serve.config.ServerConfig`
- `completions`: a `choices.Shell`; `man`: nothing
"""

from __future__ import annotations

from collections.abc import Mapping

from readmany.errors import UsageError
from readmany.request.given import Given
from readmany.request.inputs import GIT_DIR_FORM, in_git_directory


def build(command: str, values: Mapping[str, object]) -> object:
    """The typed request of `readmany COMMAND` with these parsed values."""
    given = Given(values)
    if given.flag("null") and not given.flag("stdin"):
        raise UsageError("-0 separates the paths of --stdin with NUL bytes: add --stdin")

    output = given.text("output")
    if output is not None and output.startswith(GIT_DIR_FORM):
        given = given.replaced("output", in_git_directory(output))
    if command == "many":
        from readmany.request.many import many_request

        return many_request(given)
    if command == "glob":
        from readmany.request.glob import glob_request

        return glob_request(given)
    if command == "hashline":
        from readmany.request.hashline import hashline_request

        return hashline_request(given)
    if command == "edit":
        from readmany.request.edit import edit_run

        return edit_run(given)
    if command == "mcp":
        from readmany.request.mcp import server_config

        return server_config(given)
    if command == "completions":
        from readmany.choices import Shell
        from readmany.request.given import choice

        shell = given.text("shell") or ""
        return choice(Shell, shell, f"completions {shell!r}: give bash, zsh or fish")
    return None  # man: no options
