"""The write stage of `hipconv translate`: the only place (with discover) that touches the file system.

Before any file is translated, the output is checked and claimed (prepare_output, check_generated_headers);
then each result goes to its output file, stdout, a diff or (--in-place) its source (Writer); at the end
come hipconv_compat.h (write_compat_header) and the report (write_report). Each file is written atomically
and only when it changed (hipconv.atomic). Inside an -o output tree, which mirrors the input tree, a
symbolic link is replaced instead of written through, and no directory is entered through one.
"""

from __future__ import annotations

import difflib
import enum
import errno
import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from rich.console import Console

from hipconv.atomic import backup, copy_atomic, make_link, remove_stale_temp_files, write_atomic, write_named
from hipconv.discover import OUTPUT_MARKER, Plan
from hipconv.errors import ConfigError, OutputUnwritable
from hipconv.filecache import FileCache, key_of
from hipconv.interrupts import deferred
from hipconv.regular_files import NotRegular, file_type, read_regular
from hipconv.report import csv_report, json_report, markdown_report, print_result, text_bytes
from hipconv.results import FileResult, FileStatus, Job
from hipconv.rules.ranges import range_label
from hipconv.settings import Settings
from hipconv.shim_store import shims_key, stored_shims
from hipconv.single_source import HEADER_MARKER as PORTABILITY_MARKER
from hipconv.single_source import is_portability_header
from hipconv.single_source.fold import PORTABILITY_HEADER
from hipconv.summary import Summary
from hipconv.translate.compat import COMPAT_HEADER, COMPAT_MARKER, compat_header, is_generated_header
from hipconv.version import __version__

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
    # the folders (as the plan names them) of files written before whose folder was found free of links then:
    # the next file there is not made absolute and looked up again (thousands of files, a few folders)
    _clear_folders: set[str] = field(default_factory=set, repr=False, compare=False)

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
        folder = os.path.dirname(dest)
        if folder not in self._clear_folders:
            refuse_links(self.plan.output_root, dest.parent, checked=self._checked_dirs)
            if os.path.abspath(folder) in self._checked_dirs:  # it was there, and no link: as refuse_links leaves it
                self._clear_folders.add(folder)
        if job.link is None:
            refuse_special(dest)  # never opened: a FIFO would hang the run, a device would take the bytes
        if job.link is not None:
            make_link(dest, job.link)
        elif result.status is FileStatus.COPIED and result.output is None:
            copy_atomic(Path(job.path), dest, mode=job.mode, follow=False)  # too big to read: streamed
        else:
            data = content_of(result, job.path)
            if data is not None:
                write_atomic(dest, data, mode=job.mode, follow=False)


LINK_HINT = "remove it: hipconv never writes through a symbolic link, nor into a special file, in its output directory"


class LinkOnTheWay(OSError):
    """A write under an output root would go through a symbolic link, or into what is not a regular file."""


def refuse_links(root: Path, path: Path, *, checked: set[str] | None = None) -> None:
    """Raise LinkOnTheWay when `path`, or a directory between `root` and it, is a symbolic link: a write
    there would land somewhere else (outside the root, or over another file of it). A path that is not
    below root is not checked (a place the user named); `checked`: directories already found free of links
    (added to). The root itself is the user's choice and may be a link."""
    target = os.path.abspath(path)
    if checked is not None and target in checked:
        return  # a folder of the tree found free of links before: every file written there asks again
    start = os.path.abspath(root)
    rel = os.path.relpath(target, start)
    if _outside(rel):
        start = os.path.realpath(root)
        rel = os.path.relpath(target, start)
        if _outside(rel):
            return
    step = start
    for part in Path(rel).parts if rel != os.curdir else ():  # one lstat for each folder not yet checked
        step = os.path.join(step, part)
        if checked is not None and step in checked:
            continue
        try:
            mode = os.lstat(step).st_mode
        except OSError:
            return  # nothing there (a new file or folder): no link below it either
        if stat.S_ISLNK(mode):
            message = f"{path}: a write there would go through a symbolic link inside the output directory ({step})"
            raise LinkOnTheWay(errno.EPERM, message, step)
        if checked is not None and stat.S_ISDIR(mode):
            checked.add(step)


def _outside(rel: str) -> bool:
    return rel == os.pardir or rel.startswith(os.pardir + os.sep)


