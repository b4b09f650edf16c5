"""`hipconv translate`: discover -> run -> write -> report, as one function."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from rich.console import Console

from hipconv import __version__
from hipconv.buildfiles.nvcc_flags import DEFAULT_OFFLOAD_ARCHS
from hipconv.discover import OUTPUT_MARKER, plan
from hipconv.output import OutputMode, Writer, write_atomic
from hipconv.pipeline import run
from hipconv.report import Summary, json_report, print_result, progress_bar, stats_table
from hipconv.rules import load_ruleset
from hipconv.settings import Settings
from hipconv.translate.templates import render


@dataclass(frozen=True)
class TranslateRequest:
    paths: tuple[Path, ...]
    settings: Settings
    output: Path | None = None
    mode: OutputMode = OutputMode.WRITE
    in_place: bool = False
    backup_suffix: str = ".orig"
    excludes: tuple[str, ...] = ()
    rules_dirs: tuple[Path, ...] = ()
    offload_archs: tuple[str, ...] = DEFAULT_OFFLOAD_ARCHS
    report_path: Path | None = None
    stats: bool = False
    force: bool = False


@dataclass(frozen=True)
class TranslateOutcome:
    summary: Summary
    write_errors: int  # outputs that could not be written (the run was interrupted counts as one)

    @property
    def failed(self) -> bool:
        """A file could not be read, translated or written."""
        return bool(self.summary.failed or self.write_errors)


def translate_paths(request: TranslateRequest, console: Console, stdout: BinaryIO) -> TranslateOutcome:
    """Translate the request's files or trees; diagnostics and progress go to `console` as they come."""
    writes = request.mode is OutputMode.WRITE
    the_plan = plan(
        list(request.paths),
        request.output,
        in_place=request.in_place,
        excludes=request.excludes,
        writes=writes,
        force=request.force,
    )
    table = load_ruleset(request.rules_dirs).table(request.settings)
    summary = Summary(keep_files=request.report_path is not None)
    writer = Writer(the_plan, request.mode, request.in_place, request.backup_suffix, stdout)
    write_errors = 0
    for problem in the_plan.problems:
        summary.add(problem)
        print_result(console, problem)
    try:
        with progress_bar(console, len(the_plan.jobs), "translating", shown=the_plan.tree) as (advance, out):
            for result in run(the_plan.jobs, table, request.settings, offload_archs=request.offload_archs):
                written = writer.emit(result)
                write_errors += written is not result
                summary.add(written)
                print_result(out, written)
                advance()
    except KeyboardInterrupt:
        console.print("interrupted: the report covers the files finished so far", style="bold red")
        write_errors += 1
    if the_plan.output_root is not None and writes:
        marker = {"written_by": f"hipconv {__version__}", "rocm": str(request.settings.rocm)}
        write_atomic(the_plan.output_root / OUTPUT_MARKER, json.dumps(marker).encode() + b"\n")
    if request.report_path is not None:
        _write_report(request.report_path, summary, request.settings)
    if request.stats:
        console.print(stats_table(summary))
    return TranslateOutcome(summary, write_errors)


def _write_report(path: Path, summary: Summary, settings: Settings) -> None:
    data = json_report(summary, settings)
    text = render("report/summary.md.j2", report=data) if path.suffix == ".md" else json.dumps(data, indent=2) + "\n"
    write_atomic(path, text.encode())
