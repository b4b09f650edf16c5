"""The C libraries (cuBLAS, cuBLASLt, cuRAND, cuFFT, cuSPARSE, cuSOLVER, NCCL, NVRTC): their names get
the HIP library's prefix (cublasSgemm -> hipblasSgemm), counterpart enums are matched enumerator by
enumerator, and what has no counterpart is unsupported with the library's curated note."""

from __future__ import annotations

import functools
from pathlib import Path

from tools.derive.core import Deriver, Family
from tools.derive.curated import first_note
from tools.derive.enums import enum_groups, group_names, match_enumerators
from tools.derive.libspec import LibSpec, lib_candidates
from tools.derive.names import is_internal
from tools.derive.records import IDENT, Record, Rule, kind_of
from tools.derive.spans import ReleaseSpans
from tools.derive.twins import Twin, Twins


def alias_target(recs: list[Record]) -> str | None:
    """The name an object-like macro renames (`#define cublasSgemm cublasSgemm_v2`)."""
    for r in recs:
        if r["kind"] == "macro" and not r.get("params") and IDENT.match(str(r.get("value", ""))):
            value: str = r["value"]
            return value
    return None


class CLibraries:
    def __init__(self, d: Deriver, spans: ReleaseSpans) -> None:
        self.d = d
        self.inv, self.cur = d.inv, d.cur
        self.spans = spans
        self.evidence: dict[str, Twin] = {}  # the library being derived: CUDA name -> its twin by evidence

    def unsupported_note(self, spec: LibSpec, name: str) -> str | None:
        return first_note(self.cur.library_notes(spec.library), name)

    def enumerator_map(self, spec: LibSpec) -> dict[str, str]:
        """Enumerators of counterpart enums matched by name (CUBLAS_OP_HERMITAN ~ HIPBLAS_OP_C)."""
        calias, cmembers = enum_groups(self.inv.cuda, list(spec.cuda_libs))
        halias, hmembers = enum_groups(self.inv.latest, list(spec.hip_libs))
        result: dict[str, str] = {}
        for group in sorted(cmembers):
            hip_group = next(
                (
                    halias[cand]
                    for n in group_names(calias, group)
                    for cand in self.enum_candidates(n, spec)
                    if cand in halias
                ),
                None,
            )
            if hip_group:
                for c, h in match_enumerators(cmembers[group], hmembers[hip_group]).items():
                    result.setdefault(c, h)
        return result

    def enum_candidates(self, name: str, spec: LibSpec) -> list[str]:
        hip = (self.cur.mapping(name) or {}).get("hip")
        return ([hip] if hip else []) + lib_candidates(name, spec)

    def family(self, fam: Family, spec: LibSpec) -> None:
        d = self.d
        enum_map = self.enumerator_map(spec)
        self.evidence = self.twins(spec, enum_map)
        for lib in spec.cuda_libs:
            for cuda in self.inv.cuda.names(lib):
                if not IDENT.match(cuda) or cuda in self.cur.ignore or cuda in d.claimed:
                    continue
                recs = self.records(cuda, lib)
                kind = kind_of(recs)
                if kind is None:
                    continue
                header = recs[0].get("header", "")
                rule = d.curated_rule(cuda, kind, header, recs) or self.rule(cuda, kind, header, recs, spec, enum_map)
                if rule is None:
                    continue
                rule["library"] = lib
                rule["section"] = Path(header).stem
                if "hip" in rule:
                    d.twins[(lib, cuda)] = rule["hip"]
                for part in self.spans.split(cuda, recs, rule, lib):
                    d.claim_mapped(fam, d.add_nvidia(part, recs))

    def records(self, cuda: str, lib: str) -> list[Record]:
        recs = self.d.cuda_records(cuda, lib)
        if (target := alias_target(recs)) and target != cuda:
            # `#define cublasSgemm cublasSgemm_v2` (cublas_v2.h) next to the legacy
            # cublas.h cublasSgemm: the alias target's signature counts as well
            recs = recs + [r for r in self.inv.cuda.records(target, lib) if r["kind"] == "function"]
        return recs

    def candidates(self, cuda: str, spec: LibSpec, enum_map: dict[str, str]) -> list[str]:
        cands = ([enum_map[cuda]] if cuda in enum_map else []) + lib_candidates(cuda, spec)
        if spec.library == "nccl" or self.inv.releases_with(cuda):
            cands.append(cuda)  # HIP spells it the same
        return cands

    def twins(self, spec: LibSpec, enum_map: dict[str, str]) -> dict[str, Twin]:
        """The library's twins by evidence (tools/derive/twins.py) against its HIP library."""

        def hip_name(cuda: str) -> str | None:  # curated, mechanical, or a type the runtime rules map
            if (fact := self.cur.mapping(cuda)) is not None:
                return fact.get("hip")
            lib = next((lib for lib in spec.cuda_libs if self.inv.cuda.records(cuda, lib)), None)
            if lib is None:
                return self.d.types.get(cuda)
            return self.d.find_hip(cuda, self.records(cuda, lib), self.candidates(cuda, spec, enum_map))

        hip_prefixes = [hip for _, hip in spec.prefixes]
        return Twins(self.d, spec.cuda_libs, functools.cache(hip_name), spec.hip_libs, hip_prefixes).found

    def rule(
        self, cuda: str, kind: str, header: str, recs: list[Record], spec: LibSpec, enum_map: dict[str, str]
    ) -> Rule | None:
        """The mechanical rule of a name without a curated one; None for a macro (or an internal name)
        without a counterpart, which HC001 reports through cuda.names."""
        d = self.d
        cands = self.candidates(cuda, spec, enum_map)
        if hip := d.find_hip(cuda, recs, cands):
            return d.mapped_rule(cuda, hip, kind, header)
        if twin := self.evidence.get(cuda):
            return d.mapped_rule(cuda, twin.hip, kind, header, f"twin by evidence: {twin.evidence}")
        if kind == "macro" and (target := alias_target(recs)):
            # `#define cublasCrotg_64 cublasCrotg_v2_64` names a function the CUDA
            # headers do not declare: the HIP function of the same name stands for it
            hip = next((c for c in cands if "function" in {r["kind"] for r in self.inv.latest_or_any(c)}), None)
            if hip:
                return d.mapped_rule(
                    cuda,
                    hip,
                    "function",
                    header,
                    f"CUDA's macro names {target}, which the CUDA 13 headers do not declare",
                )
        if kind == "macro" or is_internal(cuda):
            return None
        return d.unsupported_rule(cuda, kind, header, self.unsupported_note(spec, cuda))
