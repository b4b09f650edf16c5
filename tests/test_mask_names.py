"""Lane masks given by a name another file of the run defines (`#define FULL_MASK 0xffffffff` in a shared
header): widened where defined when every use in the run is a lane mask, else cast at each call."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli

WARP_H = """\
#pragma once
#define FULL_MASK 0xffffffff

__device__ inline float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}
"""

KERNEL_CU = """\
#include "warp.h"

__global__ void reduce(const float* in, float* out) {
  float v = warp_sum(in[threadIdx.x]);
  if (__all_sync(FULL_MASK, v == 0.f)) out[blockIdx.x] = 0.f;
  else out[blockIdx.x] = v;
}
"""

CHECK_CU = """\
#include "warp.h"

__global__ void full(unsigned* flags) {
  unsigned votes = __ballot_sync(FULL_MASK, flags[threadIdx.x] != 0);
  if (votes == FULL_MASK) flags[0] = 1;
}
"""


def _tree(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    src = tmp_path / "src"
    src.mkdir()
    for name, text in files.items():
        (src / name).write_text(text)
    return src, tmp_path / "out"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_mask_every_file_uses_as_a_mask_is_widened_where_it_is_defined(tmp_path: Path, jobs: str) -> None:
    src, out = _tree(tmp_path, {"warp.h": WARP_H, "kernel.cu": KERNEL_CU})
    result = run_cli("translate", src, "-o", out, "--rocm-version", "6.3", "--jobs", jobs)
    assert result.code == 0, result.stderr
    assert "#define FULL_MASK 0xffffffffffffffffull\n" in (out / "warp.h").read_text()
    assert "__all_sync(FULL_MASK, v == 0.f)" in (out / "kernel.cu").read_text()
    notes = sorted(line.split("/")[-1] for line in result.stderr.splitlines() if "[HC104" in line)
    assert [n.split(": ")[0] for n in notes] == ["kernel.cu:5:18", "warp.h:5:82"]
    assert notes[0].endswith("widened where it is defined (warp.h:2), since every use of it is a lane mask")
    assert notes[1].endswith("widened where it is defined (line 2), since every use of it is a lane mask")


def test_a_mask_another_file_compares_with_is_cast_at_every_call(tmp_path: Path) -> None:
    """`votes == FULL_MASK` in a third file: widening the #define would change that comparison."""
    src, out = _tree(tmp_path, {"warp.h": WARP_H, "kernel.cu": KERNEL_CU, "check.cu": CHECK_CU})
    result = run_cli("translate", src, "-o", out, "--rocm-version", "6.3")
    assert "#define FULL_MASK 0xffffffff\n" in (out / "warp.h").read_text()
    assert "__all_sync(static_cast<unsigned long long>(FULL_MASK), v == 0.f)" in (out / "kernel.cu").read_text()
    checked = (out / "check.cu").read_text()
    assert "__ballot_sync(static_cast<unsigned long long>(FULL_MASK), " in checked
    assert "if (votes == FULL_MASK)" in checked
    casts = sorted(line.split("/")[-1].split(": ")[0] for line in result.stderr.splitlines() if "[HC101" in line)
    assert casts == ["check.cu:4:34", "kernel.cu:5:18", "warp.h:5:82"]


SPLICED = """\
#include "warp.h"

__global__ void all_set(const unsigned* votes, unsigned* flags) {
  if (votes[threadIdx.x] == FULL_\\
MASK) flags[0] = 1;
}
"""


@pytest.mark.parametrize("body", [SPLICED.encode(), SPLICED.replace("\n", "\r").encode()], ids=["lf", "cr"])
def test_a_use_cut_by_a_line_splice_counts(tmp_path: Path, body: bytes) -> None:
    """The mask pass decodes only the files whose bytes hold a mask name or a line splice: a name cut by a
    splice (also in a file of CR line ends) is whole once decoded, and its comparison keeps the #define."""
    src, out = _tree(tmp_path, {"warp.h": WARP_H, "kernel.cu": KERNEL_CU})
    (src / "check.cu").write_bytes(body)
    result = run_cli("translate", src, "-o", out, "--rocm-version", "6.3")
    assert result.code == 0, result.stderr
    assert "#define FULL_MASK 0xffffffff\n" in (out / "warp.h").read_text()
    assert "__all_sync(static_cast<unsigned long long>(FULL_MASK), v == 0.f)" in (out / "kernel.cu").read_text()


def test_a_single_file_run_sees_only_its_own_definitions(tmp_path: Path) -> None:
    """Translated alone, the .cu file cannot see the header's definition: HC103, nothing changed."""
    src, out = _tree(tmp_path, {"warp.h": WARP_H, "kernel.cu": KERNEL_CU})
    result = run_cli("translate", src / "kernel.cu", "-o", out / "kernel.cu", "--rocm-version", "6.3")
    assert "__all_sync(FULL_MASK, v == 0.f)" in (out / "kernel.cu").read_text()
    assert [line.split("[")[1].split()[0] for line in result.stderr.splitlines() if "[HC10" in line] == ["HC103"]
