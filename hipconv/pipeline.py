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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from hipconv import interrupts
from hipconv.buildfiles import build_file_kind, translate_build_file
from hipconv.file_reads import decode_job, look_up, read_bytes
from hipconv.filecache import FileCache, code_digest, key_of
from hipconv.pool import Workers
from hipconv.results import FileResult, FileStatus, Job
from hipconv.rules import cached_ruleset_digest, load_ruleset
from hipconv.rules.model import LookupTable
from hipconv.settings import Settings, Version
from hipconv.translate.include_closure import include_lines, included_closure
from hipconv.translate.mask_names import MaskUses, file_mask_uses
from hipconv.translate.project import (
    NO_PROJECT,
    FileFacts,
    Project,
    file_facts,
    file_links,
    included_in_run,
    mask_names_of,
    merge_facts,
)
from hipconv.translate.source import DecodeFailure, SourceFile
from hipconv.translate.translator import failed_result, translate_sources

BATCH_FILES = 64  # files lexed per libclang call (its per-call set-up dominates for small files)
BATCH_BYTES = 4 * 1024 * 1024
T = TypeVar("T")


@dataclass(frozen=True)
class LazyTable:
    """A run's rule table, loaded when a file first needs it: a rerun whose files are all found in the
    cache never loads it (only its digest, part of every cache key, is needed)."""

    digest: str
    rules_dirs: tuple[Path, ...]
    settings: Settings

    @functools.cached_property
    def table(self) -> LookupTable:  # kept by the instance, which every Context of the run shares
        return load_ruleset(self.rules_dirs).table(self.settings)


def lazy_table(rules_dirs: Sequence[Path], settings: Settings) -> LookupTable | LazyTable:
    """The run's rule table: lazy when its rule set is in the rules cache (loading it cannot fail then),
    else loaded now, so that a rule file in error stops the run before anything is written."""
    digest = cached_ruleset_digest(rules_dirs)
    if digest is None:
        return load_ruleset(rules_dirs).table(settings)
    return LazyTable(digest, tuple(rules_dirs), settings)


@dataclass(frozen=True)
class Context:
    """What every batch of a run is computed with (a pool worker gets it once)."""

    rules: LookupTable | LazyTable
    settings: Settings
    project: Project = NO_PROJECT
    cache: FileCache | None = None  # per-file facts and results kept between runs (hipconv.filecache)
    masks: frozenset[bytes] = frozenset()  # the names passed as a lane mask in the run (masks_batch)

    @property
    def table(self) -> LookupTable:
        return self.rules.table if isinstance(self.rules, LazyTable) else self.rules

    def key(self, kind: str, job: Job, digest: bytes, *extra: str | bytes) -> bytes | None:
        """The cache key of a `kind` of value computed from job's bytes of this `digest` (None: not cached)."""
        if self.cache is None or not self.rules.digest:
            return None
        return key_of(kind, self.run_key, job.display, digest, *extra)

    @property
    def usable_cache(self) -> FileCache | None:
        """The cache, when keys can be made (the rule set has a digest)."""
        return self.cache if self.rules.digest else None

    @functools.cached_property
    def run_key(self) -> bytes:
        """The part of every key that the run decides: hipconv's code, the rules, the settings (all of them
        but the number of jobs, which changes no output)."""
        return key_of(code_digest(), self.rules.digest, repr(replace(self.settings, jobs=1)))


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
    built = [_build_file(r, context.settings.offload_archs) for r in decoded]
    sources = [r for r in built if isinstance(r, SourceFile)]
    includes = {job.display: job.compat_include for job in jobs}
    translated = iter(
        translate_sources(sources, context.table, context.settings, project=context.project, compat_includes=includes)
        if sources
        else ()
    )
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
            return _gathered(jobs, include_dirs, extra_masks, context, phases)[0]
    return _gathered(jobs, include_dirs, extra_masks, context, phases)[0]


