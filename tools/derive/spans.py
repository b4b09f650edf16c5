"""Per-release spellings: split a mapping by ROCm release where its HIP name is deprecated or missing
in a release that has a non-deprecated sibling spelling (ROCm 5.2 hipHostFree / 6.3 hipFreeHost),
where the deprecation of the HIP name changes between releases (the engine reads `status` per rule,
not `rocm.deprecated`), or where the name is missing from some releases and back in later ones (a
`removed` rule covers the gap)."""

from __future__ import annotations

import collections
import re
from functools import cached_property
from typing import Optional

from tools.derive.calltypes import CallTypes, Casts, Fix, with_v2
from tools.derive.core import Deriver, removed_rule
from tools.derive.inventory import RELEASES
from tools.derive.libspec import strip_v2
from tools.derive.names import sibling_key
from tools.derive.records import Record, Rule, constant_value, kind_of, param_counts, param_types

Choice = tuple[str, bool, Fix]  # the HIP spelling in a release, whether it is deprecated there, what a call needs
Span = tuple[Optional[Choice], str, Optional[str]]  # spelling (None: none), since, until


class ReleaseSpans:
    def __init__(self, d: Deriver) -> None:
        self.d = d
        self.inv = d.inv
        self.types = CallTypes(d)

    @cached_property
    def siblings(self) -> dict[str, dict[tuple[str, ...], set[str]]]:
        """release -> sibling key -> HIP names (functions and constants)."""
        out = {}
        for rel in RELEASES:
            index: dict[tuple[str, ...], set[str]] = collections.defaultdict(set)
            for name, recs in self.inv.hip[rel].by_name.items():
                if re.match(r"^hip[A-Z]\w*$", name) and any(
                    r["kind"] in ("function", "enumerator") or (r["kind"] == "macro" and not r.get("params"))
                    for r in recs
                ):
                    index[sibling_key(name)].add(name)
            out[rel] = index
        return out

    def sibling(self, cuda: str, cuda_recs: list[Record], hip: str, rel: str) -> str | None:
        """A non-deprecated spelling of `hip` in release `rel`: the same words in another
        order or with Alloc/Malloc (hipFreeHost ~ hipHostFree, hipHostAlloc ~
        hipHostMalloc, hipHostAllocMapped ~ hipHostMallocMapped), or the plain name that took
        over a `_v2` function's prototype (hipBLAS 3.0, ROCm 7.0: hipblasCgemm_v2 ~ hipblasCgemm),
        with the same parameter types (functions) or the same value (constants), fitting the
        CUDA name; or the `_v2` function of hipBLAS 2.x (ROCm 6.x: hipblasGemmEx_v2 takes hipDataType
        where hipblasGemmEx takes hipblasDatatype_t) that takes the translated arguments.
        Unambiguous hits only."""
        model = self.inv.records_near(hip, rel)
        cands = set(self.siblings[rel].get(sibling_key(hip), ()))
        for other in (strip_v2(hip), with_v2(hip)):
            if other != hip and self.inv.hip[rel].has(other):
                cands.add(other)
        hits = [
            cand
            for cand in sorted(cands)
            if cand != hip
            and not self.d.deprecated_in(cand, rel)
            and (
                self._same(cuda, cuda_recs, model, cand, self.inv.hip[rel].records(cand))
                or (self.types.checked(cuda_recs) and self.takes_arguments(cuda_recs, cand, rel))
            )
        ]
        return hits[0] if len(hits) == 1 else None

    def _same(self, cuda: str, cuda_recs: list[Record], model: list[Record], cand: str, crecs: list[Record]) -> bool:
        """The same call (functions) or the same value (constants: an alias of the HIP name, so it fits
        the CUDA name as the HIP name does)."""
        if kind_of(model) == "function":
            return bool(param_types(model) & param_types(crecs)) and self.d.fits(cuda, cuda_recs, cand)
        value = constant_value(model)
        return value is not None and constant_value(crecs) == value

    def takes_arguments(self, cuda_recs: list[Record], name: str, rel: str) -> bool:
        """`name` in `rel` takes the translated arguments of the CUDA call, as they are or cast."""
        return self.types.mismatches(cuda_recs, name, rel) is not None and not isinstance(
            self.types.fix(cuda_recs, name, rel), str
        )

    def fits_in(self, cuda_recs: list[Record], name: str, rel: str, *, counts: bool = True) -> bool:
        """Release `rel` declares `name`, and (with `counts`) a function there takes a number of
        parameters the CUDA call has (hipblasStrmm takes 12 before ROCm 6.0, cublasStrmm 14)."""
        recs = self.inv.hip[rel].records(name)
        if not recs or not counts:
            return bool(recs)
        cuda_counts, hip_counts = param_counts(cuda_recs), param_counts(recs)
        return cuda_counts is None or hip_counts is None or bool(cuda_counts & hip_counts)

    def choices(self, cuda: str, cuda_recs: list[Record], hip: str) -> list[Choice | None]:
        """Per release: the spelling to use and whether it is deprecated there (None: no spelling)."""
        # a curated signature_differs mapping rests on what the inventory does not record
        # (a default argument): neither a sibling nor the parameter count need fit
        plain = not (self.d.cur.mapping(cuda) or {}).get("signature_differs")
        choice: list[Choice | None] = []
        for rel in RELEASES:
            name = hip
            if plain and (
                not self.fits_in(cuda_recs, hip, rel)
                or self.d.deprecated_in(hip, rel)
                or self.types.fix(cuda_recs, hip, rel) is not None
            ):
                name = self.sibling(cuda, cuda_recs, hip, rel) or hip
            fits = self.fits_in(cuda_recs, name, rel, counts=plain)
            fix = self.types.fix(cuda_recs, name, rel)
            choice.append((name, self.d.deprecated_in(name, rel), fix) if fits else None)
        return choice

    def split(self, cuda: str, cuda_recs: list[Record], rule: Rule, library: str) -> list[Rule]:
        """The rule, or one rule per span of releases with the same spelling (`library`: the family's,
        for the rule ids).  One spelling over one run of releases stays one rule, over that run
        (Deriver.claim_mapped ends it where the run ends)."""
        hip = rule.get("hip")
        if hip is None or "params" in rule:
            return [rule]
        spans: list[Span] = []
        for rel, c in zip(RELEASES, self.choices(cuda, cuda_recs, hip)):
            if spans and spans[-1][0] == c:
                continue
            if spans and spans[-1][2] is None:
                spans[-1] = (spans[-1][0], spans[-1][1], rel)
            spans.append((c, rel, None))
        live = [(c, since, until) for c, since, until in spans if c is not None]
        if len(live) > 1:
            return self._span_rules(cuda, cuda_recs, rule, spans, library)
        if not live:
            return [rule]  # fits no release: check_rules reports it
        (_, deprecated, fix), since, until = live[0]
        rocm = {k: v for k, v in rule["rocm"].items() if k != "until"}
        rocm["since"] = self.d.cur.since(hip) or since
        if until:
            rocm["until"] = until
        part = dict(rule, rocm=rocm)
        if not deprecated and rule.get("status") == "deprecated":  # only where the call does not fit
            part["status"] = (self.d.cur.mapping(cuda) or {}).get("status", "supported")
            rocm.pop("deprecated", None)  # a curated status stands where HIP marks nothing
        if earlier := self.other_counts(hip, since):
            part["note"] = f"{part['note']}; {earlier}" if part.get("note") else earlier
        return [with_fix(part, fix)]

    def other_counts(self, hip: str, since: str) -> str | None:
        """Why a HIP name that releases before `since` declare is used only from `since` on."""
        before = [rel for rel in RELEASES[: RELEASES.index(since)] if self.inv.hip[rel].has(hip)]
        if not before:
            return None
        counts = param_counts(self.inv.hip[before[-1]].records(hip)) or set()
        shown = "/".join(map(str, sorted(counts))) or "other"
        return f"{hip} takes {shown} parameters before ROCm {since}"

    def _span_rules(
        self, cuda: str, cuda_recs: list[Record], rule: Rule, spans: list[Span], library: str
    ) -> list[Rule]:
        out: list[Rule] = []
        base = {k: v for k, v in rule.items() if k not in ("hip", "rocm", "status")}
        for c, since, until in spans:
            if c is None:
                if out:  # the spelling vanished from a later release (or no longer fits the call)
                    gone = removed_rule(cuda, out[-1]["id"].split("@")[0], since, out[-1], until)
                    if self.inv.hip[since].has(out[-1]["hip"]):
                        gone["note"] = f"{out[-1]['hip']} takes other parameters in ROCm {since}"
                    out.append(gone)
                continue
            name, deprecated, fix = c
            part = dict(
                base,
                hip=name,
                id=f"{rule.get('library', library)}.{cuda}@{since}",
                rocm={"since": self.d.cur.since(name) or since} | ({"until": until} if until else {}),
            )
            if deprecated:
                part["status"] = "deprecated"
                part["rocm"]["deprecated"] = since
            if name != rule["hip"]:
                extra = self._why_other(cuda_recs, rule, name, since)
                part["note"] = f"{part['note']}; {extra}" if part.get("note") else extra
            out.append(with_fix(part, fix))
        return out

    def _why_other(self, cuda_recs: list[Record], rule: Rule, name: str, rel: str) -> str:
        hip = rule["hip"]
        if self.inv.hip[rel].has(hip) and not self.d.deprecated_in(hip, rel) and self.types.fix(cuda_recs, hip, rel):
            return f"{hip} takes other argument types in ROCm {rel}; {name} takes the translated ones"
        why = "deprecated" if self.inv.hip[rel].has(hip) else "missing"
        same = "the same call" if rule["kind"] == "function" else "the same value"
        return f"{hip} is {why} in ROCm {rel}; {name} is {same}"


def with_fix(part: Rule, fix: Fix) -> Rule:
    """A rule with what its calls need: casts (with the CUDA parameter names), or, for a call that cannot
    compile as translated, no HIP name and an `unsupported` status saying why."""
    if isinstance(fix, Casts):
        said = []
        if fix.casts:
            said.append(f"arguments cast to {', '.join(sorted({t for _, t in fix.casts}))} (the same layout)")
        if fix.converts:
            names = ", ".join(p for p, _ in fix.converts)
            targets = ", ".join(sorted({t for _, t in fix.converts}))
            said.append(f"{names} converted to {targets} (the value of the same meaning)")
        note = "; ".join(filter(None, [part.get("note"), *said]))
        out = dict(part, params=list(fix.params), note=note)
        if fix.casts:
            out["casts"] = dict(fix.casts)
        if fix.converts:
            out["converts"] = dict(fix.converts)
        return out
    if isinstance(fix, str):
        out = {k: v for k, v in part.items() if k != "hip"}
        out["status"] = "unsupported"
        out["rocm"] = {k: v for k, v in part["rocm"].items() if k in ("since", "until")}
        out["note"] = f"{part['note']}; {fix}" if part.get("note") else fix
        return out
    return part
