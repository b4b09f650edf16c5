"""Writing one file atomically: a temporary file in the same directory, then os.replace, keeping the
permission bits; nothing is written when the file already holds the bytes.

A path the user named (-o FILE, --report, an --in-place input) is written the way cp and compilers write
it: through a symbolic link (the link's target is replaced, the link stays); with follow=False (inside an
-o output tree) a symbolic link is replaced instead. A special file (a FIFO, a device such as /dev/null)
is written into, never replaced. --in-place backups are created exclusively and never overwritten. A
killed run's temporary files (.NAME.PID.hipconv.tmp) are found and removed by the next run.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Protocol, TypeVar

from hipconv.discover import VCS_DIRS
from hipconv.errors import ConfigError
from hipconv.interrupts import interruptible

_CHUNK = 1024 * 1024  # bytes per read when a file is copied or compared as a stream
T = TypeVar("T")
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS})


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
        with os.fdopen(_open_special(dest), "wb") as fh:  # a FIFO or a device: write into it
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


def _open_special(dest: Path) -> int:
    """A FIFO or a device opened for writing. A FIFO that no process reads yet makes the open wait for a
    reader: that wait is interruptible (a SIGINT or SIGTERM ends it at once, even while writes are deferred)."""
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(dest, flags | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if exc.errno != errno.ENXIO:  # ENXIO: a FIFO with no reader
            raise
        with interruptible():
            return os.open(dest, flags)
    os.set_blocking(fd, True)
    return fd


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
