"""What the files of one run tell each other, gathered before any is translated.

Composable: each file's own facts (file_facts: the names it declares, the lane-mask names it passes,
the defines its words require, what it #includes) are computed on their own, in the worker pool and
cached with the file's bytes, then merged (merge_facts) along what each file includes, directly or not
(include_closure, which also reads the headers the run does not name). The lane masks take a second
look, at the files that hold one of the names passed as a mask anywhere in the run
(mask_names.file_mask_uses).
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from hipconv.rules.model import LookupTable
from hipconv.translate.compat import is_generated_header
from hipconv.translate.facts.feature_macros import FeatureFact, feature_facts, project_features
from hipconv.translate.facts.hip_switches import HipTest, hip_tests, project_switches
from hipconv.translate.include_closure import EMPTY_SET, Include, include_lines
from hipconv.translate.mask_names import MaskUses, ProjectMask, mask_arguments, merge_masks
from hipconv.translate.pp_expr import integer_defines
from hipconv.translate.source import SourceFile
from hipconv.translate.unknown_api import project_names
from hipconv.translate.words import file_words


@dataclass(frozen=True)
class Project:
    # by path, the CUDA-looking names that the files it includes (directly or not) declare: no HC001 there
    # (unknown_api); the same whether the run names the file alone or its whole tree (include_closure)
    names: Mapping[str, frozenset[str]] = field(default_factory=dict)
    masks: Mapping[str, ProjectMask] = field(default_factory=dict)  # lane masks given by name (mask_names)
    # by path, the defines the HIP rewrites of the headers a file includes (directly or not) need before
    # the runtime header (HIP_ENABLE_WARP_SYNC_BUILTINS): a source file defines them at its top
    header_defines: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # the project's own HIP switches (facts.hip_switches), each with the number of its tests in the run;
    # None: a macro the project #defines, so no switch even where a file's branches would make it one
    hip_switches: Mapping[str, int | None] = field(default_factory=dict)
    # by path, the #defines of integer expressions of the headers it includes, directly or not: a test of
    # __CUDA_ARCH__ against a project constant is read with them (version_tests.integer_macros)
    macros: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # the feature macros (#defined at a test of __CUDA_ARCH__) whose uses hold NVIDIA-only code somewhere in
    # the run, each with why: the test that defines one is not taken on AMD devices (facts.feature_macros)
    features: Mapping[str, str] = field(default_factory=dict)

    def digest(self, path: str) -> bytes:
        """A digest of everything the translation of the file at `path` may read here: part of its cache
        key (the facts of other files leave it alone)."""
        digest = hashlib.blake2b(self._shared_text, digest_size=20)
        text = repr(
            (
                sorted(self.names.get(path, ())),
                sorted(self.header_defines.get(path, ())),
                self.macros.get(path, ()),
            )
        )
        digest.update(text.encode())
        return digest.digest()

    @functools.cached_property
    def _shared_text(self) -> bytes:
        """What every file's translation may read here, the same for all (digest): worked out once a run, not
        once per file."""
        shared = (
            sorted(self.masks.items()),
            sorted(self.hip_switches.items(), key=lambda item: item[0]),
            sorted(self.features.items()),
        )
        return repr(shared).encode() + b"\0"


NO_PROJECT = Project()  # a run of one file


class _Facts(NamedTuple):
    path: str
    names: frozenset[str]  # CUDA-looking names no rule knows that it declares
    mask_arguments: frozenset[bytes]  # names it passes as a lane mask
    requires: frozenset[str]  # defines that the rules of its words require
    includes: tuple[Include, ...]  # its #include lines (include_closure.include_lines)
    hip_tests: tuple[HipTest, ...]  # macros that may be HIP switches (facts.hip_switches.hip_tests)
    macros: tuple[tuple[str, str], ...]  # its #defines of integer expressions (pp_expr.integer_defines)
    features: tuple[FeatureFact, ...]  # feature macros it defines, NVIDIA-only code their tests hold here


class FileFacts(_Facts):
    """What one source tells the others of its run (merge_facts joins them). A tuple, with what many files
    share kept once: a run keeps the facts of every source (an empty frozenset alone is 216 bytes, and most
    files declare no name, pass no mask and require no define). Unpickled (from the per-file cache) through
    __new__, which shares."""

    __slots__ = ()

    def __new__(
        cls,
        path: str,
        names: frozenset[str] = EMPTY_SET,
        mask_arguments: frozenset[bytes] = EMPTY_SET,
        requires: frozenset[str] = EMPTY_SET,
        includes: tuple[Include, ...] = (),
        hip_tests: tuple[HipTest, ...] = (),
        macros: tuple[tuple[str, str], ...] = (),
        features: tuple[FeatureFact, ...] = (),
    ) -> FileFacts:
        return super().__new__(
            cls,
            path,
            names or EMPTY_SET,
            mask_arguments or EMPTY_SET,
            requires or EMPTY_SET,
            _shared_includes(includes),
            hip_tests or (),
            macros or (),
            features or (),
        )


_INCLUDES: dict[Any, Any] = {}  # each #include line, and each file's tuple of them, as first met
_MAX_SHARED_INCLUDES = 1 << 16


def _shared_includes(includes: tuple[Include, ...]) -> tuple[Include, ...]:
    if not includes:
        return ()
    if len(_INCLUDES) > _MAX_SHARED_INCLUDES:
        _INCLUDES.clear()
    shared = tuple(_INCLUDES.setdefault(line, line) for line in includes)
    return _INCLUDES.setdefault(shared, shared)  # type: ignore[no-any-return]


def file_links(sources: Sequence[SourceFile], table: LookupTable) -> list[FileFacts]:
    """What every source of a run is looked at for: its #include lines, the names it passes as a lane
    mask and its tests of HIP switches. The rest of its facts (file_facts) matter only for a file that
    another one includes."""
    return [
        FileFacts(
            s.path,
            mask_arguments=mask_arguments(s.body),
            includes=include_lines(s.body),
            hip_tests=hip_tests(s.body, table),
            features=feature_facts(s.body, s.path),
        )
        for s in sources
    ]


def file_facts(sources: Sequence[SourceFile], table: LookupTable, *, links: bool = True) -> list[FileFacts]:
    """All the facts of each source: one scan of each body (file_words) serves the questions. `links`
    False: not those of file_links (a run has them already: with_links joins them)."""
    # one scan of each body serves the three questions, and the translation of the file later (keep)
    words = [file_words(s.body, keep=True) for s in sources]
    requiring = _requiring(table)
    declared = project_names([(s.body, w) for s, w in zip(sources, words)], table.names)
    requiring_words = frozenset(requiring)  # a set: `found & requiring.keys()` walks all of a file's words
    facts = []
    for source, found, names in zip(sources, words, declared):
        requires = frozenset(requiring[w] for w in found & requiring_words)
        if is_generated_header(source.body):  # hipconv's own, from a run before: the defines it needs are set
            requires = EMPTY_SET
        facts.append(
            FileFacts(
                source.path,
                names,
                mask_arguments(source.body) if links else EMPTY_SET,
                requires,
                include_lines(source.body) if links else (),
                hip_tests(source.body, table) if links else (),
                integer_defines(source.body),
                feature_facts(source.body, source.path) if links else (),
            )
        )
    return facts


def with_links(facts: FileFacts, links: FileFacts) -> FileFacts:
    """A file's facts of file_facts(links=False) with those file_links found."""
    return facts._replace(
        mask_arguments=links.mask_arguments, includes=links.includes, hip_tests=links.hip_tests, features=links.features
    )


