"""The programs of a translated tree, for the backends that link and run them (hip-cpu, nvidia).

A program is a translation unit that defines `main`, linked with the translation units without `main`
that it needs: those in its folder and in the folders below it that hold no other program's `main`
(a project's kernels/ or src/ beside its main file). What it cannot be run with on the CPU is read from
the headers it includes (its own and theirs, through the tree) and the identifiers it uses: a ROCm
library other than HIP itself, and what hip_cpu.yaml lists.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from hipconv.builder.included import resolve_include
from hipconv.builder.missing import Dependency, LibraryIndex
from hipconv.resources import build_file
from hipconv.translate.lexer import TokenKind, lex
from hipconv.translate.syntax import after_parens, code_indices
from hipconv.translate.words import WORDY_KINDS, file_words, token_occurrences

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^">\n]+)[">]', re.M)
_MAIN_BEFORE = frozenset({b"int", b"void"})
HIP_ITSELF = "HIP"  # packages.yaml's name of the library that HIP-CPU is


@dataclass(frozen=True)
class Program:
    name: str  # the main TU's path in the tree, less its suffix
    sources: tuple[str, ...]  # the TUs linked: the main TU first (paths relative to the tree)
    blocker: str = ""  # why it cannot run on the CPU ("" when it can)


@dataclass(frozen=True)
class Ran:
    returncode: int  # -1: it did not finish in time, printed too much, or could not start
    output: str  # where its standard output was saved
    note: str = ""  # why it did not finish
    args: tuple[str, ...] = ()  # the arguments it was run with
    args_from: str = ""  # where they came from (--run-args, Makefile:LINE); "" for none
    args_problem: str = ""  # a Makefile run command that names the program but could not be read (HC424)
    cut: tuple[str, ...] = ()  # the streams cut at --run-output-limit
    ended: int = 0  # processes it left running, killed when it ended


@dataclass(frozen=True)
class ProgramResult:
    program: Program
    binary: str | None = None  # None: not built (not runnable, or a TU or the link failed)
    ran: Ran | None = None
    not_run: str = ""  # why --run did not run it (no GPU)

    @property
    def failed(self) -> bool:
        """Runnable, and not built, or run with a failing exit status."""
        if self.program.blocker:
            return False
        return self.binary is None or (self.ran is not None and self.ran.returncode != 0)


@dataclass(frozen=True)
class NameLimit:
    names: frozenset[str]
    what: str


@dataclass(frozen=True)
class CpuLimits:
    headers: tuple[Dependency, ...]
    names: tuple[NameLimit, ...]


@functools.cache
def cpu_limits() -> CpuLimits:
    data = yaml.safe_load(build_file("hip_cpu.yaml").read_text(encoding="utf-8"))
    return CpuLimits(
        tuple(Dependency(tuple(r["headers"]), r["what"]) for r in data["headers"]),
        tuple(NameLimit(frozenset(r["names"]), r["what"]) for r in data["names"]),
    )


def defines_main(body: bytes) -> bool:
    """Does the body define `int main(...) {` (or `void main`)? Comments and strings are not code."""
    if b"main" not in body:
        return False
    tokens = lex(body)
    code = code_indices(tokens)
    for k in range(1, len(code) - 1):
        i = code[k]
        if tokens.raw(i) != b"main" or tokens.kinds[i] != TokenKind.IDENTIFIER:
            continue
        if tokens.raw(code[k - 1]) not in _MAIN_BEFORE or tokens.raw(code[k + 1]) != b"(":
            continue
        j = after_parens(tokens, code, k + 1)
        if j < len(code) and tokens.raw(code[j]) == b"{":
            return True
    return False


def group_programs(sources: Sequence[str], mains: Iterable[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(main TU, its TUs) for each main: every other TU goes to the programs of the nearest folder at or
    above its own that holds a main TU; a TU with none above it is in no program."""
    main_set = set(mains)
    by_dir: dict[str, list[str]] = {}
    for main in sorted(main_set):
        by_dir.setdefault(posixpath.dirname(main), []).append(main)
    extra: dict[str, list[str]] = {}
    for rel in sorted(set(sources) - main_set):
        folder = posixpath.dirname(rel)
        while folder not in by_dir and folder:
            folder = posixpath.dirname(folder)
        if folder in by_dir:
            for main in by_dir[folder]:
                extra.setdefault(main, []).append(rel)
    return [(main, (main, *extra.get(main, []))) for main in sorted(main_set)]


def _included(
    tree: Path, files: Sequence[str], known: set[str], by_name: dict[str, list[str]]
) -> tuple[set[str], set[str]]:
    """(the tree's files the sources include, transitively, the sources too; the other headers they name)."""
    seen, outside, todo = set(files), set(), list(files)
    while todo:
        rel = todo.pop()
        try:
            data = (tree / rel).read_bytes()
        except OSError:
            continue
        for match in _INCLUDE.finditer(data):
            path = match.group(1).decode("utf-8", "replace").strip()
            target = resolve_include(path, rel, known, by_name)
            if target is None:
                outside.add(path)
            elif target not in seen:
                seen.add(target)
                todo.append(target)
    return seen, outside


def blocker(
    tree: Path, files: Sequence[str], index: LibraryIndex, known: set[str], by_name: dict[str, list[str]]
) -> str:
    """Why a program made of `files` cannot run on the CPU ("" when nothing says so)."""
    limits = cpu_limits()
    inside, outside = _included(tree, files, known, by_name)
    for header in sorted(outside):
        for dependency in limits.headers:
            if dependency.covers(header):
                return f"{dependency.what}: #include <{header}>"
        library = index.library(header)
        if library is not None and library.name != HIP_ITSELF:
            return f"{library.name} (a ROCm library; HIP-CPU provides only the HIP runtime): #include <{header}>"
    for rel in sorted(inside):
        body = (tree / rel).read_bytes()
        words = file_words(body)
        for limit in limits.names:
            wanted = {w.encode() for w in limit.names} & words
            if not wanted:
                continue
            tokens = lex(body)
            found = token_occurrences(tokens, wanted, WORDY_KINDS, first_only=True)
            if found:
                line = body.count(b"\n", 0, tokens.starts[found[0]]) + 1
                return f"{limit.what}: {tokens.text(found[0])} in {rel}:{line}"
    return ""


def find_programs(tree: Path, sources: Sequence[str], index: LibraryIndex | None) -> list[Program]:
    """The programs among the TUs `sources` (relative to `tree`); with `index`, why each cannot run on the
    CPU (without it, as for the nvidia backend, nothing blocks)."""
    mains = [rel for rel in sources if defines_main((tree / rel).read_bytes())]
    known = {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file() and ".hip-cpu" not in p.parts}
    by_name: dict[str, list[str]] = {}
    for rel in sorted(known):
        by_name.setdefault(posixpath.basename(rel), []).append(rel)
    return [
        Program(
            posixpath.splitext(main)[0],
            files,
            blocker(tree, files, index, known, by_name) if index is not None else "",
        )
        for main, files in group_programs(sources, mains)
    ]
