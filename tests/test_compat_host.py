"""hipconv_compat.h's host-callable shims, run on the host: the generated header (ROCm 6.3's headers, clang-19
in HIP mode, host code only) computes each value that an independent reference here says CUDA computes.

- bf16 conversions (`__float2bfloat16_rn`, `_rz`, `_rd`, `_ru`, `__float2bfloat162_rn`,
  `__floats2bfloat162_rn`): every float whose low 16 bits are a rounding boundary (0, 1, halfway, just
  above and below it, all ones) for every upper half (so every exponent, subnormals, infinities and NaNs),
  plus random floats, against IEEE 754 rounding done by searching the bf16 values (not by bit tricks),
  CUDA's NaN 0x7fff.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from helpers import SHARED
from hipconv.settings import Version
from hipconv.translate.compat import compat_header

ROCM63 = SHARED / "rocm-6.3"
CLANG = "clang++-19"
COMPILE_TIMEOUT_S, RUN_TIMEOUT_S = 300, 60

pytestmark = [
    pytest.mark.hipcc,
    pytest.mark.skipif(
        not (ROCM63 / "include" / "hip" / "hip_bf16.h").is_file() or shutil.which(CLANG) is None,
        reason=f"needs {ROCM63} (../shared) and {CLANG} (apt-get install -y clang-19)",
    ),
]


def run_host_program(tmp_path: Path, shims: list[str], main: str, data: bytes) -> bytes:
    """Build `main` (C++ reading stdin, writing stdout) with a hipconv_compat.h of `shims` for the host, run it."""
    (tmp_path / "hipconv_compat.h").write_bytes(compat_header(shims, Version.parse("6.3")))
    source = tmp_path / "main.hip"
    source.write_text('#include "hipconv_compat.h"\n#include <cstdio>\n#include <vector>\n' + main)
    exe = tmp_path / "main"
    build = subprocess.run(
        [CLANG, "-x", "hip", "--offload-host-only", "-nogpulib", f"--rocm-path={ROCM63}", "-isystem",
         str(ROCM63 / "include"), "-std=c++17", "-O1", str(source), "-o", str(exe)],
        capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], input=data, capture_output=True, timeout=RUN_TIMEOUT_S, check=False)
    assert run.returncode == 0, run.stderr
    return run.stdout


BF16_MAIN = """
int main() {
  std::vector<unsigned int> in;
  unsigned int bits;
  while (std::fread(&bits, sizeof(bits), 1, stdin) == 1) in.push_back(bits);
  for (unsigned int b : in) {
    float a, minus_a;
    __builtin_memcpy(&a, &b, sizeof(a));
    minus_a = -a;
    __hip_bfloat162 same = hipconv_float2bfloat162_rn(a), pair = hipconv_floats2bfloat162_rn(a, minus_a);
    unsigned short out[8] = {
        __bfloat16_as_ushort(hipconv_float2bfloat16_rn(a)), __bfloat16_as_ushort(hipconv_float2bfloat16_rz(a)),
        __bfloat16_as_ushort(hipconv_float2bfloat16_rd(a)), __bfloat16_as_ushort(hipconv_float2bfloat16_ru(a)),
        __bfloat16_as_ushort(__low2bfloat16(same)),         __bfloat16_as_ushort(__high2bfloat16(same)),
        __bfloat16_as_ushort(__low2bfloat16(pair)),         __bfloat16_as_ushort(__high2bfloat16(pair))};
    std::fwrite(out, sizeof(out), 1, stdout);
  }
  return 0;
}
"""

BF16_SHIMS = [
    "hipconv_float2bfloat16_rn",
    "hipconv_float2bfloat16_rz",
    "hipconv_float2bfloat16_rd",
    "hipconv_float2bfloat16_ru",
    "hipconv_float2bfloat162_rn",
    "hipconv_floats2bfloat162_rn",
]
BF16_NAN = 0x7FFF  # CUDA's, whatever the NaN (cuda_bf16.hpp)


def bf16_reference(bits: np.ndarray, mode: str) -> np.ndarray:
    """IEEE 754 rounding of float32 values (given by their bits) to bf16 bits: the magnitude is placed between
    two neighbouring non-negative bf16 values (index = bits; infinity counts as 2^128, where rounding overflows),
    and one of them picked by the mode; the sign is put back."""
    magnitudes = (np.arange(0x7F81, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)
    magnitudes[0x7F80] = 2.0**128
    with np.errstate(invalid="ignore"):  # signalling NaNs stay NaNs
        x = bits.view(np.float32).astype(np.float64)
    negative = np.signbit(x)
    a = np.where(np.isinf(x), 2.0**128, np.abs(x))
    lo = np.clip(np.searchsorted(magnitudes, a, side="right") - 1, 0, 0x7F80)
    hi = np.minimum(lo + 1, 0x7F80)
    exact = magnitudes[lo] == a
    if mode == "rn":  # differences are exact (Sterbenz), ties go to the even bits
        below, above = a - magnitudes[lo], magnitudes[hi] - a
        away = (above < below) | ((above == below) & (hi % 2 == 0))
    elif mode == "rz":
        away = np.zeros_like(exact)
    else:  # rd: negative magnitudes away from zero; ru: positive ones
        away = negative if mode == "rd" else ~negative
    result = np.where(exact | ~away, lo, hi).astype(np.uint16) | np.where(negative, 0x8000, 0).astype(np.uint16)
    return np.where(np.isnan(x), BF16_NAN, result).astype(np.uint16)


def test_bf16_conversions_round_as_cuda(tmp_path: Path) -> None:
    upper = np.arange(1 << 16, dtype=np.uint32) << 16
    boundaries = np.array([0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF], dtype=np.uint32)
    random = np.random.default_rng(20240611).integers(0, 1 << 32, size=20000, dtype=np.uint32)
    bits = np.concatenate([(upper[:, None] | boundaries[None, :]).ravel(), random])
    out = np.frombuffer(run_host_program(tmp_path, BF16_SHIMS, BF16_MAIN, bits.tobytes()), dtype=np.uint16)
    out = out.reshape(len(bits), 8)
    minus = bits ^ np.uint32(0x80000000)
    want = {mode: bf16_reference(bits, mode) for mode in ("rn", "rz", "rd", "ru")}
    columns = [want["rn"], want["rz"], want["rd"], want["ru"], want["rn"], want["rn"], want["rn"],
               bf16_reference(minus, "rn")]  # fmt: skip
    for k, expected in enumerate(columns):
        wrong = np.nonzero(out[:, k] != expected)[0]
        assert wrong.size == 0, [(hex(bits[i]), k, hex(out[i, k]), hex(expected[i])) for i in wrong[:5]]
    # the cases the reference must get right by itself: halfway ties, overflow, NaN, the smallest subnormal
    f = np.array([0x3F808000, 0x3F818000, 0x7F7F8000, 0x7F7F7FFF, 0xFFC00001, 0x00000001], dtype=np.uint32)
    assert [hex(v) for v in bf16_reference(f, "rn")] == ["0x3f80", "0x3f82", "0x7f80", "0x7f7f", "0x7fff", "0x0"]
    assert [hex(v) for v in bf16_reference(f, "ru")][-1] == "0x1"
