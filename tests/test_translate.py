"""Unit cases for the matchers, pyupgrade style: (src, expected) pairs and *_noop inputs."""

from __future__ import annotations

import functools

import pytest

from hipconv.results import FileStatus
from hipconv.rules import load_ruleset
from hipconv.settings import Settings, Version
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import translate_one


@functools.cache
def _table(rocm: str, launch: str):
    settings = Settings(Version.parse(rocm), kernel_launch=launch)
    return load_ruleset().table(settings), settings


RUNTIME = "#include <hip/hip_runtime.h>\n"  # a .cpp file holding kernel code gets it, as a .cu file does


def translate(src: str, *, rocm: str = "6.3", launch: str = "chevron", path: str = "t.cpp"):
    table, settings = _table(rocm, launch)
    result = translate_one(SourceFile.from_bytes(path, src.encode()), table, settings)
    text = result.output.decode() if result.output is not None else src
    return text, result


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param("cudaMalloc(&p, n);", "hipMalloc(&p, n);", id="function"),
        pytest.param("cudaStream_t s; cudaEvent_t e;", "hipStream_t s; hipEvent_t e;", id="types"),
        pytest.param(
            "cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);",
            "hipMemcpy(d, h, n, hipMemcpyHostToDevice);",
            id="enumerator",
        ),
        pytest.param("if (e != cudaSuccess) {}", "if (e != hipSuccess) {}", id="success"),
        pytest.param(
            "cudaMemcpyKind::cudaMemcpyDeviceToHost", "hipMemcpyKind::hipMemcpyDeviceToHost", id="qualified-enum"
        ),
        pytest.param("::cudaFree(p);", "::hipFree(p);", id="global-scope"),
        pytest.param(
            "#if 0\ncudaFree(p);\n#else\ncudaFree(q);\n#endif\n",
            "#if 0\nhipFree(p);\n#else\nhipFree(q);\n#endif\n",
            id="inactive-branch",
        ),
        pytest.param("#define FREE(p) cudaFree(p)\n", "#define FREE(p) hipFree(p)\n", id="macro-body"),
        pytest.param("#define F(p) \\\n  cudaFree(p)\n", "#define F(p) \\\n  hipFree(p)\n", id="continued-macro"),
        pytest.param("cuda\\\nFree(p);", "hipFree(p);", id="spliced-identifier"),
        pytest.param("cudaFree(p);\r\ncudaFree(q);\r\n", "hipFree(p);\r\nhipFree(q);\r\n", id="crlf"),
        pytest.param("\tcudaFree(p);   \n", "\thipFree(p);   \n", id="whitespace-kept"),
        pytest.param("#include <cuda_runtime.h>\n", "#include <hip/hip_runtime.h>\n", id="include-angled"),
        pytest.param('#include "cuda_runtime.h"\n', '#include "hip/hip_runtime.h"\n', id="include-quoted"),
        pytest.param("  #  include <cuda_runtime.h>\n", "  #  include <hip/hip_runtime.h>\n", id="include-spaced"),
    ],
)
def test_translate(src: str, expected: str) -> None:
    assert translate(src)[0] == expected


@pytest.mark.parametrize(
    "src",
    [
        pytest.param('const char* s = "cudaMalloc failed";', id="string"),
        pytest.param("// cudaMalloc(&p, n);\n/* cudaFree */", id="comments"),
        pytest.param('auto k = R"(cudaMalloc(&p, n);)";', id="raw-string"),
        pytest.param("char c = 'c'; int cudaMallocX = 0;", id="longer-identifier"),
        pytest.param("obj.cudaMalloc(p); ptr->cudaFree(q);", id="members"),
        pytest.param("mylib::cudaMalloc(p);", id="foreign-namespace"),
        pytest.param("a<b<<c>> x; y = a << 2 >> 1;", id="shifts"),
        pytest.param("int main() { return 0; }\n", id="plain-cpp"),
        pytest.param("", id="empty"),
        pytest.param("\ufeffint x;\r\n", id="bom-crlf"),
        pytest.param("#error cudaMalloc is required\n", id="error-directive"),
    ],
)
def test_translate_noop(src: str) -> None:
    text, result = translate(src)
    assert text == src
    assert result.status is FileStatus.UNCHANGED


