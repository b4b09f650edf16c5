"""Every CUDA release from 11.8 to 13: names CUDA removed get rules, every diagnostic about a name CUDA
removed or deprecated says so, and what looks like CUDA API but no inventory knows is reported (HC001)
unless the file declares it itself."""

from __future__ import annotations

import pytest

import hipconv
from hipconv.resources import cuda_releases
from hipconv.rules import load_ruleset
from tests.helpers import run_cli


def _rule(rule_id: str) -> hipconv.rules.model.Rule:
    return next(r for r in load_ruleset().rules if r.id == rule_id)


def _found(source: str, rocm: str = "7.2", path: str = "k.cu", *, compat: bool = True) -> list[tuple[str, str, str]]:
    result = hipconv.translate_source(source, path=path, rocm_version=rocm, compat=compat)
    return [(d.code, d.symbol, d.message) for d in result.diagnostics]


def test_every_cuda_release_is_bundled() -> None:
    assert cuda_releases() == ["11.8", "12.9", "13.0"]
    done = run_cli("--version")
    assert b"inventories: CUDA 11.8, 12.9, 13.0; ROCm" in done.stdout


@pytest.mark.parametrize(
    ("rule_id", "nvidia"),
    [
        pytest.param("cudart.cudaBindTexture", {"deprecated": "11.8", "removed": "12.0"}, id="11.8-only"),
        pytest.param("cudart.cudaThreadSynchronize", {"deprecated": "11.8", "removed": "13.0"}, id="12.9-last"),
        pytest.param("cudart.cudaGraphAddNode_v2", {"since": "12.9", "removed": "13.0"}, id="12.9-only"),
        pytest.param("cudnn.cudnnRNNForwardInference", {"removed": "9.0"}, id="cudnn-8-only"),
        pytest.param("cudart.cudaGLSetGLDevice", {"deprecated": "11.8"}, id="deprecated-still-there"),
    ],
)
def test_nvidia_span_comes_from_each_cuda_release(rule_id: str, nvidia: dict[str, str]) -> None:
    assert dict(_rule(rule_id).nvidia) == nvidia


@pytest.mark.parametrize(
    ("call", "hip"),
    [
        ("cudaThreadSynchronize()", "hipDeviceSynchronize()"),
        ("cudaThreadExit()", "hipDeviceReset()"),
        ("cudaThreadSetCacheConfig(cudaFuncCachePreferL1)", "hipDeviceSetCacheConfig(hipFuncCachePreferL1)"),
        ("cudaThreadGetCacheConfig(&c)", "hipDeviceGetCacheConfig(&c)"),
        ("cudaThreadGetLimit(&v, cudaLimitMallocHeapSize)", "hipDeviceGetLimit(&v, hipLimitMallocHeapSize)"),
    ],
)
def test_removed_cudathread_calls_become_their_hipdevice_twins(call: str, hip: str) -> None:
    result = hipconv.translate_source(f"void f() {{ {call}; }}\n", path="k.cpp")
    assert result.text == f"void f() {{ {hip}; }}\n"
    assert result.diagnostics == ()


@pytest.mark.parametrize(
    ("source", "rocm", "code", "words"),
    [
        pytest.param(
            "void f(float* d) { cudaBindTexture(0, tex, d, 64); }",
            "7.2",
            "HC004",
            "translated to hipBindTexture (deprecated in CUDA 11.8, removed in CUDA 12.0)",
            id="HC004",
        ),
        pytest.param(
            "void f() { cudaSetDoubleForDevice(0); }",
            "7.2",
            "HC002",
            "has no HIP equivalent; left unchanged (deprecated in CUDA 11.8, removed in CUDA 13.0;",
            id="HC002",
        ),
        pytest.param(
            "void f() { cudaThreadSetLimit(cudaLimitStackSize, 4096); }",
            "5.2",
            "HC003",
            "hipDeviceSetLimit is not in ROCm 5.2; first in 5.7; cudaThreadSetLimit left unchanged "
            "(deprecated in CUDA 11.8, removed in CUDA 13.0;",
            id="HC003",
        ),
        pytest.param(
            "void f() { cudnnRNNForwardInferenceEx(h, r, x, xd); }",
            "7.2",
            "HC201",
            "left unchanged (removed in cuDNN 9.0;",
            id="cudnn",
        ),
    ],
)
def test_diagnostics_say_what_cuda_did_with_the_name(source: str, rocm: str, code: str, words: str) -> None:
    found = _found(source + "\n", rocm, "k.cpp")
    assert any(c == code and words in message for c, _, message in found), found


