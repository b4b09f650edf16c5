"""Feature macros: an architecture test that only #defines a macro, whose tests hold the NVIDIA-only code
(llama.cpp's `#if __CUDA_ARCH__ >= CC_TURING` / `#define TURING_MMA_AVAILABLE`, then `#ifdef
TURING_MMA_AVAILABLE` around `ldmatrix` PTX, often in another header).

A *feature macro* is one the project #defines in a branch of a test of __CUDA_ARCH__ (arch_defined). Its
*uses* are the branches taken when it is defined: `#ifdef M`, `#if defined(M) || ...`, `#elif defined(M)`,
and the `#else` of `#ifndef M`. A use that holds NVIDIA-only code (inline PTX, wmma, the NVIDIA-only names
of arch_branches) makes the branch defining M NVIDIA-only too: the project pass gathers both facts of
every file (feature_facts, kept in project.FileFacts), merges them (project_features), and arch_chains
plans the defining test with them. Read from the bytes, as the project pass lexes nothing: one search for
most files, one walk over the directives of a file with a test of __CUDA_ARCH__ or NVIDIA-only words (the
names the rules say HIP lacks count in the tokens of an architecture test's own branches only).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from hipconv.translate.facts.arch_branches import (
    ASM,
    ASM_QUALIFIERS,
    NVIDIA_ONLY_NAMES,
    NVIDIA_ONLY_PREFIXES,
    nvidia_name,
    ptx_named,
)
from hipconv.translate.facts.arch_chains import Arm
from hipconv.translate.facts.hip_switches import COMMENTS, CONDITIONALS, DIRECTIVE, directive_code, tested_names
from hipconv.translate.lexer import Tokens
from hipconv.translate.source import SourceFile
from hipconv.translate.version_tests import MACROS
from hipconv.translate.words import line_directives

_OPENERS = (b"if", b"ifdef", b"ifndef")
_ARCH = b"__CUDA_ARCH__"
_FEATURE_DEFINE = re.compile(rb"\s*(\w+)(?:\s+(?:\d+[uUlL]*)?)?\s*")  # object-like: empty, or an integer
# the words of the NVIDIA-only code of arch_branches: the uses of a file without one are not looked for
# (one search each over every file of a run: `wmma` stands for `nvcuda` too, whose API it is)
_NVIDIA_WORDS = tuple(w.encode() for w in ("asm", *(set(NVIDIA_ONLY_NAMES) - {"nvcuda"}), *NVIDIA_ONLY_PREFIXES))
_ALTERNATION = "|".join
_NVIDIA_CODE = re.compile(
    (
        rf"\b(?:({_ALTERNATION(sorted(ASM))})\b(?:\s*(?:{_ALTERNATION(sorted(ASM_QUALIFIERS))})\b)*\s*\("
        rf'\s*("(?:[^"\\\n]|\\.)*")?|(?:{_ALTERNATION(sorted(NVIDIA_ONLY_NAMES))})\b'
        rf"|(?:{_ALTERNATION(sorted(NVIDIA_ONLY_PREFIXES))})\w*)"
    ).encode()
)
_DEFINED_TEST = re.compile(rb"[ \t]*#[ \t]*(?:(?:el)?ifn?def\b|(?:el)?if\b[^\n]*\bdefined\b)")  # at a line start


class FeatureFact(NamedTuple):
    """What one file tells the run about one macro (project.FileFacts)."""

    name: str
    nvidia_only: str  # what a branch taken when it is defined holds here; "": the file defines it at an arch test
    where: str = ""  # that construct's file name and line (`mma.cuh:763`)


def arch_defined(body: bytes) -> frozenset[str]:
    """The object-like macros (empty, or an integer) the body #defines in a branch of a chain that tests
    __CUDA_ARCH__ (its #else included), read from the bytes (one search for most files)."""
    return frozenset(f.name for f in _read(body, uses=False) if not f.nvidia_only)


def _read(body: bytes, *, uses: bool) -> list[FeatureFact]:
    """One walk over the body's directives: the macros it defines at an architecture test, and (`uses`)
    the NVIDIA-only code of the branches its tests of macros select (`where`: the line alone)."""
    arch, uses = _ARCH in body, uses and _may_use(body)
    if not arch and not uses:
        return []
    found: dict[tuple[str, bool], FeatureFact] = {}
    stack: list[_Open] = []
    at = 0
    for m in line_directives(DIRECTIVE, body):
        if uses and any(o.selecting for o in stack):
            _note_uses(body, at, m.start(), stack, found)
        at = m.end()
        directive = m.group(1)
        if directive == b"define" and arch and any(o.arch for o in stack):
            name = _FEATURE_DEFINE.fullmatch(directive_code(m.group(2)))
            if name:
                found.setdefault((name.group(1).decode(), False), FeatureFact(name.group(1).decode(), ""))
        if directive not in CONDITIONALS:
            continue
        rest = directive_code(m.group(2))
        if directive == b"endif":
            stack and stack.pop()
            continue
        tested = (
            [(n, on) for n, on in tested_names(directive, rest) if n not in MACROS and n.isidentifier()] if uses else []
        )
        selecting = frozenset(n for n, on in tested if on)
        negated = frozenset(n for n, on in tested if not on)
        if directive in _OPENERS:
            stack.append(_Open(_ARCH in rest, selecting, negated))
        elif stack:
            last = stack[-1]
            now = last.negated if directive == b"else" else selecting
            stack[-1] = _Open(last.arch or _ARCH in rest, now, frozenset() if directive == b"else" else negated)
    if uses and any(o.selecting for o in stack):
        _note_uses(body, at, len(body), stack, found)
    return list(found.values())


def _blank(m: re.Match[bytes]) -> bytes:
    """A comment as the line breaks it holds (a space if none): lines keep their numbers."""
    return b"\n" * m.group().count(b"\n") or b" "


class _Open(NamedTuple):
    """One open chain of the walk."""

    arch: bool  # a test of it so far names __CUDA_ARCH__
    selecting: frozenset[str]  # the macros whose definition selects its current branch
    negated: frozenset[str]  # those whose absence selected the branch before (`#ifndef M`): the #else's


def nvidia_code(code: bytes) -> tuple[str, int]:
    """The first NVIDIA-only construct of code without comments, read from the bytes as arch_branches reads
    the tokens (but for the names the rules say HIP lacks), and its offset; ("", -1): none."""
    m = _NVIDIA_CODE.search(code)
    if m is None:
        return "", -1
    if m.group(1):
        return ptx_named(m.group(2).decode(errors="replace") if m.group(2) else ""), m.start()
    return nvidia_name(m.group(0).decode()), m.start()


def _note_uses(
    body: bytes, start: int, end: int, stack: list[_Open], found: dict[tuple[str, bool], FeatureFact]
) -> None:
    """The NVIDIA-only code of body[start:end], for the macros that select each open chain's branch."""
    if _NVIDIA_CODE.search(body, start, end) is None:  # most code, found without a copy
        return
    code = COMMENTS.sub(_blank, body[start:end])
    what, at = nvidia_code(code)
    if not what:
        return
    line = str(body.count(b"\n", 0, start) + 1 + code.count(b"\n", 0, at))
    for o in stack:
        for name in o.selecting:
            found.setdefault((name, True), FeatureFact(name, what, line))


def positive_arms(tokens: Tokens, chain: list[Arm]) -> Iterable[tuple[str, Arm]]:
    """The branches of the chain taken when a macro its tests name is defined, with that macro (none of
    nvcc's): the branch of `#ifdef M` or `defined(M)`, and the #else after `#ifndef M` or `!defined(M)`."""
    for k, arm in enumerate(chain):
        if arm.name == "else":
            continue
        text = tokens.body[tokens.ends[arm.name_i] : arm.span[1]]
        for name, on in tested_names(arm.name.encode(), directive_code(text)):
            if name in MACROS or not name.isidentifier():
                continue
            if on:
                yield name, arm
            elif k + 1 < len(chain) and chain[k + 1].name == "else":
                yield name, chain[k + 1]


def feature_facts(body: bytes, path: str) -> tuple[FeatureFact, ...]:
    """What the file at `path` tells the run: the macros it defines at an architecture test, and the first
    NVIDIA-only construct of the branches its tests of each macro select (`where`: file name and line).
    Read from the bytes: one search for most files, one walk over the directives of the others."""
    found = _read(body, uses=True)
    if not found:
        return ()
    name = os.path.basename(path)
    return tuple(sorted(f._replace(where=f"{name}:{f.where}") if f.nvidia_only else f for f in found))


def _may_use(body: bytes) -> bool:
    return any(word in body for word in _NVIDIA_WORDS) and any(line_directives(_DEFINED_TEST, body))


def project_features(facts: Iterable[FeatureFact]) -> dict[str, str]:
    """The run's feature macros whose uses hold NVIDIA-only code, each with why (for the HC020 note)."""
    defined: set[str] = set()
    uses: dict[str, FeatureFact] = {}
    for f in facts:
        if not f.nvidia_only:
            defined.add(f.name)
        elif f.name not in uses or _place(f.where) < _place(uses[f.name].where):
            uses[f.name] = f
    return {name: feature_why(name, f.nvidia_only, f.where) for name, f in sorted(uses.items()) if name in defined}


def _place(where: str) -> tuple[str, int]:
    name, _, line = where.rpartition(":")
    return name, int(line)


def feature_why(name: str, what: str, where: str) -> str:
    return f"defines {name}, whose branches hold {what} at {where}"


def file_features(source: SourceFile, project: Mapping[str, str] | None) -> dict[str, str]:
    """The feature macros a file's matcher reads: the run's (project_features), which the project pass found
    with the file's own; with no project pass (None: a run of one file), the file's own."""
    if project is not None:
        return dict(project)
    return project_features(feature_facts(source.body, source.path)) if _ARCH in source.body else {}
