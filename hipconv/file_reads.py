"""A run's reads of its files: each job's bytes (read_bytes), decoded (decode_job), and the values that
earlier runs computed from the same bytes, found in the per-file cache (look_up)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from hipconv.filecache import FileCache, data_digest
from hipconv.results import FileResult, FileStatus, Job
from hipconv.translate.source import DecodeFailure, SourceFile

MAX_SOURCE_BYTES = 64 * 1024 * 1024


def read_job(job: Job) -> SourceFile | FileResult:
    """Read one file: its SourceFile, or the result that says why there is none."""
    data = read_bytes(job)
    return data if isinstance(data, FileResult) else decode_job(job, data)


def read_bytes(job: Job) -> bytes | FileResult:
    """The bytes of a file to translate, or the result of one to copy (with its bytes), or the result that
    says why there are none.

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
    return data


def decode_job(job: Job, data: bytes) -> SourceFile | FileResult:
    try:
        return SourceFile.from_bytes(job.display, data)
    except DecodeFailure as exc:
        return FileResult(job.display, FileStatus.FAILED, output=data, reason=str(exc), size=len(data))


class CacheLookup(NamedTuple):
    keys: list[bytes | None]  # each job's cache key (None: its value is not cached)
    values: dict[bytes, Any]  # the values found in the cache, by key
    read: dict[int, bytes | FileResult]  # what read_bytes gave for each job (by index) not found by its digest
    digests: list[bytes | None]  # each job's digest, when known


def look_up(
    cache: FileCache | None,
    jobs: Sequence[Job],
    key: Callable[[Job, bytes], bytes | None],
    data_of: Callable[[bytes | FileResult], bytes | None],
) -> CacheLookup:
    """The values cached for the jobs (`key`: a job's key from the digest of its bytes; None: not cached):
    first by the digest a job carries from an earlier phase (the file is not read), then, for the others, by
    the bytes read now (the cache is never trusted over them). `data_of`: the bytes of a read that a value is
    computed from (None: not cached). Without a cache every job is read."""
    digests = [job.digest if cache is not None else None for job in jobs]
    keys = [key(job, d) if d is not None else None for job, d in zip(jobs, digests)]
    values = cache.get_many([k for k in keys if k is not None]) if cache is not None else {}
    read: dict[int, bytes | FileResult] = {}
    late: list[bytes] = []
    for n, job in enumerate(jobs):
        if keys[n] is not None and keys[n] in values:
            continue
        read[n] = r = read_bytes(job)
        data = data_of(r) if cache is not None else None
        digest = data_digest(data) if data is not None else None
        if digest is None or digest != digests[n]:  # a new digest (the file changed, or none was known): a new key
            new = keys[n] = key(job, digest) if digest is not None else None
            late += [new] if new is not None else []
        digests[n] = digest
    if late and cache is not None:
        values.update(cache.get_many(late))
    return CacheLookup(keys, values, read, digests)
