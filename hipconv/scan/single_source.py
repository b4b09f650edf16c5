"""`hipconv scan --single-source`: drift of a tree that `translate --single-source` wrote.

Each file is translated in single-source form again, in memory (pipeline.run with Settings.single_source),
and compared with what is on disk:
- HC034: a CUDA name the file's translation renames that the nearest hipconv_portability.h (in its folder
  or one above) does not `#define` (or there is no such header);
- HC035: a guarded edit whose CUDA side (`#else` part) is no longer the text its digest was made from;
- HC036: any other difference: a CUDA line that now needs a HIP edit, an edit no longer needed, an include
  of the CUDA headers without the guarded portability header beside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from hipconv.diagnostics import (
    SINGLE_SOURCE_EDIT_DRIFTED,
    SINGLE_SOURCE_NAME_MISSING,
    SINGLE_SOURCE_STALE,
    Diagnostic,
)
from hipconv.pipeline import run
from hipconv.results import FileResult, FileStatus, Job
from hipconv.rules.model import LookupTable
from hipconv.scan.scanner import FileScan, Finding, fingerprint, normalise
from hipconv.settings import Settings
from hipconv.single_source import renames_of
from hipconv.single_source.fold import PORTABILITY_HEADER, blocks

_DEFINE = re.compile(rb"^#define (\w+) (\w+)$", re.M)


def drift_scans(
    jobs: Sequence[Job], table: LookupTable, settings: Settings, *, disabled: frozenset[str] = frozenset()
) -> Iterator[FileScan]:
    """One FileScan per job, in order, with the drift findings of its file."""
    headers: dict[Path, frozenset[tuple[str, str]] | None] = {}
    for job, result in zip(jobs, run(jobs, table, settings)):
        path = normalise(job.display)
        if result.status is FileStatus.FAILED:
            yield FileScan(path, failure=result.reason, trace=result.trace)
            continue
        try:
            data = Path(job.path).read_bytes()
        except OSError as exc:
            yield FileScan(path, failure=f"cannot read: {exc.strerror or exc}")
            continue
        header = _header(Path(job.path).parent, headers)
        found = [d for d in _drift(job.display, data, result, header) if d.code not in disabled]
        lines = data.split(b"\n")
        yield FileScan(
            path, tuple(Finding(d, fingerprint(lines[d.line - 1] if d.line <= len(lines) else b"")) for d in found)
        )


def _drift(path: str, data: bytes, result: FileResult, header: frozenset[tuple[str, str]] | None) -> list[Diagnostic]:
    text = data.decode("utf-8", "surrogateescape")
    lines = text.splitlines(keepends=True)
    found = [
        Diagnostic(
            path,
            block.start + 1,
            1,
            SINGLE_SOURCE_EDIT_DRIFTED,
            f"the CUDA side of this guarded edit (lines {block.start + 1}-{block.end}) changed since hipconv wrote "
            f"its HIP side (digest {block.digest}); rerun `hipconv translate --single-source` to regenerate it",
        )
        for block in blocks(lines)
        if block.drifted
    ]
    header_where = f"there is no {PORTABILITY_HEADER} in this folder or above" if header is None else ""
    for cuda, hip in sorted(renames_of(result) - (header or frozenset())):
        at = next((r for r in result.replacements if r.cuda == cuda), None)
        where = header_where or f"{PORTABILITY_HEADER} has no #define {cuda} {hip}"
        found.append(
            Diagnostic(
                path,
                at.line if at else 1,
                at.col if at else 1,
                SINGLE_SOURCE_NAME_MISSING,
                f"{cuda} reads {hip} under hipcc, but {where}",
                symbol=cuda,
            )
        )
    if (
        result.status is FileStatus.CONVERTED
        and result.output is not None
        and not any(d.code == SINGLE_SOURCE_EDIT_DRIFTED for d in found)
    ):
        new = result.output.decode("utf-8", "surrogateescape").splitlines(keepends=True)
        line = next((n for n, (a, b) in enumerate(zip(lines, new)) if a != b), min(len(lines), len(new)))
        found.append(
            Diagnostic(
                path,
                line + 1,
                1,
                SINGLE_SOURCE_STALE,
                "not in the single-source form hipconv writes for it from this line on (a CUDA line that needs a "
                "HIP edit has none, or an include of the CUDA headers is not guarded)",
            )
        )
    return sorted(found, key=lambda d: (d.line, d.col, d.code))


def _header(folder: Path, seen: dict[Path, frozenset[tuple[str, str]] | None]) -> frozenset[tuple[str, str]] | None:
    """The renames of the nearest hipconv_portability.h in `folder` or above (None: there is none)."""
    for place in (folder, *folder.parents):
        if place in seen:
            return seen[place]
        try:
            data = (place / PORTABILITY_HEADER).read_bytes()
        except OSError:
            continue
        found = frozenset((a.decode(), b.decode()) for a, b in _DEFINE.findall(data))
        seen[place] = found
        return found
    return None
