"""Inputs -> the jobs to run and where each result goes (the output-naming policy)."""

from __future__ import annotations

import errno
import functools
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Union

from hipconv.errors import ConfigError
from hipconv.excludes import TreeFilter, compile_patterns
from hipconv.file_kinds import TRANSLATED, file_kind
from hipconv.regular_files import file_type
from hipconv.results import FileResult, FileStatus, Job, compat_include_path

# What marks an output directory as hipconv's own, so a rerun may update it.
OUTPUT_MARKER = ".hipconv-output"
VCS_DIRS = frozenset({".git", ".hg", ".svn"})
_MODES: dict[int, int] = {}  # one int for each permission mode met: a tree's thousands of files share a few


Place = Union[str, int, None]  # a destination as Destinations keeps it


class Destinations(Mapping[str, "Path | None"]):
    """Display path -> output file (None: stdout, or nowhere: --diff, --dry-run). Kept as strings, each
    relative to `root` when there is one, and made a Path when asked for: a Path kept for every file of
    a large tree costs about 0.3 KB a file for the whole run. A place that ends its display path (almost
    every file of a tree) is kept as the length of that end, an int that Python shares, not a string."""

    def __init__(self, root: Path | None, places: dict[str, Place]) -> None:
        self._root = root
        self._places = places

    def __getitem__(self, display: str) -> Path | None:
        place = self._place(display)
        if place is None:
            return None
        return Path(place) if self._root is None else self._root / place

    def _place(self, display: str) -> str | None:
        place = self._places[display]
        return display[len(display) - place :] if isinstance(place, int) else place

    def get(self, display: str, default: Path | None = None) -> Path | None:  # type: ignore[override]
        return self[display] if display in self._places else default

    def named(self, name: str) -> Iterator[tuple[str, Path]]:
        """The display paths whose output file is called `name`, with that file (no Path made for the others)."""
        for display in self._places:
            place = self._place(display)
            if place is not None and os.path.basename(place) == name:
                yield display, self._root / place if self._root is not None else Path(place)

    def __iter__(self) -> Iterator[str]:
        return iter(self._places)

    def __len__(self) -> int:
        return len(self._places)


def compact_place(display: str, place: str | None) -> Place:
    """How Destinations keeps a place: the length of the end of `display` that it is, where it is one."""
    return len(place) if place and display.endswith(place) else place


@dataclass(frozen=True)
class Plan:
    jobs: tuple[Job, ...]
    destinations: Destinations
    problems: tuple[FileResult, ...]  # entries not translated: failures (loops, broken links) and notes (skips)
    output_root: Path | None  # the output directory of a tree translation
    tree: bool  # True when the inputs are translated as a tree
    compat_dir: Path | None = None  # where hipconv_compat.h goes (the tree's root, or beside the output file)

    def job(self, display: str) -> Job:
        return self._jobs_by_display[display]

    @functools.cached_property
    def _jobs_by_display(self) -> dict[str, Job]:
        return {job.display: job for job in self.jobs}


class WalkEntry(NamedTuple):
    """One entry met while walking: a regular file to read, a problem to report, or an in-tree link."""

    path: str
    stat: os.stat_result | None = None
    problem: FileResult | None = None
    link: str | None = None  # a symbolic link into the named trees: its target's place, relative to the base


@dataclass(frozen=True)
class Trees:
    """The trees (and files) the user named, by real path, each with its place relative to the base."""

    roots: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, inputs: list[Path], base: Path) -> Trees:
        return cls(
            tuple((os.path.realpath(p), os.path.relpath(os.path.abspath(p), os.path.abspath(base))) for p in inputs)
        )

    def place(self, real: str) -> str | None:
        """Where a real path lies relative to the base, or None when it is outside every named tree."""
        for root, at in self.roots:
            if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
                return os.path.normpath(os.path.join(at, os.path.relpath(real, root)))
        return None


