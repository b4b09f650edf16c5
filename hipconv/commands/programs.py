"""`hipconv build --backend hip-cpu|nvidia`: translate the tree as `hipconv build` does, then link one
executable per program (hipconv/builder/programs.py) and, with --run, run each one.

hip-cpu: the tree is translated a second time into a staging copy, OUTPUT/.hipconv-cpu/src, for the HIP
release HIP-CPU implements (ROCm 5.2: the warp intrinsics without masks) with hipLaunchKernelGGL launches,
and with stage.py's adjustments; that copy is compiled with the host C++ compiler against HIP-CPU, so the
HIP tree the user keeps is never touched. nvidia: the kept tree itself is compiled with nvcc and HIP's
NVIDIA-platform headers, into OUTPUT/.hipconv-nvidia.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from rich.console import Console

from hipconv.builder.cpu_commands import Toolchain, cpu_toolchain, link_diagnostics, nvidia_toolchain
from hipconv.builder.missing import LibraryIndex, MissingHeaders, packages, tree_headers
from hipconv.builder.plan import (
    Group,
    Unit,
    UnitResult,
    compile_units,
    group_failures,
    plan_tree,
)
from hipconv.builder.programs import Program, ProgramResult, Ran, find_programs
from hipconv.builder.run_args import RunArgs, makefile_run_args, match_run_args, parse_run_args
from hipconv.builder.runs import OUTPUT_LIMIT_MB, run_captured
from hipconv.builder.stage import dynamic_shared
from hipconv.builder.toolchains import find_cpu_toolchain, find_nvidia_toolchain, no_gpu_reason
from hipconv.commands.translate import TranslateOutcome, TranslateRequest, translate_paths
from hipconv.errors import OutputUnwritable
from hipconv.file_kinds import COMPILED, FileKind, file_kind
from hipconv.output import check_outputs, open_under, write_under
from hipconv.report import progress_bar
from hipconv.resources import rocm_release
from hipconv.rules import load_ruleset
from hipconv.settings import KernelLaunch

OUTPUT_LIMIT = OUTPUT_LIMIT_MB << 20
CPU_RELEASE = "5.2"  # the ROCm release whose HIP HIP-CPU implements (it predates the *_sync builtins)
STAGE = {"hip-cpu": ".hipconv-cpu", "nvidia": ".hipconv-nvidia"}
LACKS = {  # what the compiler that failed lacks, for a HIP name hipconv wrote (plan.explain_name)
    "hip-cpu": "HIP-CPU, which implements only part of HIP, does not declare it",
    "nvidia": "HIP's NVIDIA-platform headers do not declare it",
}


@dataclass(frozen=True)
class ProgramsRequest:
    translation: TranslateRequest  # paths: the one source tree; output: the HIP tree
    backend: str  # hip-cpu | nvidia
    jobs: int
    environ: Mapping[str, str]
    hip_cpu: Path | None = None
    cxx: str | None = None
    nvcc: str | None = None
    hip_path: Path | None = None
    run: bool = False
    run_timeout: float = 600.0
    run_args: tuple[str, ...] = ()  # --run-args PROGRAM=ARGS values (builder/run_args.py)
    output_limit_mb: int = OUTPUT_LIMIT_MB  # --run-output-limit, per stream


@dataclass(frozen=True)
class ProgramsOutcome:
    translation: TranslateOutcome
    programs: tuple[ProgramResult, ...] = ()
    groups: tuple[Group, ...] = ()
    stage: Path | None = None

    @property
    def failed(self) -> bool:
        return any(p.failed for p in self.programs)


def build_programs(request: ProgramsRequest, console: Console, stdout: BinaryIO) -> ProgramsOutcome:
    """Find the toolchain (before anything is written), translate, stage, compile, link, run."""
    environ = request.environ
    given = parse_run_args(request.run_args)  # a bad --run-args stops here, before anything is written
    if request.backend == "hip-cpu":
        toolchain = cpu_toolchain(find_cpu_toolchain(request.hip_cpu, request.cxx, environ))
    else:
        toolchain = nvidia_toolchain(find_nvidia_toolchain(request.nvcc, request.hip_path, environ))
    output = request.translation.output
    assert output is not None
    translated = translate_paths(request.translation, console, stdout)
    if translated.failed:
        return ProgramsOutcome(translated)
    stage = output.resolve() / STAGE[request.backend]  # no link followed: check_outputs refuses one
    check_outputs(output, [stage / "src", stage / "obj", stage / "bin", stage / "pch"])
    tree = _stage(request.translation, stage / "src") if request.backend == "hip-cpu" else output.resolve()
    ruleset = load_ruleset(request.translation.rules_dirs)
    sources = _sources(tree)
    units, _ = plan_tree(sources, tree, "cxx", (), build_dir=stage / "obj", check_only=False, environ=environ)
    index = LibraryIndex.of(ruleset, packages()) if request.backend == "hip-cpu" else None
    programs = find_programs(tree, [u.source for u in units], index)
    chosen = match_run_args(given, [p.name for p in programs]) if request.run else {}
    try:
        check_outputs(output, [*(u.output for u in units if u.output), *(stage / "bin" / p.name for p in programs)])
        toolchain = toolchain.prepare(stage, environ)
        plain = {**environ, "LC_ALL": "C"}  # the compilers' messages in ASCII quotes, as the grouping reads them
        results, linked = _compile_and_link(toolchain, units, programs, stage, plain, request.jobs, console)
    except OSError as exc:
        raise OutputUnwritable(Path(os.fsdecode(exc.filename)) if exc.filename else stage, exc) from None
    groups = group_failures(results, ruleset, MissingHeaders(ruleset, tree=tree), LACKS[request.backend])
    done = [ProgramResult(p, linked.get(p.name)) for p in programs]
    if request.run:
        done = _run_all(done, tree, request, environ, chosen)
    return ProgramsOutcome(translated, tuple(done), tuple(groups), stage)


def _stage(translation: TranslateRequest, staged: Path) -> Path:
    """The tree translated again for HIP-CPU into `staged`, with stage.py's adjustments."""
    settings = replace(
        translation.settings, rocm=rocm_release(CPU_RELEASE), kernel_launch=KernelLaunch.parse("hip"), annotate=False
    )
    quiet = Console(file=io.StringIO())
    staged_request = replace(translation, settings=settings, output=staged, report_path=None, stats=False, force=True)
    translate_paths(staged_request, quiet, io.BytesIO())
    for path in sorted(staged.rglob("*")):
        if path.is_file() and not path.is_symlink() and file_kind(path.name) in COMPILED | {FileKind.HEADER}:
            body = path.read_bytes()
            adjusted = dynamic_shared(body)
            if adjusted != body:
                write_under(staged, path, adjusted)
    return staged.resolve()


