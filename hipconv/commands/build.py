"""`hipconv build`: ask hipcc its release (the target), translate the tree (incrementally), then compile every
translation unit with hipcc."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

from rich.console import Console

from hipconv.atomic import write_named
from hipconv.builder.cmake_configure import configure, hipcc_says
from hipconv.builder.hipcc import find_hipcc, hip_environment, hip_version
from hipconv.builder.missing import MissingHeaders
from hipconv.builder.plan import (
    Group,
    Unit,
    UnitResult,
    compile_commands,
    compile_units,
    group_failures,
    load_compile_commands,
    plan_compile_commands,
    plan_tree,
    read_tree_flags,
)
from hipconv.builder.report import (
    build_json_report,
    build_markdown_report,
    build_summary_table,
    print_flag_notes,
    print_groups,
    print_target,
)
from hipconv.builder.target import Target, choose_target
from hipconv.commands.translate import TranslateOutcome, TranslateRequest, translate_paths
from hipconv.console import verbosity
from hipconv.diagnostics import Severity
from hipconv.discover import plan
from hipconv.errors import OutputUnwritable
from hipconv.output import check_outputs, write_under
from hipconv.report import print_line, progress_bar, text_bytes
from hipconv.resources import hip_releases
from hipconv.rules import load_ruleset


@dataclass(frozen=True)
class BuildRequest:
    translation: TranslateRequest  # paths: the one source tree; output: the HIP tree
    jobs: int
    environ: Mapping[str, str]
    hipcc: str | None = None  # --hipcc
    hip_platform: str | None = None
    compile_db: Path | None = None  # -p
    check_only: bool = False
    report_path: Path | None = None
    build_dir: Path | None = None
    hipcc_args: tuple[str, ...] = ()
    rocm_chosen_by: str | None = None  # what set translation.settings.rocm (--rocm-version, a config file)
    cache: tuple[tuple[str, str], ...] = ()  # -D NAME=VALUE: CMake cache entries
    configure: bool = False  # --cmake configure: CMake lists the TUs and their flags
    cmake_args: tuple[str, ...] = ()  # --cmake-arg


@dataclass(frozen=True)
class BuildOutcome:
    translation: TranslateOutcome
    results: tuple[UnitResult, ...] = ()

    @property
    def compile_failed(self) -> bool:
        return any(not r.ok for r in self.results)


def _tree_files(translation: TranslateRequest, output: Path) -> list[str]:
    """The files of the translated tree (relative to `output`), walked as the translation walked them."""
    tree = plan(
        list(translation.paths),
        output,
        in_place=False,
        excludes=translation.excludes,
        respect_gitignore=translation.respect_gitignore,
        writes=False,
        force=True,
    )
    return [os.path.relpath(dest, output) for dest in tree.destinations.values() if dest is not None]


def build_tree(request: BuildRequest, console: Console, stdout: BinaryIO) -> BuildOutcome:
    """Target hipcc's ROCm release, translate, then compile; the translation's failures stop the build before
    any TU is compiled."""
    src, output = request.translation.paths[0], request.translation.output
    assert output is not None
    hipcc = find_hipcc(request.hipcc, request.environ)  # before anything is written
    env = hip_environment(request.environ, request.hip_platform)
    entries = load_compile_commands(request.compile_db) if request.compile_db is not None else None
    installed = hip_version(hipcc, env, cwd=str(src))
    settings = request.translation.settings
    target = choose_target(installed, settings.rocm, chosen_by=request.rocm_chosen_by, releases=hip_releases())
    print_target(console, target)
    translation = replace(request.translation, settings=replace(settings, rocm=target.rocm))
    translated = translate_paths(translation, console, stdout)
    if translated.failed:
        return BuildOutcome(translated)
    archs = request.translation.settings.offload_archs
    default = output.resolve() / ".hipconv-build"  # a link planted there is not followed: _compile refuses it
    objects = request.build_dir.resolve() if request.build_dir else default
    if entries is None and request.configure:
        configured = configure(
            output.resolve(),
            objects / "cmake",
            archs=archs,
            cache=dict(request.cache),
            environ=env,
            hipcc_version=hipcc_says(hipcc, env),
            extra=request.cmake_args,
        )
        print_line(console, configured.message)
        entries = configured.entries
        src = src if entries is None else output  # CMake's database names the translated files
    units, skipped = _plan(request, entries, src, output, hipcc, objects, console)
    for line in skipped if verbosity(console).shows(Severity.NOTE) else ():
        print_line(console, f"note: {line}")
    print_flag_notes(console, units)
    started = time.monotonic()
    results = _compile(units, output, env, request.jobs, console)
    seconds = time.monotonic() - started
    ruleset = load_ruleset(request.translation.rules_dirs)
    headers = MissingHeaders(ruleset, tree=output.resolve(), target=target.rocm, installed=target.hip_version)
    groups = group_failures(results, ruleset, headers)
    print_groups(console, groups)
    if verbosity(console).chatty:
        console.print(build_summary_table(results, seconds, check_only=request.check_only))
    if request.report_path is not None:
        _write_report(request, results, groups, hipcc=hipcc, target=target, seconds=seconds, skipped=skipped)
    return BuildOutcome(translated, tuple(results))


def _plan(
    request: BuildRequest,
    entries: list[dict[str, Any]] | None,
    src: Path,
    output: Path,
    hipcc: str,
    objects: Path,
    console: Console,
) -> tuple[list[Unit], list[str]]:
    """The units: a compilation database's entries (-p, or CMake's with --cmake configure), else the tree's
    build files read statically (what they could not evaluate, or cut, is printed)."""
    archs = request.translation.settings.offload_archs
    if entries is not None:
        return plan_compile_commands(
            entries, src, output, hipcc, archs, build_dir=objects, check_only=request.check_only,
            extra=request.hipcc_args,
        )  # fmt: skip
    files = _tree_files(request.translation, output)
    found = read_tree_flags(
        files, output.resolve(), source_root=src, cache=dict(request.cache), environ=request.environ
    )  # the environment make reads: with --single-source, GPU_BACKEND=HIP picks each Makefile's HIP side
    for note in found.notes if verbosity(console).shows(Severity.WARNING) else ():
        print_line(console, note)
    return plan_tree(
        files, output.resolve(), hipcc, archs, build_dir=objects, check_only=request.check_only,
        extra=request.hipcc_args, tree_flags=found,
    )  # fmt: skip


def _compile(units: list[Unit], output: Path, env: Mapping[str, str], jobs: int, console: Console) -> list[UnitResult]:
    """compile_commands.json written into output, then the units compiled; a database or a directory of the
    objects that cannot be written stops the build (OutputUnwritable)."""
    database = output / "compile_commands.json"
    results = []
    try:
        write_under(output, database, (json.dumps(compile_commands(units), indent=2) + "\n").encode())
        check_outputs(output, [u.output for u in units if u.output])  # the compiler writes them: no link on the way
        with progress_bar(console, len(units), "compiling TUs", unit="TUs") as (advance, _):
            for result in compile_units(units, env, jobs=jobs):  # makes the directories of the objects first
                results.append(result)
                advance()
    except OSError as exc:
        raise OutputUnwritable(Path(os.fsdecode(exc.filename)) if exc.filename else database, exc) from None
    return results


def _write_report(
    request: BuildRequest,
    results: list[UnitResult],
    groups: list[Group],
    *,
    hipcc: str,
    target: Target,
    seconds: float,
    skipped: list[str],
) -> None:
    assert request.report_path is not None
    report = build_json_report(
        results,
        groups,
        hipcc=hipcc,
        hip_version=target.hip_version,
        rocm=str(target.rocm),
        archs=request.translation.settings.offload_archs,
        check_only=request.check_only,
        seconds=seconds,
        skipped=skipped,
    )
    if request.report_path.suffix.lower() == ".md":
        data = text_bytes(build_markdown_report(report, results, groups))
    else:
        data = (json.dumps(report, indent=2) + "\n").encode()
    write_named(request.report_path, data, option="--report")
