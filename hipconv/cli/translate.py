"""`hipconv translate` and `hipconv build`: options -> a request -> the command function -> an exit code."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from hipconv.cli.options import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNPORTED,
    backup_suffix,
    config_at,
    config_option,
    cuda_release_option,
    display_options,
    exclude_option,
    exclusion,
    fail_on_option,
    follow_symlinks_option,
    gitignore_option,
    grouped_options,
    no_compat_option,
    offload_archs,
    project_hip_path_option,
    rocm_version_option,
    rules_dir_option,
    single_source_option,
)
from hipconv.commands.translate import TranslateOutcome, TranslateRequest, translate_paths
from hipconv.config import fails_on, settings_from
from hipconv.console import Display
from hipconv.diagnostics import Severity
from hipconv.output import OutputMode
from hipconv.report import stderr_console
from hipconv.settings import KERNEL_LAUNCH_STYLES


def _translate_exit(outcome: TranslateOutcome, *, strict: bool, fail_on: str) -> int:
    """2: a file could not be read, translated or written; 1: --strict and unported CUDA APIs remain (whatever
    their severity), or a diagnostic at or above --fail-on (as scan decides it); else 0, even after `error:` lines."""
    if outcome.failed:
        return EXIT_ERROR
    summary = outcome.summary
    failing = any(n and fails_on(fail_on, Severity(severity)) for severity, n in summary.severities.items())
    return EXIT_UNPORTED if (strict and summary.unported_count) or failing else EXIT_OK


def _output_mode(*, dry_run: bool, show_diff: bool) -> OutputMode:
    """--dry-run, --diff (not both), or writing."""
    if dry_run and show_diff:
        raise click.UsageError("--dry-run and --diff exclude each other")
    return OutputMode.DRY_RUN if dry_run else OutputMode.DIFF if show_diff else OutputMode.WRITE


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Output file (one input) or directory (a tree).")
@click.option("--in-place", is_flag=True, help="Rewrite the inputs, keeping a backup of each changed file.")
@click.option(
    "--backup-suffix",
    default=".orig",
    show_default=True,
    callback=backup_suffix,
    help="Suffix of --in-place backups (an existing backup is never overwritten).",
)
@click.option("--dry-run", is_flag=True, help="Translate and report, write nothing.")
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff on stdout, write nothing.")
@click.option(
    "--kernel-launch",
    type=click.Choice(KERNEL_LAUNCH_STYLES),
    default=None,
    help="Keep <<<...>>> launches, or rewrite them to hipLaunchKernelGGL [default: chevron].",
)
@rocm_version_option(
    "Targeted ROCm release [default: the newest bundled inventory], or a range LOW..HIGH (5.2..7.2) of releases "
    "the output must build on (docs/release-ranges.md)."
)
@cuda_release_option()
@click.option("--experimental", is_flag=True, help="Also apply rules whose HIP side is experimental.")
@no_compat_option()
@project_hip_path_option()
@single_source_option(
    "Keep the tree CUDA: nvcc builds it as before, and hipcc builds the same files through a generated "
    "portability header (hipconv_portability.h) and guarded edits. See docs/single-source.md."
)
@click.option(
    "--annotate",
    is_flag=True,
    help="Write a `// hipconv: HCnnn ...` comment above each line that still holds unported CUDA.",
)
@exclude_option(
    "Skip paths (relative to the input tree) matching PATTERN, a .gitignore line (`*.pb.cu`, `vendor/`, "
    "`/gen/**`, `!keep.cu`); added to the configuration's."
)
@gitignore_option()
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes.")
@click.option(
    "--no-cache",
    is_flag=True,
    help="Neither use nor fill the cache of per-file results (also: HIPCONV_NO_CACHE=1; see docs/cache.md).",
)
@click.option("--stats", is_flag=True, help="Print a summary table on stderr.")
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the effort report (summary first, then every file): JSON, Markdown when FILE ends in .md, "
    "CSV (one row per finding) when it ends in .csv.",
)
@click.option("--strict", is_flag=True, help="Exit 1 when unported CUDA APIs remain.")
@fail_on_option("never")
@click.option("--force", is_flag=True, help="Overwrite an existing output file or a foreign output directory.")
@follow_symlinks_option()
@rules_dir_option("Extra directory of YAML rules.")
@click.option(
    "--offload-arch",
    default=None,
    metavar="LIST",
    help="AMD targets that replace CUDA architectures in build files [default: gfx90a].",
)
@config_option()
@display_options
@grouped_options("written_as", "annotate", "single_source")  # Settings fields, as they are named
def translate(
    paths: tuple[Path, ...],
    output: Path | None,
    in_place: bool,
    backup_suffix: str,
    dry_run: bool,
    show_diff: bool,
    kernel_launch: str | None,
    rocm_version: str | None,
    cuda_release: str | None,
    experimental: bool,
    no_compat: bool,
    project_hip_path: str | None,
    written_as: dict[str, bool],
    exclude: tuple[str, ...],
    respect_gitignore: bool | None,
    jobs: int,
    no_cache: bool,
    stats: bool,
    report_path: Path | None,
    strict: bool,
    fail_on: str | None,
    force: bool,
    follow_symlinks: bool,
    rules_dir: tuple[Path, ...],
    offload_arch: str | None,
    config_path: Path | None,
    display: Display,
) -> None:
    """Translate CUDA files or trees (PATHS) to HIP; build files (CMake, Makefiles) too."""
    config = config_at(config_path, display)
    mode = _output_mode(dry_run=dry_run, show_diff=show_diff)
    settings = settings_from(
        config,
        rocm_version,
        kernel_launch,
        experimental=experimental,
        jobs=jobs,
        no_compat=no_compat,
        cuda=cuda_release,
        offload_archs=offload_archs(offload_arch),
        project_hip_path=project_hip_path,
    )
    request = TranslateRequest(
        paths,
        replace(settings, annotate=written_as["annotate"], single_source=written_as["single_source"]),
        output=output,
        mode=mode,
        in_place=in_place,
        backup_suffix=backup_suffix,
        **exclusion(config, exclude, respect_gitignore),
        rules_dirs=config.rules_dirs + rules_dir,
        report_path=report_path,
        stats=stats,
        force=force,
        follow_symlinks=follow_symlinks,
        cache=not no_cache,
    )
    outcome = translate_paths(request, stderr_console(display), sys.stdout.buffer)
    raise SystemExit(_translate_exit(outcome, strict=strict, fail_on=fail_on or "never"))
