"""Rewrites that move or drop argument text never corrupt code: comments survive in order and keep
the code after them, directives are never moved, a call whose arguments do not fit is reported and
kept whole, and inserted lines match their neighbours' line endings (issue #14, items 1, 6, 7, 9,
10, 15 and 18)."""

from __future__ import annotations

import itertools

import pytest
from test_translate import RUNTIME, translate

from helpers import ruleset
from hipconv.results import FileStatus
from hipconv.rules.model import RuleStatus
from hipconv.translate.lexer import TokenKind, lex

# (source with {} where a comment may go, ROCm target, launch style): rewrites that move or drop arguments
RESHAPES = [
    pytest.param("v = __shfl_xor_sync({}0xffffffff{},{} v{},{} 16{}){};", "5.2", "chevron", id="shuffle-drops-mask"),
    pytest.param("v = __shfl_down_sync({}mask{},{} v{},{} 1{},{} 32{}){};", "5.2", "chevron", id="shuffle-width"),
    pytest.param("k{}<<<{}g{},{} b{}>>>{}({}x{},{} y{}){};", "6.3", "hip", id="launch"),
    pytest.param("k{}<<<{}g{},{} b{},{} 0{},{} s{}>>>{}({}){};", "6.3", "hip", id="launch-no-args"),
    pytest.param(
        "cudnnSetTensor4dDescriptor({}d{},{} CUDNN_TENSOR_NCHW{},{} CUDNN_DATA_FLOAT{}, n, c, h, w){};",
        "6.3",
        "chevron",
        id="cudnn-template",
    ),
    pytest.param(
        "cudnnSoftmaxForward(h{},{} CUDNN_SOFTMAX_ACCURATE{}, CUDNN_SOFTMAX_MODE_CHANNEL{}, &a, xd, x, &b, yd, y);",
        "6.3",
        "chevron",
        id="cudnn-reorder",
    ),
]
COMMENTS = ["/*c{}*/", "// c{}\n"]


def _comments(text: str) -> list[str]:
    tokens = lex(text.encode())
    return [tokens.raw(i).decode() for i in range(len(tokens)) if tokens.kinds[i] == TokenKind.COMMENT]


def _code(text: str) -> list[str]:
    tokens = lex(text.encode())
    return [tokens.text(i) for i in range(len(tokens)) if tokens.kinds[i] != TokenKind.COMMENT]


@pytest.mark.parametrize(("template", "rocm", "launch"), RESHAPES)
@pytest.mark.parametrize("style", COMMENTS, ids=["block", "line"])
def test_a_comment_in_any_gap_of_a_rewritten_call_survives_and_comments_out_nothing(
    template: str, rocm: str, launch: str, style: str
) -> None:
    gaps = template.count("{}")
    plain, _ = translate("__global__ void f() { " + template.format(*[""] * gaps) + " }", rocm=rocm, launch=launch)
    for gap in range(gaps):
        src = "__global__ void f() { " + template.format(*[style.format(gap) if n == gap else "" for n in range(gaps)])
        src += " }"
        out, result = translate(src, rocm=rocm, launch=launch)
        assert result.status is not FileStatus.FAILED, result.reason
        assert _comments(out) == _comments(src), (src, out)
        # the same code as without the comment: the comment neither swallowed nor moved any of it
        assert _code(out) == _code(plain), (src, out)
        assert translate(out, rocm=rocm, launch=launch)[0] == out, "not idempotent"


def test_a_line_comment_in_a_dropped_argument_is_kept_on_its_own_line() -> None:
    out, _ = translate("v = __shfl_xor_sync(0xffffffff, v, 16 // lane\n);", rocm="5.2")
    assert out == "v = __shfl_xor(v, 16 // lane\n);"


def test_comments_around_the_chevrons_survive_a_launch_rewrite() -> None:
    out, _ = translate("k /*a*/ <<< /*b*/ g, b /*c*/ >>> /*d*/ (x);", launch="hip")
    assert out == RUNTIME + "hipLaunchKernelGGL(k /*a*/, dim3(/*b*/ g), dim3(b /*c*/ /*d*/), 0, 0, x);"


@pytest.mark.parametrize(
    ("src", "code"),
    [
        pytest.param("#if FAST\n k\n#endif\n <<<1, 1>>>(n);\n", "HC008", id="directive-in-kernel-expression"),
        pytest.param("k<<<1,\n#if BIG\n 256\n#else\n 64\n#endif\n>>>(n);\n", "HC008", id="directive-in-config"),
        pytest.param(
            "v = __shfl_xor_sync(0xffffffff,\n#if A\n v\n#else\n w\n#endif\n, 16);\n", "HC007", id="directive-in-call"
        ),
        pytest.param("#define S(v) __shfl_xor_sync(0xffffffff, v, 16 // lane\n)\n", "HC007", id="call-past-macro-end"),
    ],
)
def test_a_rewrite_never_moves_or_drops_a_directive(src: str, code: str) -> None:
    out, result = translate(src, rocm="5.2", launch="hip")
    assert out == (RUNTIME if "<<<" in src else "") + src  # a .cpp file holding a launch gets the runtime
    assert code in [d.code for d in result.diagnostics]


def _reshaping_rules():
    for rule in ruleset().rules:
        if rule.params and rule.status is RuleStatus.SUPPORTED and (rule.template or rule.args != rule.params):
            yield rule


