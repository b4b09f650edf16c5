"""The derivation's call-level checks (tools/derive/call_forms.py, enum_consistency.py) against the API
inventories: an enum type and its enumerators land on one HIP enum, and the committed rules hold no
split; the derived call forms (overloads, kernel-pointer casts, tags, driver struct copies) are the ones the
inventories show."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from conftest import SHARED_INVENTORY

from tools.derive.call_forms import CallForms
from tools.derive.core import Deriver, Family
from tools.derive.curated import Curated
from tools.derive.enum_consistency import enum_splits
from tools.derive.inventory import Inventory
from tools.derive.write import read_family, rule_text

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    not (SHARED_INVENTORY / "MANIFEST.json").is_file(),
    reason=f"{SHARED_INVENTORY} is not on this machine: the derivation checks cannot run",
)


@functools.cache
def inventory() -> Inventory:
    return Inventory.load(SHARED_INVENTORY)


@functools.cache
def committed() -> tuple[Family, ...]:
    """The committed rule files as the derivation's families."""
    return tuple(read_family(path) for path in sorted((REPO / "rules").glob("*.yaml")))


def test_the_committed_rule_files_read_back_as_written() -> None:
    """read_family undoes rule_text: `unsupported:` groups become the rules they stand for, and writing
    them again gives each committed file byte for byte."""
    for fam in committed():
        assert rule_text(fam) == (REPO / "rules" / fam.file).read_text(encoding="utf-8"), fam.file
    grouped = [r for fam in committed() for r in fam.rules if r["cuda"] == "CUSPARSE_COLOR_ALG0"]
    shared = {"status": "unsupported", "kind": "enumerator", "section": "cusparse"}
    assert grouped == [{"cuda": "CUSPARSE_COLOR_ALG0", **shared}]


def rule(cuda: str, hip: str, kind: str) -> dict[str, object]:
    return {"cuda": cuda, "hip": hip, "kind": kind, "rocm": {"since": "5.2"}}


def test_an_enum_split_across_two_hip_enums_is_a_problem() -> None:
    """CUresourceViewFormat as the derivation first had it: the type on the runtime's enum, one enumerator
    on the runtime's, the others on the driver-API enum."""
    split = Family(
        "driver.yaml",
        "cuda_driver",
        "",
        [
            rule("CUresourceViewFormat", "hipResourceViewFormat", "type"),
            rule("CU_RES_VIEW_FORMAT_NONE", "hipResViewFormatNone", "enumerator"),
            rule("CU_RES_VIEW_FORMAT_UINT_1X8", "HIP_RES_VIEW_FORMAT_UINT_1X8", "enumerator"),
            rule("CU_RES_VIEW_FORMAT_UINT_2X8", "HIP_RES_VIEW_FORMAT_UINT_2X8", "enumerator"),
        ],
    )
    problems = enum_splits(inventory(), [split])
    assert problems == [
        "enum CUresourceViewFormat_enum: the type maps to hipResourceViewFormat, 2 enumerator(s) to "
        "HIPresourceViewFormat_enum (e.g. CU_RES_VIEW_FORMAT_UINT_1X8), 1 enumerator(s) to hipResourceViewFormat "
        "(e.g. CU_RES_VIEW_FORMAT_NONE): map the type and its enumerators to one HIP enum (tools/curated.yaml)"
    ]


def test_an_enum_on_one_hip_enum_is_no_problem() -> None:
    whole = Family(
        "driver.yaml",
        "cuda_driver",
        "",
        [
            rule("CUresourceViewFormat", "HIPresourceViewFormat", "type"),
            rule("CU_RES_VIEW_FORMAT_NONE", "HIP_RES_VIEW_FORMAT_NONE", "enumerator"),
            rule("CU_RES_VIEW_FORMAT_UINT_1X8", "HIP_RES_VIEW_FORMAT_UINT_1X8", "enumerator"),
        ],
    )
    assert enum_splits(inventory(), [whole]) == []


def test_the_committed_rules_split_no_enum() -> None:
    assert enum_splits(inventory(), list(committed())) == []


def by_cuda(cuda: str) -> list[dict[str, object]]:
    return [r for fam in committed() for r in fam.rules if r["cuda"] == cuda]


@pytest.mark.parametrize(
    "cuda",
    [
        "cudaFuncSetAttribute",
        "cudaFuncGetAttributes",
        "cudaFuncSetCacheConfig",
        "cudaFuncSetSharedMemConfig",
        "cudaLaunchKernel",
        "cudaOccupancyAvailableDynamicSMemPerBlock",
    ],
)
def test_kernel_parameters_taken_as_const_void_pointer_are_cast(cuda: str) -> None:
    (r,) = by_cuda(cuda)
    assert r["casts"] == {"func": "const void*"}


@pytest.mark.parametrize(
    "cuda",
    [
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor",  # HIP has a template taking the kernel itself
        "cudaLaunchCooperativeKernel",  # likewise, ROCm 5.2-6.3
        "cudaMemAdvise",  # a data pointer converts to const void* without a cast
        "cudaStreamAttachMemAsync",
    ],
)
def test_no_cast_where_hip_takes_the_argument_as_it_is(cuda: str) -> None:
    assert all("casts" not in r for r in by_cuda(cuda))


