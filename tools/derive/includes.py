"""#include rules: the curated headers (curated.yaml `includes`) and the mechanical CUB / Thrust ones.
A library's headers go to that library's rule file; the rest to rules/includes.yaml."""

from __future__ import annotations

from tools.derive.core import Deriver, Family
from tools.derive.inventory import RELEASES
from tools.derive.libspec import LibSpec
from tools.derive.records import Rule


class Includes:
    def __init__(self, d: Deriver) -> None:
        self.d = d
        self.inv, self.cur = d.inv, d.cur

    def curated(self, default: Family, by_library: dict[str, Family]) -> None:
        spec = self.cur.section("includes")
        cuda_headers = {
            r["header"].removeprefix("cccl/") for recs in self.inv.cuda.by_lib.values() for r in recs if r.get("header")
        }
        for cuda_h in sorted(spec):
            fact = spec[cuda_h]
            if cuda_h not in cuda_headers and not fact.get("not_in_inventory"):
                self.d.problems.append(f"include {cuda_h}: not a header of the CUDA inventory")
            lib = fact.get("library", default.library)
            fam = by_library.get(lib, default)
            targets = fact.get("hip")
            if targets is None:
                self.d.claim(
                    fam,
                    {
                        "cuda": cuda_h,
                        "kind": "include",
                        "status": "unsupported",
                        "library": lib,
                        "note": fact.get("note"),
                    },
                )
                continue
            spans = self.header_spans(targets if isinstance(targets, list) else [targets])
            for hip_h, rocm in spans:
                rule: Rule = {
                    "cuda": cuda_h,
                    "hip": hip_h,
                    "kind": "include",
                    "status": fact.get("status"),
                    "library": lib,
                    "rocm": rocm,
                    "note": fact.get("note"),
                }
                if len(spans) > 1:
                    rule["id"] = f"include.{cuda_h}@{rocm['since']}"
                self.d.claim(fam, self.with_after(rule))

    def header_spans(self, targets: list[str]) -> list[tuple[str, dict[str, str]]]:
        """For each release pick the first target header present in it; consecutive
        releases with the same header form one [since, until) span."""
        spans: list[tuple[str | None, dict[str, str]]] = []
        for rel in RELEASES:
            pub = self.inv.public_headers(rel)
            hdr = next((t for t in targets if t in pub), None)
            if spans and spans[-1][0] == hdr:
                continue
            if spans and spans[-1][0] is not None:
                spans[-1][1]["until"] = rel
            spans.append((hdr, {"since": rel}))
        found = [(h, r) for h, r in spans if h is not None]
        if not found:
            self.d.problems.append(f"include targets {targets}: none exists in any release")
        return found

    def with_after(self, rule: Rule) -> Rule:
        """The rule, with `after` when its HIP header needs another one first (curated `hip_header_after:`);
        that header must exist in every release of the rule."""
        fact = self.cur.section("hip_header_after").get(rule["hip"])
        if fact is None:
            return rule
        rocm = rule["rocm"]
        span = RELEASES[RELEASES.index(rocm["since"]) : RELEASES.index(rocm["until"]) if "until" in rocm else None]
        missing = [rel for rel in span if fact["after"] not in self.inv.public_headers(rel)]
        if missing:
            self.d.problems.append(f"hip_header_after {rule['hip']}: no {fact['after']} in ROCm {', '.join(missing)}")
        return dict(rule, after=fact["after"])

    def cxx(self, fam: Family, spec: LibSpec) -> None:
        """cub/X.cuh -> hipcub/X.hpp (or the umbrella hipcub/hipcub.hpp when the
        inventory has no such hipCUB header); thrust/system/cuda/X -> thrust/system/hip/X."""
        curated = self.cur.section("includes")
        lib = spec.cuda_libs[0]
        headers = sorted({r["header"].removeprefix("cccl/") for r in self.inv.cuda.by_lib[lib] if r.get("header")})
        for cuda_h in headers:
            if cuda_h in curated:
                continue
            rule = self.cub_rule(cuda_h) if spec.library == "cub" else self.thrust_rule(cuda_h)
            if rule is None:
                continue
            rule["library"] = lib
            if "hip" not in rule:
                self.d.claim(fam, rule)
                continue
            for h, rocm in self.header_spans([rule["hip"]]):
                self.d.claim(fam, self.with_after(dict(rule, hip=h, rocm=rocm)))

    def cub_rule(self, cuda_h: str) -> Rule | None:
        if "/detail/" in cuda_h or not cuda_h.startswith("cub/"):
            return None
        own = "hipcub/" + cuda_h[len("cub/") :].rsplit(".", 1)[0] + ".hpp"
        if own in self.inv.public_headers(RELEASES[-1]):
            return {"cuda": cuda_h, "hip": own, "kind": "include"}
        return {
            "cuda": cuda_h,
            "hip": "hipcub/hipcub.hpp",
            "kind": "include",
            "note": f"the inventory has no {own}; the umbrella header declares hipCUB's API",
        }

    def thrust_rule(self, cuda_h: str) -> Rule | None:
        if not cuda_h.startswith("thrust/system/cuda/"):
            return None
        hip_h = "thrust/system/hip/" + cuda_h[len("thrust/system/cuda/") :]
        if hip_h not in self.inv.public_headers(RELEASES[-1]):
            return {"cuda": cuda_h, "kind": "include", "status": "unsupported", "note": f"rocThrust has no {hip_h}"}
        return {"cuda": cuda_h, "hip": hip_h, "kind": "include"}