def plan(
    inputs: list[Path],
    output: Path | None,
    *,
    in_place: bool,
    excludes: tuple[str, ...],
    writes: bool,
    force: bool,
    follow_symlinks: bool = False,
    respect_gitignore: bool = False,
) -> Plan:
    """The jobs for the inputs. In a tree, a symbolic link into the named trees is kept as a link (recreated
    in -o output, left alone in place); one that leads out of them is skipped with a note unless
    `follow_symlinks`. A named path is always followed; `excludes` and (with `respect_gitignore`) the trees'
    .gitignore files skip what they match (hipconv.excludes). A tree that is not written (`writes` False: --diff,
    --dry-run) needs no output: its jobs are those an -o run would have, with no destination."""
    for path in inputs:
        if not os.path.lexists(path):
            raise ConfigError(f"{path}: no such file or directory")
    if in_place and output is not None:
        raise ConfigError("--in-place and -o/--output exclude each other")
    compile_patterns(excludes)  # a bad pattern is an error even where no tree is walked
    single_file = len(inputs) == 1 and not inputs[0].is_dir()
    if single_file:
        return _plan_file(inputs[0], output, in_place=in_place, writes=writes, force=force)
    if output is None and not in_place and writes:
        raise ConfigError(
            "translating a directory or several files needs -o/--output DIR (or --in-place)",
            hint="--diff and --dry-run need neither: they write nothing",
        )
    if output is not None:
        _check_output_dir(inputs, output, writes=writes, force=force)
    base = inputs[0] if len(inputs) == 1 else Path(os.path.commonpath([os.path.abspath(p) for p in inputs]))
    trees = Trees.of(inputs, base)
    jobs: list[Job] = []
    places: dict[str, Place] = {}
    problems: list[FileResult] = []
    under_base = os.path.join(os.path.abspath(base), "")  # with a trailing separator
    for root in inputs:
        tree = len(inputs) > 1 or root.is_dir()
        skip = TreeFilter.of(str(root), excludes, gitignore=respect_gitignore)
        for found in _walk(root, trees, skip, output, follow=follow_symlinks):
            rel = _relative(os.path.abspath(found.path), under_base) if tree else root.name
            entry = _entry(found, rel, output, in_place=in_place)
            if isinstance(entry, FileResult):
                problems.append(entry)
            elif entry is not None:
                jobs.append(entry[0])
                places[entry[0].display] = compact_place(entry[0].display, entry[1])
    compat_dir = base if in_place else output
    out_root = output if not in_place else None
    return Plan(
        tuple(jobs), Destinations(out_root, places), tuple(problems), out_root, tree=True, compat_dir=compat_dir
    )


def _relative(path: str, under_base: str) -> str:
    """A normalized absolute path relative to the base (`under_base`: its absolute path and a separator);
    os.path.relpath's result, without its cost for each file in the base (almost all of them)."""
    if path.startswith(under_base):
        return path[len(under_base) :]
    return os.path.relpath(path, under_base)


def _entry(
    found: WalkEntry, rel: str, output: Path | None, *, in_place: bool
) -> tuple[Job, str | None] | FileResult | None:
    """What becomes of one walked entry: a job and its destination (relative to `output`; in place, the
    file's own path), a problem, or nothing. Without `output` or `in_place` (--diff, --dry-run) the jobs are
    those of an -o run, with no destination."""
    if found.problem is not None:
        return found.problem
    if found.link is not None:
        if in_place:
            return None  # its target is translated under its own name
        text = os.path.relpath(found.link, os.path.dirname(rel) or os.curdir)
        return Job(found.path, found.path, False, 0, link=text), _under(output, rel)
    assert found.stat is not None
    translate = file_kind(found.path) in TRANSLATED  # the rest is copied unchanged
    mode = stat.S_IMODE(found.stat.st_mode)
    mode = _MODES.setdefault(mode, mode)
    include = compat_include_path(os.path.dirname(rel))  # the header is at the root of the tree
    job = Job(found.path, found.path, translate, found.stat.st_size, mode, compat_include=include)
    if in_place:
        return (job, found.path) if translate else None
    if output is not None and rel == OUTPUT_MARKER:
        reason = f"{OUTPUT_MARKER} is the name of hipconv's output marker, which takes its place: not copied"
        return FileResult(found.path, FileStatus.SKIPPED, reason=reason)
    return job, _under(output, rel)


