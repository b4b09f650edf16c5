"""The build command: translate a tree, then compile every TU with hipcc, or link (and run) each program."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from hipconv.builder.report import print_groups, print_programs
from hipconv.builder.runs import OUTPUT_LIMIT_MB
from hipconv.cli.options import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNPORTED,
    config_at,
    display_options,
    exclude_option,
    exclusion,
    gitignore_option,
    grouped_options,
    no_compat_option,
    offload_archs,
    rocm_version_option,
    rules_dir_option,
    single_source_option,
)
from hipconv.commands.build import BuildRequest, build_tree
from hipconv.commands.programs import ProgramsRequest, build_programs
from hipconv.commands.translate import TranslateRequest
from hipconv.config import settings_from
from hipconv.console import Display
from hipconv.report import stderr_console

BACKENDS = ("hipcc", "hip-cpu", "nvidia")


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
@click.option("--hipcc-arg", "hipcc_args", multiple=True, metavar="ARG", help="Extra argument for every hipcc command.")
@click.option(
    "-D",
    "cache_entries",
    multiple=True,
    metavar="NAME=VALUE",
    help="A CMake cache entry, as `cmake -D` takes it (NAME:TYPE=VALUE too): wins over option() and "
    "set(... CACHE) defaults, for the static reader and --cmake configure alike.",
)
@click.option(
    "--cmake",
    "cmake_mode",
    type=click.Choice(["static", "configure"]),
    default="static",
    show_default=True,
    help="static: read the CMake project without running anything. configure: configure the translated tree "
    "with CMake's HIP language (this runs the project's CMake code: only for a tree you trust) and compile "
    "the TUs of its compile_commands.json, with their flags.",
)
@click.option("--cmake-arg", multiple=True, metavar="ARG", help="With --cmake configure: an extra argument for cmake.")
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
    metavar="PATH",
    help="nvcc for --backend nvidia [default: $CUDA_PATH/bin/nvcc, else on PATH].",
)
@click.option(
    "--hip-path",
    type=click.Path(file_okay=False, path_type=Path),
    help="HIP install with NVIDIA-platform headers, for --backend nvidia "
    "[default: $HIP_PATH, $ROCM_PATH, /opt/rocm, /usr].",
)
@click.option("--run", is_flag=True, help="Run each program built (hip-cpu, nvidia), saving its output.")
@click.option(
    "--run-timeout",
    type=click.FloatRange(min=1),
    default=600,
    show_default=True,
    metavar="SECONDS",
    help="With --run: the time each program may take.",
)
@click.option(
    "--run-args",
    "run_args",
    multiple=True,
    metavar="PROGRAM=ARGS",
    help="With --run: the arguments of one program (its name as build prints it, or its last part), split as "
    "a shell splits words; repeatable. Without it, those of the Makefile's `run` target when it runs the program.",
)
@click.option(
    "--run-output-limit",
    "output_limit_mb",
    type=click.IntRange(min=1),
    default=OUTPUT_LIMIT_MB,
    show_default=True,
    metavar="MIB",
    help="With --run: the most a program may print on stdout, and on stderr; past it, it is stopped.",
)
@rocm_version_option("Targeted ROCm release [default: the release of hipcc (`hipcc --version`)].")
@no_compat_option()
@single_source_option("As for translate: the tree stays CUDA, and the HIP build sits beside the CUDA one.")
@exclude_option("As for translate.")
@gitignore_option()
@rules_dir_option("As for translate.")
@click.option("--force", is_flag=True, help="As for translate.")
@display_options
@grouped_options(
    "hipcc_options", "hipcc", "hip_platform", "compile_db", "check_only", "report_path", "build_dir", "hipcc_args"
)
@grouped_options(
    "program_options", "hip_cpu", "cxx", "nvcc", "hip_path", "run", "run_timeout", "run_args", "output_limit_mb"
)
def build(
    src: Path,
    output: Path,
    offload_arch: str | None,
    jobs: int,
    cache_entries: tuple[str, ...],
    cmake_mode: str,
    cmake_arg: tuple[str, ...],
    backend: str,
    rocm_version: str | None,
    no_compat: bool,
    single_source: bool,
    exclude: tuple[str, ...],
    respect_gitignore: bool | None,
    rules_dir: tuple[Path, ...],
    force: bool,
    hipcc_options: dict[str, Any],
    program_options: dict[str, Any],
    display: Display,
) -> None:
    """Translate SRC into OUTPUT (incrementally); compile every TU with hipcc, or link (and --run) each program."""
    archs = offload_archs(offload_arch)
    config = config_at(None, display)
    chosen_by = "--rocm-version" if rocm_version else f"rocm-version in {config.path}" if config.rocm_version else None
    translation = TranslateRequest(
        (src,),
        replace(
            settings_from(config, rocm_version, None, jobs=jobs, no_compat=no_compat, offload_archs=archs),
            single_source=single_source,
        ),
        output=output,
        **exclusion(config, exclude, respect_gitignore),
        rules_dirs=config.rules_dirs + rules_dir,
        force=force,
    )
    configure = cmake_mode == "configure"
    cache, environ = _build_side(_cache_entries(cache_entries), single_source=single_source)
    if hipcc_options["compile_db"] is not None and configure:
        raise click.UsageError("-p and --cmake configure: give one (both list the TUs and their flags)")
    if backend != "hipcc":
        # the user's own -D entries, not single source's GPU_BACKEND=HIP
        _check_backend_options(backend, {**hipcc_options, "cache": cache_entries, "configure": configure})
        raise SystemExit(
            _build_programs(ProgramsRequest(translation, backend, jobs, environ, **program_options), display)
        )
    request = BuildRequest(
        translation,
        jobs,
        environ,
        **hipcc_options,
        rocm_chosen_by=chosen_by,
        cache=cache,
        configure=configure,
        cmake_args=cmake_arg,
    )
    outcome = build_tree(request, stderr_console(display), sys.stdout.buffer)
    raise SystemExit(EXIT_ERROR if outcome.translation.failed else EXIT_UNPORTED if outcome.compile_failed else EXIT_OK)


def _build_side(
    cache: tuple[tuple[str, str], ...], *, single_source: bool
) -> tuple[tuple[tuple[str, str], ...], Mapping[str, str]]:
    """The cache entries and environment the build files are read with: with --single-source, their HIP side
    (cmake -DGPU_BACKEND=HIP, make GPU_BACKEND=HIP)."""
    if not single_source:
        return cache, os.environ
    from hipconv.buildfiles.backends import BACKEND_VARIABLE

    return ((BACKEND_VARIABLE, "HIP"), *cache), {**os.environ, BACKEND_VARIABLE: "HIP"}


def _check_backend_options(backend: str, options: Mapping[str, object]) -> None:
    """-p, --check-only, --report, -D and --cmake configure are hipcc's: the other backends read the tree's own
    build files."""
    names = {
        "compile_db": "-p",
        "check_only": "--check-only",
        "report_path": "--report",
        "cache": "-D",
        "configure": "--cmake configure",
    }
    given = [flag for name, flag in names.items() if options[name]]
    if given:
        raise click.UsageError(f"{', '.join(given)}: only with --backend hipcc, not {backend}")


def _cache_entries(entries: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """-D NAME=VALUE (or NAME:TYPE=VALUE, as cmake takes it) -> (NAME, VALUE) pairs, the last of a name winning."""
    found: dict[str, str] = {}
    for entry in entries:
        name, eq, value = entry.partition("=")
        name = name.split(":", 1)[0].strip()
        if not eq or not name:
            raise click.BadParameter(f"{entry!r}: give NAME=VALUE, as to cmake -D", param_hint="-D")
        found[name] = value
    return tuple(found.items())


def _build_programs(request: ProgramsRequest, display: Display) -> int:
    """2: the translation failed; 1: a runnable program was not built, or (--run) exited non-zero; else 0."""
    console = stderr_console(display)
    outcome = build_programs(request, console, sys.stdout.buffer)
    if outcome.translation.failed:
        return EXIT_ERROR
    print_groups(console, outcome.groups, backend=request.backend)
    print_programs(console, outcome.programs, request.backend)
    return EXIT_UNPORTED if outcome.failed else EXIT_OK
