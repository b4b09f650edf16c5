"""FP8 (rules/fp8.yaml): cuda_fp8.h's names -> hip/hip_fp8.h's, per ROCm release, from the inventories.

CUDA's FP8 types and conversions are the OCP formats (E4M3, E5M2), picked by an interpretation enumerator
(`__NV_E4M3`). HIP's hip_fp8.h has two families: the OCP one (`__hip_fp8_e4m3`, `__HIP_E4M3`) and the FNUZ
one (`__hip_fp8_e4m3_fnuz`, `__HIP_E4M3_FNUZ`), another format (no negative zero, one NaN, the exponent
bias one higher): the same bits read as other values. A CUDA name maps to its mechanical HIP twin
(`__nv_`/`__NV_` -> `__hip_`/`__HIP_`), never to an FNUZ name. Where HIP's name takes or is an
interpretation, the mapping starts at the first release that has every OCP interpretation CUDA has (the
HIP twins of the CUDA interpretation enum's enumerators): before it, HIP's conversions accept the FNUZ
formats only. Storage types and the saturation enum carry no format and map from their first release.
The rest (E8M0, the format macros) has no counterpart: unsupported, each with a note saying why per release.
"""

from __future__ import annotations

import re

from tools.derive.core import Deriver, Family
from tools.derive.inventory import RELEASES
from tools.derive.records import Record, constant_value, kind_of

LIBRARY = "fp8"
HEADER_PREFIX = "cuda_fp8"  # cuda_fp8.h and cuda_fp8.hpp (fp8.jsonl also holds cuda_fp6.h / cuda_fp4.h)
INTERPRETATION = "__nv_fp8_interpretation_t"  # CUDA's enum of the formats
# implementation details: no user writes them
_DETAIL = re.compile(r"^__internal_")
# the user-facing macros of cuda_fp8.h (the others decorate its declarations)
_USER_MACROS = ("__CUDA_FP8_TYPES_EXIST__", "__CUDA_NO_FP8_CONVERSION_OPERATORS__")


def twin(cuda: str) -> str | None:
    """The mechanical HIP spelling of a CUDA FP8 name."""
    if m := re.match(r"^__nv_(\w+)$", cuda):
        return "__hip_" + m[1]
    if m := re.match(r"^__NV_(\w+)$", cuda):
        return "__HIP_" + m[1]
    return None


def _after(a: str, b: str) -> bool:
    """Whether bundled release a comes after release b."""
    return RELEASES.index(a) > RELEASES.index(b)


def span_text(releases: list[str]) -> str:
    return releases[0] if len(releases) == 1 else f"{releases[0]}-{releases[-1]}"