def _sources(tree: Path) -> list[str]:
    """The tree's files (relative, `/`-separated), hidden folders (the stages) left out."""
    return sorted(rel for rels in tree_headers(tree).values() for rel in rels)


def _compile_and_link(
    toolchain: Toolchain,
    units: Sequence[Unit],
    programs: Sequence[Program],
    stage: Path,
    environ: Mapping[str, str],
    jobs: int,
    console: Console,
) -> tuple[list[UnitResult], dict[str, str]]:
    """Compile the TUs of the runnable programs, then link each program whose TUs all compiled: (every
    result, links included; program name -> its executable)."""
    runnable = [p for p in programs if not p.blocker]
    wanted = {source for p in runnable for source in p.sources}
    by_source = {u.source: toolchain.compile_unit(u) for u in units if u.source in wanted}
    results: list[UnitResult] = []
    with progress_bar(console, len(by_source), "compiling TUs", unit="TUs") as (advance, _):
        for result in compile_units(list(by_source.values()), environ, jobs=jobs):
            results.append(result)
            advance()
    compiled = {r.unit.source for r in results if r.ok}
    links = [
        toolchain.link_unit(p, [by_source[s] for s in p.sources], stage / "bin" / p.name)
        for p in runnable
        if all(s in compiled for s in p.sources)
    ]
    linked: dict[str, str] = {}
    for result in compile_units(links, environ, jobs=jobs):
        if result.ok:
            linked[result.unit.source] = str(result.unit.output)
        else:
            result = replace(result, diagnostics=result.diagnostics or link_diagnostics(result))
        results.append(result)
    return results, linked


def _run_all(
    done: list[ProgramResult],
    tree: Path,
    request: ProgramsRequest,
    environ: Mapping[str, str],
    chosen: Mapping[str, tuple[str, ...]],
) -> list[ProgramResult]:
    why_not = no_gpu_reason(environ) if request.backend == "nvidia" else None
    out = []
    for result in done:
        if result.binary is None:
            out.append(result)
        elif why_not:
            out.append(replace(result, not_run=why_not))
        else:
            cwd = tree / os.path.dirname(result.program.sources[0])
            name = result.program.name
            how = RunArgs(chosen[name], "--run-args") if name in chosen else makefile_run_args(tree, name)
            limit = request.output_limit_mb << 20
            ran = run_program(result.binary, cwd, request.run_timeout, args=how.args, limit=limit)
            out.append(replace(result, ran=replace(ran, args=how.args, args_from=how.source, args_problem=how.problem)))
    return out


def run_program(binary: str, cwd: Path, timeout: float, *, args: Sequence[str] = (), limit: int = OUTPUT_LIMIT) -> Ran:
    """Run one program with `args` in the folder of its main file (where it finds its data), its standard
    output saved to BINARY.out and its standard error to BINARY.err, each up to `limit` bytes
    (builder/runs.py); past `timeout` or `limit`, it is stopped with every process it started."""
    saved = binary + ".out"
    try:
        with (
            open_under(Path(binary).parent, Path(saved)) as out,
            open_under(Path(binary).parent, Path(binary + ".err")) as err,
        ):
            done = run_captured(
                [binary, *args], cwd=cwd, env=os.environ, out=out, err=err, timeout=timeout, limit=limit
            )
    except OSError as exc:
        return Ran(-1, saved, f"cannot run: {exc.strerror or exc}")
    return Ran(done.returncode, saved, done.note, cut=done.cut, ended=done.ended)
