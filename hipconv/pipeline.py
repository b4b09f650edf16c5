"""translate_file (never raises) and run (a process pool, in-process for one job)."""

from __future__ import annotations

import enum
import multiprocessing
import os
import re
import traceback
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

from hipconv.diagnostics import Diagnostic
from hipconv.edits import apply
from hipconv.lexer import lex
from hipconv.match import CUDA_CONSTRUCTS, Replacement, match_file
from hipconv.ruleset import LookupTable
from hipconv.settings import Settings
from hipconv.source import DecodeFailure, SourceFile

# Files with these suffixes are translated; everything else in a tree is copied unchanged.
SOURCE_SUFFIXES = frozenset(
    {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++",
     ".inl", ".inc", ".ipp", ".tpp", ".tcc", ".cuinc"}
)
CU_SUFFIXES = frozenset({".cu"})  # nvcc includes the CUDA runtime implicitly into these
MAX_SOURCE_BYTES = 64 * 1024 * 1024
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


class Status(enum.Enum):
    CONVERTED = "converted"
    UNCHANGED = "unchanged"
    COPIED = "copied"  # not a source file: copied byte for byte
    SKIPPED = "skipped"
    FAILED = "failed"


@dataclass(frozen=True)
class FileResult:
    path: str  # as shown to the user
    status: Status
    output: bytes | None = None  # the new content; None when nothing is to be written
    diagnostics: tuple[Diagnostic, ...] = ()
    replacements: tuple[Replacement, ...] = ()
    reason: str = ""  # why it was skipped or failed
    trace: str = ""  # traceback of an unexpected failure (a bug)
    size: int = 0


@dataclass(frozen=True)
class Job:
    display: str
    path: str  # filesystem path to read
    translate: bool  # False: copy unchanged


def translate_source(source: SourceFile, table: LookupTable, settings: Settings) -> FileResult:
    """Translate one decoded source. Pure: no I/O."""
    suffix = os.path.splitext(source.path)[1].lower()
    is_cu = suffix in CU_SUFFIXES
    if not _may_need_work(source.body, table, settings, is_cu):
        return FileResult(source.path, Status.UNCHANGED, size=len(source.data))
    tokens = lex(source.body)
    found = match_file(source, tokens, table, settings, is_cu=is_cu)
    result = apply(source.body, found.edits)
    diagnostics = list(found.diagnostics)
    for edit in result.rejected:
        line, col = source.line_col(edit.start)
        diagnostics.append(Diagnostic(source.path, line, col, "HC009",
                                      "this rewrite overlaps another one and was not applied", edit.rule_id))
    diagnostics.sort(key=lambda d: (d.line, d.col, d.code))
    changed = result.data != source.body
    return FileResult(
        source.path,
        Status.CONVERTED if changed else Status.UNCHANGED,
        output=source.bom + result.data if changed else None,
        diagnostics=tuple(diagnostics),
        replacements=tuple(r for r in found.replacements if r.rule_id not in {e.rule_id for e in result.rejected}),
        size=len(source.data),
    )


def _may_need_work(body: bytes, table: LookupTable, settings: Settings, is_cu: bool) -> bool:
    """The prefilter: one regex scan; files with no CUDA name skip libclang entirely."""
    if b"\\\n" in body or b"\\\r\n" in body:  # a line splice may join an identifier
        body = body.replace(b"\\\r\n", b"").replace(b"\\\n", b"")
    names = set(_IDENTIFIER.findall(body))
    if b"include" in names:
        return True  # include rules match header paths, not identifiers
    if settings.kernel_launch == "hip" and b"<<<" in body:
        return True
    words = {n.decode() for n in names}
    if not words.isdisjoint(table.names):
        return True
    return is_cu and (b"<<<" in body or not words.isdisjoint(CUDA_CONSTRUCTS))


def translate_job(job: Job, table: LookupTable, settings: Settings) -> FileResult:
    """Read and translate one file; never raises."""
    try:
        size = os.path.getsize(job.path)
        if size > MAX_SOURCE_BYTES:
            return FileResult(job.display, Status.FAILED, size=size,
                              reason=f"larger than {MAX_SOURCE_BYTES // (1024 * 1024)} MiB; not translated")
        with open(job.path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return FileResult(job.display, Status.FAILED, reason=f"cannot read: {exc.strerror or exc}")
    if not job.translate:
        return FileResult(job.display, Status.COPIED, output=data, size=len(data))
    try:
        source = SourceFile.from_bytes(job.display, data)
    except DecodeFailure as exc:
        return FileResult(job.display, Status.FAILED, output=data, reason=str(exc), size=len(data))
    try:
        return translate_source(source, table, settings)
    except Exception as exc:  # a bug: keep the traceback, go on with the other files
        return FileResult(job.display, Status.FAILED, output=data, size=len(data),
                          reason=f"internal error: {exc!r}", trace=traceback.format_exc())


# ---------------------------------------------------------------- running many files

_WORKER_STATE: dict[str, object] = {}


def _init_worker(table: LookupTable, settings: Settings) -> None:
    _WORKER_STATE["table"] = table
    _WORKER_STATE["settings"] = settings


def _worker(job: Job) -> FileResult:
    return translate_job(job, _WORKER_STATE["table"], _WORKER_STATE["settings"])  # type: ignore[arg-type]


def run(jobs: Sequence[Job], table: LookupTable, settings: Settings) -> Iterator[FileResult]:
    """Yield one FileResult per job, in job order. In-process for one job or one file."""
    if settings.jobs <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield translate_job(job, table, settings)
        return
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    with context.Pool(settings.jobs, initializer=_init_worker, initargs=(table, settings)) as pool:
        yield from pool.imap(_worker, jobs, chunksize=4)
