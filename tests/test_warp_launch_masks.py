"""Lane masks and groups whose meaning depends on how a kernel is launched (issue #39 items 3 and 4, #38's masks
held in int): what hipconv reports and writes, look-alikes that stay silent, and runs on HIP-CPU (64-lane
wavefronts) of the translations, with ROCm 6.3's *_sync contract stood in by tests/warp_programs/rocm63/:
a 64-bit mask (static_assert), and, without NDEBUG, exactly the lanes that run the call.

- HC105: a full mask widened to 64 lanes in a kernel a launch of the file gives 32-thread blocks traps; the
  offered form, __activemask(), runs.
- HC101 for an int mask: cast through unsigned int, it compiles and keeps CUDA's 32 bits (lanes 0-31).
- HC106: a scan over a coalesced_group, reported unless every launch of the kernel keeps it within 32 lanes
  (its run is one of tests/warp_programs/, by tests/test_hip_cpu.py).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_hip_cpu import COMPILE_TIMEOUT_S, CXX_FLAGS, RUN_TIMEOUT_S, STAND_INS, missing_tools
from test_translate import translate

from hipconv.api import translate_tree

FIXTURES = Path(__file__).parent / "fixtures"
SYNC_BUILTINS = Path(__file__).parent / "warp_programs" / "rocm63" / "sync_builtins.h"
WIDENED = "0xffffffffffffffffull"
MASK_CODES = frozenset({"HC026", "HC101", "HC102", "HC103", "HC104", "HC105"})

SHUFFLE_KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffff, p[threadIdx.x], 1); }\n"
HELPER = (
    "__device__ float sum(float v) { return v + __shfl_xor_sync(0xffffffff, v, 1); }\n"
    "__global__ void k(float* p) { p[threadIdx.x] = sum(p[threadIdx.x]); }\n"
)


def codes(src: str, *, rocm: str = "6.3") -> list[tuple[int, str]]:
    _, result = translate(src, rocm=rocm, path="k.cu")
    return [(d.line, d.code) for d in result.diagnostics if d.code in MASK_CODES]


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(SHUFFLE_KERNEL + "void run(float* p) { k<<<1, 32>>>(p); }\n", [(1, "HC105")], id="literal"),
        pytest.param(
            SHUFFLE_KERNEL + "#define WARP 32\nvoid run(float* p) { dim3 b(WARP, 1, 1); k<<<8, b>>>(p); }\n",
            [(1, "HC105")],
            id="dim3-of-a-macro",
        ),
        pytest.param(
            SHUFFLE_KERNEL + "void run(float* p) { const int t = 96; k<<<8, t>>>(p); }\n",
            [(1, "HC105")],
            id="96-threads",
        ),
        pytest.param(HELPER + "void run(float* p) { k<<<1, dim3(16, 2)>>>(p); }\n", [(1, "HC105")], id="caller"),
        pytest.param(
            "__global__ void k(float* p) {\n  if (threadIdx.x >= 32) return;\n"
            "  p[0] = __shfl_xor_sync(0xffffffff, p[0], 1);\n}\nvoid run(float* p) { k<<<1, 32>>>(p); }\n",
            [(3, "HC026")],
            id="early-return-wins",
        ),
    ],
)
def test_full_mask_in_a_partial_wavefront_launch(src: str, expected: list[tuple[int, str]]) -> None:
    text, _ = translate(src, path="k.cu")
    assert codes(src) == expected
    assert WIDENED in text  # the rewrite stays; the warning offers __activemask()


@pytest.mark.parametrize(
    "launch",
    [
        pytest.param("k<<<1, 64>>>(p);", id="64"),
        pytest.param("k<<<1, dim3(32, 4)>>>(p);", id="dim3-128"),
        pytest.param("k<<<1, n>>>(p);", id="run-time"),
        pytest.param("other<<<1, 32>>>(p);", id="another-kernel"),
    ],
)
def test_full_mask_launch_noop(launch: str) -> None:
    src = SHUFFLE_KERNEL + "__global__ void other(float* p) {}\nvoid run(float* p, int n) { " + launch + " }\n"
    assert codes(src) == [(1, "HC104")]


def test_full_mask_message_offers_the_exact_form() -> None:
    _, result = translate(SHUFFLE_KERNEL + "void run(float* p) { k<<<1, 32>>>(p); }\n", path="k.cu")
    (found,) = [d for d in result.diagnostics if d.code == "HC105"]
    assert "kernel k is launched with blocks of 32 threads (line 2)" in found.message
    assert "the last wavefront of each block runs 32 lanes" in found.message
    assert found.message.endswith("(pass __activemask(), the lanes that run the call)")


@pytest.mark.parametrize(
    ("declaration", "cast"),
    [
        pytest.param("int m", "static_cast<unsigned long long>(static_cast<unsigned int>(m))", id="int"),
        pytest.param("int32_t m", "static_cast<unsigned long long>(static_cast<unsigned int>(m))", id="int32_t"),
        pytest.param("signed m", "static_cast<unsigned long long>(static_cast<unsigned int>(m))", id="signed"),
        pytest.param("unsigned m", "static_cast<unsigned long long>(m)", id="unsigned"),
    ],
)
def test_mask_held_in_a_32_bit_variable_is_cast(declaration: str, cast: str) -> None:
    """A signed one too (it failed ROCm's static_assert as it stood): through unsigned int, CUDA's 32 bits."""
    src = f"__device__ float f(float v, {declaration}) {{ return __shfl_sync(m, v, 0); }}\n"
    text, _ = translate(src, path="k.cu")
    assert f"__shfl_sync({cast}, v, 0)" in text
    assert codes(src) == [(1, "HC101")]


def test_int_constant_mask_is_cast_as_a_variable() -> None:
    """`const int M = 0xffffffff;` is -1: no mask name hipconv widens (that reads unsigned ones), so it is cast at
    the call like any int mask: CUDA's 32 bits, lanes 0-31, never sign-extended to all 64."""
    src = "const int M = 0xffffffff;\n__device__ float f(float v) { return __shfl_sync(M, v, 0); }\n"
    text, _ = translate(src, path="k.cu")
    assert "__shfl_sync(static_cast<unsigned long long>(static_cast<unsigned int>(M)), v, 0)" in text
    assert "const int M = 0xffffffff;" in text
    assert codes(src) == [(2, "HC101")]


@pytest.mark.parametrize(
    "declaration",
    [
        pytest.param("long long m", id="long-long"),
        pytest.param("unsigned long long m", id="unsigned-long-long"),
        pytest.param("uint64_t m", id="uint64_t"),
    ],
)
def test_mask_held_in_a_64_bit_variable_noop(declaration: str) -> None:
    src = f"__device__ float f(float v, {declaration}) {{ return __shfl_sync(m, v, 0); }}\n"
    text, _ = translate(src, path="k.cu")
    assert "__shfl_sync(m, v, 0)" in text
    assert codes(src) == [(1, "HC103")]


SCAN_HEAD = (
    "#include <cooperative_groups.h>\n#include <cooperative_groups/scan.h>\nnamespace cg = cooperative_groups;\n"
)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("int r = cg::exclusive_scan(cg::coalesced_threads(), 1);", [4], id="factory"),
        pytest.param(
            "cg::coalesced_group g = cg::coalesced_threads(); int r = cg::inclusive_scan(g, 1);", [4], id="named"
        ),
        pytest.param(
            "auto g = cg::coalesced_threads(); int r = cg::inclusive_scan(g, 1, cg::plus<int>());", [4], id="auto"
        ),
        pytest.param(
            "auto t = cg::tiled_partition<32>(cg::this_thread_block()); int r = cg::inclusive_scan(t, 1);",
            [],
            id="tile",
        ),
        pytest.param("auto g = cg::coalesced_threads(); int r = g.shfl_up(1, 1);", [], id="no-scan"),
    ],
)
def test_scan_over_a_coalesced_group(body: str, expected: list[int]) -> None:
    src = (
        SCAN_HEAD
        + "__global__ void k(int* p) { "
        + body
        + " p[threadIdx.x] = r; }\nvoid run(int* p) { k<<<4, 256>>>(p); }\n"
    )
    for rocm in ("5.2", "6.3"):
        _, result = translate(src, rocm=rocm, path="k.cu")
        assert [d.line for d in result.diagnostics if d.code == "HC106"] == expected


