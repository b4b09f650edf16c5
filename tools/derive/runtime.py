"""The runtime and driver families (cuda_runtime.jsonl, cuda_driver.jsonl -> rules/runtime.yaml,
driver.yaml): every public name gets a rule, unless HIP spells it the same in every release."""

from __future__ import annotations

import collections
import re
from functools import cached_property

from tools.derive.core import Deriver, Family
from tools.derive.enums import enum_groups, group_names, match_enumerators
from tools.derive.inventory import RELEASES
from tools.derive.names import fuzzy_key, host_candidates, is_internal, vendorless
from tools.derive.records import IDENT, TYPEISH, Record, constant_value, kind_of, object_like_macro
from tools.derive.spans import ReleaseSpans
from tools.derive.twins import Twin, Twins

HOST_LIBS = ("cuda_runtime", "cuda_driver")


class HostFamilies:
    def __init__(self, d: Deriver, spans: ReleaseSpans) -> None:
        self.d = d
        self.inv, self.cur = d.inv, d.cur
        self.spans = spans
        self.enum_map: dict[str, str] = {}
        self.known: dict[str, str | None] = {}
        self.evidence: dict[str, Twin] = {}

    def derive(self, runtime: Family, driver: Family) -> None:
        self.enum_map = self.enumerator_map(list(HOST_LIBS))
        self.evidence = Twins(self.d, HOST_LIBS, self.hip_name).found
        self.family(runtime, "cuda_runtime")
        self.family(driver, "cuda_driver")

    def family(self, fam: Family, cuda_lib: str) -> None:
        """runtime / driver: every public name gets a rule."""
        d = self.d
        for cuda in self.inv.cuda.names(cuda_lib):
            if not IDENT.match(cuda) or cuda in d.claimed or cuda in self.cur.ignore or is_internal(cuda):
                continue
            recs = d.cuda_records(cuda, cuda_lib)
            kind = kind_of(recs)
            if kind is None:
                continue
            header = recs[0].get("header", "")
            rule = d.curated_rule(cuda, kind, header, recs)
            if rule is None and self.inv.present_everywhere(cuda):
                continue  # HIP shares the spelling: nothing to do
            if rule is None:
                hip = self.resolve(cuda, recs, self.enum_map)
                twin = None if hip else self.evidence.get(cuda)
                if twin:
                    rule = d.mapped_rule(cuda, twin.hip, kind, header, f"twin by evidence: {twin.evidence}")
                elif hip:
                    rule = d.mapped_rule(cuda, hip, kind, header)
                else:
                    rule = d.unsupported_rule(cuda, kind, header, self.unsupported_note(cuda))
            for part in self.spans.split(cuda, recs, rule, fam.library):
                d.claim_mapped(fam, d.add_nvidia(part, recs))

    def hip_name(self, cuda: str) -> str | None:
        """The HIP name of a runtime/driver name before the evidence search: curated, the same spelling, or
        mechanical (None: none found)."""
        if cuda not in self.known:
            fact = self.cur.mapping(cuda)
            if fact is not None:
                self.known[cuda] = fact.get("hip")
            elif self.inv.present_everywhere(cuda):
                self.known[cuda] = cuda
            else:
                recs = [r for lib in HOST_LIBS for r in self.d.cuda_records(cuda, lib)]
                self.known[cuda] = self.resolve(cuda, recs, self.enum_map) if recs else None
        return self.known[cuda]

    @staticmethod
    def unsupported_note(cuda: str) -> str | None:
        if cuda.startswith("PFN_"):
            return "cudaTypedefs.h function-pointer type; HIP has no counterpart"
        return None

    def resolve(self, cuda: str, recs: list[Record], enum_map: dict[str, str]) -> str | None:
        """HIP counterpart of a runtime/driver name: the counterpart-enum match for
        enumerators, exact mechanical spellings, then (types only) a case/underscore-
        insensitive spelling."""
        d = self.d
        if cuda in enum_map and (hip := d.find_hip(cuda, recs, [enum_map[cuda]])):
            return hip
        cands = host_candidates(cuda)
        if hip := d.find_hip(cuda, recs, cands):
            return hip
        kind = kind_of(recs)
        if kind in TYPEISH:
            for cand in cands:
                hits = self.fuzzy.get(fuzzy_key(cand), set())
                if len(hits) == 1 and (hip := d.find_hip(cuda, recs, sorted(hits))):
                    return hip
        if kind in ("enumerator", "macro") and re.match(r"^(CUDA|CU)_[A-Z0-9_]+$", cuda):
            # CU_STREAM_NON_BLOCKING -> hipStreamNonBlocking: snake to camel case, compared
            # case-insensitively against HIP constants; unambiguous hits only
            hits = self.aliases_as_one(self.constants.get(vendorless(cuda), set()))
            if len(hits) == 1 and (hip := d.find_hip(cuda, recs, sorted(hits))):
                return hip
        return None

    def aliases_as_one(self, hits: set[str]) -> set[str]:
        """HIP constants of one value are aliases (hipDeviceAttributePciDomainID, and from ROCm 7.0
        hipDeviceAttributePciDomainId): one hit, the one in the most releases (ReleaseSpans.split
        takes the other where it is missing)."""
        values = {constant_value(self.inv.latest_or_any(h)) for h in hits}
        if len(hits) <= 1 or len(values) != 1 or None in values:
            return hits
        return {max(sorted(hits), key=lambda h: len(self.inv.releases_with(h)))}

    @cached_property
    def constants(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = collections.defaultdict(set)
        for rel in RELEASES:
            for name, recs in self.inv.hip[rel].by_name.items():
                if re.match(r"^hip[A-Z]", name) and (
                    any(r["kind"] == "enumerator" for r in recs) or object_like_macro(recs)
                ):
                    out[vendorless(name)].add(name)
        return out

    @cached_property
    def fuzzy(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = collections.defaultdict(set)
        for rel in RELEASES:
            for name, recs in self.inv.hip[rel].by_name.items():
                if IDENT.match(name) and any(r["kind"] in TYPEISH for r in recs):
                    out[fuzzy_key(name)].add(name)
        return out

    # -- enum counterparts ----------------------------------------------------------------
    def enumerator_map(self, cuda_libs: list[str]) -> dict[str, str]:
        calias, cmembers = enum_groups(self.inv.cuda, cuda_libs)
        halias, hmembers = enum_groups(self.inv.latest, ["hip_runtime"])
        result: dict[str, str] = {}
        for group in sorted(cmembers):
            hip_group = self.hip_group(group_names(calias, group), cuda_libs, halias)
            if hip_group:
                for c, h in match_enumerators(cmembers[group], hmembers[hip_group]).items():
                    result.setdefault(c, h)
        for group, via in sorted(self.cur.section("enum_bridges").items()):
            self.bridge_enumerators(
                cmembers.get(calias.get(group, group), []), cmembers.get(calias.get(via, via), []), result
            )
        return result

    def hip_group(self, names: list[str], cuda_libs: list[str], halias: dict[str, str]) -> str | None:
        """The HIP enum group of the first name of a CUDA enum group that maps to a HIP enum."""
        for n in names:
            fact = self.cur.mapping(n) or {}
            recs = [r for lib in cuda_libs for r in self.inv.cuda.records(n, lib)]
            hip = fact.get("hip") or self.resolve(n, recs, {})
            if hip in halias:
                return halias[hip]
        return None

    def bridge_enumerators(self, members: list[str], via: list[str], result: dict[str, str]) -> None:
        """Map the unmatched enumerators of one CUDA enum through the enumerator of
        another CUDA enum with the same value that already has a HIP counterpart
        (CUDA_ERROR_LAUNCH_FAILED = 719 = cudaErrorLaunchFailure -> hipErrorLaunchFailure).
        Unambiguous only: one enumerator with that value, no HIP name used twice, and the HIP
        enumerator of that value too in every release that declares it (cudaGraphicsMapFlagsWriteDiscard
        = 2 = cudaGraphicsRegisterFlagsWriteDiscard -> hipGraphicsRegisterFlagsWriteDiscard = 2)."""
        by_value: dict[int, list[str]] = collections.defaultdict(list)
        for name in via:
            if (v := constant_value(self.inv.cuda.records(name))) is not None:
                by_value[v].append(name)
        taken = collections.Counter(result[m] for m in members if m in result)
        proposed: dict[str, str] = {}
        for name in members:
            if name in result or (v := constant_value(self.inv.cuda.records(name))) is None:
                continue
            bridge = by_value.get(v, [])
            if len(bridge) != 1:
                continue
            hip = result.get(bridge[0]) or (self.cur.mapping(bridge[0]) or {}).get("hip")
            if hip and self.same_value_everywhere(hip, v):
                proposed[name] = hip
        counts = collections.Counter(proposed.values()) + taken
        for name, hip in sorted(proposed.items()):
            if counts[hip] == 1:
                result[name] = hip

    def same_value_everywhere(self, hip: str, value: int) -> bool:
        """Each release that declares `hip` gives it `value` (one release at least)."""
        values = [constant_value(recs) for rel in RELEASES if (recs := self.inv.hip[rel].records(hip))]
        return bool(values) and all(v == value for v in values)

    # -- report -------------------------------------------------------------------------------
    def missed_twins(self, families: list[Family]) -> list[str]:
        """Runtime/driver names with a mechanical HIP twin (same checks as the derivation)
        that got no mapping rule, unless curated.yaml says otherwise."""
        d = self.d
        mapped = {r["cuda"] for f in families for r in f.rules if "hip" in r}
        covered = {r["cuda"] for f in families for r in f.rules}
        missed = []
        for lib in HOST_LIBS:
            for name in self.inv.cuda.names(lib):
                if (
                    name in mapped
                    or not IDENT.match(name)
                    or name in self.cur.ignore
                    or is_internal(name)
                    or self.cur.mapping(name) is not None
                    or name in self.cur.section("call_forms")  # re-targeted by tools/derive/call_forms.py
                ):
                    continue
                if name not in covered and self.inv.present_everywhere(name):
                    continue  # HIP spells it the same in every release
                if cand := d.find_hip(name, d.cuda_records(name, lib), host_candidates(name)):
                    missed.append(f"{name} -> {cand}")
        return missed
