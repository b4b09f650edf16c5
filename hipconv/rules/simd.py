"""CUDA's SIMD-in-a-word intrinsics (hipconv/data/cuda.simd, written by tools/derive_rules.py from the CUDA
inventories: tools/derive/simd.py): `__vsubss4`, `__vcmpne2`, `__dp4a`, the sm_90 `__vimax3_s32` ... No
ROCm release declares any of them; each is shimmed by hipconv_compat.h as `hipconv_<name>`, one body per
name, made by templates/compat/_simd.h.j2 from its facts: which operation, on lanes of how many bits, read
signed or unsigned, and what happens to a result outside the lane (wraps, saturates, or is held at 0)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from hipconv.resources import data_file

SIMD_DATA = "cuda.simd"
SIMD_TEMPLATE = "compat/_simd.h.j2"  # every SIMD shim's body, from its facts
SIGNS = (
    "s",
    "u",
    "su",
)  # lanes read as signed, unsigned, or each by its own overload (__dp4a(int, ...), (unsigned, ...))
CLAMPS = ("wrap", "sat", "relu")  # a result outside the lane: kept modulo 2^bits, saturated, max(result, 0)


@dataclass(frozen=True)
class SimdOp:
    cuda: str  # __vsubss4
    shim: str  # hipconv_vsubss4
    op: str  # sub, cmpne, setge, sad, max3, addmax, bmax, dp4a, dp2a_lo, ... (tools/derive/simd.py: OPS)
    bits: int  # bits of a lane: 8, 16 or 32
    sign: str  # one of SIGNS
    clamp: str  # one of CLAMPS

    def line(self) -> str:
        return "\t".join((self.cuda, self.shim, self.op, str(self.bits), self.sign, self.clamp))

    @classmethod
    def parse(cls, line: str) -> SimdOp:
        cuda, shim, op, bits, sign, clamp = line.split("\t")
        return cls(cuda, shim, op, int(bits), sign, clamp)


@functools.cache
def simd_ops() -> Mapping[str, SimdOp]:
    """Every SIMD intrinsic's facts, by shim name (empty when the data file is absent)."""
    path = data_file(SIMD_DATA)
    if not path.is_file():
        return {}
    ops = (SimdOp.parse(line) for line in path.read_text(encoding="utf-8").splitlines() if line)
    return {op.shim: op for op in ops}
