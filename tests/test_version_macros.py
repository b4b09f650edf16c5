"""CUDA version and architecture macros tested by value (hipconv/translate/version_macros.py, pp_expr.py):
(src, expected) pairs of #if lines, *_noop inputs that must stay byte-identical, and the reports."""

from __future__ import annotations

import pytest
from test_translate import translate

DEVICE = "defined(__HIP_DEVICE_COMPILE__)"


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


def test_code_comparison_rewritten_other_use_reported() -> None:
    src = "__device__ int banks() {\n  int b = (__CUDA_ARCH__ >= 200) ? 32 : 16;\n  return b + __CUDA_ARCH__;\n}\n"
    out, result = translate(src, path="t.cu")
    assert "(1 /* hipconv: __CUDA_ARCH__ >= 200 */) ? 32 : 16" in out
    assert "return b + __CUDA_ARCH__;" in out
    assert [(d.line, d.code) for d in result.diagnostics] == [(2, "HC020"), (3, "HC021")]


def test_code_comparison_inside_arithmetic_is_not_split() -> None:
    src = "__device__ int f(int x) { return x + __CUDA_ARCH__ >= 700; }\n"
    out, result = translate(src, path="t.cu")
    assert "x + __CUDA_ARCH__ >= 700" in out
    assert [d.code for d in result.diagnostics] == ["HC021"]


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
