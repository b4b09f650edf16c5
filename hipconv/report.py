"""All rendering: diagnostics lines, progress, the stats table and the JSON report."""

from __future__ import annotations

import collections
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Callable

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from hipconv import __version__
from hipconv.diagnostics import Diagnostic, Severity
from hipconv.results import FileResult, FileStatus
from hipconv.rules.coverage import Coverage
from hipconv.settings import Settings

_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "magenta", Severity.NOTE: "cyan"}


@dataclass
class Summary:
    """Counters accumulated while results stream past (so memory stays flat without --report)."""

    keep_files: bool = False
    started: float = field(default_factory=time.monotonic)
    files: collections.Counter[str] = field(default_factory=collections.Counter)
    bytes_in: int = 0
    replacements: collections.Counter[str] = field(default_factory=collections.Counter)
    unported: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)
    severities: collections.Counter[str] = field(default_factory=collections.Counter)
    entries: list[dict[str, Any]] = field(default_factory=list)

    def add(self, result: FileResult) -> None:
        self.files[result.status.value] += 1
        self.bytes_in += result.size
        for r in result.replacements:
            self.replacements[r.library] += 1
        for d in result.diagnostics:
            self.severities[d.severity.value] += 1
            if d.unported:
                self.unported[(d.symbol, d.code)] += 1
        if self.keep_files:
            self.entries.append(file_entry(result))

    @property
    def failed(self) -> int:
        return self.files[FileStatus.FAILED.value]

    @property
    def unported_count(self) -> int:
        return sum(self.unported.values())


def file_entry(result: FileResult) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "path": result.path,
        "status": result.status.value,
        "replacements": [r.to_json() for r in result.replacements],
        "diagnostics": [d.to_json() for d in result.diagnostics],
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
    """Diagnostics in clang style, and a line for a file that failed or was skipped."""
    lines = [diagnostic_line(d, styled=console.is_terminal) for d in result.diagnostics]
    if result.status in (FileStatus.FAILED, FileStatus.SKIPPED):
        failed = result.status is FileStatus.FAILED
        copied = " (copied unchanged)" if failed and result.output is not None else ""
        lines.append(
            clang_line(
                f"{result.path}: ",
                Severity.ERROR if failed else Severity.NOTE,
                f": {result.reason}{copied}",
                styled=console.is_terminal,
            )
        )
    if not console.is_terminal:  # logs and pipes: plain text, without rich's per-line rendering cost
        console.file.write("".join(f"{line.plain}\n" for line in lines) + result.trace)
        return
    for line in lines:
        console.print(line, soft_wrap=True, highlight=False)
    if result.trace:
        print_line(console, result.trace)


def stats_table(summary: Summary) -> Table:
    elapsed = max(time.monotonic() - summary.started, 1e-9)
    table = Table(title="hipconv translate", show_header=True, header_style="bold")
    table.add_column("what")
    table.add_column("count", justify="right")
    for status in FileStatus:
        if summary.files[status.value]:
            table.add_row(f"files {status.value}", str(summary.files[status.value]))
    table.add_row("seconds", f"{elapsed:.2f}")
    table.add_row("source MB/s", f"{summary.bytes_in / elapsed / 1e6:.2f}")
    for library, n in sorted(summary.replacements.items()):
        table.add_row(f"replacements: {library}", str(n))
    for severity, n in sorted(summary.severities.items()):
        table.add_row(f"diagnostics: {severity}", str(n))
    for (symbol, code), n in summary.unported.most_common(15):
        table.add_row(f"unported [{code}] {symbol}", str(n))
    if len(summary.unported) > 15:
        table.add_row(f"unported: {len(summary.unported) - 15} more APIs", "")
    return table


def json_report(summary: Summary, settings: Settings) -> dict[str, Any]:
    return {
        "hipconv": __version__,
        "settings": {
            "rocm_version": str(settings.rocm),
            "kernel_launch": settings.kernel_launch.value,
            "experimental": settings.experimental,
        },
        "summary": {
            "files": dict(summary.files),
            "replacements": dict(summary.replacements),
            "diagnostics": dict(summary.severities),
            "unported": [{"symbol": s, "code": c, "count": n} for (s, c), n in sorted(summary.unported.items())],
        },
        "files": summary.entries,
    }


def coverage_table(rows: list[Coverage]) -> Table:
    table = Table(title="library coverage", header_style="bold")
    for column in ("library", "CUDA symbols", "with a rule", "translated", "unsupported", "HIP twin but no rule"):
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


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False)


def print_line(console: Console, text: str, *, style: str | None = None) -> None:
    """One line of plain text (no markup, no highlighting, never wrapped)."""
    console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)


@contextlib.contextmanager
def progress_bar(
    console: Console, total: int, label: str, *, shown: bool = True
) -> Iterator[tuple[Callable[[], None], Console]]:
    """(advance, the console to print on while it runs): a rich bar on a terminal, a line at every
    tenth of the work otherwise, nothing when not shown."""
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
    plain = _PlainProgress(console, total) if shown else None
    yield (plain.advance if plain else lambda: None), console


class _PlainProgress:
    """Progress for logs (stderr not a terminal): a line at every tenth of the work."""

    def __init__(self, console: Console, total: int) -> None:
        self.console, self.total, self.done, self.next_mark = console, total, 0, 1

    def advance(self) -> None:
        self.done += 1
        if self.total >= 20 and self.done * 10 >= self.next_mark * self.total:
            self.console.print(f"hipconv: {self.done}/{self.total} files", highlight=False)
            self.next_mark += 1
