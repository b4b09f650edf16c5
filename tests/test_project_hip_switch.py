"""A project's own HIP path (hipconv.translate.matchers.project_hip, facts in translate.facts.hip_switches):
its switch found, its tests read as defined, its HIP code (branches, alias lines, HIP-written files) kept
byte for byte, HC030 in translate and scan, and `--project-hip-path off` / `project-hip-path = "off"`."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

from helpers import hipcc_syntax, hipcc_syntax_missing, run_cli, tree
from hipconv.results import FileResult
from hipconv.rules import load_ruleset
from hipconv.rules.model import LookupTable
from hipconv.settings import Settings, Version
from hipconv.translate.facts.hip_switches import switch_tests
from hipconv.translate.include_closure import include_lines
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import translate_one

INFERENCE = FIXTURES / "project_switch_inference" / "cuda"


@functools.cache
def _table(path_choice: str = "keep") -> tuple[LookupTable, Settings]:
    settings = Settings(Version.parse("6.3"), project_hip_path=path_choice)
    return load_ruleset().table(settings), settings


def translate(src: str, *, path: str = "t.h", choice: str = "keep") -> tuple[str, FileResult]:
    table, settings = _table(choice)
    result = translate_one(SourceFile.from_bytes(path, src.encode()), table, settings)
    return (result.output.decode() if result.output is not None else src), result


def codes(result: FileResult) -> list[str]:
    return [d.code for d in result.diagnostics]


# --- what a switch is -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "switches", "tested"),
    [
        pytest.param(
            "#ifdef GGML_USE_HIP\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif\n",
            {"GGML_USE_HIP"},
            {"GGML_USE_HIP": 1},
            id="ifdef-hip-include",
        ),
        pytest.param(
            "#ifndef USE_ROCM\n#include <cuda_fp16.h>\n#else\nhipStream_t s;\n#endif\n",
            {"USE_ROCM"},
            {"USE_ROCM": 1},
            id="ifndef-else-hip-name",
        ),
        pytest.param(
            "#if defined(BNB_HIP) && !defined(NDEBUG)\n#define cudaMalloc hipMalloc\n#endif\n",
            {"BNB_HIP"},
            {"BNB_HIP": 1},
            id="compound-alias-line",
        ),
        pytest.param(
            "#if MYLIB_ROCM\n#  if 1\n  hipFree(p);\n#  endif\n#endif\n",
            {"MYLIB_ROCM"},
            {"MYLIB_ROCM": 1},
            id="bare-name-nested-evidence",
        ),
        pytest.param(
            "#if defined(__HIPCC__)\nhipEvent_t e;\n#endif\n", {"__HIPCC__"}, {"__HIPCC__": 1}, id="compiler-macro"
        ),
        pytest.param(
            "#ifdef MYLIB_USE_HIP\n#define WARP 64\n#else\n#define WARP 32\n#endif\n",
            set(),
            {"MYLIB_USE_HIP": 1},
            id="tested-without-hip-code-here",
        ),
        pytest.param(
            "#define USE_HIP_KERNELS\n#ifdef USE_HIP_KERNELS\nhipFree(p);\n#endif\n",
            set(),
            {"USE_HIP_KERNELS": 1},
            id="defined-by-the-file",
        ),
        pytest.param("#ifdef _WIN32\nhipFree(p);\n#endif\n", set(), {}, id="name-says-nothing-of-hip"),
        pytest.param(
            "#if defined(GGML_USE_HIP)\n  v = __builtin_amdgcn_perm(a, b, s);\n#endif\n",
            {"GGML_USE_HIP"},
            {"GGML_USE_HIP": 1},
            id="amd-builtin",
        ),
        pytest.param(
            "#ifdef AMD_MFMA_AVAILABLE\n  d = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, d, 0, 0, 0);\n#endif\n",
            set(),
            {},
            id="amd-feature-macro",
        ),
        pytest.param("#ifdef __CUDACC_HIP__\nhipFree(p);\n#endif\n", set(), {}, id="cuda-macro"),
        pytest.param("#ifdef 0USE_HIP\nhipFree(p);\n#endif\n", set(), {}, id="a-number-no-macro"),  # (#40, fuzz)
        pytest.param(
            "#ifdef MYLIB_USE_HIP\n#else\nhipFree(p);\n#endif\n", set(), {"MYLIB_USE_HIP": 1}, id="hip-code-when-off"
        ),
    ],
)
def test_switch_tests(src: str, switches: set[str], tested: dict[str, int]) -> None:
    found = switch_tests(src.encode(), _table()[0])
    assert found.switches == switches
    assert dict(found.tested) == tested


@pytest.mark.parametrize(
    ("src", "switches", "translated"),
    [
        pytest.param(
            "#ifdef MYLIB_USE_HIP\n#include <cuda_runtime.h>\n#endif\n", set(), {"MYLIB_USE_HIP"}, id="include"
        ),
        pytest.param(
            '#if defined(MYLIB_USE_HIP) && !defined(NDEBUG)\n#include "cuda_fp16.h"\n#endif\n',
            set(),
            {"MYLIB_USE_HIP"},
            id="quoted-include-compound-test",
        ),
        pytest.param(
            "#if MYLIB_ROCM\nvoid* alloc(size_t n) { void* p; cudaMalloc(&p, n); return p; }\n#endif\n",
            set(),
            {"MYLIB_ROCM"},
            id="runtime-call",
        ),
        pytest.param(
            "#ifndef USE_ROCM\n#include <cuda_runtime.h>\n#else\n__nv_bfloat16 x;\n#endif\n",
            set(),
            {"USE_ROCM"},
            id="else-of-ifndef-a-type-whose-hip-name-says-hip",
        ),
        pytest.param(
            "#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n#endif\n#ifdef USE_ROCM\ncudaStream_t s;\n#endif\n",
            {"USE_ROCM"},
            set(),
            id="hip-code-in-another-branch-wins",
        ),
        pytest.param(
            "#ifndef MYLIB_USE_HIP\n#include <cuda_runtime.h>\ncudaStream_t s;\n#endif\n", set(), set(), id="negated"
        ),
        pytest.param(
            "#ifdef MYLIB_USE_HIP\n#else\n#include <cuda_runtime.h>\n#endif\n", set(), set(), id="cuda-code-when-off"
        ),
        pytest.param(
            "#define MYLIB_USE_HIP 1\n#ifdef MYLIB_USE_HIP\ncudaFree(p);\n#endif\n",
            set(),
            set(),
            id="defined-by-the-file",
        ),
        pytest.param(
            "#ifdef MYLIB_USE_HIP\n#include <cublas_v2.h>\nint warp = 32;\n#endif\n",
            set(),
            set(),
            id="no-hip-header-no-hip-name",  # (cublas_v2.h becomes hipblas/hipblas.h: not a `hip/` header)
        ),
        pytest.param(  # names translation leaves as written (#40, found by the fuzz lane's property 5)
            "#ifdef MYLIB_USE_HIP\n/* cudaMalloc */ int a; // cudaFree \\\n cudaStream_t\n"
            'const char* s = "cudaMalloc";\n#endif\n',
            set(),
            set(),
            id="in-comments-and-strings",
        ),
    ],
)
def test_cuda_code_that_becomes_hip_is_weaker_evidence(src: str, switches: set[str], translated: set[str]) -> None:
    """CUDA code that this run makes HIP, in a branch a switch selects, makes it a switch on the first run (#40,
    found by the fuzz lane: a second run saw the HIP code and rewrote the test the first had left)."""
    found = switch_tests(src.encode(), _table()[0])
    assert (found.switches, found.translated) == (switches, translated)


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("#ifdef USE_FAST\n#include <cuda_runtime.h>\ncudaMalloc(&p, n);\n#endif\n", id="ifdef"),
        pytest.param("#if defined(MYLIB_CUDA) && CHIP_COUNT > 1\ncudaFree(p);\n#endif\n", id="name-says-cuda"),
        pytest.param("#ifdef WITH_AMD_GPU\ncudaStream_t s;\n#endif\n", id="name-says-amd"),
        pytest.param("#ifdef CUDA_HIP_COMPAT\ncudaStream_t s;\n#endif\n", id="cuda-macro-naming-hip"),
        pytest.param("#ifdef MYLIB_CHIP_V2\n#include <cuda_runtime.h>\n#endif\n", id="chip-is-no-hip"),
    ],
)
def test_a_macro_whose_name_says_no_hip_is_no_switch_around_cuda_code_noop(src: str) -> None:
    """Only a name that says HIP or ROCm makes a switch: its tests stay as written, only the CUDA code changes."""
    assert switch_tests(src.encode(), _table()[0]) == (switch_tests(b"", _table()[0]))
    text, result = translate(src)
    assert text.split("\n", 1)[0] == src.split("\n", 1)[0]
    assert "HC030" not in codes(result)


# --- what translation writes ------------------------------------------------------------------------------

ALIAS_HEADER = (
    "#pragma once\n#include <hip/hip_runtime.h>\n"
    "#define cudaMalloc hipMalloc\n#define cudaDeviceMapHost hipDeviceMapHost\n#define cudaStream_t hipStream_t\n"
)


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "#if defined(MYLIB_USE_HIP)\n#define cudaMalloc hipMalloc\n#define cudaStream_t hipStream_t\n"
            "#else\n#include <cuda_runtime.h>\n#endif\ncudaStream_t s;\n",
            "#if 1 /* hipconv: defined(MYLIB_USE_HIP) */\n"
            "#define cudaMalloc hipMalloc\n#define cudaStream_t hipStream_t\n"
            "#else\n#include <hip/hip_runtime.h>\n#endif\nhipStream_t s;\n",
            id="alias-lines-kept-test-rewritten",
        ),
        pytest.param(
            "#ifndef MYLIB_USE_HIP\nint cc(cudaDeviceProp& p) { return p.major; }\n#else\n"
            "int cc(hipDeviceProp_t& p) { cudaStream_t keep; return p.gcnArchName[3]; }\n#endif\n",
            "#if 0 /* hipconv: #ifndef MYLIB_USE_HIP */\nint cc(hipDeviceProp_t& p) { return p.major; }\n#else\n"
            "int cc(hipDeviceProp_t& p) { cudaStream_t keep; return p.gcnArchName[3]; }\n#endif\n",
            id="hip-branch-untouched",
        ),
        pytest.param(
            "#if defined USE_ROCM && !defined(NDEBUG)\nhipFree(p);\n#elif USE_ROCM\ncudaFree(p);\n#endif\n",
            "#if 1 /* hipconv: defined(USE_ROCM) */ && !defined(NDEBUG)\nhipFree(p);\n#elif 1 /* hipconv: USE_ROCM */\n"
            "cudaFree(p);\n#endif\n",
            id="compound-and-bare",
        ),
        pytest.param(
            "#ifdef __HIPCC__\n#define cudaFree hipFree\nint x = cudaFree(p);\n#else\nint x = cudaFree(p);\n#endif\n",
            "#ifdef __HIPCC__\n#define cudaFree hipFree\nint x = cudaFree(p);\n#else\nint x = hipFree(p);\n#endif\n",
            id="compiler-macro-kept-as-written",
        ),
        pytest.param(
            "#ifdef MYLIB_USE_HIP\n#ifdef MYLIB_USE_HIP\nhipStream_t s; cudaEvent_t e;\n#endif\n#endif\n",
            "#if 1 /* hipconv: #ifdef MYLIB_USE_HIP */\n#if 1 /* hipconv: #ifdef MYLIB_USE_HIP */\n"
            "hipStream_t s; cudaEvent_t e;\n#endif\n#endif\n",
            id="nested-test-inside-kept-branch",
        ),
    ],
)
def test_translate(src: str, expected: str) -> None:
    assert translate(src)[0] == expected


def test_a_test_of_a_version_macro_is_left_to_version_tests() -> None:
    """One edit per test: version_macros rewrites a test that holds __CUDA_ARCH__ whole (no HC009)."""
    src = "#ifdef USE_ROCM\nhipFree(p);\n#endif\n#if defined(USE_ROCM) || __CUDA_ARCH__ < 700\nint slow;\n#endif\n"
    text, result = translate(src)
    assert text.startswith("#if 1 /* hipconv: #ifdef USE_ROCM */\n")
    assert "#if !defined(__HIP_DEVICE_COMPILE__) || defined(USE_ROCM) /* hipconv:" in text
    assert "HC009" not in codes(result)


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "#ifdef /* c */ USE_ROCM\nhipFree(p);\n#endif\n",
            "#if 1 /* hipconv: #ifdef USE_ROCM */ /* c */\nhipFree(p);\n#endif\n",
            id="ifdef",
        ),
        pytest.param(
            "#if defined(/* a */USE_ROCM/* b */) && X\nhipFree(p);\n#endif\n",
            "#if 1 /* hipconv: defined(USE_ROCM) */ /* a */ /* b */ && X\nhipFree(p);\n#endif\n",
            id="defined",
        ),
    ],
)
def test_a_comment_inside_a_rewritten_test_stays(src: str, expected: str) -> None:
    """The comments between a test's words are kept after its rewrite; they were lost (#40, found by the
    fuzz lane's spliced directive rewrites), and a second run changes nothing."""
    plain = "#ifdef USE_ROCM\nhipFree(q);\n#endif\ncudaStream_t s;\n"  # a test the reading of switches sees
    text, _ = translate(plain + src)
    assert text == "#if 1 /* hipconv: #ifdef USE_ROCM */\nhipFree(q);\n#endif\nhipStream_t s;\n" + expected
    assert translate(text)[0] == text


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("tail", [") && X", ")"])
def test_a_defined_whose_paren_closes_on_the_next_line_is_left(newline: str, tail: str) -> None:
    """`#if defined(USE_ROCM// c` then `)` on the next line, which is code (the line comment ends the directive):
    the rewrite took the `)` from that line and its line break with it, so `&& X` went into the comment, or
    the `)` was lost (#40, found by the fuzz lane's guarded draws). The test is left as written."""
    plain = "#ifdef USE_ROCM\nhipFree(q);\n#endif\ncudaStream_t s;\n".replace("\n", newline)  # a switch seen
    for comment in ("// c", ""):
        src = plain + f"#if defined(USE_ROCM{comment}{newline}{tail}{newline}int v;{newline}#endif{newline}"
        text, _ = translate(src)
        switched = src.replace("#ifdef USE_ROCM", "#if 1 /* hipconv: #ifdef USE_ROCM */", 1)
        assert text == switched.replace("cudaStream_t", "hipStream_t")
        assert translate(text)[0] == text


