"""Case labels and overloads that translation would break (hipconv/translate/case_labels.py and
redefinitions.py): (src, expected) pairs and *_noop inputs, pyupgrade style, and the HC013 notes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_translate import translate

FALLTHROUGH = """\
const char *kind(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_SUPPORTED:
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "unsupported";
    default:
      return "other";
  }
}
"""
FALLTHROUGH_HIP = """\
const char *kind(hipblasStatus_t s) {
  switch (s) {
    case HIPBLAS_STATUS_NOT_SUPPORTED:
    /* case CUBLAS_STATUS_LICENSE_ERROR: */
      return "unsupported";
    default:
      return "other";
  }
}
"""

BETWEEN = """\
int weight(cufftResult r) {
  int n = 0;
  switch (r) {
    case CUFFT_INVALID_VALUE: n += 1;
    case CUFFT_NVRTC_FAILURE: n += 2;
    case CUFFT_SUCCESS: n += 4; break;
  }
  return n;
}
"""
BETWEEN_HIP = BETWEEN.replace("cufftResult", "hipfftResult").replace("CUFFT_INVALID", "HIPFFT_INVALID")
BETWEEN_HIP = BETWEEN_HIP.replace("case CUFFT_NVRTC_FAILURE:", "/* case CUFFT_NVRTC_FAILURE: */")
BETWEEN_HIP = BETWEEN_HIP.replace("CUFFT_SUCCESS", "HIPFFT_SUCCESS")

NESTED = """\
int pick(cublasGemmAlgo_t a, cublasGemmAlgo_t b) {
  switch (a) {
    case CUBLAS_GEMM_DEFAULT:
      switch (b) {
        case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 1;
        default: return 2;
      }
    case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 3;
  }
  return 0;
}
"""
NESTED_HIP = """\
int pick(hipblasGemmAlgo_t a, hipblasGemmAlgo_t b) {
  switch (a) {
    case HIPBLAS_GEMM_DEFAULT:
      switch (b) {
        case HIPBLAS_GEMM_DEFAULT: return 1;
        default: return 2;
      }
    /* case CUBLAS_GEMM_DEFAULT_TENSOR_OP: */ return 3;
  }
  return 0;
}
"""

DEFAULT = """\
switch (status) {
  case CUSOLVER_STATUS_SUCCESS: return 0;
  case CUSOLVER_STATUS_INVALID_LICENSE: default: return -1;
}
"""
DEFAULT_HIP = """\
switch (status) {
  case HIPSOLVER_STATUS_SUCCESS: return 0;
  /* case CUSOLVER_STATUS_INVALID_LICENSE: */ default: return -1;
}
"""

# the runtime's and the driver's out-of-memory statuses are two names of one HIP value (2)
ONE_VALUE = """\
switch (static_cast<int>(e)) {
  case cudaErrorMemoryAllocation: return "out of memory";
  case CUDA_ERROR_OUT_OF_MEMORY: return "out of memory (driver)";
}
"""
ONE_VALUE_HIP = """\
switch (static_cast<int>(e)) {
  case hipErrorMemoryAllocation: return "out of memory";
  /* case CUDA_ERROR_OUT_OF_MEMORY: */ return "out of memory (driver)";
}
"""

IN_BRANCH = """\
switch (a) {
  case CUBLAS_GEMM_DEFAULT: return 1;
#if USE_TENSOR_OPS
  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 2;
  case CUBLAS_STATUS_LICENSE_ERROR: return 3;
#endif
}
"""
IN_BRANCH_HIP = """\
switch (a) {
  case HIPBLAS_GEMM_DEFAULT: return 1;
#if USE_TENSOR_OPS
  /* case CUBLAS_GEMM_DEFAULT_TENSOR_OP: */ return 2;
  /* case CUBLAS_STATUS_LICENSE_ERROR: */ return 3;
#endif
}
"""

# the first is compiled only under a condition: the later one stays where it is not
FIRST_IN_BRANCH = """\
switch (a) {
#ifdef USE_TENSOR_OPS
  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 2;
#endif
  case CUBLAS_GEMM_DEFAULT: return 1;
}
"""
FIRST_IN_BRANCH_HIP = """\
switch (a) {
#ifdef USE_TENSOR_OPS
  case HIPBLAS_GEMM_DEFAULT: return 2;
#endif
#if !defined(USE_TENSOR_OPS)  // hipconv: the value of an earlier label, where that one is compiled
  case HIPBLAS_GEMM_DEFAULT:
#endif
 return 1;
}
"""

ELSE_BRANCH = """\
switch (a) {
#if GEMM_MODE == 1
  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 2;
#elif GEMM_MODE == 2
  case CUBLAS_GEMM_ALGO0: return 0;
#else
  case CUBLAS_GEMM_DEFAULT: return 3;
#endif
  case CUBLAS_GEMM_DEFAULT: return 1;
}
"""
ELSE_BRANCH_HIP = """\
switch (a) {
#if GEMM_MODE == 1
  case HIPBLAS_GEMM_DEFAULT: return 2;
#elif GEMM_MODE == 2
  /* case CUBLAS_GEMM_ALGO0: */ return 0;
#else
  case HIPBLAS_GEMM_DEFAULT: return 3;
#endif
#if !((GEMM_MODE == 1) || (!(GEMM_MODE == 1) && !(GEMM_MODE == 2)))  // hipconv: GUARD
  case HIPBLAS_GEMM_DEFAULT:
#endif
 return 1;
}
""".replace("GUARD", "the value of an earlier label, where that one is compiled")


@pytest.mark.parametrize(
    ("src", "expected", "rocm"),
    [
        pytest.param(FALLTHROUGH, FALLTHROUGH_HIP, "6.3", id="fallthrough"),
        pytest.param(BETWEEN, BETWEEN_HIP, "6.3", id="dropped-between-kept"),
        pytest.param(NESTED, NESTED_HIP, "6.3", id="nested-switch"),
        pytest.param(DEFAULT, DEFAULT_HIP, "6.3", id="default"),
        pytest.param(ONE_VALUE, ONE_VALUE_HIP, "6.3", id="two-names-one-value"),
        pytest.param(IN_BRANCH, IN_BRANCH_HIP, "6.3", id="later-in-branch"),
        pytest.param(FIRST_IN_BRANCH, FIRST_IN_BRANCH_HIP, "6.3", id="first-in-branch"),
        pytest.param(ELSE_BRANCH, ELSE_BRANCH_HIP, "6.3", id="elif-else"),
        pytest.param(
            "switch (e) { case cudaErrorInvalidChannelDescriptor: return 1; }",
            "switch (e) { /* case cudaErrorInvalidChannelDescriptor: */ return 1; }",
            "5.2",
            id="newer-than-target",
        ),
        pytest.param(
            "switch (e) { case cudaErrorInvalidChannelDescriptor: return 1; }",
            "switch (e) { case hipErrorInvalidChannelDescriptor: return 1; }",
            "6.3",
            id="in-target",
        ),
        pytest.param(
            "switch (s) { case /* why */ CUFFT_NVRTC_FAILURE /* gone */: break; }",
            "switch (s) { /* why */ /* gone */ /* case   CUFFT_NVRTC_FAILURE  : */ break; }",
            "6.3",
            id="comments-in-label",
        ),
    ],
)
def test_case_labels(src: str, expected: str, rocm: str) -> None:
    assert translate(src, rocm=rocm)[0] == expected


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("switch (c) { case RED: return 1; case GREEN: return 2; }", id="own-enum"),
        pytest.param(
            "switch (a) {\n#if FAST\n  case HIPBLAS_GEMM_DEFAULT: return 1;\n#else\n"
            "  case HIPBLAS_GEMM_DEFAULT: return 2;\n#endif\n}\n",
            id="one-value-in-exclusive-branches",
        ),
        pytest.param(
            "#define NAME_CASE(x) case x: return #x;\nswitch (s) { NAME_CASE(CUBLAS_STATUS_LICENSE_ERROR) }\n",
            id="label-in-a-macro",
        ),
        pytest.param("switch (n) { case 1: case 2: return 0; default: break; }", id="literals"),
    ],
)
def test_case_labels_noop(src: str) -> None:
    assert translate(src)[0] == src


def test_notes_say_what_was_dropped_and_why() -> None:
    _, result = translate(FALLTHROUGH + ONE_VALUE.replace("switch", "int g(cudaError_t e) { switch") + "}\n")
    notes = [(d.line, d.code, d.message) for d in result.diagnostics]
    assert notes == [
        (
            4,
            "HC013",
            "case CUBLAS_STATUS_LICENSE_ERROR: dropped (the switch value cannot be it on HIP): "
            "CUBLAS_STATUS_LICENSE_ERROR has no HIP counterpart",
        ),
        (
            12,
            "HC016",
            "case CUDA_ERROR_OUT_OF_MEMORY: dropped (a duplicate case value on HIP): it becomes hipErrorOutOfMemory, "
            "whose value 2 is that of hipErrorMemoryAllocation (case cudaErrorMemoryAllocation: of line 11); but the "
            "two labels run different code: where CUDA ran this label's, HIP runs that of line 11 for both; this "
            "label's code stays: decide which code the value runs",
        ),
    ]


def _codes(src: str) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in translate(src, rocm="6.3")[1].diagnostics]


@pytest.mark.parametrize(
    ("body_default", "body_tensor", "code"),
    [
        pytest.param("", "return 1;", "HC013", id="falls-through-into-the-same-code"),
        pytest.param("n = 4; /* picked */ break;", "n = 4; break;", "HC013", id="same-tokens"),
        pytest.param("{ n = 4; } break;", "{ n = 4; } break;", "HC013", id="same-block"),
        pytest.param("n += 1;", "n += 1; break;", "HC016", id="falls-into-the-later-code"),
        pytest.param("return 0;", "return 1;", "HC016", id="different-returns"),
        pytest.param("n = 4; break;", "n = 8; break;", "HC016", id="different-statements"),
        pytest.param("n = 4;", "n = 4; n += 1; break;", "HC016", id="falls-into-other-code"),
    ],
)
def test_a_merged_label_warns_only_when_its_code_differs(body_default: str, body_tensor: str, code: str) -> None:
    """Issue #39 item 2: dropping the later of two labels of one HIP value is exact only when both run the
    same code; otherwise HIP runs the first one's code for both, which is a warning (HC016)."""
    src = (
        "int pick(cublasGemmAlgo_t a) {\n  int n = 0;\n  switch (a) {\n"
        f"    case CUBLAS_GEMM_DEFAULT: {body_default}\n"
        f"    case CUBLAS_GEMM_DEFAULT_TENSOR_OP: {body_tensor}\n"
        "    default: n += 1; break;\n  }\n  return n;\n}\n"
    )
    out, _ = translate(src, rocm="6.3")
    assert "/* case CUBLAS_GEMM_DEFAULT_TENSOR_OP: */ " + body_tensor in out  # its code stays
    assert _codes(src) == [(5, code)]


