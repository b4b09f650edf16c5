"""Legacy twins from the HIP side: CUDA names older than the bundled CUDA inventories (11.8, 12.9, 13.0)
that ROCm still declares under the same shape (cusparseScsrmv, removed in CUDA 11; hipsparseScsrmv in
every bundled ROCm release).

Source of facts: the HIP inventories.  For every name hipSPARSE declares, the CUDA spelling is made by
swapping the HIP library prefix for the CUDA one (hipsparse -> cusparse, HIPSPARSE_ -> CUSPARSE_).  When no
CUDA inventory knows that spelling and no rule claims it, a rule renames it to the HIP name for the
releases that declare it (check_rules proves each), reported with HC027 and the HIP release facts.  A
function rule carries the HIP parameters as `params` = `args`, so a call with more arguments than the HIP
prototype is left with HC007.

Which libraries are searched: only those where CUDA removed a documented API before 11.8 that the HIP
library keeps, cuSPARSE (CUDA 11.0 removed the legacy csrmv/csrmm/hyb/csr2csc API; hipSPARSE keeps it,
deprecated).  The inventories cannot tell a name CUDA removed before 11.8 from a HIP library's own
extension, and for the other libraries the search found only the latter (measured on main at 00f8770):
- hipBLAS, 439 names: 332 Batched/StridedBatched forms of names CUDA 11.8-13.0 has unbatched only
  (hipblasSaxpyBatched; cuBLAS's batched routines, gemm, gemv, trsm, getrf, getri, geqrf, gels, matinv,
  are all in the 11.8 inventory: CUDA added batched forms and removed none), 16 unbatched forms of
  names CUDA has batched only (hipblasSgetrf: CUDA's unbatched LAPACK is cuSOLVER's), and 91 hipBLAS
  types, enumerators and extensions: hipblasDatatype_t and its HIPBLAS_R_16F... (CUDA's are cudaDataType's
  CUDA_R_16F...), hipblasHalf, hipblasComplex, hipblasStride, hipblasGemmFlags_t, the *WithFlags and
  TrsmEx calls, trtri, Cspr/Zspr, Haxpy/Hdot, the Outofplace trmm of ROCm 5.7;
- hipFFT, 7: its version macros (CUDA's are CUFFT_VER_MAJOR...), hipfftHandle_t (CUDA: cufftHandle),
  hipfftLibraryPropertyType(_t), hipfftExtPlanScaleFactor;
- hipRAND, 5: hiprandGenerateChar/Short and the *Half generators;
- hipSOLVER, 0 (its regular API, hipsolverSgetrf, is outside cuSOLVER's Dn/Sp/Rf/Mg sub-APIs).
Renaming those would claim a CUDA history that never was, and rename a project's own identifiers (a
typedef cublasComplex): they stay HC001.  cuFFT's one removed name that old code calls,
cufftSetCompatibilityMode, has no hipFFT twin (HC001 too: tests/fixtures/legacy_libraries shows both).

The CUDA runtime is not searched either: HIP's own names (hipHostMalloc, hipApiName, hipMemPtrGetInfo ...)
far outnumber the legacy CUDA ones, and nothing in the HIP inventory tells them apart.  Its legacy names
with a HIP twin are curated instead (tools/curated.yaml `runtime_legacy:`, each with the CUDA release
facts of its note), and derived here like the searched ones: checked to be in no CUDA inventory, the HIP
name in the inventory as a function, params = args from the HIP prototype.

What the search leaves out, and why (each a fact of the inventories, not a list of names):
- macros (export and version plumbing, HIPSPARSE_EXPORT) and qualified C++ names;
- `_v2` and `_64` names: CUDA's v2 and ILP64 names are all in the 11.8-13.0 inventories (ILP64 came with
  CUDA 12), so a missing one is the HIP library's own;
- a HIP name that already stands for a CUDA name: it is that name's twin, and the mechanical spelling
  was never CUDA's;
- an enumerator whose enum is not a legacy twin too (see legacy_enum).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.derive.core import Deriver, Family
from tools.derive.inventory import RELEASES
from tools.derive.libspec import LibSpec
from tools.derive.records import Record, Rule, kind_of, param_counts

# the libraries searched (see above): where CUDA removed a documented API before 11.8 that ROCm keeps
LEGACY_LIBRARIES = ("cusparse",)
KINDS = frozenset({"function", "type", "enum", "enumerator"})
_NOT_CUDA_SUFFIX = re.compile(r"_v2(_64)?$|_64$")
# how the libraries call themselves in a message
_TITLES = {"hipsparse": "hipSPARSE", "hip_runtime": "HIP"}


@dataclass(frozen=True)
class LegacyLib:
    """One HIP library searched for legacy twins, and the rule file its rules go to."""

    family: Family
    cuda_lib: str  # the `library` of its rules (cusparse, cudart)
    hip_libs: tuple[str, ...]
    prefixes: tuple[tuple[str, str], ...]  # HIP prefix -> CUDA prefix


def library_legacy(spec: LibSpec, fam: Family) -> LegacyLib:
    prefixes = tuple((hip, cuda) for cuda, hip in spec.prefixes if cuda.lower().startswith(("cu", "cuda")))
    return LegacyLib(fam, spec.library, spec.hip_libs, prefixes)


class LegacyTwins:
    def __init__(self, d: Deriver) -> None:
        self.d = d
        self.inv = d.inv
        self.stands_for: set[str] = set()  # HIP names some rule already emits

    def derive(self, libs: list[LegacyLib], families: list[Family]) -> None:
        self.stands_for = {r["hip"] for fam in families for r in fam.rules if "hip" in r}
        for lib in libs:
            for hip in self.hip_names(lib):
                cuda = self.cuda_spelling(hip, lib)
                if cuda is not None and (rule := self.rule(cuda, hip, lib.cuda_lib, lib)) is not None:
                    self.d.claim_mapped(lib.family, rule)

    def runtime(self, fam: Family) -> None:
        """The curated legacy runtime names (`runtime_legacy:`): in no CUDA inventory, the HIP name a
        function of the HIP inventory; the curated note says what CUDA did with the name."""
        for cuda, fact in self.d.cur.section("runtime_legacy").items():
            hip = fact["hip"]
            if self.inv.cuda.has(cuda) or cuda in self.d.claimed:
                self.d.problems.append(f"runtime_legacy {cuda}: a CUDA inventory or a rule knows it: not legacy")
            elif kind_of(self.inv.latest_or_any(hip)) != "function":
                self.d.problems.append(f"runtime_legacy {cuda} -> {hip}: not a function of the HIP inventory")
            elif (rule := self.rule(cuda, hip, fam.library, why=fact["note"])) is not None:
                self.d.claim_mapped(fam, rule)

    def hip_names(self, lib: LegacyLib) -> list[str]:
        names = {r["name"] for rel in RELEASES for hl in lib.hip_libs for r in self.inv.hip[rel].by_lib.get(hl, [])}
        return sorted(n for n in names if "::" not in n and not _NOT_CUDA_SUFFIX.search(n))

    def cuda_spelling(self, hip: str, lib: LegacyLib) -> str | None:
        """The CUDA name of the same shape, when no CUDA inventory and no rule knows it."""
        if hip in self.stands_for:
            return None
        cuda = next((c + hip[len(h) :] for h, c in lib.prefixes if hip.startswith(h)), None)
        if cuda is None or not re.match(r"^[A-Za-z]+_?[A-Z]", cuda):
            return None
        if cuda in self.d.claimed or self.inv.cuda.has(cuda):
            return None
        return cuda

    def rule(
        self, cuda: str, hip: str, library: str, lib: LegacyLib | None = None, why: str | None = None
    ) -> Rule | None:
        recs = self.inv.latest_or_any(hip)
        kind = kind_of(recs)
        if kind not in KINDS:
            return None
        if kind == "enumerator" and (lib is None or not self.legacy_enum(recs, lib)):
            return None
        header = recs[0].get("header", "")
        rule = self.d.mapped_rule(cuda, hip, kind, header, self.note(hip, recs, why))
        rule["library"] = library
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

    def note(self, hip: str, recs: list[Record], why: str | None) -> str:
        runs = self.inv.runs(hip)
        spans = ", ".join(f"{a}-{RELEASES[RELEASES.index(b) - 1]}" if b else f"{a}-{RELEASES[-1]}" for a, b in runs)
        spans = re.sub(r"\b(\d+\.\d+)-\1\b", r"\1", spans)
        title = _TITLES.get(recs[0]["lib"], recs[0]["lib"])
        dep = self.d.hip_deprecation(hip)
        why = why or f"removed from CUDA before 11.8, or {title}'s own extension"
        return f"a legacy name, in no CUDA 11.8-13.0 inventory ({why}); {title} declares {hip} in ROCm {spans}" + (
            f", deprecated from {dep}" if dep else ""
        )
