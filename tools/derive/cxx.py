"""The C++ libraries (CUB -> hipCUB, Thrust -> rocThrust): qualified names (`cub::BlockReduce`) get the
HIP namespace's spelling; a member is covered by its class's rule unless the HIP class lacks it."""

from __future__ import annotations

import collections
from pathlib import Path

from tools.derive.core import Deriver, Family
from tools.derive.curated import first_note
from tools.derive.inventory import RELEASES
from tools.derive.libspec import LibSpec, lib_candidates, qualified_twin
from tools.derive.records import IDENT, Record, Rule
from tools.derive.spans import ReleaseSpans

QUALIFIED_KIND_ORDER = ("namespace", "class", "type", "enum", "function", "enumerator", "variable", "macro")


class CxxLibrary:
    def __init__(self, d: Deriver, spec: LibSpec, spans: ReleaseSpans) -> None:
        self.d = d
        self.spans = spans
        self.inv, self.cur = d.inv, d.cur
        self.spec = spec
        self.lib = spec.cuda_libs[0]
        self.recs_by_name: dict[str, list[Record]] = collections.defaultdict(list)
        for r in self.inv.cuda.by_lib[self.lib]:
            self.recs_by_name[r["name"]].append(r)
        self.namespaces = {n for n, rs in self.recs_by_name.items() if any(r["kind"] == "namespace" for r in rs)}
        self.root = "cub" if spec.library == "cub" else "thrust"

    def hip_has(self, name: str) -> bool:
        return any(self.inv.hip[rel].records(name, lib) for rel in RELEASES for lib in self.spec.hip_libs)

    def twin_of(self, name: str) -> str | None:
        fact = self.cur.mapping(name)
        if fact is not None:
            hip: str | None = fact.get("hip")
            return hip
        qualified = "::" in name or name in self.namespaces
        cands = [qualified_twin(name, self.spec)] if qualified else lib_candidates(name, self.spec) + [name]
        return next((c for c in cands if self.hip_has(c)), None)

    def family(self, fam: Family) -> None:
        for name in sorted(self.recs_by_name):
            segs = name.split("::")
            if (
                name in self.cur.ignore
                or name in self.d.claimed
                or any(s.startswith("_") or s in ("detail", "internal") or not IDENT.match(s) for s in segs)
            ):
                continue
            recs = self.recs_by_name[name]
            kinds = {r["kind"] for r in recs}
            kind = next(k for k in QUALIFIED_KIND_ORDER if k in kinds)
            if kind == "class" and "::" not in name:
                kind = "type"
            header = recs[0].get("header", "")
            rule = self.rule(name, segs, kind, header)
            if rule is None:
                continue
            rule["library"] = self.lib
            rule["section"] = Path(header).stem
            for part in self.spans.split(name, recs, rule, fam.library):
                self.d.claim_mapped(fam, self.d.add_nvidia(part, recs))

    def rule(self, name: str, segs: list[str], kind: str, header: str) -> Rule | None:
        d = self.d
        twin = self.twin_of(name)
        parent = "::".join(segs[:-1])
        fact = self.cur.mapping(name) or {}
        if len(segs) > 1 and parent not in self.namespaces:
            # a member: its class's rule covers it, unless the HIP class lacks it
            if twin or not self.twin_of(parent):
                return None
            note = f"{qualified_twin(parent, self.spec)} has no member {segs[-1]}"
            return d.unsupported_rule(name, kind, header, note)
        if twin:
            rule = d.mapped_rule(name, twin, kind, header, fact.get("note"))
            if fact.get("status") and rule.get("status") != "deprecated":
                rule["status"] = fact["status"]
            d.twins[(self.lib, name)] = twin
            return rule
        if kind == "macro" and not fact:
            return None
        if len(segs) > 1 and parent != self.root and not self.twin_of(parent):
            return None  # the namespace's own rule reports it
        unsupported_note = fact.get("note") or first_note(self.cur.library_notes(self.spec.library), name)
        return d.unsupported_rule(name, kind, header, unsupported_note)
