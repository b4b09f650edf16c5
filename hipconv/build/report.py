"""Rendering of `hipconv build` results: the summary table, the grouped causes, and the JSON report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from hipconv import __version__
from hipconv.build.plan import Group, Unit, UnitResult
from hipconv.build.target import Target
from hipconv.buildfiles.nvcc_flags import FlagNote
from hipconv.console import verbosity
from hipconv.diagnostics import CODES, Severity
from hipconv.report import print_line


def print_target(console: Console, target: Target) -> None:
    """`hipconv build: targeting ROCm X.Y (why)`: a note, or a warning when it may not suit the installed hipcc."""
    if verbosity(console).shows(target.severity):
        prefix = "warning: " if target.severity is Severity.WARNING else ""
        print_line(console, f"{prefix}hipconv build: {target.message}")


def summary_table(results: Sequence[UnitResult], seconds: float, *, check_only: bool) -> Table:
    failed = sum(not r.ok for r in results)
    table = Table(title="hipconv build" + (" (--check-only)" if check_only else ""), header_style="bold")
    for column in ("TUs", "checked" if check_only else "compiled", "failed", "time"):
        table.add_column(column, justify="right")
    table.add_row(str(len(results)), str(len(results) - failed), str(failed), f"{seconds:.1f} s")
    return table


def cause_line(group: Group) -> str:
    n = len(group.units)
    tus = f"{n} TU{'s' if n != 1 else ''} fail{'s' if n == 1 else ''} because of"
    origin = f" ({group.cause.origin})" if group.cause.origin else ""
    if group.cause.kind == "undeclared":
        return f"{tus} {group.cause.name}{origin}"
    if group.cause.kind == "missing-header":
        return f"{tus} missing header {group.cause.name}{origin}"
    return f"{tus}: {group.cause.name}"


def print_groups(console: Console, groups: Sequence[Group], *, shown: int = 5) -> None:
    for group in groups:
        first = group.first
        where = f"{first.file}:{first.line}:{first.col}" if first.line else first.file
        print_line(console, f"error[HC410]: {cause_line(group)}", style="bold red")
        more = f", and {len(group.units) - shown} more" if len(group.units) > shown else ""
        print_line(console, f"  first at {where}; TUs: {', '.join(group.units[:shown])}{more}")


def flag_notes(units: Sequence[Unit]) -> list[tuple[FlagNote, int]]:
    """Each distinct flag note once, with the number of TUs it concerns."""
    counts: dict[FlagNote, int] = {}
    for unit in units:
        for note in dict.fromkeys(unit.notes):
            counts[note] = counts.get(note, 0) + 1
    return sorted(counts.items(), key=lambda item: (item[0].code, item[0].flag))


def print_flag_notes(console: Console, units: Sequence[Unit]) -> None:
    """Each flag note once, with its code's severity, where the console's verbosity shows that severity."""
    for note, n in flag_notes(units):
        severity = CODES[note.code].severity
        if verbosity(console).shows(severity):
            tus = f"{n} TU{'s' if n != 1 else ''}"
            print_line(console, f"{severity.value}[{note.code}]: {note.message} ({tus})")


def json_report(
    results: Sequence[UnitResult],
    groups: Sequence[Group],
    *,
    hipcc: str,
    hip_version: str | None,
    rocm: str,
    archs: Sequence[str],
    check_only: bool,
    seconds: float,
    skipped: Sequence[str],
) -> dict[str, Any]:
    ordered = sorted(results, key=lambda r: r.unit.source)
    return {
        "hipconv": __version__,
        "hipcc": hipcc,
        "hip_version": hip_version,
        "rocm": rocm,
        "offload_arch": list(archs),
        "check_only": check_only,
        "summary": {
            "units": len(results),
            "compiled": sum(r.ok for r in results),
            "failed": sum(not r.ok for r in results),
            "seconds": round(seconds, 3),
        },
        "causes": [
            {
                "kind": g.cause.kind,
                "name": g.cause.name,
                "origin": g.cause.origin,
                "units": list(g.units),
                "first": g.first._asdict(),
                "message": cause_line(g),
            }
            for g in groups
        ],
        "skipped": list(skipped),
        "units": [
            {
                "file": r.unit.source,
                "command": list(r.unit.command),
                "directory": r.unit.directory,
                "output": r.unit.output,
                "status": "compiled" if r.ok else "failed",
                "seconds": round(r.seconds, 3),
                "flags": [note._asdict() for note in r.unit.notes],
                "diagnostics": [d._asdict() for d in r.diagnostics],
            }
            for r in ordered
        ],
    }
