"""What every rule family shares: the inventories, the curated facts, the rules claimed so far,
the problems found, and the helpers that build, check and claim one rule."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.derive.curated import Curated
from tools.derive.inventory import RELEASES, Inventory
from tools.derive.names import section_for
from tools.derive.records import (
    Record,
    Rule,
    all_deprecated,
    compatible,
    constant_value,
    object_like_macro,
    opt_in_define,
    param_counts,
)

KEY_ORDER = (
    "cuda",
    "hip",
    "id",
    "kind",
    "status",
    "library",
    "section",
    "rocm",
    "nvidia",
    "requires_define",
    "params",
    "args",
    "drops",
    "optional",
    "fill",
    "casts",
    "converts",
    "uncalled",
    "tag",
    "tagless",
    "defined_only",
    "rewrite_code",
    "compat",
    "after",
    "template",
    "scope",
    "lane_mask",
    "code",
    "note",
)


def ordered(rule: Rule) -> Rule:
    return {k: rule[k] for k in KEY_ORDER if k in rule}


@dataclass
class Family:
    """One rule file."""

    file: str
    library: str
    header_comment: str
    rules: list[Rule] = field(default_factory=list)
    predefined: bool = False  # the HIP names are the compiler's predefined macros, in no header


def removed_rule(cuda: str, rule_id: str, since: str, last: Rule, until: str | None = None) -> Rule:
    """The `removed` rule for the releases from `since` on (to `until`: a gap, after which the name is
    back), where the HIP name of `last` is gone."""
    return {
        "cuda": cuda,
        "id": f"{rule_id}.removed" + (f"@{since}" if until else ""),
        "kind": last["kind"],
        "status": "removed",
        "library": last.get("library"),
        "section": last.get("section"),
        "rocm": {"since": since, "removed": since} | ({"until": until} if until else {}),
        "note": f"{last['hip']} is not in the ROCm {since} headers",
    }


class Deriver:
    """Shared state of one derivation run; the families (runtime, device, libraries, ...) build on it."""

    def __init__(self, inv: Inventory, cur: Curated) -> None:
        self.inv = inv
        self.cur = cur
        self.claimed: set[str] = set()  # CUDA names already given rules
        self.problems: list[str] = []
        self.twins: dict[tuple[str, str], str] = {}  # (cuda lib, name) -> accepted HIP twin
        self.types: dict[str, str] = {}  # CUDA type or enum -> its HIP twin (the first rule claimed)

    # -- availability and status of a HIP name ---------------------------------------
    def hip_span(self, hip: str) -> dict[str, str]:
        """rocm: {since, until} for a HIP spelling: the first run of releases that have it (+ curated since).
        A name that comes back after a gap is split into spans by ReleaseSpans.split."""
        runs = self.inv.runs(hip)
        if not runs:
            raise KeyError(hip)
        since, until = runs[0]
        rocm = {"since": self.cur.since(hip) or since}
        if until is not None:
            rocm["until"] = until
        return rocm

    def deprecated_in(self, hip: str, rel: str) -> bool:
        return all_deprecated(self.inv.hip[rel].records(hip))

    def hip_deprecation(self, hip: str) -> str | None:
        """First snapshot in which every (non-macro) declaration of `hip` is deprecated."""
        return next((rel for rel in RELEASES if self.deprecated_in(hip, rel)), None)

    def mapped_rule(self, cuda: str, hip: str, kind: str, header: str, note: str | None = None) -> Rule:
        rocm = self.hip_span(hip)
        rule: Rule = {"cuda": cuda, "hip": hip, "kind": kind, "section": section_for(cuda, header), "rocm": rocm}
        if dep := self.hip_deprecation(hip):
            rule["status"] = "deprecated"
            rocm["deprecated"] = dep
        if note:
            rule["note"] = note
        return rule

    @staticmethod
    def unsupported_rule(cuda: str, kind: str, header: str, note: str | None = None) -> Rule:
        rule: Rule = {"cuda": cuda, "kind": kind, "status": "unsupported", "section": section_for(cuda, header)}
        if note:
            rule["note"] = note
        return rule

    def add_nvidia(self, rule: Rule, cuda_recs: list[Record]) -> Rule:
        """The `nvidia:` block: the CUDA (cuDNN, NCCL) releases that added, deprecated and removed the name."""
        if cuda_recs and (nvidia := self.inv.cuda_span(rule["cuda"], cuda_recs[0]["lib"]).nvidia()):
            rule["nvidia"] = nvidia
        return rule

    # -- matching -------------------------------------------------------------------
    def find_hip(self, cuda: str, cuda_recs: list[Record], candidates: list[str]) -> str | None:
        return next((cand for cand in candidates if self.fits(cuda, cuda_recs, cand)), None)

    def fits(self, cuda: str, cuda_recs: list[Record], hip: str) -> bool:
        hip_recs = self.inv.latest_or_any(hip)
        if not hip_recs:
            return False
        hip_fields = next((f for rel in reversed(RELEASES) if (f := self.inv.hip[rel].fields(hip))), None)
        return compatible(cuda_recs, hip_recs, self.inv.cuda.fields(cuda), hip_fields)

    def cuda_records(self, name: str, lib: str) -> list[Record]:
        """Records of a CUDA name; a macro that only forwards to a function
        (`#define cuMemcpyHtoD __CUDA_API_PTDS(cuMemcpyHtoD_v2)`) stands for that function."""
        recs = self.inv.cuda.records(name, lib)
        if {r["kind"] for r in recs} == {"macro"}:
            m = re.match(r"^(?:__CUDA_API_PT\w+\(\s*)?(\w+)\s*\)?$", recs[0].get("value") or "")
            if m and (target := [r for r in self.inv.cuda.records(m[1], lib) if r["kind"] == "function"]):
                return [dict(r, name=name, alias_of=m[1]) for r in target] + recs
        return recs

    # -- curated mappings ---------------------------------------------------------------
    def curated_rule(self, cuda: str, kind: str, header: str, cuda_recs: list[Record]) -> Rule | None:
        fact = self.cur.mapping(cuda)
        if fact is None:
            return None
        if fact.get("hip") is None:
            return self.unsupported_rule(cuda, kind, header, fact.get("note"))
        hip = fact["hip"]
        problem = self.curated_problem(cuda, cuda_recs, hip, fact)
        if problem:
            self.problems.append(f"curated {cuda} -> {hip}: {problem}")
            return None
        rule = self.mapped_rule(cuda, hip, kind, header, fact.get("note"))
        if define := self.opt_in(hip, fact):
            rule["requires_define"] = define
        if fact.get("status") and rule.get("status") != "deprecated":
            rule["status"] = fact["status"]
        if fact.get("rewrite_code"):
            rule["rewrite_code"] = fact["rewrite_code"]
        if fact.get("legacy_form"):
            self.legacy_form(cuda, cuda_recs, hip, rule)
        return rule

    def opt_in(self, hip: str, fact: dict[str, object]) -> str | None:
        """The macro HIP declares `hip` under: the inventory's condition, else the curated `requires_define`
        (where the inventory missed the `#ifdef`), which must condition some declaration of the same library."""
        recs = self.inv.latest_or_any(hip)
        if define := opt_in_define(recs):
            return define
        curated = fact.get("requires_define")
        if not isinstance(curated, str):
            return None
        lib = recs[0]["lib"]
        if not any(opt_in_define([r]) == curated for rel in RELEASES for r in self.inv.hip[rel].by_lib.get(lib, [])):
            self.problems.append(f"curated {hip}: requires_define {curated}, which no {lib} declaration is under")
        return curated

    def curated_problem(self, cuda: str, cuda_recs: list[Record], hip: str, fact: dict[str, object]) -> str | None:
        """Why a curated mapping does not fit the inventory (None when it does)."""
        hip_recs = self.inv.latest_or_any(hip)
        if not hip_recs:
            return "HIP name not in inventory"
        if not self.fits(cuda, cuda_recs, hip) and not fact.get("signature_differs") and not fact.get("legacy_form"):
            return "kind/parameter mismatch without signature_differs"
        cval, hval = constant_value(cuda_recs), constant_value(hip_recs)
        flag = object_like_macro(cuda_recs) or object_like_macro(hip_recs)  # enum values may differ by design
        if flag and cval is not None and hval is not None and cval != hval and not fact.get("value_differs"):
            return f"values differ ({cval} vs {hval})"
        return None

    def legacy_form(self, cuda: str, cuda_recs: list[Record], hip: str, rule: Rule) -> None:
        """CUDA 13 changed the signature; HIP has the earlier form that existing code
        calls.  `params` = `args` = HIP's parameters: calls with that many arguments (fewer where
        call_forms makes some `optional`) are translated, calls with another number (the CUDA 13 form)
        are left with a diagnostic."""
        counts = param_counts(self.inv.latest_or_any(hip)) or set()
        hip_params = [
            [p["name"] for p in r["params"]]
            for rel in RELEASES
            for r in self.inv.hip[rel].records(hip)
            if r["kind"] == "function"
        ]
        cuda_counts = param_counts(cuda_recs) or set()
        if len(counts) != 1 or not cuda_counts or min(cuda_counts) <= min(counts):
            self.problems.append(
                f"legacy form {cuda} -> {hip}: needs one HIP parameter count below "
                f"CUDA 13's (HIP {sorted(counts)}, CUDA {sorted(cuda_counts)})"
            )
            return
        params = next(ps for ps in hip_params if len(ps) in counts)
        rule["params"] = params
        rule["args"] = list(params)

    # -- claiming -------------------------------------------------------------------------
    def claim_mapped(self, fam: Family, rule: Rule) -> None:
        """Claim a rule; if its HIP name vanished from a later snapshot, the mapping
        gets an id and the later releases get a `removed` rule."""
        until = rule.get("rocm", {}).get("until")
        if until is None or "id" in rule:
            return self.claim(fam, rule)
        base = f"{rule.get('library', fam.library)}.{rule['cuda']}"
        self.claim(fam, dict(rule, id=base))
        self.claim(fam, removed_rule(rule["cuda"], base, until, rule))

    def claim(self, fam: Family, rule: Rule) -> None:
        rule = {k: v for k, v in rule.items() if v is not None}
        if rule.get("library") == fam.library:
            del rule["library"]
        if rule.get("status") == "supported":
            del rule["status"]
        self.claimed.add(rule["cuda"])
        if rule["kind"] in ("type", "enum") and rule.get("hip"):
            self.types.setdefault(rule["cuda"], rule["hip"])
        fam.rules.append(ordered(rule))
