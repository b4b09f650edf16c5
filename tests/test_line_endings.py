"""Every line hipconv inserts ends as the lines of the file around it do: LF, CRLF, or a CR alone (old Mac OS
line endings, which compilers take as line endings too), and diagnostics count CR-only lines as lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import run_cli, tree

NEWLINES = [pytest.param("\n", id="lf"), pytest.param("\r\n", id="crlf"), pytest.param("\r", id="cr")]

# One source per kind of inserted line, written with LF; each test writes it with the newline under test.
SOURCES = {
    "runtime-include": "// Copyright\n#include <cstdio>\n__global__ void k() {}\nint main() { k<<<1, 1>>>(); }\n",
    "runtime-include-in-header": "#pragma once\n#include <hip/hip_fp16.h>\n__device__ __half h();\n",
    "compat-include-after-runtime": "#include <cuda_runtime.h>\n__global__ void k(float4* p) { __stwt(p, *p); }\n",
    "compat-include-with-runtime": "// c\n__global__ void k(const float4* p, float4* q) { *q = __ldcs(p); }\n",
    "defines": "#include <cuda_runtime.h>\n__global__ void k(unsigned m, int* v) { *v = __shfl_sync(m, *v, 0); }\n",
    "annotate-marker": "void f() {\n  cudaDeviceFlushGPUDirectRDMAWrites(\n"
    "      cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner);\n}\n",
}
NAMES = {"runtime-include-in-header": "k.h"}


ROCM = {"defines": "6.3"}  # the others at 5.2, which lacks the shimmed APIs


def _translate(tmp_path: Path, nl: str) -> dict[str, bytes]:
    """Each source with `nl` line endings translated, by file name."""
    translated: dict[str, bytes] = {}
    for rocm in ("5.2", "6.3"):
        src, out = tmp_path / rocm / "src", tmp_path / rocm / "out"
        src.mkdir(parents=True)
        for kind, text in SOURCES.items():
            if ROCM.get(kind, "5.2") == rocm:
                (src / _name(kind)).write_bytes(text.replace("\n", nl).encode())
        result = run_cli("translate", src, "-o", out, "--rocm-version", rocm, "--annotate")
        assert result.code == 0, result.stderr
        translated |= tree(out)
    return translated


def _name(kind: str) -> str:
    return f"{kind}{Path(NAMES.get(kind, 'k.cu')).suffix}"


@pytest.mark.parametrize("nl", NEWLINES)
def test_inserted_lines_end_as_the_file_does(tmp_path: Path, nl: str) -> None:
    """The translation of a file with `nl` line endings is the LF translation with `nl` line endings."""
    expected, got = _translate(tmp_path / "lf", "\n"), _translate(tmp_path / nl.encode().hex(), nl)
    inserted = {
        "runtime-include": b"#include <hip/hip_runtime.h>",
        "runtime-include-in-header": b"#include <hip/hip_runtime.h>",
        "compat-include-after-runtime": b'#include "hipconv_compat.h"',
        "compat-include-with-runtime": b'#include "hipconv_compat.h"',
        "defines": b"#define HIP_ENABLE_WARP_SYNC_BUILTINS",
        "annotate-marker": b"// hipconv: HC002 cudaDeviceFlushGPUDirectRDMAWrites",
    }
    for kind, line in inserted.items():
        name = _name(kind)
        assert line in expected[name] and expected[name].count(b"\n") > SOURCES[kind].count("\n"), kind
        assert got[name] == expected[name].replace(b"\n", nl.encode()), kind
        assert set(re.findall(rb"\r\n|\r|\n", got[name])) == {nl.encode()}, kind


def test_diagnostics_count_cr_only_lines(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_bytes(b"// c\r\rvoid f() {\r  cudaDeviceFlushGPUDirectRDMAWrites(a, b);\r}\r")
    result = run_cli("translate", f, "-o", tmp_path / "out.cu")
    assert f"{f}:4:3: error[HC002 " in result.stderr, result.stderr
