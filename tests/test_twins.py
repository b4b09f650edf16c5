"""Twins by evidence (tools/derive/twins.py): HIP counterparts whose spelling differs by more than the
prefix, found from enumerator values, fields and parameter types in ../shared/api-inventory.

The issue's test: every CUDA runtime, driver or library (cuBLAS, cuFFT, cuSOLVER, cuSPARSE, cuRAND, NCCL ...)
name whose HIP twin exists by that evidence has a rule that translates it, or is curated (`twins:` in
tools/curated.yaml) with the reason it does not.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from conftest import SHARED_INVENTORY

from helpers import ruleset
from tools.derive.name_words import name_words, reordering, shortening, similar
from tools.derive.twins import Twin

REPO = Path(__file__).resolve().parents[1]
NO_INVENTORY = f"{SHARED_INVENTORY} is not on this machine: the evidence search cannot run"


@functools.cache
def evidence() -> dict[str, Twin]:
    """The twins by evidence of the runtime and driver, then of each C library (whose search resolves the
    runtime types its functions take through the runtime rules)."""
    from tools.derive.core import Deriver, Family
    from tools.derive.curated import Curated
    from tools.derive.inventory import Inventory
    from tools.derive.libraries import CLibraries
    from tools.derive.libspec import LIBRARIES
    from tools.derive.runtime import HostFamilies
    from tools.derive.spans import ReleaseSpans

    d = Deriver(Inventory.load(SHARED_INVENTORY), Curated.load(REPO / "tools" / "curated.yaml"))
    spans = ReleaseSpans(d)
    host = HostFamilies(d, spans)
    host.derive(Family("runtime.yaml", "cudart", ""), Family("driver.yaml", "cuda_driver", ""))
    found = dict(host.evidence)
    libraries = CLibraries(d, spans)
    for spec in (s for s in LIBRARIES if not s.qualified):
        found |= libraries.twins(spec, libraries.enumerator_map(spec))
    return found


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason=NO_INVENTORY)
def test_every_twin_by_evidence_has_a_rule() -> None:
    """Lists the CUDA runtime, driver and library names whose HIP twin exists by evidence but that no rule
    maps to it."""
    mapped = {(r.cuda, r.hip) for r in ruleset().rules if r.hip}
    without_rule = [f"{c} -> {t.hip} ({t.evidence})" for c, t in sorted(evidence().items()) if (c, t.hip) not in mapped]
    print("\n".join(without_rule) or "none")
    assert without_rule == []


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason=NO_INVENTORY)
@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        pytest.param("CUtexObject", "hipTextureObject_t", id="same-underlying-type"),
        pytest.param("CUsurfObject", "hipSurfaceObject_t", id="same-underlying-type-surface"),
        pytest.param("CUuuid", "hipUUID", id="same-fields-typedef"),
        pytest.param("CUuuid_st", "hipUUID_t", id="same-fields-tag"),
        pytest.param("CUaddress_mode", "HIPaddress_mode", id="enum-type-by-enumerators"),
        pytest.param("CUfilter_mode_enum", "HIPfilter_mode_enum", id="enum-tag-by-enumerators"),
        pytest.param("cudaDevAttrMaxSurface1DWidth", "hipDeviceAttributeMaxSurface1D", id="enumerator-shortening"),
        pytest.param("cudaDevAttrMaxTexture1DMipmappedWidth", "hipDeviceAttributeMaxTexture1DMipmap", id="mipmapped"),
        pytest.param("CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD", "hipDeviceAttributeIsMultiGpuBoard", id="bridged-value"),
        pytest.param("CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT", "hipGraphNodeTypeExtSemaphoreWait", id="same-value"),
        pytest.param(
            "cudaDevAttrMaxPersistingL2CacheSize", "hipDeviceAttributePersistingL2CacheMaxSize", id="words-reordered"
        ),
        pytest.param(
            "CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE",
            "hipDeviceAttributeAccessPolicyMaxWindowSize",
            id="words-reordered-driver",
        ),
        # CUDA's second spelling of attribute 102 (VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED maps by its words)
        pytest.param(
            "CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED",
            "hipDeviceAttributeVirtualMemoryManagementSupported",
            id="same-value-in-its-own-enum",
        ),
        # the examples: CUDA's union has more members than HIP's, each of HIP's is CUDA's
        pytest.param("cudaLaunchAttributeValue", "hipLaunchAttributeValue", id="union-subset"),
        pytest.param("CUlaunchAttributeValue", "hipLaunchAttributeValue", id="union-subset-driver-shares-hip-name"),
        # `#define cudaKernelNodeAttrValue cudaLaunchAttributeValue`: HIP's own alias, spelled alike
        pytest.param("cudaKernelNodeAttrValue", "hipKernelNodeAttrValue", id="alias-to-hip-alias"),
        pytest.param("cudaStreamAttrValue", "hipLaunchAttributeValue", id="alias-of-union"),
        pytest.param("CUstreamAttrValue", "hipLaunchAttributeValue", id="alias-of-alias"),
        # `typedef CUDA_EXTERNAL_MEMORY_HANDLE_DESC_v1 CUDA_EXTERNAL_MEMORY_HANDLE_DESC`
        pytest.param("CUDA_EXTERNAL_MEMORY_HANDLE_DESC", "hipExternalMemoryHandleDesc", id="alias-of-v1-struct"),
        # a pointer to the struct the runtime's cudaMemPool_t points to
        pytest.param("CUmemoryPool", "hipMemPool_t", id="same-pointer-typedef"),
        pytest.param("cuSurfObjectDestroy", "hipDestroySurfaceObject", id="function-one-parameter"),
        # libraries
        pytest.param("cusolverRfGetAlgs", "hipsolverRfGet_Algs", id="library-function"),
        pytest.param("cublasStatus", "hipblasStatus_t", id="library-alias"),
    ],
)
def test_twins_found_by_evidence(cuda: str, hip: str) -> None:
    assert evidence()[cuda].hip == hip


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason=NO_INVENTORY)
@pytest.mark.parametrize(
    "cuda",
    [
        # HIP has one attribute for both dimensions (hipDeviceAttributeMaxTexture2DLayered): ambiguous
        pytest.param("cudaDevAttrMaxTexture2DLayeredWidth", id="two-dimensions-one-hip-attribute"),
        pytest.param("cudaDevAttrMaxTexture2DLayeredHeight", id="two-dimensions-one-hip-attribute-height"),
        # same value (912) as hipErrorInvalidTexture, but nothing alike in the names
        pytest.param("CUDA_ERROR_INVALID_CLUSTER_SIZE", id="same-value-other-name"),
        # cudaDeviceAttr's values are not HIP's: a same value there is no evidence
        pytest.param("CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS", id="values-differ-by-design"),
        # extra fields (the peer contexts): not the same struct as HIP_MEMCPY3D
        pytest.param("CUDA_MEMCPY3D_PEER_v1", id="fields-superset"),
        # HIPBLASLT_MATMUL_PREF_MAX is the enum's one-word sentinel, not a shortening of MAX_WAVES_COUNT
        pytest.param("CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT", id="one-word-prefix"),
        # const CUDA_RESOURCE_DESC* (HIP_RESOURCE_DESC) against hipCreateSurfaceObject's hipResourceDesc*
        pytest.param("cuSurfObjectCreate", id="parameter-types-differ"),
        # an opaque struct tag against HIP's void* handle
        pytest.param("CUextMemory_st", id="tag-against-pointer"),
        # CUDA 13's cusparseSpMatSizes_t* against hipsparseSpMatGetSize's three int64_t*
        pytest.param("cusparseSpMatGetSizes", id="library-parameters-differ"),
    ],
)
def test_no_twin_without_evidence(cuda: str) -> None:
    assert cuda not in evidence()


def test_rules_translate_the_twins() -> None:
    """What a user sees: the twins translate, with the evidence in the rule's note."""
    by_cuda = {r.cuda: r for r in ruleset().rules if r.hip}
    assert by_cuda["CUtexObject"].hip == "hipTextureObject_t"
    assert "twin by evidence" in (by_cuda["CUtexObject"].note or "")
    assert by_cuda["cuStreamWaitValue32"].hip == "hipStreamWaitValue32"
    assert by_cuda["CU_STREAM_WAIT_VALUE_GEQ"].hip == "hipStreamWaitValueGte"
    assert by_cuda["cudaLaunchAttributeValue"].hip == "hipLaunchAttributeValue"
    assert "union whose HIP members" in (by_cuda["cudaLaunchAttributeValue"].note or "")
    assert by_cuda["cusolverRfGetAlgs"].hip == "hipsolverRfGet_Algs"


