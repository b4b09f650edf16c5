"""The click group: every command (the families from their modules, and the small ones here)."""

from __future__ import annotations

import importlib
from pathlib import Path

import click

from hipconv.cli.options import display_options
from hipconv.code_pages import explain_code
from hipconv.commands.codes import code_table_lines, find_code, version_lines
from hipconv.console import Display
from hipconv.errors import HipconvError


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        for line in version_lines():
            click.echo(line)
        ctx.exit()


class PipeClosed(Exception):
    """stdout's (or stderr's) reader went away (`hipconv rules list | head`). Not an OSError, so that it passes
    click, which would turn a broken pipe into exit code 1."""


# the command families, imported when named (a translate run loads neither scan's checks nor compare's)
_FAMILIES = {
    "translate": ("hipconv.cli.translate", "translate"),
    "build": ("hipconv.cli.build", "build"),
    "scan": ("hipconv.cli.scan", "scan"),
    "rules": ("hipconv.cli.rules", "rules"),
    "compare": ("hipconv.cli.compare", "compare_command"),
}


class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_FAMILIES})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _FAMILIES and cmd_name not in self.commands:
            module, name = _FAMILIES[cmd_name]
            self.add_command(getattr(importlib.import_module(module), name), cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise PipeClosed from exc


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-V",
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_version,
    help="Show hipconv's version, the bundled CUDA and ROCm inventories, libclang's and Python's versions.",
)
@display_options
def cli(display: Display) -> None:
    """hipconv: translate CUDA sources to HIP.

    -q, -v and --color given here apply to the command (hipconv -q translate ...), as given after it."""


@cli.group()
def debug() -> None:
    """Tools for looking at what hipconv sees."""


@debug.command("tokens")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def debug_tokens(file: Path) -> None:
    """Dump the lossless token stream of FILE (kind, offsets, text)."""
    from hipconv.translate.lexer import lex
    from hipconv.translate.source import DecodeFailure, SourceFile

    try:
        source = SourceFile.from_bytes(str(file), file.read_bytes())
    except DecodeFailure as exc:
        raise HipconvError(f"{file}: {exc}") from None
    for token in lex(source.body).with_gaps():
        line, col = source.line_col(token.start)
        click.echo(f"{line}:{col}\t{token.kind.name.lower()}\t{token.text!r}")


@cli.command("codes")
@click.argument("code", required=False)
def codes(code: str | None) -> None:
    """The diagnostic codes and what they mean; with CODE (HC003, hc003), that one explained, with an example."""
    for line in code_table_lines() if code is None else explain_code(find_code(code)):
        click.echo(line)