@pytest.mark.parametrize("comment", ["#/* c */ifdef", "/* c */#ifdef", "# /* c */ ifdef"])
def test_a_comment_around_the_hash_of_a_switch_test_hides_nothing(comment: str) -> None:
    """`#/* c */ifdef USE_ROCM`: the byte-level reading of directives (hip_switches.DIRECTIVE) saw no directive
    after `#` and a comment, so a file with the comment got no HC030, unlike the same file without it (#40,
    found by the fuzz lane's property 5 on its guarded draws)."""
    src = f"{comment} USE_ROCM\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif\n"
    assert switch_tests(src.encode(), _table()[0]).switches == {"USE_ROCM"}
    text, result = translate(src)
    assert text.startswith(comment.removesuffix("ifdef") + "if 1 /* hipconv: #ifdef USE_ROCM */\n")
    assert codes(result) == ["HC030"] and translate(text)[0] == text


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize(
    "test",
    ["#\\{nl}ifdef USE_ROCM", "# /* c */\\{nl} ifdef USE_ROCM", "#if\\{nl}def USE_ROCM", "#ifdef USE_\\{nl}ROCM"],
)
def test_a_splice_in_a_switch_test_hides_nothing(test: str, newline: str) -> None:
    """The directives are read as the preprocessor reads them, splices joined: `#\\<newline>ifdef USE_ROCM` was
    no test to the byte-level reading, so its HIP branch did not make a switch (no HC030) while the same file
    with a comment put in did (#40, found by the random slow fuzz lane's property 5)."""
    src = f"{test.format(nl=newline)}{newline}#include <hip/hip_runtime.h>{newline}#endif{newline}"
    assert switch_tests(src.encode(), _table()[0]).switches == {"USE_ROCM"}
    text, result = translate(src)
    assert "if 1 /* hipconv: #ifdef USE_ROCM */" in text and codes(result) == ["HC030"]
    assert translate(text)[0] == text


