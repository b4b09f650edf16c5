"""Feature macros: an architecture test that only #defines a macro, whose tests hold the NVIDIA-only code
(llama.cpp's `#if __CUDA_ARCH__ >= CC_TURING` / `#define TURING_MMA_AVAILABLE`, then `#ifdef
TURING_MMA_AVAILABLE` around `ldmatrix` PTX, often in another header).

A *feature macro* is one the project #defines in a branch of a test of __CUDA_ARCH__ (arch_defined). Its
*uses* are the branches taken when it is defined: `#ifdef M`, `#if defined(M) || ...`, `#elif defined(M)`,
and the `#else` of `#ifndef M`. A use that holds NVIDIA-only code (arch_branches.nvidia_only) makes the
branch defining M NVIDIA-only too: the project pass gathers both facts of every file (feature_facts, kept
in project.FileFacts), merges them (project_features), and arch_chains plans the defining test with them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from hipconv.rules.model import LookupTable
from hipconv.translate.directives import Directives, directive_lines
from hipconv.translate.facts.arch_branches import nvidia_only
from hipconv.translate.facts.arch_chains import Arm, file_chains
from hipconv.translate.facts.hip_switches import directive_code, tested_names
from hipconv.translate.lexer import Tokens, lex_many
from hipconv.translate.source import SourceFile
from hipconv.translate.version_tests import MACROS

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(\w+)([^\n]*(?:(?<=\\)\n[^\n]*)*)", re.MULTILINE)
_OPENERS = (b"if", b"ifdef", b"ifndef")
_ARCH = b"__CUDA_ARCH__"
# what NVIDIA-only code a branch may hold, as bytes (arch_branches): files without one are not lexed
_NVIDIA_WORDS = (b"asm", b"wmma", b"nvcuda", b"__nvvm_", b"__pipeline_")
_DEFINED_TEST = re.compile(rb"^[ \t]*#[ \t]*(?:(?:el)?ifn?def\b|(?:el)?if\b[^\n]*\bdefined\b)", re.MULTILINE)


class FeatureFact(NamedTuple):
    """What one file tells the run about one macro (project.FileFacts)."""

    name: str
    nvidia_only: str  # what a branch taken when it is defined holds here; "": the file defines it at an arch test
    where: str = ""  # that construct's file name and line (`mma.cuh:763`)


def arch_defined(body: bytes) -> frozenset[str]:
    """The object-like macros the body #defines in a branch of a chain that tests __CUDA_ARCH__ (its #else
    included), read from the bytes (one search for most files)."""
    if _ARCH not in body:
        return frozenset()
    found: set[str] = set()
    stack: list[bool] = []  # per open chain: whether a test of it so far names __CUDA_ARCH__
    for m in _DIRECTIVE.finditer(body):
        directive, rest = m.group(1), m.group(2)
        if directive in _OPENERS:
            stack.append(_ARCH in directive_code(rest))
        elif directive in (b"elif", b"elifdef", b"elifndef") and stack:
            stack[-1] = stack[-1] or _ARCH in directive_code(rest)
        elif directive == b"endif" and stack:
            stack.pop()
        elif directive == b"define" and any(stack):
            name = re.match(rb"[ \t]*(\w+)(\(?)", rest)
            if name and not name.group(2):
                found.add(name.group(1).decode())
    return frozenset(found)


def nvidia_uses(tokens: Tokens, directives: Directives, table: LookupTable) -> dict[str, tuple[str, int]]:
    """By macro, the first NVIDIA-only construct (what, offset) of a branch taken when it is defined."""
    found: dict[str, tuple[str, int]] = {}
    for chain in file_chains(tokens, directives):
        for name, arm in positive_arms(tokens, chain):
            if name not in found:
                what, at = nvidia_only(tokens, arm.region, table)
                if what:
                    found[name] = (what, at)
    return found


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


def feature_facts(sources: Sequence[SourceFile], table: LookupTable) -> list[tuple[FeatureFact, ...]]:
    """For each source, the macros it defines at an architecture test and the NVIDIA-only code of the
    branches its tests of macros select; only the sources with a test of a macro and a word of NVIDIA-only
    code are lexed."""
    defined = [arch_defined(s.body) for s in sources]
    candidates = [n for n, s in enumerate(sources) if _may_use(s.body)]
    uses: dict[int, dict[str, tuple[str, int]]] = {}
    for n, tokens in zip(candidates, lex_many([sources[n].body for n in candidates])):
        uses[n] = nvidia_uses(tokens, directive_lines(tokens), table)
    facts = []
    for n, source in enumerate(sources):
        here = [FeatureFact(name, "") for name in sorted(defined[n])]
        for name, (what, at) in sorted(uses.get(n, {}).items()):
            here.append(FeatureFact(name, what, f"{os.path.basename(source.path)}:{source.line_col(at)[0]}"))
        facts.append(tuple(here))
    return facts


def _may_use(body: bytes) -> bool:
    return any(word in body for word in _NVIDIA_WORDS) and _DEFINED_TEST.search(body) is not None


def project_features(facts: Iterable[FeatureFact]) -> dict[str, str]:
    """The run's feature macros whose uses hold NVIDIA-only code, each with why (for the HC020 note)."""
    defined: set[str] = set()
    uses: dict[str, FeatureFact] = {}
    for f in facts:
        if not f.nvidia_only:
            defined.add(f.name)
        elif f.name not in uses or f.where < uses[f.name].where:
            uses[f.name] = f
    return {name: feature_why(name, f.nvidia_only, f.where) for name, f in sorted(uses.items()) if name in defined}


def feature_why(name: str, what: str, where: str) -> str:
    return f"defines {name}, whose branches hold {what} at {where}"


def file_features(
    source: SourceFile, tokens: Tokens, directives: Directives, table: LookupTable, project: Mapping[str, str]
) -> dict[str, str]:
    """The feature macros a file's matcher reads: the run's (project_features), and the file's own uses of
    the macros it defines at an architecture test (a run of one file has no project pass)."""
    own = arch_defined(source.body)
    found = dict(project)
    if own and _may_use(source.body):
        name = os.path.basename(source.path)
        for macro, (what, at) in nvidia_uses(tokens, directives, table).items():
            if macro in own and macro not in found:
                found[macro] = feature_why(macro, what, f"{name}:{source.line_col(at)[0]}")
    return found
