"""The write stage: the only place (with discover) that touches the file system.

Writes only what changed, atomically (a temporary file in the same directory, then os.replace),
keeping the source's permission bits. A path the user named (-o FILE, --report, an --in-place input)
is written the way cp and compilers write it: through a symbolic link (the link's target is replaced,
the link stays). Inside an -o output tree, which mirrors the input tree, a symbolic link is replaced
instead, and no directory is entered through one. A special file (a FIFO, a device such as
/dev/null) is written into, never replaced. --in-place backups are created exclusively and never
overwritten.
"""

from __future__ import annotations

import difflib
import enum
import errno
import functools
import os
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Protocol, TypeVar

from hipconv.discover import VCS_DIRS, Plan
from hipconv.errors import ConfigError, OutputUnwritable
from hipconv.results import FileResult, FileStatus, Job

_CHUNK = 1024 * 1024  # bytes per read when a file is copied or compared as a stream
T = TypeVar("T")
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS})
# Errors of the file system that holds the output, not of one file: a write that meets one stops the run.
_OUTPUT_UNWRITABLE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})


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
    notes: list[FileResult] = field(default_factory=list)  # existing backups that were kept, to be shown
    _checked_dirs: set[str] = field(default_factory=set, repr=False, compare=False)

    def emit(self, result: FileResult) -> FileResult:
        """Write one result; a write that fails turns it into a FAILED result saying why. A full or read-only
        file system stops the run instead (a ConfigError): no other file could be written either."""
        try:
            self._emit(result)
        except OSError as exc:
            if exc.errno in _OUTPUT_UNWRITABLE:
                where = self.plan.output_root or self.plan.destinations.get(result.path) or Path(result.path)
                raise OutputUnwritable(where, exc) from None
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
                self._rewrite(Path(job.path), result.output, job.mode)
            return
        dest = self.plan.destinations.get(result.path)
        if dest is not None and self.plan.output_root is not None:
            self._into_tree(result, job, dest)
            return
        data = content_of(result, job.path)
        if data is None:
            return
        if dest is None:
            self.stdout.write(data)
        else:
            write_atomic(dest, data, mode=job.mode)

    def _rewrite(self, path: Path, data: bytes, mode: int | None) -> None:
        """--in-place: back the file up (unless a backup exists: it is kept, with a note), then rewrite it."""
        kept, created = backup(path, self.backup_suffix)
        if not created:
            reason = (
                f"already exists and is kept as it is (a backup is never overwritten, so it still holds "
                f"{path.name} as it was before an earlier --in-place run); {path.name} rewritten without a new backup"
            )
            self.notes.append(FileResult(str(kept), FileStatus.SKIPPED, reason=reason))
        write_atomic(path, data, mode=mode)

    def _into_tree(self, result: FileResult, job: Job, dest: Path) -> None:
        """A file of an -o output tree: never written through a link; links inside the tree recreated."""
        assert self.plan.output_root is not None
        self._check_no_link_on_the_way(self.plan.output_root, dest.parent)
        if job.link is not None:
            make_link(dest, job.link)
        elif result.status is FileStatus.COPIED and result.output is None:
            copy_atomic(Path(job.path), dest, mode=job.mode, follow=False)  # too big to read: streamed
        else:
            data = content_of(result, job.path)
            if data is not None:
                write_atomic(dest, data, mode=job.mode, follow=False)

    def _check_no_link_on_the_way(self, root: Path, directory: Path) -> None:
        """A directory of the output tree must not be reached through a symbolic link (left by an earlier
        run or put there by hand): writing through it would land somewhere else."""
        if str(directory) in self._checked_dirs:
            return
        expected = os.path.normpath(os.path.join(os.path.realpath(root), os.path.relpath(directory, root)))
        if os.path.realpath(directory) != expected:
            raise OSError(errno.EPERM, f"{directory} leads through a symbolic link inside the output directory")
        self._checked_dirs.add(str(directory))


def content_of(result: FileResult, source_path: str) -> bytes | None:
    """What the output file should hold: the translation, or the source as it is."""
    if result.output is not None:
        return result.output
    if result.status in (FileStatus.UNCHANGED,):
        with open(source_path, "rb") as fh:
            return fh.read()
    return None


