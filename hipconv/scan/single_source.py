"""`hipconv scan --single-source`: drift of a tree that `translate --single-source` wrote.

Each file is translated in single-source form again, in memory (pipeline.run with Settings.single_source),
and compared with what is on disk:
- HC034: a CUDA name the file's translation renames that the nearest hipconv_portability.h (in its folder
  or one above) does not `#define` (or there is no such header);
- HC035: a guarded edit whose CUDA side (`#else` part) is no longer the text its digest was made from; in a
  build file, a GPU_BACKEND branch's (buildfiles.backends.drifted_branches);
- HC036: any other difference: a CUDA line that now needs a HIP edit, an edit no longer needed, an include
  of the CUDA headers without the guarded portability header beside it.

The release is the one the tree's header was written for (its second line, single_source.recorded_release) when
the user names none (tree_settings); one named that differs from the header's stops the scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from hipconv.buildfiles import build_file_kind
from hipconv.buildfiles.backends import BACKEND_VARIABLE, drifted_branches
from hipconv.config import rocm_target
from hipconv.diagnostics import (
    SINGLE_SOURCE_EDIT_DRIFTED,
    SINGLE_SOURCE_NAME_MISSING,
    SINGLE_SOURCE_STALE,
    Diagnostic,
)
from hipconv.errors import ConfigError
from hipconv.pipeline import run
from hipconv.results import FileResult, FileStatus, Job
from hipconv.rules.model import LookupTable
from hipconv.rules.ranges import range_label
from hipconv.scan.scanner import FileScan, Finding, fingerprint, normalise
from hipconv.settings import Settings
from hipconv.single_source import recorded_release, renames_of
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
    kind = build_file_kind(path)
    for branch in drifted_branches(kind, data) if kind is not None else ():
        first, last = data.count(b"\n", 0, branch.start) + 1, data.count(b"\n", 0, branch.end) + 1
        found.append(
            Diagnostic(
                path,
                first,
                1,
                SINGLE_SOURCE_EDIT_DRIFTED,
                f"the CUDA side of this {BACKEND_VARIABLE} branch (lines {first}-{last}) changed since hipconv wrote "
                f"its HIP side (digest {branch.digest}); rerun `hipconv translate --single-source` to regenerate it",
            )
        )
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
        data = _read_header(place)
        if data is None:
            continue
        found = frozenset((a.decode(), b.decode()) for a, b in _DEFINE.findall(data))
        seen[place] = found
        return found
    return None


def _read_header(folder: Path) -> bytes | None:
    try:
        return (folder / PORTABILITY_HEADER).read_bytes()
    except OSError:
        return None


def tree_settings(jobs: Sequence[Job], settings: Settings, *, given: bool) -> tuple[Settings, str | None]:
    """The settings to check `jobs` with, and a note saying where their release came from (None: as given, or
    no header says). A release `given` (--rocm-version, or the configuration's) must be the one every header of
    the jobs records; else the release those headers record, which must be one."""
    recorded: dict[str, list[Path]] = {}
    folders = {Path(job.path).parent for job in jobs}
    for header in sorted({h for f in folders if (h := _nearest(f)) is not None}):
        release = recorded_release(_read_header(header) or b"")
        if release is not None:
            recorded.setdefault(release, []).append(header / PORTABILITY_HEADER)
    wanted = range_label(settings) or str(settings.rocm)
    if given:
        for release, headers in recorded.items():
            if rocm_target(release) != (settings.rocm, settings.rocm_range):
                raise ConfigError(
                    f"{headers[0]} was written for ROCm {release}, and this scan checks for ROCm {wanted}: it would "
                    "report the differences between the releases, not drift",
                    hint=f"scan without --rocm-version (or rocm-version in the configuration): it reads the release "
                    f"from the header; or move the tree to ROCm {wanted} with `hipconv translate TREE -o OUT "
                    f"--single-source --rocm-version {wanted}`",
                )
        return settings, None
    if not recorded:
        return settings, None
    if len(recorded) > 1:
        said = "; ".join(f"{headers[0]} for ROCm {release}" for release, headers in sorted(recorded.items()))
        raise ConfigError(
            f"the trees' {PORTABILITY_HEADER} files were written for different releases ({said})",
            hint="scan each tree on its own, or give the release with --rocm-version",
        )
    ((release, headers),) = recorded.items()
    rocm, span = rocm_target(release)
    note = f"checking for ROCm {release}, which {headers[0]} was written for"
    return replace(settings, rocm=rocm, rocm_range=span), note


def _nearest(folder: Path) -> Path | None:
    """The folder of the nearest hipconv_portability.h in `folder` or above."""
    return next((place for place in (folder, *folder.parents) if (place / PORTABILITY_HEADER).is_file()), None)
