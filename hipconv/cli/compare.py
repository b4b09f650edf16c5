"""`hipconv compare EXPECTED ACTUAL`: options -> hipconv.compare -> the differences and an exit code."""

from __future__ import annotations

import json
import sys

import click

from hipconv.cli.options import EXIT_OK, EXIT_UNPORTED, display_options
from hipconv.compare import (
    ATOL,
    DEFAULT_IGNORE,
    JSON_VERSION,
    MAX_INPUT_MB,
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
from hipconv.verdicts import read_verdicts, verdicts_json, verdicts_report

EXIT_DIFFERENT = EXIT_UNPORTED  # 1: what the command looks for was found (here: a difference)


@click.command("compare")
@click.argument("expected", metavar="EXPECTED")
@click.argument("actual", metavar="[ACTUAL]", required=False)
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
@click.option(
    "--verdicts",
    is_flag=True,
    help="Read one output (EXPECTED alone) of a program that checks itself: exit 0 when it has a verdict line "
    "(PASS, Test passed, ...) and none says it failed, else 1.",
)
@click.option(
    "--max-input",
    type=click.IntRange(min=1),
    default=MAX_INPUT_MB,
    show_default=True,
    metavar="MIB",
    help="The largest output read; a larger one stops compare (exit 2) before anything is compared.",
)
@display_options
def compare_command(
    expected: str,
    actual: str | None,
    rtol: float,
    atol: float,
    ignore: tuple[str, ...],
    no_default_ignore: bool,
    max_diffs: int,
    fmt: str,
    verdicts: bool,
    max_input: int,
    display: Display,
) -> None:
    """Compare two program outputs (files, or - for stdin): numbers within tolerances, text exactly.

    Exit 0 when they are equal, 1 when they differ, 2 for bad input (a file that cannot be read, is
    binary, not UTF-8 or larger than --max-input; a bad option value). Blank lines are not compared.
    With --verdicts, one output: its verdict lines decide."""
    stdin = sys.stdin.buffer
    if verdicts:
        if actual is not None:
            raise ConfigError(
                "--verdicts reads one output", hint="give only the program's output: compare --verdicts OUT"
            )
        _verdicts(expected, read_output(expected, stdin, max_mb=max_input), fmt, display)
    if actual is None:
        raise ConfigError(
            "compare needs EXPECTED and ACTUAL", hint="or --verdicts OUT for a program that checks itself"
        )
    if expected == "-" and actual == "-":
        raise ConfigError("EXPECTED and ACTUAL cannot both be - (stdin)", hint="give one of them as a file")
    rules = Rules(rtol, atol, (() if no_default_ignore else (DEFAULT_IGNORE,)) + ignore)
    rules.ignored()  # a bad --ignore stops here, before anything is read
    texts = read_output(expected, stdin, max_mb=max_input), read_output(actual, stdin, max_mb=max_input)
    outcome = compare_outputs(*texts, rules, names=(expected, actual))
    if fmt == "json":
        click.echo(json.dumps(comparison_json(outcome, max_diffs), indent=2))
    else:
        lines, summary = text_report(outcome, max_diffs)
        for line in lines:
            click.echo(line)
        if display.verbosity.chatty:
            print_line(stderr_console(display), summary)
    raise SystemExit(EXIT_OK if outcome.equal else EXIT_DIFFERENT)


def _verdicts(name: str, text: str, fmt: str, display: Display) -> None:
    """Print the verdict lines of one output and exit 0 (passed) or 1."""
    found = read_verdicts(name, text)
    if fmt == "json":
        click.echo(json.dumps(verdicts_json(found, JSON_VERSION), indent=2))
    else:
        for line in verdicts_report(found):
            click.echo(line)
        if display.verbosity.chatty:
            print_line(stderr_console(display), found.summary)
    raise SystemExit(EXIT_OK if found.passed else EXIT_DIFFERENT)
