"""Per-release spellings: split a mapping by ROCm release where its HIP name is deprecated or missing
in a release that has a non-deprecated sibling spelling (ROCm 5.2 hipHostFree / 6.3 hipFreeHost), or
where the deprecation of the HIP name changes between releases (the engine reads `status` per rule,
not `rocm.deprecated`)."""

from __future__ import annotations

import collections
import re
from functools import cached_property
from typing import Optional

from tools.derive.core import Deriver, removed_rule
from tools.derive.inventory import RELEASES
from tools.derive.names import sibling_key
from tools.derive.records import Record, Rule, constant_value, kind_of, param_types

Choice = tuple[str, bool]  # the HIP spelling in a release, and whether it is deprecated there
Span = tuple[Optional[Choice], str, Optional[str]]  # spelling (None: none), since, until


class ReleaseSpans:
    def __init__(self, d: Deriver) -> None:
        self.d = d
        self.inv = d.inv

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
        hipHostMalloc, hipHostAllocMapped ~ hipHostMallocMapped), the same parameter
        types (functions) or the same value (constants), fitting the CUDA name.
        Unambiguous hits only."""
        model = self.inv.latest_or_any(hip)
        hits = [
            cand
            for cand in sorted(self.siblings[rel].get(sibling_key(hip), ()))
            if cand != hip
            and not self.d.deprecated_in(cand, rel)
            and self._same(cuda, cuda_recs, model, cand, self.inv.hip[rel].records(cand))
        ]
        return hits[0] if len(hits) == 1 else None

    def _same(self, cuda: str, cuda_recs: list[Record], model: list[Record], cand: str, crecs: list[Record]) -> bool:
        """The same call (functions) or the same value (constants)."""
        if kind_of(model) == "function":
            return bool(param_types(model) & param_types(crecs)) and self.d.fits(cuda, cuda_recs, cand)
        value = constant_value(model)
        return value is not None and constant_value(crecs) == value and constant_value(cuda_recs) in (None, value)

    def choices(self, cuda: str, cuda_recs: list[Record], hip: str) -> list[Choice | None]:
        """Per release: the spelling to use and whether it is deprecated there (None: no spelling)."""
        # a curated signature_differs mapping rests on what the inventory does not record
        # (a default argument): a sibling need not share it
        siblings = not (self.d.cur.mapping(cuda) or {}).get("signature_differs")
        choice: list[Choice | None] = []
        for rel in RELEASES:
            name = hip
            if siblings and (not self.inv.hip[rel].has(hip) or self.d.deprecated_in(hip, rel)):
                name = self.sibling(cuda, cuda_recs, hip, rel) or hip
            choice.append((name, self.d.deprecated_in(name, rel)) if self.inv.hip[rel].has(name) else None)
        return choice

    def split(self, cuda: str, cuda_recs: list[Record], rule: Rule, library: str) -> list[Rule]:
        """The rule, or one rule per span of releases with the same spelling (`library`: the family's,
        for the rule ids)."""
        hip = rule.get("hip")
        if hip is None or "params" in rule:
            return [rule]
        choice = self.choices(cuda, cuda_recs, hip)
        if len({c for c in choice if c}) <= 1:
            return [rule]
        spans: list[Span] = []
        for rel, c in zip(RELEASES, choice):
            if spans and spans[-1][0] == c:
                continue
            if spans and spans[-1][2] is None:
                spans[-1] = (spans[-1][0], spans[-1][1], rel)
            spans.append((c, rel, None))
        return self._span_rules(cuda, rule, spans, library)

    def _span_rules(self, cuda: str, rule: Rule, spans: list[Span], library: str) -> list[Rule]:
        out: list[Rule] = []
        base = {k: v for k, v in rule.items() if k not in ("hip", "rocm", "status")}
        for c, since, until in spans:
            if c is None:
                if out:  # the spelling vanished from a later release
                    out.append(removed_rule(cuda, out[-1]["id"].split("@")[0], since, out[-1], until))
                continue
            name, deprecated = c
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
                why = "deprecated" if self.inv.hip[since].has(rule["hip"]) else "missing"
                same = "the same call" if rule["kind"] == "function" else "the same value"
                extra = f"{rule['hip']} is {why} in ROCm {since}; {name} is {same}"
                part["note"] = f"{part['note']}; {extra}" if part.get("note") else extra
            out.append(part)
        return out
