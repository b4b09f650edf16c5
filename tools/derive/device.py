"""The device-side families: device functions (rules/device.yaml), cuComplex (complex.yaml), half and
bfloat16 (fp16.yaml), and the warp-synchronous intrinsics (curated.yaml `warp_sync`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.derive.core import Deriver, Family
from tools.derive.names import device_candidates, is_internal
from tools.derive.records import IDENT, TYPEDEF, Record, Rule, kind_of, opt_in_define, param_counts
from tools.derive.spans import ReleaseSpans


class DeviceFamilies:
    def __init__(self, d: Deriver, spans: ReleaseSpans) -> None:
        self.d = d
        self.inv, self.cur = d.inv, d.cur
        self.spans = spans

    def derive(self, device: Family, complex_: Family, fp16: Family) -> None:
        self.warp_sync_family(device)
        self.family(device, ["device"])
        self.family(complex_, ["cuda_complex"])
        self.family(fp16, ["fp16", "bf16"])

    def skipped(self, cuda: str) -> bool:
        return (
            not IDENT.match(cuda)
            or cuda in self.d.claimed
            or cuda in self.cur.ignore
            or is_internal(cuda)
            or cuda in self.cur.section("warp_sync")
        )

    def family(self, fam: Family, libs: list[str]) -> None:
        """device / complex / fp16 / bf16: only names HIP spells differently, lacks,
        or has in some releases only."""
        d = self.d
        for cuda in sorted({n for lib in libs for n in self.inv.cuda.names(lib)}):
            if self.skipped(cuda):
                continue
            recs = [r for lib in libs for r in self.inv.cuda.records(cuda, lib)]
            kind = kind_of(recs)
            if kind is None or (kind == "macro" and not cuda.startswith("CUDART_")):
                continue  # of the macros, only the math constants are API
            header = recs[0].get("header", "")
            rule = d.curated_rule(cuda, kind, header, recs) or self.derived_rule(cuda, kind, header, recs)
            if rule is None:
                continue
            rule["library"] = recs[0]["lib"]
            rule["section"] = Path(header).stem
            for part in self.spans.split(cuda, recs, rule, fam.library):
                d.claim_mapped(fam, d.add_nvidia(part, recs))

    def derived_rule(self, cuda: str, kind: str, header: str, recs: list[Record]) -> Rule | None:
        """None when HIP spells the name the same in every release."""
        d = self.d
        if self.inv.present_everywhere(cuda):
            return None
        if self.inv.releases_with(cuda):
            return d.mapped_rule(cuda, cuda, kind, header)  # identity, some releases only
        if hip := d.find_hip(cuda, recs, self.candidates(cuda, recs)):
            return d.mapped_rule(cuda, hip, kind, header)
        return d.unsupported_rule(cuda, kind, header)

    @staticmethod
    def candidates(cuda: str, recs: list[Record]) -> list[str]:
        """Mechanical spellings, plus what a CUDA typedef names (`typedef __half nv_half`:
        nv_half means __half, which HIP spells the same or maps in turn)."""
        cands = device_candidates(cuda)
        for r in recs:
            if r["kind"] == "type" and (m := TYPEDEF.match(r.get("signature", ""))) and m[2] == cuda:
                cands += [m[1]] + device_candidates(m[1])
        return list(dict.fromkeys(cands))

    # -- warp-synchronous intrinsics --------------------------------------------------------
    def warp_sync_family(self, fam: Family) -> None:
        """__shfl_*_sync & co: mask-less HIP builtin before the opt-in release, the
        same spelling (behind the opt-in macro) from it on."""
        spec = self.cur.section("warp_sync")
        for cuda in sorted(spec):
            fact = spec[cuda]
            params = [p["name"] for p in self.inv.cuda.records(cuda, "device")[0]["params"]]
            slug = cuda.strip("_").replace("_", "-")
            hip_recs = self.inv.latest.records(cuda)
            hip_params = [p["name"] for p in hip_recs[0]["params"]]
            if hip_params[0] != params[0] or len(hip_params) != len(params):
                self.d.problems.append(f"warp {cuda}: HIP params {hip_params} vs CUDA {params}")
            if self.d.hip_span(cuda)["since"] != fact["since"]:
                self.d.problems.append(
                    f"warp {cuda}: since {fact['since']}, but first in ROCm {self.d.hip_span(cuda)['since']}"
                )
            if fact.get("maskless"):
                self.maskless_rule(fam, cuda, fact, params, slug)
            self.d.claim(
                fam,
                {
                    "cuda": cuda,
                    "hip": cuda,
                    "id": f"device.{slug}",
                    "kind": "function",
                    "status": fact.get("status", "supported"),
                    "library": "device",
                    "section": "warp",
                    "rocm": {"since": fact["since"]},
                    "requires_define": opt_in_define(hip_recs),
                    "params": params,
                    "args": params,
                    "optional": fact.get("optional"),
                    "lane_mask": params[0],
                    "note": fact.get("note"),
                },
            )

    def maskless_rule(self, fam: Family, cuda: str, fact: dict[str, Any], params: list[str], slug: str) -> None:
        """The mask-less builtin for the releases before the opt-in one: the mask argument is dropped."""
        maskless = fact["maskless"]
        args = params[1:]
        if param_counts(self.inv.latest_or_any(maskless)) != {len(args)}:
            self.d.problems.append(f"warp {maskless}: parameter count != {len(args)}")
        rocm = self.d.hip_span(maskless)
        rocm["until"] = fact["since"]
        self.d.claim(
            fam,
            {
                "cuda": cuda,
                "hip": maskless,
                "id": f"device.{slug}-maskless",
                "kind": "function",
                "library": "device",
                "section": "warp",
                "rocm": rocm,
                "params": params,
                "args": args,
                "drops": [params[0]],
                "optional": fact.get("optional"),
                "lane_mask": params[0],
                "note": fact.get("maskless_note"),
            },
        )