class _Content(Protocol):
    """What to write: bytes in memory, or a file streamed in chunks."""

    def size(self) -> int: ...

    def equals(self, path: Path) -> bool: ...

    def write(self, fh: BinaryIO) -> None: ...


@dataclass(frozen=True)
class _Bytes:
    data: bytes

    def size(self) -> int:
        return len(self.data)

    def equals(self, path: Path) -> bool:
        return path.read_bytes() == self.data

    def write(self, fh: BinaryIO) -> None:
        fh.write(self.data)


@dataclass(frozen=True)
class _Stream:
    path: Path

    def size(self) -> int:
        return os.stat(self.path).st_size

    def equals(self, path: Path) -> bool:
        with open(self.path, "rb") as ours, open(path, "rb") as theirs:
            while True:
                chunk = ours.read(_CHUNK)
                if chunk != theirs.read(_CHUNK):
                    return False
                if not chunk:
                    return True

    def write(self, fh: BinaryIO) -> None:
        with open(self.path, "rb") as source:
            shutil.copyfileobj(source, fh, _CHUNK)


def write_atomic(dest: Path, data: bytes, *, mode: int | None = None, follow: bool = True) -> bool:
    """Write data to dest unless it already holds exactly that. Returns True when written.

    `mode`: permission bits for a new file (else an existing file's, else 0o666 less the umask).
    `follow`: a symbolic link at dest is written through (its target replaced, the link kept; a dangling
    link is an error, as for cp); without it, the link itself is replaced. A special file (FIFO,
    device) is written into, never replaced; a directory is an error.
    """
    return _write(dest, _Bytes(data), mode=mode, follow=follow)


def copy_atomic(source: Path, dest: Path, *, mode: int | None = None, follow: bool = True) -> bool:
    """write_atomic with the content of `source`, streamed (never read into memory as a whole)."""
    return _write(dest, _Stream(source), mode=mode, follow=follow)


def _write(dest: Path, content: _Content, *, mode: int | None, follow: bool) -> bool:
    dest, current = _landing(dest, follow=follow)
    if current is not None and stat.S_ISDIR(current.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(dest))
    regular = current is not None and stat.S_ISREG(current.st_mode)
    if current is not None and not regular and not stat.S_ISLNK(current.st_mode):
        fd = os.open(dest, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))  # a FIFO or a device: write into it
        with os.fdopen(fd, "wb") as fh:
            content.write(fh)
        return True
    if current is not None and regular:
        try:
            if current.st_size == content.size() and content.equals(dest):
                return False
        except OSError:
            pass
    if mode is None:
        mode = stat.S_IMODE(current.st_mode) if current is not None and regular else 0o666 & ~_umask()
    _move_into_place(_filled_temp(dest, content, mode), dest)
    return True


def _landing(dest: Path, *, follow: bool) -> tuple[Path, os.stat_result | None]:
    """Where a write to dest lands, and what is there now (None: nothing yet)."""
    try:
        current = os.lstat(dest)
    except FileNotFoundError:
        return dest, None
    if not follow or not stat.S_ISLNK(current.st_mode):
        return dest, current
    try:
        through = os.stat(dest)
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, "a dangling symbolic link: not written through", str(dest)) from None
    if stat.S_ISREG(through.st_mode):
        return Path(os.path.realpath(dest)), through
    return dest, through  # a link to a FIFO or a device: opening it follows the link


def _filled_temp(dest: Path, content: _Content, mode: int) -> Path:
    """A temporary file beside dest holding the content, with the given permission bits."""
    tmp = _temp_path(dest)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    fd = _in_new_directories(dest, lambda: os.open(tmp, flags, 0o600))
    try:
        with os.fdopen(fd, "wb") as fh:
            content.write(fh)
            os.fchmod(fh.fileno(), mode)
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _in_new_directories(dest: Path, create: Callable[[], T]) -> T:
    """create(), which makes a file beside dest; when dest's directory does not exist yet (a new
    directory of the output tree), it is made first."""
    try:
        return create()
    except FileNotFoundError:
        dest.parent.mkdir(parents=True, exist_ok=True)
        return create()


