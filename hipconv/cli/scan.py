"""`hipconv scan`: options -> a request -> the command function -> an exit code."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import cast

import click

from hipconv.cli.options import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNPORTED,
    config_at,
    config_option,
    cuda_release_option,
    display_options,
    exclude_option,
    exclusion,
    fail_on_option,
    follow_symlinks_option,
    gitignore_option,
    no_compat_option,
    rocm_version_option,
    rules_dir_option,
    single_source_option,
)
from hipconv.commands.scan import ScanFormat, ScanRequest, scan_paths
from hipconv.config import FailOn, settings_from
from hipconv.console import Display
from hipconv.diagnostics import CODES
from hipconv.errors import HipconvError
from hipconv.report import stderr_console, stdout_console
from hipconv.resources import docs_url
from hipconv.scan.formats import FORMATS
from hipconv.settings import KERNEL_LAUNCH_STYLES


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: clang-style lines on stdout, the summary on stderr; json, sarif, github: on stdout (or --output).",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to FILE.")
@fail_on_option("warning, or fail-on in the configuration")
@rocm_version_option("Targeted ROCm release [default: the newest bundled].")
@cuda_release_option()
@click.option("--kernel-launch", type=click.Choice(KERNEL_LAUNCH_STYLES), default=None, help="As for translate.")
@exclude_option(
    "Skip paths matching PATTERN, a .gitignore line (`*.pb.cu`, `vendor/`, `/gen/**`, `!keep.cu`); added to the "
    "configuration's."
)
@gitignore_option()
@click.option("--disable", multiple=True, metavar="CODE", help="Do not report CODE (added to the configuration's).")
@rules_dir_option("Extra directory of YAML rules.")
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Report (and fail on) only findings this baseline does not record [default: baseline in the configuration].",
)
@click.option(
    "--write-baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Record today's findings in FILE and exit 0.",
)
@follow_symlinks_option()
@no_compat_option()
@single_source_option(
    "Check a tree written by `translate --single-source` for drift: CUDA names its portability header lacks, "
    "guarded edits whose CUDA side changed since they were generated."
)
@config_option()
@display_options
def scan(
    paths: tuple[Path, ...],
    fmt: str,
    output: Path | None,
    fail_on: str | None,
    rocm_version: str | None,
    cuda_release: str | None,
    kernel_launch: str | None,
    exclude: tuple[str, ...],
    respect_gitignore: bool | None,
    disable: tuple[str, ...],
    rules_dir: tuple[Path, ...],
    baseline_path: Path | None,
    write_baseline: Path | None,
    follow_symlinks: bool,
    no_compat: bool,
    single_source: bool,
    config_path: Path | None,
    display: Display,
) -> None:
    """Report what in PATHS would not port to HIP; write nothing. Exit 1 on findings (see --fail-on)."""
    config = config_at(config_path, display)
    unknown = [c for c in disable if c not in CODES]
    if unknown:
        raise HipconvError(f"--disable: unknown code {', '.join(unknown)}", hint="`hipconv codes` lists them")
    request = ScanRequest(
        paths,
        replace(
            settings_from(config, rocm_version, kernel_launch, no_compat=no_compat, cuda=cuda_release),
            single_source=single_source,
        ),
        fail_on=cast(FailOn, fail_on or config.fail_on or "warning"),
        fmt=cast(ScanFormat, fmt),
        output=output,
        **exclusion(config, exclude, respect_gitignore),
        disabled=frozenset(config.disable + disable),
        rules_dirs=config.rules_dirs + rules_dir,
        baseline=baseline_path or config.baseline,
        write_baseline=write_baseline,
        follow_symlinks=follow_symlinks,
        docs_url=docs_url(config.docs_url),
        rocm_given=rocm_version is not None or config.rocm_version is not None,
    )
    outcome, stdout = scan_paths(request, stderr_console(display), stdout_console(display))
    if stdout:
        click.echo(stdout, nl=False)
    if outcome.failed:
        raise SystemExit(EXIT_ERROR)
    raise SystemExit(EXIT_UNPORTED if outcome.failing else EXIT_OK)