class Fp8:
    def __init__(self, d: Deriver) -> None:
        self.d, self.inv = d, d.inv
        interp = self.cuda_recs(INTERPRETATION)
        enum_name = twin(INTERPRETATION) or INTERPRETATION
        self.hip_interpretation = enum_name
        self.ocp_names = sorted(
            t for r in self.enumerators(self.inv.cuda.by_lib, INTERPRETATION) if (t := twin(r["name"]))
        )
        if not interp or not self.ocp_names:
            d.problems.append(f"fp8: CUDA's {INTERPRETATION} and its enumerators are not in the inventory")
        with_header = [rel for rel in RELEASES if self.inv.hip[rel].has(enum_name)]
        ocp = [rel for rel in with_header if all(self.inv.hip[rel].has(n) for n in self.ocp_names)]
        self.ocp_since = ocp[0] if ocp else RELEASES[-1]
        self.fnuz_only = [rel for rel in with_header if rel not in ocp]
        self.without = [rel for rel in RELEASES if rel not in with_header]

    @staticmethod
    def enumerators(by_lib: dict[str, list[Record]], enum: str) -> list[Record]:
        return [r for r in by_lib.get(LIBRARY, []) if r["kind"] == "enumerator" and r.get("enum") == enum]

    def cuda_recs(self, name: str) -> list[Record]:
        return [r for r in self.inv.cuda.records(name, LIBRARY) if r.get("header", "").startswith(HEADER_PREFIX)]

    def names(self) -> list[str]:
        out = []
        for name in self.inv.cuda.names(LIBRARY):
            recs = self.cuda_recs(name)
            if not recs or name in self.d.claimed or _DETAIL.match(name):
                continue
            if {r["kind"] for r in recs} == {"macro"} and name not in _USER_MACROS:
                continue
            out.append(name)
        return out

    def family(self, fam: Family) -> None:
        for cuda in self.names():
            recs = self.cuda_recs(cuda)
            kind = kind_of(recs)
            if kind is None:
                continue
            rule = self.d.curated_rule(cuda, kind, recs[0]["header"], recs) or self.rule(cuda, kind, recs)
            rule["library"] = LIBRARY
            rule["section"] = "cuda_fp8"
            self.d.claim_mapped(fam, self.d.add_nvidia(rule, recs))

    def rule(self, cuda: str, kind: str, recs: list[Record]) -> dict[str, object]:
        hip = twin(cuda)
        header = recs[0]["header"]
        if hip is None or not self.d.fits(cuda, recs, hip):
            return self.d.unsupported_rule(cuda, kind, header, self.missing_note(cuda))
        if (cv := constant_value(recs)) is not None and cv != constant_value(self.inv.latest_or_any(hip)):
            self.d.problems.append(f"fp8 {cuda} -> {hip}: values differ")
        rule = self.d.mapped_rule(cuda, hip, kind, header)
        own = rule["rocm"]["since"]
        assert isinstance(own, str)
        if self.formatted(hip) and _after(self.ocp_since, own):
            rule["rocm"]["since"] = self.ocp_since
        if note := self.note(hip, rule["rocm"]["since"]):
            rule["note"] = note
        return rule

    def formatted(self, hip: str) -> bool:
        """Whether HIP's name is or takes an FP8 interpretation, or is a type of one format (what an FNUZ-only
        release would read as another format)."""
        recs = self.inv.latest_or_any(hip)
        if hip == self.hip_interpretation or any(r.get("enum") == self.hip_interpretation for r in recs):
            return True
        if any(r["kind"] == "class" for r in recs):
            return True
        return any(self.hip_interpretation in r.get("signature", "") for r in recs if r["kind"] == "function")

    def fnuz_names(self) -> str:
        rel = self.fnuz_only[-1] if self.fnuz_only else ""
        names = [r["name"] for r in self.enumerators(self.inv.hip[rel].by_lib, self.hip_interpretation)] if rel else []
        return ", ".join(sorted(names))

    def before(self, since: str) -> str:
        """Why the releases before `since` get no mapping."""
        parts = []
        if self.without:
            parts.append(f"ROCm {span_text(self.without)} has no hip_fp8.h")
        fnuz = [rel for rel in self.fnuz_only if _after(since, rel)]
        if fnuz:
            parts.append(
                f"ROCm {span_text(fnuz)} has only the FNUZ formats ({self.fnuz_names()}: no negative zero, "
                "exponent bias one higher, so the same bits are other values), never substituted for CUDA's OCP "
                "E4M3/E5M2"
            )
        return "; ".join(parts)

    def note(self, hip: str, since: str) -> str:
        earlier = [rel for rel in RELEASES if _after(since, rel) and self.inv.hip[rel].has(hip)]
        why = self.before(since)
        if earlier:
            why = f"{why}; {hip} there is for those only" if why else f"{hip} before {since} is for those only"
        return why

    def missing_note(self, cuda: str) -> str:
        first = self.fnuz_only[0] if self.fnuz_only else self.ocp_since
        return (
            f"no ROCm release declares a counterpart of {cuda}: hip_fp8.h (ROCm {first} on) has the E4M3 and "
            f"E5M2 formats only (OCP from {self.ocp_since}, and FNUZ)"
        )
