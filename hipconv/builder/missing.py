"""What a header hipcc could not find (`fatal error: 'X' file not found`) stands for, and what to do.

In this order: a CUDA header hipconv left (no HIP counterpart, or none at the targeted release); a header
of a ROCm library (found from the include rules, see packages.yaml), with the package that installs it,
or, for HIP's own headers, a release newer than hipcc's; a file of the translated tree that is not on the
include path (and the `-I` that finds it); a CUDA-ecosystem header no rule covers (NVML, NVTX, TensorRT);
a common dependency (MPI, OpenGL); else a dependency hipconv does not know.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from hipconv.errors import ConfigError
from hipconv.resources import build_file, hip_headers, hip_releases, span_text
from hipconv.rules.model import RuleKind, RuleSet, RuleStatus
from hipconv.settings import Version


class HeaderHint(NamedTuple):
    text: str  # what the header is and what to do, written after `missing header X: `
    fixable: bool  # a translator (hipconv) could fix it; False: nothing can (install it, port by hand)


@dataclass(frozen=True)
class RocmLibrary:
    name: str  # hipBLAS
    cuda: tuple[str, ...]  # the rules' libraries whose HIP headers it installs
    roots: tuple[str, ...]  # header roots no rule writes
    debian: str | None  # the Debian 12 package with its headers

    @property
    def install(self) -> str:
        package = f"Debian 12: {self.debian}" if self.debian else "Debian 12 has no package"
        return f"install ROCm's {self.name} ({package})"


@dataclass(frozen=True)
class Dependency:
    """A header family outside ROCm: CUDA's with no HIP counterpart (`instead`), or another project's."""

    headers: tuple[str, ...]  # paths, or directories ending in `/`
    what: str
    instead: str = ""
    debian: str | None = None

    def covers(self, header: str) -> bool:
        return any(header == h or (h.endswith("/") and header.startswith(h)) for h in self.headers)


@dataclass(frozen=True)
class Packages:
    rocm: tuple[RocmLibrary, ...]
    cuda: tuple[Dependency, ...]
    other: tuple[Dependency, ...]


_KEYS = {
    "rocm": {"name", "cuda", "roots", "debian"},
    "cuda": {"headers", "what", "instead"},
    "other": {"headers", "what", "instead", "debian"},
}


def _records(data: Any, section: str, path: Path) -> list[dict[str, Any]]:
    records = data.get(section) if isinstance(data, dict) else None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ConfigError(f"{path}: `{section}:` must be a list of records")
    for record in records:
        unknown = set(record) - _KEYS[section]
        if unknown:
            raise ConfigError(f"{path}: {section}: unknown key(s) {', '.join(sorted(unknown))}")
    return records


@functools.cache
def packages(path: Path | None = None) -> Packages:
    """hipconv/builder/packages.yaml, checked for unknown keys."""
    path = path or build_file("packages.yaml")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return Packages(
        tuple(
            RocmLibrary(str(r["name"]), tuple(r.get("cuda", ())), tuple(r.get("roots", ())), r.get("debian"))
            for r in _records(data, "rocm", path)
        ),
        tuple(
            Dependency(tuple(r["headers"]), str(r["what"]), instead=str(r["instead"]))
            for r in _records(data, "cuda", path)
        ),
        tuple(
            Dependency(tuple(r["headers"]), str(r["what"]), instead=str(r.get("instead", "")), debian=r.get("debian"))
            for r in _records(data, "other", path)
        ),
    )


_WORD = re.compile(r"[A-Za-z0-9_]+")


def roots(header: str) -> list[str]:
    """The first word of each part of a header path: `hipblas-common/hipblas-common.h` -> hipblas, hipblas;
    `internal/hipsolver-types.h` -> internal, hipsolver."""
    return [m.group(0) for part in header.split("/") if (m := _WORD.match(part))]


@dataclass(frozen=True)
class LibraryIndex:
    exact: Mapping[str, RocmLibrary]  # a header an include rule writes -> the library of the rule's CUDA library
    by_root: Mapping[str, RocmLibrary]  # the root of such a header (and packages.yaml's roots) -> library

    @classmethod
    def of(cls, ruleset: RuleSet, facts: Packages) -> LibraryIndex:
        by_cuda = {cuda: lib for lib in facts.rocm for cuda in lib.cuda}
        exact: dict[str, RocmLibrary] = {}
        by_root = {root: lib for lib in facts.rocm for root in lib.roots}
        for rule in ruleset.rules:
            library = by_cuda.get(rule.library)
            if rule.kind is RuleKind.INCLUDE and rule.hip and library is not None:
                exact.setdefault(rule.hip, library)
                by_root.setdefault(roots(rule.hip)[0], library)
        return cls(exact, by_root)

    def library(self, header: str) -> RocmLibrary | None:
        """The ROCm library a header belongs to: the rule that writes it, else the first root that one has."""
        if header in self.exact:
            return self.exact[header]
        return next((self.by_root[r] for r in roots(header) if r in self.by_root), None)


def tree_headers(tree: Path) -> dict[str, list[str]]:
    """The files of a tree by base name (paths relative to it, `/`-separated); hidden directories left out."""
    found: dict[str, list[str]] = {}
    for directory, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel = os.path.relpath(directory, tree)
        for name in sorted(files):
            found.setdefault(name, []).append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return found


class MissingHeaders:
    """Hints for one build: the ruleset, the translated tree, the targeted release and hipcc's release.
    The library index and the tree's file list are made on first use."""

    def __init__(
        self,
        ruleset: RuleSet,
        *,
        tree: Path | None = None,
        target: Version | None = None,
        installed: str | None = None,  # hipcc's HIP version ("5.2.21153")
        facts: Packages | None = None,
    ) -> None:
        self.ruleset, self.tree, self.target, self.facts = ruleset, tree, target, facts or packages()
        self.installed = _bundled(installed)

    @functools.cached_property
    def index(self) -> LibraryIndex:
        return LibraryIndex.of(self.ruleset, self.facts)

    @functools.cached_property
    def _files(self) -> dict[str, list[str]]:
        return {} if self.tree is None else tree_headers(self.tree)

    def in_tree(self, header: str) -> list[str]:
        """The directories of the tree from which `#include "header"` finds a file."""
        if self.tree is None:
            return []
        suffix = header.lstrip("./")
        paths = self._files.get(os.path.basename(suffix), [])
        found = [p[: -len(suffix)].rstrip("/") for p in paths if p == suffix or p.endswith("/" + suffix)]
        return [str(self.tree / d) if d else str(self.tree) for d in found]

    def hint(self, header: str) -> HeaderHint:
        return (
            self._cuda_rule(header)
            or self._rocm(header)
            or self._tree(header)
            or next((_cuda_only(d) for d in self.facts.cuda if d.covers(header)), None)
            or next((_other(d) for d in self.facts.other if d.covers(header)), None)
            or HeaderHint(
                "not in the tree, and neither a CUDA nor a ROCm header hipconv knows: install what provides it, "
                "or add its directory with --hipcc-arg -IDIR",
                False,
            )
        )

    def _cuda_rule(self, header: str) -> HeaderHint | None:
        rules = [r for r in self.ruleset.find(header) if r.kind is RuleKind.INCLUDE and r.cuda == header]
        if not rules:
            return None
        targets = sorted(
            (r for r in rules if r.hip and r.status not in (RuleStatus.UNSUPPORTED, RuleStatus.REMOVED)),
            key=lambda r: r.rocm.start,
        )
        if not targets:
            note = next((r.note for r in rules if r.note), "")
            return HeaderHint(f"a CUDA header hipconv leaves: HIP has no counterpart{_said(note)}", False)
        reachable = [r for r in targets if self.target is None or r.rocm.available(self.target)]
        if not reachable:
            first = targets[0]
            return HeaderHint(
                f"a CUDA header: hipconv left it because {first.hip} exists from ROCm {first.rocm.since} on "
                f"and the target is ROCm {self.target} (a newer --rocm-version translates it)",
                False,
            )
        return HeaderHint(
            f"a CUDA header, which hipconv translates to {reachable[-1].hip}: the file that includes it "
            "was not translated",
            True,
        )

    def _rocm(self, header: str) -> HeaderHint | None:
        library = self.index.library(header)
        if library is None:
            return None
        presence = hip_headers().get(header)
        if presence is None or self.installed is None or self.installed in presence.releases:
            return HeaderHint(library.install, False)
        newer = f"hipcc's ROCm {self.installed} has no {header} (ROCm {span_text(presence.releases)} have it)"
        if "cudart" in library.cuda:  # HIP itself: hipcc has it, at another release
            return HeaderHint(f"{newer}: the translation targets a newer release (check --rocm-version)", True)
        return HeaderHint(f"{library.install}; {newer}", False)

    def _tree(self, header: str) -> HeaderHint | None:
        directories = self.in_tree(header)
        if not directories:
            return None
        flags = " or ".join(f"--hipcc-arg -I{d}" for d in directories[:3])
        more = f" (and {len(directories) - 3} more)" if len(directories) > 3 else ""
        return HeaderHint(f"not on the include path; the tree has it: add {flags}{more}", True)


def _said(note: str) -> str:
    return f" ({note})" if note else ""


def _cuda_only(dependency: Dependency) -> HeaderHint:
    return HeaderHint(
        f"a CUDA header ({dependency.what}) hipconv leaves: HIP has no counterpart; {dependency.instead}", False
    )


def _other(dependency: Dependency) -> HeaderHint:
    package = f" (Debian 12: {dependency.debian})" if dependency.debian else ""
    return HeaderHint(
        f"{dependency.what}, not part of CUDA or ROCm: {dependency.instead or 'install it'}{package}", False
    )


def _bundled(hip_version: str | None) -> str | None:
    """`5.2.21153` -> `5.2`, the bundled release it is; None when it is none of them."""
    if not hip_version:
        return None
    parts = hip_version.split(".")
    release = ".".join(parts[:2])
    return release if release in hip_releases() else None