def test_bom_is_kept() -> None:
    text, _ = translate("\ufeffcudaFree(p);\n")
    assert text == "\ufeffhipFree(p);\n"


def test_unsupported_api_is_left_with_error() -> None:
    text, result = translate("cudaDeviceFlushGPUDirectRDMAWrites(t, s);")
    assert text.startswith("cudaDeviceFlushGPUDirectRDMAWrites")
    assert [d.code for d in result.diagnostics] == ["HC002"]
    assert result.diagnostics[0].format().startswith("t.cpp:1:1: error[HC002 ")


def test_cuda_api_without_rule_warns() -> None:
    text, result = translate("int v = CUDNN_VERSION;")  # a cuDNN macro with no rule
    assert text == "int v = CUDNN_VERSION;"
    assert [(d.code, d.symbol) for d in result.diagnostics] == [("HC001", "CUDNN_VERSION")]


# ---------------------------------------------------------------- warp intrinsics


def test_shfl_sync_before_6_2_drops_the_mask() -> None:
    text, result = translate("v += __shfl_xor_sync(0xffffffff, v, 16);", rocm="5.2")
    assert text == "v += __shfl_xor(v, 16);"
    assert [d.code for d in result.diagnostics] == ["HC101"]


def test_shfl_sync_keeps_width_and_translates_nested_calls() -> None:
    text, _ = translate("x = __shfl_down_sync(mask, __shfl_xor_sync(mask, v, 1, 16), off, 16);", rocm="5.2")
    assert text == "x = __shfl_down(__shfl_xor(v, 1, 16), off, 16);"


def test_non_literal_mask_dropped_is_reported() -> None:
    _, result = translate("b = __ballot_sync(active, pred);", rocm="5.2")
    assert [d.code for d in result.diagnostics] == ["HC102"]


def test_shfl_sync_on_6_3_widens_the_mask_and_opts_in() -> None:
    text, result = translate("// k\n#include <cuda_runtime.h>\nv = __shfl_xor_sync(0xffffffffu, v, 16);\n", rocm="6.3")
    assert text == (
        "// k\n#ifndef HIP_ENABLE_WARP_SYNC_BUILTINS\n#define HIP_ENABLE_WARP_SYNC_BUILTINS\n#endif\n"
        "#include <hip/hip_runtime.h>\nv = __shfl_xor_sync(0xffffffffffffffffull, v, 16);\n"
    )
    assert [d.code for d in result.diagnostics] == ["HC104"]  # fixed: the full wavefront mask, a note


def test_partial_32bit_mask_on_6_3_keeps_its_value() -> None:
    text, result = translate("v = __shfl_sync(0x0000ffff, v, 0);", rocm="6.3")
    assert "__shfl_sync(0x0000ffffull, v, 0)" in text
    assert "lanes 0-31 only" in result.diagnostics[0].message


def test_variable_mask_on_6_3_gets_a_note() -> None:
    _, result = translate("v = __shfl_sync(m, v, 0);", rocm="6.3")
    assert [d.code for d in result.diagnostics] == ["HC103"]


SHUFFLE = "__global__ void k(float* p) {{\n  float v = p[0];\n{body}  p[0] = v;\n}}\n"