def mask_names_of(facts: Iterable[FileFacts]) -> frozenset[bytes]:
    """The names that files of the run pass as a lane mask: the files holding one are looked at again."""
    return frozenset().union(*(f.mask_arguments for f in facts))


def merge_facts(
    facts: Sequence[FileFacts],
    reach: Iterable[tuple[str, frozenset[str]]],
    extra: Sequence[FileFacts] = (),
    mask_uses: Iterable[MaskUses] = (),
    included: Mapping[str, list[str]] | None = None,
) -> Project:
    """The run's Project from its sources' facts, those of the files they include that the run does not
    name (`extra`), what each source reaches (`reach`: include_closure, pairs of a path as shown and what it
    reaches) and the mask uses of the files holding a mask name. `included`: included_in_run(facts), when
    the caller has it."""
    defines = header_defines(facts, included if included is not None else included_in_run(facts))
    switches = project_switches(t for f in [*facts, *extra] for t in f.hip_tests)
    reach, macros = reached_macros([*facts, *extra], reach)
    names = reached_names([*facts, *extra], reach)
    if any(f.macros for f in (*facts, *extra)):
        for _ in reach:  # the rest, where reached_names stopped early
            pass
    features = project_features(t for f in [*facts, *extra] for t in f.features)
    return Project(names, merge_masks(mask_uses), defines, switches, macros, features)


