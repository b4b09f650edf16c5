"""CUDA's SIMD-in-a-word intrinsics (issue #37): the derived table of facts (hipconv/data/cuda.simd,
tools/derive/simd.py) and the shims hipconv_compat.h writes from it, proved on HIP-CPU.

The proof: a CUDA program calling every intrinsic (every overload of __dp4a, __dp2a_lo, __dp2a_hi) on
thousands of (a, b, c) words is translated by hipconv as a user's would be, built with g++ against HIP-CPU
(../shared/hip-cpu: kernels on 64-lane wavefronts) and run; each result is compared with REFERENCE, written
here from CUDA's documented semantics, lane by lane in numpy (never by calling the C++ code). The words:
every combination of the per-byte boundary values (0, 1, 0x7f, 0x80, 0x81, 0xfe, 0xff) in every lane, the
per-halfword ones (0, 1, 0x7fff, 0x8000, 0x8001, 0xffff) likewise, the 32-bit ones, and random words (fixed
seed). Skipped, with the reason printed, where g++, TBB or HIP-CPU is missing.
"""

from __future__ import annotations

import operator
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import numpy as np
import pytest
from test_hip_cpu import COMPILE_TIMEOUT_S, CXX_FLAGS, RUN_TIMEOUT_S, prelude  # noqa: F401 (a fixture)

from helpers import debian_hipcc, hipcc_syntax, hipcc_syntax_missing
from hipconv.api import translate_source, translate_tree
from hipconv.rules import load_ruleset
from hipconv.rules.model import Action
from hipconv.rules.simd import simd_ops
from hipconv.settings import Settings, Version
from hipconv.translate.compat import compat_header
from tools.derive.simd import read_name

Lanes = list[np.ndarray]
U32 = (1 << 32) - 1


# --- the reference: CUDA's documented semantics, lane by lane ----------------------------------------
def lanes(words: np.ndarray, bits: int, signed: bool) -> Lanes:
    """The lanes of each word (lowest first), as exact int64 values."""
    out = []
    for shift in range(0, 32, bits):
        v = ((words >> np.uint64(shift)) & np.uint64((1 << bits) - 1)).astype(np.int64)
        out.append(np.where(v >= 1 << (bits - 1), v - (1 << bits), v) if signed else v)
    return out


def pack(values: Lanes, bits: int) -> np.ndarray:
    """Each lane's value modulo 2^bits, packed back into words."""
    mask = (1 << bits) - 1
    return sum(((v & mask).astype(np.uint64) << np.uint64(bits * k) for k, v in enumerate(values)), np.uint64(0))