def _under(output: Path | None, rel: str) -> str | None:
    """Where an entry of a tree goes in the output directory, relative to it (None: nowhere, nothing is written)."""
    return None if output is None else rel


def _plan_file(path: Path, output: Path | None, *, in_place: bool, writes: bool, force: bool) -> Plan:
    display = str(path)
    found = _special(path, display, named=True)
    if isinstance(found, FileResult):
        return Plan((), Destinations(None, {}), (found,), None, tree=False)
    if in_place:
        dest: Path | None = path
    elif output is None:
        dest = None
    else:
        dest = output / path.name if output.is_dir() else output
        if dest.resolve() == path.resolve():
            raise ConfigError(f"{dest} is the input file; use --in-place to translate it in place")
        if writes and os.path.isfile(dest) and not force:  # a FIFO or a device is written into, not replaced
            raise ConfigError(f"{dest} already exists", hint="pass --force to overwrite it")
    job = Job(display, str(path), True, found.st_size, stat.S_IMODE(found.st_mode))
    regular = dest is not None and (not os.path.exists(dest) or os.path.isfile(dest))  # not /dev/stdout
    compat_dir = dest.parent if regular and dest else None
    return Plan(
        (job,),
        Destinations(None, {display: None if dest is None else str(dest)}),
        (),
        None,
        tree=False,
        compat_dir=compat_dir,
    )


def _check_output_dir(inputs: list[Path], output: Path, *, writes: bool, force: bool) -> None:
    out = output.resolve()
    for root in inputs:
        if root.is_dir() and (out == root.resolve() or root.resolve() in out.parents):
            raise ConfigError(
                f"the output directory {output} is inside the input tree {root}",
                hint="choose an output directory outside the input, e.g. ../hip",
            )
    if output.exists() and not output.is_dir():
        raise ConfigError(f"{output} exists and is not a directory")
    if writes and output.is_dir() and not force and any(output.iterdir()) and not (output / OUTPUT_MARKER).exists():
        raise ConfigError(
            f"{output} already exists, is not empty and was not written by hipconv",
            hint="pass --force to write into it, or choose a new output directory",
        )


def _special(
    path: Path | str, display: str, *, named: bool, known: os.stat_result | None = None
) -> FileResult | os.stat_result:
    """The file's stat (`known`: already taken), or the result saying why it cannot be read as a regular file.

    A special file (FIFO, device, socket) named on the command line is an error; one met in a tree
    is skipped with a note."""
    try:
        found = known if known is not None else os.stat(path)
    except OSError as exc:
        return _unreadable(display, exc)
    if not stat.S_ISREG(found.st_mode):
        kind = file_type(found.st_mode)
        if named:
            return FileResult(
                display, FileStatus.FAILED, reason=f"{kind}, not a regular file: hipconv reads regular files only"
            )
        return FileResult(display, FileStatus.SKIPPED, reason=f"{kind}, not a regular file: skipped")
    return found


def _unreadable(display: str, exc: OSError) -> FileResult:
    if isinstance(exc, FileNotFoundError):
        return FileResult(display, FileStatus.FAILED, reason="broken symbolic link")
    if exc.errno == errno.ELOOP:
        return FileResult(display, FileStatus.FAILED, reason="symbolic link loop")
    return FileResult(display, FileStatus.FAILED, reason=f"cannot read: {exc.strerror or exc}")