def test_overloads_by_argument_count() -> None:
    forms = {len(r["params"]): (r["hip"], r.get("uncalled", False)) for r in by_cuda("cudaGraphInstantiate")}
    assert forms == {3: ("hipGraphInstantiateWithFlags", True), 5: ("hipGraphInstantiate", False)}
    forms = {len(r["params"]): r["hip"] for r in by_cuda("cudaEventCreate")}
    assert forms == {1: "hipEventCreate", 2: "hipEventCreateWithFlags"}


def test_struct_tags_follow_hip_s_typedefs() -> None:
    tags = {r["cuda"]: r["tag"] for fam in committed() for r in fam.rules if "tag" in r}
    assert tags["cudaGraphicsResource"] == "_hipGraphicsResource"
    assert tags["cudaExternalMemoryHandleDesc"] == "hipExternalMemoryHandleDesc_st"
    # HIP's own tag (typedef struct hipFuncAttributes hipFuncAttributes) needs none
    assert "cudaFuncAttributes" not in tags


def call_forms() -> CallForms:
    """A fresh CallForms that knows the committed type rules (CUDA_MEMCPY2D -> hip_Memcpy2D, ...)."""
    forms = CallForms(Deriver(inventory(), Curated.load(REPO / "tools" / "curated.yaml")))
    forms.learn_types(list(committed()))
    return forms


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        ("cuMemcpy2D", "hipMemcpyParam2D"),
        ("cuMemcpy2D_v2", "hipMemcpyParam2D"),
        ("cuMemcpy2DAsync", "hipMemcpyParam2DAsync"),
        ("cuMemcpy2DAsync_v2", "hipMemcpyParam2DAsync"),
        ("cuMemcpy2DUnaligned", "hipDrvMemcpy2DUnaligned"),
        ("cuMemcpy2DUnaligned_v2", "hipDrvMemcpy2DUnaligned"),
        ("cuMemcpy3D", "hipDrvMemcpy3D"),
        ("cuMemcpy3D_v2", "hipDrvMemcpy3D"),
        ("cuMemcpy3DAsync", "hipDrvMemcpy3DAsync"),
        ("cuMemcpy3DAsync_v2", "hipDrvMemcpy3DAsync"),
    ],
)
def test_driver_struct_copies_go_to_hip_s_descriptor_copies(cuda: str, hip: str) -> None:
    """Each takes CUDA's driver descriptor; the HIP function takes its twin (hip_Memcpy2D, HIP_MEMCPY3D) in
    every release, and the parameter and member check finds nothing."""
    (r,) = by_cuda(cuda)
    assert (r["hip"], r.get("status", "supported"), r["rocm"]) == (hip, "supported", {"since": "5.2"})
    forms = call_forms()
    forms.check_types(cuda, hip)
    assert forms.d.problems == []


@pytest.mark.parametrize(
    ("cuda", "runtime_copy", "takes", "given"),
    [
        (
            "cuMemcpy2D",
            "hipMemcpy2D",
            "('void*', 'unsignedlong', 'void*', 'unsignedlong', 'unsignedlong', 'unsignedlong', 'hipMemcpyKind')",
            "('hip_Memcpy2D*',)",
        ),
        ("cuMemcpy3D", "hipMemcpy3D", "('hipMemcpy3DParms*',)", "('HIP_MEMCPY3D*',)"),
    ],
)
def test_a_driver_copy_sent_to_the_runtime_s_copy_is_a_problem(
    cuda: str, runtime_copy: str, takes: str, given: str
) -> None:
    """One problem per full ROCm release (5.2 ... 6.3); the host-only ones are compared by count elsewhere."""
    forms = call_forms()
    forms.check_types(cuda, runtime_copy)
    assert forms.d.problems == [
        f"call_forms {cuda} -> {runtime_copy}: ROCm {rel} takes [{takes}], CUDA's map to [{given}]"
        for rel in ("5.2", "5.7", "6.0", "6.1", "6.2", "6.3")
    ]


def test_a_descriptor_whose_hip_twin_lacks_members_is_a_problem() -> None:
    """CUDA_MEMCPY3D mapped (wrongly) onto hip_Memcpy2D: the code filling srcZ, Depth ... would not compile.
    Its reserved0/reserved1, which HIP_MEMCPY3D lacks, are no problem."""
    forms = call_forms()
    forms.hip_types["CUDA_MEMCPY3D"] = "hip_Memcpy2D"
    forms.check_fields("cuMemcpy3D_v2", "hipMemcpyParam2D", forms.cuda_protos["cuMemcpy3D_v2"][:1])
    missing = "CUDA_MEMCPY3D's members ['depth', 'dstheight', 'dstlod', 'dstz', 'srcheight', 'srclod', 'srcz']"
    assert forms.d.problems == [
        f"call_forms cuMemcpy3D_v2 -> hipMemcpyParam2D: ROCm {rel}'s hip_Memcpy2D lacks {missing}"
        for rel in ("5.2", "5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2")
    ]
