"""CUDA's SIMD-in-a-word intrinsics -> hipconv/data/cuda.simd and their shims (`compat:` of their rules).

The family is read from the CUDA inventories (11.8, 12.9, 13.0), not typed: every function of
crt/device_functions.h named `__v...` (the sm_20 per-byte and per-halfword intrinsics, `__vsubss4`,
`__vcmpne2`, ..., and CUDA 12's sm_90 DPX ones, `__vimax3_s32`, `__viaddmax_s16x2_relu`, `__vibmin_u32`)
and of sm_61_intrinsics.h named `__dp...` (`__dp4a`, `__dp2a_lo`, `__dp2a_hi`, int and unsigned overloads).
Each name is read by its grammar into facts (hipconv.rules.simd.SimdOp): the operation, the lane width
(`4`: bytes, `2` and `16x2`: halfwords, `32`: the word), how lanes are read (`s`/`u`: signed or unsigned;
`ss`/`us`: signed or unsigned, saturated; `_relu`: held at 0 from below), and checked against its
declarations (parameter count and types). A name of the family that the grammar does not read, a
declaration that does not fit its facts, or a ROCm release that declares one of the names is a problem.

Each name gets the shim `hipconv_<name without leading underscores>`, whose body templates/compat/_simd.h.j2
writes from the facts (tools/derive/compat.py gives the rules their `compat:`); tests/test_simd_shims.py
proves every body against a reference of CUDA's documented semantics on HIP-CPU.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hipconv.rules.simd import SIMD_DATA, SimdOp
from tools.derive.core import Deriver
from tools.derive.write import write_lines

LIB = "device"
HEADERS = {"crt/device_functions.h": "__v", "sm_61_intrinsics.h": "__dp"}  # header -> the family's name prefix
# the operations of the sm_20 intrinsics (__v<op><sign><lanes>), with their operand count
CLASSIC_OPS = {"abs": 1, "neg": 1, "sad": 2, "add": 2, "sub": 2, "absdiff": 2, "avg": 2, "hadd": 2, "max": 2}
CLASSIC_OPS |= {"min": 2} | {
    f"{kind}{rel}": 2 for kind in ("cmp", "set") for rel in ("eq", "ne", "ge", "gt", "le", "lt")
}
# the sm_90 DPX operations (__vi<op>_<sign><32|16x2>[_relu]): operand count (bmax/bmin: and a predicate per lane)
DPX_OPS = {"max": 2, "min": 2, "max3": 3, "min3": 3, "addmax": 3, "addmin": 3, "bmax": 2, "bmin": 2}
DOT_OPS = ("dp4a", "dp2a_lo", "dp2a_hi")  # srcA, srcB, c
_CLASSIC = re.compile(
    rf"__v(?P<op>{'|'.join(sorted(CLASSIC_OPS, key=len, reverse=True))})(?P<sign>ss|us|s|u)?(?P<lanes>[24])"
)
_DPX = re.compile(
    rf"__vi(?P<op>{'|'.join(sorted(DPX_OPS, key=len, reverse=True))})_(?P<sign>[su])(?P<width>32|16x2)(?P<relu>_relu)?"
)
_DOT = re.compile(rf"__(?P<op>{'|'.join(DOT_OPS)})")
_SIGNED_WORD = {"s": "int", "u": "unsigned int"}


def shim_name(cuda: str) -> str:
    return "hipconv_" + cuda.lstrip("_")


def read_name(cuda: str) -> SimdOp | None:
    """The facts a SIMD intrinsic's name spells, or None when it is not one."""
    shim = shim_name(cuda)
    if m := _CLASSIC.fullmatch(cuda):
        suffix = m["sign"] or ("s" if m["op"] in ("abs", "neg") else "u")  # __vabs4, __vneg2: signed lanes
        return SimdOp(cuda, shim, m["op"], 32 // int(m["lanes"]), suffix[0], "sat" if len(suffix) == 2 else "wrap")
    if m := _DPX.fullmatch(cuda):
        return SimdOp(cuda, shim, m["op"], 32 if m["width"] == "32" else 16, m["sign"], "relu" if m["relu"] else "wrap")
    if m := _DOT.fullmatch(cuda):
        return SimdOp(cuda, shim, m["op"], 8 if m["op"] == "dp4a" else 16, "su", "wrap")
    return None


def expected_params(op: SimdOp) -> set[tuple[str, ...]]:
    """The parameter types CUDA's declarations of the name must have (one tuple per overload)."""
    if op.op in DOT_OPS:
        vectors = {"dp4a": ("char4", "char4"), "dp2a_lo": ("short2", "char4"), "dp2a_hi": ("short2", "char4")}[op.op]
        return {
            ("int", "int", "int"),
            ("unsigned int",) * 3,
            (*vectors, "int"),
            (*("u" + v for v in vectors), "unsigned int"),
        }
    if op.cuda.startswith("__vi"):  # DPX: `const` operands, the word's own type for 32-bit lanes
        word = _SIGNED_WORD[op.sign] if op.bits == 32 else "unsigned int"
        operands = (f"const {word}",) * DPX_OPS[op.op]
        if op.op in ("bmax", "bmin"):
            operands += ("bool *const",) * (32 // op.bits)
        return {operands}
    return {("unsigned int",) * CLASSIC_OPS[op.op]}


@dataclass
class Simd:
    d: Deriver

    def family(self) -> list[tuple[str, list[dict[str, Any]]]]:
        """(name, its declarations) of every function of the family, in any CUDA inventory."""
        cuda = self.d.inv.cuda  # every CUDA set, each name by its newest declarations
        names = sorted(
            {
                r["name"]
                for r in cuda.by_lib.get(LIB, [])
                if r["kind"] == "function" and r["name"].startswith(HEADERS.get(r.get("header", ""), "\0"))
            }
        )
        return [(name, self.d.inv.cuda.records(name, LIB)) for name in names]

    def ops(self, problems: list[str]) -> list[SimdOp]:
        """The facts of each name of the family; what does not fit goes to `problems`."""
        out = []
        for name, records in self.family():
            op = read_name(name)
            if op is None:
                problems.append(f"simd {name}: a SIMD intrinsic whose name tools/derive/simd.py cannot read")
                continue
            declared = {tuple(str(p["type"]) for p in r.get("params") or []) for r in records}
            if declared != expected_params(op):
                problems.append(f"simd {name}: declared with {sorted(declared)}, not as its name says")
                continue
            if rels := self.d.inv.releases_with(name):
                problems.append(f"simd {name}: ROCm {', '.join(rels)} declares it; no shim needed there")
                continue
            out.append(op)
        return out

    def compat(self) -> Mapping[str, Mapping[str, Any]]:
        """`compat:` entries (as tools/curated.yaml's) for every name: its shim."""
        return {op.cuda: {"shim": op.shim} for op in self.ops(self.d.problems)}


def write_simd(d: Deriver, out: Path) -> Path:
    return write_lines(out / SIMD_DATA, [op.line() for op in Simd(d).ops([])])  # problems: Simd.compat's
