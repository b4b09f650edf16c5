"""All rendering: diagnostics lines, progress, the stats table and the effort report (JSON, Markdown, CSV)."""

from __future__ import annotations

import contextlib
import csv
import io
import sys
import time
from collections.abc import Iterator
from typing import Any, Callable, NamedTuple

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from hipconv.console import Display, make_console, plain, verbosity
from hipconv.diagnostics import Diagnostic, Severity
from hipconv.results import FileResult, FileStatus
from hipconv.rules.coverage import Coverage
from hipconv.settings import Settings
from hipconv.summary import ROLLUP_DEPTH, Api, Rollup, api_of, line_counts, percent
from hipconv.summary import Summary as Summary  # re-exported: hipconv.report.Summary was its home
from hipconv.translate.templates import render
from hipconv.version import __version__

_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "magenta", Severity.NOTE: "cyan"}


# What the Markdown report shows of each list at most; the JSON and CSV reports hold everything.
MARKDOWN_LIMITS = {"failures": 10, "apis": 40, "directories": 25, "files": 100, "diagnostics": 200}
CSV_COLUMNS = ("path", "line", "col", "severity", "code", "rule", "symbol", "message")
_STATUS_ORDER = (FileStatus.FAILED, *(s for s in FileStatus if s is not FileStatus.FAILED))  # failures first


def file_entry(result: FileResult) -> dict[str, Any]:
    automatic, human = line_counts(result)
    entry: dict[str, Any] = {
        "path": result.path,
        "status": result.status.value,
        "replacements": [r.to_json() for r in result.replacements],
        "diagnostics": [d.to_json() for d in result.diagnostics],
        "lines": {"automatic": automatic, "human": human},
    }
    if result.reason:
        entry["reason"] = result.reason
    return entry


def clang_line(head: str, severity: Severity, tail: str, *, styled: bool) -> Text:
    """`head` + severity word (coloured when styled) + `tail`: the one shape of every diagnostic line."""
    text = Text(head)
    text.append(severity.value, style=_SEVERITY_STYLE[severity] if styled else "")
    text.append(tail)
    return text


def diagnostic_line(d: Diagnostic, *, styled: bool) -> Text:
    """A diagnostic in clang style; its plain text is Diagnostic.format()."""
    tag = f"{d.code} {d.rule_id}" if d.rule_id else d.code
    return clang_line(f"{d.path}:{d.line}:{d.col}: ", d.severity, f"[{tag}]: {d.message}", styled=styled)


def print_result(console: Console, result: FileResult) -> None:
    """Diagnostics in clang style, and a line for a file that failed or was skipped (with -v, for every file);
    what the console's verbosity shows (hipconv.console.Verbosity)."""
    level = verbosity(console)
    shown = [d for d in result.diagnostics if level.shows(d.severity)]
    if not shown and not result.trace and not level.verbose and result.status not in _NOTED:
        return  # most files: nothing to say, and the console is not asked what it is (a system call)
    styled = not plain(console)
    lines = [diagnostic_line(d, styled=styled) for d in shown]
    if result.status in _NOTED:
        failed = result.status is FileStatus.FAILED
        copied = " (copied unchanged)" if failed and result.output is not None else ""
        severity = Severity.ERROR if failed else Severity.NOTE
        if level.shows(severity):
            lines.append(clang_line(f"{result.path}: ", severity, f": {result.reason}{copied}", styled=styled))
    elif level.verbose:
        lines.insert(0, Text(f"{result.path}: {result.status.value}{_replaced(len(result.replacements))}"))
    if not styled:  # logs and pipes: plain text, without rich's per-line rendering cost
        console.file.write("".join(f"{line.plain}\n" for line in lines) + result.trace)
        return
    for line in lines:
        console.print(line, soft_wrap=True, highlight=False)
    if result.trace:
        print_line(console, result.trace)


_NOTED = (FileStatus.FAILED, FileStatus.SKIPPED)  # a file that gets a line of its own


def _replaced(n: int) -> str:
    return f" ({n} replacement{'s' if n != 1 else ''})" if n else ""