@pytest.mark.parametrize(
    ("definition", "widened", "code"),
    [
        pytest.param("#define FULL_MASK 0xffffffff", "#define FULL_MASK 0xffffffffffffffffull", "HC104", id="macro"),
        pytest.param(
            "const unsigned FULL_MASK = 0xffffffffu;",
            "const unsigned long long FULL_MASK = 0xffffffffffffffffull;",
            "HC104",
            id="const-unsigned",
        ),
        pytest.param(
            "static constexpr std::uint32_t FULL_MASK = 0xFFFFFFFF;",
            "static constexpr std::uint64_t FULL_MASK = 0xffffffffffffffffull;",
            "HC104",
            id="constexpr-uint32",
        ),
        pytest.param(
            "#define FULL_MASK 0x0000ffff", "#define FULL_MASK 0x0000ffffull", "HC101", id="partial-keeps-its-value"
        ),
    ],
)
def test_mask_given_by_name_is_widened_where_it_is_defined(definition: str, widened: str, code: str) -> None:
    """Every use of the name is a kept lane mask: the definition (value and type) is widened, once, and
    each use gets the verdict; a second run changes nothing."""
    body = "  v += __shfl_down_sync(FULL_MASK, v, 1);\n  v += __shfl_xor_sync(FULL_MASK, v, 2);\n"
    src = f"{definition}\n" + SHUFFLE.format(body=body)
    text, result = translate(src, rocm="6.3", path="k.cu")
    assert text.splitlines()[4] == widened and text.count("FULL_MASK") == 3
    assert [(d.code, d.line) for d in result.diagnostics] == [(code, 4), (code, 5)]
    assert "where it is defined (line 1)" in result.diagnostics[0].message
    assert translate(text, rocm="6.3", path="k.cu")[0] == text


def test_mask_name_with_other_uses_is_cast_at_the_call() -> None:
    src = "#define ALL 0xffffffff\n" + SHUFFLE.format(body="  v += __shfl_down_sync(ALL, v, 1);\n  v += (ALL & 1);\n")
    text, result = translate(src, rocm="6.3")
    assert "#define ALL 0xffffffff\n" in text
    assert "__shfl_down_sync(static_cast<unsigned long long>(ALL), v, 1)" in text
    assert [d.code for d in result.diagnostics] == ["HC101"]
    assert "ALL = 0xffffffff covers lanes 0-31 only" in result.diagnostics[0].message
    assert "uses that are not lane masks" in result.diagnostics[0].message


@pytest.mark.parametrize(
    "definition",
    [
        pytest.param("#define M(x) 0xffffffff", id="function-like-macro"),
        pytest.param("#define M 0xffffffff | 0", id="expression"),
    ],
)
def test_mask_names_hipconv_does_not_read_stay_a_note(definition: str) -> None:
    src = f"{definition}\n" + SHUFFLE.format(body="  v += __shfl_down_sync(M, v, 1);\n")
    text, result = translate(src, rocm="6.3")
    assert f"#endif\n{RUNTIME}{definition}\n" in text
    assert [d.code for d in result.diagnostics] == ["HC103"]


@pytest.mark.parametrize(
    ("declaration", "mask"),
    [
        pytest.param("  unsigned M = 0xffffffff;\n", "M", id="not-const"),
        pytest.param("  unsigned active = __activemask();\n", "active", id="computed"),
        pytest.param("  uint32_t M = v > 0 ? 1u : 3u;\n", "M", id="uint32_t"),
    ],
)
def test_mask_variable_of_a_32_bit_type_is_cast_at_the_call(declaration: str, mask: str) -> None:
    """ROCm's *_sync builtins refuse a 32-bit mask at compile time: a variable declared 32-bit is cast at
    the call (HC101, lanes 0-31 only), so that the output compiles."""
    src = SHUFFLE.format(body=f"{declaration}  v += __shfl_down_sync({mask}, v, 1);\n")
    text, result = translate(src, rocm="6.3")
    assert f"__shfl_down_sync(static_cast<unsigned long long>({mask}), v, 1)" in text
    assert declaration in text
    found = [d for d in result.diagnostics if d.code == "HC101" and d.line == 4]
    assert len(found) == 1 and "32 bits, with a value hipconv cannot widen" in found[0].message
    assert translate(text, rocm="6.3")[0] == text


