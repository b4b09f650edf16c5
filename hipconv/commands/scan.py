"""`hipconv scan`: discover -> scan -> (baseline) -> render; reads files, writes only the report."""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from rich.console import Console

from hipconv.atomic import write_named
from hipconv.buildfiles import build_file_kind
from hipconv.config import FailOn
from hipconv.console import verbosity
from hipconv.discover import Plan, plan
from hipconv.excludes import excluded
from hipconv.report import print_done, print_line, print_result, print_verbose, progress_bar
from hipconv.results import FileStatus, Job
from hipconv.rules import load_ruleset
from hipconv.scan.baseline import baseline_json, load_baseline, new_findings
from hipconv.scan.formats import (
    ScanReport,
    print_failures,
    print_findings,
    print_summary,
    print_text,
    render_scan_report,
)
from hipconv.scan.scanner import FileScan, at_or_above, scan_jobs
from hipconv.scan.single_source import drift_scans, tree_settings
from hipconv.settings import Settings

ScanFormat = Literal["text", "json", "sarif", "github"]


@dataclass(frozen=True)
class ScanRequest:
    paths: tuple[Path, ...]
    settings: Settings
    fail_on: FailOn = "warning"
    fmt: ScanFormat = "text"
    output: Path | None = None
    excludes: tuple[str, ...] = ()  # .gitignore patterns (hipconv.excludes)
    respect_gitignore: bool = False  # skip what the trees' .gitignore files ignore
    disabled: frozenset[str] = frozenset()
    rules_dirs: tuple[Path, ...] = ()
    baseline: Path | None = None
    write_baseline: Path | None = None
    follow_symlinks: bool = False  # follow symbolic links that lead out of the named trees
    docs_url: str = ""  # where SARIF's helpUri points (resources.docs_url); "": the installed copy
    rocm_given: bool = True  # the release was named (--rocm-version, the configuration): else a single-source
    # tree's header says it (scan.single_source.tree_settings)


@dataclass(frozen=True)
class ScanOutcome:
    report: ScanReport  # every finding when a baseline was written instead (failing is then 0)
    failing: int  # findings at or above --fail-on

    @property
    def failed(self) -> bool:
        """A file could not be scanned."""
        return bool(self.report.failures)


def _planned(request: ScanRequest) -> tuple[Plan, list[Job]]:
    """The plan of the request's paths, read in place, and the jobs to scan (with --single-source, the build
    files too: an -o run's jobs, less the files it would only copy)."""
    the_plan = plan(
        list(request.paths),
        None,
        in_place=not request.settings.single_source,
        excludes=request.excludes,
        respect_gitignore=request.respect_gitignore,
        writes=False,
        force=False,
        follow_symlinks=request.follow_symlinks,
    )
    jobs = [
        job
        for job in the_plan.jobs
        if not excluded(job.display, request.excludes) and (job.translate or build_file_kind(job.path) is not None)
    ]
    return the_plan, jobs


def _release_of_tree(request: ScanRequest, jobs: list[Job], console: Console) -> ScanRequest:
    """A single-source scan checks for the release the tree's header records, when none is given (and says so)."""
    if not request.settings.single_source:
        return request
    settings, note = tree_settings(jobs, request.settings, given=request.rocm_given)
    if note is not None:
        print_line(console, f"hipconv scan: {note}")
    return replace(request, settings=settings)


def scan_paths(request: ScanRequest, console: Console, out: Console) -> tuple[ScanOutcome, str]:
    """Scan the request's paths; returns the outcome and what goes to stdout. Text findings are printed
    on `out` (stdout); progress, notes, failures and the summary on `console` (stderr)."""
    started = time.monotonic()
    the_plan, jobs = _planned(request)
    request = _release_of_tree(request, jobs, console)
    table = load_ruleset(request.rules_dirs).table(request.settings)
    baseline = None  # read before the scan: a bad one stops it at once
    if request.baseline is not None and request.write_baseline is None:
        baseline = load_baseline(request.baseline)
    for skipped in (p for p in the_plan.problems if p.status is FileStatus.SKIPPED):
        print_result(console, skipped)  # a note, as translate gives (special files, links out of the tree)
    scans = [FileScan(p.path, failure=p.reason) for p in the_plan.problems if p.status is not FileStatus.SKIPPED]
    tree = any(path.is_dir() for path in request.paths)  # not for files named one by one (pre-commit)
    with progress_bar(console, len(jobs), "scanning", shown=tree) as (advance, shown_on):
        scanning = drift_scans if request.settings.single_source else scan_jobs  # drift of a single-source tree
        for scanned in scanning(jobs, table, request.settings, disabled=request.disabled):
            scans.append(scanned)
            n = len(scanned.findings)
            print_verbose(shown_on, f"{scanned.path}: {n} finding{'s' if n != 1 else ''}")  # -v
            advance()
    if request.write_baseline is not None:
        text = baseline_json(scans, request.write_baseline)
        write_named(request.write_baseline, text.encode(), option="--write-baseline")
        report = ScanReport(tuple(scans), request.settings)
        print_failures(console, report)  # not in the baseline: the exit code is 2
        recorded = sum(1 for _ in report.findings())
        print_line(console, f"hipconv scan: {recorded} findings recorded in {request.write_baseline}")
        return ScanOutcome(report, 0), ""
    baselined = 0
    if baseline is not None:
        scans, baselined = new_findings(scans, baseline)
    report = ScanReport(tuple(scans), request.settings, baselined, request.docs_url)
    stdout = ""
    if request.fmt == "text" and request.output is None:
        print_findings(out, report)
        print_failures(console, report)
        print_summary(console, report)
    else:
        print_failures(console, report)  # also in the document, but a failure must reach stderr
        verbose = verbosity(console).verbose  # -v: GitHub annotations for notes too
        text = (
            render_scan_report(report, request.fmt, verbose=verbose) if request.fmt != "text" else _plain_text(report)
        )
        if request.output is not None:
            write_named(request.output, text.encode(), option="--output")
        else:
            stdout = text
    print_done(console, "scan", len(scans), started)
    return ScanOutcome(report, len(at_or_above(report.findings(), request.fail_on))), stdout


def _plain_text(report: ScanReport) -> str:
    buffer = io.StringIO()
    print_text(Console(file=buffer, width=120, no_color=True), report)
    return buffer.getvalue()