def test_a_directive_spliced_into_a_line_comment_is_no_evidence() -> None:
    """`// note \\<newline>#include <hip/hip_runtime.h>`: the include is part of the comment."""
    src = "#ifdef USE_ROCM\n// see below \\\n#include <hip/hip_runtime.h>\nint warp = 64;\n#endif\n"
    assert switch_tests(src.encode(), _table()[0]).switches == set()


@pytest.mark.parametrize("include", ["/* c */#include <cuda_runtime.h>", "#/* c */include <cuda_runtime.h>"])
def test_a_cuda_include_after_a_comment_keeps_the_file_a_cuda_file(include: str) -> None:
    """A file that includes a `hip/` header and a CUDA header, the latter after a comment: the byte-level
    reading of includes (include_closure.include_lines) missed it, so the file read as written for HIP and
    was kept whole, its CUDA names and tests left (#40, found by the fuzz lane's property 5)."""
    src = f"#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n#else\n{include}\n#endif\ncudaStream_t s;\n"
    text, _ = translate(src)
    assert "hipStream_t s;" in text and translate(text)[0] == text


VENDOR_HEADER = (
    "#pragma once\n#ifdef MYLIB_USE_HIP\n#include <cuda_runtime.h>\n#define MYLIB_WARP 64\n"
    "#else\n#include <cuda_runtime.h>\n#define MYLIB_WARP 32\n#endif\n"
    "inline void mylib_check(cudaError_t e) { if (e != cudaSuccess) throw e; }\n"
)


