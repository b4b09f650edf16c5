"""Rendering of scan reports: clang-style text (rich), JSON, SARIF 2.1.0 and GitHub annotations.

All four come from the same FileScan values; JSON reads back into them (`findings_from_json`).
"""

from __future__ import annotations

import collections
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from hipconv.code_pages import CODES_PAGE, anchor, code_markdown, explain_code
from hipconv.console import plain, verbosity
from hipconv.diagnostics import CODES, Diagnostic, Severity
from hipconv.report import diagnostic_line, print_line
from hipconv.resources import docs_url
from hipconv.scan.scanner import FileScan, Finding
from hipconv.settings import Settings
from hipconv.version import __version__

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


@dataclass(frozen=True)
class ScanReport:
    scans: tuple[FileScan, ...]
    settings: Settings
    baselined: int = 0  # findings a --baseline already knew
    docs_url: str = ""  # where the codes' pages are (resources.docs_url): SARIF's helpUri; "" the installed copy

    def findings(self) -> Iterator[Finding]:
        for scan in self.scans:
            yield from scan.findings

    @property
    def failures(self) -> list[FileScan]:
        return [s for s in self.scans if s.failure]

    @property
    def suppressed(self) -> int:
        return sum(s.suppressed for s in self.scans)


# ---------------------------------------------------------------- text


def print_text(console: Console, report: ScanReport) -> None:
    """The whole text report on one console (`--output FILE`): findings, failures, summary."""
    print_findings(console, report)
    print_failures(console, report)
    print_summary(console, report)


def print_findings(console: Console, report: ScanReport) -> None:
    """Clang-style lines with hints, of the severities the console's verbosity shows (-q: no notes); coloured
    as the console was made to (hipconv.console.make_console)."""
    level, styled = verbosity(console), not plain(console)
    for finding in report.findings():
        if not level.shows(finding.severity):
            continue
        console.print(diagnostic_line(finding.diagnostic, styled=styled), soft_wrap=True, highlight=False)
        if finding.hint:
            console.print(
                Text(f"    hint: {finding.hint}", style="dim" if styled else ""), soft_wrap=True, highlight=False
            )


def print_failures(console: Console, report: ScanReport) -> None:
    """A line (and a bug's traceback) for each file that could not be scanned."""
    for scan in report.failures:
        print_line(console, f"{scan.path}: error: {scan.failure}")
        if scan.trace:
            print_line(console, scan.trace)


def print_summary(console: Console, report: ScanReport) -> None:
    """The summary line, then a table of the codes found (only when there is something to show); not with -q."""
    if not verbosity(console).chatty:
        return
    print_line(console, summary_line(report))
    table = scan_summary_table(report)
    if table.row_count:
        console.print(table)


def summary_line(report: ScanReport) -> str:
    count = sum(1 for _ in report.findings())
    extra = [
        f"{n} {what}"
        for n, what in (
            (report.suppressed, "suppressed"),
            (report.baselined, "in the baseline"),
            (len(report.failures), "files not scanned"),
        )
        if n
    ]
    return (
        f"hipconv scan: {len(report.scans)} file{'s' if len(report.scans) != 1 else ''}, "
        f"{count} finding{'s' if count != 1 else ''}" + (f" ({', '.join(extra)})" if extra else "")
    )


