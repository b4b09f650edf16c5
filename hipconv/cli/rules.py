"""`hipconv rules ...`: inspect and check the rule set."""

from __future__ import annotations

import json
from pathlib import Path

import click

from hipconv.cli.options import (
    EXIT_UNPORTED,
    Decorator,
    chosen_display,
    rocm_version_option,
    rules_dir_option,
)
from hipconv.commands.rules import (
    coverage_rows,
    docs_text,
    rule_line,
    rule_record,
    select_rules,
    show,
    update_docs,
)
from hipconv.config import default_rocm
from hipconv.console import make_console
from hipconv.docs import PAGES
from hipconv.report import coverage_table, print_line, stderr_console
from hipconv.resources import rocm_release
from hipconv.rules import load_ruleset
from hipconv.rules.schema import json_schema


def json_option() -> Decorator:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout: every field of every rule.")


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
@click.option("--status", default=None, help="Only rules with this status (supported, deprecated, ...).")
@json_option()
@rules_dir_option("Extra directory of YAML rules.")
def rules_list(library: str | None, status: str | None, as_json: bool, rules_dir: tuple[Path, ...]) -> None:
    """One line per rule: id, CUDA spelling, HIP spelling, status, ROCm range (--json: every field)."""
    selected = select_rules(load_ruleset(rules_dir), library, status)
    if as_json:
        click.echo(json.dumps([rule_record(rule) for rule in selected], indent=2))
        return
    for rule in selected:
        click.echo(rule_line(rule))


@rules.command("show")
@click.argument("name")
@json_option()
@rules_dir_option("Extra directory of YAML rules.")
def rules_show(name: str, as_json: bool, rules_dir: tuple[Path, ...]) -> None:
    """Everything hipconv knows about a CUDA (or HIP) spelling or a rule id."""
    shown = show(load_ruleset(rules_dir), name)
    if as_json:
        click.echo(json.dumps(shown.record(), indent=2))
        return
    for line in shown.lines():
        click.echo(line)


@rules.command("coverage")
@click.option("--library", default=None, help="Only this library (cublas, cusparse, cub, ...).")
@rocm_version_option("The ROCm release to count for [default: the newest bundled inventory].")
def rules_coverage(library: str | None, rocm_version: str | None) -> None:
    """Per CUDA library: symbols, how many have a rule, translated or not for the ROCm release, and twins with
    no rule."""
    rocm = rocm_release(default_rocm() if rocm_version is None else rocm_version)
    rows = coverage_rows(library, rocm)
    make_console(chosen_display(), stderr=False, width=120).print(coverage_table(rows, f"ROCm {rocm}"))
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
    type=click.Path(path_type=Path),
    help=f"Write the generated pages ({', '.join(PAGES)}) whole into this folder (docs), where they are stale.",
)
@click.option(
    "--check",
    "check",
    type=click.Path(path_type=Path),
    help="Exit 1, naming them, when generated pages in this folder (docs) are missing or stale; write nothing.",
)
def rules_docs(target: Path | None, check: Path | None) -> None:
    """Print (or write into docs/) the generated pages: diagnostic codes, rule coverage, nvcc flags, cuDNN."""
    if target is None and check is None:
        click.echo(docs_text(), nl=False)
        return
    folder = check or target
    assert folder is not None
    stale = update_docs(folder, check=check is not None)
    if stale and check is not None:
        for path in stale:
            print_line(stderr_console(), f"{path} is stale: run `hipconv rules docs --write {folder}`")
        raise SystemExit(EXIT_UNPORTED)
