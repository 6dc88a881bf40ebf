#!/usr/bin/env python3
"""Generate the shell completions and the man page from the command-line definition.

    python scripts/generate_docs.py           # rewrite completions/ and man/
    python scripts/generate_docs.py --check   # exit 1 when a checked-in file is stale

Everything is derived from the Typer app in `readmany.cli`, so a new option shows up in
bash, zsh and fish completion and in `man readmany` by running this script.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import typer

from readmany import __version__
from readmany.choices import Format, Secrets, Shell
from readmany.cli import EXIT_CODES, EXIT_CODES_HELP, app
from readmany.helptext import option_names, value_name

ROOT = Path(__file__).resolve().parent.parent
DATE = "2026-11-30"


# The options of `readmany` itself, before a command.
TOP_LEVEL = ("--version", "-V", "--help", "-h")

# The values an option takes, offered by the completions; per command where one refuses
# some (hashline keeps its bytes exact: no redact).
CHOICES: dict[str, tuple[str, ...]] = {"--format": Format.words(), "--secrets": Secrets.words()}
REFUSED: dict[tuple[str, str], tuple[str, ...]] = {("hashline", "--secrets"): ("redact",)}
# The values a command's positional argument takes, where they are a fixed few.
ARGUMENT_CHOICES: dict[str, tuple[str, ...]] = {"completions": Shell.words()}


@dataclass(frozen=True)
class Opt:
    names: tuple[str, ...]  # e.g. ("--output", "-o")
    help: str
    metavar: str  # "" for a flag
    kind: str  # "flag", "file", "dir", "value"
    choices: tuple[str, ...] = ()  # the values it takes, where they are a fixed few


@dataclass(frozen=True)
class Command:
    name: str
    summary: str
    help: str
    arguments: tuple[tuple[str, str, bool], ...]  # (metavar, help, required)
    options: tuple[Opt, ...]
    examples: tuple[str, ...]
    exit_status: str  # the help's "Exit status: ..." paragraph


def first_sentence(text: str) -> str:
    """The first sentence of a help text, without its full stop: it ends at a full stop
    followed by a space, outside parentheses and not part of an ellipsis (`REV...`)."""
    depth = 0
    for i, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif (
            char == "."
            and depth == 0
            and text[i - 1 : i] != "."
            and text[i + 1 : i + 2] in (" ", "")
        ):
            return text[:i]  # a full stop: not in parentheses, not the end of an ellipsis
    return text.rstrip(".")


def _kind(option: object, metavar: str) -> str:
    if getattr(option, "is_flag", False):
        return "flag"
    upper = metavar.upper()
    if "DIR" in upper:
        return "dir"
    if "FILE" in upper:
        return "file"
    return "value"


def commands() -> list[Command]:
    group = typer.main.get_command(app)
    context = typer.Context(group, info_name="readmany")
    found = []
    for name in group.list_commands(context):  # type: ignore[attr-defined]
        command = group.get_command(context, name)  # type: ignore[attr-defined]
        arguments = []
        options = []
        for param in command.params:
            if param.param_type_name == "argument":
                metavar = param.metavar or param.name.upper()
                arguments.append((metavar, getattr(param, "help", ""), param.required))
                continue
            metavar = value_name(param)
            names = tuple(sorted(option_names(param), key=lambda o: not o.startswith("--")))
            refused = next((REFUSED[name, n] for n in names if (name, n) in REFUSED), ())
            choices = next((CHOICES[n] for n in names if n in CHOICES), ())
            choices = tuple(c for c in choices if c not in refused)
            options.append(Opt(names, param.help or "", metavar, _kind(param, metavar), choices))
        options.append(Opt(("--help", "-h"), "Show this help and exit.", "", "flag"))
        epilog = command.epilog or ""
        # Every example line, pipelines (`git ls-files -z | readmany ...`) included.
        examples = tuple(
            line.strip()
            for line in epilog.splitlines()
            if line.startswith("  ") and "readmany " in line
        )
        doc = (command.help or "").strip()
        found.append(
            Command(
                name,
                doc.splitlines()[0],
                doc,
                tuple(arguments),
                tuple(options),
                examples,
                epilog[epilog.index("Exit status:") :] if "Exit status:" in epilog else "",
            )
        )
    return found


# --- bash -------------------------------------------------------------------------------


_BASH_FILES = r"""
# File names one a word, spaces and all (readline quotes them on the line): with
# bash-completion's _filedir where it is loaded, else compgen on the typed word unquoted.
_readmany_files() {
    if declare -F _filedir >/dev/null; then
        if [[ "$1" == -d ]]; then _filedir -d; else _filedir; fi
        return
    fi
    local word="" rest name i
    if [[ "$cur" == \'* ]]; then
        word="${cur#\'}"
    else
        rest="${cur#\"}"
        for ((i = 0; i < ${#rest}; i++)); do
            [[ "${rest:i:1}" == \\ ]] && ((i++))
            word+="${rest:i:1}"
        done
    fi
    COMPREPLY=()
    while IFS= read -r name; do
        COMPREPLY+=("$name")
    done < <(compgen "-${1#-}" -- "$word")
}
"""


def bash(cmds: list[Command]) -> str:
    names = " ".join(c.name for c in cmds)
    out = [
        "# bash completion for readmany; generated by scripts/generate_docs.py",
        *_BASH_FILES.splitlines(),
        "",
        "_readmany() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    local cmd="" dashdash="" i',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "${COMP_WORDS[i]}" in',
        f"            {'|'.join(c.name for c in cmds)})",
        '                [[ -z "$cmd" ]] && cmd="${COMP_WORDS[i]}" ;;',
        '            --) [[ -n "$cmd" ]] && dashdash=1 ;;',
        "        esac",
        "    done",
        '    if [[ -z "$cmd" ]]; then',
        f'        COMPREPLY=($(compgen -W "{names} {" ".join(TOP_LEVEL)}" -- "$cur"))',
        "        return",
        "    fi",
        "    local opts=''",
        '    if [[ -z "$dashdash" ]]; then',
        '        case "$cmd" in',
    ]
    for c in cmds:
        words = " ".join(name for o in c.options for name in o.names)
        files = "|".join(n for o in c.options if o.kind == "file" for n in o.names)
        dirs = "|".join(n for o in c.options if o.kind == "dir" for n in o.names)
        values = "|".join(
            n for o in c.options if o.kind == "value" and not o.choices for n in o.names
        )
        out.append(f"            {c.name})")
        out.append(f'                opts="{words}"')
        out.append('                case "$prev" in')
        if files:
            out.append(f"                    {files}) _readmany_files -f; return ;;")
        if dirs:
            out.append(f"                    {dirs}) _readmany_files -d; return ;;")
        for o in c.options:
            if o.choices:
                out.append(
                    f"                    {'|'.join(o.names)})"
                    f' COMPREPLY=($(compgen -W "{" ".join(o.choices)}" -- "$cur")); return ;;'
                )
        if values:
            out.append(f"                    {values}) return ;;")
        out.append("                esac")
        out.append("                ;;")
    out += [
        "        esac",
        "    fi",
        '    if [[ -z "$dashdash" && "$cur" == -* ]]; then',
        '        COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
    ]
    for c in cmds:
        if c.name in ARGUMENT_CHOICES:
            words = " ".join(ARGUMENT_CHOICES[c.name])
            out.append(f'    elif [[ "$cmd" == {c.name} ]]; then')
            out.append(f'        COMPREPLY=($(compgen -W "{words}" -- "$cur"))')
        elif not c.arguments:
            out.append(f'    elif [[ "$cmd" == {c.name} ]]; then')
            out.append("        COMPREPLY=()")
    out += [
        "    else",
        "        _readmany_files -f",
        "    fi",
        "}",
        "complete -o filenames -o bashdefault -F _readmany readmany",
        "",
    ]
    return "\n".join(out)


# --- zsh --------------------------------------------------------------------------------


def _zsh_quote(text: str) -> str:
    return (
        text.replace("\\", "\\\\")
        .replace("'", "'\\''")
        .replace("[", "\\[")
        .replace("]", "\\]")
        .replace(":", "\\:")
    )


def zsh(cmds: list[Command]) -> str:
    out = [
        "#compdef readmany",
        "# zsh completion for readmany; generated by scripts/generate_docs.py",
        "",
        "_readmany() {",
        "    local context state state_descr line",
        "    typeset -A opt_args",
        "    _arguments -C \\",
        "        '(- *)'{-V,--version}'[show the version and exit]' \\",
        "        '(- *)'{-h,--help}'[show the help and exit]' \\",
        "        '1:command:->command' \\",
        "        '*::argument:->argument'",
        "    case $state in",
        "        command)",
        "            local -a commands",
        "            commands=(",
    ]
    for c in cmds:
        out.append(f"                '{c.name}:{_zsh_quote(c.summary)}'")
    out += [
        "            )",
        "            _describe -t commands 'readmany command' commands",
        "            ;;",
        "        argument)",
        "            case $words[1] in",
    ]
    for c in cmds:
        out.append(f"                {c.name})")
        out.append("                    _arguments -s \\")
        for o in c.options:
            action = {"flag": "", "file": ":file:_files", "dir": ":directory:_files -/"}.get(
                o.kind,
                f":{o.metavar.lower()}:({' '.join(o.choices)})"
                if o.choices
                else f":{o.metavar.lower()}: ",
            )
            helptext = _zsh_quote(first_sentence(o.help))
            repeat = "*" if "repeatable" in o.help else ""
            if len(o.names) == 1:
                spec = f"'{repeat}{o.names[0]}[{helptext}]{action}'"
            else:
                group = " ".join(o.names)
                names = ",".join(o.names)
                spec = f"'{repeat}({group})'{{{names}}}'[{helptext}]{action}'"
            out.append(f"                        {spec} \\")
        if c.name in ARGUMENT_CHOICES:
            words = " ".join(ARGUMENT_CHOICES[c.name])
            metavar = c.arguments[0][0].lower()
            out.append(f"                        '1:{metavar}:({words})'")
        elif c.arguments:
            out.append("                        '*:file:_files'")
        else:
            out[-1] = out[-1].removesuffix(" \\")
        out.append("                    ;;")
    out += [
        "            esac",
        "            ;;",
        "    esac",
        "}",
        "",
        '_readmany "$@"',
        "",
    ]
    return "\n".join(out)


# --- fish -------------------------------------------------------------------------------


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(cmds: list[Command]) -> str:
    names = " ".join(c.name for c in cmds)
    out = [
        "# fish completion for readmany; generated by scripts/generate_docs.py",
        "complete -c readmany -f",
        "complete -c readmany -n __fish_use_subcommand -s V -l version"
        " -d 'Show the version and exit'",
        "complete -c readmany -n __fish_use_subcommand -s h -l help -d 'Show the help and exit'",
    ]
    for c in cmds:
        out.append(
            f"complete -c readmany -n __fish_use_subcommand -a {c.name} -d {_fish_quote(c.summary)}"
        )
    for c in cmds:
        condition = f"'__fish_seen_subcommand_from {c.name}'"
        if c.name in ARGUMENT_CHOICES:
            words = _fish_quote(" ".join(ARGUMENT_CHOICES[c.name]))
            out.append(f"complete -c readmany -n {condition} -f -a {words}")
        elif c.arguments:
            out.append(f"complete -c readmany -n {condition} -F")
        for o in c.options:
            parts = [f"complete -c readmany -n {condition}"]
            for name in o.names:
                parts.append(f"-l {name[2:]}" if name.startswith("--") else f"-s {name[1:]}")
            if o.kind == "file":
                parts.append("-r -F")
            elif o.kind == "dir":
                parts.append("-r -a '(__fish_complete_directories)'")
            elif o.kind == "value":
                parts.append("-r -f")
                if o.choices:
                    parts.append(f"-a {_fish_quote(' '.join(o.choices))}")
            parts.append(f"-d {_fish_quote(first_sentence(o.help))}")
            out.append(" ".join(parts))
    del names
    out.append("")
    return "\n".join(out)


# --- the fast path's table -----------------------------------------------------------


def _value_kind(annotation: object) -> str:
    import typing

    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    base = args[0] if args else annotation
    if typing.get_origin(base) is list:
        return "list"
    return {bool: "flag", int: "int", str: "str"}[base]  # type: ignore[index]


def _py(value: object) -> str:
    """A literal as ruff formats it: strings in double quotes."""
    import json

    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(_py(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def argtable() -> str:
    import inspect
    import typing

    arguments_lines = ["ARGUMENTS: dict[str, tuple[tuple[str, str, bool], ...]] = {"]
    options_lines = ["OPTIONS: dict[str, dict[str, tuple[str, str, int | None]]] = {"]
    defaults_lines = ["DEFAULTS: dict[str, dict[str, object]] = {"]
    for info in app.registered_commands:
        callback = info.callback
        assert callback is not None and info.name is not None
        hints = typing.get_type_hints(callback, include_extras=True)
        arguments = []
        options_lines.append(f"    {_py(info.name)}: {{")
        defaults_lines.append(f"    {_py(info.name)}: {{")
        for name, parameter in inspect.signature(callback).parameters.items():
            base, meta = typing.get_args(hints[name])[:2]
            kind = _value_kind(base)
            if kind == "str" and getattr(meta, "metavar", None) == "SIZE":
                kind = "size"  # a size (100k, 2M): the fast path checks it, Typer does not
            required = parameter.default is inspect.Parameter.empty
            if not required:
                defaults_lines.append(f"        {_py(name)}: {_py(parameter.default)},")
            if type(meta).__name__ == "ArgumentInfo":
                arguments.append((name, kind, required))
                continue
            first = [meta.default] if isinstance(meta.default, str) else []
            for flag in [*first, *meta.param_decls]:
                entry = (name, kind, getattr(meta, "min", None))
                options_lines.append(f"        {_py(flag)}: {_py(entry)},")
        arguments_lines.append(f"    {_py(info.name)}: {_py(tuple(arguments))},")
        for block in (options_lines, defaults_lines):
            if block[-1].endswith(": {"):  # none: `{}` on its line, as ruff writes it
                block[-1] += "},"
            else:
                block.append("    },")
    for block in (arguments_lines, options_lines, defaults_lines):
        block.append("}")
    head = [
        '"""The command-line table of the fast path, generated from the Typer app: do not edit.',
        "",
        "Regenerate with `python scripts/generate_docs.py`; a test fails when it is stale.",
        "Per command: positional arguments (name, kind, required), options (flag: name, kind,",
        "minimum) and the defaults of the command function.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
    ]
    return "\n".join([*head, *arguments_lines, "", *options_lines, "", *defaults_lines, ""])


# --- man --------------------------------------------------------------------------------


def _roff(text: str) -> str:
    escaped = text.replace("\\", "\\e").replace("-", "\\-")
    escaped = "".join(c if c.isascii() else f"\\[u{ord(c):04X}]" for c in escaped)
    lines = []
    for line in escaped.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def man(cmds: list[Command]) -> str:
    out = [
        f'.TH READMANY 1 "{DATE}" "readmany {__version__}" "User Commands"',
        ".SH NAME",
        "readmany \\- read many files at once: budgeted batches, globs, hashline anchors",
        ".SH SYNOPSIS",
    ]
    for c in cmds:
        # An argument is optional where it may be left out, or where --request takes its
        # place (edit's PATH#TAG): the --request form gets a line of its own.
        request = any("--request" in o.names for o in c.options)
        args = " ".join(
            m if required or (request and "..." not in m) else f"[{m}]"
            for m, _, required in c.arguments
        )
        out += [f".B readmany {c.name}", f"[\\fIOPTIONS\\fR] {_roff(args)}", ".br"]
        if request:
            out += [
                f".B readmany {c.name}",
                "\\-\\-request \\fIFILE|\\-\\fR [\\fIOPTIONS\\fR]",
                ".br",
            ]
    out += [
        ".B readmany",
        "\\-\\-version | \\-V | \\-\\-help",
        ".SH DESCRIPTION",
        _roff(
            "readmany reads many files and writes them as one framed, byte-exact text on "
            "standard output: for shell pipelines, for pasting context into a chat with a "
            "language model, and for pre-commit context dumps. Diagnostics go to standard "
            "error; when it is a terminal, a summary of the run (and a progress bar on long "
            "runs) is shown there."
        ),
        ".SH COMMANDS",
    ]
    for c in cmds:
        out += [f".SS readmany {c.name}", _roff(c.help)]
        for metavar, helptext, _ in c.arguments:
            out += [".TP", f"\\fI{_roff(metavar)}\\fR", _roff(helptext or "")]
        for o in c.options:
            shown = ", ".join(f"\\fB{_roff(n)}\\fR" for n in o.names)
            if o.metavar:
                shown += f" \\fI{_roff(o.metavar)}\\fR"
            out += [".TP", shown, _roff(o.help)]
        if c.examples:
            out += [".PP", "Examples:", ".PP", ".nf", ".RS 4"]
            out += [_roff(e) for e in c.examples]
            out += [".RE", ".fi"]
        if c.exit_status and c.exit_status != EXIT_CODES_HELP:  # edit's own meanings
            out += [".PP", _roff(c.exit_status)]
    out += [
        ".SH OUTPUT",
        _roff(
            "Standard output carries the content followed by one newline, and nothing else. "
            'With --json it is one JSON object {"content", "details", "attachments"}. '
            "With -o FILE the output is written to a temporary file beside FILE and renamed "
            "at the end, so a failed run leaves no half-written file. A closed standard "
            "output (readmany ... | head -1) ends the program quietly."
        ),
        ".SH EXIT STATUS",
    ]
    for code, meaning, more in EXIT_CODES:
        text = meaning + more
        out += [".TP", f"\\fB{code}\\fR", _roff(text[:1].upper() + text[1:] + ".")]
    out += [
        ".PP",
        _roff(
            "With --compat, glob keeps the reference's exit status: a pattern that matches "
            'nothing, or every file skipped, is its sentence "No files matching the criteria '
            'were found or all were skipped." and exit status 0 (a --stdin path that does '
            "not exist is still 1)."
        ),
        ".PP",
        _roff("readmany edit gives 0, 1 and 2 meanings of its own, listed under readmany edit."),
    ]
    out += [
        ".SH ENVIRONMENT",
        ".TP",
        "\\fBNO_COLOR\\fR",
        "When set, the summary on standard error is not coloured.",
        ".TP",
        "\\fBWAYLAND_DISPLAY\\fR, \\fBDISPLAY\\fR",
        _roff("Where --copy uses wl-copy, or xclip or xsel."),
        ".TP",
        "\\fBTMUX\\fR",
        _roff(
            "Inside tmux, --copy without those tools hands the content to tmux load-buffer -w -: "
            "tmux's paste buffer, which tmux passes on to the terminal's clipboard."
        ),
        ".TP",
        "\\fBVTE_VERSION\\fR",
        _roff(
            "Set by VTE terminals, which ignore the OSC 52 escape: outside tmux, --copy "
            "without a clipboard tool refuses (exit 2) and names the tool to install."
        ),
        ".TP",
        "\\fBGIT_CONFIG_GLOBAL\\fR, \\fBGIT_CONFIG_SYSTEM\\fR, \\fBGIT_CONFIG_NOSYSTEM\\fR, "
        "\\fBXDG_CONFIG_HOME\\fR, \\fBHOME\\fR",
        _roff("Where readmany glob finds git's configuration and global excludes, as git does."),
        ".TP",
        "\\fBREADMANY_DEBUG\\fR",
        "When set, an internal error shows its traceback.",
        ".TP",
        "\\fBREADMANY_PROCESSES\\fR",
        _roff(
            "1 keeps readmany glob in one process; 2 (or any other value) forks the walking "
            "helper at the start. "
            "By default, with more than one CPU, the walk starts in the main process and "
            "goes on in a helper process (that also reads ahead) once it has found 256 "
            "files; the output is the same either way."
        ),
        ".SH FILES",
        ".TP",
        "\\fB.gitignore\\fR, \\fB.git/info/exclude\\fR",
        _roff("Honoured by readmany glob inside a git work tree, with git's semantics."),
        ".TP",
        "\\fB.readmanyignore\\fR",
        _roff("Gitignore syntax, at the root; always honoured by readmany glob."),
        ".TP",
        "\\fBcore.excludesFile\\fR, \\fB$XDG_CONFIG_HOME/git/ignore\\fR",
        _roff(
            "git's global excludes file, applied by readmany glob inside a git work tree as "
            "git applies it, below .git/info/exclude (not with --compat or --no-gitignore). "
            "The setting is read from /etc/gitconfig, ~/.gitconfig, "
            "$XDG_CONFIG_HOME/git/config (their [include] paths too) and the repository's "
            ".git/config, without running git; the file a repository's own configuration "
            "names is read only from inside the repository."
        ),
        ".TP",
        "\\fB.readmany.toml\\fR, \\fBpyproject.toml\\fR [tool.readmany]",
        _roff(
            "The project configuration of readmany glob: the nearest at or above the "
            "working directory, up to the top of the git work tree. Keys: patterns (for a "
            "walk that names none), exclude (added to --exclude), max-tokens, max-bytes, "
            "max-lines, format, tree, secrets (warn, skip or redact). The command line "
            "wins; --no-config and --compat read none; -v and --json details (config) say "
            "which file was read. A key that would move the root, write a file, read "
            "what is left out, turn secrets off or name a path outside the tree is "
            "refused, as is any other mistake: one line naming the file and the key, "
            "exit status 2."
        ),
        ".SH NOTES",
        _roff(
            "Token counts are estimates for the o200k_base tokenizer, made without one; "
            "--max-tokens, --stats, the summary, --copy's note and estimatedTokens in --json "
            "details all count alike. The words, case changes, numbers, punctuation, line "
            "breaks and non-ASCII characters of a sample of each text are counted and "
            "weighed with weights fitted to o200k_base counts of text samples and of the "
            "files of seven repositories (readmany/tokens.py). A file's estimate is off by "
            "5-9% on average. A budget of tokens is never over: with the tokens extra the "
            "output is counted exactly; without it, what it writes is counted by o200k_base's "
            "pieces and merges with its ASCII tokens, which readmany ships (exact for ASCII "
            "text, readmany/merges.py), and other text bounded by its estimate."
        ),
        ".SH SEE ALSO",
        "\\fBgit\\fR(1), \\fBgitignore\\fR(5)",
        "",
    ]
    return "\n".join(out)


OUTPUTS = {
    "readmany/argtable.py": lambda _cmds: argtable(),
    "completions/readmany.bash": bash,
    "completions/_readmany": zsh,
    "completions/readmany.fish": fish,
    "man/readmany.1": man,
}
# The same files again in the package (`readmany completions SHELL`, `readmany man`
# print them): a wheel holds only the package.
OUTPUTS.update(
    {
        f"readmany/data/{relative.rpartition('/')[2]}": render
        for relative, render in list(OUTPUTS.items())
        if relative.startswith(("completions/", "man/"))
    }
)


def generate() -> dict[str, str]:
    cmds = commands()
    return {path: render(cmds) for path, render in OUTPUTS.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="fail when a file is stale")
    args = parser.parse_args()
    stale = []
    for relative, text in generate().items():
        path = ROOT / relative
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(relative)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if stale:
        sys.stderr.write("stale, run scripts/generate_docs.py: " + ", ".join(stale) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
