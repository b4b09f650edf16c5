"""Running many files: read each job, translate sources and build files, in batches, in a process
pool (in-process for one job). Yields one FileResult per job, in order; never raises for a
file's sake (only a missing libclang, a HipconvError, stops a run).

Interruption (see hipconv.interrupts and hipconv.pool): workers ignore SIGINT; the parent stops the
run, and leaving run()'s generator early kills the workers.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import replace
from typing import Any

from hipconv import interrupts
from hipconv.buildfiles import build_file_kind, translate_build_file
from hipconv.file_reads import decode_job, look_up
from hipconv.filecache import FileCache
from hipconv.gather import facts_batch, gathered, links_batch, masks_batch
from hipconv.pool import Workers
from hipconv.results import FileResult, FileStatus, Job
from hipconv.rules.model import LookupTable
from hipconv.run_context import Context, LazyTable, lazy_table
from hipconv.settings import Settings, Version
from hipconv.single_source import cuda_source, folded_result
from hipconv.single_source.shared_names import header_renames
from hipconv.translate.project import NO_PROJECT, Project
from hipconv.translate.source import DecodeFailure, SourceFile

__all__ = ["Context", "LazyTable", "lazy_table", "project_of_jobs", "run", "translate_jobs"]

BATCH_FILES = 64  # files lexed per libclang call (its per-call set-up dominates for small files)
BATCH_BYTES = 4 * 1024 * 1024


def translate_jobs(
    jobs: Sequence[Job],
    table: LookupTable,
    settings: Settings,
    *,
    project: Project = NO_PROJECT,
) -> list[FileResult]:
    """Read and translate a batch of files; never raises for a file's sake.

    Build files (CMakeLists.txt, *.cmake, Makefiles) go to hipconv.buildfiles, with the settings'
    offload_archs replacing CUDA architectures. `project`: what the run's files tell each other (project_of_jobs).
    """
    return translate_batch(Context(table, settings, project), jobs)


def translate_batch(context: Context, jobs: Sequence[Job]) -> list[FileResult]:
    """translate_jobs with the context's cache: a file whose key is found is not translated again."""
    found = look_up(context.usable_cache, jobs, functools.partial(_result_key, context), _result_data)
    results: list[FileResult | None] = [found.values.get(k) if k is not None else None for k in found.keys]
    todo = [n for n, r in enumerate(results) if r is None]  # each was read (found.read)
    decoded = (
        r if isinstance(r, FileResult) else decode_job(jobs[n], r) for n, r in ((n, found.read[n]) for n in todo)
    )
    settings = context.settings
    built = [_build_file(r, settings.offload_archs, single_source=settings.single_source) for r in decoded]
    read = [r for r in built if isinstance(r, SourceFile)]
    single = context.settings.single_source  # each file translated from its CUDA text, then folded into it
    sources = [cuda_source(s) for s in read] if single else read
    includes = {job.display: job.compat_include for job in jobs}
    translated: Iterator[FileResult] = iter(())
    if sources:  # the matchers are imported when a file is translated: a rerun found in the cache loads none
        from hipconv.translate.translator import translate_sources

        translated = iter(
            translate_sources(sources, context.table, settings, project=context.project, compat_includes=includes)
        )
    if single and read:  # (the rule table is loaded for a file to fold, not for a rerun found in the cache)
        fold = functools.partial(folded_result, shared=header_renames(context.table))
        translated = map(fold, read, sources, translated, (includes[s.path] for s in read))
    new = {}
    for n, r in zip(todo, built):
        results[n] = result = next(translated) if isinstance(r, SourceFile) else r
        key = found.keys[n]
        if key is not None and result.status is not FileStatus.FAILED:
            new[key] = result
    if context.cache is not None:
        context.cache.put_many(new)
    return [r for r in results if r is not None]


def _result_data(read: bytes | FileResult) -> bytes | None:
    """The bytes a translation is computed from: a source's, or a build file's (None: nothing to translate)."""
    if isinstance(read, bytes):
        return read
    if read.status is FileStatus.COPIED and read.output is not None and build_file_kind(read.path) is not None:
        return read.output
    return None


def _result_key(context: Context, job: Job, digest: bytes) -> bytes | None:
    """A translation's key: the file's bytes, how it is treated, and the project facts it reads."""
    return context.key(
        "result", job, digest, str(job.translate), job.compat_include, context.project.digest(job.display)
    )


def _build_file(
    read: SourceFile | FileResult, offload_archs: Sequence[str], *, single_source: bool = False
) -> SourceFile | FileResult:
    """A build file's translation (`single_source`: its HIP build beside the CUDA one); anything else as it was read."""
    if isinstance(read, FileResult):
        if read.status is not FileStatus.COPIED or read.output is None or build_file_kind(read.path) is None:
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
        return translate_build_file(source, offload_archs, single_source=single_source)
    except Exception as exc:  # a bug: keep the traceback, copy the file unchanged
        from hipconv.translate.translator import failed_result

        return failed_result(source, exc)


