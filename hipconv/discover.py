"""Inputs -> the jobs to run and where each result goes (the output-naming policy)."""

from __future__ import annotations

import fnmatch
import functools
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hipconv.errors import ConfigError
from hipconv.results import FileResult, FileStatus, Job

# Files with these suffixes are translated; everything else in a tree is copied unchanged.
SOURCE_SUFFIXES = frozenset(
    {
        ".cu",
        ".cuh",
        ".c",
        ".cc",
        ".cpp",
        ".cxx",
        ".c++",
        ".h",
        ".hh",
        ".hpp",
        ".hxx",
        ".h++",
        ".inl",
        ".inc",
        ".ipp",
        ".tpp",
        ".tcc",
        ".cuinc",
    }
)
# What marks an output directory as hipconv's own, so a rerun may update it.
OUTPUT_MARKER = ".hipconv-output"
_VCS_DIRS = frozenset({".git", ".hg", ".svn"})


@dataclass(frozen=True)
class Plan:
    jobs: tuple[Job, ...]
    destinations: dict[str, Path | None]  # display path -> output file; None: standard output
    problems: tuple[FileResult, ...]  # entries that cannot be translated at all (loops, broken links)
    output_root: Path | None  # the output directory of a tree translation
    tree: bool  # True when the inputs are translated as a tree

    def job(self, display: str) -> Job:
        return self._jobs_by_display[display]

    @functools.cached_property
    def _jobs_by_display(self) -> dict[str, Job]:
        return {job.display: job for job in self.jobs}


def plan(
    inputs: list[Path], output: Path | None, *, in_place: bool, excludes: tuple[str, ...], writes: bool, force: bool
) -> Plan:
    for path in inputs:
        if not os.path.lexists(path):
            raise ConfigError(f"{path}: no such file or directory")
    if in_place and output is not None:
        raise ConfigError("--in-place and -o/--output exclude each other")
    single_file = len(inputs) == 1 and not inputs[0].is_dir()
    if single_file:
        return _plan_file(inputs[0], output, in_place=in_place, writes=writes, force=force)
    if output is None and not in_place:
        raise ConfigError("translating a directory or several files needs -o/--output DIR (or --in-place)")
    base = inputs[0] if len(inputs) == 1 else Path(os.path.commonpath([os.path.abspath(p) for p in inputs]))
    if output is not None:
        _check_output_dir(inputs, output, writes=writes, force=force)
    jobs: list[Job] = []
    destinations: dict[str, Path | None] = {}
    problems: list[FileResult] = []
    for root in inputs:
        for display, file, found in _walk(root, excludes, output):
            if isinstance(found, FileResult):
                problems.append(found)
                continue
            translate = os.path.splitext(file)[1].lower() in SOURCE_SUFFIXES
            if in_place:
                if not translate:
                    continue
                destinations[display] = Path(file)
            else:
                assert output is not None
                tree = len(inputs) > 1 or root.is_dir()
                rel = os.path.relpath(os.path.abspath(file), os.path.abspath(base)) if tree else root.name
                destinations[display] = output / rel
            jobs.append(Job(display, file, translate, found.st_size, stat.S_IMODE(found.st_mode)))
    return Plan(tuple(jobs), destinations, tuple(problems), output if not in_place else None, tree=True)


def _plan_file(path: Path, output: Path | None, *, in_place: bool, writes: bool, force: bool) -> Plan:
    display = str(path)
    found = _special(path, display)
    if isinstance(found, FileResult):
        return Plan((), {}, (found,), None, tree=False)
    if in_place:
        dest: Path | None = path
    elif output is None:
        dest = None
    else:
        dest = output / path.name if output.is_dir() else output
        if dest.resolve() == path.resolve():
            raise ConfigError(f"{dest} is the input file; use --in-place to translate it in place")
        if writes and dest.exists() and not force:
            raise ConfigError(f"{dest} already exists", hint="pass --force to overwrite it")
    job = Job(display, str(path), True, found.st_size, stat.S_IMODE(found.st_mode))
    return Plan((job,), {display: dest}, (), None, tree=False)


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


def _excluded(rel: str, excludes: tuple[str, ...]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(name, pat) for pat in excludes)


def _special(path: Path, display: str) -> FileResult | os.stat_result:
    """The file's stat, or the result saying why it cannot be read as a regular file."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return FileResult(display, FileStatus.FAILED, reason="broken symbolic link")
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            return FileResult(display, FileStatus.FAILED, reason="symbolic link loop")
        return FileResult(display, FileStatus.FAILED, reason=f"cannot read: {exc.strerror or exc}")
    if not stat.S_ISREG(found.st_mode):
        return FileResult(display, FileStatus.SKIPPED, reason="not a regular file")
    return found


def _walk(
    root: Path, excludes: tuple[str, ...], output: Path | None
) -> Iterator[tuple[str, str, os.stat_result | FileResult]]:
    """Yield (display, path, problem) for every file below root, sorted, following symlinks safely."""
    if not root.is_dir():
        yield str(root), str(root), _special(root, str(root))
        return
    out_real = os.path.realpath(output) if output is not None else None
    chain: dict[str, str] = {}  # real path of each directory on the current walk -> its display path
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(dirpath)
        rel_dir = os.path.relpath(dirpath, root)
        for key in [k for k, v in chain.items() if not (dirpath + os.sep).startswith(v + os.sep)]:
            del chain[key]
        chain[real] = dirpath
        kept = []
        for d in sorted(dirnames):
            full = os.path.join(dirpath, d)
            rel = os.path.normpath(os.path.join(rel_dir, d)).replace(os.sep, "/")
            if d in _VCS_DIRS or _excluded(rel, excludes):
                continue
            target = os.path.realpath(full)
            if target in chain or target == out_real:
                if target in chain:
                    loop = f"symbolic link loop (points back to {chain[target]}); not followed"
                    yield full, full, FileResult(full, FileStatus.FAILED, reason=loop)
                continue
            kept.append(d)
        dirnames[:] = kept
        for f in sorted(filenames):
            full = os.path.join(dirpath, f)
            rel = os.path.normpath(os.path.join(rel_dir, f)).replace(os.sep, "/")
            if _excluded(rel, excludes) or (rel_dir == "." and f == OUTPUT_MARKER):
                continue
            yield full, full, _special(Path(full), full)
