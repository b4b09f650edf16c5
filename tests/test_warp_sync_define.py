"""HIP_ENABLE_WARP_SYNC_BUILTINS must be defined before the first HIP include of a translation unit: a
source file defines it at its top (for its own *_sync calls and those of the run's headers it includes),
a header never does, and translated build files and `hipconv build` define it for the whole build."""

from __future__ import annotations

from pathlib import Path

from hipconv.buildfiles.nvcc_flags import WARP_SYNC_DEFINE
from tests.helpers import ruleset, run_cli

GUARD = f"#ifndef {WARP_SYNC_DEFINE}\n#define {WARP_SYNC_DEFINE}\n#endif\n"

WARP_CUH = """\
#pragma once
#include <cuda_runtime.h>

__device__ inline float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}
"""

REDUCE_CU = """\
// block sums: no warp builtin of its own
#include <cstdio>
#include "detail/warp.cuh"

__global__ void sums(const float* in, float* out) { out[blockIdx.x] = warp_sum(in[threadIdx.x]); }
"""


def test_the_rules_require_the_define_the_build_files_add() -> None:
    required = {r.requires_define for r in ruleset().rules if r.requires_define}
    assert required == {WARP_SYNC_DEFINE}


def test_a_source_defines_it_for_the_headers_it_includes_and_a_header_never(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "detail").mkdir(parents=True)
    (src / "detail" / "warp.cuh").write_text(WARP_CUH)
    (src / "reduce.cu").write_text(REDUCE_CU)
    out = tmp_path / "out"
    result = run_cli("translate", src, "-o", out, "--rocm-version", "6.3")
    assert result.code == 0, result.stderr
    header = (out / "detail" / "warp.cuh").read_text()
    assert WARP_SYNC_DEFINE not in header and "__shfl_down_sync(0xffffffffffffffffull, v, offset)" in header
    reduce = (out / "reduce.cu").read_text()
    assert reduce.startswith("// block sums: no warp builtin of its own\n" + GUARD + "#include <hip/hip_runtime.h>\n")
    again = run_cli("translate", out, "-o", tmp_path / "again", "--rocm-version", "6.3")
    assert (tmp_path / "again" / "reduce.cu").read_text() == reduce, again.stderr


def test_before_6_2_nothing_is_defined(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "detail").mkdir(parents=True)
    (src / "detail" / "warp.cuh").write_text(WARP_CUH)
    (src / "reduce.cu").write_text(REDUCE_CU)
    run_cli("translate", src, "-o", tmp_path / "out", "--rocm-version", "5.2")
    assert WARP_SYNC_DEFINE not in (tmp_path / "out" / "reduce.cu").read_text()
