"""How the tree's files include each other. Sources that another file of the tree #includes (`#include
"kernel.cu"`) are compiled as part of the file that includes them, not on their own (the types and macros
they use come from it), unless the project's build compiles them too; a TU looks for headers in the tree's
folders nearest it first."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

# a quoted include at the start of a line (a commented-out one is not)
_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def included_sources(out_root: Path, files: Iterable[str], suffixes: frozenset[str]) -> dict[str, str]:
    """{source: a file that includes it} for the files (relative to out_root, `/`-separated) with one of
    `suffixes` that another file among `files` includes by a quoted path: relative to the including file,
    to the tree's root, or the one file of the tree whose path ends with it."""
    rels = sorted(files)
    known = set(rels)
    by_name: dict[str, list[str]] = {}
    for rel in rels:
        by_name.setdefault(posixpath.basename(rel), []).append(rel)
    wanted = {rel for rel in rels if posixpath.splitext(rel)[1].lower() in suffixes}
    included: dict[str, str] = {}
    for rel in rels:
        try:
            data = (out_root / rel).read_bytes()
        except OSError:
            continue
        if b"include" not in data:
            continue
        for match in _QUOTED_INCLUDE.finditer(data):
            target = resolve_include(match.group(1).decode("utf-8", "replace"), rel, known, by_name)
            if target is not None and target != rel and target in wanted:
                included.setdefault(target, rel)
    return included


def resolve_include(path: str, includer: str, known: set[str], by_name: dict[str, list[str]]) -> str | None:
    """Relative to the includer, to the tree's root, else the one file of the tree whose path ends with it
    (found through an -I directory of the build: SHOC's `#include "Matrix2DFileSupport.cpp"`)."""
    for base in (posixpath.dirname(includer), ""):
        candidate = posixpath.normpath(posixpath.join(base, path))
        if candidate in known:
            return candidate
    tail = posixpath.normpath(path)
    ends = [rel for rel in by_name.get(posixpath.basename(tail), []) if rel.endswith("/" + tail)]
    return ends[0] if len(ends) == 1 else None


def nearest_first(dirs: Sequence[str], file: str) -> list[str]:
    """`dirs` ordered by how much of the path to `file` they share (most first), then by name."""
    parts = Path(file).parent.parts

    def shared(d: str) -> int:
        n = 0
        for a, b in zip(Path(d).parts, parts):
            if a != b:
                break
            n += 1
        return n

    return sorted(dirs, key=lambda d: (-shared(d), d))