def stats_table(summary: Summary) -> Table:
    """The --stats table: files by status (failures first), speed, lines of CUDA code, replacements,
    diagnostics and the unported APIs, most occurrences first."""
    elapsed = max(time.monotonic() - summary.started, 1e-9)
    table = Table(title="hipconv translate", show_header=True, header_style="bold")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_column("files", justify="right")
    for status in _STATUS_ORDER:
        if summary.files[status.value]:
            table.add_row(f"files {status.value}", str(summary.files[status.value]))
    table.add_row("seconds", f"{elapsed:.2f}")
    table.add_row("source MB/s", f"{summary.bytes_in / elapsed / 1e6:.2f}")
    lines = summary.lines_automatic + summary.lines_human
    if lines:
        table.add_row("lines of CUDA code", str(lines))
        table.add_row("lines translated automatically", str(summary.lines_automatic))
        table.add_row("lines needing a human", str(summary.lines_human))
        table.add_row("share translated automatically", f"{percent(summary.lines_automatic, summary.lines_human)}%")
    for library, n in sorted(summary.replacements.items()):
        table.add_row(f"replacements: {library}", str(n))
    for severity, n in sorted(summary.severities.items()):
        table.add_row(f"diagnostics: {severity}", str(n))
    apis = summary.unported_by_count()
    for (symbol, code), n in apis[:15]:
        table.add_row(f"unported [{code}] {symbol}", str(n), str(summary.unported_files[(symbol, code)]))
    if len(apis) > 15:
        table.add_row(f"unported: {len(apis) - 15} more APIs", "")
    return table


def json_report(summary: Summary, settings: Settings) -> dict[str, Any]:
    """The whole report: settings, the summary (see summary_json), then every file's entry."""
    return {
        "hipconv": __version__,
        "settings": {
            "rocm_version": str(settings.rocm),
            "kernel_launch": settings.kernel_launch.value,
            "experimental": settings.experimental,
        },
        "summary": summary_json(summary),
        "files": [file_entry(r) for r in summary.results],
    }


def summary_json(summary: Summary) -> dict[str, Any]:
    """Files by status (failed first) and the failures; unported APIs by occurrences; the per-directory
    roll-up, most work left first; lines of CUDA code; replacements per family; diagnostics per severity."""
    paths: dict[Api, list[str]] = {}
    for result in summary.results:
        for api in dict.fromkeys(api_of(d) for d in result.diagnostics if d.unported):
            paths.setdefault(api, []).append(result.path)
    return {
        "files": {s.value: summary.files[s.value] for s in _STATUS_ORDER if summary.files[s.value]},
        "failures": [{"path": path, "reason": reason} for path, reason in summary.failures],
        "unported": [
            {
                "symbol": s,
                "code": c,
                "count": n,
                "files": summary.unported_files[(s, c)],
                "paths": paths.get((s, c), []),
            }
            for (s, c), n in summary.unported_by_count()
        ],
        "root": summary.root,
        "directory_depth": ROLLUP_DEPTH,
        "directories": [rollup.to_json(path) for path, rollup in by_work_left(summary.directories)],
        "lines": {
            "cuda": summary.lines_automatic + summary.lines_human,
            "automatic": summary.lines_automatic,
            "human": summary.lines_human,
            "automatic_percent": percent(summary.lines_automatic, summary.lines_human),
        },
        "replacements": dict(sorted(summary.replacements.items(), key=lambda item: (-item[1], item[0]))),
        "diagnostics": dict(summary.severities),
    }


def by_work_left(directories: dict[str, Rollup]) -> list[tuple[str, Rollup]]:
    """Directories with the most lines needing a human first, then the most failed files, then the most
    unported findings; then by name."""
    return sorted(
        directories.items(), key=lambda item: (-item[1].lines_human, -item[1].failed, -item[1].unported, item[0])
    )


class _FileRow(NamedTuple):
    """A file with findings, as the Markdown report lists it."""

    path: str
    status: str
    replacements: int
    unported: int
    other: int  # diagnostics that are not unported APIs
    human: int  # lines needing a human
    diagnostics: tuple[Diagnostic, ...]

    @classmethod
    def of(cls, result: FileResult) -> _FileRow:
        unported = sum(d.unported for d in result.diagnostics)
        other = len(result.diagnostics) - unported
        human = line_counts(result)[1]
        return cls(
            result.path, result.status.value, len(result.replacements), unported, other, human, result.diagnostics
        )

    def order(self) -> tuple[bool, int, int, str]:
        """Failures first, then the most lines needing a human, then the most unported findings."""
        return (self.status != FileStatus.FAILED.value, -self.human, -self.unported, self.path)


def markdown_report(summary: Summary, settings: Settings) -> str:
    """The Markdown report: the summary first, each list cut at MARKDOWN_LIMITS; then the files with
    findings (one row each) and their diagnostics, in _FileRow.order."""
    rows = sorted((_FileRow.of(r) for r in summary.results if r.diagnostics or r.reason), key=_FileRow.order)
    diagnostics = [d for row in rows for d in row.diagnostics]
    data = json_report(summary, settings)
    return render("report/summary.md.j2", report=data, files=rows, diagnostics=diagnostics, limits=MARKDOWN_LIMITS)