def _link(path: str, trees: Trees, *, follow: bool) -> WalkEntry | None:
    """A symbolic link met in a tree: kept as a link when it points into the named trees, skipped with a
    note when it leads out of them (None: follow it, as --follow-symlinks asks)."""
    try:
        os.stat(path)
    except OSError as exc:
        return WalkEntry(path, problem=_unreadable(path, exc))
    target = os.path.realpath(path)
    place = trees.place(target)
    if place is not None:
        return WalkEntry(path, link=place)
    if follow:
        return None
    reason = f"symbolic link to {target}, outside the input tree: not followed (--follow-symlinks follows it)"
    return WalkEntry(path, problem=FileResult(path, FileStatus.SKIPPED, reason=reason))


def _unlisted(errors: list[OSError]) -> Iterator[WalkEntry]:
    """The directories os.walk could not list (no permission, a path past PATH_MAX), as failures."""
    while errors:
        exc = errors.pop(0)
        path = os.fsdecode(exc.filename) if exc.filename is not None else "?"
        reason = f"cannot list directory: {exc.strerror or exc}"
        yield WalkEntry(path, problem=FileResult(path, FileStatus.FAILED, reason=reason))


def _walk(
    root: Path, trees: Trees, skip: TreeFilter | None, output: Path | None, *, follow: bool
) -> Iterator[WalkEntry]:
    """Every entry below root, sorted; symbolic links as `_link` decides, loops and unlistable
    directories reported."""
    if not root.is_dir():
        found = _special(root, str(root), named=True)
        yield WalkEntry(str(root), problem=found) if isinstance(found, FileResult) else WalkEntry(str(root), stat=found)
        return
    out_real = os.path.realpath(output) if output is not None else None
    chain: dict[str, str] = {}  # real path of each directory on the current walk -> its display path
    real_paths: dict[str, str] = {}  # of the directories listed, not yet walked: found from their parent's
    errors: list[OSError] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=errors.append, followlinks=True):
        yield from _unlisted(errors)
        rel_dir = os.path.relpath(dirpath, root)
        for key in [k for k, v in chain.items() if not (dirpath + os.sep).startswith(v + os.sep)]:
            del chain[key]
        real_dir = real_paths.pop(dirpath, None) or os.path.realpath(dirpath)
        chain[real_dir] = dirpath
        kept = []
        for d in sorted(dirnames):
            full = os.path.join(dirpath, d)
            rel = os.path.normpath(os.path.join(rel_dir, d)).replace(os.sep, "/")
            if d in VCS_DIRS or (skip is not None and skip.skips(rel, is_dir=True)):
                continue
            is_link = os.path.islink(full)
            link = _link(full, trees, follow=follow) if is_link else None
            target = os.path.realpath(full) if is_link else os.path.join(real_dir, d)
            if link is not None:
                yield link
            elif target in chain:
                loop = f"symbolic link loop (points back to {chain[target]}); not followed"
                yield WalkEntry(full, problem=FileResult(full, FileStatus.FAILED, reason=loop))
            elif target != out_real:
                kept.append(d)
                real_paths[full] = target
        dirnames[:] = kept
        for f in sorted(filenames):
            full = os.path.join(dirpath, f)
            if skip is None or not skip.skips(
                os.path.normpath(os.path.join(rel_dir, f)).replace(os.sep, "/"), is_dir=False
            ):
                yield _file(full, trees, follow=follow)
        for path, why in skip.take_notes() if skip is not None else ():  # a .gitignore not read, or cut
            yield WalkEntry(path, problem=FileResult(path, FileStatus.SKIPPED, reason=why))
    yield from _unlisted(errors)


def _file(path: str, trees: Trees, *, follow: bool) -> WalkEntry:
    try:
        info: os.stat_result | None = os.lstat(path)  # of a file that is not a link, its stat: one call
    except OSError:
        info = None  # os.stat below says why
    if info is not None and stat.S_ISLNK(info.st_mode):
        link = _link(path, trees, follow=follow)
        if link is not None:
            return link
        info = None  # followed: what it points to counts
    found = _special(path, path, named=False, known=info)
    return WalkEntry(path, problem=found) if isinstance(found, FileResult) else WalkEntry(path, stat=found)