def _move_into_place(tmp: Path, dest: Path) -> None:
    """Rename the complete temporary file tmp to dest, atomically; tmp never stays behind."""
    try:
        os.replace(tmp, dest)
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(path: Path) -> bool:
    try:
        os.unlink(path)
    except OSError:
        return False
    return True


_TEMP_FILE = re.compile(r"\..+\.(\d+)\.hipconv\.tmp")  # .NAME.PID.hipconv.tmp, beside NAME


def _temp_path(dest: Path) -> Path:
    return dest.with_name(f".{dest.name}.{os.getpid()}.hipconv.tmp")


def remove_stale_temp_files(root: Path, *, of: str | None = None) -> list[Path]:
    """Remove (and return) hipconv's temporary files (.NAME.PID.hipconv.tmp) under root whose process is gone, left
    by a killed run; `of` a file name: only its own and its backup's, in root. POSIX only (os.kill probes)."""
    removed: list[Path] = []
    for folder, dirs, files in os.walk(root) if os.name == "posix" else ():
        dirs[:] = [] if of is not None else [d for d in dirs if d not in VCS_DIRS]
        for name in files:
            found = _TEMP_FILE.fullmatch(name)
            if found is None or (of is not None and not name.startswith(f".{of}.")) or not _gone(int(found[1])):
                continue
            if _unlink(Path(folder, name)):
                removed.append(Path(folder, name))
    return removed


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False
    return False


@functools.lru_cache(maxsize=1)
def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def make_link(dest: Path, text: str) -> bool:
    """Make dest a symbolic link holding `text` (atomically replacing what is there). True when changed."""
    try:
        if os.readlink(dest) == text:
            return False
    except OSError:
        pass
    tmp = _temp_path(dest)
    _unlink(tmp)
    _in_new_directories(dest, lambda: os.symlink(text, tmp))
    _move_into_place(tmp, dest)
    return True


def backup(path: Path, suffix: str) -> tuple[Path, bool]:
    """Copy path to path + suffix, created exclusively: an existing backup is never overwritten, so a
    backup only ever holds the file as it was before the first --in-place run that changed it.

    Returns (the backup, whether this call created it). An existing backup that is not a regular file
    (a directory, a symbolic link) is an error, and the file is then not rewritten."""
    target = path.with_name(path.name + suffix)
    tmp = _filled_temp(target, _Stream(path), stat.S_IMODE(os.stat(path).st_mode))
    try:
        created = _name_exclusively(tmp, target)
    finally:
        _unlink(tmp)
    if not created and not stat.S_ISREG(os.lstat(target).st_mode):
        message = f"the backup {target.name} exists and is not a regular file; {path.name} left as it is"
        raise FileExistsError(errno.EEXIST, message, str(target))
    return target, created


def _name_exclusively(tmp: Path, target: Path) -> bool:
    """Give the complete file tmp the name target too, unless that name exists (False). A hard link does
    it atomically; where the file system has none, target is created with O_EXCL and filled."""
    try:
        os.link(tmp, target)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            _Stream(tmp).write(fh)
            os.fchmod(fh.fileno(), stat.S_IMODE(os.stat(tmp).st_mode))
    except BaseException:
        _unlink(target)
        raise
    return True


def write_named(path: Path, data: bytes, *, option: str) -> None:
    """Write a file the user named with `option` (--report, --output, ...): a failure is a ConfigError."""
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise ConfigError(
            f"{option} {path}: cannot write: {exc.strerror or exc}",
            hint=f"give {option} a file path in a writable directory",
        ) from None


def unified_diff(result: FileResult, source_path: str, out: BinaryIO) -> None:
    if result.status is not FileStatus.CONVERTED or result.output is None:
        return
    with open(source_path, "rb") as fh:
        before = fh.read().decode("utf-8", "surrogateescape").splitlines(keepends=True)
    after = result.output.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    for line in difflib.unified_diff(before, after, f"a/{result.path}", f"b/{result.path}"):
        out.write(line.encode("utf-8", "surrogateescape"))  # a byte that is not UTF-8 is diffed as it is
        if not line.endswith("\n"):
            out.write(b"\n\\ No newline at end of file\n")
