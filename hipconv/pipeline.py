"""The translation pipeline: read, prefilter, lex, match, apply, per file; `run` drives many files.

A file's problem (unreadable, not UTF-8, a bug) becomes its FileResult; only a missing
libclang (HipconvError) stops the run. `run` uses a process pool, in-process for one job.
"""

from __future__ import annotations

import enum
import multiprocessing
import os
import traceback
from dataclasses import dataclass
from typing import Iterator, Mapping, Sequence

from hipconv.diagnostics import Diagnostic
from hipconv.edits import Edit, apply
from hipconv.errors import HipconvError
from hipconv.lexer import Tokens, lex, lex_many
from hipconv.match import CUDA_CONSTRUCT_WORDS, Replacement, file_words, match_file
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
    size: int = -1  # from discovery's stat; -1 when unknown
    mode: int | None = None  # permission bits for the output file


def translate_source(source: SourceFile, table: LookupTable, settings: Settings) -> FileResult:
    """Translate one decoded source. Pure: no I/O."""
    return translate_sources([source], table, settings)[0]


def translate_sources(sources: Sequence[SourceFile], table: LookupTable, settings: Settings, *,
                      words: Sequence[frozenset[bytes]] | None = None,
                      lexed: Mapping[int, Tokens] | None = None) -> list[FileResult]:
    """Translate decoded sources, lexing those that need it with one libclang call.

    `words` (per source, from match.file_words) and `lexed` (tokens by source index) let a caller
    that scanned or lexed the sources already (hipconv scan) share that work.
    """
    words = words if words is not None else [file_words(s.body) for s in sources]
    results: list[FileResult | None] = [None] * len(sources)
    todo = [n for n, source in enumerate(sources) if needs_translation(source, words[n], table, settings)]
    for n in sorted(set(range(len(sources))) - set(todo)):
        results[n] = FileResult(sources[n].path, Status.UNCHANGED, size=len(sources[n].data))
    tokens = dict(lexed or {})
    tokens.update(lex_sources(sources, [n for n in todo if n not in tokens]))
    for n in todo:
        source = sources[n]
        try:
            results[n] = _translate_tokens(source, tokens[n], table, settings, words[n])
        except HipconvError:
            raise
        except Exception as exc:  # a bug: keep the traceback, go on with the other files
            results[n] = FileResult(source.path, Status.FAILED, output=source.data, size=len(source.data),
                                    reason=f"internal error: {exc!r}", trace=traceback.format_exc())
    return [r for r in results if r is not None]


def lex_sources(sources: Sequence[SourceFile], wanted: Sequence[int]) -> dict[int, Tokens]:
    """Tokens of the wanted sources, lexed with one libclang call (file by file if batching fails)."""
    try:
        return dict(zip(wanted, lex_many([sources[n].body for n in wanted])))
    except HipconvError:
        raise
    except Exception:  # a bug in batching: lex the files one by one
        return {n: lex(sources[n].body) for n in wanted}


def _translate_tokens(source: SourceFile, tokens: Tokens, table: LookupTable, settings: Settings,
                      words: frozenset[bytes]) -> FileResult:
    found = match_file(source, tokens, table, settings, is_cu=_is_cu(source), words=words)
    return edited_result(source, found.edits, found.diagnostics, found.replacements)


def edited_result(source: SourceFile, edits: Sequence[Edit], diagnostics: Sequence[Diagnostic],
                  replacements: Sequence[Replacement]) -> FileResult:
    """Apply a file's edits and make its result; an edit overlapping another becomes HC009."""
    result = apply(source.body, edits)
    found = list(diagnostics)
    for edit in result.rejected:
        line, col = source.line_col(edit.start)
        found.append(Diagnostic(source.path, line, col, "HC009",
                                "this rewrite overlaps another one and was not applied", edit.rule_id))
    found.sort(key=lambda d: (d.line, d.col, d.code))
    changed = result.data != source.body
    rejected = {e.rule_id for e in result.rejected}
    return FileResult(
        source.path,
        Status.CONVERTED if changed else Status.UNCHANGED,
        output=source.bom + result.data if changed else None,
        diagnostics=tuple(found),
        replacements=tuple(r for r in replacements if r.rule_id not in rejected),
        size=len(source.data),
    )


def _is_cu(source: SourceFile) -> bool:
    return os.path.splitext(source.path)[1].lower() in CU_SUFFIXES


