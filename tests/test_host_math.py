"""Host math nvcc makes visible (hipconv/translate/matchers/host_math.py): <math.h> beside the runtime include,
note HC032; (src, expected) pairs, the noop inputs, and the compile that proves the include is needed."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from hipconv.diagnostics import HOST_MATH_INCLUDED
from hipconv.rules import load_ruleset
from hipconv.rules.model import LookupTable
from hipconv.settings import Settings, Version
from hipconv.translate.matchers.host_math import names
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import translate_one
from tests.helpers import hipcc_syntax, hipcc_syntax_missing

FIXTURE = Path(__file__).parent / "fixtures" / "host_math_visible"
HOST_CHECK = "int ok(float x) {\n  return isfinite(x);\n}\n"
KERNEL = "__global__ void k(float *v) { v[0] = 1.0f; }\n"


@functools.cache
def _table(rocm: str) -> tuple[LookupTable, Settings]:
    settings = Settings(Version.parse(rocm))
    return load_ruleset().table(settings), settings


def translate(src: str, path: str = "t.cu") -> tuple[str, list[str]]:
    table, settings = _table("6.3")
    result = translate_one(SourceFile.from_bytes(path, src.encode()), table, settings)
    text = result.output.decode() if result.output is not None else src
    return text, [f"{d.line}:{d.code}" for d in result.diagnostics]


@pytest.mark.parametrize(
    ("src", "expected", "line"),
    [
        pytest.param(
            "#include <stdio.h>\n" + KERNEL + HOST_CHECK,
            "#include <hip/hip_runtime.h>\n#include <math.h>\n#include <stdio.h>\n" + KERNEL + HOST_CHECK,
            4,
            id="runtime-added",
        ),
        pytest.param(
            "#include <stdio.h>\n" + HOST_CHECK,
            "#include <math.h>\n#include <stdio.h>\n" + HOST_CHECK,
            3,
            id="host-only-cu",  # no CUDA: hipcc includes the runtime itself, and <math.h> is still wanted
        ),
        pytest.param(
            "#include <cuda_runtime.h>\n#include <stdio.h>\n" + HOST_CHECK,
            "#include <hip/hip_runtime.h>\n#include <math.h>\n#include <stdio.h>\n" + HOST_CHECK,
            4,
            id="after-the-runtime-include",
        ),
        pytest.param(
            "__host__ __device__ float norm(float x, float y) { return sqrt(x * x + y * y); }\n",
            "#include <hip/hip_runtime.h>\n#include <math.h>\n"
            "__host__ __device__ float norm(float x, float y) { return sqrt(x * x + y * y); }\n",
            1,
            id="host-device",
        ),
        pytest.param(
            "#include <stdio.h>\n"
            "#define BAD(x) (isnan(x) || isinf(x))\nint count(const float *v) { return BAD(v[0]); }\n",
            "#include <math.h>\n#include <stdio.h>\n"
            "#define BAD(x) (isnan(x) || isinf(x))\nint count(const float *v) { return BAD(v[0]); }\n",
            2,
            id="macro-body",
        ),
        pytest.param(
            "__global__ void k(float *v) { v[0] = fabsf(v[0]); }\nfloat m(float a) { return abs(a); }\n",
            "#include <hip/hip_runtime.h>\n#include <math.h>\n"
            "__global__ void k(float *v) { v[0] = fabsf(v[0]); }\nfloat m(float a) { return abs(a); }\n",
            2,
            id="host-after-kernel",
        ),
    ],
)
def test_host_math_gets_math_h(src: str, expected: str, line: int) -> None:
    text, diagnostics = translate(src)
    assert text == expected
    assert diagnostics == [f"{line}:{HOST_MATH_INCLUDED}"]


def test_header_gets_it_above_its_first_hip_include() -> None:
    src = "#ifndef N_H\n#define N_H\n#include <cuda_fp16.h>\ninline bool ok(float x) { return !isnan(x); }\n#endif\n"
    text, diagnostics = translate(src, "n.cuh")
    assert text == (
        "#ifndef N_H\n#define N_H\n#include <hip/hip_runtime.h>\n#include <math.h>\n#include <hip/hip_fp16.h>\n"
        "inline bool ok(float x) { return !isnan(x); }\n#endif\n"
    )
    assert diagnostics == [f"4:{HOST_MATH_INCLUDED}"]


@pytest.mark.parametrize(
    ("src", "path"),
    [
        pytest.param("#include <math.h>\n#include <stdio.h>\n" + HOST_CHECK, "t.cu", id="math-h-included"),
        pytest.param('#include "math.h"\n' + HOST_CHECK, "t.cu", id="math-h-quoted"),
        pytest.param("#include <cmath>\nbool ok(float x) { return std::isnan(x); }\n", "t.cu", id="std-qualified"),
        pytest.param("bool ok(float x) { return ::isnan(x); }\n", "t.cu", id="global-qualified"),
        pytest.param(
            "struct V { float abs(); };\nfloat f(V v, V *p) { return v.abs() + p->abs(); }\n", "t.cu", id="member"
        ),
        pytest.param("float sqrt(float);\ntemplate <class T> T abs(T);\n", "t.cu", id="declaration"),
        pytest.param("__global__ void k(float *v) { if (isnan(v[0])) v[0] = sqrt(v[1]); }\n", "t.cu", id="kernel"),
        pytest.param("__device__ float f(float x) { return isinf(x) ? 0.0f : exp(x); }\n", "t.cu", id="device"),
        pytest.param(
            "template <class F> void each(F f);\nvoid run() { each([] __device__ (float x) { return isnan(x); }); }\n",
            "t.cu",
            id="device-lambda",
        ),
        pytest.param(
            '#include <stdio.h>\nint main() { printf("%f\\n", floorf(fabsf(-2.5f))); }\n', "t.cu", id="c-functions"
        ),
        pytest.param('// isfinite(x) in a comment\nconst char *s = "isnan(x)";\n', "t.cu", id="comment-and-string"),
        pytest.param(HOST_CHECK, "host.cpp", id="plain-cpp"),
    ],
)
def test_host_math_noop(src: str, path: str) -> None:
    text, diagnostics = translate(src, path)
    assert text.count("math.h") == src.count("math.h")
    assert f"{HOST_MATH_INCLUDED}" not in " ".join(diagnostics)


def test_the_names_are_the_overloads_nvcc_makes_global() -> None:
    """The table holds the std:: overloads of CUDA's math_functions.h (classification, float overloads of the
    double functions), not the C functions HIP's host code sees anyway."""
    table = {n.decode() for n in names()}
    assert {"isfinite", "isnan", "isinf", "signbit", "abs", "sqrt", "floor"} <= table
    assert not table & {"fabsf", "floorf", "sqrtf", "printf", "max", "min"}


@pytest.mark.skipif(hipcc_syntax_missing() is not None, reason=hipcc_syntax_missing() or "")
def test_without_the_include_the_translation_does_not_compile(tmp_path: Path) -> None:
    """The fixture's 6.3 output compiles; with the added include taken out, 6.3 finds no isfinite for it."""
    golden = (FIXTURE / "hip-6.3" / "histogram.cu").read_text(encoding="utf-8")
    assert "#include <math.h>\n" in golden
    ok = tmp_path / "ok.cu"
    ok.write_text(golden, encoding="utf-8")
    assert hipcc_syntax(ok).returncode == 0
    bare = tmp_path / "bare.cu"
    bare.write_text(golden.replace("#include <math.h>\n", ""), encoding="utf-8")
    run = hipcc_syntax(bare)
    assert run.returncode != 0
    assert re.search(r"no matching function for call to 'isfinite'", run.stdout + run.stderr)