@pytest.mark.parametrize(
    "declaration",
    [
        pytest.param("unsigned long long mask", id="64-bit"),
    ],
)
def test_mask_parameter_of_another_type_stays_a_note(declaration: str) -> None:
    src = f"__device__ float f({declaration}, float v) {{\n  return __shfl_down_sync(mask, v, 1);\n}}\n"
    text, result = translate(src, rocm="6.3")
    assert "__shfl_down_sync(mask, v, 1)" in text
    assert [d.code for d in result.diagnostics] == ["HC103"]


def test_mask_parameter_of_a_32_bit_type_is_cast() -> None:
    src = "__device__ float f(unsigned mask, float v) {\n  return __shfl_down_sync(mask, v, 1);\n}\n"
    text, result = translate(src, rocm="6.3")
    assert "__shfl_down_sync(static_cast<unsigned long long>(mask), v, 1)" in text
    assert [d.code for d in result.diagnostics] == ["HC101"]


def test_mask_given_by_name_dropped_before_6_2_keeps_its_definition() -> None:
    src = "#define FULL_MASK 0xffffffff\n" + SHUFFLE.format(body="  v += __shfl_down_sync(FULL_MASK, v, 1);\n")
    text, result = translate(src, rocm="5.2")
    assert text.startswith(RUNTIME + "#define FULL_MASK 0xffffffff\n") and "__shfl_down(v, 1)" in text
    assert [d.code for d in result.diagnostics] == ["HC101"]
    assert "FULL_MASK = 0xffffffff covers lanes 0-31" in result.diagnostics[0].message


# ---------------------------------------------------------------- kernel launches


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param("k<<<g, b>>>(x, y);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, y);", id="two-config"),
        pytest.param("k<<<g, b, shm>>>(x);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), shm, 0, x);", id="three-config"),
        pytest.param("k<<<g, b, 0, s>>>();", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, s);", id="no-args"),
        pytest.param(
            "k<<<dim3(1, 2), 256>>>(p);", "hipLaunchKernelGGL(k, dim3(1, 2), dim3(256), 0, 0, p);", id="dim3-kept"
        ),
        pytest.param("ns::k<<<g, b>>>(p);", "hipLaunchKernelGGL(ns::k, dim3(g), dim3(b), 0, 0, p);", id="qualified"),
        pytest.param(
            "scale<float, 4><<<g, b, 0, st>>>(p, n);",
            "hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<float, 4>), dim3(g), dim3(b), 0, st, p, n);",
            id="template",
        ),
        pytest.param(
            "k<<<(n + 255) / 256, 256>>>(f(a, b), std::min<int>(x, y), [=](int i) { return i; });",
            "hipLaunchKernelGGL(k, dim3((n + 255) / 256), dim3(256), 0, 0, f(a, b), std::min<int>(x, y), "
            "[=](int i) { return i; });",
            id="nested-args",
        ),
        pytest.param(
            "#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)\n",
            "#define LAUNCH(k, g, b, ...) hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, __VA_ARGS__)\n",
            id="macro-definition",
        ),
        pytest.param(
            "CHECK((k<<<g, b>>>(p), cudaGetLastError()));",
            "CHECK((hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, p), hipGetLastError()));",
            id="macro-argument",
        ),
        pytest.param(
            "k<<<g, b, 0, cudaStreamPerThread>>>(p);",
            "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, hipStreamPerThread, p);",
            id="translated-inside",
        ),
    ],
)
def test_kernel_launch_hip(src: str, expected: str) -> None:
    assert translate(src, launch="hip")[0] == RUNTIME + expected


def test_kernel_launch_chevron_is_kept_by_default() -> None:
    src = "k<<<g, b, 0, s>>>(p);"
    assert translate(src)[0] == RUNTIME + src


def test_unreadable_launch_is_reported() -> None:
    text, result = translate("k<<<g>>>(p);", launch="hip")
    assert text == RUNTIME + "k<<<g>>>(p);"
    assert [d.code for d in result.diagnostics] == ["HC008"]