def test_a_guarded_label_with_other_code_warns() -> None:
    """The later label kept only where the first is not compiled: a warning too when their code differs."""
    src = FIRST_IN_BRANCH.replace("switch (a)", "int f(cublasGemmAlgo_t a) {\nswitch (a)") + "}\n"
    assert [code for _, code in _codes(src)] == ["HC016"]
    same = src.replace("return 1;", "return 2;")
    assert [code for _, code in _codes(same)] == ["HC013"]


OVERLOADS = """\
static const char *statusName(cudaError_t e) { return cudaGetErrorName(e); }
static const char *statusName(CUresult e) {
  const char *name = nullptr;
  cuGetErrorName(e, &name);
  return name;
}
"""
OVERLOADS_HIP = """\
static const char *statusName(hipError_t e) { return hipGetErrorName(e); }
#if 0  // hipconv: as translated, a redefinition of statusName(hipError_t) above
static const char *statusName(hipError_t e) {
  const char *name = nullptr;
  hipDrvGetErrorName(e, &name);
  return name;
}
#endif
"""

GUARDED = """\
#ifdef __DRIVER_TYPES_H__
void report(cudaStream_t s, int code = 0) { }
#endif
void report(CUstream stream, int) { }
"""
GUARDED_HIP = """\
#ifdef HIP_TRSA_OVERRIDE_FORMAT
void report(hipStream_t s, int code = 0) { }
#endif
#if !defined(HIP_TRSA_OVERRIDE_FORMAT)  // hipconv: as translated, a redefinition of report(hipStream_t, int) above
void report(hipStream_t stream, int) { }
#endif
"""


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(OVERLOADS, OVERLOADS_HIP, id="always"),
        pytest.param(GUARDED, GUARDED_HIP, id="where-the-first-is-not-compiled"),
    ],
)
def test_redefinitions(src: str, expected: str) -> None:
    assert translate(src)[0] == expected


