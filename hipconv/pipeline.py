"""Running many files: read each job, translate sources and build files, in batches, in a process
pool (in-process for one job). Yields one FileResult per job, in order; never raises for a
file's sake (only a missing libclang, a HipconvError, stops a run).

Interruption (see hipconv.interrupts and hipconv.pool): workers ignore SIGINT; the parent stops the
run, and leaving run()'s generator early kills the workers.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Generator, Iterator, Sequence

from hipconv import interrupts
from hipconv.buildfiles import build_file_kind, translate_build_file
from hipconv.buildfiles.nvcc_flags import DEFAULT_OFFLOAD_ARCHS
from hipconv.pool import ordered_map
from hipconv.results import FileResult, FileStatus, Job
from hipconv.rules.model import LookupTable
from hipconv.settings import Settings
from hipconv.translate.include_closure import included_closure
from hipconv.translate.project import NO_PROJECT, Project, gather_project
from hipconv.translate.source import DecodeFailure, SourceFile
from hipconv.translate.translator import failed_result, translate_sources

MAX_SOURCE_BYTES = 64 * 1024 * 1024
BATCH_FILES = 64  # files lexed per libclang call (its per-call set-up dominates for small files)
BATCH_BYTES = 4 * 1024 * 1024


def read_job(job: Job) -> SourceFile | FileResult:
    """Read one file: its SourceFile, or the result that says why there is none.

    A symbolic link is recreated, and a file to copy that is over MAX_SOURCE_BYTES is streamed, by the
    write stage: neither is read here (their results carry no output)."""
    if job.link is not None:
        return FileResult(job.display, FileStatus.LINKED)
    try:
        with open(job.path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_SOURCE_BYTES and not job.translate:
                return FileResult(job.display, FileStatus.COPIED, size=size)
            if size > MAX_SOURCE_BYTES:
                return FileResult(
                    job.display,
                    FileStatus.FAILED,
                    size=size,
                    reason=f"larger than {MAX_SOURCE_BYTES // (1024 * 1024)} MiB; not translated",
                )
            data = fh.read()
    except OSError as exc:
        return FileResult(job.display, FileStatus.FAILED, reason=f"cannot read: {exc.strerror or exc}")
    if not job.translate:
        return FileResult(job.display, FileStatus.COPIED, output=data, size=len(data))
    try:
        return SourceFile.from_bytes(job.display, data)
    except DecodeFailure as exc:
        return FileResult(job.display, FileStatus.FAILED, output=data, reason=str(exc), size=len(data))


def translate_jobs(
    jobs: Sequence[Job],
    table: LookupTable,
    settings: Settings,
    *,
    offload_archs: Sequence[str] = DEFAULT_OFFLOAD_ARCHS,
    project: Project = NO_PROJECT,
) -> list[FileResult]:
    """Read and translate a batch of files; never raises for a file's sake.

    Build files (CMakeLists.txt, *.cmake, Makefiles) go to hipconv.buildfiles, with `offload_archs`
    replacing CUDA architectures. `project`: what the run's files tell each other (project_of_jobs).
    """
    read = [_build_file(r, offload_archs) for r in (read_job(job) for job in jobs)]
    sources = [r for r in read if isinstance(r, SourceFile)]
    includes = {job.display: job.compat_include for job in jobs}
    translated = iter(translate_sources(sources, table, settings, project=project, compat_includes=includes))
    return [next(translated) if isinstance(r, SourceFile) else r for r in read]


def _build_file(read: SourceFile | FileResult, offload_archs: Sequence[str]) -> SourceFile | FileResult:
    """A build file's translation; anything else as it was read."""
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
        return translate_build_file(source, offload_archs)
    except Exception as exc:  # a bug: keep the traceback, copy the file unchanged
        return failed_result(source, exc)


def project_of_jobs(
    jobs: Sequence[Job], table: LookupTable, include_dirs: Sequence[str] = (), *, extra_masks: bool = False
) -> Project:
    """What the sources among `jobs` tell each other (project.gather_project), with the files they include
    that the run does not name (include_closure): read once before translation, so that each file of the
    run knows the project's own names and lane masks. A file's names come from the files it includes only,
    so that it gets the same findings named alone (pre-commit) as in its tree (`extra_masks`: gather_project)."""
    read = [
        (job, read_job(job)) for job in jobs if job.translate and job.link is None and build_file_kind(job.path) is None
    ]
    by_path = {_absolute(job.path): s for job, s in read if isinstance(s, SourceFile)}
    if len(jobs) <= 1 and not any(b"include" in s.body for s in by_path.values()):
        return NO_PROJECT
    included = included_closure({p: s.body for p, s in by_path.items()}, [_absolute(d) for d in include_dirs])
    if len(jobs) <= 1 and not included.read:
        return NO_PROJECT  # one file that reaches no other: as before
    extra = [s for s in (_decoded(path, body) for path, body in included.read.items()) if s is not None]
    shown = {path: s.path for path, s in by_path.items()}
    reach = {s.path: frozenset(shown.get(h, h) for h in included.reach[p]) for p, s in by_path.items()}
    return gather_project(list(by_path.values()), table, reach=reach, extra=extra, extra_masks=extra_masks)


def _absolute(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


def _decoded(path: str, body: bytes) -> SourceFile | None:
    try:
        return SourceFile.from_bytes(path, body)
    except DecodeFailure:
        return None


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
    """What a pool worker translates with, set once per process (a fork inherits it, spawn pickles it)."""

    table: LookupTable
    settings: Settings
    offload_archs: Sequence[str]
    project: Project

    @classmethod
    def init(
        cls,
        table: LookupTable,
        settings: Settings,
        offload_archs: Sequence[str],
        project: Project,
        parent: int,
    ) -> None:
        interrupts.in_worker(parent)
        cls.table, cls.settings, cls.offload_archs, cls.project = table, settings, offload_archs, project

    @classmethod
    def run(cls, batch: list[Job]) -> list[FileResult]:
        return translate_jobs(batch, cls.table, cls.settings, offload_archs=cls.offload_archs, project=cls.project)


def run(
    jobs: Sequence[Job], table: LookupTable, settings: Settings, *, offload_archs: Sequence[str] = DEFAULT_OFFLOAD_ARCHS
) -> Generator[FileResult, None, None]:
    """Yield one FileResult per job, in job order. In-process for one job or one file.

    Leaving the generator early (an exception, an interruption, close()) kills the workers at once.
    What the jobs' sources tell each other is gathered first (project_of_jobs) and goes to every batch.
    """
    project = project_of_jobs(jobs, table, settings.include_dirs)
    if settings.jobs <= 1 or len(jobs) <= 1:
        for batch in batches(jobs):
            yield from translate_jobs(batch, table, settings, offload_archs=offload_archs, project=project)
        return
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    initargs = (table, settings, offload_archs, project, os.getpid())
    work = batches(jobs)
    for results in ordered_map(context, settings.jobs, _Worker.run, work, init=_Worker.init, initargs=initargs):
        yield from results