@pytest.mark.parametrize("path", ["vendor.h", "vendor.cu"])
def test_a_switch_whose_branch_holds_cuda_code_is_rewritten_on_the_first_run(path: str) -> None:
    """Its test is read as defined at once, its branch translated (not kept: its CUDA header is no HIP one), and a
    second run changes nothing; it had rewritten the test the first run left (#40)."""
    once, result = translate(VENDOR_HEADER, path=path)
    assert once.startswith("#pragma once\n#if 1 /* hipconv: #ifdef MYLIB_USE_HIP */\n#include <hip/hip_runtime.h>\n")
    assert "cuda" not in once.replace("CUDA", "").split("#endif")[0]
    notes = [d.message for d in result.diagnostics if d.code == "HC030"]
    assert notes == [
        "this project has its own HIP path (MYLIB_USE_HIP, 1 test); its AMD branches are translated (CUDA code"
        " here), and its tests read MYLIB_USE_HIP as defined"
    ]
    again, _ = translate(once, path=path)
    assert again == once


def test_a_guard_reads_a_rewritten_switch_test_as_its_value() -> None:
    """A guard hipconv writes from the branch a label is in (HC016: two labels that become one value) reads the
    switch's test as project_hip rewrote it, as a second run reads it: that run had rewritten the guard's
    `defined(MYLIB_USE_HIP)` (#40, found by the fuzz lane once it excused no second pass)."""
    src = (
        "#ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n#endif\nint rank(cublasGemmAlgo_t algo) {\n"
        "  switch (algo) {\n#if !defined(MYLIB_USE_HIP) && MYLIB_TENSOR_OPS\n"
        "  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 1;\n#endif\n  case CUBLAS_GEMM_DEFAULT: return 0;\n  }\n}\n"
    )
    text, result = translate(src, path="t.cu")
    assert "#if !1 /* hipconv: defined(MYLIB_USE_HIP) */ && MYLIB_TENSOR_OPS\n" in text
    guard = "#if !(! 1 && MYLIB_TENSOR_OPS)  // hipconv: the value of an earlier label, where that one is compiled\n"
    assert guard + "  case HIPBLAS_GEMM_DEFAULT:\n#endif\n return 0;" in text
    assert sorted(codes(result)) == ["HC016", "HC030"]
    assert translate(text, path="t.cu")[0] == text