@pytest.mark.parametrize(
    "src",
    [
        pytest.param(
            "#if USE_DRIVER\nint id(CUstream s) { return 1; }\n#else\nint id(cudaStream_t s) { return 0; }\n#endif\n",
            id="exclusive-branches",
        ),
        pytest.param(
            "namespace a { int id(CUstream s) { return 1; } }\nint id(cudaStream_t s) { return 0; }\n", id="scopes"
        ),
        pytest.param("void log(CUstream s);\nvoid log(cudaStream_t s);\n", id="declarations-only"),
        pytest.param(  # the return type is cut by a directive line, which a guard before the name would split
            "int id(cudaStream_t s) { return 0; }\nstatic int\n#ifdef FAST\nid(CUstream s) { return 1; }\n#endif\n",
            id="directive-inside-the-declaration",
        ),
        pytest.param(  # its body's #endif and #if pair with lines outside it, as a guard's would (#40, test_fuzz)
            "int id(cudaStream_t s) { return 0; }\n#if FAST\nint id(CUstream s) {\n#endif\n  int n = 1;\n#if SLOW\n"
            "  n = 2;\n  return n;\n}\n#endif\n",
            id="body-closing-and-opening-an-if",
        ),
    ],
)
def test_redefinitions_noop(src: str) -> None:
    """Nothing is guarded out (names are still renamed)."""
    assert "#if 0" not in translate(src)[0] and "hipconv:" not in translate(src)[0]