def _gathered(
    jobs: Sequence[Job], include_dirs: Sequence[str], extra_masks: bool, context: Context, phases: Phases
) -> tuple[Project, dict[str, Job]]:
    """project_of_jobs, and each source's job carrying the digest of its bytes as the first phase read them
    (when the cache is on), by its display path."""
    sources = [job for job in jobs if job.translate and job.link is None and build_file_kind(job.path) is None]
    dirs = [_absolute(d) for d in include_dirs]
    if len(jobs) <= 1 and not _reaches_another(sources, dirs):
        return NO_PROJECT, {}  # one file that reaches no other: as before
    linked = [pair for batch in phases.map(context, "links", sources) for pair in batch]
    found = [f for f, _ in linked]
    sources = [job if d is None else replace(job, digest=d) for job, (_, d) in zip(sources, linked)]
    digested = {job.display: job for job in sources if job.digest is not None}
    by_path = {_absolute(job.path): f for job, f in zip(sources, found) if f is not None}
    included = included_closure({p: f.includes for p, f in by_path.items()}, dirs)
    shown = {path: f.path for path, f in by_path.items()}
    reach = {f.path: _shown(included.reach[p], shown) for p, f in by_path.items()}
    # the names a file declares and the defines its words need matter only where another file includes it
    in_run = included_in_run(list(by_path.values()))  # the same paths and #include lines as `facts` below
    wanted = frozenset[str]().union(*reach.values(), *in_run.values())
    reached = [job for job, f in zip(sources, found) if f is not None and f.path in wanted]
    full = {f.path: f for batch in phases.map(context, "facts", reached) for f in batch if f is not None}
    facts = [full.get(f.path, f) for f in by_path.values()]
    extra_sources = [s for s in (_decoded(path, body) for path, body in included.read.items()) if s is not None]
    extra = file_facts(extra_sources, context.table) if extra_sources else []
    masks = mask_names_of([*facts, *extra] if extra_masks else facts)
    if not masks:
        return merge_facts(facts, reach, extra, included=in_run), digested
    holding = [job for job, f in zip(sources, found) if f is not None]
    uses = [u for batch in phases.map(replace(context, masks=masks), "masks", holding) for u in batch if u is not None]
    if extra_masks:
        uses += file_mask_uses(extra_sources, masks, context.table)
    return merge_facts(facts, reach, extra, uses, included=in_run), digested


def _shown(reached: frozenset[str], shown: dict[str, str]) -> frozenset[str]:
    """The paths a file reaches, as the run shows them (the empty set of most files is kept as it is)."""
    return frozenset(shown.get(h, h) for h in reached) if reached else reached


def _reaches_another(sources: Sequence[Job], include_dirs: Sequence[str]) -> bool:
    """Whether the one source (if any) includes a file that exists."""
    for job in sources:
        data = read_bytes(job)
        if isinstance(data, bytes) and (lines := include_lines(data)):
            if included_closure({_absolute(job.path): lines}, include_dirs).read:
                return True
    return False


def _absolute(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


def _decoded(path: str, body: bytes) -> SourceFile | None:
    try:
        return SourceFile.from_bytes(path, body)
    except DecodeFailure:
        return None


def links_batch(context: Context, jobs: Sequence[Job]) -> list[tuple[FileFacts | None, bytes | None]]:
    """file_links of each job's source (None for a file that cannot be read or decoded), with the digest of
    its bytes (None: not known, the cache is off), which the later phases look the cache up with."""
    return list(zip(*_per_source(context, "links", jobs, file_links)))


def facts_batch(context: Context, jobs: Sequence[Job]) -> list[FileFacts | None]:
    """file_facts of each job's source (None for a file that cannot be read or decoded)."""
    return _per_source(context, "facts", jobs, lambda sources: file_facts(sources, context.table))[0]


def masks_batch(context: Context, jobs: Sequence[Job]) -> list[MaskUses | None]:
    """file_mask_uses of the context's mask names, for each job's source."""
    names = b",".join(sorted(context.masks))
    uses = _per_source(
        context, "masks", jobs, lambda sources: file_mask_uses(sources, context.masks, context.table), names
    )
    return uses[0]


def _bytes_only(read: bytes | FileResult) -> bytes | None:
    return read if isinstance(read, bytes) else None


def _per_source(
    context: Context,
    kind: str,
    jobs: Sequence[Job],
    compute: Callable[[list[SourceFile]], Sequence[T]],
    *extra: bytes,
) -> tuple[list[T | None], list[bytes | None]]:
    """compute() of the jobs' sources, those found in the context's cache (by `kind`) taken from it; and the
    digest of each job's bytes (when the cache is on)."""
    found = look_up(context.usable_cache, jobs, lambda job, d: context.key(kind, job, d, *extra), _bytes_only)
    missing = {n: r for n, r in found.read.items() if isinstance(r, bytes) and found.keys[n] not in found.values}
    decoded = {n: decode_job(jobs[n], r) for n, r in missing.items()}  # a file found in the cache is not decoded
    todo = [n for n, r in decoded.items() if isinstance(r, SourceFile)]
    computed = dict(zip(todo, compute([decoded[n] for n in todo]) if todo else ()))  # type: ignore[misc]
    if context.cache is not None:
        context.cache.put_many({k: computed[n] for n, k in enumerate(found.keys) if k is not None and n in computed})
    values = [
        computed[n] if n in computed else found.values.get(k) if k is not None else None
        for n, k in enumerate(found.keys)
    ]
    return values, found.digests


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
        project, digested = _gathered(jobs, settings.include_dirs, False, context, phases)
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