def needs_translation(source: SourceFile, words: frozenset[bytes], table: LookupTable, settings: Settings) -> bool:
    """The prefilter, on the file's words: False when the file needs no lexing at all."""
    return bool(
        b"include" in words  # include rules match header paths, not identifiers
        or (settings.kernel_launch == "hip" and b"<<<" in source.body)
        or not words.isdisjoint(table.names)
        or (_is_cu(source) and (b"<<<" in source.body or not words.isdisjoint(CUDA_CONSTRUCT_WORDS)))
    )


def read_job(job: Job) -> SourceFile | FileResult:
    """Read one file: its SourceFile, or the result that says why there is none."""
    try:
        with open(job.path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_SOURCE_BYTES:
                return FileResult(job.display, Status.FAILED, size=size,
                                  reason=f"larger than {MAX_SOURCE_BYTES // (1024 * 1024)} MiB; not translated")
            data = fh.read()
    except OSError as exc:
        return FileResult(job.display, Status.FAILED, reason=f"cannot read: {exc.strerror or exc}")
    if not job.translate:
        return FileResult(job.display, Status.COPIED, output=data, size=len(data))
    try:
        return SourceFile.from_bytes(job.display, data)
    except DecodeFailure as exc:
        return FileResult(job.display, Status.FAILED, output=data, reason=str(exc), size=len(data))


def translate_jobs(jobs: Sequence[Job], table: LookupTable, settings: Settings, *,
                   offload_archs: Sequence[str] | None = None) -> list[FileResult]:
    """Read and translate a batch of files; never raises for a file's sake.

    Build files (CMakeLists.txt, *.cmake, Makefiles) go to buildfiles.py, with `offload_archs`
    replacing CUDA architectures (default: nvcc_flags.DEFAULT_OFFLOAD_ARCHS).
    """
    read = [_build_file(r, offload_archs) for r in (read_job(job) for job in jobs)]
    sources = [r for r in read if isinstance(r, SourceFile)]
    translated = iter(translate_sources(sources, table, settings))
    return [next(translated) if isinstance(r, SourceFile) else r for r in read]


def _build_file(read: SourceFile | FileResult, offload_archs: Sequence[str] | None) -> SourceFile | FileResult:
    """A build file's translation; anything else as it was read."""
    from hipconv.buildfiles import (  # buildfiles imports this module
        build_file_kind,
        translate_build_file,
    )

    if isinstance(read, FileResult):
        if read.status is not Status.COPIED or read.output is None or build_file_kind(read.path) is None:
            return read
        try:
            source = SourceFile.from_bytes(read.path, read.output)
        except DecodeFailure:
            return read  # not text: copied unchanged, as before
    elif build_file_kind(read.path) is None:
        return read
    else:
        source = read
    try:
        return translate_build_file(source, *(() if offload_archs is None else (offload_archs,)))
    except Exception as exc:  # a bug: keep the traceback, copy the file unchanged
        return FileResult(source.path, Status.FAILED, output=source.data, size=len(source.data),
                          reason=f"internal error: {exc!r}", trace=traceback.format_exc())


# ---------------------------------------------------------------- running many files

BATCH_FILES = 64  # files lexed per libclang call (its per-call set-up dominates for small files)
BATCH_BYTES = 4 * 1024 * 1024

# Per-worker state set once by the pool initializer (a fork inherits the tables, spawn pickles them).
_WORKER_STATE: dict[str, object] = {}


def _init_worker(table: LookupTable, settings: Settings, offload_archs: Sequence[str] | None = None) -> None:
    _WORKER_STATE["table"] = table
    _WORKER_STATE["settings"] = settings
    _WORKER_STATE["offload_archs"] = offload_archs


def _worker(batch: list[Job]) -> list[FileResult]:
    return translate_jobs(batch, _WORKER_STATE["table"], _WORKER_STATE["settings"],  # type: ignore[arg-type]
                          offload_archs=_WORKER_STATE.get("offload_archs"))  # type: ignore[arg-type]


def batches(jobs: Sequence[Job]) -> Iterator[list[Job]]:
    batch: list[Job] = []
    size = 0
    for job in jobs:
        if batch and (len(batch) >= BATCH_FILES or size + job.size > BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(job)
        size += max(job.size, 0)
    if batch:
        yield batch


def run(jobs: Sequence[Job], table: LookupTable, settings: Settings, *,
        offload_archs: Sequence[str] | None = None) -> Iterator[FileResult]:
    """Yield one FileResult per job, in job order. In-process for one job or one file."""
    if settings.jobs <= 1 or len(jobs) <= 1:
        for batch in batches(jobs):
            yield from translate_jobs(batch, table, settings, offload_archs=offload_archs)
        return
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    with context.Pool(settings.jobs, initializer=_init_worker, initargs=(table, settings, offload_archs)) as pool:
        for results in pool.imap(_worker, batches(jobs)):
            yield from results