@pytest.mark.parametrize(
    ("launches", "reported"),
    [
        pytest.param("k<<<4, 32>>>(p);", False, id="32-threads"),
        pytest.param("k<<<4, 16>>>(p); k<<<4, 32>>>(p);", False, id="all-within-32"),
        pytest.param("k<<<4, 32>>>(p); k<<<4, 64>>>(p);", True, id="one-launch-of-64"),
        pytest.param("k<<<4, n>>>(p);", True, id="run-time"),
        pytest.param("", True, id="no-launch"),
    ],
)
def test_coalesced_scan_within_one_half_noop(launches: str, reported: bool) -> None:
    src = (
        SCAN_HEAD + "__global__ void k(int* p) { p[threadIdx.x] = cg::exclusive_scan(cg::coalesced_threads(), 1); }\n"
        "void run(int* p, int n) { " + launches + " }\n"
    )
    _, result = translate(src, path="k.cu")
    assert any(d.code == "HC106" for d in result.diagnostics) == reported


# --- runs on HIP-CPU, with ROCm 6.3's *_sync contract ---


@pytest.fixture(scope="module")
def hip_cpu() -> None:
    reason = missing_tools()
    if reason is not None:
        print(f"test_warp_launch_masks: skipped: {reason}")
        pytest.skip(reason)


