"""The project pass of a run: what its sources tell each other (pipeline.project_of_jobs), gathered
phase by phase (links, then facts and mask uses where they matter), each file's part cached with its
bytes, and the whole Project cached with the bytes of every file it was gathered from."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from hipconv.buildfiles import build_file_kind
from hipconv.file_reads import decode_job, look_up, read_bytes
from hipconv.filecache import data_digest, key_of
from hipconv.results import FileResult, Job
from hipconv.run_context import Context
from hipconv.translate.include_closure import Included, include_lines, included_closure
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
    with_links,
)
from hipconv.translate.source import DecodeFailure, SourceFile

T = TypeVar("T")


class PhaseRunner(Protocol):
    """pipeline.Phases: a phase's function of each batch of jobs, in order."""

    def map(self, context: Context, phase: str, jobs: Sequence[Job]) -> Iterator[list[Any]]: ...


def gathered(
    jobs: Sequence[Job], include_dirs: Sequence[str], extra_masks: bool, context: Context, phases: PhaseRunner
) -> tuple[Project, dict[str, Job]]:
    """project_of_jobs, and each source's job carrying the digest of its bytes as the first phase read them
    (when the cache is on), by its display path."""
    sources = [job for job in jobs if job.translate and job.link is None and build_file_kind(job.path) is None]
    dirs = [_absolute(d) for d in include_dirs]
    if len(jobs) <= 1 and not _reaches_another(sources, dirs):
        return NO_PROJECT, {}  # one file that reaches no other: as before
    found: list[FileFacts | None] = []
    digests: list[bytes | None] = []
    for batch in phases.map(context, "links", sources):  # two lists, not a pair for each source
        for facts, digest in batch:
            found.append(facts)
            digests.append(digest)
    sources = [job if d is None else job._replace(digest=d) for job, d in zip(sources, digests)]
    digested = {job.display: job for job in sources if job.digest is not None}
    absolute = [_absolute(job.path) for job in sources]
    by_path = {path: f for path, f in zip(absolute, found) if f is not None}
    included = included_closure({p: f.includes for p, f in by_path.items()}, dirs)
    key = _project_key(context, sources, absolute, included.read, dirs, extra_masks)
    kept = context.cache.get_many([key]).get(key) if context.cache is not None and key is not None else None
    if isinstance(kept, Project):  # a rerun on the same files: the facts phases below are not run
        return kept, digested
    project = _merged(sources, found, by_path, included, extra_masks, context, phases)
    if context.cache is not None and key is not None:
        context.cache.put_many({key: project})
    return project, digested


def _project_key(
    context: Context,
    sources: Sequence[Job],
    absolute: Sequence[str],
    read: dict[str, bytes],
    dirs: Sequence[str],
    extra_masks: bool,
) -> bytes | None:
    """The cache key of a run's Project: the bytes and paths of its sources and of the files they include that
    the run does not name, the include directories, and what the run's key covers (None: not cached, a source's
    digest is not known). `absolute`: each source's absolute path."""
    if context.usable_cache is None or any(job.digest is None for job in sources):
        return None
    listing = hashlib.blake2b(digest_size=20)
    for job, path in zip(sources, absolute):
        listing.update(f"{job.display}\0{path}\0".encode("utf-8", "surrogateescape"))
        listing.update(job.digest or b"")
    for path, body in sorted(read.items()):
        listing.update(path.encode("utf-8", "surrogateescape") + b"\0" + data_digest(body))
    return key_of("project", context.run_key, repr(list(dirs)), str(extra_masks), listing.digest())


def _merged(
    sources: Sequence[Job],
    found: Sequence[FileFacts | None],
    by_path: dict[str, FileFacts],
    included: Included,
    extra_masks: bool,
    context: Context,
    phases: PhaseRunner,
) -> Project:
    """The Project of the sources, from their links (`found`) and what they include (`included`)."""
    shown = {path: f.path for path, f in by_path.items()}
    # each file's reach is made when merged (merge_facts), one at a time: not a set for each of thousands
    reach = ((f.path, _shown(included.reach(p), shown)) for p, f in by_path.items())
    # the names a file declares and the defines its words need matter only where another file includes it
    in_run = included_in_run(list(by_path.values()))  # the same paths and #include lines as `facts` below
    wanted = frozenset(shown.get(h, h) for h in included.included()).union(*in_run.values())
    reached = [job for job, f in zip(sources, found) if f is not None and f.path in wanted]
    full = {f.path: f for batch in phases.map(context, "facts", reached) for f in batch if f is not None}
    facts = [with_links(full[f.path], f) if f.path in full else f for f in by_path.values()]
    extra_sources = [s for s in (_decoded(path, body) for path, body in included.read.items()) if s is not None]
    extra = file_facts(extra_sources, context.table) if extra_sources else []
    masks = mask_names_of([*facts, *extra] if extra_masks else facts)
    if not masks:
        return merge_facts(facts, reach, extra, included=in_run)
    holding = [job for job, f in zip(sources, found) if f is not None]
    uses = [u for batch in phases.map(replace(context, masks=masks), "masks", holding) for u in batch if u is not None]
    if extra_masks:
        uses += file_mask_uses(extra_sources, masks, context.table)
    return merge_facts(facts, reach, extra, uses, included=in_run)


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
    """The normalised absolute path: `path` itself where it is one (a tree named by its absolute path), not
    a second string for each of its files."""
    absolute = os.path.normpath(os.path.abspath(path))
    return path if absolute == path else absolute


def _decoded(path: str, body: bytes) -> SourceFile | None:
    try:
        return SourceFile.from_bytes(path, body)
    except DecodeFailure:
        return None


def links_batch(context: Context, jobs: Sequence[Job]) -> list[tuple[FileFacts | None, bytes | None]]:
    """file_links of each job's source (None for a file that cannot be read or decoded), with the digest of
    its bytes (None: not known, the cache is off), which the later phases look the cache up with."""
    return list(zip(*_per_source(context, "links", jobs, lambda sources: file_links(sources, context.table))))


def facts_batch(context: Context, jobs: Sequence[Job]) -> list[FileFacts | None]:
    """file_facts of each job's source (None for a file that cannot be read or decoded)."""
    return _per_source(context, "facts", jobs, lambda sources: file_facts(sources, context.table, links=False))[0]


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