@pytest.mark.parametrize(
    "src",
    [
        pytest.param('k<<<g, " b\n>>>(p);', id="launch"),
        pytest.param('cudnnAddTensor(h, &a, bD, " b\n, &b, yD, y);', id="statement-template"),
    ],
)
def test_rewrite_over_an_unterminated_literal_is_left(src: str) -> None:
    """The literal runs to its line's end: a rewrite joining lines would put the code after it inside it."""
    text, result = translate(src, launch="hip")
    assert text == (RUNTIME if "<<<" in src else "") + src
    assert [d.code for d in result.diagnostics] in (["HC008"], ["HC007"])
    assert "without its closing quote" in result.diagnostics[0].message


# ---------------------------------------------------------------- implicit runtime include


def test_cu_without_cuda_header_gets_runtime_include_after_leading_comments() -> None:
    src = "// Copyright\n// License\n\n#include <cstdio>\n__global__ void k() {}\n"
    text, _ = translate(src, path="k.cu")
    assert (
        text == "// Copyright\n// License\n\n#include <hip/hip_runtime.h>\n#include <cstdio>\n__global__ void k() {}\n"
    )


def test_cu_insertion_after_a_comment_on_the_code_line() -> None:
    text, _ = translate("/* c */__global__ void k() {}\n", path="k.cu")
    assert text == "/* c */\n#include <hip/hip_runtime.h>\n__global__ void k() {}\n"
    assert translate(text, path="k.cu")[0] == text


def test_cu_insertion_uses_file_newlines() -> None:
    text, _ = translate("/* c */\r\n__global__ void k() {}\r\n", path="k.cu")
    assert text == "/* c */\r\n#include <hip/hip_runtime.h>\r\n__global__ void k() {}\r\n"


def test_cu_with_cuda_header_gets_no_extra_include() -> None:
    text, _ = translate("#include <cuda_runtime.h>\n__global__ void k() {}\n", path="k.cu")
    assert text.count("#include") == 1


def test_plain_cu_without_cuda_constructs_is_untouched() -> None:
    src = "int add(int a, int b) { return a + b; }\n"
    assert translate(src, path="k.cu")[0] == src


@pytest.mark.parametrize(
    ("src", "included"),
    [
        pytest.param("__global__ void k() {}\n", True, id="kernel"),  # only `nvcc -x cu` compiles it
        pytest.param("void f() { k<<<1, 1>>>(); }\n", True, id="launch"),
        pytest.param("int f(int x) { return x + 1; }\n", False, id="host-code"),
        pytest.param("template <class T> bool operator<<<T>(S &, T);\n", False, id="operator-template"),
        pytest.param("#define __device__\n__device__ int f() { return threadIdx; }\n", False, id="defines-it"),
    ],
)
def test_cpp_file_holding_cuda_gets_the_runtime_include(src: str, included: bool) -> None:
    """nvcc includes the CUDA runtime into each file it compiles as CUDA: a .cpp file holding kernel code
    is one (a host compiler rejects it), unless it defines the CUDA words itself, for a host compiler."""
    assert translate(src, path="k.cpp")[0] == (RUNTIME if included else "") + src


def test_cu_with_only_a_library_header_still_gets_the_runtime() -> None:
    text, _ = translate("#include <cuComplex.h>\n__global__ void k() {}\n", path="k.cu")
    assert text == "#include <hip/hip_runtime.h>\n#include <hip/hip_complex.h>\n__global__ void k() {}\n"


# ---------------------------------------------------------------- the runtime before the first HIP include

RT, CG, FP16 = (
    "#include <hip/hip_runtime.h>\n",
    "#include <hip/hip_cooperative_groups.h>\n",
    "#include <hip/hip_fp16.h>\n",
)