def test_cache_hinted_store_is_reported_with_a_note() -> None:
    # without hipconv_compat.h's shims (--no-compat); with them, HC011 (tests/test_compat.py)
    [(code, symbol, message)] = _found("__device__ void f(float* p) { __stcs(p, 1.0f); }\n", compat=False)
    assert (code, symbol) == ("HC002", "__stcs")
    assert "cache-hinted store (st.global.cs) that no HIP release declares" in message


@pytest.mark.parametrize(
    "name",
    [
        "cudaFooBar",
        "cuFooBar",
        "CU_FOO_BAR",
        "CUDA_FOO_BAR",
        "cublasFooBar",
        "CUSPARSE_FOO",
        "nvtxRangePushA",
        "NVTX_VERSION_FOO",
        "ncclFooBar",
        "nvrtcFooBar",
        "cudnnFooBar",
        "__ldxy",
    ],
)
def test_cuda_looking_names_no_inventory_knows_get_hc001(name: str) -> None:
    use = f"{name}(1)" if not name.isupper() else f"x = {name}"  # an upper-case name called is a user macro
    found = _found(f"void f() {{ {use}; }}\n", path="k.cpp")
    assert found == [
        ("HC001", name, f"{name} looks like CUDA API but is in no CUDA 11.8–13.0 inventory; left unchanged")
    ]


USER_CODE = """\
#define CUDA_CHECK(cudaCall) do { cudaError_t cudaStatus = (cudaCall); if (cudaStatus) abort(); } while (0)
#define checkCudaErrors(x) CUDA_CHECK(x)
struct cudaTimer { float cudaElapsed; };
static int cudaDeviceCountCache = -1;
void run(int cudaDev, cudaStream_t *cudaStreams, cudaTimer &t) {
  cudaError_t cudaStatus;
  CUDA_CHECK(cudaSetDevice(cudaDev));
  cudaStatus = cudaStreamCreate(&cudaStreams[0]);
  checkCudaErrors(cudaStatus);
  CUDA_SAFE_CALL(cudaDeviceSynchronize());  // a function-like macro of a project header
  float ms = t.cudaElapsed + obj.cudaFooField + mylib::cudaFooHelper();
  // cudaFooBar in a comment, and in a string:
  puts("cudaFooBar CU_FOO");
  if (cudaDeviceCountCache < 0) cudaDeviceCountCache = 0;
}
"""


def test_names_the_file_declares_stay_quiet() -> None:
    result = hipconv.translate_source(USER_CODE, path="k.cpp")
    assert [d for d in result.diagnostics if d.code == "HC001"] == []
    assert "hipSetDevice(cudaDev)" in result.text and "hipStream_t *cudaStreams" in result.text


@pytest.mark.parametrize(
    ("macro", "stem"),
    [
        ("#define CUDA_FN(name) cuda##name", "cuda"),
        ("#define DRV(Name) cu##Name", "cu"),
        ("#define ENUM(x) CUBLAS_##x", "CUBLAS_"),
    ],
)
def test_token_pasting_a_cuda_name_gets_hc001(macro: str, stem: str) -> None:
    [(code, symbol, message)] = _found(macro + "\n", path="k.h")
    assert (code, symbol) == ("HC001", f"{stem}##")
    assert message.startswith(f"{stem}## pastes a CUDA API name together in a macro")


def test_token_pasting_of_other_names_is_quiet() -> None:
    assert _found("#define CAT(a, b) a##b\n#define MY(x) my_##x\n", path="k.h") == []
