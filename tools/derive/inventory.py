"""The API inventories (../shared/api-inventory): CUDA 11.8, 12.9 and 13.0, and every ROCm release the
rules cover.

Two kinds of ROCm set (see the inventories' README): full header parses (5.2 = `hip-5.2/`, 5.7 …
6.2, 6.3 = `hip/`), and host-only sets (6.4 … 7.2), read from hip-python's declarations: host C
APIs only.  What a host-only set cannot see (device code, fp16/bf16/fp8, cooperative groups,
hip_complex, hiprand_kernel, hipCUB, rocThrust, MIOpen, hipBLASLt, hipfftXt, inline functions,
templates, function-like macros ...) is carried forward from the newest full set, here, when the
snapshots are loaded and nowhere else: a name of that set that no host-only set up to the release
has seen is assumed to be still there ("not known to be removed"); a name a host-only set has seen
and a later one lacks is removed there.  Headers cannot be seen removed by a host-only set: the
full set's headers are carried forward as a whole.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.derive.records import IDENT, TYPEDEF, Record, all_deprecated

# ROCm snapshots, oldest first, and their folders
SNAPSHOT_DIR = {
    "5.2": "hip-5.2",
    "5.7": "hip-5.7",
    "6.0": "hip-6.0",
    "6.1": "hip-6.1",
    "6.2": "hip-6.2",
    "6.3": "hip",
    "6.4": "hip-6.4",
    "7.0": "hip-7.0",
    "7.1": "hip-7.1",
    "7.2": "hip-7.2",
}
RELEASES = tuple(SNAPSHOT_DIR)
# More header paths of a release: Debian's HIP 5.2 packages (what CI compiles against) install hipSPARSE
# as <hipsparse/hipsparse.h>, where the 5.2.3 sources declare it in <hipsparse.h>.  Headers only: the
# names of a release are its own set's.
EXTRA_HEADERS = {"5.2": "hip-debian-5.2"}
# CUDA toolkit sets, oldest first, and their folders
CUDA_SETS = {"11.8": "cuda-11.8", "12.9": "cuda-12.9", "13.0": "cuda"}
CUDA_RELEASES = tuple(CUDA_SETS)
# libraries NVIDIA versions apart from the toolkit: their spans name their own releases (MANIFEST
# `library_version_from_headers`), the rest name the CUDA release
CUDA_PRODUCTS = {"cudnn": "cuDNN", "nccl": "NCCL"}
HOST_ONLY_METHOD = "pxd"  # MANIFEST `method` of the host-only sets (hip-python's .pxd declarations)


class Snapshot:
    """All records of one side (cuda, or one HIP release), indexed by name."""

    def __init__(self, folder: Path, release: str | None = None) -> None:
        self.folder = folder
        self.release = release
        self.by_name: dict[str, list[Record]] = collections.defaultdict(list)
        self.by_lib: dict[str, list[Record]] = {}
        self.carried: set[str] = set()  # names carried forward from a full set (host-only sets)
        for path in sorted(folder.glob("*.jsonl")):
            recs = []
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    rec = json.loads(line)
                    rec["lib"] = path.stem
                    recs.append(rec)
                    self.by_name[rec["name"]].append(rec)
            self.by_lib[path.stem] = recs

    def carry_forward(self, full: Snapshot, seen: set[str]) -> None:
        """Add the records of `full` (the newest full set) whose name no host-only set up to this one has
        seen (`seen`); a qualified name (`hipcub::BlockReduce`) only where its first name is here.  A name
        both have keeps the full set's deprecation: a host-only set reads it from doc comments only, and
        HIP does not take a deprecation back."""
        for name, recs in self.by_name.items():
            if all_deprecated(full.records(name)):
                for rec in recs:
                    rec["deprecated"] = True
        heads = set(self.by_name)
        for plain in (True, False):
            for lib, recs in full.by_lib.items():
                for rec in recs:
                    name = rec["name"]
                    if name in seen or ("::" not in name) != plain:
                        continue
                    if not plain and name.split("::", 1)[0] not in heads:
                        continue
                    rec = dict(rec, carried=full.release)
                    self.by_lib.setdefault(lib, []).append(rec)
                    self.by_name[name].append(rec)
                    self.carried.add(name)
                    heads.add(name)

    @classmethod
    def union(cls, snaps: list[Snapshot]) -> Snapshot:
        """One snapshot of several releases' sets (oldest first): each name with the records of the newest
        set that declares it, so a name CUDA removed is still known, by its last declaration."""
        merged = cls.__new__(cls)
        merged.folder, merged.release, merged.carried = snaps[-1].folder, None, set()
        merged.by_name, merged.by_lib = collections.defaultdict(list), {}
        for snap in reversed(snaps):
            for lib, recs in snap.by_lib.items():
                for rec in recs:
                    if rec["name"] not in merged.by_name or merged.by_name[rec["name"]][0].get("set") == snap.release:
                        rec["set"] = snap.release
                        merged.by_name[rec["name"]].append(rec)
                        merged.by_lib.setdefault(lib, []).append(rec)
        for recs in merged.by_lib.values():
            recs.sort(key=lambda r: r["name"])
        return merged

    def has(self, name: str) -> bool:
        return name in self.by_name

    def records(self, name: str, lib: str | None = None) -> list[Record]:
        recs = self.by_name.get(name, [])
        return [r for r in recs if lib is None or r["lib"] == lib]

    def kinds(self, name: str) -> set[str]:
        return {r["kind"] for r in self.by_name.get(name, [])}

    def names(self, lib: str) -> list[str]:
        """The distinct names of one library file, sorted."""
        return sorted({r["name"] for r in self.by_lib[lib]})

    def fields(self, name: str, depth: int = 0) -> set[str] | None:
        """Normalised data-member names of a struct type, following typedefs/aliases."""
        recs = self.by_name.get(name, [])
        for r in recs:
            if r.get("fields"):
                return {f.lower().replace("_", "") for f in r["fields"]}
        if depth > 4:
            return None
        for r in recs:
            target = r.get("alias_of")
            if not target and r["kind"] == "type" and (m := TYPEDEF.match(r.get("signature", ""))):
                target = m[1]
            if target and target != name and (found := self.fields(target, depth + 1)) is not None:
                return found
        return None

    def plain_names(self, *, carried: bool = True) -> list[str]:
        """Identifiers, C++ names qualified with `::` whose every part is one
        (hipcub::BlockReduce, thrust::hip::par), and the names of nested namespaces
        (without `carried`: of the records this set declares itself only)."""
        recs = {n: rs if carried else [r for r in rs if "carried" not in r] for n, rs in self.by_name.items()}
        names = {n for n, rs in recs.items() if rs and all(IDENT.match(p) for p in n.split("::"))}
        # a nested namespace declares its own identifier too (thrust::hip declares `hip`)
        nested = {n for n in names if "::" in n and any(r["kind"] == "namespace" for r in recs[n])}
        return sorted(names | {n.split("::")[-1] for n in nested})

    def carried_names(self) -> set[str]:
        """The plain names that are here only because they were carried forward."""
        return set(self.plain_names()) - set(self.plain_names(carried=False))

    def headers(self, extra: list[str]) -> list[str]:
        hdrs = {r["header"] for recs in self.by_lib.values() for r in recs if r.get("header")}
        hdrs.update(extra)
        return sorted(h for h in hdrs if not h.startswith("@clang/"))


def entry_headers(info: Mapping[str, Any]) -> list[str]:
    """The public headers a MANIFEST file entry was parsed from.  `parse` is one translation unit,
    or a list of them where an opt-in pass parsed the library again (MIOPEN_BETA_API, HIPBLAS_V2)."""
    parses = info.get("parse") or []
    if isinstance(parses, Mapping):
        parses = [parses]
    return [h for unit in parses for h in unit.get("entry_headers", [])]


def _next_major(version: str) -> str:
    return f"{int(version.split('.')[0]) + 1}.0"


@dataclass(frozen=True)
class CudaSpan:
    """Where a CUDA name stands in the bundled CUDA releases, in the versions of its product (the CUDA
    toolkit, or cuDNN / NCCL): the first release that declares it (None: the oldest bundled one already
    does, so since when is not known), the first that shows every declaration deprecated, and the
    release that removed it (the next major release after the last set that has it, where the major
    changes between the sets, as NVIDIA removes APIs in major releases; else the next set's)."""

    product: str
    since: str | None
    deprecated: str | None
    removed: str | None

    def nvidia(self) -> dict[str, str]:
        """The rule's `nvidia:` block."""
        keys = ("since", "deprecated", "removed")
        return {k: v for k in keys if (v := getattr(self, k)) is not None}


@dataclass
class Inventory:
    cuda: Snapshot  # every bundled CUDA release (Snapshot.union): a name by its newest declaration
    hip: dict[str, Snapshot]  # release -> snapshot (host-only sets with what they carry forward)
    entry_headers: dict[str, list[str]]  # release -> public headers parsed (MANIFEST), or carried forward
    host_only: dict[str, str] = field(default_factory=dict)  # host-only release -> the full release it carries
    cuda_sets: dict[str, Snapshot] = field(default_factory=dict)  # CUDA release -> its own set
    # CUDA release -> library -> its product version there (MANIFEST), for CUDA_PRODUCTS
    product_versions: dict[str, dict[str, str]] = field(default_factory=dict)
    _public: dict[str, set[str]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def load(cls, root: Path) -> Inventory:
        manifest = json.loads((root / "MANIFEST.json").read_text(encoding="utf-8"))
        entries: dict[str, set[str]] = {rel: set() for rel in RELEASES}
        pxd: set[str] = set()
        for fname, info in manifest["files"].items():
            for rel, folder in [*SNAPSHOT_DIR.items(), *EXTRA_HEADERS.items()]:
                if fname.startswith(folder + "/"):
                    # skip clang's wrapper (__clang_hip_runtime_wrapper.h), keep hip/..., hipblas.h (5.2)
                    entries[rel].update(h for h in entry_headers(info) if not h.startswith("__clang"))
                    if str(info.get("method", "")).startswith(HOST_ONLY_METHOD):
                        pxd.add(rel)
        for rel, folder in EXTRA_HEADERS.items():
            entries[rel].update(Snapshot(root / folder).headers([]))
        hip: dict[str, Snapshot] = {}
        host_only: dict[str, str] = {}
        full: Snapshot | None = None
        seen: set[str] = set()  # names the host-only sets since the last full one have declared
        for rel in RELEASES:
            snap = hip[rel] = Snapshot(root / SNAPSHOT_DIR[rel], rel)
            if rel not in pxd:
                full, seen = snap, set()
                continue
            if full is None or full.release is None:
                raise ValueError(f"ROCm {rel}: a host-only inventory needs a full one before it")
            seen |= set(snap.by_name)
            snap.carry_forward(full, seen)
            host_only[rel] = full.release
            # headers cannot be seen removed by a host-only set: all of the full set's come along
            entries[rel] = set(full.headers(sorted(entries[full.release])))
        cuda_sets = {rel: Snapshot(root / folder, rel) for rel, folder in CUDA_SETS.items()}
        versions: dict[str, dict[str, str]] = {rel: {} for rel in CUDA_RELEASES}
        for fname, info in manifest["files"].items():
            folder, _, lib = fname.partition("/")
            cuda_rel = next((r for r, f in CUDA_SETS.items() if f == folder), None)
            if cuda_rel and lib.removesuffix(".jsonl") in CUDA_PRODUCTS and info.get("library_version_from_headers"):
                versions[cuda_rel][lib.removesuffix(".jsonl")] = info["library_version_from_headers"]
        return cls(
            cuda=Snapshot.union(list(cuda_sets.values())),
            hip=hip,
            entry_headers={rel: sorted(v) for rel, v in entries.items()},
            host_only=host_only,
            cuda_sets=cuda_sets,
            product_versions=versions,
        )

    def cuda_span(self, name: str, lib: str) -> CudaSpan:
        """Where a CUDA name of library file `lib` stands across the bundled CUDA releases."""
        have = [rel for rel in CUDA_RELEASES if self.cuda_sets[rel].records(name, lib)]
        if not have:
            have = [rel for rel in CUDA_RELEASES if self.cuda_sets[rel].has(name)]
        if not have:
            return CudaSpan("CUDA", None, None, None)

        def label(rel: str) -> str:  # the product's version in a set: 13.0, or cuDNN's 8.9
            version = self.product_versions.get(rel, {}).get(lib)
            return ".".join(version.split(".")[:2]) if version and lib in CUDA_PRODUCTS else rel

        since = label(have[0]) if have[0] != CUDA_RELEASES[0] else None
        deprecated = next((label(r) for r in have if all_deprecated(self.cuda_sets[r].records(name))), None)
        removed: str | None = None
        if have[-1] != CUDA_RELEASES[-1]:
            last, after = label(have[-1]), label(CUDA_RELEASES[CUDA_RELEASES.index(have[-1]) + 1])
            removed = _next_major(last) if last.split(".")[0] != after.split(".")[0] else after
        return CudaSpan(CUDA_PRODUCTS.get(lib, "CUDA"), since, deprecated, removed)

    @property
    def latest(self) -> Snapshot:
        return self.hip[RELEASES[-1]]

    @property
    def newest_full(self) -> str:
        """The newest release with a full inventory (what the host-only ones carry forward)."""
        return next(rel for rel in reversed(RELEASES) if rel not in self.host_only)

    def releases_with(self, name: str) -> list[str]:
        return [rel for rel in RELEASES if self.hip[rel].has(name)]

    def present_everywhere(self, name: str) -> bool:
        return all(self.hip[rel].has(name) for rel in RELEASES)

    def runs(self, name: str) -> list[tuple[str, str | None]]:
        """The spans of consecutive releases that have `name`: [(since, until)], until None for the newest."""
        out: list[tuple[str, str | None]] = []
        start: str | None = None
        for rel in RELEASES:
            if self.hip[rel].has(name) and start is None:
                start = rel
            elif not self.hip[rel].has(name) and start is not None:
                out.append((start, rel))
                start = None
        if start is not None:
            out.append((start, None))
        return out

    def public_headers(self, rel: str) -> set[str]:
        if rel not in self._public:
            self._public[rel] = {h for h in self.hip[rel].headers(self.entry_headers[rel]) if "/amd_detail/" not in h}
        return self._public[rel]

    def latest_or_any(self, name: str) -> list[Record]:
        """The records of a HIP name in the newest snapshot that has it."""
        for rel in reversed(RELEASES):
            if recs := self.hip[rel].records(name):
                return recs
        return []

    def records_near(self, name: str, rel: str) -> list[Record]:
        """The records of a HIP name in release `rel`, else in the nearest release whose inventory was made
        the same way (a full parse, or host-only), newer first, else in the newest one that has it.
        Parameter types compare only within one way (host-only sets spell size_t `unsigned long`)."""
        if recs := self.hip[rel].records(name):
            return recs
        i = RELEASES.index(rel)
        same = [r for r in RELEASES if (r in self.host_only) == (rel in self.host_only)]
        for other in sorted(same, key=lambda r: (abs(RELEASES.index(r) - i), -RELEASES.index(r))):
            if recs := self.hip[other].records(name):
                return recs
        return self.latest_or_any(name)