@pytest.mark.parametrize(
    ("path", "src", "expected"),
    [
        pytest.param(
            "k.cu",
            "// c\n#include <cooperative_groups.h>\n#include <cuda_runtime.h>\n#include <cstdio>\n",
            f"// c\n{RT}{CG}#include <cstdio>\n",
            id="cu-runtime-after-cg-moves-up",
        ),
        pytest.param(
            "k.cu",
            "#include <cooperative_groups.h>\r\n#ifdef X\r\n#include <cuda_runtime.h>\r\n#endif\r\n",
            "#include <hip/hip_runtime.h>\r\n#include <hip/hip_cooperative_groups.h>\r\n#ifdef X\r\n#endif\r\n",
            id="cu-conditional-runtime-moves-up-crlf",
        ),
        pytest.param(
            "k.cu",
            "#include <cuda_fp16.h>  // half\n#include <cuda_runtime.h>  // runtime\n",
            f"{RT}#include <hip/hip_fp16.h>  // half\n// runtime\n",
            id="cu-runtime-moves-its-comment-stays",
        ),
        pytest.param(
            "k.cu", "#include <hip/hip_cooperative_groups.h>\n#include <hip/hip_runtime.h>\n", f"{RT}{CG}", id="cu-hip"
        ),
        pytest.param("k.cu", "#include <cuda_fp16.h>\n", f"{RT}{FP16}", id="cu-fp16-only"),
        pytest.param(
            "k.cu",
            "#include <cuda_fp16.h>\n#include <cuda_runtime.h> \\\n\n",
            f"{RT}{FP16}",
            id="cu-spliced-runtime-line-moves",
        ),
        pytest.param(
            "k.cuh",
            "int x;\n\\\n#include <cuda_fp16.h>\n",
            f"int x;\n{RT}\\\n{FP16}",
            id="header-insertion-before-spliced-blank-lines",
        ),
        pytest.param(
            "k.cuh",
            "// h\n#ifndef K_CUH\n#define K_CUH\n#include <cstdio>\n#include <cuda_fp16.h>\n#endif\n",
            f"// h\n#ifndef K_CUH\n#define K_CUH\n#include <cstdio>\n{RT}{FP16}#endif\n",
            id="header-inside-its-guard",
        ),
        pytest.param(
            "k.h",
            "#pragma once\n#ifdef HALF\n#include <cuda_fp16.h>\n#endif\n#include <cooperative_groups.h>\n",
            f"{RT}#pragma once\n#ifdef HALF\n{FP16}#endif\n{CG}",
            id="header-first-hip-include-conditional-goes-to-top",
        ),
        pytest.param(
            "k.hpp",
            "#include <cooperative_groups.h>\n#include <cuda_runtime.h>\n",
            f"{RT}{CG}",
            id="header-runtime-after-cg-moves-up",
        ),
        pytest.param(
            "k.cuh",
            "#ifndef A\n#define A\n#endif\n#include <cuda_fp16.h>\n",
            f"#ifndef A\n#define A\n#endif\n{RT}{FP16}",
            id="header-guard-that-closes-early-is-no-guard",
        ),
    ],
)
def test_runtime_comes_before_the_first_hip_include(path: str, src: str, expected: str) -> None:
    """nvcc includes cuda_runtime.h before anything in a .cu file; HIP's cooperative groups (5.x) and
    driver_types.h need hip/hip_runtime.h before them. One copy: a later runtime include moves up."""
    for rocm in ("5.2", "6.3"):
        text, _ = translate(src, rocm=rocm, path=path)
        assert text == expected
        assert translate(text, rocm=rocm, path=path)[0] == text


@pytest.mark.parametrize(
    ("path", "src"),
    [
        pytest.param("k.cu", "#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n", id="cu-runtime-first"),
        pytest.param("k.cuh", "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n", id="header-runtime-first"),
        pytest.param("k.cuh", "#include <cstdio>\nint f();\n", id="header-no-hip-include"),
        pytest.param("k.cpp", "#include <cooperative_groups.h>\n#include <cuda_runtime.h>\n", id="cpp-source"),
    ],
)
def test_runtime_include_noop(path: str, src: str) -> None:
    """Only the paths change: the runtime comes first already, the header includes no HIP header, or
    the file is a C++ source (neither a .cu file nor a header)."""
    text, _ = translate(src, path=path)
    assert text.count("hip_runtime.h") == src.count("cuda_runtime.h")
    assert [line.split("<")[0] for line in text.splitlines()] == [line.split("<")[0] for line in src.splitlines()]


