"""C++ that nvcc accepts and clang rejects, respelled with the same meaning (HC019, translate/nvcc_syntax.py)."""

from __future__ import annotations

import pytest
from test_translate import translate


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "__device__ float f(float a) { register float v = a; return v; }",
            "__device__ float f(float a) { float v = a; return v; }",
            id="register-local",
        ),
        pytest.param(
            "__global__ void k(register int n) { for (register int i = 0; i < n; ++i) {} }",
            "__global__ void k(int n) { for (int i = 0; i < n; ++i) {} }",
            id="register-parameter-and-loop",
        ),
        pytest.param(
            "__device__ void f() {\n    register\n    float v = 0; }",
            "__device__ void f() {\n    \n    float v = 0; }",
            id="register-alone-on-its-line-keeps-the-line-break",
        ),
        pytest.param(
            "#define ACC(n) register float acc##n = 0\n__global__ void k() { ACC(0); }",
            "#define ACC(n) float acc##n = 0\n__global__ void k() { ACC(0); }",
            id="register-in-a-macro-body",
        ),
        pytest.param(
            'extern "C"__global__ void k() {}',
            'extern "C" __global__ void k() {}',
            id="glued-global",
        ),
        pytest.param(
            'extern "C"__device__ int g;',
            'extern "C" __device__ int g;',
            id="glued-device",
        ),
        pytest.param(
            '#define FMT "%d"\n__global__ void k(int v) { printf("node ("FMT")\\n", v); }',
            '#define FMT "%d"\n__global__ void k(int v) { printf("node (" FMT")\\n", v); }',
            id="glued-macro",
        ),
        pytest.param(
            '__global__ void k(long v) { printf("%"PRId64"\\n", v); }',
            '__global__ void k(long v) { printf("%" PRId64"\\n", v); }',
            id="glued-format-macro",
        ),
        pytest.param(
            "__global__ void k(int a) {}\nvoid f() { k << < 1, 2 >> > (3); }",
            "__global__ void k(int a) {}\nvoid f() { k <<< 1, 2 >>> (3); }",
            id="spaced-chevrons",
        ),
        pytest.param(
            "template <int N> __global__ void k(int a) {}\nvoid f() { k<4> << < g(1, 2), (n > 1) ? 2 : 1 >> > (3); }",
            "template <int N> __global__ void k(int a) {}\nvoid f() { k<4> <<< g(1, 2), (n > 1) ? 2 : 1 >>> (3); }",
            id="spaced-chevrons-template-kernel",
        ),
    ],
)
def test_respelled(src: str, expected: str) -> None:
    text, result = translate(src, path="t.cu")
    assert text == f"#include <hip/hip_runtime.h>\n{expected}"
    assert {d.code for d in result.diagnostics} == {"HC019"}


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("__global__ void k() { /* register float v; */ }", id="register-in-a-comment"),
        pytest.param('__global__ void k() { const char *s = "register"; }', id="register-in-a-string"),
        pytest.param('__global__ void k() { const char *s = "extern \\"C\\"__global__"; }', id="glued-in-a-string"),
        pytest.param('__global__ void k() {} // extern "C"__global__', id="glued-in-a-comment"),
        pytest.param('__device__ void f() { register int r asm("v0"); }', id="gnu-explicit-register-variable"),
        pytest.param('__device__ const char *f() { return "C"__device_name__; }', id="another-suffix"),
        pytest.param('__global__ void k() { auto a = "x"s; auto b = "y"sv; auto c = "z"_km; }', id="literal-suffixes"),
        pytest.param('__global__ void k() { const char *s = "a" "b"; s = "c""d"; }', id="adjacent-strings"),
        pytest.param('__global__ void k() { const char *s = "node "FMT; }', id="glued-name-not-defined-here"),
        pytest.param('#include "mine.h"A\n#define FMT "x"\n__global__ void k() {}', id="glued-in-an-include"),
        pytest.param("__global__ void k(int registers) { int register_count = registers; }", id="longer-names"),
        pytest.param("__global__ void k() {}\nvoid f() { std::operator<< <char>(std::cout, 'a'); }", id="operator<<"),
        pytest.param("__global__ void k() {}\nvoid f() { x = a << < b; y = c >> > d; }", id="shift-and-compare"),
        pytest.param("__global__ void k() {}\n// k << < 1, 1 >> > ();", id="spaced-chevrons-in-a-comment"),
    ],
)
def test_respelled_noop(src: str) -> None:
    text, result = translate(src, path="t.cu")
    assert text == f"#include <hip/hip_runtime.h>\n{src}"
    assert "HC019" not in {d.code for d in result.diagnostics}


def test_a_host_header_without_cuda_is_not_touched() -> None:
    src = "static int sum(register int a, register int b) { return a + b; }\n"
    text, result = translate(src, path="util.h")
    assert text == src and not result.diagnostics


def test_a_device_header_is_respelled() -> None:
    src = "__device__ inline int twice(int a) { register int b = a; return b + b; }\n"
    text, result = translate(src, path="util.h")
    assert text == src.replace("register ", "") and [d.code for d in result.diagnostics] == ["HC019"]


def test_a_host_source_is_the_host_compilers_business() -> None:
    """A .cpp without CUDA is compiled by the host compiler: a suffix glued to a string stays (the property
    tests' "input without CUDA is unchanged")."""
    src = 'const char *s = "str cudaFree"x;\n'
    text, result = translate(src, path="t.cpp")
    assert text == src and "HC019" not in {d.code for d in result.diagnostics}


def test_a_glued_keyword_makes_a_cpp_cuda_on_the_first_run() -> None:
    """nvcc reads `"..."__global__` as a keyword: the .cpp is CUDA at once (runtime included), and a second run
    changes nothing."""
    text, _ = translate('const char *s = "str"__global__;\n', path="t.cpp")
    assert text == '#include <hip/hip_runtime.h>\nconst char *s = "str" __global__;\n'
    assert translate(text, path="t.cpp")[0] == text