def _vendor_project(root: Path) -> Path:
    src = root / "proj"
    (src / "include").mkdir(parents=True)
    (src / "include" / "vendor.h").write_text(VENDOR_HEADER)
    (src / "main.cu").write_text(
        '#include "include/vendor.h"\n#ifdef MYLIB_USE_HIP\nstatic const char* backend = "rocm";\n#else\n'
        'static const char* backend = "cuda";\n#endif\nint main() { mylib_check(cudaDeviceSynchronize()); }\n'
    )
    return src


def test_a_project_translated_twice_is_translated_once(tmp_path: Path) -> None:
    """The switch seen only through its header's CUDA include applies to the whole tree on the first run: a
    second run over the output writes the same bytes."""
    src = _vendor_project(tmp_path)
    first = run_cli("translate", src, "-o", tmp_path / "once", "--no-cache")
    assert first.code == 0, first.stderr
    once = tree(tmp_path / "once")
    assert once["main.cu"].decode().splitlines()[2] == "#if 1 /* hipconv: #ifdef MYLIB_USE_HIP */"
    assert "(MYLIB_USE_HIP, 2 tests)" in first.stderr and first.stderr.count("note[HC030]") == 2
    second = run_cli("translate", tmp_path / "once", "-o", tmp_path / "twice", "--no-cache")
    assert second.code == 0, second.stderr
    assert tree(tmp_path / "twice") == once


