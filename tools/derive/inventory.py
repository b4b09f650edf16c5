"""The API inventories (../shared/api-inventory): CUDA 13 and the ROCm snapshots the rules cover.

The folder holds more releases than these (see its README); the derivation reads the ROCm 5.2
(`hip-debian-5.2/`) and 6.3 (`hip/`) snapshots and CUDA 13 (`cuda/`) only.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.derive.records import IDENT, TYPEDEF, Record

RELEASES = ("5.2", "6.3")  # ROCm snapshots we have, oldest first
SNAPSHOT_DIR = {"5.2": "hip-debian-5.2", "6.3": "hip"}
CUDA_DIR = "cuda"
CUDA_VERSION = "13.0"


class Snapshot:
    """All records of one side (cuda, or one HIP release), indexed by name."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.by_name: dict[str, list[Record]] = collections.defaultdict(list)
        self.by_lib: dict[str, list[Record]] = {}
        for path in sorted(folder.glob("*.jsonl")):
            recs = []
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    rec = json.loads(line)
                    rec["lib"] = path.stem
                    recs.append(rec)
                    self.by_name[rec["name"]].append(rec)
            self.by_lib[path.stem] = recs

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

    def plain_names(self) -> list[str]:
        """Identifiers, C++ names qualified with `::` whose every part is one
        (hipcub::BlockReduce, thrust::hip::par), and the names of nested namespaces."""
        names = {n for n in self.by_name if all(IDENT.match(p) for p in n.split("::"))}
        # a nested namespace declares its own identifier too (thrust::hip declares `hip`)
        names |= {n.split("::")[-1] for n in names if "::" in n and "namespace" in self.kinds(n)}
        return sorted(names)

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


@dataclass
class Inventory:
    cuda: Snapshot
    hip: dict[str, Snapshot]  # release -> snapshot
    entry_headers: dict[str, list[str]]  # release -> public headers parsed (MANIFEST)
    _public: dict[str, set[str]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def load(cls, root: Path) -> Inventory:
        manifest = json.loads((root / "MANIFEST.json").read_text(encoding="utf-8"))
        entries: dict[str, set[str]] = {rel: set() for rel in RELEASES}
        for fname, info in manifest["files"].items():
            for rel, folder in SNAPSHOT_DIR.items():
                if fname.startswith(folder + "/"):
                    # skip clang's wrapper, keep hip/..., hiprand/...
                    entries[rel].update(h for h in entry_headers(info) if "/" in h)
        return cls(
            cuda=Snapshot(root / CUDA_DIR),
            hip={rel: Snapshot(root / d) for rel, d in SNAPSHOT_DIR.items()},
            entry_headers={rel: sorted(v) for rel, v in entries.items()},
        )

    @property
    def latest(self) -> Snapshot:
        return self.hip[RELEASES[-1]]

    def releases_with(self, name: str) -> list[str]:
        return [rel for rel in RELEASES if self.hip[rel].has(name)]

    def present_everywhere(self, name: str) -> bool:
        return all(self.hip[rel].has(name) for rel in RELEASES)

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
