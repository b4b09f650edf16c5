"""Rendering of `hipconv build` results: the summary table, the grouped causes, and the report (JSON, or
Markdown for a FILE.md), which has one line per TU: its exit status, first error and the cause it counts in."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from typing import Any, NamedTuple

from rich.console import Console
from rich.table import Table

from hipconv.builder.plan import FIX_NONE, FIX_NOT_CODE, FIX_TRANSLATOR, Cause, Group, Unit, UnitResult, first_errors
from hipconv.builder.programs import ProgramResult, Ran
from hipconv.builder.target import Target
from hipconv.buildfiles.nvcc_flags import FlagNote
from hipconv.console import verbosity
from hipconv.diagnostics import CODES, CPU_BUILD_FAILED, HIPCC_FAILED, NVIDIA_BUILD_FAILED, Severity
from hipconv.report import print_line
from hipconv.translate.templates import render
from hipconv.version import __version__


class Fix(NamedTuple):
    label: str  # the report's "who can fix it" column
    text: str  # what the kind of cause means


# the kinds of cause by who can fix them, as the report names them
FIXES = {
    FIX_TRANSLATOR: Fix(
        "a translator", "a translator could fix this: what hipconv wrote, or the flags hipconv build gives hipcc"
    ),
    FIX_NONE: Fix(
        "nothing can", "nothing can: a library or dependency that is not installed, or an API with no HIP counterpart"
    ),
    FIX_NOT_CODE: Fix(
        "nothing to fix",
        "nothing to fix: the file holds no C or C++ (a licence or notes named like a source file); "
        "leave it out of the build",
    ),
}
# the code of a failed TU or link, by the backend that built it (`hipconv build --backend`)
FAILED_BUILD_CODES = {"hipcc": HIPCC_FAILED, "hip-cpu": CPU_BUILD_FAILED, "nvidia": NVIDIA_BUILD_FAILED}
FIRST_ERROR_LIMIT = 200  # characters of a TU's first error in its report line


def print_target(console: Console, target: Target) -> None:
    """`hipconv build: targeting ROCm X.Y (why)`: a note, or a warning when it may not suit the installed hipcc."""
    if verbosity(console).shows(target.severity):
        prefix = "warning: " if target.severity is Severity.WARNING else ""
        print_line(console, f"{prefix}hipconv build: {target.message}")


def build_summary_table(results: Sequence[UnitResult], seconds: float, *, check_only: bool) -> Table:
    failed = sum(not r.ok for r in results)
    table = Table(title="hipconv build" + (" (--check-only)" if check_only else ""), header_style="bold")
    for column in ("TUs", "checked" if check_only else "compiled", "failed", "time"):
        table.add_column(column, justify="right")
    table.add_row(str(len(results)), str(len(results) - failed), str(failed), f"{seconds:.1f} s")
    return table


def cause_text(cause: Cause) -> str:
    """A cause as the report's lines name it: `cudaFoo (what hipconv knows)`, `missing header X: what provides
    it`, or the compiler's message."""
    if cause.kind == "undeclared":
        return f"{cause.name} ({cause.origin})" if cause.origin else cause.name
    if cause.kind == "missing-header":
        return f"missing header {cause.name}: {cause.origin}" if cause.origin else f"missing header {cause.name}"
    if cause.kind == "not-code":
        return f"{cause.name} ({cause.origin})"
    return cause.name


def cause_line(group: Group) -> str:
    n = len(group.units)
    tus = f"{n} TU{'s' if n != 1 else ''} fail{'s' if n == 1 else ''} because of"
    return f"{tus}{':' if group.cause.kind == 'other' else ''} {cause_text(group.cause)}"


def print_groups(console: Console, groups: Sequence[Group], *, backend: str = "hipcc", shown: int = 5) -> None:
    """The causes of the failed TUs (and links), each under the code of the backend that built them."""
    code = FAILED_BUILD_CODES[backend]
    for group in groups:
        first = group.first
        where = f"{first.file}:{first.line}:{first.col}" if first.line else first.file
        print_line(console, f"error[{code}]: {cause_line(group)}", style="bold red")
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


class UnitLine(NamedTuple):
    """One TU in the report: where it stands and why."""

    file: str  # relative to the translated tree
    exit_status: int
    first_error: str  # `file:line:col: message` (trimmed), the file relative to the tree; "" when it compiled
    cause: Cause | None  # the cause its first error is counted in; None when it compiled


def _trim(text: str, limit: int = FIRST_ERROR_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def unit_lines(results: Sequence[UnitResult], groups: Sequence[Group]) -> list[UnitLine]:
    """Every TU in path order, with the group whose cause is its first error (Group.leading)."""
    leading = {tu: g.cause for g in groups for tu in g.leading}
    lines = []
    for r in sorted(results, key=lambda r: r.unit.source):
        errors = first_errors(r)
        first = ""
        if errors:
            error = errors[0]
            root = r.unit.file[: -len(r.unit.source)] if r.unit.file.endswith(r.unit.source) else ""
            where = error.file[len(root) :] if root and error.file.startswith(root) else error.file
            first = _trim(f"{where}:{error.line}:{error.col}: {error.message}" if error.line else error.message)
        lines.append(UnitLine(r.unit.source, r.returncode, first, None if r.ok else leading.get(r.unit.source)))
    return lines


def build_json_report(
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
    lines = {line.file: line for line in unit_lines(results, groups)}
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
            # failed TUs by the kind of cause of their first error
            "failed_by_fix": {
                fix: sum(1 for line in lines.values() if line.cause and line.cause.fix == fix) for fix in FIXES
            },
        },
        "fixes": {fix: meaning.text for fix, meaning in FIXES.items()},
        "causes": [
            {
                "kind": g.cause.kind,
                "name": g.cause.name,
                "origin": g.cause.origin,
                "fix": g.cause.fix,
                "units": list(g.units),
                "first_error_of": list(g.leading),
                "first": g.first._asdict(),
                "message": cause_line(g),
            }
            for g in groups
        ],
        "skipped": list(skipped),
        "units": [_unit_json(r, lines[r.unit.source]) for r in ordered],
    }


def _unit_json(result: UnitResult, line: UnitLine) -> dict[str, Any]:
    """A TU of the JSON report: its line (exit status, first error, cause), then how it was compiled."""
    return {
        "file": result.unit.source,
        "command": list(result.unit.command),
        "directory": result.unit.directory,
        "output": result.unit.output,
        "status": "compiled" if result.ok else "failed",
        "exit_status": line.exit_status,
        "first_error": line.first_error or None,
        "cause": None
        if line.cause is None
        else {"kind": line.cause.kind, "name": line.cause.name, "fix": line.cause.fix},
        "seconds": round(result.seconds, 3),
        "flags": [note._asdict() for note in result.unit.notes],
        "diagnostics": [d._asdict() for d in result.diagnostics],
    }


def build_markdown_report(report: dict[str, Any], results: Sequence[UnitResult], groups: Sequence[Group]) -> str:
    """The Markdown form of build_json_report's `report`: the summary, the causes, then one line per TU."""
    rows = [
        {
            "file": line.file,
            "exit_status": line.exit_status,
            "first_error": line.first_error,
            "cause": cause_text(line.cause) if line.cause else "",
            "fix": FIXES[line.cause.fix].label if line.cause else "",
        }
        for line in unit_lines(results, groups)
    ]
    causes = [
        {"text": cause_text(g.cause), "units": len(g.units), "leading": len(g.leading), "fix": FIXES[g.cause.fix].label}
        for g in groups
    ]
    return render("report/build.md.j2", report=report, causes=causes, units=rows, fixes=FIXES)


def print_programs(console: Console, results: Sequence[ProgramResult], backend: str) -> None:
    """One line per program of `hipconv build --backend hip-cpu|nvidia`, then a count; the causes of the
    failed ones are print_groups' lines."""
    for result in results:
        name = result.program.name
        if result.program.blocker:
            print_line(console, f"warning[HC420]: {name}: not runnable on the CPU: {result.program.blocker}")
        elif result.binary is None:
            print_line(console, f"failed: {name}: not built (its causes are listed above)", style="red")
        elif result.ran is not None:
            _print_ran(console, name, result.ran)
        else:
            not_run = f"; not run: {result.not_run}" if result.not_run else ""
            print_line(console, f"built: {name}: {_shown(result.binary)}{not_run}")
    blocked = sum(bool(r.program.blocker) for r in results)
    built = sum(r.binary is not None for r in results)
    ran = sum(r.ran is not None and r.ran.returncode == 0 for r in results)
    failed = sum(r.failed for r in results)
    counts = f"{built} built" + (f", {ran} ran" if any(r.ran for r in results) else "") + f", {failed} failed"
    cpu = f", {blocked} not runnable on the CPU" if backend == "hip-cpu" else ""
    programs = f"{len(results)} program{'s' if len(results) != 1 else ''}"
    print_line(console, f"hipconv build --backend {backend}: {programs}: {counts}{cpu}")


def _print_ran(console: Console, name: str, ran: Ran) -> None:
    """A program's run: its arguments and where they came from, how it ended, what was cut or left behind."""
    if ran.args_problem:
        print_line(console, f"warning[HC424]: {name}: {ran.args_problem}", style="yellow")
    shown = f"{name} {shlex.join(ran.args)}" if ran.args else name
    if ran.args_from:
        shown += f" (arguments from {ran.args_from})"
    where = f"output in {_shown(ran.output)}"
    if ran.cut:
        where += f"; {' and '.join(ran.cut)} cut at --run-output-limit"
    if ran.returncode != 0:
        why = ran.note or f"exited with {ran.returncode}"
        print_line(console, f"error[HC421]: {shown}: {why} ({where})", style="bold red")
    else:
        print_line(console, f"ran: {shown}: exit 0 ({where})")
    if ran.ended:
        n = ran.ended
        print_line(
            console,
            f"note[HC425]: {name}: left {n} process{'es' if n != 1 else ''} running (a child in a session of its own); "
            "killed",
        )


def _shown(path: str) -> str:
    """A path relative to the working directory when it lies below it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel
