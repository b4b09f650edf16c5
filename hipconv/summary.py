"""What a translate run adds up while its results stream past: files by status, unported APIs, the
per-directory roll-up and the lines of CUDA code, as counters (rendered by hipconv.report)."""

from __future__ import annotations

import collections
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hipconv.buildfiles import build_file_kind
from hipconv.diagnostics import Diagnostic
from hipconv.results import FileResult, FileStatus

ROLLUP_DEPTH = 2  # the per-directory roll-up: directories up to this depth below the input root

Api = tuple[str, str]  # (CUDA symbol, diagnostic code): one row of the by-API table


@dataclass
class Rollup:
    """One directory's counters (the directories up to ROLLUP_DEPTH below the input root)."""

    files: int = 0
    converted: int = 0
    failed: int = 0
    replacements: int = 0
    unported: int = 0
    lines_automatic: int = 0
    lines_human: int = 0

    def add(self, result: FileResult, unported: int, automatic: int, human: int) -> None:
        self.files += 1
        self.converted += result.status is FileStatus.CONVERTED
        self.failed += result.status is FileStatus.FAILED
        self.replacements += len(result.replacements)
        self.unported += unported
        self.lines_automatic += automatic
        self.lines_human += human

    def to_json(self, path: str) -> dict[str, Any]:
        return {"path": path, **vars(self), "automatic_percent": percent(self.lines_automatic, self.lines_human)}


@dataclass
class Summary:
    """Counters accumulated while results stream past: memory stays flat without --report (it grows with
    the number of directories, APIs and failed files only); with keep_files every file's entry is kept.

    `root` is the directory the roll-up's paths are relative to ("" for the paths as they are)."""

    keep_files: bool = False
    root: str = ""
    started: float = field(default_factory=time.monotonic)
    files: collections.Counter[str] = field(default_factory=collections.Counter)
    bytes_in: int = 0
    replacements: collections.Counter[str] = field(default_factory=collections.Counter)
    unported: collections.Counter[Api] = field(default_factory=collections.Counter)  # occurrences
    unported_files: collections.Counter[Api] = field(default_factory=collections.Counter)  # files holding it
    severities: collections.Counter[str] = field(default_factory=collections.Counter)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (path, reason) of each failed file
    lines_automatic: int = 0
    lines_human: int = 0
    directories: dict[str, Rollup] = field(default_factory=dict)
    results: list[FileResult] = field(default_factory=list)  # with keep_files: every result, less its output
    _directory_of: dict[str, str] = field(default_factory=dict, repr=False, compare=False)  # by a file's folder

    def add(self, result: FileResult) -> None:
        self.files[result.status.value] += 1
        self.bytes_in += result.size
        for r in result.replacements:
            self.replacements[r.library] += 1
        apis: collections.Counter[Api] = collections.Counter()
        for d in result.diagnostics:
            self.severities[d.severity.value] += 1
            if d.unported:
                apis[api_of(d)] += 1
        self.unported.update(apis)
        self.unported_files.update(apis.keys())
        automatic, human = line_counts(result)
        self.lines_automatic += automatic
        self.lines_human += human
        if result.status is FileStatus.FAILED:
            self.failures.append((result.path, result.reason))
        self.directories.setdefault(self.directory(result.path), Rollup()).add(
            result, sum(apis.values()), automatic, human
        )
        if self.keep_files:
            self.results.append(replace(result, output=None))

    def directory(self, path: str) -> str:
        """The roll-up directory of a path: its directory up to ROLLUP_DEPTH below the root ("." for the
        root itself; a path outside the root keeps its whole directory). Found once per directory."""
        folder = os.path.dirname(path)
        found = self._directory_of.get(folder)
        if found is None:
            found = self._directory_of[folder] = self._directory(path)
        return found

    def _directory(self, path: str) -> str:
        rel = os.path.relpath(path, self.root) if self.root else path
        parent = os.path.dirname(rel)
        if not parent or rel.startswith(os.pardir + os.sep):
            return parent or "."
        return "/".join(parent.split(os.sep)[:ROLLUP_DEPTH])

    @property
    def failed(self) -> int:
        return self.files[FileStatus.FAILED.value]

    @property
    def unported_count(self) -> int:
        return sum(self.unported.values())

    def unported_by_count(self) -> list[tuple[Api, int]]:
        """The unported APIs, most occurrences first, then by name."""
        return sorted(self.unported.items(), key=lambda item: (-item[1], item[0]))


def line_counts(result: FileResult) -> tuple[int, int]:
    """(lines translated automatically, lines needing a human) of a translated source file: lines where a
    replacement starts and no unported finding does, and lines where an unported finding does. Build
    files count (0, 0)."""
    if not result.replacements and not result.diagnostics or build_file_kind(result.path) is not None:
        return 0, 0
    human = {d.line for d in result.diagnostics if d.unported}
    return len({r.line for r in result.replacements} - human), len(human)


def percent(automatic: int, human: int) -> float | None:
    """The share of lines of CUDA code translated automatically, in percent; None when there are none."""
    return round(100 * automatic / (automatic + human), 1) if automatic + human else None


def api_of(d: Diagnostic) -> Api:
    """The by-API key of an unported finding: the CUDA spelling (or the rule id) and the code."""
    return (d.symbol or d.rule_id or d.code, d.code)


def rollup_root(inputs: Sequence[str], *, tree: bool) -> str:
    """The directory the roll-up is relative to: the input tree (the inputs' common directory when there
    are several), or the directory of a single input file."""
    paths = [os.path.normpath(p) for p in inputs]
    if not tree:
        return os.path.dirname(paths[0]) or "."
    try:
        return os.path.commonpath(paths) or "."
    except ValueError:  # absolute and relative paths mixed
        return os.path.commonpath([os.path.abspath(p) for p in paths])