def test_scan_names_a_switch_seen_through_cuda_code(tmp_path: Path) -> None:
    run = run_cli("scan", _vendor_project(tmp_path), "--format", "json")
    assert run.code == 0, run.stderr
    assert run.stdout.count(b'"code": "HC030"') == 2
    assert b"own HIP path (MYLIB_USE_HIP, 2 tests); its AMD branches are translated (CUDA code here)" in run.stdout


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize(
    "include", ["#in\\{nl}clude <cuda_runtime.h>", "#\\{nl}include <cuda_runtime.h>", "#include <cuda_\\{nl}runtime.h>"]
)
def test_a_spliced_cuda_include_keeps_the_file_a_cuda_file(include: str, newline: str) -> None:
    """`#in\\<newline>clude <cuda_runtime.h>` is an include to the compiler, but not to the byte-level reading of
    includes (include_closure.include_lines): a file with it, a `hip/` header and HIP names read as written for
    HIP and was kept whole, its CUDA names left (#40)."""
    lines = ["#include <hip/hip_runtime.h>", include.format(nl=newline), "cudaStream_t s; hipEvent_t e;", ""]
    src = newline.join(lines)
    assert include_lines(src.encode())[1] == (False, "cuda_runtime.h")
    text, _ = translate(src)
    assert "hipStream_t s; hipEvent_t e;" in text and translate(text)[0] == text


@pytest.mark.parametrize(
    ("src", "paths"),
    [
        pytest.param("#\\\n include <a.h>\n", ["a.h"], id="hash-spliced"),
        pytest.param("/* c */#in\\\nclude <a.h>\n", ["a.h"], id="word-spliced-after-a-comment"),
        pytest.param("#else\\\n#include <a.h>\n", [], id="in-an-else-line"),
        pytest.param("/* c */#else\\\r\n#include <a.h>\n", [], id="in-an-else-line-after-a-comment"),
        pytest.param("#define X 1 \\\n#include <a.h>\n", [], id="in-a-define"),
        pytest.param("int x; \\\n#include <a.h>\n", [], id="after-code"),
        pytest.param("#include /* c */<a.h>\n", ["a.h"], id="comment-before-the-path"),
    ],
)
def test_include_lines_read_logical_lines(src: str, paths: list[str]) -> None:
    """A `#include` on a line that a splice joins to the one above is no include unless that line is its `#`
    (#40, found by the random slow fuzz lane: `#else\\<newline>#include <cuda_runtime.h>` with a comment before
    the `#else` was an include, without it none, so the file read as written for HIP only without the comment)."""
    assert [path for _, path in include_lines(src.encode())] == paths