def project_of_jobs(
    jobs: Sequence[Job],
    table: LookupTable | LazyTable,
    include_dirs: Sequence[str] = (),
    *,
    extra_masks: bool = False,
    context: Context | None = None,
    phases: Phases | None = None,
) -> Project:
    """What the sources among `jobs` tell each other (project.merge_facts of each one's file_facts), with
    the files they include that the run does not name (include_closure), gathered before translation, so
    that each file of the run knows the project's own names and lane masks. A file's names come from the
    files it includes only, so that it gets the same findings named alone (pre-commit) as in its tree.
    The lane masks that the files the run does not name define count only with `extra_masks` (a scan:
    what translating the project would do; a translation does not widen a definition in a file it does
    not write). Each file's facts are computed on their own, in the pool of `context` (if its settings
    ask for more than one job; `phases`: the run's, which keeps its pool for the translation) and kept in
    its cache; so are the mask uses of the files that hold a mask name."""
    context = context if context is not None else Context(table, Settings(rocm=Version.parse("0.0")))
    if phases is None:
        with Phases() as phases:
            return gathered(jobs, include_dirs, extra_masks, context, phases)[0]
    return gathered(jobs, include_dirs, extra_masks, context, phases)[0]


_PHASES: dict[str, Callable[[Context, Sequence[Job]], list[Any]]] = {
    "links": links_batch,
    "facts": facts_batch,
    "masks": masks_batch,
    "translate": translate_batch,
}


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


class _Worker:
    """What a pool worker computes with, set once per process (a fork inherits it, spawn pickles it) and
    updated between the phases of a run (the project and the mask names: Phases)."""

    context: Context

    @classmethod
    def init(cls, context: Context, parent: int) -> None:
        interrupts.in_worker(parent)
        cls.context = context

    @classmethod
    def run(cls, task: tuple[str, Any]) -> list[Any]:
        phase, batch = task
        if phase == "context":
            project, masks = batch
            cls.context = replace(cls.context, project=project, masks=masks)
            return []
        return _PHASES[phase](cls.context, batch)


class Phases:
    """The phases of one run (project_of_jobs', then the translation), each batch of jobs in-process, or in
    one worker pool, started by the first phase that asks for it and kept for the others: it is told the
    project and the mask names when they change."""

    def __init__(self) -> None:
        self._workers: Workers | None = None
        self._sent: tuple[Project, frozenset[bytes]] = (NO_PROJECT, frozenset())

    def __enter__(self) -> Phases:
        return self

    def __exit__(self, *_: object) -> None:
        if self._workers is not None:
            self._workers.close()

    def map(self, context: Context, phase: str, jobs: Sequence[Job]) -> Generator[list[Any], None, None]:
        """One phase's function of each batch of jobs, in order: in the worker pool when the settings ask
        for more than one job and there are several, else in-process."""
        if context.settings.jobs <= 1 or len(jobs) <= 1:
            for batch in batches(jobs):
                yield _PHASES[phase](context, batch)
            return
        if self._workers is None:
            context.table  # noqa: B018  # loaded once, before the workers start (a fork inherits it)
            pool = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
            initargs = (context, os.getpid())
            self._workers = Workers(pool, context.settings.jobs, _Worker.run, init=_Worker.init, initargs=initargs)
            self._sent = (context.project, context.masks)
        if context.project is not self._sent[0] or context.masks is not self._sent[1]:
            self._sent = (context.project, context.masks)
            self._workers.broadcast(("context", self._sent))
        yield from self._workers.map((phase, batch) for batch in batches(jobs))


def run(
    jobs: Sequence[Job],
    table: LookupTable | LazyTable,
    settings: Settings,
    *,
    cache: FileCache | None = None,
) -> Generator[FileResult, None, None]:
    """Yield one FileResult per job, in job order. In-process for one job or one file.

    Leaving the generator early (an exception, an interruption, close()) kills the workers at once.
    What the jobs' sources tell each other is gathered first (project_of_jobs) and goes to every batch.
    `cache`: per-file facts and results are taken from it when the file's bytes are those they were
    computed from, and kept in it (hipconv.filecache); old entries are evicted at the end.
    """
    context = Context(table, settings, cache=cache)
    with Phases() as phases:
        project, digested = gathered(jobs, settings.include_dirs, False, context, phases)
        if digested:  # the translation looks the cache up without reading a file again
            jobs = [digested.get(job.display, job) for job in jobs]
        results = phases.map(replace(context, project=project), "translate", jobs)
        try:
            for batch in results:
                yield from batch
        finally:
            results.close()  # the workers are killed at once when the caller leaves early
    if cache is not None:
        cache.evict()
