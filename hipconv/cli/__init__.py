"""The command line: click options -> a request -> a command function -> an exit code.

The only package that chooses an exit code. Exit codes: 0 done; 1 unported APIs remain and
--strict was given (scan: findings at --fail-on; build: a TU does not compile); 2 usage,
configuration or I/O errors (including any file that could not be read or translated).
One module per command family: translate (and build), scan, rules; options.py holds what they share.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from hipconv import __version__
from hipconv.cli.options import EXIT_ERROR, EXIT_OK
from hipconv.cli.rules import rules
from hipconv.cli.scan import scan
from hipconv.cli.translate import build, translate
from hipconv.diagnostics import CODES
from hipconv.errors import HipconvError
from hipconv.report import print_line, stderr_console


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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: returns the exit code (the console script raises SystemExit with it)."""
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="hipconv", standalone_mode=False)
    except HipconvError as exc:
        console = stderr_console()
        print_line(console, f"error: {exc}")
        if exc.hint:
            print_line(console, f"hint: {exc.hint}")
        return EXIT_ERROR
    except click.exceptions.Abort:
        stderr_console().print("aborted", markup=False)
        return EXIT_ERROR
    except click.ClickException as exc:
        exc.show()
        return EXIT_ERROR
    except SystemExit as exc:
        return int(exc.code or 0)
    except BrokenPipeError:
        sys.stderr.close()
        return EXIT_ERROR
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