def test_a_macro_the_project_defines_is_no_switch(tmp_path: Path) -> None:
    """Defined in one file (derived from the target), tested around HIP code in another: left alone."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "features.h").write_text("#if defined(__gfx90a__)\n#define MYLIB_HIP_FAST_MATH\n#endif\n")
    kernel = '#include "features.h"\n#ifdef MYLIB_HIP_FAST_MATH\nhipStream_t s;\n#endif\ncudaStream_t t;\n'
    (tmp_path / "src" / "k.cu").write_text(kernel)
    run = run_cli("translate", tmp_path / "src", "-o", tmp_path / "out", "--no-cache")
    assert run.code == 0 and "HC030" not in run.stderr, run.stderr
    assert "#ifdef MYLIB_HIP_FAST_MATH\n" in tree(tmp_path / "out")["k.cu"].decode()


@pytest.mark.parametrize(
    "src",
    [
        "#ifdef MYLIB_USE_HIP\nhipEvent_t e; cudaStream_t s;\n#else\ncudaEvent_t e;\n#endif\n",
        "#ifndef USE_ROCM\ncudaEvent_t e;\n#else\nhipEvent_t e; cudaStream_t s;\n#endif\n",
        "#if defined(USE_ROCM) && X\n#include <hip/hip_runtime.h>\ncudaStream_t s;\n"
        "#elif USE_ROCM\ncudaStream_t t;\n#endif\n",
    ],
)
def test_translating_twice_is_translating_once(src: str) -> None:
    """The rewritten tests still select the branches they kept: a second run keeps them too."""
    once, _ = translate(src)
    assert "cudaStream_t" in once
    assert translate(once)[0] == once


def test_note_names_the_switch_once_per_file() -> None:
    src = "#ifdef MYLIB_USE_HIP\nhipStream_t a;\n#endif\n#if !defined(MYLIB_USE_HIP)\ncudaStream_t b;\n#endif\n"
    _, result = translate(src)
    notes = [d for d in result.diagnostics if d.code == "HC030"]
    assert [(d.line, d.col, d.symbol) for d in notes] == [(1, 2, "MYLIB_USE_HIP")]
    assert "own HIP path (MYLIB_USE_HIP, 2 tests); its AMD branches are kept" in notes[0].message


@pytest.mark.parametrize(
    "src",
    [
        pytest.param(ALIAS_HEADER, id="alias-header"),
        pytest.param(
            "#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 0; }\n"
            "void run(float* x) { hipStream_t s; hipStreamCreate(&s); k<<<1, 64, 0, s>>>(x); }\n",
            id="pure-hip-source",
        ),
        pytest.param(
            "#include <hip/hip_runtime.h>\n#define cudaStream_t hipStream_t\nvoid f() { cudaStream_t s; (void)s; }\n",
            id="hip-file-using-its-aliases",
        ),
    ],
)
@pytest.mark.parametrize("path", ["t.h", "t.cu"])
def test_hip_code_noop(src: str, path: str) -> None:
    text, result = translate(src, path=path)
    assert text == src
    assert result.output is None
    assert "HC030" not in codes(result)


def test_a_launch_in_a_comment_asks_for_no_launch_rewrite() -> None:
    """`--kernel-launch hip` on a file written for HIP rewrites its `<<<` launches; a `<<<` in a comment is no
    launch, and the file stays whole (test_fuzz's property 5: with the comment, its CUDA names were renamed)."""
    settings = Settings(Version.parse("6.3"), kernel_launch="hip")
    table = load_ruleset().table(settings)
    src = (
        "#include <hip/hip_runtime.h>\n#define cudaMalloc hipMalloc\n"
        "__global__ void k(float *x) { x[0] = 1; }  // run as k<<<1, 64>>>(x)\n"
        "void run(float *x) { cudaMalloc(&x, 4); }\n"
    )
    assert translate_one(SourceFile.from_bytes("t.cu", src.encode()), table, settings).output is None
    launched = src.replace("void run(float *x) {", "void run(float *x) { k<<<1, 64>>>(x);")
    out = translate_one(SourceFile.from_bytes("t.cu", launched.encode()), table, settings).output or b""
    assert b"{ hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, x);" in out and b"// run as k<<<1, 64>>>(x)" in out


def test_no_hip_path_noop() -> None:
    """A project switch that is not HIP's: translated as today, whatever --project-hip-path says."""
    src = "#ifdef MYLIB_USE_OPENCL\nint q;\n#else\ncudaStream_t s;\n#endif\n"
    assert translate(src)[0] == translate(src, choice="off")[0] == src.replace("cudaStream_t", "hipStream_t")
    assert "HC030" not in codes(translate(src)[1])


def test_off_translates_as_before() -> None:
    src = "#if defined(MYLIB_USE_HIP)\n" + ALIAS_HEADER.split("\n", 2)[2] + "#endif\n"
    text, result = translate(src, choice="off")
    assert text.startswith("#if defined(MYLIB_USE_HIP)\n#define hipMalloc hipMalloc\n#define hipDeviceMapHost ")
    assert "translated without it (--project-hip-path off)" in result.diagnostics[0].message


def test_unknown_choice_is_a_config_error() -> None:
    from hipconv.errors import ConfigError

    with pytest.raises(ConfigError, match="project HIP path"):
        Settings(Version.parse("6.3"), project_hip_path="on")


# --- the project: a switch found in one file applies to every file that tests it --------------------------


def _project(root: Path) -> Path:
    src = root / "proj"
    (src / "include").mkdir(parents=True)
    (src / "include" / "vendor.h").write_text(
        "#pragma once\n#ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif\n"
    )
    (src / "kernels.cu").write_text(
        '#include "include/vendor.h"\n#ifdef MYLIB_USE_HIP\nconstexpr int warp = 64;\n#else\n'
        "constexpr int warp = 32;\n#endif\nvoid f() { cudaDeviceSynchronize(); }\n"
    )
    (src / "config.h").write_text("#ifndef MYLIB_USE_HIP\n#define MYLIB_LANES 32\n#endif\n")
    return src


def test_a_switch_found_in_one_file_applies_to_the_others(tmp_path: Path) -> None:
    src = _project(tmp_path)
    run = run_cli("translate", src, "-o", tmp_path / "out", "--no-cache")
    assert run.code == 0, run.stderr
    out = tree(tmp_path / "out")
    assert out["kernels.cu"].decode().splitlines()[2] == "#if 1 /* hipconv: #ifdef MYLIB_USE_HIP */"
    assert out["config.h"].decode().startswith("#if 0 /* hipconv: #ifndef MYLIB_USE_HIP */\n")
    assert "(MYLIB_USE_HIP, 3 tests)" in run.stderr
    assert run.stderr.count("note[HC030]") == 3  # one per file that tests it


def test_scan_names_the_switch(tmp_path: Path) -> None:
    run = run_cli("scan", INFERENCE, "--format", "json")
    assert run.code == 1  # HC301 in the CUDA branch: a warning
    assert b'"code": "HC030"' in run.stdout and b"own HIP path (MYLIB_USE_HIP, 4 tests)" in run.stdout
    assert run_cli("scan", INFERENCE, "--disable", "HC301").code == 0  # a note alone fails nothing


def test_config_turns_it_off(tmp_path: Path) -> None:
    src = _project(tmp_path)
    (tmp_path / ".hipconv.toml").write_text('project-hip-path = "off"\n')
    run = run_cli("translate", src, "-o", tmp_path / "out", "--no-cache", "--config", tmp_path / ".hipconv.toml")
    assert run.code == 0, run.stderr
    assert tree(tmp_path / "out")["kernels.cu"].decode().splitlines()[2] == "#ifdef MYLIB_USE_HIP"
    (tmp_path / ".hipconv.toml").write_text('project-hip-path = "on"\n')
    bad = run_cli("translate", src, "-o", tmp_path / "out2", "--config", tmp_path / ".hipconv.toml")
    assert bad.code == 2 and "project-hip-path must be one of keep, off" in bad.stderr


def test_option_turns_it_off(tmp_path: Path) -> None:
    src = _project(tmp_path)
    run = run_cli("translate", src, "-o", tmp_path / "out", "--no-cache", "--project-hip-path", "off")
    assert run.code == 0, run.stderr
    assert tree(tmp_path / "out")["config.h"] == b"#ifndef MYLIB_USE_HIP\n#define MYLIB_LANES 32\n#endif\n"
    assert run_cli("translate", src, "--dry-run", "--project-hip-path", "on").code == 2


# --- the AMD branches are the ones compiled ---------------------------------------------------------------


@pytest.mark.hipcc
@pytest.mark.skipif(hipcc_syntax_missing() is not None, reason=hipcc_syntax_missing() or "")
@pytest.mark.parametrize(("choice", "compiles"), [("keep", True), ("off", False)])
def test_amd_branch_compiled_only_when_kept(tmp_path: Path, choice: str, compiles: bool) -> None:
    """device_info.cu holds static_assert(mylib_amd_path): only its AMD branch declares the name."""
    shutil.copytree(INFERENCE, tmp_path / "cuda")
    out = tmp_path / "hip"
    run = run_cli("translate", tmp_path / "cuda", "-o", out, "--rocm-version", "6.3", "--project-hip-path", choice)
    assert run.code == 0, run.stderr
    checked = hipcc_syntax(out / "src" / "device_info.cu", [out / "include", out])
    assert (checked.returncode == 0) is compiles, checked.stderr
    if not compiles:
        assert "mylib_amd_path" in checked.stderr


@pytest.mark.parametrize("target", ["5.2", "6.3"])
def test_noop_fixture_golden_is_its_source(target: str) -> None:
    """The golden of the HIP-written file is the file itself: an --update-golden cannot accept a change to it."""
    case = FIXTURES / "project_switch_noop"
    name = "rms_norm_hip.cu"
    assert (case / f"hip-{target}" / name).read_bytes() == (case / "cuda" / name).read_bytes()


def test_a_macro_hip_declares_is_no_switch() -> None:
    """A translated header-guard test reads HIP's own macro around HIP code: translating again keeps it."""
    src = "#if defined(HIPRAND_VERSION)\nconst char* name(hiprandStatus_t s);\n#endif\n"
    text, result = translate(src)
    assert text == src and "HC030" not in codes(result)
