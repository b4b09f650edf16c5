"""C++ forms of the runtime API that HIP lacks (issue #38): cuda_runtime.h's template cudaHostGetDevicePointer(T **,
void *, unsigned) (hipconv_compat.h adds a template of hipHostGetDevicePointer, HC033, since HIP declares the
void ** function alone) and cudaMalloc3DArray without its defaulted flags (HIP's hipMalloc3DArray has no default:
0 is filled in). cudaMallocHost(T **) and cudaEventCreate(event, flags) need nothing new: HIP's hipHostMalloc is a
template for T ** (5.2, 6.3) and the two-argument cudaEventCreate is hipEventCreateWithFlags (call_forms)."""

from __future__ import annotations

import pytest

from hipconv.api import translate_source

MAPPED = """#include <cuda_runtime.h>
int mapped(unsigned int *host, unsigned int **dev) {
  unsigned int *d = nullptr;
  cudaError_t e = cudaHostGetDevicePointer(&d, host, 0);
  *dev = d;
  return e == cudaSuccess;
}
"""


@pytest.mark.parametrize("rocm", ["5.2", "6.3", "7.2"])
def test_typed_device_pointer_gets_the_template(rocm: str) -> None:
    done = translate_source(MAPPED, rocm_version=rocm)
    assert "hipError_t e = hipHostGetDevicePointer(&d, host, 0);" in done.text
    header = (done.compat_header or b"").decode()
    assert "template <class T>\nstatic inline hipError_t hipHostGetDevicePointer(T** pDevice" in header
    assert [d.code for d in done.diagnostics if d.symbol == "cudaHostGetDevicePointer"] == ["HC033"]


def test_no_compat_leaves_the_template_out() -> None:
    done = translate_source(MAPPED, rocm_version="6.3", compat=False)
    assert "hipconv_compat.h" not in done.text and not done.compat_header


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        pytest.param(
            "cudaMalloc3DArray(&a, &d, make_cudaExtent(8, 8, 8))",
            "hipMalloc3DArray(&a, &d, make_hipExtent(8, 8, 8), 0)",
            id="default-flags-filled",
        ),
        pytest.param(
            "cudaMalloc3DArray(&a, &d, make_cudaExtent(8, 8, 8), cudaArraySurfaceLoadStore)",
            "hipMalloc3DArray(&a, &d, make_hipExtent(8, 8, 8), hipArraySurfaceLoadStore)",
            id="flags-kept",
        ),
    ],
)
def test_malloc_3d_array_flags(call: str, expected: str) -> None:
    src = f"#include <cuda_runtime.h>\nvoid f(cudaArray_t a, cudaChannelFormatDesc d) {{ {call}; }}\n"
    done = translate_source(src, rocm_version="6.3")
    assert f"{{ {expected}; }}" in done.text
    assert not [d for d in done.diagnostics if d.code == "HC007"]
