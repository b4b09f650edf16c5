"""`hipconv scan`: what would not port, per file, as data. Reads files, never writes them.

    jobs ─read→ SourceFile ─translate_sources→ API diagnostics (HC0xx/HC1xx)
                           ─lex→ FileView ─CHECKS→ portability findings (HC3xx)
         ─suppress (// hipconv: ignore[...])→ FileScan

A file that cannot be read becomes a FileScan with a failure; a bug in a check
becomes one with its traceback. Nothing here prints.
"""

from __future__ import annotations

import hashlib
import os
import traceback
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from hipconv.config import fails_on
from hipconv.diagnostics import CODES, Diagnostic, Severity
from hipconv.file_reads import read_job
from hipconv.pipeline import batches, project_of_jobs
from hipconv.results import FileResult, Job
from hipconv.rules.model import LookupTable
from hipconv.scan.checks import CHECKS, Check
from hipconv.scan.suppressions import is_suppressed, suppressions
from hipconv.scan.view import FileView
from hipconv.settings import Settings
from hipconv.translate.lexer import Tokens
from hipconv.translate.project import NO_PROJECT, Project
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import lex_sources, needs_translation, translate_sources
from hipconv.translate.words import file_words


class Finding(NamedTuple):
    diagnostic: Diagnostic
    fingerprint: str  # of the line's content: what a baseline matches, so moved code stays known
    utf16_col: int = 0  # the column in UTF-16 code units (SARIF's columnKind); 0: unknown, take diagnostic.col

    @property
    def severity(self) -> Severity:
        return self.diagnostic.severity

    @property
    def hint(self) -> str:
        return CODES[self.diagnostic.code].hint


@dataclass(frozen=True)
class FileScan:
    path: str  # normalised, '/'-separated
    findings: tuple[Finding, ...] = ()
    suppressed: int = 0  # findings silenced by `// hipconv: ignore` comments
    failure: str = ""  # why the file could not be scanned
    trace: str = ""  # traceback of a bug in a check


def fingerprint(line: bytes) -> str:
    """Of the line's content with whitespace runs collapsed: indentation and moves do not change it."""
    return hashlib.sha256(b" ".join(line.split())).hexdigest()[:16]


def scan_jobs(
    jobs: Sequence[Job], table: LookupTable, settings: Settings, *, disabled: frozenset[str] = frozenset()
) -> Iterator[FileScan]:
    """Scan files in batches (each batch lexed with one libclang call per stage); yields one FileScan per
    job, in order, as each batch is done (the caller shows progress). What the jobs' sources tell each other
    (pipeline.project_of_jobs: the project's own names, its lane masks, ...) is gathered first."""
    project = project_of_jobs(jobs, table, settings.include_dirs, extra_masks=True)
    for batch in batches(jobs):
        read = [read_job(job) for job in batch]
        sources = [r for r in read if isinstance(r, SourceFile)]
        scanned = iter(scan_sources(sources, table, settings, disabled=disabled, project=project))
        yield from (next(scanned) if isinstance(r, SourceFile) else _failed(r) for r in read)


def scan_sources(
    sources: Sequence[SourceFile],
    table: LookupTable,
    settings: Settings,
    *,
    disabled: frozenset[str] = frozenset(),
    project: Project = NO_PROJECT,
) -> list[FileScan]:
    """Scan decoded sources: the translator's diagnostics plus every enabled check. Pure: no I/O.
    `project`: what the run's files tell each other (translate_sources).

    Each file's words are computed once and the files are lexed once, for the translator and
    the checks together."""
    checks = [c for c in CHECKS if c.code not in disabled]
    words = [file_words(source.body) for source in sources]
    for_checks = [n for n, w in enumerate(words) if any(not w.isdisjoint(c.words) for c in checks) or b"hipconv" in w]
    for_translation = [n for n, source in enumerate(sources) if needs_translation(source, words[n], table, settings)]
    tokens = lex_sources(sources, sorted(set(for_checks) | set(for_translation)))
    translated = translate_sources(sources, table, settings, words=words, lexed=tokens, project=project)
    scans = []
    for n, (source, result) in enumerate(zip(sources, translated)):
        path = normalise(source.path)
        if result.trace:
            scans.append(FileScan(path, failure=result.reason, trace=result.trace))
            continue
        try:
            scans.append(_scan_file(source, result, tokens.get(n), words[n], settings, checks, disabled))
        except Exception as exc:  # a bug in a check: keep the traceback, go on with the other files
            scans.append(FileScan(path, failure=f"internal error: {exc!r}", trace=traceback.format_exc()))
    return scans


