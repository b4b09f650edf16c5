"""What the files of one run tell each other, gathered before any is translated."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hipconv.rules.model import LookupTable
from hipconv.translate.mask_names import ProjectMask, project_masks
from hipconv.translate.source import SourceFile
from hipconv.translate.unknown_api import project_names
from hipconv.translate.words import file_words

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*["<]([^">\n]+)[">]', re.M)


@dataclass(frozen=True)
class Project:
    # by path, the CUDA-looking names that the files it includes (directly or not) declare: no HC001 there
    # (unknown_api); the same whether the run names the file alone or its whole tree (include_closure)
    names: Mapping[str, frozenset[str]] = field(default_factory=dict)
    masks: Mapping[str, ProjectMask] = field(default_factory=dict)  # lane masks given by name (mask_names)
    # by path, the defines the HIP rewrites of the headers a file includes (directly or not) need before
    # the runtime header (HIP_ENABLE_WARP_SYNC_BUILTINS): a source file defines them at its top
    header_defines: Mapping[str, frozenset[str]] = field(default_factory=dict)


NO_PROJECT = Project()  # a run of one file


def gather_project(
    sources: Sequence[SourceFile],
    table: LookupTable,
    *,
    reach: Mapping[str, frozenset[str]],
    extra: Sequence[SourceFile] = (),
    extra_masks: bool = False,
) -> Project:
    """`reach`: by path, the files each source includes, directly or not (include_closure: among
    `sources` and `extra`, the files the run does not name but its sources include). The lane masks
    `extra` defines count only with `extra_masks` (a scan: what translating the project would do; a
    translation does not widen a definition in a file it does not write)."""
    files = [*sources, *extra]
    words = [file_words(s.body) for s in files]  # one scan of each body serves the three questions
    names = reached_names(files, reach, table, words)
    masked = len(files) if extra_masks else len(sources)
    masks = project_masks(files[:masked], words[:masked], table)
    return Project(names, masks, header_defines(sources, words[: len(sources)], table))


def reached_names(
    files: Sequence[SourceFile],
    reach: Mapping[str, frozenset[str]],
    table: LookupTable,
    words: Sequence[frozenset[bytes]],
) -> dict[str, frozenset[str]]:
    """By path in `reach`, the CUDA-looking names that the files it reaches declare (project_names).
    `words`: the file_words of each file."""
    wanted = frozenset[str]().union(*reach.values())
    reached = [(f, w) for f, w in zip(files, words) if f.path in wanted]
    declared = dict(zip((f.path for f, _ in reached), project_names([(f.body, w) for f, w in reached], table.names)))
    names: dict[str, frozenset[str]] = {}
    union: dict[frozenset[str], frozenset[str]] = {}  # files reaching the same headers share one set
    for path, headers in reach.items():
        if headers not in union:
            union[headers] = frozenset[str]().union(*(declared.get(h, ()) for h in headers))
        if union[headers]:
            names[path] = union[headers]
    return names


def header_defines(
    sources: Sequence[SourceFile], words: Sequence[frozenset[bytes]], table: LookupTable
) -> dict[str, frozenset[str]]:
    """For each source (`words`: the file_words of each), the defines its included headers of the run
    need (through the words of their rules that require one; a word in a comment counts too, which only
    adds a harmless define)."""
    requiring = {
        name.encode(): r.rule.requires_define
        for name, r in table.identifiers.items()
        if r.rewrites and r.rule is not None and r.rule.requires_define
    }
    own = {s.path: frozenset(requiring[w] for w in found & requiring.keys()) for s, found in zip(sources, words)}
    if not any(own.values()):
        return {}
    paths = frozenset(own)
    by_name: dict[str, list[str]] = {}  # the run's files by base name: an include is resolved among its few
    for path in paths:
        by_name.setdefault(os.path.basename(path), []).append(path)
    included = {s.path: _resolve_includes(s, paths, by_name) for s in sources}
    reach: dict[str, frozenset[str]] = {}
    for path in paths:  # every header reached from each file (include cycles end)
        seen, todo = set(), list(included[path])
        while todo:
            header = todo.pop()
            if header not in seen:
                seen.add(header)
                todo += included.get(header, ())
        defines = frozenset().union(*(own[h] for h in seen)) if seen else frozenset()
        if defines:
            reach[path] = defines
    return reach


def _resolve_includes(source: SourceFile, paths: frozenset[str], by_name: Mapping[str, list[str]]) -> list[str]:
    """The files of the run that the source's #include lines name: beside it, else the one file whose
    path ends with the included path (an -I directory)."""
    found = []
    here = os.path.dirname(source.path)
    for m in _INCLUDE.finditer(source.body):
        written = m.group(1).decode(errors="replace")
        beside = os.path.normpath(os.path.join(here, written))
        if beside in paths:
            found.append(beside)
            continue
        ends = [p for p in by_name.get(os.path.basename(written), ()) if p.endswith("/" + written) or p == written]
        if len(ends) == 1:
            found.append(ends[0])
    return found