# ---------------------------------------------------------------- qualified names and namespaces

# Made-up libraries, so the mechanism is tested apart from the bundled CUB/Thrust data.
QUALIFIED_RULES = """\
defaults: {library: fakecub, kind: class}
rules:
  - {cuda: fcub, hip: hipfcub, kind: namespace}
  - {cuda: fcub::BlockReduce, hip: hipfcub::BlockReduce}
  - {cuda: fcub::DeviceRadixSort, hip: hipfcub::DeviceRadixSort}
  - {cuda: fcub::WarpExchange, status: unsupported, note: no twin}
  - {cuda: fthrust::cuda, hip: fthrust::hip, kind: namespace, library: fakethrust}
"""


@pytest.fixture(scope="module")
def qualified_table(tmp_path_factory: pytest.TempPathFactory):
    rules = tmp_path_factory.mktemp("rules")
    (rules / "qualified.yaml").write_text(QUALIFIED_RULES)
    settings = Settings(Version.parse("6.3"))
    return load_ruleset([rules]).table(settings), settings


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param("typedef fcub::BlockReduce<int, 128> R;", "typedef hipfcub::BlockReduce<int, 128> R;", id="class"),
        pytest.param(
            "fcub :: DeviceRadixSort::SortPairs(t, n, a, b, c);",
            "hipfcub::DeviceRadixSort::SortPairs(t, n, a, b, c);",
            id="longest-chain",
        ),
        pytest.param("fcub::CachingDeviceAllocator a;", "hipfcub::CachingDeviceAllocator a;", id="namespace-fallback"),
        pytest.param("using namespace fcub;", "using namespace hipfcub;", id="using-namespace"),
        pytest.param("namespace c = fcub;", "namespace c = hipfcub;", id="namespace-alias"),
        pytest.param(
            "fthrust::sort(fthrust::cuda::par.on(s), v.begin(), v.end());",
            "fthrust::sort(fthrust::hip::par.on(s), v.begin(), v.end());",
            id="nested-namespace",
        ),
        pytest.param("int fcub = 3; f(fcub);", "int fcub = 3; f(fcub);", id="variable-named-like-namespace"),
        pytest.param("mylib::fcub::BlockReduce r;", "mylib::fcub::BlockReduce r;", id="foreign-qualifier"),
    ],
)
def test_qualified_names(qualified_table, src: str, expected: str) -> None:
    table, settings = qualified_table
    result = translate_one(SourceFile.from_bytes("q.cpp", src.encode()), table, settings)
    assert (result.output.decode() if result.output else src) == expected


def test_unsupported_qualified_name_is_reported(qualified_table) -> None:
    table, settings = qualified_table
    result = translate_one(SourceFile.from_bytes("q.cpp", b"fcub::WarpExchange<int, 4> x;"), table, settings)
    assert result.output is None
    assert [(d.code, d.symbol) for d in result.diagnostics] == [("HC002", "fcub::WarpExchange")]


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "cub::DeviceRadixSort::SortPairs(t, n, k, k2, v, v2, c);",
            "hipcub::DeviceRadixSort::SortPairs(t, n, k, k2, v, v2, c);",
            id="cub-member",
        ),
        pytest.param("auto p = thrust::cuda::par.on(s);", "auto p = thrust::hip::par.on(s);", id="thrust-backend"),
        pytest.param("#include <cub/cub.cuh>\n", "#include <hipcub/hipcub.hpp>\n", id="cub-include"),
    ],
)
def test_bundled_library_namespaces(src: str, expected: str) -> None:
    assert translate(src)[0] == expected


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "/* c */ #include <cuda_runtime.h>\n",
            "/* c */ #include <hip/hip_runtime.h>\n",
            id="comment-before-directive",
        ),
        pytest.param(
            "int x; /* a\n b */ #include <cuda_runtime.h>\n",
            "int x; /* a\n b */ #include <cuda_runtime.h>\n",
            id="hash-after-code-is-not-a-directive",
        ),
        pytest.param("%:include <cuda_runtime.h>\n", "%:include <hip/hip_runtime.h>\n", id="digraph"),
    ],
)
def test_directive_detection(src: str, expected: str) -> None:
    assert translate(src)[0] == expected