def saturate(v: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return np.clip(v, lo, hi)


Lanewise = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Ref:
    arity: int  # word operands
    compute: Callable[[np.ndarray, np.ndarray, np.ndarray], list[np.ndarray]]  # (a, b, c) -> outputs (words)
    word: str = "unsigned int"  # the C++ type CUDA's declaration takes and returns
    kind: str = "plain"  # plain | pred (and a predicate per lane, through pointers) | dot (four overloads)


def lanewise(bits: int, signed: bool, f: Lanewise, arity: int = 2, word: str = "unsigned int") -> Ref:
    def compute(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> list[np.ndarray]:
        ls = zip(lanes(a, bits, signed), lanes(b, bits, signed), lanes(c, bits, signed), strict=True)
        return [pack([f(x, y, z) for x, y, z in ls], bits)]

    return Ref(arity, compute, word)


def sad(bits: int, signed: bool) -> Ref:
    def compute(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> list[np.ndarray]:
        ls = zip(lanes(a, bits, signed), lanes(b, bits, signed), strict=True)
        return [sum((np.abs(x - y) for x, y in ls), np.int64(0)).astype(np.uint64)]

    return Ref(2, compute)


RELATIONS = {"eq": operator.eq, "ne": operator.ne, "ge": operator.ge, "gt": operator.gt}
RELATIONS |= {"le": operator.le, "lt": operator.lt}


def sm20(n: str, bits: int) -> dict[str, Ref]:
    """CUDA Math API, SIMD intrinsics: `4` per byte, `2` per halfword; `s`/`u` signed/unsigned lanes, `ss`/`us`
    saturated; results kept modulo the lane otherwise."""
    ones = (1 << bits) - 1

    def avg_s(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
        return (x + y + (x + y >= 0)) >> 1  # signed rounded average: (a + b + ((a + b) >= 0)) >> 1

    refs = {
        f"__vabs{n}": lanewise(bits, True, lambda x, y, z: np.abs(x), 1),
        f"__vabsss{n}": lanewise(bits, True, lambda x, y, z: saturate(np.abs(x), bits, True), 1),
        f"__vneg{n}": lanewise(bits, True, lambda x, y, z: -x, 1),
        f"__vnegss{n}": lanewise(bits, True, lambda x, y, z: saturate(-x, bits, True), 1),
        f"__vadd{n}": lanewise(bits, False, lambda x, y, z: x + y),
        f"__vaddss{n}": lanewise(bits, True, lambda x, y, z: saturate(x + y, bits, True)),
        f"__vaddus{n}": lanewise(bits, False, lambda x, y, z: saturate(x + y, bits, False)),
        f"__vsub{n}": lanewise(bits, False, lambda x, y, z: x - y),
        f"__vsubss{n}": lanewise(bits, True, lambda x, y, z: saturate(x - y, bits, True)),
        f"__vsubus{n}": lanewise(bits, False, lambda x, y, z: saturate(x - y, bits, False)),
        f"__vavgs{n}": lanewise(bits, True, avg_s),
        f"__vavgu{n}": lanewise(bits, False, lambda x, y, z: (x + y + 1) >> 1),  # rounded up
        f"__vhaddu{n}": lanewise(bits, False, lambda x, y, z: (x + y) >> 1),  # rounded down
        f"__vsads{n}": sad(bits, True),
        f"__vsadu{n}": sad(bits, False),
    }
    for sign, signed in (("s", True), ("u", False)):
        refs[f"__vabsdiff{sign}{n}"] = lanewise(bits, signed, lambda x, y, z: np.abs(x - y))
        refs[f"__vmax{sign}{n}"] = lanewise(bits, signed, lambda x, y, z: np.maximum(x, y))
        refs[f"__vmin{sign}{n}"] = lanewise(bits, signed, lambda x, y, z: np.minimum(x, y))
    for rel, test in RELATIONS.items():
        for sign, signed in (("", False),) if rel in ("eq", "ne") else (("s", True), ("u", False)):
            refs[f"__vcmp{rel}{sign}{n}"] = lanewise(bits, signed, lambda x, y, z, t=test: np.where(t(x, y), ones, 0))
            refs[f"__vset{rel}{sign}{n}"] = lanewise(bits, signed, lambda x, y, z, t=test: np.where(t(x, y), 1, 0))
    return refs


def wrapped(v: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    """v modulo the lane, read back as the lane reads (a + b in a DPX lane)."""
    v = v & ((1 << bits) - 1)
    return np.where(v >= 1 << (bits - 1), v - (1 << bits), v) if signed else v


def relu(v: np.ndarray) -> np.ndarray:
    return np.maximum(v, 0)


def picked(bits: int, signed: bool, best: Callable[..., np.ndarray], word: str) -> Ref:
    """__vibmax_*/__vibmin_*: max(a, b) or min(a, b) per lane, and per lane whether a is the one picked
    (a >= b, a <= b); the predicates as one word here: bit 0 the low lane's (pred, pred_lo), bit 1 pred_hi."""
    test = operator.ge if best is np.maximum else operator.le

    def compute(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> list[np.ndarray]:
        xs, ys = lanes(a, bits, signed), lanes(b, bits, signed)
        preds = sum(
            (test(x, y).astype(np.uint64) << np.uint64(k) for k, (x, y) in enumerate(zip(xs, ys, strict=True))),
            np.uint64(0),
        )
        return [pack([best(x, y) for x, y in zip(xs, ys, strict=True)], bits), preds]

    return Ref(2, compute, word, "pred")


def sm90(t: str, bits: int, signed: bool) -> dict[str, Ref]:
    """CUDA Math API, DPX (sm_90): `s32`/`u32` on the word, `s16x2`/`u16x2` per halfword; `_relu`: max(result, 0)."""
    word = "int" if t == "s32" else "unsigned int"

    def add_max(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
        return np.maximum(wrapped(x + y, bits, signed), z)

    def add_min(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
        return np.minimum(wrapped(x + y, bits, signed), z)

    def max3(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
        return np.maximum(np.maximum(x, y), z)

    def min3(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
        return np.minimum(np.minimum(x, y), z)

    refs = {
        f"__vimax3_{t}": lanewise(bits, signed, max3, 3, word),
        f"__vimin3_{t}": lanewise(bits, signed, min3, 3, word),
        f"__viaddmax_{t}": lanewise(bits, signed, add_max, 3, word),
        f"__viaddmin_{t}": lanewise(bits, signed, add_min, 3, word),
        f"__vibmax_{t}": picked(bits, signed, np.maximum, word),
        f"__vibmin_{t}": picked(bits, signed, np.minimum, word),
    }
    if signed:
        refs |= {
            f"__vimax3_{t}_relu": lanewise(bits, signed, lambda x, y, z: relu(max3(x, y, z)), 3, word),
            f"__vimin3_{t}_relu": lanewise(bits, signed, lambda x, y, z: relu(min3(x, y, z)), 3, word),
            f"__viaddmax_{t}_relu": lanewise(bits, signed, lambda x, y, z: relu(add_max(x, y, z)), 3, word),
            f"__viaddmin_{t}_relu": lanewise(bits, signed, lambda x, y, z: relu(add_min(x, y, z)), 3, word),
            f"__vimax_{t}_relu": lanewise(bits, signed, lambda x, y, z: relu(np.maximum(x, y)), 2, word),
            f"__vimin_{t}_relu": lanewise(bits, signed, lambda x, y, z: relu(np.minimum(x, y)), 2, word),
        }
    return refs


def dot(a_bits: int, b_lanes: tuple[int, ...]) -> Ref:
    """__dp4a (four bytes of a times four bytes of b), __dp2a_lo/_hi (two halfwords of a times b's low or high
    two bytes), plus c, modulo 2^32: the signed overloads (int) in output 0, the unsigned ones in output 1."""

    def compute(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> list[np.ndarray]:
        out = []
        for signed in (True, False):
            xs, ys = lanes(a, a_bits, signed), lanes(b, 8, signed)
            total = sum((x * ys[k] for x, k in zip(xs, b_lanes, strict=True)), c.astype(np.int64))
            out.append((total & U32).astype(np.uint64))
        return out

    return Ref(3, compute, "int", "dot")


REFERENCE: dict[str, Ref] = {
    **sm20("4", 8),
    **sm20("2", 16),
    **sm90("s32", 32, True),
    **sm90("u32", 32, False),
    **sm90("s16x2", 16, True),
    **sm90("u16x2", 16, False),
    "__dp4a": dot(8, (0, 1, 2, 3)),
    "__dp2a_lo": dot(16, (0, 1)),
    "__dp2a_hi": dot(16, (2, 3)),
}


# --- the inputs --------------------------------------------------------------------------------------
BYTE_EDGES = (0, 1, 0x7F, 0x80, 0x81, 0xFE, 0xFF)
HALF_EDGES = (0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF)
WORD_EDGES = (0, 1, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF)
RANDOM_WORDS, SEED = 3000, 37


def words(values: list[int], bits: int) -> int:
    return sum(v << (bits * k) for k, v in enumerate(values))


def inputs() -> np.ndarray:
    """(a, b, c) rows: each lane of a and b takes every pair of boundary values, in every lane position and
    with every combination across lanes of a (c a third mix), then 32-bit boundaries and random words."""
    rows = []
    n = len(BYTE_EDGES)
    for d in product(range(n), repeat=4):  # a's lanes: every combination; b's lane k: every pair with a's
        rows.append(
            (
                words([BYTE_EDGES[i] for i in d], 8),
                words([BYTE_EDGES[(d[k] + d[(k + 1) % 4]) % n] for k in range(4)], 8),
                words([BYTE_EDGES[(d[k] + 2 * d[(k + 2) % 4] + 1) % n] for k in range(4)], 8),
            )
        )
    m = len(HALF_EDGES)
    for d in product(range(m), repeat=4):
        a, b = [HALF_EDGES[i] for i in d[:2]], [HALF_EDGES[i] for i in d[2:]]
        rows.append((words(a, 16), words(b, 16), words([HALF_EDGES[(d[k] + d[k + 2]) % m] for k in range(2)], 16)))
    rows += list(product(WORD_EDGES, repeat=3))
    rng = np.random.default_rng(SEED)
    rows += [tuple(int(w) for w in row) for row in rng.integers(0, 1 << 32, size=(RANDOM_WORDS, 3), dtype=np.uint64)]
    return np.array(rows, dtype=np.uint64)


# --- the program -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Slot:
    name: str
    code: str  # C++ statements writing o[K] (and o[K + 1]), K the slot's first output
    outputs: int


def slots() -> list[Slot]:
    out = []
    for name, ref in sorted(REFERENCE.items()):
        args = ", ".join(f"({ref.word}){v}" for v in "abc"[: ref.arity])
        if ref.kind == "dot":
            vec_a = "char4" if name == "__dp4a" else "short2"
            code = (
                f"o[K] = (unsigned int){name}((int)a, (int)b, (int)c); o[K + 1] = {name}(a, b, c); "
                f"if ({name}(as_{vec_a}(a), as_char4(b), (int)c) != (int)o[K] || "
                f"{name}(as_u{vec_a}(a), as_uchar4(b), c) != o[K + 1]) o[K] = o[K + 1] = 0xdeadbeefu;"
            )
            out.append(Slot(name, code, 2))
        elif ref.kind == "pred":
            preds = "&lo" if name.endswith("32") else "&hi, &lo"
            code = (
                f"bool hi = false, lo = false; o[K] = (unsigned int){name}({args}, {preds}); o[K + 1] = (hi << 1) | lo;"
            )
            out.append(Slot(name, "{ " + code + " }", 2))
        else:
            out.append(Slot(name, f"o[K] = (unsigned int){name}({args});", 1))
    return out


PROGRAM = """\
// Every CUDA SIMD intrinsic on each (a, b, c) row of stdin (binary unsigned ints); the results to stdout.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

// a word's bytes or halfwords as CUDA's vector overloads take them (x the lowest)
__device__ char4 as_char4(unsigned int w) { return make_char4(w, w >> 8, w >> 16, w >> 24); }
__device__ uchar4 as_uchar4(unsigned int w) { return make_uchar4(w, w >> 8, w >> 16, w >> 24); }
__device__ short2 as_short2(unsigned int w) { return make_short2(w, w >> 16); }
__device__ ushort2 as_ushort2(unsigned int w) { return make_ushort2(w, w >> 16); }

__global__ void every_intrinsic(const unsigned int* in, unsigned int* out, int rows) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= rows) return;
  unsigned int a = in[3 * t], b = in[3 * t + 1], c = in[3 * t + 2];
  unsigned int* o = out + (size_t)t * OUTPUTS;
BODY
}

int main() {
  std::vector<unsigned int> in;
  unsigned int w;
  while (std::fread(&w, sizeof(w), 1, stdin) == 1) in.push_back(w);
  int rows = (int)(in.size() / 3);
  std::vector<unsigned int> out((size_t)rows * OUTPUTS);
  unsigned int *d_in, *d_out;
  cudaMalloc(&d_in, in.size() * sizeof(unsigned int));
  cudaMalloc(&d_out, out.size() * sizeof(unsigned int));
  cudaMemcpy(d_in, in.data(), in.size() * sizeof(unsigned int), cudaMemcpyHostToDevice);
  every_intrinsic<<<(rows + 63) / 64, 64>>>(d_in, d_out, rows);
  cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  std::fwrite(out.data(), sizeof(unsigned int), out.size(), stdout);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
"""


def program(plan: list[Slot]) -> str:
    body, k = [], 0
    for slot in plan:
        body.append("  " + slot.code.replace("K + 1", str(k + 1)).replace("[K]", f"[{k}]"))
        k += slot.outputs
    return PROGRAM.replace("OUTPUTS", str(k)).replace("BODY", "\n".join(body))


# --- the tests ---------------------------------------------------------------------------------------
def test_the_reference_covers_the_derived_table() -> None:
    """Every intrinsic of hipconv/data/cuda.simd has a reference here, and nothing else does."""
    assert set(REFERENCE) == {op.cuda for op in simd_ops().values()}
    assert len(REFERENCE) == 121


@pytest.mark.parametrize(
    ("name", "facts"),
    [
        pytest.param("__vsubss4", ("sub", 8, "s", "sat"), id="signed-saturated-bytes"),
        pytest.param("__vsubus2", ("sub", 16, "u", "sat"), id="unsigned-saturated-halfwords"),
        pytest.param("__vsub4", ("sub", 8, "u", "wrap"), id="wrapping-bytes"),
        pytest.param("__vabsss4", ("abs", 8, "s", "sat"), id="abs-not-absdiff"),
        pytest.param("__vabsdiffs2", ("absdiff", 16, "s", "wrap"), id="absdiff"),
        pytest.param("__vcmpne4", ("cmpne", 8, "u", "wrap"), id="compare-sign-free"),
        pytest.param("__vsetges2", ("setge", 16, "s", "wrap"), id="set-signed"),
        pytest.param("__vsads4", ("sad", 8, "s", "wrap"), id="sad"),
        pytest.param("__viaddmax_s16x2_relu", ("addmax", 16, "s", "relu"), id="dpx-relu"),
        pytest.param("__vibmin_u32", ("bmin", 32, "u", "wrap"), id="dpx-predicate"),
        pytest.param("__dp2a_hi", ("dp2a_hi", 16, "su", "wrap"), id="dot"),
    ],
)
def test_facts_read_from_the_name(name: str, facts: tuple[str, int, str, str]) -> None:
    op = read_name(name)
    assert op is not None and (op.op, op.bits, op.sign, op.clamp) == facts
    assert simd_ops()[op.shim] == op


@pytest.mark.parametrize(
    "name", ["__vadd8", "__vsubss3", "__vimax", "__vimax3_s8x4", "__dp4", "__vabsdiff4x", "__vset4"]
)
def test_facts_read_from_the_name_noop(name: str) -> None:
    """Names outside the grammar are not SIMD intrinsics (the derivation reports a family member it cannot read)."""
    assert read_name(name) is None


LOOK_ALIKES = """#include <cuda_runtime.h>
#include <cstdio>
#include "lanes.h"  // struct Lanes, whose members are named __vsub4 and __dp4a
__device__ unsigned int vsub4(unsigned int a, unsigned int b) { return a - b; }
__global__ void k(const Lanes* p, unsigned int* out) {
  // __vsub4(a, b) and __dp4a in a comment
  out[0] = vsub4(p->__vsub4, 1u) + p[1].__dp4a;
  printf("__vcmpne4 __dp2a_lo\\n");
}
"""


@pytest.mark.parametrize("rocm", ["5.2", "6.3"])
def test_look_alikes_noop(rocm: str) -> None:
    """Members named like the intrinsics, a project's own `vsub4`, comments and strings: not shimmed."""
    done = translate_source(LOOK_ALIKES, rocm_version=rocm)
    assert done.compat_header is None and not [d for d in done.diagnostics if d.code == "HC011"]
    assert done.data.decode().split("\n")[1:] == LOOK_ALIKES.split("\n")[1:]  # the runtime include alone changed


def test_shimmed_use_noted_and_no_compat_reports_it() -> None:
    """A use is renamed with a note (HC011); with --no-compat it stays, reported as unsupported (HC002)."""
    text = "__global__ void k(int* o, int a, int b) { o[0] = __dp4a(a, b, 0) + (int)__vsubss2(a, b); }\n"
    done = translate_source(text, rocm_version="6.3")
    assert "hipconv_dp4a(a, b, 0) + (int)hipconv_vsubss2(a, b)" in done.data.decode()
    assert [d.code for d in done.diagnostics] == ["HC011", "HC011"]
    assert done.compat_header is not None and b"hipconv_vsubss2(unsigned int a, unsigned int b)" in done.compat_header
    kept = translate_source(text, rocm_version="6.3", compat=False)
    assert "__dp4a(a, b, 0) + (int)__vsubss2(a, b)" in kept.data.decode()
    assert [d.code for d in kept.diagnostics] == ["HC002", "HC002"] and kept.compat_header is None


@pytest.mark.parametrize("rocm", ["5.2", "6.3", "7.2"])
def test_every_intrinsic_resolves_to_its_shim(rocm: str) -> None:
    table = load_ruleset().table(Settings(rocm=Version.parse(rocm)))
    for shim, op in simd_ops().items():
        resolution = table.identifiers[op.cuda]
        assert resolution.action is Action.SHIM and resolution.rule is not None and resolution.rule.compat == shim


def test_header_defines_each_shim_once_with_cuda_parameters() -> None:
    """Every shim body names its CUDA intrinsic and defines the shim (the dot products once per overload)."""
    text = compat_header(simd_ops(), Version.parse("6.3")).decode()
    for shim, op in simd_ops().items():
        overloads = 4 if op.op.startswith("dp") else 1
        assert text.count(f" {shim}(") - text.count(f"return {shim}(") == overloads, shim
        assert f"CUDA's {op.cuda}(" in text


def test_every_shim_computes_what_cuda_documents(prelude: Path, tmp_path: Path) -> None:  # noqa: F811
    plan = slots()
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "simd.cu").write_text(program(plan))
    translation = translate_tree(src, out, rocm_version="6.3", kernel_launch="hip")
    assert not translation.failed, translation.failed
    shimmed = {d.message.split()[0] for d in translation.diagnostics if d.code == "HC011"}
    assert shimmed == set(REFERENCE), "every intrinsic shimmed (note HC011)"
    binary = tmp_path / "simd"
    built = subprocess.run(
        ["g++", *CXX_FLAGS, f"-I{out}", "-include", str(prelude), "-x", "c++", str(out / "simd.cu")]
        + ["-x", "none", "-o", str(binary), "-ltbb", "-lpthread"],
        capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-4000:]
    rows = inputs()
    ran = subprocess.run(
        [str(binary)], input=rows.astype(np.uint32).tobytes(), capture_output=True, timeout=RUN_TIMEOUT_S, check=False
    )
    assert ran.returncode == 0, ran.stderr
    width = sum(s.outputs for s in plan)
    got = np.frombuffer(ran.stdout, dtype=np.uint32).reshape(len(rows), width).astype(np.uint64)
    a, b, c = rows[:, 0], rows[:, 1], rows[:, 2]
    wrong, k = [], 0
    for slot in plan:
        for want in REFERENCE[slot.name].compute(a, b, c):
            bad = np.flatnonzero(got[:, k] != (want & np.uint64(U32)))
            if bad.size:
                i = int(bad[0])
                wrong.append(
                    f"{slot.name} (output {k}): {bad.size} of {len(rows)} rows differ, first a={int(a[i]):#010x} "
                    f"b={int(b[i]):#010x} c={int(c[i]):#010x}: got {int(got[i, k]):#x}, CUDA gives {int(want[i]):#x}"
                )
            k += 1
    assert not wrong, "\n".join(wrong)


def every_shim_unit(tmp_path: Path, rocm: str) -> Path:
    """A translation unit of hipconv_compat.h with every SIMD shim, each called in a kernel."""
    (tmp_path / "hipconv_compat.h").write_bytes(compat_header(simd_ops(), Version.parse(rocm)))
    plan = slots()
    unit = tmp_path / "simd.hip"
    code = program(plan).replace("#include <cuda_runtime.h>", '#include "hipconv_compat.h"')
    for name in REFERENCE:
        code = code.replace(f"{name}(", f"hipconv_{name.lstrip('_')}(")
    unit.write_text(code.split("int main()")[0].replace("<<<", "").replace("cuda", "hip"))
    return unit


@pytest.mark.hipcc
def test_every_shim_compiles_at_6_3(tmp_path: Path) -> None:
    reason = hipcc_syntax_missing()
    if reason is not None:
        print(f"test_simd_shims: skipped: {reason}")
        pytest.skip(reason)
    checked = hipcc_syntax(every_shim_unit(tmp_path, "6.3"), flags=["-Wall", "-Werror"])
    assert checked.returncode == 0, checked.stderr[-4000:]


@pytest.mark.hipcc
def test_every_shim_compiles_for_gfx90a_with_debian_hipcc(tmp_path: Path, hip_env: dict[str, str]) -> None:
    if shutil.which("hipcc") is None:
        print("test_simd_shims: skipped: Debian's hipcc not found (apt-get install hipcc; .ci/run does)")
        pytest.skip("Debian's hipcc not found")
    built = debian_hipcc(every_shim_unit(tmp_path, "5.2"), tmp_path / "simd.o", hip_env)
    assert built.returncode == 0, built.stderr[-4000:]