def refuse_special(path: Path) -> None:
    """Raise LinkOnTheWay when a special file (a FIFO, a device, a socket) is at `path`:
    it is never opened (a FIFO with no reader would hang the run)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode)):
        raise LinkOnTheWay(
            errno.EPERM, f"{path} is {file_type(mode)}, not a regular file: not opened (remove it)", str(path)
        )


def write_under(root: Path, dest: Path, data: bytes, *, mode: int | None = None) -> bool:
    """Write a file of hipconv's below an output root (the marker, compile_commands.json): atomically, and never
    through a link (LinkOnTheWay when dest or a directory on its way is one) or into a special file."""
    refuse_links(root, dest)
    refuse_special(dest)
    return write_atomic(dest, data, mode=mode, follow=False)


def check_outputs(root: Path, paths: Iterable[str | Path]) -> None:
    """Before a compiler or linker writes `paths` (or folders of them): each refused as write_under refuses, a
    ConfigError then, since a compiler may write through a link (g++ opens its -o file) or into a linked folder."""
    checked: set[str] = set()
    try:
        for path in paths:
            refuse_links(root, Path(path), checked=checked)
            refuse_special(Path(path))
    except LinkOnTheWay as exc:
        raise ConfigError(str(exc.strerror), hint=LINK_HINT) from None


def open_under(root: Path, path: Path) -> BinaryIO:
    """A file below an output root opened to be written from the start (a program's saved output), refused as
    write_under refuses; the open itself follows no link (O_NOFOLLOW) and never waits (O_NONBLOCK)."""
    refuse_links(root, path)
    refuse_special(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LinkOnTheWay(errno.EPERM, f"{path} is a symbolic link inside the output directory {root}") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise LinkOnTheWay(errno.EPERM, f"{path} is not a regular file: not written", str(path))
    os.set_blocking(fd, True)
    return os.fdopen(fd, "wb")


def content_of(result: FileResult, source_path: str) -> bytes | None:
    """What the output file should hold: the translation, or the source as it is."""
    if result.output is not None:
        return result.output
    if result.status in (FileStatus.UNCHANGED,):
        with open(source_path, "rb") as fh:
            return fh.read()
    return None


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


def check_generated_headers(the_plan: Plan, settings: Settings) -> None:
    """Stop before anything is written when a header this run generates would replace a file of that name that
    hipconv did not write: hipconv_compat.h with shims on (not --no-compat), hipconv_portability.h with
    --single-source; the one at the root of the output (or, in place, of the input), or one of the input that
    the run would write there."""
    if the_plan.compat_dir is None:
        return
    headers = [
        (COMPAT_HEADER, is_generated_header, "the hipconv_compat.h of shims", _COMPAT_HINT)
        if settings.compat
        else None,
        (PORTABILITY_HEADER, is_portability_header, "the hipconv_portability.h of --single-source", _PORTABILITY_HINT)
        if settings.single_source
        else None,
    ]
    for name, generated, what, hint in filter(None, headers):
        target = the_plan.compat_dir / name
        candidates = [target] + [
            Path(job.path)
            for display, dest in the_plan.destinations.named(name)
            if dest == target and (job := the_plan.job(display)).link is None
        ]
        for path in candidates:
            try:
                head = read_regular(path, limit=_MARKER_SIZE).data
            except NotRegular:  # a link (the tree's, or planted) is replaced, a FIFO refused: by the write
                continue
            except OSError:  # absent, or unreadable: the write says what is wrong
                continue
            if not generated(head):
                raise ConfigError(
                    f"{path} was not written by hipconv, and {what} that this run writes at {target} would "
                    "replace it; nothing was written",
                    hint=hint,
                )


_COMPAT_HINT = "rename it, or pass --no-compat (what the target lacks is then reported, not shimmed)"
_PORTABILITY_HINT = (
    f"rename it, and its includes: hipcc reads hipconv's {PORTABILITY_HEADER} in place of the CUDA headers, and "
    "each run rewrites it whole"
)
_MARKER_SIZE = max(len(COMPAT_MARKER), len(PORTABILITY_MARKER))


def write_compat_header(
    folder: Path,
    shims: set[str],
    settings: Settings,
    console: Console,
    cache: FileCache | None = None,
    ranged: Mapping[str, str] | None = None,
) -> bool:
    """hipconv_compat.h with the shims the run's files use, at the root of the output (beside a single output
    file); False (with the reason shown) when it cannot be written. `cache`: where the header rendered for
    these shims is kept (a rerun does not load the templates); `ranged`: a release range's macro definitions."""
    path = folder / COMPAT_HEADER
    try:
        refuse_special(path)  # never opened: a FIFO would hang the run
        with deferred():
            write_atomic(path, _compat_header(shims, settings, cache, ranged or {}), follow=False)
    except OSError as exc:
        print_result(console, FileResult(str(path), FileStatus.FAILED, reason=f"cannot write: {exc.strerror or exc}"))
        return False
    return True


def _compat_header(shims: set[str], settings: Settings, cache: FileCache | None, ranged: Mapping[str, str]) -> bytes:
    """compat_header(), from the cache when hipconv's code, its templates and the shims are those it was rendered
    with; each shim's text from the shim store (rendered once for this hipconv, whatever the tree)."""
    key = key_of("compat-header", shims_key(), str(settings.rocm), *sorted(shims), *sorted(ranged.values()))
    kept = cache.get_many([key]).get(key) if cache is not None else None
    if isinstance(kept, bytes):
        return kept
    header = compat_header(shims, settings.rocm, ranged, stored_shims)
    if cache is not None:
        cache.put_many({key: header})
    return header


