"""`hipconv compare EXPECTED ACTUAL`: options -> hipconv.compare -> the differences and an exit code."""

from __future__ import annotations

import json
import sys

import click

from hipconv.cli.options import EXIT_OK, EXIT_UNPORTED, display_options
from hipconv.compare import (
    ATOL,
    DEFAULT_IGNORE,
    RTOL,
    Rules,
    compare_outputs,
    comparison_json,
    read_output,
    text_report,
)
from hipconv.console import Display
from hipconv.errors import ConfigError
from hipconv.report import print_line, stderr_console

EXIT_DIFFERENT = EXIT_UNPORTED  # 1: what the command looks for was found (here: a difference)


@click.command("compare")
@click.argument("expected", metavar="EXPECTED")
@click.argument("actual", metavar="ACTUAL")
@click.option(
    "--rtol",
    type=float,
    default=RTOL,
    show_default=True,
    help="Relative tolerance: numbers are equal when |actual - expected| <= atol + rtol * |expected| "
    "(numpy's allclose).",
)
@click.option("--atol", type=float, default=ATOL, show_default=True, help="Absolute tolerance (matters near zero).")
@click.option(
    "--ignore",
    "ignore",
    multiple=True,
    metavar="PATTERN",
    help="Also ignore lines in which this Python regular expression is found (case-insensitive; repeatable). "
    "Verdict words (PASS, FAILED, OK, ERROR, ...) in an ignored line are still compared.",
)
@click.option(
    "--no-default-ignore",
    is_flag=True,
    help=f"Compare timing and bandwidth lines too [default: ignore lines matching {DEFAULT_IGNORE}].",
)
@click.option(
    "--max-diffs",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="Show at most this many differences (0: all).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="text: a line per difference on stdout, the verdict on stderr; json: one object on stdout.",
)
@display_options
def compare_command(
    expected: str,
    actual: str,
    rtol: float,
    atol: float,
    ignore: tuple[str, ...],
    no_default_ignore: bool,
    max_diffs: int,
    fmt: str,
    display: Display,
) -> None:
    """Compare two program outputs (files, or - for stdin): numbers within tolerances, text exactly.

    Exit 0 when they are equal, 1 when they differ, 2 for bad input (a file that cannot be read, is
    binary or not UTF-8; a bad option value). Blank lines are not compared."""
    if expected == "-" and actual == "-":
        raise ConfigError("EXPECTED and ACTUAL cannot both be - (stdin)", hint="give one of them as a file")
    rules = Rules(rtol, atol, (() if no_default_ignore else (DEFAULT_IGNORE,)) + ignore)
    rules.ignored()  # a bad --ignore stops here, before anything is read
    stdin = sys.stdin.buffer
    outcome = compare_outputs(read_output(expected, stdin), read_output(actual, stdin), rules, names=(expected, actual))
    if fmt == "json":
        click.echo(json.dumps(comparison_json(outcome, max_diffs), indent=2))
    else:
        lines, summary = text_report(outcome, max_diffs)
        for line in lines:
            click.echo(line)
        if display.verbosity.chatty:
            print_line(stderr_console(display), summary)
    raise SystemExit(EXIT_OK if outcome.equal else EXIT_DIFFERENT)
