"""The `--help` text: plain, wrapped to the terminal, every option with its value's name.

Typer's own rendering decorates each parameter with its Python type and range (`<bool>`,
`<list[str]>`, `<int range> [x>=1]`), which say nothing to someone at a shell and cannot
be turned off per option. These command classes (given to Typer as `cls`) write the same
sections from the same definitions without them: a flag is its names, an option with a
value shows that value's name (`FILE`, `N`), a default is shown where there is one.
"""

from __future__ import annotations

import typer.core

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typer._click import Context, HelpFormatter, Parameter


def value_name(param: Parameter) -> str:
    """What an option's value is called in help, man page and completions; "" for a flag."""
    if getattr(param, "is_flag", False):
        return ""
    if param.metavar:
        return param.metavar
    described = getattr(param, "type_descriptor", None)  # Typer's record of the annotation
    if getattr(described, "annotation", None) is int:
        return "N"
    return (param.name or "value").upper()


def option_names(param: Parameter) -> list[str]:
    """Short names first, as `-o, --output`."""
    return sorted([*param.opts, *param.secondary_opts], key=lambda n: (n.startswith("--"), n))


def usage_pieces(command: typer.core.TyperCommand | typer.core.TyperGroup) -> list[str]:
    """`[OPTIONS]`, then each argument as its metavar: bracketed when optional."""
    pieces = ["[OPTIONS]"]
    for param in command.params:
        if param.param_type_name == "argument":
            name = param.metavar or (param.name or "").upper()
            pieces.append(name if param.required else f"[{name}]")
    return pieces


def _default(param: Parameter) -> str:
    shown = getattr(param, "show_default", None)  # options have it, arguments may not
    if isinstance(shown, str):
        return f"  [default: {shown}]"
    if shown is False or getattr(param, "is_flag", False):
        return ""
    if param.default is None or isinstance(param.default, (list, tuple)):
        return ""
    return f"  [default: {param.default}]"


def _write_parameters(
    command: typer.core.TyperCommand | typer.core.TyperGroup,
    ctx: Context,
    formatter: HelpFormatter,
) -> None:
    arguments: list[tuple[str, str]] = []
    options: list[tuple[str, str]] = []
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        text = (getattr(param, "help", None) or "") + _default(param)
        if param.param_type_name == "argument":
            arguments.append((param.metavar or (param.name or "").upper(), text))
            continue
        names = ", ".join(option_names(param))
        value = value_name(param)
        options.append((f"{names} {value}" if value else names, text))
    if arguments:
        with formatter.section("Arguments"):
            formatter.write_dl(arguments)
    if options:
        with formatter.section("Options"):
            formatter.write_dl(options)


class HelpCommand(typer.core.TyperCommand):
    """A command whose help is written by `_write_parameters`."""

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        return usage_pieces(self)

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        _write_parameters(self, ctx, formatter)


class HelpGroup(typer.core.TyperGroup):
    """The top level: its options, then every command with its whole summary line."""

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        _write_parameters(self, ctx, formatter)
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, (command.help or "").strip().splitlines()[0]))
        with formatter.section("Commands"):
            formatter.write_dl(rows)
