"""Argument types of library calls (issue 10): for every cuBLAS, cuSOLVER, cuSPARSE, cuFFT and cuRAND function
rule, each CUDA parameter type, mapped to HIP, against the parameter type of the HIP function the rule
emits, in each ROCm release the rule applies to (tools/derive/calltypes.py compares them canonically).

A call must compile as translated: the types agree, or the rule casts the argument (same layout:
hipblasComplex and hipComplex), or the rule is unsupported there and its note says why.  What cannot be
fixed is listed in ALLOWED, with the reason.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from conftest import SHARED_INVENTORY

from helpers import ruleset
from hipconv.resources import hip_releases
from hipconv.rules.model import Rule, RuleKind, RuleStatus
from hipconv.settings import Version

pytestmark = pytest.mark.skipif(
    not (SHARED_INVENTORY / "MANIFEST.json").is_file(),
    reason=f"{SHARED_INVENTORY} is not on this machine: the argument types cannot be compared",
)
REPO = Path(__file__).resolve().parents[1]
LIBRARIES = ("cublas", "cusolver", "cusparse", "cufft", "curand", "nvrtc")
# CUDA name -> why its call cannot be made to compile by a rule (none so far)
ALLOWED: dict[str, str] = {}


@functools.cache
def call_types():  # type: ignore[no-untyped-def]
    """The derivation's comparison, with the type twins of the bundled rules."""
    from tools.derive.calltypes import CallTypes
    from tools.derive.core import Deriver
    from tools.derive.curated import Curated
    from tools.derive.inventory import Inventory

    d = Deriver(Inventory.load(SHARED_INVENTORY), Curated.load(REPO / "tools" / "curated.yaml"))
    for rule in ruleset().rules:
        if rule.kind in (RuleKind.TYPE, RuleKind.ENUM) and rule.hip:
            d.types.setdefault(rule.cuda, rule.hip)
    return CallTypes(d)


def releases_of(rule: Rule) -> list[str]:
    return [r for r in hip_releases() if rule.rocm.available(Version.parse(r)) and rule.rocm.covers(Version.parse(r))]


def library_calls() -> list[Rule]:
    return [
        r
        for r in ruleset().rules
        if r.library in LIBRARIES and r.kind is RuleKind.FUNCTION and r.hip and r.status is not RuleStatus.UNSUPPORTED
    ]


def test_every_library_call_takes_its_translated_arguments() -> None:
    """No rule emits a HIP function whose parameter types the translated arguments do not convert to,
    in any release it applies to, unless it casts them."""
    types = call_types()
    wrong = []
    for rule in library_calls():
        if rule.cuda in ALLOWED:
            continue
        cuda_recs = types.inv.cuda.records(rule.cuda) + [
            r for r in types.inv.cuda.records(rule.cuda + "_v2") if r["kind"] == "function"
        ]
        for rel in releases_of(rule):
            found = types.mismatches(cuda_recs, str(rule.hip), rel) or []
            left = [
                m
                for m in found
                if not (m.cast is not None and rule.casts.get(m.param) == m.cast)
                and not (m.convert is not None and rule.converts.get(m.param) == m.convert)
            ]
            wrong += [f"{rule.origin} ({rule.id}) ROCm {rel}: {m.param} {m.cuda} -> {m.hip}" for m in left]
    assert wrong == []


@pytest.mark.parametrize(
    ("cuda", "release", "hip", "casts"),
    [
        pytest.param("cublasCgemm", "5.2", "hipblasCgemm", "const hipblasComplex*", id="v1-casts-5.2"),
        pytest.param("cublasCgemm", "6.2", "hipblasCgemm_v2", None, id="v2-6.2"),
        pytest.param("cublasZgemv", "6.4", "hipblasZgemv_v2", None, id="v2-6.4"),
        pytest.param("cublasCgemm", "7.0", "hipblasCgemm", None, id="plain-7.0"),
        pytest.param("cublasGemmEx", "6.3", "hipblasGemmEx_v2", None, id="gemmex-v2-6.3"),
        pytest.param("cublasGemmStridedBatchedEx", "7.2", "hipblasGemmStridedBatchedEx", None, id="gemmex-7.2"),
    ],
)
def test_hipblas_v1_v2_per_release(cuda: str, release: str, hip: str, casts: str | None) -> None:
    rules = [r for r in ruleset().rules if r.cuda == cuda and release in releases_of(r)]
    assert [r.hip for r in rules] == [hip]
    assert rules[0].casts.get("alpha") == casts