def reached_macros(
    facts: Sequence[FileFacts], reach: Iterable[tuple[str, frozenset[str]]]
) -> tuple[Iterator[tuple[str, frozenset[str]]], dict[str, tuple[tuple[str, str], ...]]]:
    """`reach` passed through, and by path the integer #defines of the headers each one reaches, filled in
    as it is iterated (most files reach none)."""
    defining = {f.path: f.macros for f in facts if f.macros}
    found: dict[str, tuple[tuple[str, str], ...]] = {}

    def passing() -> Iterator[tuple[str, frozenset[str]]]:
        for path, headers in reach:
            hit = headers & defining.keys() if defining else None
            if hit:
                found[path] = tuple(sorted({d for h in hit for d in defining[h]}))
            yield path, headers

    return passing(), found


def reached_names(facts: Sequence[FileFacts], reach: Iterable[tuple[str, frozenset[str]]]) -> dict[str, frozenset[str]]:
    """By path in `reach` (pairs of a path and the files it reaches), the CUDA-looking names that the files it
    reaches declare. Most files declare none: without one, no reach is looked at."""
    declared = {f.path: f.names for f in facts if f.names}
    names: dict[str, frozenset[str]] = {}
    if not declared:
        return names
    union: dict[frozenset[str], frozenset[str]] = {}  # files reaching the same declaring headers share one set
    for path, headers in reach:
        declaring = frozenset(headers & declared.keys())
        if declaring:
            if declaring not in union:
                union[declaring] = frozenset[str]().union(*(declared[h] for h in declaring))
            names[path] = union[declaring]
    return names


def _requiring(table: LookupTable) -> dict[bytes, str]:
    """The words whose rules require a define, and the define (computed once per table)."""
    kept = _REQUIRING.get(id(table))
    if kept is not None and kept[0] is table:
        return kept[1]
    requiring = {
        name.encode(): r.rule.requires_define
        for name, r in table.identifiers.items()
        if r.rewrites and r.rule is not None and r.rule.requires_define
    }
    _REQUIRING.clear()
    _REQUIRING[id(table)] = (table, requiring)
    return requiring


_REQUIRING: dict[int, tuple[LookupTable, dict[bytes, str]]] = {}


def included_in_run(facts: Sequence[FileFacts]) -> dict[str, list[str]]:
    """By path, the files of the run that each one's #include lines name (_resolve_includes), for the files
    that name one: what header_defines follows."""
    paths = frozenset(f.path for f in facts)
    by_name: dict[str, list[str]] = {}  # the run's files by base name: an include is resolved among its few
    for path in paths:
        by_name.setdefault(os.path.basename(path), []).append(path)
    resolved = ((f.path, _resolve_includes(f, paths, by_name)) for f in facts if f.includes)
    return {path: found for path, found in resolved if found}  # most files: none, and no entry


def header_defines(facts: Sequence[FileFacts], included: Mapping[str, list[str]]) -> dict[str, frozenset[str]]:
    """For each source, the defines its included headers of the run (`included`: included_in_run) need
    (through the words of their rules that require one; a word in a comment counts too, which only adds a
    harmless define)."""
    own = {f.path: f.requires for f in facts}
    if not any(own.values()):
        return {}
    reach: dict[str, frozenset[str]] = {}
    for path in own:  # every header reached from each file (include cycles end)
        seen, todo = set(), list(included.get(path, ()))
        while todo:
            header = todo.pop()
            if header not in seen:
                seen.add(header)
                todo += included.get(header, ())
        defines = frozenset().union(*(own[h] for h in seen)) if seen else frozenset()
        if defines:
            reach[path] = defines
    return reach


def _resolve_includes(facts: FileFacts, paths: frozenset[str], by_name: Mapping[str, list[str]]) -> list[str]:
    """The files of the run that the source's #include lines name: beside it, else the one file whose
    path ends with the included path (an -I directory)."""
    found = []
    here = os.path.dirname(facts.path)
    for _, written in facts.includes:
        beside = os.path.normpath(os.path.join(here, written))
        if beside in paths:
            found.append(beside)
            continue
        ends = [p for p in by_name.get(os.path.basename(written), ()) if p.endswith("/" + written) or p == written]
        if len(ends) == 1:
            found.append(ends[0])
    return found