def scan_summary_table(report: ScanReport) -> Table:
    counts = collections.Counter(f.diagnostic.code for f in report.findings())
    table = Table(title="hipconv scan", show_header=True, header_style="bold")
    for name, justify in (("code", "left"), ("severity", "left"), ("count", "right"), ("meaning", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for code, n in sorted(counts.items()):
        table.add_row(code, CODES[code].severity.value, str(n), CODES[code].title)
    return table


# ---------------------------------------------------------------- JSON


def finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "path": finding.diagnostic.path,
        **finding.diagnostic.to_json(),
        "hint": finding.hint,
        "fingerprint": finding.fingerprint,
    }


def render_json(report: ScanReport) -> str:
    data = {
        "hipconv": __version__,
        "settings": {"rocm_version": str(report.settings.rocm), "kernel_launch": report.settings.kernel_launch},
        "summary": {
            "files": len(report.scans),
            "findings": sum(1 for _ in report.findings()),
            "suppressed": report.suppressed,
            "baselined": report.baselined,
            "by_severity": dict(collections.Counter(f.severity.value for f in report.findings())),
        },
        "findings": [finding_json(f) for f in report.findings()],
        "failures": [{"path": s.path, "reason": s.failure} for s in report.failures],
    }
    return json.dumps(data, indent=2) + "\n"


def findings_from_json(data: dict[str, Any]) -> list[Finding]:
    """The findings of a `--format json` report, as the values it was written from."""
    return [
        Finding(
            Diagnostic(f["path"], f["line"], f["col"], f["code"], f["message"], f["rule"], f["symbol"]),
            f["fingerprint"],
        )
        for f in data["findings"]
    ]


# ---------------------------------------------------------------- SARIF 2.1.0


def sarif_rules(docs: str) -> list[dict[str, Any]]:
    """A reportingDescriptor per code: its title, title and hint, its whole explanation (`hipconv codes CODE`
    as text and Markdown) and a link to its section of codes.md under the documentation URL `docs`."""
    return [
        {
            "id": c.code,
            "name": c.code,
            "shortDescription": {"text": c.title},
            "fullDescription": {"text": c.title + (f". {c.hint}" if c.hint else "")},
            "help": {"text": "\n".join(explain_code(c)), "markdown": code_markdown(c, heading="###")},
            "helpUri": f"{docs}/{CODES_PAGE}#{anchor(c)}",
            "defaultConfiguration": {"level": _SARIF_LEVEL[c.severity]},
        }
        for c in CODES.values()
    ]


def render_sarif(report: ScanReport) -> str:
    codes = list(CODES)
    rules = sarif_rules(report.docs_url or docs_url())
    results = []
    for finding in report.findings():
        d = finding.diagnostic
        message = d.message + (f" (hint: {finding.hint})" if finding.hint else "")
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": codes.index(d.code),
                "level": _SARIF_LEVEL[d.severity],
                "message": {"text": message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": _artifact(d.path),
                            "region": {"startLine": d.line, "startColumn": finding.utf16_col or d.col},
                        }
                    }
                ],
                "partialFingerprints": {"hipconvLineContent/v1": finding.fingerprint},
                **({"properties": {"hipconvRule": d.rule_id}} if d.rule_id else {}),
            }
        )
    notifications = [
        {
            "level": "error",
            "message": {"text": f"{s.path}: {s.failure}"},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(s.path)}}],
        }
        for s in report.failures
    ]
    run = {
        "tool": {"driver": {"name": "hipconv", "version": __version__, "rules": rules}},
        "invocations": [{"executionSuccessful": not notifications, "toolExecutionNotifications": notifications}],
        "columnKind": "utf16CodeUnits",
        "results": results,
    }
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"


def _artifact(path: str) -> dict[str, str]:
    if path.startswith("/"):
        return {"uri": "file://" + path}
    return {"uri": path, "uriBaseId": "%SRCROOT%"}


# ---------------------------------------------------------------- GitHub workflow annotations


def render_github(report: ScanReport, *, notes: bool = False) -> str:
    """One workflow command per finding; notes (`::notice`) only with `notes` (-v): a pull request's
    annotations are for what needs a change."""
    lines = []
    for finding in report.findings():
        d = finding.diagnostic
        if d.severity is Severity.NOTE and not notes:
            continue
        message = d.message + (f"\nhint: {finding.hint}" if finding.hint else "")
        props = f"file={_prop(d.path)},line={d.line},col={d.col},title={_prop(f'{d.code} {d.rule_id}'.strip())}"
        lines.append(f"::{_GITHUB_COMMAND[d.severity]} {props}::{_data(message)}")
    lines += [f"::error file={_prop(s.path)}::{_data(s.failure)}" for s in report.failures]
    return "".join(line + "\n" for line in lines)


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render_scan_report(report: ScanReport, fmt: str, *, verbose: bool = False) -> str:
    """JSON, SARIF or GitHub text (the text format prints through rich instead); GitHub's notes with `verbose`."""
    if fmt == "github":
        return render_github(report, notes=verbose)
    renderers = {"json": render_json, "sarif": render_sarif}
    return renderers[fmt](report)