@pytest.mark.parametrize("cuda", ["cublasGemmEx", "cublasGemmStridedBatchedEx", "cublasGemmBatchedEx"])
def test_hipblas_ex_before_6_0_converts_the_types(cuda: str) -> None:
    """hipBLAS v1's *Ex functions take hipblasDatatype_t, whose values are not hipDataType's: no cast fixes
    that, so the rule converts those arguments (tests/test_conversions.py)."""
    (rule,) = [r for r in ruleset().rules if r.cuda == cuda and "5.7" in releases_of(r)]
    assert rule.status is RuleStatus.SUPPORTED
    assert rule.hip == cuda.replace("cublas", "hipblas")
    assert rule.converts == dict.fromkeys(("Atype", "Btype", "Ctype", "computeType"), "hipblasDatatype_t")


@pytest.mark.parametrize("release", ["5.2", "6.3", "7.2"])
def test_gemm_batched_ex_casts_the_pointer_arrays(release: str) -> None:
    """CUDA takes `const void *const Aarray[]` (a `void **` converts to it), hipBLAS `const void *A[]` (a
    `void **` does not): the arrays are cast; C too, as CUDA's `void *const Carray[]` takes a `void *const *`,
    which hipBLAS's `void *C[]` does not."""
    (rule,) = [r for r in ruleset().rules if r.cuda == "cublasGemmBatchedEx" and release in releases_of(r)]
    assert rule.casts == {"Aarray": "const void**", "Barray": "const void**", "Carray": "void**"}


@pytest.mark.parametrize(
    ("cuda", "at_5_2", "at_5_7"),
    [
        pytest.param("cublasStrsmBatched", "float**", None, id="strsm"),
        pytest.param("cublasCtrsmBatched", "hipblasComplex**", "hipblasComplex*const*", id="ctrsm"),
    ],
)
def test_trsm_batched_casts_b_where_hipblas_drops_its_const(cuda: str, at_5_2: str, at_5_7: str | None) -> None:
    """cuBLAS's trsmBatched takes `T *const B[]`, hipBLAS 5.2 `T *B[]`, 5.7 `T *const B[]`: B is cast through
    the array of const pointers at 5.2 (a `T *const *` argument converts to no `T **`); at 5.7 only where the
    type differs (cuComplex, hipblasComplex)."""
    assert [r.casts.get("B") for r in ruleset().rules if r.cuda == cuda and "5.2" in releases_of(r)] == [at_5_2]
    assert [r.casts.get("B") for r in ruleset().rules if r.cuda == cuda and "5.7" in releases_of(r)] == [at_5_7]


def test_7x_ex_functions_take_what_6_3_v2_ones_take() -> None:
    """Every cuBLAS *Ex rule of ROCm 7.x emits a plain hipBLAS name whose 7.2 parameters are, type for type,
    those of its _v2 twin in 6.3 (the last full inventory): so the 7.2 output of the Ex fixtures, compiled
    against 6.3's hipblas.h with -DHIPBLAS_V2 (tests/test_conversions.py), is checked against 7.x's API."""
    from tools.derive.calltypes import with_v2

    types = call_types()
    rules = [r for r in library_calls() if re.fullmatch(r"cublas\w+Ex", r.cuda) and "7.2" in releases_of(r)]
    assert {r.cuda for r in rules} >= {"cublasGemmEx", "cublasGemmBatchedEx", "cublasDotEx", "cublasScalEx"}
    for rule in rules:
        (new,) = [r for r in types.inv.hip["7.2"].records(str(rule.hip)) if r["kind"] == "function"]
        (old,) = [r for r in types.inv.hip["6.3"].records(with_v2(str(rule.hip))) if r["kind"] == "function"]
        assert [types.resolve(p["type"], "7.2") for p in new["params"]] == [
            types.resolve(p["type"], "6.3") for p in old["params"]
        ], rule.id
