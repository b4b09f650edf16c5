"""The write stage: the only place (with discover) that touches the file system.

Writes only what changed, atomically (a temporary file in the same directory,
then os.replace), keeping the source's permission bits.
"""

from __future__ import annotations

import difflib
import enum
import functools
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from hipconv.discover import Plan
from hipconv.results import FileResult, FileStatus


class OutputMode(enum.Enum):
    WRITE = "write"  # to -o, to stdout, or in place
    DRY_RUN = "dry-run"  # nothing
    DIFF = "diff"  # a unified diff on stdout


@dataclass(frozen=True)
class Writer:
    """Where each result of a plan goes: its output file, stdout, a diff, or (--in-place) its source."""

    plan: Plan
    mode: OutputMode
    in_place: bool
    backup_suffix: str
    stdout: BinaryIO

    def emit(self, result: FileResult) -> FileResult:
        """Write one result; a write that fails turns it into a FAILED result saying why."""
        try:
            self._emit(result)
        except OSError as exc:
            return FileResult(
                result.path,
                FileStatus.FAILED,
                reason=f"cannot write output: {exc.strerror or exc}",
                diagnostics=result.diagnostics,
                replacements=result.replacements,
                size=result.size,
            )
        return result

    def _emit(self, result: FileResult) -> None:
        job = self.plan.job(result.path)
        if self.mode is OutputMode.DIFF:
            unified_diff(result, job.path, self.stdout)
            return
        if self.mode is OutputMode.DRY_RUN or result.status is FileStatus.SKIPPED:
            return
        if self.in_place:
            if result.status is FileStatus.CONVERTED and result.output is not None:
                backup(Path(job.path), self.backup_suffix)
                write_atomic(Path(job.path), result.output, mode=job.mode)
            return
        data = content_of(result, job.path)
        if data is None:
            return
        dest = self.plan.destinations.get(result.path)
        if dest is None:
            self.stdout.write(data)
        else:
            write_atomic(dest, data, mode=job.mode)


def content_of(result: FileResult, source_path: str) -> bytes | None:
    """What the output file should hold: the translation, or the source as it is."""
    if result.output is not None:
        return result.output
    if result.status in (FileStatus.UNCHANGED,):
        with open(source_path, "rb") as fh:
            return fh.read()
    return None


def write_atomic(dest: Path, data: bytes, *, mode: int | None = None) -> bool:
    """Write data to dest unless it already holds exactly that. Returns True when written.

    `mode`: permission bits for a new file (else an existing file's, else 0o644 less the umask).
    """
    try:
        current = os.stat(dest)
    except OSError:
        current = None
    if current is not None and stat.S_ISREG(current.st_mode) and current.st_size == len(data):
        try:
            if dest.read_bytes() == data:
                return False
        except OSError:
            pass
    if mode is None:
        mode = stat.S_IMODE(current.st_mode) if current is not None else 0o666 & ~_umask()
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.hipconv.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except FileNotFoundError:  # a new directory of the output tree
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            os.fchmod(fh.fileno(), mode)
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return True


@functools.lru_cache(maxsize=1)
def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def backup(path: Path, suffix: str) -> Path:
    target = path.with_name(path.name + suffix)
    write_atomic(target, path.read_bytes(), mode=stat.S_IMODE(os.stat(path).st_mode))
    return target


def unified_diff(result: FileResult, source_path: str, out: BinaryIO) -> None:
    if result.status is not FileStatus.CONVERTED or result.output is None:
        return
    with open(source_path, "rb") as fh:
        before = fh.read().decode("utf-8").splitlines(keepends=True)
    after = result.output.decode("utf-8").splitlines(keepends=True)
    for line in difflib.unified_diff(before, after, f"a/{result.path}", f"b/{result.path}"):
        out.write(line.encode("utf-8"))
        if not line.endswith("\n"):
            out.write(b"\n\\ No newline at end of file\n")
