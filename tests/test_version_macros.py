"""CUDA version and architecture macros tested by value (hipconv/translate/matchers/version_macros.py, pp_expr.py):
(src, expected) pairs of #if lines, *_noop inputs that must stay byte-identical, and the reports."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from test_translate import translate

from helpers import run_cli
from hipconv.api import translate_source

DEVICE = "defined(__HIP_DEVICE_COMPILE__)"
REPO = Path(__file__).resolve().parents[1]


def _line(test: str) -> str:
    return f"#if {test}\nint x;\n#endif\n"


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        pytest.param("__CUDA_ARCH__ >= 700", DEVICE, id="at-least"),
        pytest.param("__CUDA_ARCH__ > 350", DEVICE, id="above"),
        pytest.param("(__CUDA_ARCH__ < 130)", f"!{DEVICE}", id="below-is-host-only"),
        pytest.param("__CUDA_ARCH__ <= 130", f"!{DEVICE}", id="at-most"),
        pytest.param("300 <= __CUDA_ARCH__", DEVICE, id="reversed"),
        pytest.param("defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 200)", DEVICE, id="defined-and-at-least"),
        pytest.param("!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600", "1", id="host-or-new-device"),
        pytest.param("defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600", "0", id="old-device-only"),
        pytest.param("__CUDA_ARCH__ >= 600 && __CUDA_ARCH__ < 700", "0", id="range"),
        pytest.param("__CUDA_ARCH__ >= 700 && defined(USE_FAST)", f"{DEVICE} && defined(USE_FAST)", id="residue"),
        pytest.param("__CUDA_ARCH__ < 700 || defined(SLOW)", f"!{DEVICE} || defined(SLOW)", id="residue-or"),
        pytest.param("CUDART_VERSION < 9000", "0", id="runtime-old"),
        pytest.param("CUDART_VERSION >= 11000", "1", id="runtime-new"),
        pytest.param("CUDA_VERSION >= 12000 && CUDA_VERSION < 13000", "0", id="driver-range"),
        pytest.param("__CUDACC_VER_MAJOR__ > 11 || (__CUDACC_VER_MAJOR__ == 11 && __CUDACC_VER_MINOR__ >= 2)", "1"),
        pytest.param("CUDART_VERSION >= 9000 ? 1 : 0", "1", id="conditional"),
        pytest.param("CUDART_VERSION >= 0x2000", "1", id="hex"),
    ],
)
def test_tests_rewritten(test: str, expected: str) -> None:
    out, result = translate(_line(test))
    assert out == _line(f"{expected} /* hipconv: {test} */")
    assert [d.code for d in result.diagnostics] == ["HC020"]


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("#ifdef ARCH\n#if ARCH >= 700\nint x;\n#endif\n#endif\n", id="own-macro"),
        pytest.param("#if MY_CUDA_ARCH >= 700\nint x;\n#endif\n", id="longer-name"),
        pytest.param("// #if __CUDA_ARCH__ >= 700\nint x;\n", id="comment"),
        pytest.param('const char *s = "__CUDA_ARCH__ >= 700";\n', id="string"),
        pytest.param(f"#if {DEVICE} /* hipconv: __CUDA_ARCH__ >= 700 */\nint x;\n#endif\n", id="translated"),
    ],
)
def test_version_macros_noop(src: str) -> None:
    out, result = translate(src)
    assert out == src
    assert not [d for d in result.diagnostics if d.code in ("HC020", "HC021", "HC022", "HC312")]


@pytest.mark.parametrize(
    ("test", "why"),
    [
        pytest.param("__CUDA_ARCH__ == 800", "compared with one architecture", id="equal"),
        pytest.param("__CUDA_ARCH__ != 900", "compared with one architecture", id="not-equal"),
        pytest.param("__CUDA_ARCH__ / 100 >= 7", "computed with", id="arithmetic"),
        pytest.param("__CUDA_ARCH__ >= MIN_ARCH", "whose value is unknown", id="unknown-bound"),
        pytest.param("MAX(__CUDA_ARCH__, 300) > 500", "function-like macro", id="macro-argument"),
    ],
)
def test_undecidable_reported_with_hip_reading(test: str, why: str) -> None:
    src = _line(test)
    out, result = translate(src)
    assert out == src
    (found,) = result.diagnostics
    assert found.code == "HC021" and why in found.message and "HIP defines no __CUDA_ARCH__" in found.message


def test_code_comparison_rewritten_value_use_spelled() -> None:
    src = "__device__ int banks() {\n  int b = (__CUDA_ARCH__ >= 200) ? 32 : 16;\n  return b + __CUDA_ARCH__;\n}\n"
    out, result = translate(src, path="t.cu")
    assert "(1 /* hipconv: __CUDA_ARCH__ >= 200 */) ? 32 : 16" in out
    assert "return b + HIPCONV_CUDA_ARCH;" in out
    assert [(d.line, d.code) for d in result.diagnostics] == [(2, "HC020"), (3, "HC011")]
    assert "-DHIPCONV_CUDA_ARCH=N sets another value" in result.diagnostics[1].message
    assert result.shims == frozenset({"HIPCONV_CUDA_ARCH"})


def test_code_comparison_inside_arithmetic_is_not_split() -> None:
    src = "__device__ int f(int x) { return x + __CUDA_ARCH__ >= 700; }\n"
    out, result = translate(src, path="t.cu")
    assert "x + HIPCONV_CUDA_ARCH >= 700" in out
    assert [d.code for d in result.diagnostics] == ["HC011"]


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "#define NEW_GPU (__CUDA_ARCH__ >= 700)\n__device__ int f() { return NEW_GPU ? 2 : 1; }\n",
            "#define NEW_GPU (HIPCONV_CUDA_ARCH >= 700)\n",
            id="test-used-in-code",
        ),
        pytest.param(
            "#define SM __CUDA_ARCH__\n#if SM >= 700\n#endif\n", "#define SM HIPCONV_CUDA_ARCH\n", id="a-value"
        ),
        pytest.param(
            "#define AT_LEAST(n) (__CUDA_ARCH__ >= n)\n",
            "#define AT_LEAST(n) (HIPCONV_CUDA_ARCH >= n)\n",
            id="function",
        ),
        pytest.param(
            '#define SHOW() printf("sm %d\\n", __CUDA_ARCH__)\n',
            '#define SHOW() printf("sm %d\\n", HIPCONV_CUDA_ARCH)\n',
            id="printf",
        ),
    ],
)
def test_value_in_a_macro_body_spelled_for_hip(src: str, expected: str) -> None:
    out, result = translate(src, path="t.cu")
    assert expected in out
    assert [d.code for d in result.diagnostics] == ["HC011"] and result.shims == frozenset({"HIPCONV_CUDA_ARCH"})
    again, second = translate(out, path="t.cu")
    assert again == out and not second.diagnostics


@pytest.mark.parametrize(
    ("body", "dead"),
    [
        pytest.param("#if __CUDA_ARCH__ < 300\n  y[0] = 1;\n#endif\n", True, id="old-arch-only"),
        pytest.param("#if __CUDA_ARCH__ == 800\n  y[0] = 1;\n#endif\n", True, id="undecidable"),
        pytest.param("#if CUDART_VERSION >= 14000\n  y[0] = 1;\n#endif\n", True, id="future-release"),
        pytest.param("#if __CUDA_ARCH__ >= 700\n  y[0] = 1;\n#endif\n", False, id="current-arch"),
        pytest.param("#if __CUDA_ARCH__ == 800\n  y[0] = 1;\n#else\n  y[0] = 2;\n#endif\n", False, id="else"),
        pytest.param("  y[1] = 0;\n#if __CUDA_ARCH__ < 300\n  y[0] = 1;\n#endif\n", False, id="partly"),
        pytest.param("#if __CUDA_ARCH__ >= 700 && defined(X)\n  y[0] = 1;\n#endif\n", False, id="unknown"),
    ],
)
def test_dead_kernel_body(body: str, dead: bool) -> None:
    src = f"__global__ void __launch_bounds__(64) k(int *y)\n{{\n{body}}}\n"
    _, result = translate(src, path="t.cu")
    found = [d for d in result.diagnostics if d.code == "HC022"]
    assert bool(found) == dead
    if dead:
        assert found[0].line == 1 and "kernel k" in found[0].message


def test_elif_chain_keeps_each_branch() -> None:
    src = "#if __CUDA_ARCH__ >= 800\nint a;\n#elif __CUDA_ARCH__ >= 600\nint b;\n#else\nint c;\n#endif\n"
    out, _ = translate(src)
    assert out.splitlines()[0] == f"#if {DEVICE} /* hipconv: __CUDA_ARCH__ >= 800 */"
    assert out.splitlines()[2] == f"#elif {DEVICE} /* hipconv: __CUDA_ARCH__ >= 600 */"


def test_translation_is_idempotent() -> None:
    once, _ = translate(_line("!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600"))
    twice, result = translate(once)
    assert twice == once and not result.diagnostics


def test_kernel_defined_in_a_dead_branch_is_not_an_empty_body() -> None:
    src = (
        "#if __CUDA_ARCH__ >= 120\n__global__ void k(int *y) { y[0] = 1; }\n"
        "#else\n__global__ void k(int *y) {\n#if __CUDA_ARCH__ < 100\n  y[0] = 2;\n#endif\n}\n#endif\n"
    )
    _, result = translate(src, path="t.cu")
    assert [d.code for d in result.diagnostics] == ["HC020", "HC020"]


@pytest.mark.parametrize(
    ("release", "expected"),
    [
        pytest.param(None, "1", id="default-newest-bundled"),
        pytest.param("10.2", "0", id="written-for-10.2"),
        pytest.param("11.0", "1", id="written-for-11.0"),
        pytest.param("9.2.148", "0", id="patch-release"),
    ],
)
def test_cuda_release_gives_the_version_macros(release: str | None, expected: str) -> None:
    test = "CUDART_VERSION >= 11000 && __CUDACC_VER_MAJOR__ >= 11"
    result = translate_source(_line(test), path="t.cu", cuda_release=release)
    assert f"#if {expected} /* hipconv: {test} */" in result.text
    (note,) = [d for d in result.diagnostics if d.code == "HC020"]
    shown = release.rsplit(".", 1)[0] if release and release.count(".") == 2 else release or "13.0"
    assert f"CUDA {shown}'s CUDART_VERSION, __CUDACC_VER_MAJOR__ (--cuda-release)" in note.message


@pytest.mark.parametrize("bad", ["8.0", "14.0", "twelve", "12"])
def test_cuda_release_refused_clearly(bad: str, tmp_path: Path) -> None:
    src = tmp_path / "a.cu"
    src.write_text(_line("CUDART_VERSION < 9000"))
    run = run_cli("translate", "--dry-run", "--cuda-release", bad, src)
    assert run.code == 2 and f"CUDA {bad!r} is not a release" in run.stderr and "9.0 to 13.x" in run.stderr


def test_cuda_release_from_the_configuration_and_the_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".hipconv.toml").write_text('cuda-release = "10.2"\n')
    (tmp_path / "a.cu").write_text(_line("CUDART_VERSION < 11000"))
    assert "#if 1 /* hipconv:" in run_cli("translate", "--diff", "a.cu").stdout.decode()
    assert "#if 0 /* hipconv:" in run_cli("translate", "--diff", "--cuda-release", "12.4", "a.cu").stdout.decode()
    (tmp_path / ".hipconv.toml").write_text('cuda-release = "7.5"\n')
    run = run_cli("scan", "a.cu")
    assert run.code == 2 and "cuda-release: CUDA '7.5' is not a release" in run.stderr


@pytest.mark.parametrize(
    ("directive", "expected"),
    [
        pytest.param("#ifdef CUDART_VERSION", "#if 1 /* hipconv: #ifdef CUDART_VERSION */", id="ifdef"),
        pytest.param("#ifndef CUDA_VERSION", "#if 0 /* hipconv: #ifndef CUDA_VERSION */", id="ifndef"),
        pytest.param(
            "#  ifdef __CUDACC_VER_MAJOR__", "#  if 1 /* hipconv: #ifdef __CUDACC_VER_MAJOR__ */", id="indent"
        ),
    ],
)
def test_ifdef_of_a_version_macro_is_the_defined_test(directive: str, expected: str) -> None:
    src = f"{directive}\nint x;\n#else\nint y;\n#endif\n"
    out, result = translate(src)
    assert out == src.replace(directive, expected)
    assert [d.code for d in result.diagnostics] == ["HC020"]
    same, _ = translate(
        src.replace(directive, f"#if {'!' if 'ifndef' in directive else ''}defined({directive.split()[-1]})")
    )
    assert same.splitlines()[0].split(" /*")[0] == expected.split(" /*")[0].replace("#  if", "#if")


def test_elifdef_of_a_version_macro() -> None:
    out, _ = translate("#if defined(FOO)\nint x;\n#elifdef CUDART_VERSION\nint y;\n#endif\n")
    assert out.splitlines()[2] == "#elif 1 /* hipconv: #elifdef CUDART_VERSION */"


DEFINED_FROM_A_TEST = """\
#define NEW_GPU (__CUDA_ARCH__ >= 700)
#define OLD_RUNTIME (CUDART_VERSION < 9000)
#if NEW_GPU && !OLD_RUNTIME
int fast;
#endif
#ifdef NEW_GPU
int known;
#endif
#undef OLD_RUNTIME
"""


def test_macro_defined_from_a_test_and_tested_by_if_is_rewritten() -> None:
    out, result = translate(DEFINED_FROM_A_TEST)
    assert out.splitlines()[:2] == [
        "#define NEW_GPU __HIP_DEVICE_COMPILE__ /* hipconv: (__CUDA_ARCH__ >= 700) */",
        "#define OLD_RUNTIME 0 /* hipconv: (CUDART_VERSION < 9000) */",
    ]
    assert [(d.line, d.code) for d in result.diagnostics] == [(1, "HC020"), (2, "HC020")]
    assert "what it selects is compiled for AMD devices only" in result.diagnostics[0].message


@pytest.mark.parametrize(
    ("src", "code", "said"),
    [
        pytest.param(
            "#define NEW_RT (CUDART_VERSION >= 9000 && __CUDA_ARCH__ >= 700)\nint f() { return NEW_RT; }\n",
            "HC021",
            "used outside preprocessor conditionals (line 2)",
            id="used-in-code",
        ),
        pytest.param("#define IS_A100 (__CUDA_ARCH__ == 800)\n", "HC021", "compared with one architecture", id="equal"),
    ],
)
def test_macro_defined_from_a_test_otherwise_reported(src: str, code: str, said: str) -> None:
    out, result = translate(src, path="t.cu")
    assert out.endswith(src)  # left as written
    assert [d.code for d in result.diagnostics] == [code] and said in result.diagnostics[0].message


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "#if CUDART_VERSION /* runtime */ >= 9000 // shfl_sync\n",
            "#if 1 /* hipconv: CUDART_VERSION >= 9000 */ /* runtime */ // shfl_sync\n",
            id="if",
        ),
        pytest.param(
            "#define HAS_SYNC (CUDART_VERSION >= /* Volta */ 9000)\n#if HAS_SYNC\n",
            "#define HAS_SYNC 1 /* hipconv: (CUDART_VERSION >= 9000) */ /* Volta */\n#if HAS_SYNC\n",
            id="define",
        ),
    ],
)
def test_comments_inside_a_rewritten_test_are_kept(src: str, expected: str) -> None:
    out, _ = translate(src + "#endif\n")
    assert out == expected + "#endif\n"


def test_branch_conditions_spell_the_rewritten_tests() -> None:
    """A duplicate that translation makes is kept where the first is not compiled, as HIP reads the test."""
    src = (
        "#if CUDART_VERSION >= 9000 && defined(USE_DRIVER)\nvoid report(cudaStream_t s, int code = 0) { }\n#endif\n"
        "void report(CUstream stream, int) { }\n"
        "#ifdef CUDART_VERSION\nvoid show(cudaStream_t s) { }\n#endif\nvoid show(CUstream s) { }\n"
    )
    out, _ = translate(src)
    assert "#if !defined(USE_DRIVER)  // hipconv: as translated, a redefinition of report(hipStream_t, int)" in out
    assert "#if !1  // hipconv: as translated, a redefinition of show(hipStream_t) above" in out


PROJECT_CONSTANTS = "#define LIB_CC_VOLTA 700\n#define LIB_CC_AMPERE (LIB_CC_VOLTA + 100)\n"


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        pytest.param("__CUDA_ARCH__ >= LIB_CC_AMPERE", DEVICE, id="built-from-another"),
        pytest.param("__CUDA_ARCH__ < LIB_CC_VOLTA", f"!{DEVICE}", id="below"),
        pytest.param("defined(LIB_CC_VOLTA) && __CUDA_ARCH__ >= LIB_CC_VOLTA", DEVICE, id="defined-too"),
    ],
)
def test_project_constants_are_folded(test: str, expected: str) -> None:
    out, result = translate(PROJECT_CONSTANTS + _line(test))
    assert out == PROJECT_CONSTANTS + _line(f"{expected} /* hipconv: {test} */")
    assert [d.code for d in result.diagnostics] == ["HC020"]


@pytest.mark.parametrize(
    "defines",
    [
        pytest.param("#ifdef OLD\n#define LIB_CC 600\n#else\n#define LIB_CC 700\n#endif\n", id="two-values"),
        pytest.param("#define LIB_CC 700\n#undef LIB_CC\n", id="undefined"),
        pytest.param("#define LIB_CC LIB_BASE + 700\n", id="built-from-unknown"),
        pytest.param("#define LIB_CC(x) 700\n", id="function-like"),
    ],
)
def test_project_constant_not_known_stays_undecidable(defines: str) -> None:
    _, result = translate(defines + _line("__CUDA_ARCH__ >= LIB_CC"))
    assert [d.code for d in result.diagnostics] == ["HC021"]
    assert "whose value is unknown" in result.diagnostics[0].message


def test_project_constants_from_an_included_header(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "arch.cuh").write_text("#pragma once\n" + PROJECT_CONSTANTS)
    (tmp_path / "src" / "k.cu").write_text('#include "arch.cuh"\n' + _line("__CUDA_ARCH__ >= LIB_CC_AMPERE"))
    run = run_cli("translate", "--rocm-version", "6.3", "-o", tmp_path / "out", tmp_path / "src")
    assert run.code == 0, run.stderr
    out = (tmp_path / "out" / "k.cu").read_text()
    assert f"#if {DEVICE} /* hipconv: __CUDA_ARCH__ >= LIB_CC_AMPERE */" in out
    assert "HC021" not in run.stderr


def _first_test(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("#if"))


PTX_LANE = 'asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));'


@pytest.mark.parametrize(
    ("src", "expected", "why"),
    [
        pytest.param(
            f"#if __CUDA_ARCH__ >= 800\n  {PTX_LANE}\n#else\n  id = threadIdx.x % warpSize;\n#endif\n",
            "#if 0 /* hipconv: __CUDA_ARCH__ >= 800 */",
            "holds inline PTX (mov.u32), so AMD devices take the portable branch of line 5",
            id="ptx-then-portable-else",
        ),
        pytest.param(
            "#if __CUDA_ARCH__ >= 800\n  nvcuda::wmma::fill_fragment(f, 0);\n"
            "#elif __CUDA_ARCH__ >= 600\n  id = 1;\n#endif\n",
            "#if 0 /* hipconv: __CUDA_ARCH__ >= 800 */",
            "holds `nvcuda`, the nvcuda::wmma tensor-core API",
            id="wmma-then-older-arch",
        ),
        pytest.param(
            "#if __CUDA_ARCH__ >= 700\n  __nanosleep(100);\n  id = 1;\n#else\n  id = 2;\n#endif\n",
            "#if 0 /* hipconv: __CUDA_ARCH__ >= 700 */",
            "holds `__nanosleep`, which HIP lacks (unsupported for this target)",
            id="a-name-the-rules-say-hip-lacks",
        ),
        pytest.param(
            f"#if __CUDA_ARCH__ < 700\n  id = threadIdx.x % warpSize;\n#else\n  {PTX_LANE}\n#endif\n",
            "#if 1 /* hipconv: __CUDA_ARCH__ < 700 */",
            "AMD devices take the portable branch of line 3",
            id="portable-first",
        ),
    ],
)
def test_nvidia_only_branch_gives_way_on_the_amd_device_pass(src: str, expected: str, why: str) -> None:
    body = f"__device__ int lane(float *f) {{\n  int id = 0;\n{src}  return id;\n}}\n"
    out, result = translate(body, path="t.cu")
    assert _first_test(out) == expected
    notes = [d for d in result.diagnostics if d.code == "HC020"]
    assert notes and why in notes[0].message and not [d for d in result.diagnostics if d.code == "HC028"]


def test_nvidia_only_branch_without_a_portable_sibling_is_an_error() -> None:
    src = f"__device__ int lane() {{\n  int id = 0;\n#if __CUDA_ARCH__ >= 700\n  {PTX_LANE}\n#endif\n  return id;\n}}\n"
    out, result = translate(src, path="t.cu")
    assert _first_test(out) == f"#if {DEVICE} /* hipconv: __CUDA_ARCH__ >= 700 */"
    assert [(d.line, d.code, d.severity.value) for d in result.diagnostics] == [(4, "HC028", "error")]
    assert "inline PTX (mov.u32) in the branch of line 3" in result.diagnostics[0].message


@pytest.mark.parametrize(
    ("src", "expected", "defines"),
    [
        pytest.param(
            "#if __CUDA_ARCH__ < 600\n__device__ double atomicAdd(double *a, double v) { return *a += v; }\n#endif\n",
            "#if 0 /* hipconv: __CUDA_ARCH__ < 600 */",
            "atomicAdd",
            id="double-atomicAdd",
        ),
        pytest.param(
            "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 800\n"
            "__device__ __half __hmax_nan(__half a, __half b) { return a; }\n#else\nint native;\n#endif\n",
            "#if 0 /* hipconv: !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 800 */",
            "__hmax_nan",
            id="hmax-nan-with-else",
        ),
    ],
)
def test_fallback_of_a_function_hip_declares_is_off_on_both_passes(src: str, expected: str, defines: str) -> None:
    out, result = translate(src, path="t.cu")
    assert _first_test(out) == expected
    (note,) = result.diagnostics
    assert note.code == "HC020" and f"defines {defines}, which HIP declares on both passes (ROCm 6.3)" in note.message


def test_fallback_of_a_function_newer_than_the_target_stays() -> None:
    src = "#if __CUDA_ARCH__ < 800\n__device__ __half __hmax_nan(__half a, __half b) { return a; }\n#endif\n"
    out, _ = translate(src, rocm="5.2", path="t.cu")  # HIP declares __hmax_nan from ROCm 5.7
    assert _first_test(out) == f"#if !{DEVICE} /* hipconv: __CUDA_ARCH__ < 800 */"


@pytest.mark.parametrize("hip_test", ["defined(__HIPCC__)", "defined(__HIP_PLATFORM_AMD__)", "__HIP__"])
def test_a_chain_keeps_its_hip_branch_live(hip_test: str) -> None:
    src = f"#if __CUDA_ARCH__ >= 700\nint a;\n#elif {hip_test}\nint h;\n#else\nint c;\n#endif\n"
    out, result = translate(src)
    assert out.splitlines()[0] == "#if 0 /* hipconv: __CUDA_ARCH__ >= 700 */"
    assert out.splitlines()[2] == f"#elif {hip_test}"  # never rewritten
    assert "the chain's own HIP branch" in result.diagnostics[0].message


def test_hip_branch_on_the_device_pass_only() -> None:
    src = "#if CUDART_VERSION >= 11000\nint a;\n#elif defined(__HIP_DEVICE_COMPILE__)\nint h;\n#endif\n"
    out, _ = translate(src)
    assert out.splitlines()[0] == f"#if !{DEVICE} /* hipconv: CUDART_VERSION >= 11000 */"


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("#if defined(__HIPCC__)\nint h;\n#elif defined(USE_CUDA)\nint c;\n#endif\n", id="hip-first"),
        pytest.param("#ifdef __HIP_PLATFORM_AMD__\nint h;\n#else\nint c;\n#endif\n", id="hip-ifdef"),
    ],
)
def test_hip_chains_without_cuda_tests_noop(src: str) -> None:
    out, result = translate(src)
    assert out == src and not result.diagnostics


def test_branch_contents_do_not_decide_an_unknown_reading() -> None:
    """The device reading depends on FAST: the test is rewritten as before, and nothing is said of the PTX."""
    src = (
        f"__device__ int lane() {{\n  int id = 0;\n#if __CUDA_ARCH__ >= 700 && defined(FAST)\n  {PTX_LANE}\n"
        "#else\n  id = 1;\n#endif\n  return id;\n}\n"
    )
    out, result = translate(src, path="t.cu")
    assert _first_test(out) == f"#if {DEVICE} && defined(FAST) /* hipconv: __CUDA_ARCH__ >= 700 && defined(FAST) */"
    assert [d.code for d in result.diagnostics] == ["HC020"]


def _doc_blocks(lang: str) -> list[str]:
    page = (REPO / "docs" / "version-macros.md").read_text(encoding="utf-8")
    # fences paired in order, so that a plain ``` block is not read from the end of another one
    return [body for kind, body in re.findall(r"(?ms)^```(\w*)\n(.*?)^```$", page) if kind == lang]


def test_the_page_command_does_what_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/version-macros.md: its program, its command, the lines it shows on stdout and stderr."""
    (program,) = _doc_blocks("cuda")
    (tmp_path / "reduce.cu").write_text(program, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    (command,) = _doc_blocks("sh")
    argv = shlex.split(command)
    assert argv[0] == "hipconv"
    run = run_cli(*argv[1:])
    assert run.code == 0
    out = run.stdout.decode().splitlines()
    for line in _doc_blocks("text")[0].splitlines():
        assert line in out
    shown = " ".join(_doc_blocks("")[0].split())
    assert shown in " ".join(run.stderr.split()), run.stderr
    assert "(docs/version-macros.md)" in (REPO / "README.md").read_text(encoding="utf-8")


def test_value_use_without_shims_is_reported_and_kept() -> None:
    src = '#define SHOW() printf("%d", __CUDA_ARCH__)\n__device__ int f() { return __CUDA_ARCH__; }\n'
    result = translate_source(src, path="t.cu", compat=False)
    assert result.text.endswith(src)
    assert [(d.line, d.code) for d in result.diagnostics] == [(1, "HC312"), (2, "HC021")]
    assert "drop --no-compat for HIPCONV_CUDA_ARCH" in result.diagnostics[1].message


# feature macros (facts/feature_macros.py): an architecture test that only defines a macro, whose tests hold
# the NVIDIA-only code
FEATURE_DEFINE = "#define LIB_CC_TURING 750\n#if __CUDA_ARCH__ >= LIB_CC_TURING\n#define LIB_TURING_MMA\n#endif\n"
PTX_PAIR = 'asm volatile("ldmatrix.sync.aligned.m8n8.x2.b16 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(p));'


def _load(test: str, fallback: str | None = "a = p[0]; b = p[1];", other: str = "#else") -> str:
    tail = f"{other}\n  {fallback}\n#endif\n" if fallback is not None else "#endif\n"
    return f"__device__ void load2(int &a, int &b, const int *p) {{\n{test}\n  {PTX_PAIR}\n{tail}}}\n"


FEATURE_OFF = "#if 0 /* hipconv: __CUDA_ARCH__ >= LIB_CC_TURING */"
FEATURE_WHY = (
    "defines LIB_TURING_MMA, whose branches hold inline PTX (ldmatrix.sync) at t.cu:{line}: AMD devices leave "
    "LIB_TURING_MMA undefined (no branch of the chain is taken)"
)


@pytest.mark.parametrize(
    ("use", "line"),
    [
        pytest.param(_load("#ifdef LIB_TURING_MMA"), 7, id="ifdef"),
        pytest.param(_load("#if defined(LIB_AMD_MFMA) || defined(LIB_TURING_MMA)"), 7, id="defined-or"),
        pytest.param(_load("#if defined(LIB_AMD_MFMA)\n  a = 0;\n#elif defined(LIB_TURING_MMA)"), 9, id="elif"),
        pytest.param(
            "__device__ void load2(int &a, int &b, const int *p) {\n#ifndef LIB_TURING_MMA\n  a = p[0]; b = p[1];\n"
            f"#else\n  {PTX_PAIR}\n#endif\n}}\n",
            9,
            id="ifndef-fallback-first",
        ),
    ],
)
def test_feature_macro_whose_use_holds_ptx_is_off_on_amd(use: str, line: int) -> None:
    out, result = translate(FEATURE_DEFINE + use, path="t.cu")
    assert _first_test(out) == FEATURE_OFF
    assert PTX_PAIR in out  # the use is kept as written: LIB_TURING_MMA undefined selects its fallback
    notes = [d for d in result.diagnostics if d.code == "HC020"]
    assert [d.line for d in notes] == [2] and FEATURE_WHY.format(line=line) in notes[0].message
    assert not [d for d in result.diagnostics if d.code == "HC028"]


def test_feature_macro_with_a_portable_use_and_a_ptx_use() -> None:
    portable = "__device__ int tile() {\n#ifdef LIB_TURING_MMA\n  return 16;\n#else\n  return 8;\n#endif\n}\n"
    out, result = translate(FEATURE_DEFINE + portable + _load("#ifdef LIB_TURING_MMA"), path="t.cu")
    assert _first_test(out) == FEATURE_OFF
    assert "at t.cu:14" in next(d.message for d in result.diagnostics if d.code == "HC020")


@pytest.mark.parametrize(
    "use",
    [
        pytest.param("__device__ int tile() {\n#ifdef LIB_TURING_MMA\n  return 16;\n#else\n  return 8;\n#endif\n}\n"),
        pytest.param(_load("#ifdef LIB_OTHER_FEATURE"), id="ptx-under-a-macro-no-arch-test-defines"),
    ],
)
def test_feature_macro_whose_uses_are_portable_noop(use: str) -> None:
    out, result = translate(FEATURE_DEFINE + use, path="t.cu")
    assert _first_test(out) == f"#if {DEVICE} /* hipconv: __CUDA_ARCH__ >= LIB_CC_TURING */"
    assert "LIB_TURING_MMA" not in " ".join(d.message for d in result.diagnostics)
    assert not [d for d in result.diagnostics if d.code == "HC028"]


def test_feature_macro_use_without_a_fallback_is_an_error() -> None:
    out, result = translate(FEATURE_DEFINE + _load("#ifdef LIB_TURING_MMA", fallback=None), path="t.cu")
    assert _first_test(out) == FEATURE_OFF  # still off: PTX never reaches AMD devices
    errors = [(d.line, d.code, d.severity.value, d.symbol) for d in result.diagnostics if d.code == "HC028"]
    assert errors == [(7, "HC028", "error", "LIB_TURING_MMA")]
    message = next(d.message for d in result.diagnostics if d.code == "HC028")
    assert "inline PTX (ldmatrix.sync) in the branch of line 6, taken where LIB_TURING_MMA is defined" in message


def test_feature_macro_across_files(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "common.cuh").write_text("#pragma once\n" + FEATURE_DEFINE)
    (src / "load.cuh").write_text('#pragma once\n#include "common.cuh"\n' + _load("#ifdef LIB_TURING_MMA"))
    (src / "k.cu").write_text(
        '#include "load.cuh"\n__global__ void k(int *o, const int *p) { load2(o[0], o[1], p); }\n'
    )
    run = run_cli("translate", "--rocm-version", "6.3", "-o", tmp_path / "out", src)
    assert run.code == 0, run.stderr
    assert FEATURE_OFF in (tmp_path / "out" / "common.cuh").read_text()
    assert "whose branches hold inline PTX (ldmatrix.sync) at load.cuh:5" in " ".join(run.stderr.split())
    alone = run_cli("translate", "--rocm-version", "6.3", "-o", tmp_path / "alone", src / "common.cuh")
    assert f"#if {DEVICE} /* hipconv: __CUDA_ARCH__ >= LIB_CC_TURING */" in (tmp_path / "alone").read_text()
    assert alone.code == 0, alone.stderr


def test_the_page_feature_macro_example(tmp_path: Path) -> None:
    """docs/version-macros.md, Feature macros: its two files (each after a `// name` line), and the note it quotes."""
    (block,) = _doc_blocks("cpp")
    for part in block.strip().split("\n\n"):
        (tmp_path / "src").mkdir(exist_ok=True)
        (tmp_path / "src" / part.partition("\n")[0].removeprefix("// ")).write_text(part + "\n")
    run = run_cli("translate", "--rocm-version", "6.3", "-o", tmp_path / "out", tmp_path / "src")
    assert run.code == 0, run.stderr
    page = (REPO / "docs" / "version-macros.md").read_text(encoding="utf-8")
    (note,) = re.findall(r"`(defines MYLIB_TURING_MMA, [^`]*)`", page)
    assert note in " ".join(run.stderr.split())
    assert "#if 0 /* hipconv: __CUDA_ARCH__ >= MYLIB_CC_TURING */" in (tmp_path / "out" / "common.cuh").read_text()


@pytest.mark.parametrize(
    "define",
    [
        pytest.param("#define LIB_TURING_MMA(x) x", id="function-like"),
        pytest.param("#define LIB_TURING_MMA lib_has_mma()", id="an-expression"),
    ],
)
def test_only_an_empty_or_integer_macro_is_a_feature_noop(define: str) -> None:
    src = FEATURE_DEFINE.replace("#define LIB_TURING_MMA", define) + _load("#ifdef LIB_TURING_MMA")
    out, result = translate(src, path="t.cu")
    assert _first_test(out) == f"#if {DEVICE} /* hipconv: __CUDA_ARCH__ >= LIB_CC_TURING */"
    assert not [d for d in result.diagnostics if d.code == "HC028"]


def test_feature_macro_defined_as_an_integer() -> None:
    src = FEATURE_DEFINE.replace("#define LIB_TURING_MMA", "#define LIB_TURING_MMA 1") + _load("#ifdef LIB_TURING_MMA")
    out, _ = translate(src, path="t.cu")
    assert _first_test(out) == FEATURE_OFF


def test_arch_chain_inside_a_feature_macro_branch_is_not_an_error() -> None:
    """A chain of PTX branches inside `#ifdef M` (candle's mma helpers): compiled on neither pass, no HC028."""
    inner = f"#if __CUDA_ARCH__ >= 800\n  {PTX_PAIR}\n#else\n  {PTX_PAIR}\n#endif"
    src = FEATURE_DEFINE + _load(f"#ifdef LIB_TURING_MMA\n{inner}").replace(f"{inner}\n  {PTX_PAIR}", inner)
    out, result = translate(src, path="t.cu")
    assert _first_test(out) == FEATURE_OFF
    assert "#if __CUDA_ARCH__ >= 800" not in out  # still rewritten, as nvcc reads it
    assert not [d for d in result.diagnostics if d.code == "HC028"]
    lone = FEATURE_DEFINE + _load(f"#if defined(LIB_TURING_MMA) || defined(LIB_OTHER)\n{inner}")
    assert [d.code for d in translate(lone, path="t.cu")[1].diagnostics].count("HC028") == 1
