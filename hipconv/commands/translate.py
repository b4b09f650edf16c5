"""`hipconv translate`: discover -> run -> write -> report, as one function."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from rich.console import Console

from hipconv.discover import OUTPUT_MARKER, Plan, plan
from hipconv.errors import ConfigError, OutputUnwritable
from hipconv.filecache import default_cache
from hipconv.interrupts import Interrupted, deferred
from hipconv.output import OutputMode, Writer, remove_stale_temp_files, write_atomic, write_named
from hipconv.pipeline import run
from hipconv.report import (
    csv_report,
    json_report,
    markdown_report,
    print_done,
    print_result,
    progress_bar,
    stats_table,
    text_bytes,
)
from hipconv.results import FileResult, FileStatus
from hipconv.rules import load_ruleset
from hipconv.settings import Settings
from hipconv.summary import Summary, rollup_root
from hipconv.translate.compat import COMPAT_HEADER, COMPAT_MARKER, compat_header, is_generated_header
from hipconv.version import __version__


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
        writes=writes,
        force=request.force,
        follow_symlinks=request.follow_symlinks,
    )
    if writes and request.settings.compat:
        _check_compat_header(the_plan)
    table = load_ruleset(request.rules_dirs).table(request.settings)
    for stale in _prepare_output(request, the_plan.output_root if writes else None):
        print_result(console, FileResult(str(stale), FileStatus.SKIPPED, reason=STALE_TEMP_NOTE))
    summary = Summary(
        keep_files=request.keep_files or request.report_path is not None,
        root=rollup_root([str(p) for p in request.paths], tree=the_plan.tree),
    )
    writer = Writer(the_plan, request.mode, request.in_place, request.backup_suffix, stdout)
    write_errors = 0
    shims: set[str] = set()
    for problem in the_plan.problems:
        summary.add(problem)
        print_result(console, problem)
    cache = default_cache(request.cache)
    results = run(the_plan.jobs, table, request.settings, cache=cache)
    try:
        with progress_bar(console, len(the_plan.jobs), "translating", shown=the_plan.tree) as (advance, out):
            for result in results:
                with deferred():  # a signal waits until the file is whole
                    written = writer.emit(result)
                write_errors += written is not result
                shims |= written.shims
                summary.add(written)
                print_result(out, written)
                advance()
    except (KeyboardInterrupt, Interrupted):  # every output file is whole or absent (write_atomic)
        results.close()  # stop the workers first
        if request.report_path is not None:
            _write_report(request.report_path, summary, request.settings)  # the files finished so far
        raise  # hipconv.cli says so and exits 130 (SIGTERM: 143)
    finally:
        results.close()
    if writes and shims and the_plan.compat_dir is not None:
        write_errors += not _write_compat_header(the_plan.compat_dir, shims, request.settings, console)
    for note in writer.notes:  # --in-place backups that existed already and were kept
        print_result(console, note)
    if request.report_path is not None:
        _write_report(request.report_path, summary, request.settings)
    if request.stats:
        console.print(stats_table(summary))
    print_done(console, "translate", sum(summary.files.values()), summary.started)
    return TranslateOutcome(summary, write_errors)


def _check_compat_header(the_plan: Plan) -> None:
    """Stop before anything is written when the generated hipconv_compat.h would replace a file of that name
    that hipconv did not write: one at the root of the output (or, in place, of the input), or one of the
    input that the run would write there."""
    if the_plan.compat_dir is None:
        return
    target = the_plan.compat_dir / COMPAT_HEADER
    candidates = [target] + [
        Path(job.path)
        for job in the_plan.jobs
        if job.link is None and (dest := the_plan.destinations.get(job.display)) is not None and dest == target
    ]
    for path in candidates:
        try:
            with path.open("rb") as f:
                head = f.read(len(COMPAT_MARKER))
        except OSError:  # absent, or unreadable: the write says what is wrong
            continue
        if not is_generated_header(head):
            raise ConfigError(
                f"{path} was not written by hipconv, and the {COMPAT_HEADER} of shims that this run writes at "
                f"{target} would replace it",
                hint="rename it, or pass --no-compat (what the target lacks is then reported, not shimmed)",
            )


def _write_compat_header(folder: Path, shims: set[str], settings: Settings, console: Console) -> bool:
    """hipconv_compat.h with the shims the run's files use, at the root of the output (beside a single output
    file); False (with the reason shown) when it cannot be written."""
    path = folder / COMPAT_HEADER
    try:
        with deferred():
            write_atomic(path, compat_header(shims, settings.rocm), follow=False)
    except OSError as exc:
        print_result(console, FileResult(str(path), FileStatus.FAILED, reason=f"cannot write: {exc.strerror or exc}"))
        return False
    return True


def _check_release(root: Path, settings: Settings) -> None:
    """Stop before anything is written when root was written for another ROCm release (its marker says which):
    files this run leaves alone, and hipconv_compat.h's shims, would stay those of the other release."""
    try:
        written_for = json.loads((root / OUTPUT_MARKER).read_bytes()).get("rocm")
    except (OSError, ValueError, AttributeError):  # no marker (a new tree), or not one hipconv can read
        return
    if isinstance(written_for, str) and written_for != str(settings.rocm):
        raise ConfigError(
            f"{root} was written for ROCm {written_for}; this run targets ROCm {settings.rocm}",
            hint=f"pass --rocm-version {written_for} to add to it, --force to rewrite it for {settings.rocm}, "
            "or choose a new output directory",
        )


STALE_TEMP_NOTE = "a temporary file of a hipconv run that was killed (SIGKILL, a power cut): removed"


def _prepare_output(request: TranslateRequest, marked: Path | None) -> list[Path]:
    """Before anything is written: a tree's output directory (`marked`) checked and marked as hipconv's, and
    the temporary files that a killed run left in it, or (--in-place) beside the inputs, removed (returned)."""
    if marked is not None:
        if not request.force:
            _check_release(marked, request.settings)
        return _claim_output(marked, request.settings)
    if request.in_place and request.mode is OutputMode.WRITE:
        return [
            stale
            for path in request.paths
            for stale in (
                remove_stale_temp_files(path) if path.is_dir() else remove_stale_temp_files(path.parent, of=path.name)
            )
        ]
    return []


def _claim_output(root: Path, settings: Settings) -> list[Path]:
    """Mark root as hipconv's before anything is written into it, so that a rerun after a kill may
    write into it; in a rerun, remove the temporary files a killed run (SIGKILL, a power cut) left. An
    output directory that cannot be created or written stops the run here, before any file is translated."""
    marker = root / OUTPUT_MARKER
    rerun = os.path.lexists(marker)
    content = {"written_by": f"hipconv {__version__}", "rocm": str(settings.rocm)}
    try:
        with deferred():
            write_atomic(marker, json.dumps(content).encode() + b"\n")
    except OSError as exc:
        raise OutputUnwritable(root, exc) from None
    return remove_stale_temp_files(root) if rerun else []


def _write_report(path: Path, summary: Summary, settings: Settings) -> None:
    """Markdown when FILE ends in .md, CSV when it ends in .csv, JSON otherwise. File names that are not
    UTF-8 appear in JSON as \\udcXX escapes (which decode back to the names), in the others as \\xXX. A
    report that cannot be written is a ConfigError."""
    suffix = path.suffix.lower()
    if suffix == ".md":
        data = text_bytes(markdown_report(summary, settings))
    elif suffix == ".csv":
        data = text_bytes(csv_report(summary))
    else:
        data = (json.dumps(json_report(summary, settings), indent=2) + "\n").encode()
    write_named(path, data, option="--report")
