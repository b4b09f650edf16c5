"""A project's operators on vector types that HIP declares (hipconv/translate/vector_ops.py, HC012), and the
data that says which (hipconv/data/hip.vector-ops, probed by tools/derive/vector_ops.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hipconv.api import translate_source
from hipconv.resources import data_file, hip_releases
from tools.derive import vector_ops as derive
from tools.derive.header_guards import HIP_TREES

HD = "inline __host__ __device__"


def _translate(src: str, rocm: str = "6.3") -> tuple[str, list[str]]:
    done = translate_source(src, path="helpers.h", rocm_version=rocm)
    return done.text, [d.code for d in done.diagnostics]


@pytest.mark.parametrize(
    ("src", "hip_declaration"),
    [
        pytest.param(
            f"{HD} float4 operator+(float4 a, float4 b)\n{{\n    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, "
            "a.w + b.w);\n}\n",
            "operator+(HIP_vector_type<float, 4>, HIP_vector_type<float, 4>)",
            id="vector-plus-vector",
        ),
        pytest.param(
            f"{HD} void operator*=(int3 &a, int b) {{ a.z *= b; a.x *= b; a.y *= b; }}\n",
            "HIP_vector_type<int, 3>::operator*=",
            id="compound-scalar-any-order",
        ),
        pytest.param(
            f"{HD} uint2 &operator|=(uint2 &a, const uint2 &b) {{ a.x |= b.x; a.y |= b.y; return a; }}\n",
            "HIP_vector_type<unsigned int, 2>::operator|=",
            id="compound-returning-reference",
        ),
        pytest.param(
            f"{HD} float2 operator*(float s, float2 v) {{ return make_float2(v.x * s, v.y * s); }}\n",
            "operator*(U, HIP_vector_type<float, 2>)",
            id="scalar-left-commuted",
        ),
        pytest.param(
            f"{HD} int4 operator~(const int4 &a) {{ return make_int4(~a.x, ~a.y, ~a.z, ~a.w); }}\n",
            "HIP_vector_type<int, 4>::operator~",
            id="unary-complement",
        ),
        pytest.param(
            f"namespace vm {{\nstatic {HD} double2 operator-(double2 a, double b)\n{{ return make_double2(a.x - b, "
            "a.y - b); }\n}\n",
            "operator-(HIP_vector_type<double, 2>, U)",
            id="in-a-namespace",
        ),
    ],
)
def test_served_definition_is_disabled(src: str, hip_declaration: str) -> None:
    out, codes = _translate(src)
    assert codes == ["HC012"]
    body = src.splitlines(keepends=True)
    first = next(n for n, line in enumerate(body) if "operator" in line)
    closing = src.rindex("}") + 1
    if src.startswith("namespace"):
        closing = src.rindex("}", 0, closing - 1) + 1  # the namespace's brace is not the definition's
    expected = (
        "".join(body[:first])
        + f"#if 0 // hipconv: HIP declares {hip_declaration}\n"
        + src[len("".join(body[:first])) : closing]
        + "\n#endif"
        + src[closing:]
    )
    assert out == expected
    assert _translate(out) == (out, [])  # a rerun leaves hipconv's output alone


@pytest.mark.parametrize(
    "src",
    [
        pytest.param(
            f"{HD} float3 operator^(float3 a, float3 b) {{ return make_float3(a.y * b.z - a.z * b.y, "
            "a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }\n",
            id="cross-product",
        ),
        pytest.param(
            f"{HD} float3 operator/(float3 a, float b) {{ float inv = 1.0f / b; return a * inv; }}\n", id="reciprocal"
        ),
        pytest.param(
            f"{HD} int2 operator*(int2 a, float s) {{ return make_int2(a.x * s, a.y * s); }}\n",
            id="scalar-of-another-type",
        ),
        pytest.param(
            f"{HD} float2 operator-(float b, float2 a) {{ return make_float2(a.x - b, a.y - b); }}\n",
            id="not-commutative-swapped",
        ),
        pytest.param(
            f"{HD} float2 operator%(float2 a, float2 b) {{ return make_float2(fmodf(a.x, b.x), fmodf(a.y, b.y)); }}\n",
            id="hip-lacks-float-modulo",
        ),
        pytest.param(
            f"{HD} uint2 operator-(uint2 a) {{ return make_uint2(-a.x, -a.y); }}\n", id="hip-lacks-unsigned-negation"
        ),
        pytest.param(
            f"{HD} float4 operator*(float4 a, float4 b) {{ return make_float4(a.x * b.x, a.y * b.y, "
            "a.z * b.z, a.z * b.w); }\n",
            id="wrong-component",
        ),
        pytest.param(f"{HD} float3 operator+(float3 a, float3 b);\n", id="declaration-only"),
        pytest.param(
            "template <class V> __device__ V operator+(V a, V b) { return make_float2(a.x + b.x, a.y + b.y); }\n",
            id="template",
        ),
        pytest.param(
            "struct Grid {\n  __device__ float3 operator-(float3 a) const { return make_float3(-a.x, -a.y, "
            "-a.z); }\n};\n",
            id="member",
        ),
        pytest.param(
            "#define NEG(T) inline T operator-(T a) { return make_##T(-a.x, -a.y); }\nNEG(float2)\n", id="macro"
        ),
    ],
)
def test_other_definitions_are_kept_noop(src: str) -> None:
    assert _translate(src) == (src, [])


def test_code_after_the_closing_brace_goes_on_a_line_of_its_own() -> None:
    src = f"{HD} int2 operator+(int2 a, int2 b) {{ return make_int2(a.x + b.x, a.y + b.y); }} int after;\n"
    out, codes = _translate(src)
    assert codes == ["HC012"]
    assert out.endswith("a.y + b.y); }\n#endif\n int after;\n")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_line_splice_after_the_brace_stays_out_of_the_endif(newline: str) -> None:
    """`}\\` then a declaration (issue #40 item 7): the `#endif` gets a line of its own, so the splice joins
    an empty line to the declaration and the declaration stays code."""
    plus = f"{HD} int2 operator+(int2 a, int2 b) {{ return make_int2(a.x + b.x, a.y + b.y); }}"
    src = f"{plus}\\{newline}int after;{newline}"
    out, codes = _translate(src)
    assert codes == ["HC012"]
    assert out.endswith(f"a.y + b.y); }}{newline}#endif{newline}\\{newline}int after;{newline}")
    assert _translate(out) == (out, [])


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("tail", ["\\", " /* c */ \\"])
def test_a_line_splice_onto_a_blank_line_stays_out_of_the_endif(newline: str, tail: str) -> None:
    """`}\\` then a blank line (found by tests/test_fuzz.py's spliced line breaks): the `#endif` ended in the
    splice (`#endif\\`), a directive continued onto the next line; it gets a line of its own."""
    plus = f"{HD} int2 operator+(int2 a, int2 b) {{ return make_int2(a.x + b.x, a.y + b.y); }}"
    out, codes = _translate(f"{plus}{tail}{newline}{newline}int after;{newline}")
    assert codes == ["HC012"]
    assert out.endswith(f"a.y + b.y); }}{newline}#endif{newline}{tail}{newline}{newline}int after;{newline}")
    assert _translate(out) == (out, [])


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_directive_a_splice_joins_to_the_brace_stays_code(newline: str) -> None:
    """`}\\` then `#include <cuda_runtime.h>` (found by tests/test_fuzz.py's spliced guards): the `#endif` went
    right after the brace, so the splice joined a blank line to the `#include`, which became a directive (a
    second runtime include); what the splice joins stays with the code, under the `#if 0`, as for the other
    guards (translate.branches.closing_edit)."""
    plus = f"{HD} int2 operator+(int2 a, int2 b) {{ return make_int2(a.x + b.x, a.y + b.y); }}"
    out, codes = _translate(f"{plus}\\{newline}#include <cuda_runtime.h>{newline}int after;{newline}")
    assert codes == ["HC012"]
    assert out.endswith(
        f"a.y + b.y); }}\\{newline}#include <cuda_runtime.h>{newline}#endif{newline}int after;{newline}"
    )
    assert _translate(out) == (out, [])


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        pytest.param(
            "\\@/* c */#include <cuda_runtime.h>@int after;@",
            "\\@/* c */#include <cuda_runtime.h>@#endif@int after;@",
            id="comment-before-the-hash",  # a comment before the `#` hid it: the #endif went before the splice
        ),
        pytest.param(" /* c */ # x@int after;@", " /* c */ # x@#endif@int after;@", id="comment-then-hash-on-the-line"),
        pytest.param(
            "\\@# /* a@ b */@int after;@", "\\@# /* a@ b */@#endif@int after;@", id="comment-across-the-line-break"
        ),  # the #endif went at the line break inside the comment
        pytest.param(
            "\\@# /* include <cuda_runtime.h>@",
            "\\@# @#endif@/* include <cuda_runtime.h>@",
            id="comment-never-closed",  # (#40): the #endif went into it, and the #if 0 was never closed
        ),
    ],
)
def test_a_directive_comments_join_to_the_brace_stays_code(newline: str, tail: str, expected: str) -> None:
    """`}` then a `#` that a splice or comments join to its line (found by tests/test_fuzz.py's spliced guards):
    it stays code, under the `#if 0`, and the `#endif` goes at the end of the line, outside every comment."""
    plus = f"{HD} int2 operator+(int2 a, int2 b) {{ return make_int2(a.x + b.x, a.y + b.y); }}"
    out, codes = _translate(plus + tail.replace("@", newline))
    assert codes == ["HC012"]
    assert out.endswith("a.y + b.y); }" + expected.replace("@", newline))
    assert _translate(out) == (out, [])


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_definition_after_a_directive_spliced_under_a_guard_is_disabled_in_one_pass(newline: str) -> None:
    """`}\\` then `#include <x>` (code, kept under the first `#if 0`), then a second definition (found by
    tests/test_fuzz.py's guarded draws): the code before it is no statement end, so it was left, and a second
    pass, which sees the first guard's `#endif` line before it, disabled it then."""
    plus = f"{HD} int2 operator+(int2 a, int2 b) {{ return make_int2(a.x + b.x, a.y + b.y); }}"
    out, codes = _translate(f"{plus}\\{newline}#include <stdio.h>{newline}{plus}{newline}")
    assert codes == ["HC012", "HC012"]
    assert f"#include <stdio.h>{newline}#endif{newline}#if 0 // hipconv: HIP declares operator+(" in out
    assert out.count("#if 0 // hipconv: HIP declares") == 2 and out.count("#endif") == 2
    assert _translate(out) == (out, [])
    # a directive of its own before the definition is a boundary as before; code joined to it is none
    assert _translate(f"int x;{newline}#include <stdio.h>{newline}{plus}{newline}")[1] == ["HC012"]
    assert _translate(f"int x; \\{newline}#include <stdio.h>{newline}{plus}{newline}")[1] == []


def test_a_comment_before_the_first_definition_stays_above_its_if_0() -> None:
    """A file starting `/* c */ definition`: the `#if 0` went before the comment, where the runtime include goes
    too, so the include was lost and a second pass added it, and then a second `#if 0` (found by test_fuzz)."""
    src = f"/* c */ {HD} int2 operator+(int2 a, int2 b) {{ return make_int2(a.x + b.x, a.y + b.y); }}\n"
    done = translate_source(src, path="k.cu", rocm_version="6.3")
    out = done.text
    assert out.startswith("/* c */ \n#include <hip/hip_runtime.h>\n\n#if 0 // hipconv: HIP declares operator+(")
    assert out.count("#if 0") == 1 and [d.code for d in done.diagnostics] == ["HC012"]
    assert translate_source(out, path="k.cu", rocm_version="6.3").text == out


@pytest.mark.parametrize("word", ["cudaMalloc", "hipMalloc"])
def test_an_api_name_before_the_definition_is_no_specifier(word: str) -> None:
    """`cudaMalloc` then a definition (found by test_fuzz): the `#if 0` line, written with that first word, undid
    its rename until a second pass; with `hipMalloc` the `#if 0` was left out and the `#endif` stayed."""
    plus = f"{HD} int2 operator+(int2 a, int2 b) {{ return make_int2(a.x + b.x, a.y + b.y); }}"
    src = f"#include <cuda_runtime.h>\n{word}\n{plus}\n"
    assert _translate(src.replace(word, "static"))[1] == ["HC012"]  # the same definition with a specifier
    out, codes = _translate(src)
    assert "#if" not in out and "#endif" not in out and "hipMalloc\n" in out and codes == []
    assert _translate(out) == (out, [])


def test_a_definition_after_a_line_splice_is_disabled_on_a_line_of_its_own() -> None:
    src = f"int before; \\\n{HD} int2 operator-(int2 a, int2 b) {{ return make_int2(a.x - b.x, a.y - b.y); }}\n"
    out, codes = _translate(src)
    assert codes == ["HC012"]
    assert out.startswith("int before; \\\n\n#if 0 // hipconv: HIP declares operator-(")
    assert _translate(out) == (out, [])


def test_two_definitions_on_one_line_are_disabled_in_one_pass() -> None:
    """Issue #40 item 12: the second definition of a line was left for a second pass."""
    plus = f"{HD} int2 operator+(int2 a, int2 b) {{ return make_int2(a.x + b.x, a.y + b.y); }}"
    minus = f"{HD} int2 operator-(int2 a, int2 b) {{ return make_int2(a.x - b.x, a.y - b.y); }}"
    out, codes = _translate(f"{plus} {minus}\n")
    assert codes == ["HC012", "HC012"]
    assert out.count("#if 0 // hipconv: HIP declares") == 2 and out.count("#endif") == 2
    assert _translate(out) == (out, [])


@pytest.mark.parametrize(
    ("src", "differs"),
    [
        pytest.param(
            f"{HD} char4 operator<<(char4 a, char4 b)\n{{ return make_char4(a.x << b.x, a.y << b.y, a.z << b.z, "
            "a.w << b.w); }\n",
            "shift counts from the element's width up to 31",
            id="narrow-shift",
        ),
        pytest.param(
            f"{HD} short2 operator/(short2 a, short2 b) {{ return make_short2(a.x / b.x, a.y / b.y); }}\n",
            "MIN / -1 and MIN % -1",
            id="narrow-division",
        ),
        pytest.param(
            f"{HD} uchar4 operator>>(unsigned char s, uchar4 a)\n"
            "{ return make_uchar4(s >> a.x, s >> a.y, s >> a.z, s >> a.w); }\n",
            "the probed values",
            id="narrow-scalar-shifted",
        ),
    ],
)
def test_a_narrow_operator_hip_computes_otherwise_is_kept_and_reported(src: str, differs: str) -> None:
    """Issue #39 item 1: on char/short 2- and 4-vectors HIP's `<<`, `>>`, `/`, `%` compute in the element
    type where the project's helper computes in the promoted int; the definition stays, with a note."""
    for rocm in ("5.2", "6.3", "7.2"):
        done = translate_source(src, path="helpers.h", rocm_version=rocm)
        assert done.text == src, rocm
        assert [d.code for d in done.diagnostics] == ["HC012"], rocm
        message = done.diagnostics[0].message
        assert "kept" in message and differs in message and "disabled" not in message, message


def test_a_three_vector_shift_is_exact_and_disabled() -> None:
    """HIP's 3-vectors compute component by component in the promoted int, as the helper does."""
    src = f"{HD} char3 operator<<(char3 a, char3 b) {{ return make_char3(a.x << b.x, a.y << b.y, a.z << b.z); }}\n"
    out, codes = _translate(src)
    assert codes == ["HC012"] and out.startswith("#if 0 // hipconv: HIP declares operator<<(")


def test_data_names_bundled_releases_and_known_forms() -> None:
    bundled = hip_releases()
    lines = data_file("hip.vector-ops").read_text(encoding="utf-8").splitlines()
    assert lines == sorted(lines)
    for line in lines:
        op, form, types, spans, *differs = line.split("\t")
        assert differs in ([], ["values"], [derive.SHIFT_COUNTS], [derive.MIN_BY_MINUS_ONE]), line
        assert form in derive.FORMS and op in derive.BINARY_OPS + derive.UNARY_OPS, line
        assert types and spans and all(r in bundled for s in spans.split(",") for r in s.split("-")), line
    # what a helper_math.h user meets first: served by every bundled release
    assert any(line.startswith("+\tvv=\t") and "float3" in line and line.endswith("\t5.2-7.2") for line in lines)


def test_releases_between_probes_that_disagree_serve_nothing() -> None:
    measured = {"5.2": {("+", "vv", "float2"), (">>", "sv", "char4")}, "6.3": {("+", "vv", "float2")}}
    got = derive.infer(measured, ["5.2", "5.7", "6.3", "6.4"])
    assert got["5.7"] == got["6.3"] == got["6.4"] == {("+", "vv", "float2")}
    assert got["5.2"] == measured["5.2"]


def _probe_tools_missing() -> str | None:
    for release, tree in HIP_TREES.items():
        if not (tree / "hip" / "amd_detail" / "amd_hip_vector_types.h").is_file():
            return f"no HIP {release} headers at {tree}"
    for tool in ("hipcc", "clang++-19"):
        if shutil.which(tool) is None:
            return f"{tool} not found"
    if not (derive.INVENTORY / "MANIFEST.json").is_file():
        return f"no API inventory at {derive.INVENTORY}"
    return None


@pytest.mark.slow
@pytest.mark.hipcc
def test_probing_the_headers_reproduces_the_committed_data() -> None:
    """The committed data is what the probes of the real headers find (about a minute)."""
    reason = _probe_tools_missing()
    if reason is not None:
        pytest.skip(reason)
    committed: Path = data_file("hip.vector-ops")
    assert derive.derive() == committed.read_text(encoding="utf-8"), "run python -m tools.derive.vector_ops"


ROCM63 = HIP_TREES["6.3"].parent
NARROW_CASE = Path(__file__).parent / "fixtures" / "vector_narrow_ints"


def _wrap(value: int, bits: int, *, signed: bool) -> int:
    """An int converted to an integer type of `bits` bits (two's complement), as C++ converts it."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >= 1 << (bits - 1) else value


def _cuda_output() -> list[str]:
    """What the CUDA program of vector_narrow_ints prints: each helper computes in the promoted int, then
    converts to the element type (C++'s rules, computed here)."""
    packed = [_wrap(a << b, 8, signed=True) for a, b in zip((7, 5, 100, 1), (8, 9, 20, 7), strict=True)]
    down = [200 >> 8, 13 >> 2]
    rgb = [_wrap(a << b, 8, signed=True) for a, b in ((3, 9), (1, 2), (64, 1))]
    return [
        "packed " + " ".join(map(str, packed)),
        "down " + " ".join(map(str, down)),
        "rgb " + " ".join(map(str, rgb)),
        "uv 2.25 1",
    ]


def test_narrow_vector_operators_compute_what_cuda_does(tmp_path: Path) -> None:
    """Issue #39 item 1, proven by a run: the vector_narrow_ints fixture's HIP output (the narrow operators
    kept, the exact ones disabled in favour of HIP's), compiled for the host with ROCm 6.3's headers and run,
    prints CUDA's results, where HIP's own operators would not: shown by the same program with the kept
    definitions disabled too."""
    if shutil.which("clang++-19") is None or not (HIP_TREES["6.3"] / "hip" / "hip_runtime.h").is_file():
        reason = "needs clang++-19 and ROCm 6.3's headers (../shared/rocm-6.3)"
        print(f"test_narrow_vector_operators_compute_what_cuda_does: skipped: {reason}")
        pytest.skip(reason)
    hip = tmp_path / "hip"
    shutil.copytree(NARROW_CASE / "hip-6.3", hip)
    hip_only = tmp_path / "hip_only"
    shutil.copytree(hip, hip_only)
    # no definition at all: HIP's operators alone
    (hip_only / "pixel_ops.h").write_text("#pragma once\n#include <hip/hip_runtime.h>\n", encoding="utf-8")

    def run(folder: Path) -> list[str]:
        binary = folder / "filter"
        command = [
            *("clang++-19", "-x", "hip", "--offload-arch=gfx90a", "--cuda-host-only", "-nogpulib"),
            *(f"--rocm-path={ROCM63}", "-isystem", str(HIP_TREES["6.3"]), "-w", "-O0"),
            *(str(folder / "filter.cu"), "-o", str(binary)),
        ]
        subprocess.run(command, check=True, capture_output=True, timeout=300)
        done = subprocess.run([binary], capture_output=True, text=True, timeout=60, check=False)
        return done.stdout.splitlines()

    assert run(hip) == _cuda_output()
    hip_alone = run(hip_only)
    assert hip_alone[2:] == _cuda_output()[2:]  # the 3-vector and float operators: exact
    assert hip_alone[0] != _cuda_output()[0]  # HIP's char4 << shifts in the element type
