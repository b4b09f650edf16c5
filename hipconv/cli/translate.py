"""`hipconv translate` and `hipconv build`: options -> a request -> the command function -> an exit code."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import click

from hipconv.builder.report import print_groups, print_programs
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
    no_compat_option,
    offload_archs,
    rocm_version_option,
    rules_dir_option,
)
from hipconv.commands.build import BuildRequest, build_tree
from hipconv.commands.programs import ProgramsRequest, build_programs
from hipconv.commands.translate import TranslateOutcome, TranslateRequest, translate_paths
from hipconv.config import fails_on, settings_from
from hipconv.console import Display
from hipconv.diagnostics import Severity
from hipconv.output import OutputMode
from hipconv.report import stderr_console
from hipconv.settings import KERNEL_LAUNCH_STYLES

BACKENDS = ("hipcc", "hip-cpu", "nvidia")


def _translate_exit(outcome: TranslateOutcome, *, strict: bool, fail_on: str) -> int:
    """2: a file could not be read, translated or written; 1: --strict and unported CUDA APIs remain (whatever
    their severity), or a diagnostic at or above --fail-on (as scan decides it); else 0, even after `error:` lines."""
    if outcome.failed:
        return EXIT_ERROR
    summary = outcome.summary
    failing = any(n and fails_on(fail_on, Severity(severity)) for severity, n in summary.severities.items())
    return EXIT_UNPORTED if (strict and summary.unported_count) or failing else EXIT_OK


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
@rocm_version_option("Targeted ROCm release [default: the newest bundled inventory].")
@cuda_release_option()
@click.option("--experimental", is_flag=True, help="Also apply rules whose HIP side is experimental.")
@no_compat_option()
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
    annotate: bool,
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
    if dry_run and show_diff:
        raise click.UsageError("--dry-run and --diff exclude each other")
    config = config_at(config_path, display)
    mode = OutputMode.DRY_RUN if dry_run else OutputMode.DIFF if show_diff else OutputMode.WRITE
    settings = settings_from(
        config,
        rocm_version,
        kernel_launch,
        experimental=experimental,
        jobs=jobs,
        no_compat=no_compat,
        cuda=cuda_release,
        offload_archs=offload_archs(offload_arch),
    )
    request = TranslateRequest(
        paths,
        replace(settings, annotate=annotate),
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


@click.command()
@click.argument("src", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory of the translated tree.",
)
@click.option("--offload-arch", default=None, metavar="LIST", help="Comma-separated AMD targets [default: gfx90a].")
@click.option(
    "-p",
    "compile_db",
    type=click.Path(exists=True, path_type=Path),
    help="The CUDA build's compile_commands.json, or the directory holding it: its flags are mapped.",
)
@click.option(
    "--hipcc",
    "hipcc_path",
    default=None,
    metavar="PATH",
    help="hipcc to use [default: hipcc on PATH, else $ROCM_PATH/bin/hipcc].",
)
@click.option(
    "--hip-platform",
    type=click.Choice(["amd", "nvidia"]),
    default=None,
    help="HIP_PLATFORM for hipcc [default: $HIP_PLATFORM, else amd].",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=os.cpu_count() or 1,
    show_default="CPU count",
    help="Parallel hipcc processes.",
)
@click.option("--check-only", is_flag=True, help="Compile with -fsyntax-only: faster, no objects.")
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write one line per TU (exit status, first error, cause) and the causes: JSON (commands and "
    "diagnostics too), Markdown when FILE ends in .md.",
)
@click.option(
    "--build-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where objects go [default: OUTPUT/.hipconv-build].",
)
@click.option("--hipcc-arg", multiple=True, metavar="ARG", help="Extra argument for every hipcc command.")
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    default="hipcc",
    show_default=True,
    help="hipcc: compile every TU with hipcc. hip-cpu: link each program (a TU with main) against HIP-CPU "
    "with the host C++ compiler (64-lane wavefronts on the CPU). nvidia: link each program with nvcc and "
    "HIP's NVIDIA-platform headers. See docs/build-backends.md.",
)
@click.option(
    "--hip-cpu",
    "hip_cpu",
    type=click.Path(file_okay=False, path_type=Path),
    help="HIP-CPU checkout (the folder holding include/hip/hip_runtime.h), for --backend hip-cpu.",
)
@click.option("--cxx", metavar="PATH", help="C++17 compiler for --backend hip-cpu [default: $CXX, else g++, clang++].")
@click.option(
    "--nvcc",
    "nvcc_path",
    metavar="PATH",
    help="nvcc for --backend nvidia [default: $CUDA_PATH/bin/nvcc, else on PATH].",
)
@click.option(
    "--hip-path",
    type=click.Path(file_okay=False, path_type=Path),
    help="HIP install with NVIDIA-platform headers, for --backend nvidia "
    "[default: $HIP_PATH, $ROCM_PATH, /opt/rocm, /usr].",
)
@click.option(
    "--run", "run_programs", is_flag=True, help="Run each program built (hip-cpu, nvidia), saving its output."
)
@click.option(
    "--run-timeout",
    type=click.FloatRange(min=1),
    default=600,
    show_default=True,
    metavar="SECONDS",
    help="With --run: the time each program may take.",
)
@rocm_version_option("Targeted ROCm release [default: the release of hipcc (`hipcc --version`)].")
@no_compat_option()
@exclude_option("As for translate.")
@gitignore_option()
@rules_dir_option("As for translate.")
@click.option("--force", is_flag=True, help="As for translate.")
@display_options
def build(
    src: Path,
    output: Path,
    offload_arch: str | None,
    compile_db: Path | None,
    hipcc_path: str | None,
    hip_platform: str | None,
    jobs: int,
    check_only: bool,
    report_path: Path | None,
    build_dir: Path | None,
    hipcc_arg: tuple[str, ...],
    backend: str,
    hip_cpu: Path | None,
    cxx: str | None,
    nvcc_path: str | None,
    hip_path: Path | None,
    run_programs: bool,
    run_timeout: float,
    rocm_version: str | None,
    no_compat: bool,
    exclude: tuple[str, ...],
    respect_gitignore: bool | None,
    rules_dir: tuple[Path, ...],
    force: bool,
    display: Display,
) -> None:
    """Translate SRC into OUTPUT (incrementally); compile every TU with hipcc, or link (and --run) each program."""
    archs = offload_archs(offload_arch)
    config = config_at(None, display)
    chosen_by = "--rocm-version" if rocm_version else f"rocm-version in {config.path}" if config.rocm_version else None
    translation = TranslateRequest(
        (src,),
        settings_from(config, rocm_version, None, jobs=jobs, no_compat=no_compat, offload_archs=archs),
        output=output,
        **exclusion(config, exclude, respect_gitignore),
        rules_dirs=config.rules_dirs + rules_dir,
        force=force,
    )
    if backend != "hipcc":
        _check_backend_options(backend, compile_db=compile_db, check_only=check_only, report_path=report_path)
        tools = (hip_cpu, cxx, nvcc_path, hip_path)
        programs = ProgramsRequest(translation, backend, jobs, os.environ, *tools, run_programs, run_timeout)
        raise SystemExit(_build_programs(programs, display))
    request = BuildRequest(
        translation,
        jobs,
        os.environ,
        hipcc=hipcc_path,
        hip_platform=hip_platform,
        compile_db=compile_db,
        check_only=check_only,
        report_path=report_path,
        build_dir=build_dir,
        hipcc_args=hipcc_arg,
        rocm_chosen_by=chosen_by,
    )
    outcome = build_tree(request, stderr_console(display), sys.stdout.buffer)
    raise SystemExit(EXIT_ERROR if outcome.translation.failed else EXIT_UNPORTED if outcome.compile_failed else EXIT_OK)


def _check_backend_options(backend: str, **options: object) -> None:
    """-p, --check-only and --report are hipcc's: the other backends read the tree's own build files."""
    given = [name for name, value in options.items() if value]
    if given:
        names = {"compile_db": "-p", "check_only": "--check-only", "report_path": "--report"}
        raise click.UsageError(f"{', '.join(names[g] for g in given)}: only with --backend hipcc, not {backend}")


def _build_programs(request: ProgramsRequest, display: Display) -> int:
    """2: the translation failed; 1: a runnable program was not built, or (--run) exited non-zero; else 0."""
    console = stderr_console(display)
    outcome = build_programs(request, console, sys.stdout.buffer)
    if outcome.translation.failed:
        return EXIT_ERROR
    print_groups(console, outcome.groups, backend=request.backend)
    print_programs(console, outcome.programs, request.backend)
    return EXIT_UNPORTED if outcome.failed else EXIT_OK