MARKER_LIMIT = 4096  # bytes: a marker hipconv wrote is one short line of JSON


def read_marker(root: Path) -> dict[str, object] | None:
    """What root's output marker says (None: there is none). ConfigError when something else is there: a link
    or a special file (never followed, never opened), or content that is not a marker hipconv wrote (a JSON
    object whose "written_by" names hipconv) -- then root may not be hipconv's output at all."""
    path = root / OUTPUT_MARKER
    hint = f"remove {path} if {root} is hipconv's output; else choose a new output directory"
    try:
        found = read_regular(path, limit=MARKER_LIMIT)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read hipconv's output marker: {exc.strerror or exc}", hint=hint) from None
    try:
        content = json.loads(found.data) if not found.cut else None
    except ValueError:
        content = None
    written_by = content.get("written_by") if isinstance(content, dict) else None
    if not isinstance(content, dict) or not isinstance(written_by, str) or not written_by.startswith("hipconv"):
        shown = found.data[:60].decode("utf-8", "replace")
        held = f"{found.size} bytes" if found.cut else repr(shown + ("..." if len(found.data) > 60 else ""))
        raise ConfigError(
            f'{path} is not the output marker hipconv writes (a JSON object naming hipconv in "written_by"); '
            f"it holds {held}",
            hint=hint,
        )
    return content


def _check_release(root: Path, settings: Settings) -> None:
    """Stop before anything is written when root was written for another ROCm release (its marker says which):
    files this run leaves alone, and hipconv_compat.h's shims, would stay those of the other release; or when
    its marker is not one hipconv wrote (read_marker)."""
    found = read_marker(root)
    written_for = found.get("rocm") if found is not None else None
    target = _target(settings)
    if isinstance(written_for, str) and written_for != target:
        raise ConfigError(
            f"{root} was written for ROCm {written_for}; this run targets ROCm {target}",
            hint=f"pass --rocm-version {written_for} to add to it, --force to rewrite it for {target}, "
            "or choose a new output directory",
        )


def _target(settings: Settings) -> str:
    """What an output's marker records: the release (`7.2`), or a release range (`5.2..7.2`)."""
    return range_label(settings) or str(settings.rocm)


STALE_TEMP_NOTE = "a temporary file of a hipconv run that was killed (SIGKILL, a power cut): removed"


def prepare_output(
    the_plan: Plan, paths: Sequence[Path], settings: Settings, *, mode: OutputMode, in_place: bool, force: bool
) -> list[FileResult]:
    """Before anything is written: a tree's output directory checked and marked as hipconv's, and the
    temporary files that a killed run left in it, or (--in-place) beside the inputs, removed (returned as
    notes to show)."""
    writes = mode is OutputMode.WRITE
    stale: list[Path] = []
    if writes and the_plan.output_root is not None:
        if not force:
            _check_release(the_plan.output_root, settings)
        stale = _claim_output(the_plan.output_root, settings)
    elif in_place and writes:
        stale = [
            found
            for path in paths
            for found in (
                remove_stale_temp_files(path) if path.is_dir() else remove_stale_temp_files(path.parent, of=path.name)
            )
        ]
    return [FileResult(str(path), FileStatus.SKIPPED, reason=STALE_TEMP_NOTE) for path in stale]


def _claim_output(root: Path, settings: Settings) -> list[Path]:
    """Mark root as hipconv's before anything is written into it, so that a rerun after a kill may
    write into it; in a rerun, remove the temporary files a killed run (SIGKILL, a power cut) left. An
    output directory that cannot be created or written stops the run here, before any file is translated."""
    marker = root / OUTPUT_MARKER
    rerun = os.path.lexists(marker)
    content = {"written_by": f"hipconv {__version__}", "rocm": _target(settings)}
    try:
        with deferred():
            write_under(root, marker, json.dumps(content).encode() + b"\n")
    except LinkOnTheWay as exc:  # never replaced, even with --force: hipconv did not put it there
        hint = f"remove {marker}: hipconv writes its output marker as a regular file, never through a link"
        raise ConfigError(str(exc.strerror), hint=hint) from None
    except OSError as exc:
        raise OutputUnwritable(root, exc) from None
    return remove_stale_temp_files(root) if rerun else []


def write_report(path: Path, summary: Summary, settings: Settings) -> None:
    """Markdown when FILE ends in .md, CSV when it ends in .csv, JSON otherwise. File names that are not
    UTF-8 appear in JSON as \\udcXX escapes (which decode back to the names), in the others as \\xXX. A
    report that cannot be written is a ConfigError."""
    suffix = path.suffix.lower()
    if suffix == ".md":
        data = text_bytes(markdown_report(summary, settings))
    elif suffix == ".csv":
        data = text_bytes(csv_report(summary))
    else:
        data = (json.dumps(json_report(summary, settings), indent=2) + "\n").encode()
    write_named(path, data, option="--report")