@pytest.mark.parametrize(
    ("name", "words"),
    [
        pytest.param("CUaddress_mode", ("address", "mode"), id="driver-type"),
        pytest.param(
            "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH", ("device", "attribute", "max", "texture", "1d", "width")
        ),
        pytest.param("cudaDevAttrMaxTexture1DWidth", ("device", "attribute", "max", "texture", "1d", "width")),
        pytest.param("CUtexObject", ("texture", "object"), id="abbreviation"),
        pytest.param("hipUUID_t", ("uuid",), id="suffix"),
    ],
)
def test_name_words(name: str, words: tuple[str, ...]) -> None:
    assert name_words(name) == words


def test_similarity() -> None:
    assert similar("CUtexObject", "cudaTextureObject_t", both=True)
    assert not similar("CUtexObject", "cudaSurfaceObject_t")
    assert shortening("hipDeviceAttributeMaxTexture1DMipmap", "cudaDevAttrMaxTexture1DMipmappedWidth", 2, 2)
    assert not shortening("hipDeviceAttributeMaxTexture3DAlt", "cudaDevAttrMaxTexture3DWidthAlt", 2, 2)
    assert not shortening("HIPBLASLT_MATMUL_PREF_MAX", "CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT", 3, 3)
    assert reordering("hipDeviceAttributePersistingL2CacheMaxSize", "cudaDevAttrMaxPersistingL2CacheSize", 2, 2)
    assert not reordering("hipDeviceAttributeMaxGridDimX", "cudaDevAttrMaxGridDimX", 2, 2)  # the same order
    assert not reordering("hipDeviceAttributeMemoryBusWidth", "cudaDevAttrGlobalMemoryBusWidth", 2, 2)  # a word more
    # one spelling but for case
    assert similar("cuTexRefGetMipmappedArray", "hipTexRefGetMipMappedArray", both=True)
