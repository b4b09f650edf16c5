"""`hipconv rules ...`: inspect and check the rule set."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from hipconv.cli.options import EXIT_UNPORTED, rules_dir_option
from hipconv.commands.rules import docs_text, rule_lines, show_lines, update_docs
from hipconv.errors import HipconvError
from hipconv.report import coverage_table, print_line, stderr_console
from hipconv.rules import load_ruleset
from hipconv.rules.coverage import coverage as library_coverage
from hipconv.rules.coverage import load_symbols
from hipconv.rules.schema import json_schema


@click.group()
def rules() -> None:
    """Inspect and check the rule set."""


@rules.command("validate")
@rules_dir_option("Extra directory of YAML rules.")
def rules_validate(rules_dir: tuple[Path, ...]) -> None:
    """Load every rule file and report all problems at once."""
    click.echo(f"{len(load_ruleset(rules_dir).rules)} rules OK")


@rules.command("list")
@click.option("--library", default=None, help="Only rules of this library (cudart, cuda_driver, device, ...).")
@click.option("--status", default=None, help="Only rules with this status.")
def rules_list(library: str | None, status: str | None) -> None:
    """One line per rule: id, CUDA spelling, HIP spelling, status, ROCm range."""
    for line in rule_lines(library, status):
        click.echo(line)


@rules.command("show")
@click.argument("name")
def rules_show(name: str) -> None:
    """Everything hipconv knows about a CUDA (or HIP) spelling or a rule id."""
    for line in show_lines(name):
        click.echo(line)


@rules.command("coverage")
@click.option("--library", default=None, help="Only this library (cublas, cusparse, cub, ...).")
def rules_coverage(library: str | None) -> None:
    """Per CUDA library: symbols, how many have a rule, translated or not, and twins with no rule."""
    rows = [r for r in library_coverage(load_ruleset(), load_symbols()) if library in (None, r.library)]
    if not rows:
        raise HipconvError(f"no coverage data for library {library!r}" if library else "no coverage data bundled")
    Console(highlight=False, width=120).print(coverage_table(rows))
    for row in rows:
        for name in row.twins_without_rule:
            click.echo(f"{row.library}: {name} has a HIP twin but no rule")


@rules.command("schema")
def rules_schema() -> None:
    """Print the JSON Schema of a rule file (rules/schema.json is this output), for editors."""
    click.echo(json.dumps(json_schema(), indent=2))


@rules.command("docs")
@click.option(
    "--write",
    "target",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Update the generated sections of this Markdown file (e.g. README.md) in place.",
)
@click.option(
    "--check",
    "check",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Exit 1 when the generated sections of this file are stale.",
)
def rules_docs(target: Path | None, check: Path | None) -> None:
    """Print (or update in a file) the generated Markdown: diagnostic codes and rule coverage."""
    if target is None and check is None:
        click.echo(docs_text(), nl=False)
        return
    path = check or target
    assert path is not None
    if not update_docs(path, check=check is not None) and check is not None:
        print_line(stderr_console(), f"{path} is stale: run `hipconv rules docs --write {path}`")
        raise SystemExit(EXIT_UNPORTED)