def test_every_reshaping_rule_reports_a_call_with_too_few_arguments_and_translates_the_rest() -> None:
    rules = list(_reshaping_rules())
    assert len(rules) > 10
    for rule in rules:
        assert rule.params is not None
        target = str(rule.rocm.since or "6.3")
        for count in range(len(rule.params) - len(rule.optional)):
            args = ", ".join(["ARGS", *(f"a{n}" for n in range(1, count))]) if count else ""
            src = f"void f() {{ {rule.cuda}({args}); cudaFree(p); }}"
            out, result = translate(src, rocm=target)
            assert result.status is not FileStatus.FAILED, (src, result.reason)
            assert "HC007" in [d.code for d in result.diagnostics], src
            assert f"{rule.cuda}({args});" in out and "hipFree(p)" in out, (src, out)


def test_a_call_left_unchanged_is_kept_whole() -> None:
    out, result = translate("cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, c, h, w);")
    assert out == "cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, c, h, w);"
    assert [d.code for d in result.diagnostics] == ["HC202"]
    assert not result.replacements


def test_a_comment_in_a_cudnn_argument_is_not_a_different_argument() -> None:
    src = "cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW /* layout */, CUDNN_DATA_FLOAT, n, c, h, w);"
    out, result = translate(src)
    assert "HC202" not in [d.code for d in result.diagnostics]
    assert out == "miopenSet4dTensorDescriptor(d /* layout */, miopenFloat, n, c, h, w);"


def test_a_launch_inside_a_reshaped_call_is_an_argument_of_it() -> None:
    src = "__global__ void g(int); __global__ void k(int v) { v = __shfl_xor_sync(0xffffffff, g<<<1,1>>>(v), 16); }"
    out, _ = translate(src, rocm="5.2", launch="hip")
    assert "__shfl_xor(hipLaunchKernelGGL(g, dim3(1), dim3(1), 0, 0, v), 16)" in out
    assert translate(out, rocm="5.2", launch="hip")[0] == out


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_file_that_starts_with_a_line_splice_is_translated_once(newline: str) -> None:
    src = f"\\{newline}__syncthreads();{newline}cudaFree(p);{newline}"
    out, _ = translate(src, path="t.cu")
    assert out == f"#include <hip/hip_runtime.h>{newline}\\{newline}__syncthreads();{newline}hipFree(p);{newline}"
    assert translate(out, path="t.cu")[0] == out


@pytest.mark.parametrize(("first", "rest"), itertools.permutations(["\n", "\r\n"]))
def test_inserted_lines_take_the_line_ending_of_the_line_they_join(first: str, rest: str) -> None:
    src = f"__global__ void k() {{{first}  __syncthreads();{rest}}}{rest}"
    out, _ = translate(src, path="t.cu")
    inserted = out[: out.index("__global__")]
    assert inserted.count("\n") == inserted.count(first) and inserted.endswith(first)
    assert out.endswith(src)


# Found by tests/test_fuzz.py: each is the smallest input of its class.
@pytest.mark.parametrize(
    ("src", "rocm", "launch", "expected"),
    [
        pytest.param(
            "cub::/* c */DeviceReduce::Sum(a, b, c, d, n);",
            "6.3",
            "chevron",
            "/* c */ hipcub::DeviceReduce::Sum(a, b, c, d, n);",
            id="comment-inside-a-qualified-name",
        ),
        pytest.param(
            "k<<<g, b\\\n, 0, s>>>(x);",
            "6.3",
            "hip",
            "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, s, x);",
            id="splice-before-a-comma",
        ),
        pytest.param(
            "v = __shfl_xor_sync(0xffffffff\\\n, v, 16);",
            "5.2",
            "chevron",
            "v = __shfl_xor(v, 16);",
            id="splice-in-call",
        ),
        pytest.param(
            "k<<<dim3/* c */(8, 8), b>>>(x);",
            "6.3",
            "hip",
            "hipLaunchKernelGGL(k, dim3/* c */(8, 8), dim3(b), 0, 0, x);",
            id="dim3-with-a-comment",
        ),
        pytest.param(
            "#\\\ninclude <cuda_runtime.h>\n",
            "6.3",
            "chevron",
            "#\\\ninclude <hip/hip_runtime.h>\n",
            id="spliced-include",
        ),
        pytest.param(
            "#\ninclude <cuda_runtime.h>\n", "6.3", "chevron", "#\ninclude <cuda_runtime.h>\n", id="null-directive"
        ),
        pytest.param(
            '#include "cuda_fp16.h"x\n', "6.3", "chevron", '#include "hip/hip_fp16.h"x\n', id="include-path-with-suffix"
        ),
    ],
)
def test_fuzzed_classes(src: str, rocm: str, launch: str, expected: str) -> None:
    out, result = translate(src, rocm=rocm, launch=launch)
    assert result.status is not FileStatus.FAILED, result.reason
    assert out == (RUNTIME if "<<<" in src else "") + expected  # a .cpp file holding a launch gets the runtime


def test_the_runtime_include_comes_before_a_call_left_unchanged() -> None:
    out, result = translate("__ballot_sync(m);\n", rocm="5.2", path="t.cu")
    assert out == "#include <hip/hip_runtime.h>\n__ballot_sync(m);\n"
    assert [d.code for d in result.diagnostics] == ["HC007"]