def translate_for_63(case: str, tmp_path: Path) -> tuple[Path, set[tuple[int, str]]]:
    """The fixture's one CUDA file translated for ROCm 6.3 with hipLaunchKernelGGL launches (g++ has no
    `<<<`), and (line, code) of what hipconv reported."""
    out = tmp_path / "out"
    result = translate_tree(FIXTURES / case / "cuda", out, rocm_version="6.3", kernel_launch="hip")
    assert not result.failed, result.failed
    (translated,) = sorted(out.glob("*.cu"))
    return translated, {(d.line, d.code) for d in result.diagnostics}


def run_on_hip_cpu(source: Path, *defines: str) -> subprocess.CompletedProcess[str]:
    binary = source.with_suffix(".bin")
    flags = [*CXX_FLAGS, "-include", str(STAND_INS / "hipcpu_prelude.h"), "-include", str(SYNC_BUILTINS), *defines]
    compiled = subprocess.run(
        ["g++", *flags, "-x", "c++", str(source), "-x", "none", "-o", str(binary), "-ltbb", "-lpthread"],
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT_S,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr[-4000:]
    return subprocess.run([str(binary)], capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)


def lines_with(case: str, text: str) -> list[int]:
    """The lines of the fixture's one CUDA file that hold text."""
    (source,) = sorted((FIXTURES / case / "cuda").glob("*.cu"))
    return [n for n, line in enumerate(source.read_text().splitlines(), 1) if text in line]


def test_widened_full_mask_traps_in_32_thread_blocks_and_activemask_runs(hip_cpu: None, tmp_path: Path) -> None:
    translated, reported = translate_for_63("mask_launch_32", tmp_path)
    row_kernel = lines_with("mask_launch_32", "__shfl_xor_sync(0xffffffff")
    block_kernel = lines_with("mask_launch_32", "__shfl_down_sync(0xffffffff")
    assert len(row_kernel) == 2 and len(block_kernel) == 1
    assert {(n, "HC105") for n in row_kernel} | {(block_kernel[0], "HC104")} <= reported
    widened = run_on_hip_cpu(translated)
    assert widened.returncode != 0
    assert "mask 0xffffffffffffffff is not the lanes that run the call (0xffffffff)" in widened.stderr

    text = translated.read_text()
    assert text.count(WIDENED) == 3
    offered = translated.with_name("offered.cu")
    offered.write_text(text.replace(WIDENED, "__activemask()"))  # what HC105 tells the user to write
    ran = run_on_hip_cpu(offered)
    assert (ran.returncode, ran.stdout) == (0, "PASS: 0 wrong\n"), ran.stderr


def test_int_mask_cast_through_unsigned_compiles_and_keeps_cudas_lanes(hip_cpu: None, tmp_path: Path) -> None:
    translated, reported = translate_for_63("mask_int_variables", tmp_path)
    masks = lines_with("mask_int_variables", "_sync(mask") + lines_with("mask_int_variables", "_sync(lanes")
    assert len(masks) == 2
    assert {(n, "HC101") for n in masks} <= reported
    ran = run_on_hip_cpu(translated)
    assert (ran.returncode, ran.stdout) == (0, "PASS: 0 wrong\n"), ran.stderr


def test_the_function_around_a_token_skips_braces_in_comments_literals_and_inner_blocks() -> None:
    """facts.launch_blocks.function_name walks the file's braces out from a token: braces inside a comment,
    a string or a character literal are not code, and a closed inner block or function is stepped over."""
    from hipconv.translate.facts.launch_blocks import function_name
    from hipconv.translate.lexer import lex

    body = (
        b"__global__ void first(int* p) { if (p) { p[0] = '}'; } }\n"
        b"__global__ void reduce(int* p) {\n"
        b"  // a } in a comment\n"
        b'  const char* s = "{ }}";\n'
        b"  for (int i = 0; i < 4; ++i) { p[i] += 1; }\n"
        b"  p[0] = __shfl_xor_sync(0xffffffff, p[0], 1);\n"
        b"}\n"
        b"int after = 0;\n"
    )
    tokens = lex(body)
    at = {tokens.text(k): k for k in range(len(tokens)) if tokens.text(k) in ("__shfl_xor_sync", "after")}
    assert function_name(tokens, at["__shfl_xor_sync"]) == "reduce"
    assert function_name(tokens, at["after"]) is None