def test_a_redefinition_whose_body_holds_a_whole_if_is_guarded() -> None:
    """An #if group inside the body pairs up there: the guard goes around the whole definition."""
    body = "{\n  const char *n;\n#if CHECKED\n  n = 0;\n#else\n  cuGetErrorName(e, &n);\n#endif\n  return n;\n}\n"
    first = "static const char *name(cudaError_t e) { return cudaGetErrorName(e); }\n"
    out, result = translate(f"{first}static const char *name(CUresult e) {body}")
    guarded = body.replace("cuGetErrorName", "hipDrvGetErrorName")
    assert out.endswith(f"#if 0  // hipconv: as translated, a redefinition of name(hipError_t) above\n"
                        f"static const char *name(hipError_t e) {guarded}#endif\n")  # fmt: skip
    assert [d.code for d in result.diagnostics] == ["HC013"]


def test_a_redefinition_no_guard_can_go_around_is_reported() -> None:
    """Its body's #endif and #if pair with lines outside it, as a guard's would: left as it is, and said (HC109),
    since HIP then sees two definitions wherever both are compiled."""
    src = (
        "int id(cudaStream_t s) { return 0; }\n#if FAST\nint id(CUstream s) {\n#endif\n  int n = 1;\n#if SLOW\n"
        "  n = 2;\n  return n;\n}\n#endif\n"
    )
    out, result = translate(src)
    assert out == src.replace("cudaStream_t", "hipStream_t").replace("CUstream", "hipStream_t")
    assert [(d.line, d.col, d.code, d.message) for d in result.diagnostics] == [
        (
            3,
            5,
            "HC109",
            "id(CUstream) left as it is, a redefinition on HIP: it becomes id(hipStream_t), as does id(cudaStream_t) "
            "of line 1; #if/#else/#endif lines in it pair with lines outside it, so no #if can go around it: leave "
            "one out of the HIP build by hand",
        )
    ]
    assert translate(out)[0] == out  # a second pass changes nothing