def csv_report(summary: Summary) -> str:
    """One row per finding (CSV_COLUMNS; RFC 4180: a header row, quoted where needed, CRLF line ends):
    the failed files first (code "failed", the reason as message), then files skipped with a note (code
    "skipped"), then every diagnostic in file and line order."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for status, severity in ((FileStatus.FAILED, Severity.ERROR), (FileStatus.SKIPPED, Severity.NOTE)):
        for r in summary.results:
            if r.status is status:
                writer.writerow([r.path, "", "", severity.value, status.value, "", "", r.reason])
    for r in summary.results:
        for d in r.diagnostics:
            writer.writerow([r.path, d.line, d.col, d.severity.value, d.code, d.rule_id, d.symbol, d.message])
    return out.getvalue()


def text_bytes(text: str) -> bytes:
    """A Markdown or CSV report's bytes: file names that are not UTF-8 (surrogate escapes) shown as \\xNN."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace").encode()


def coverage_table(rows: list[Coverage], release: str) -> Table:
    """`hipconv rules coverage`: one row per CUDA library, counted for `release` ("ROCm 7.2")."""
    table = Table(title=f"library coverage, {release}", header_style="bold")
    for column in ("library", "CUDA symbols", "with a rule", "translated", "not translated", "HIP twin but no rule"):
        table.add_column(column, justify="left" if column == "library" else "right")
    for row in rows:
        table.add_row(
            row.library,
            str(row.symbols),
            str(row.with_rule),
            str(row.supported),
            str(row.unsupported),
            str(len(row.twins_without_rule)),
        )
    return table


def stderr_console(display: Display | None = None) -> Console:
    """Messages, progress and summaries (hipconv.console.make_console decides colour and verbosity)."""
    return make_console(display or Display(), stderr=True)


def stdout_console(display: Display | None = None) -> Console:
    """For findings a command prints as its output (`hipconv scan`'s text): coloured as --color says.
    A file name that is not UTF-8 is written as its own bytes, as ls and grep write it, where a strict
    stdout would stop at it (stderr writes such a byte as a \\udcNN escape)."""
    if isinstance(sys.stdout, io.TextIOWrapper) and sys.stdout.errors == "strict":
        sys.stdout.reconfigure(errors="surrogateescape")
    return make_console(display or Display(), stderr=False)


def print_line(console: Console, text: str, *, style: str | None = None) -> None:
    """One line of plain text (no markup, no highlighting, never wrapped)."""
    console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)


def print_verbose(console: Console, text: str) -> None:
    """A line that only -v shows (a file done, the time a run took)."""
    if verbosity(console).verbose:
        print_line(console, text)


def print_done(console: Console, command: str, files: int, started: float) -> None:
    """-v: the closing line of a run, `hipconv translate: 12 files in 0.84 s`."""
    seconds = time.monotonic() - started
    print_verbose(console, f"hipconv {command}: {files} file{'s' if files != 1 else ''} in {seconds:.2f} s")


@contextlib.contextmanager
def progress_bar(
    console: Console, total: int, label: str, *, shown: bool = True, unit: str = "files"
) -> Iterator[tuple[Callable[[], None], Console]]:
    """(advance, the console to print on while it runs): a rich bar on a terminal, a line at every
    tenth of the work otherwise (`hipconv: 5/50 files`, in `unit`s), nothing when not shown (or with -q)."""
    shown = shown and verbosity(console).chatty
    if shown and console.is_terminal and total >= 2:
        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        )
        with bar:
            task = bar.add_task(label, total=total)
            yield (lambda: bar.advance(task)), bar.console
        return
    plain = _PlainProgress(console, total, unit) if shown else None
    yield (plain.advance if plain else lambda: None), console


class _PlainProgress:
    """Progress for logs (stderr not a terminal): a line at every tenth of the work."""

    def __init__(self, console: Console, total: int, unit: str) -> None:
        self.console, self.total, self.unit, self.done, self.next_mark = console, total, unit, 0, 1

    def advance(self) -> None:
        self.done += 1
        if self.total >= 20 and self.done * 10 >= self.next_mark * self.total:
            self.console.print(f"hipconv: {self.done}/{self.total} {self.unit}", highlight=False)
            self.next_mark += 1