def test_cufft_callbacks_are_experimental() -> None:
    src = "cufftXtSetCallback(plan, (void**)&cb, CUFFT_CB_LD_REAL, nullptr);"
    text, result = translate(src)
    assert text == src
    assert {d.code for d in result.diagnostics} == {"HC005"}
    table, settings = _table("6.3", "chevron")
    experimental = Settings(settings.rocm, experimental=True)
    translated = translate_one(
        SourceFile.from_bytes("t.cpp", src.encode()), load_ruleset().table(experimental), experimental
    )
    assert translated.output == b"hipfftXtSetCallback(plan, (void**)&cb, HIPFFT_CB_LD_REAL, nullptr);"


def test_cudnn_convolution_in_a_declaration_declares_once() -> None:
    src = (
        "void f() {\n  cudnnStatus_t s = cudnnConvolutionForward(h, &a, xD, x, wD, w, cD, algo, ws, n, &b, yD, y);\n"
        "  use(s);\n}\n"
    )
    out, _ = translate(src)
    assert out.count("miopenStatus_t s =") == 1
    assert "miopenStatus_t s = miopenFindConvolutionForwardAlgorithm(h, xD, x, wD, w, cD, yD, y, 1," in out
    assert (
        "if (s == miopenStatusSuccess) s = miopenConvolutionForward(h, &a, xD, x, wD, w, cD, foundPerf_2_21.fwd_algo"
        in out
    )
    assert out.endswith("  use(s);\n}\n")


CONV = "cudnnConvolutionForward(h, &a, xD, x, wD, w, cD, algo, ws, n, &b, yD, y)"
ADD = "cudnnAddTensor(h, &a, bD, bias, &b, yD, y)"


@pytest.mark.parametrize(
    "statement",
    [
        pytest.param(f"s = {CONV}, {ADD};", id="comma"),
        pytest.param(f'cudnnStatus_t s = {CONV} " ;\n{ADD};', id="unterminated-literal-hides-the-semicolon"),
    ],
)
def test_two_statement_rewrites_in_one_statement_are_both_left(statement: str) -> None:
    """Each rebuilds the whole statement, so neither can: both are left with HC007, and a second run
    does the same (found by the slow fuzz lane, where an unterminated string hid a `;`)."""
    src = f"void f() {{\n  {statement}\n}}\n"
    out, result = translate(src, rocm="5.2", path="t.cu")
    assert CONV in out and ADD in out and "miopen" not in out.replace("miopenStatus_t", "")
    assert [(d.code, d.message.split(" ")[0]) for d in result.diagnostics if d.code == "HC007"] == [
        ("HC007", "cudnnConvolutionForward"),
        ("HC007", "cudnnAddTensor"),
    ]
    assert "beside another call whose rewrite takes the statement" in result.diagnostics[0].message
    assert translate(out, rocm="5.2", path="t.cu")[0] == out


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        # a use of cuCtxCreate that is no call: renamed (its params only count a call's arguments)
        pytest.param("\\\n cuCtxCreate", "#include <hip/hip_runtime.h>\n\\\n hipCtxCreate", id="splice-before-code"),
        pytest.param(
            "\\\r\n __global__ void k();\r\n",
            "#include <hip/hip_runtime.h>\r\n\\\r\n __global__ void k();\r\n",
            id="crlf-splice-before-a-kernel",
        ),
    ],
)
def test_cu_insertion_after_a_line_splice_starts_a_line_of_its_own(src: str, expected: str) -> None:
    """A line splice joins the next line to its own: the directive goes before the blank lines that
    splices join to the code, never onto a continued line (found by the idempotence property test: the
    include was added again on every run)."""
    text, _ = translate(src, rocm="5.2", path="k.cu")
    assert text == expected
    assert translate(text, rocm="5.2", path="k.cu")[0] == text