def test_redefinition_note() -> None:
    _, result = translate(OVERLOADS)
    assert [(d.line, d.col, d.code, d.message) for d in result.diagnostics if d.code == "HC013"] == [
        (
            2,
            20,
            "HC013",
            "statusName(CUresult) dropped (#if 0; a redefinition on HIP): it becomes statusName(hipError_t), as does "
            "statusName(cudaError_t) of line 1",
        )
    ]


ROCM63 = Path(__file__).resolve().parents[2] / "shared" / "rocm-6.3"
GEMM_CASE = Path(__file__).parent / "fixtures" / "case_gemm_algo"
# what the CUDA program prints: CUDA tells CUBLAS_GEMM_DEFAULT (-1) and CUBLAS_GEMM_DEFAULT_TENSOR_OP (99) apart
GEMM_CUDA_OUTPUT = [
    "tensor=0 family=heuristic workspace=4096",
    "tensor=1 family=heuristic workspace=4096",
]


def test_merged_labels_run_as_the_diagnostics_say(tmp_path: Path) -> None:
    """The case_gemm_algo fixture's HIP output, compiled for the host with ROCm 6.3's headers and run: the
    switches with an HC013 note compute what CUDA's did; the one with the HC016 warning does not (HIP runs
    the first label's code for both), which is why it is a warning."""
    if shutil.which("clang++-19") is None or not (ROCM63 / "include" / "hipblas" / "hipblas.h").is_file():
        reason = "needs clang++-19 and ROCm 6.3's headers (../shared/rocm-6.3)"
        print(f"test_merged_labels_run_as_the_diagnostics_say: skipped: {reason}")
        pytest.skip(reason)
    binary = tmp_path / "gemm_algo"
    compile_ = [
        *("clang++-19", "-x", "hip", "--offload-arch=gfx90a", "--cuda-host-only", "-nogpulib"),
        *(f"--rocm-path={ROCM63}", "-isystem", str(ROCM63 / "include"), "-w"),
        *(str(GEMM_CASE / "hip-6.3" / "gemm_algo.cu"), "-o", str(binary)),
    ]
    subprocess.run(compile_, check=True, capture_output=True, timeout=300)
    hip_output = subprocess.run([binary], check=True, capture_output=True, text=True, timeout=60).stdout.splitlines()
    fields = [dict(word.split("=") for word in line.split()) for line in hip_output]
    cuda = [dict(word.split("=") for word in line.split()) for line in GEMM_CUDA_OUTPUT]
    assert [f["family"] for f in fields] == [f["family"] for f in cuda]  # HC013: falls through, exact
    assert [f["workspace"] for f in fields] == [f["workspace"] for f in cuda]  # HC013: same tokens, exact
    assert [f["tensor"] for f in fields] == ["0", "0"] != [f["tensor"] for f in cuda]  # HC016: differs


def test_a_guard_keeps_what_a_splice_joins_to_its_code() -> None:
    """`}\\` then `#include <x>`: the rest of the logical line is code, not a directive. Ending the guard with
    #endif right after the `}` started it a line of its own, where it became a directive that a second pass
    renamed; it stays with the code, under the guard (found by the spliced fuzz lane)."""
    src = (
        "static const char *name(cudaError_t e) { return cudaGetErrorName(e); }\n"
        "static const char *name(CUresult e) { const char *n; cuGetErrorName(e, &n); return n; }\\\n"
        "#include <cuda_runtime.h>\n"
    )
    out, _ = translate(src, rocm="6.3")
    assert out.endswith("return n; }\\\n#include <cuda_runtime.h>\n#endif\n")
    assert translate(out, rocm="6.3")[0] == out


