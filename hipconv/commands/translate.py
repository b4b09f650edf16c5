"""`hipconv translate`: discover -> run -> write -> report, as one function that sequences the stages
(hipconv.discover, hipconv.pipeline, hipconv.output)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from rich.console import Console

from hipconv.discover import plan
from hipconv.filecache import default_cache
from hipconv.interrupts import Interrupted, deferred
from hipconv.output import (
    OutputMode,
    Writer,
    check_generated_headers,
    prepare_output,
    write_compat_header,
    write_report,
)
from hipconv.pipeline import lazy_table, run
from hipconv.report import print_done, print_line, print_result, progress_bar, stats_table
from hipconv.results import FileResult
from hipconv.run_context import range_macros
from hipconv.settings import Settings
from hipconv.single_source import write_portability_header
from hipconv.summary import Summary, rollup_root


@dataclass(frozen=True)
class TranslateRequest:
    paths: tuple[Path, ...]
    settings: Settings
    output: Path | None = None
    mode: OutputMode = OutputMode.WRITE
    in_place: bool = False
    backup_suffix: str = ".orig"
    excludes: tuple[str, ...] = ()  # .gitignore patterns (hipconv.excludes)
    respect_gitignore: bool = False  # skip what the trees' .gitignore files ignore
    rules_dirs: tuple[Path, ...] = ()
    report_path: Path | None = None
    stats: bool = False
    force: bool = False
    follow_symlinks: bool = False  # follow symbolic links that lead out of the input trees
    keep_files: bool = False  # keep every file's result in the outcome's summary (the Python API)
    cache: bool = True  # per-file results kept between runs (hipconv.filecache; off: --no-cache)


@dataclass(frozen=True)
class TranslateOutcome:
    summary: Summary
    write_errors: int  # outputs that could not be written

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
        respect_gitignore=request.respect_gitignore,
        writes=writes,
        force=request.force,
        follow_symlinks=request.follow_symlinks,
    )
    if writes:
        check_generated_headers(the_plan, request.settings)
    table = lazy_table(request.rules_dirs, request.settings)
    for note in prepare_output(
        the_plan, request.paths, request.settings, mode=request.mode, in_place=request.in_place, force=request.force
    ):
        print_result(console, note)
    summary = Summary(
        keep_files=request.keep_files or request.report_path is not None,
        root=rollup_root([str(p) for p in request.paths], tree=the_plan.tree),
    )
    for problem in the_plan.problems:
        summary.add(problem)
        print_result(console, problem)
    writer = Writer(the_plan, request.mode, request.in_place, request.backup_suffix, stdout)
    cache = default_cache(request.cache)
    results = run(the_plan.jobs, table, request.settings, cache=cache)
    try:
        write_errors, shims, portability = _write_results(results, writer, summary, console)
    except (KeyboardInterrupt, Interrupted):  # every output file is whole or absent (atomic.write_atomic)
        results.close()  # stop the workers first
        if request.report_path is not None:
            write_report(request.report_path, summary, request.settings)  # the files finished so far
        raise  # hipconv.cli says so and exits 130 (SIGTERM: 143)
    finally:
        results.close()
    if writes and shims and the_plan.compat_dir is not None:
        ranged = range_macros(table, shims) if request.settings.rocm_range else None  # loads a lazy table
        write_errors += not write_compat_header(the_plan.compat_dir, shims, request.settings, console, cache, ranged)
    if writes and request.settings.single_source and the_plan.compat_dir is not None:
        write_errors += not write_portability_header(the_plan.compat_dir, portability, request.settings, console)
    for note in writer.notes:  # --in-place backups that existed already and were kept
        print_result(console, note)
    for notice in cache.notices if cache is not None else ():  # a damaged cache, started again (once)
        print_line(console, f"warning: {notice}", style="yellow")
    if request.report_path is not None:
        write_report(request.report_path, summary, request.settings)
    if request.stats:
        console.print(stats_table(summary))
    print_done(console, "translate", sum(summary.files.values()), summary.started)
    return TranslateOutcome(summary, write_errors)


def _write_results(
    results: Iterator[FileResult], writer: Writer, summary: Summary, console: Console
) -> tuple[int, set[str], set[str]]:
    """Each result written (hipconv.output), counted and shown as it comes: the number of outputs that
    could not be written, the shims the files use, and what their portability header holds (--single-source)."""
    write_errors = 0
    shims: set[str] = set()
    portability: set[str] = set()
    with progress_bar(console, len(writer.plan.jobs), "translating", shown=writer.plan.tree) as (advance, out):
        for result in results:
            with deferred():  # a signal waits until the file is whole
                written = writer.emit(result)
            write_errors += written is not result
            shims |= written.shims
            portability |= written.portability
            summary.add(written)
            print_result(out, written)
            advance()
    return write_errors, shims, portability
