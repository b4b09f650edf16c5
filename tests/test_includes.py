"""Include paths (hipconv/translate/includes.py): a path that line splices cut (`<cuda_\\<newline>runtime.h>`,
which the compiler reads as `<cuda_runtime.h>`) is rewritten as a whole, its replacement written unspliced;
(src, expected) pairs, the noop inputs, a second pass, and the HIP 6.3 syntax check of the output."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from hipconv.rules import load_ruleset
from hipconv.rules.model import LookupTable
from hipconv.settings import Settings, Version
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import translate_one
from tests.helpers import hipcc_syntax, hipcc_syntax_missing

KERNEL = (
    "__global__ void scale(__half *v, float s) {\n"
    "  v[threadIdx.x] = __float2half(__half2float(v[threadIdx.x]) * s);\n}\n"
)
HOST = "void run(__half *d, cudaStream_t s) {\n  scale<<<1, 64, 0, s>>>(d, 2.0f);\n  cudaStreamSynchronize(s);\n}\n"
HIP_HOST = HOST.replace("cudaStream", "hipStream")


@functools.cache
def _table(rocm: str) -> tuple[LookupTable, Settings]:
    settings = Settings(Version.parse(rocm))
    return load_ruleset().table(settings), settings


def translate(src: bytes, path: str = "scale.cu", rocm: str = "6.3") -> bytes:
    table, settings = _table(rocm)
    result = translate_one(SourceFile.from_bytes(path, src), table, settings)
    return src if result.output is None else result.output


@pytest.mark.parametrize(
    ("path", "src", "expected"),
    [
        pytest.param(
            "scale.cu",
            "#include <cuda_\\\nruntime.h>\n#include <cuda_fp16.h>\n" + KERNEL + HOST,
            "#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n" + KERNEL + HIP_HOST,
            id="runtime-cut-in-its-name",
        ),
        pytest.param(
            "scale.cuh",
            '#pragma once\r\n#include "cuda_\\\r\nfp16.h"\r\n#include <cuda_runtime.h\\\r\n>\r\n',
            '#pragma once\r\n#include <hip/hip_runtime.h>\r\n#include "hip/hip_fp16.h"\r\n',
            id="header-crlf-quoted-and-before-the-bracket",  # the runtime goes before the first HIP include
        ),
        pytest.param(
            "scale.cu",
            "#include <cuda_runtime.h>\n#include <\\\ncuda_fp16.h>\n" + KERNEL,
            "#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n" + KERNEL,
            id="cut-before-its-first-character",
        ),
        pytest.param(
            "reduce.cu",
            "#include <cuda_runtime.h>\n#include <cooperative_groups/\\\nreduce.h>\n",
            '#include <hip/hip_runtime.h>\n#include "hipconv_compat.h"\n',
            id="shimmed-header",  # ROCm has no cooperative_groups/reduce.h: hipconv_compat.h stands for it
        ),
    ],
)
def test_spliced_path_is_rewritten_whole(path: str, src: str, expected: str) -> None:
    out = translate(src.encode(), path)
    assert out == expected.encode()
    assert translate(out, path) == out  # a second pass changes nothing


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("#include <std\\\nio.h>\nint main() { return 0; }\n", id="not-a-cuda-header"),
        pytest.param("#include <cuda_\\\nruntime_extra.h>\nint x;\n", id="a-longer-name"),
        pytest.param("int x; \\\n#include <cuda_\\\nruntime.h>\n", id="spliced-onto-code-no-directive"),
    ],
)
def test_spliced_path_noop(src: str) -> None:
    assert translate(src.encode(), "t.cpp") == src.encode()


@pytest.mark.skipif(hipcc_syntax_missing() is not None, reason=hipcc_syntax_missing() or "")
def test_spliced_path_translation_compiles(tmp_path: Path) -> None:
    """The output includes what HIP declares __half and the runtime in (left spliced, the CUDA header is
    not found)."""
    unit = tmp_path / "scale.cu"
    src = "#include <cuda_\\\nruntime.h>\n#include <cuda_\\\nfp16.h>\n" + KERNEL + HOST
    unit.write_bytes(translate(src.encode()))
    done = hipcc_syntax(unit)
    assert done.returncode == 0, done.stderr