GUARDED_LABEL = "switch (a) {\n#ifdef FAST\n  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 2;\n#endif\n%s\n}\n"
LABEL_GUARD = "#if !defined(FAST)  // hipconv: the value of an earlier label, where that one is compiled"


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize(
    ("label", "guarded"),
    [
        pytest.param(  # the label's line starts inside a block comment: the #if went into the comment
            "/* a\n b */ case CUBLAS_GEMM_DEFAULT: return 1;",
            f"/* a\n b */ \n{LABEL_GUARD}\ncase HIPBLAS_GEMM_DEFAULT:\n#endif\n return 1;",
            id="line-starting-in-a-comment",
        ),
        pytest.param(
            "  ca\\\nse CUBLAS_GEMM_DEFAULT: return 1;",
            f"{LABEL_GUARD}\n  ca\\\nse HIPBLAS_GEMM_DEFAULT:\n#endif\n return 1;",
            id="splice-inside-case",
        ),
        pytest.param(  # `#endif\` would take `return 1;` into the directive
            "  case CUBLAS_GEMM_DEFAULT:\\\n return 1;",
            f"{LABEL_GUARD}\n  case HIPBLAS_GEMM_DEFAULT:\n#endif\n\\\n return 1;",
            id="splice-after-the-colon",
        ),
        pytest.param(  # a splice joins the label to code: the #if goes after it, on a line of its own
            "  return 3;\\\n  case CUBLAS_GEMM_DEFAULT: return 1;",
            f"  return 3;\\\n  \n{LABEL_GUARD}\ncase HIPBLAS_GEMM_DEFAULT:\n#endif\n return 1;",
            id="spliced-onto-code",
        ),
        pytest.param(  # blank lines spliced onto the label's line: the #if goes above them
            "\\\n  case CUBLAS_GEMM_DEFAULT: return 1;",
            f"{LABEL_GUARD}\n\\\n  case HIPBLAS_GEMM_DEFAULT:\n#endif\n return 1;",
            id="spliced-blank-line-before",
        ),
    ],
)
def test_a_guard_line_takes_in_no_other_line(label: str, guarded: str, newline: str) -> None:
    """A guarded later label (HC016) below an #ifdef block, with a splice or a comment across its line: each
    guard line is a line of its own in the file's newline, none ends in a splice or starts inside a comment,
    what follows it is the input's next line, and a second pass changes nothing (#40, the spliced fuzz lane)."""
    src = (GUARDED_LABEL % label).replace("\n", newline)
    out, result = translate(src, rocm="5.2")
    expected = (GUARDED_LABEL % guarded).replace("CUBLAS_GEMM_DEFAULT_TENSOR_OP", "HIPBLAS_GEMM_DEFAULT")
    assert out == expected.replace("\n", newline)
    assert [d.code for d in result.diagnostics] == ["HC016"]
    assert translate(out, rocm="5.2")[0] == out


def test_a_redefinition_below_a_comment_is_guarded_after_it() -> None:
    """The same for a redefinition's #if 0 (translate.branches.guard serves both)."""
    src = (
        "static const char *name(cudaError_t e) { return cudaGetErrorName(e); }\n/* a\n"
        " b */ static const char *name(CUresult e) { const char *n; cuGetErrorName(e, &n); return n; }\n"
    )
    out, _ = translate(src, rocm="6.3")
    assert "/* a\n b */ \n#if 0  // hipconv: as translated, a redefinition" in out
    assert out.endswith("return n; }\n#endif\n")
    assert translate(out, rocm="6.3")[0] == out
