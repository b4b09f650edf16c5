"""The click group: every command (the families from their modules, and the small ones here)."""

from __future__ import annotations

from pathlib import Path

import click

from hipconv import __version__
from hipconv.cli.rules import rules
from hipconv.cli.scan import scan
from hipconv.cli.translate import build, translate
from hipconv.diagnostics import CODES
from hipconv.errors import HipconvError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hipconv")
def cli() -> None:
    """hipconv: translate CUDA sources to HIP."""


for command in (translate, build, scan, rules):
    cli.add_command(command)


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
def codes() -> None:
    """The diagnostic codes and what they mean."""
    for code in CODES.values():
        click.echo(f"{code.code}\t{code.severity.value}\t{code.title}")