def _scan_file(
    source: SourceFile,
    result: FileResult,
    tokens: Tokens | None,
    words: frozenset[bytes],
    settings: Settings,
    checks: Sequence[Check],
    disabled: frozenset[str],
) -> FileScan:
    found = [d for d in result.diagnostics if d.code not in disabled]
    if tokens is not None:
        view = FileView(tokens, settings)
        for check in checks:
            if words.isdisjoint(check.words):
                continue
            covered = _arguments_reported(view, source, result.diagnostics, check.covered_by)
            for offset, message in check.run(view):
                if covered and view.argument_at(offset) in covered:
                    continue  # the translator reported it there (even when that code is disabled)
                line, col = source.line_col(offset)
                found.append(Diagnostic(source.path, line, col, check.code, message, check.id))
        found = _one_per_position(found)
    # the token walk costs a line lookup per token: skip it when no comment can say `hipconv:`
    ignores = suppressions(tokens, source) if tokens is not None and b"hipconv:" in source.body else {}
    kept = [d for d in found if not is_suppressed(d, ignores)]
    kept.sort(key=lambda d: (d.line, d.col, d.code))
    lines = source.body.split(b"\n")
    path = normalise(source.path)
    findings = tuple(
        Finding(
            Diagnostic(path, d.line, d.col, d.code, d.message, d.rule_id, d.symbol),
            fingerprint(lines[d.line - 1]),
            utf16_column(lines[d.line - 1], d.col, escaped=source.escaped),
        )
        for d in kept
    )
    return FileScan(path, findings, suppressed=len(found) - len(kept))


def utf16_column(line: bytes, col: int, *, escaped: bool) -> int:
    """The 1-based column in UTF-16 code units of the 1-based column `col` in bytes of the file (as
    SourceFile.line_col counts it) on a line of a body: a character beyond U+FFFF is two units, any other
    one; a byte that is not UTF-8 (`escaped`: kept as U+F780..U+F7FF in the body) one byte and one unit."""
    if line.isascii():
        return col
    units = size = 0
    for char in line.decode("utf-8", errors="replace"):
        if size >= col - 1:
            break
        size += 1 if escaped and 0xF780 <= ord(char) <= 0xF7FF else len(char.encode("utf-8"))
        units += 2 if ord(char) > 0xFFFF else 1
    return units + 1


def _arguments_reported(
    view: FileView, source: SourceFile, diagnostics: Iterable[Diagnostic], codes: frozenset[str]
) -> set[tuple[int, int]]:
    """The call arguments (FileView.argument_at) where the translator reported one of codes."""
    at = [(d.line, d.col) for d in diagnostics if d.code in codes]
    if not at:
        return set()
    line_starts = [0]
    while len(line_starts) < max(line for line, _ in at):
        line_starts.append(source.body.index(b"\n", line_starts[-1]) + 1)
    arguments = (view.argument_at(line_starts[line - 1] + col - 1) for line, col in at)
    return {a for a in arguments if a is not None}


def _one_per_position(found: list[Diagnostic]) -> list[Diagnostic]:
    """One finding per line:col and code, the first. Two codes at one position are two hazards (HC304's 32-bit
    store of __activemask's result and HC305's __activemask), both kept."""
    best: dict[tuple[int, int, str], Diagnostic] = {}
    for d in found:
        best.setdefault((d.line, d.col, d.code), d)
    return list(best.values())


def _failed(result: FileResult) -> FileScan:
    return FileScan(normalise(result.path), failure=result.reason or result.status.value, trace=result.trace)


def normalise(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def at_or_above(findings: Iterable[Finding], level: str) -> list[Finding]:
    """The findings that --fail-on LEVEL (error | warning | never) fails on, as translate's --fail-on does."""
    return [f for f in findings if fails_on(level, f.severity)]
