"""All rendering: diagnostics lines, progress, the stats table and the JSON report."""

from __future__ import annotations

import collections
import time
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from hipconv import __version__
from hipconv.coverage import Coverage, load_symbols
from hipconv.coverage import coverage as library_coverage
from hipconv.diagnostics import CODES, UNPORTED_CODES, Diagnostic, Severity
from hipconv.errors import ConfigError
from hipconv.nvcc_flags import flag_table_markdown
from hipconv.pipeline import FileResult, Status
from hipconv.ruleset import RuleSet
from hipconv.ruleset import Status as RuleStatus
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
            if d.code in UNPORTED_CODES:
                self.unported[(d.symbol, d.code)] += 1
        if self.keep_files:
            self.entries.append(file_entry(result))

    @property
    def failed(self) -> int:
        return self.files[Status.FAILED.value]

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
    if result.status in (Status.FAILED, Status.SKIPPED):
        failed = result.status is Status.FAILED
        copied = " (copied unchanged)" if failed and result.output is not None else ""
        lines.append(clang_line(f"{result.path}: ", Severity.ERROR if failed else Severity.NOTE,
                                f": {result.reason}{copied}", styled=console.is_terminal))
    if not console.is_terminal:  # logs and pipes: plain text, without rich's per-line rendering cost
        console.file.write("".join(f"{line.plain}\n" for line in lines) + result.trace)
        return
    for line in lines:
        console.print(line, soft_wrap=True, highlight=False)
    if result.trace:
        console.print(result.trace, soft_wrap=True, highlight=False, markup=False)


def stats_table(summary: Summary) -> Table:
    elapsed = max(time.monotonic() - summary.started, 1e-9)
    table = Table(title="hipconv translate", show_header=True, header_style="bold")
    table.add_column("what")
    table.add_column("count", justify="right")
    for status in Status:
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
        "settings": {"rocm_version": str(settings.rocm), "kernel_launch": settings.kernel_launch,
                     "experimental": settings.experimental},
        "summary": {
            "files": dict(summary.files),
            "replacements": dict(summary.replacements),
            "diagnostics": dict(summary.severities),
            "unported": [{"symbol": s, "code": c, "count": n} for (s, c), n in sorted(summary.unported.items())],
        },
        "files": summary.entries,
    }


# ---------------------------------------------------------------- generated documentation

_BEGIN, _END = "<!-- BEGIN generated: {} -->", "<!-- END generated: {} -->"


def generated_sections(ruleset: RuleSet) -> dict[str, str]:
    """Markdown derived from the code and the rules; README.md embeds it (a test keeps it current)."""
    codes = ["| code | severity | meaning |", "| --- | --- | --- |"]
    codes += [f"| {c.code} | {c.severity.value} | {c.title} |" for c in CODES.values()]
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for rule in ruleset.rules:
        counts[rule.library][rule.status.value] += 1
    statuses = [s.value for s in RuleStatus]
    coverage = ["| family | rules | " + " | ".join(statuses) + " |", "| --- | ---: | " + " | ".join("---:" for _ in statuses) + " |"]
    for library in sorted(counts):
        row = counts[library]
        coverage.append(f"| {library} | {sum(row.values())} | " + " | ".join(str(row[s]) for s in statuses) + " |")
    libraries = ["| library | CUDA symbols | with a rule | translated | unsupported | HIP twin but no rule |",
                 "| --- | ---: | ---: | ---: | ---: | ---: |"]
    libraries += [f"| {row.library} | {row.symbols} | {row.with_rule} | {row.supported} | {row.unsupported} | "
                  f"{len(row.twins_without_rule)} |" for row in library_coverage(ruleset, load_symbols())]
    return {"codes": "\n".join(codes) + "\n", "coverage": "\n".join(coverage) + "\n",
            "libraries": "\n".join(libraries) + "\n", "nvcc-flags": flag_table_markdown(),
            "cudnn": cudnn_markdown(ruleset)}


def cudnn_markdown(ruleset: RuleSet) -> str:
    """The cuDNN functions: how each translated one is rewritten, and the unsupported ones grouped by reason."""
    rows = ["| cuDNN function | MIOpen | rewrite |", "| --- | --- | --- |"]
    unsupported: dict[str, list[str]] = collections.defaultdict(list)
    for rule in sorted(ruleset.rules, key=lambda r: r.cuda):
        if rule.library != "cudnn" or rule.kind != "function":
            continue
        if rule.hip is None:
            unsupported[f"{rule.code or 'HC201'}: {rule.note or ''}"].append(f"`{rule.cuda}`")
            continue
        how = (f"template `{rule.template.parent.name}/{rule.template.name}`"
               + (" (statement)" if rule.scope == "statement" else "") if rule.template
               else "arguments reordered" + (f", drops {', '.join(rule.drops)}" if rule.drops else "") if rule.args
               else "renamed")
        rows.append(f"| `{rule.cuda}` | `{rule.hip}` | {how} |")
    lines = rows + ["", "Unsupported (left unchanged, reported with the code shown):", ""]
    lines += [f"- {reason} — {', '.join(names)}" for reason, names in sorted(unsupported.items())]
    return "\n".join(lines) + "\n"


def coverage_table(rows: list[Coverage]) -> Table:
    table = Table(title="library coverage", header_style="bold")
    for column in ("library", "CUDA symbols", "with a rule", "translated", "unsupported", "HIP twin but no rule"):
        table.add_column(column, justify="left" if column == "library" else "right")
    for row in rows:
        table.add_row(row.library, str(row.symbols), str(row.with_rule), str(row.supported), str(row.unsupported),
                      str(len(row.twins_without_rule)))
    return table


def splice_sections(text: str, sections: dict[str, str], where: str) -> str:
    for name, body in sections.items():
        begin, end = _BEGIN.format(name), _END.format(name)
        start, stop = text.find(begin), text.find(end)
        if start == -1 or stop == -1 or stop < start:
            raise ConfigError(f"{where} has no '{begin}' ... '{end}' section")
        text = text[:start + len(begin)] + "\n" + body + text[stop:]
    return text
