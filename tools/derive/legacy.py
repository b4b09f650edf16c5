"""Legacy twins from the HIP side: CUDA names older than the bundled CUDA inventories (11.8, 12.9, 13.0)
that ROCm still declares under the same shape (cusparseScsrmv, removed in CUDA 11; hipsparseScsrmv in
every bundled ROCm release).

Source of facts: the HIP inventories alone.  For every name a HIP library declares (hipSPARSE, hipBLAS,
hipFFT, hipRAND, hipSOLVER, and the HIP runtime), the CUDA spelling is made by swapping the HIP library
prefix for the CUDA one (hipsparse -> cusparse, HIPSPARSE_ -> CUSPARSE_, hip -> cuda).  When no CUDA
inventory knows that spelling and no rule claims it, a rule renames it to the HIP name for the releases
that declare it (check_rules proves each), reported with HC027 and the HIP release facts.  A function
rule carries the HIP parameters as `params` = `args`, so a call with more arguments than the HIP
prototype is left with HC007.

What is left out, and why (each a fact of the inventories, not a list of names):
- macros (export and version plumbing, HIPSPARSE_EXPORT) and qualified C++ names;
- `_v2` and `_64` names: CUDA's v2 and ILP64 names are all in the 11.8-13.0 inventories (cuBLAS keeps
  its v2 API; ILP64 came with CUDA 12), so a missing one is hipBLAS's own (hipblasGemmEx_v2);
- a HIP name that already stands for a CUDA name (hipHostMalloc for cudaMallocHost): it is that
  name's twin, and the mechanical spelling (cudaHostMalloc) was never CUDA's;
- hipSOLVER names outside cuSOLVER's sub-APIs (the two-letter words after `cusolver` in the CUDA
  inventory: Dn, Sp, Rf, Mg): hipsolverSgetrf is hipSOLVER's own regular API;
- runtime names with HIP's own words: `_spt` (CUDA's per-thread names end in _ptsz/_ptds), Ext, Hcc,
  Drv, Module (the driver API's names start cu, not cuda), the R0000/R0600 ABI suffixes; and runtime
  types and enumerators, whose HIP spellings follow HIP's own enums (hipDeviceAttributeClockRate).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.derive.core import Deriver, Family
from tools.derive.inventory import RELEASES
from tools.derive.libspec import LibSpec
from tools.derive.records import Record, Rule, kind_of, param_counts

# the C libraries searched: hipBLASLt (ROCm 5.7 on) follows CUDA 12's cuBLASLt, which the inventories
# cover; NCCL keeps its names in RCCL.  The HIP runtime is not searched: its own names (hipHostMalloc,
# hipApiName, hipMemPtrGetInfo ...) outnumber the few legacy CUDA ones (cudaConfigureCall, cudaSetupArgument)
# and nothing in the HIP inventory tells them apart.
LEGACY_LIBRARIES = ("cublas", "curand", "cufft", "cusparse", "cusolver")
KINDS = frozenset({"function", "type", "enum", "enumerator"})
_NOT_CUDA_SUFFIX = re.compile(r"_v2(_64)?$|_64$")
_HIP_OWN_RUNTIME = re.compile(r"_spt$|^hip(Ext|Hcc|Drv|Module)|R0[0-9]{3}$")
# how the libraries call themselves in a message
_TITLES = {
    "hipsparse": "hipSPARSE",
    "hipblas": "hipBLAS",
    "hipfft": "hipFFT",
    "hiprand": "hipRAND",
    "hiprand_kernel": "hipRAND",
    "hipsolver": "hipSOLVER",
    "hip_runtime": "HIP",
}


@dataclass(frozen=True)
class LegacyLib:
    """One HIP library searched for legacy twins, and the rule file its rules go to."""

    family: Family
    cuda_lib: str  # the `library` of its rules (cusparse, cudart)
    hip_libs: tuple[str, ...]
    prefixes: tuple[tuple[str, str], ...]  # HIP prefix -> CUDA prefix
    runtime: bool = False


def library_legacy(spec: LibSpec, fam: Family) -> LegacyLib:
    prefixes = tuple((hip, cuda) for cuda, hip in spec.prefixes if cuda.lower().startswith(("cu", "cuda")))
    return LegacyLib(fam, spec.library, spec.hip_libs, prefixes)


def runtime_legacy(fam: Family) -> LegacyLib:
    return LegacyLib(fam, "cudart", ("hip_runtime",), (("hip", "cuda"),), runtime=True)


class LegacyTwins:
    def __init__(self, d: Deriver) -> None:
        self.d = d
        self.inv = d.inv
        self.stands_for: set[str] = set()  # HIP names some rule already emits
        cusolver = self.inv.cuda.names("cusolver")
        sub_apis = sorted({m[1] for n in cusolver if (m := re.match(r"^cusolver([A-Z][a-z])[A-Z]", n))})
        self.cusolver = re.compile(rf"^cusolver({'|'.join(sub_apis)})[A-Z]")

    def derive(self, libs: list[LegacyLib], families: list[Family]) -> None:
        self.stands_for = {r["hip"] for fam in families for r in fam.rules if "hip" in r}
        for lib in libs:
            for hip in self.hip_names(lib):
                cuda = self.cuda_spelling(hip, lib)
                if cuda is not None and (rule := self.rule(cuda, hip, lib)) is not None:
                    self.d.claim_mapped(lib.family, rule)

    def hip_names(self, lib: LegacyLib) -> list[str]:
        names = {r["name"] for rel in RELEASES for hl in lib.hip_libs for r in self.inv.hip[rel].by_lib.get(hl, [])}
        return sorted(n for n in names if "::" not in n and not _NOT_CUDA_SUFFIX.search(n))

    def cuda_spelling(self, hip: str, lib: LegacyLib) -> str | None:
        """The CUDA name of the same shape, when no CUDA inventory and no rule knows it."""
        if hip in self.stands_for or (lib.runtime and _HIP_OWN_RUNTIME.search(hip)):
            return None
        cuda = next((c + hip[len(h) :] for h, c in lib.prefixes if hip.startswith(h)), None)
        if cuda is None or not re.match(r"^[A-Za-z]+_?[A-Z]", cuda):
            return None
        if cuda.startswith("cusolver") and not self.cusolver.match(cuda):
            return None
        if cuda in self.d.claimed or self.inv.cuda.has(cuda):
            return None
        return cuda

    def rule(self, cuda: str, hip: str, lib: LegacyLib) -> Rule | None:
        recs = self.inv.latest_or_any(hip)
        kind = kind_of(recs)
        if kind not in KINDS or (lib.runtime and kind != "function"):
            return None
        if kind == "enumerator" and not self.legacy_enum(recs, lib):
            return None
        header = recs[0].get("header", "")
        rule = self.d.mapped_rule(cuda, hip, kind, header, self.note(cuda, hip, recs))
        rule["library"] = lib.cuda_lib
        rule["rewrite_code"] = "HC027"
        if kind == "function" and (params := self.params(recs)):
            rule["params"] = params
            rule["args"] = list(params)
            # a prototype HIP changed (hipBLAS 6.0's out-of-place trmm): the releases of the newest one only
            counts = {rel: param_counts(self.inv.hip[rel].records(hip)) for rel in RELEASES}
            older = [rel for rel, have in counts.items() if have not in (None, {len(params)})]
            if older:
                rule["rocm"]["since"] = RELEASES[RELEASES.index(older[-1]) + 1]
        return rule

    def legacy_enum(self, recs: list[Record], lib: LegacyLib) -> bool:
        """An enumerator counts when its enum is a legacy twin too (hipsparseHybPartition_t): the other
        enumerators of an enum that stands for a CUDA one (hipblasDatatype_t ~ cudaDataType) are HIP's own."""
        enum = recs[0].get("enum")
        return isinstance(enum, str) and self.cuda_spelling(enum, lib) is not None

    @staticmethod
    def params(recs: list[Record]) -> list[str] | None:
        """The HIP prototype's parameter names, when every declaration has the same count."""
        forms = [[p.get("name") or f"arg{k}" for k, p in enumerate(r["params"])] for r in recs if "params" in r]
        if not forms or len({len(f) for f in forms}) != 1 or not forms[0]:
            return None
        return forms[0]

    def note(self, cuda: str, hip: str, recs: list[Record]) -> str:
        runs = self.inv.runs(hip)
        spans = ", ".join(f"{a}-{RELEASES[RELEASES.index(b) - 1]}" if b else f"{a}-{RELEASES[-1]}" for a, b in runs)
        spans = re.sub(r"\b(\d+\.\d+)-\1\b", r"\1", spans)
        title = _TITLES.get(recs[0]["lib"], recs[0]["lib"])
        dep = self.d.hip_deprecation(hip)
        return (
            f"a legacy name, in no CUDA 11.8-13.0 inventory (removed from CUDA before 11.8, or {title}'s own); "
            f"{title} declares "
            f"{hip} in ROCm {spans}" + (f", deprecated from {dep}" if dep else "")
        )
