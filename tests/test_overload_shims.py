"""CUDA overloads a ROCm release lacks while it declares the name for other types (issue #37; HC033): the facts
(hipconv/data/cuda.overloads, tools/derive/overloads.py), the translation (matchers/overload_shims.py), and
the definitions hipconv_compat.h gets, proved on HIP-CPU against references written here from CUDA's
documentation (cuda_bf16.h's __hmax_nan/__hmin_nan; crt/sm_70_rt.h's 16-bit atomicCAS), never by calling the
C++ code. Tests that need ../shared (inventories, HIP-CPU, the 6.3 syntax check) skip with the reason printed.
"""

from __future__ import annotations

import json
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from test_hip_cpu import COMPILE_TIMEOUT_S, CXX_FLAGS, RUN_TIMEOUT_S, prelude  # noqa: F401 (a fixture)

from helpers import debian_hipcc, hipcc_syntax, hipcc_syntax_missing
from hipconv.api import translate_source, translate_tree
from hipconv.translate.matchers.overload_shims import overloads

INVENTORY = Path(__file__).resolve().parents[2] / "shared" / "api-inventory"
FULL = {"5.2": "hip-5.2", "5.7": "hip-5.7", "6.0": "hip-6.0", "6.1": "hip-6.1", "6.2": "hip-6.2", "6.3": "hip"}
HOST_ONLY = ("6.4", "7.0", "7.1", "7.2")
CODE = "HC033"


def need_inventory() -> None:
    if not (INVENTORY / "MANIFEST.json").is_file():
        reason = f"no API inventory at {INVENTORY} (../shared is on the project's machines and in CI only)"
        print(f"test_overload_shims: skipped: {reason}")
        pytest.skip(reason)


def hip_param_types(folder: str, name: str) -> set[tuple[str, ...]]:
    """The parameter types (const dropped, spaces normalized) of every function record of `name` in a HIP set."""
    out = set()
    for path in (INVENTORY / folder).glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if f'"name":"{name}"' in line and (r := json.loads(line))["name"] == name and r["kind"] == "function":
                out.add(tuple(" ".join(p["type"].replace("const ", "").split()) for p in r.get("params", [])))
    return out


# --- the facts ------------------------------------------------------------------------------------------
def test_facts_are_the_curated_overloads() -> None:
    got = {(o.cuda, o.shim, o.params, o.lacking) for o in overloads()}
    every = ("5.2", "5.7", "6.0", "6.1", "6.2", "6.3", *HOST_ONLY)
    assert got == {
        ("atomicCAS", "hipconv_atomicCAS_u16", ("unsigned short *", "unsigned short", "unsigned short"), every),
        ("__hmax_nan", "hipconv_hmax_nan_bf16", ("const __nv_bfloat16",) * 2, every[1:]),
        ("__hmin_nan", "hipconv_hmin_nan_bf16", ("const __nv_bfloat16",) * 2, every[1:]),
        ("cudaHostGetDevicePointer", "hipconv_host_get_device_pointer_t", ("T **", "void *", "unsigned int"), every),
        (  # tests/test_cuda13_signatures.py checks these two, defined under the HIP name
            "cudaMemAdvise",
            "hipconv_mem_advise_location",
            ("const void *", "size_t", "enum cudaMemoryAdvise", "struct cudaMemLocation"),
            every,
        ),
        (
            "cudaMemPrefetchAsync",
            "hipconv_mem_prefetch_location",
            ("const void *", "size_t", "struct cudaMemLocation", "unsigned int", "cudaStream_t"),
            every,
        ),
    }


@pytest.mark.parametrize("release", list(FULL))
def test_facts_against_the_inventories(release: str) -> None:
    """Each full ROCm inventory declares the name for other types and not the overload where the data says it
    lacks it; 5.2 has no __hip_bfloat16, so no bf16 overload is written there."""
    need_inventory()
    bf16 = (INVENTORY / FULL[release] / "bf16.jsonl").read_text(encoding="utf-8")
    has_bf16 = '"name":"__hip_bfloat16"' in bf16
    assert has_bf16 == (release != "5.2")
    for o in (o for o in overloads() if o.hip == o.cuda):  # the device functions, which keep their names
        declared = hip_param_types(FULL[release], o.cuda)
        hip = tuple(
            " ".join(p.replace("const ", "").replace("__nv_bfloat16", "__hip_bfloat16").split()) for p in o.params
        )
        lacks = bool(declared) and hip not in declared and ("__hip_bfloat16" not in hip[0] or has_bf16)
        assert lacks == (release in o.lacking), (o.cuda, release, sorted(declared))
        assert release not in o.lacking or declared  # never for a name the release lacks: that is a rule's


def test_host_only_releases_carry_6_3() -> None:
    for o in overloads():
        assert all((r in o.lacking) == ("6.3" in o.lacking) for r in HOST_ONLY), o.cuda


# --- the translation ------------------------------------------------------------------------------------
ATOMIC_U16 = """__global__ void bump(unsigned short int *hist, const int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned short int *slot = &hist[bins[i]];
  unsigned short old = *slot, assumed;
  do {
    assumed = old;
    old = atomicCAS(slot, assumed, (unsigned short)(assumed + 1));
  } while (old != assumed);
}
"""
BF16_MAX = """#include <cuda_bf16.h>
__device__ __nv_bfloat16 pick(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmax_nan(a, b); }
"""


@pytest.mark.parametrize("rocm", ["5.2", "6.3", "7.2"])
def test_atomic_cas_u16_keeps_its_name_and_gets_the_overload(rocm: str) -> None:
    done = translate_source(ATOMIC_U16, rocm_version=rocm)
    text = done.data.decode()
    assert "old = atomicCAS(slot, assumed, (unsigned short)(assumed + 1));" in text
    assert '#include "hipconv_compat.h"' in text
    assert [(d.line, d.code) for d in done.diagnostics] == [(8, CODE)]
    assert f"is not in ROCm {rocm}, which declares atomicCAS for other types" in done.diagnostics[0].message
    assert done.compat_header is not None
    header = done.compat_header.decode()
    assert header.count("unsigned short atomicCAS(unsigned short* address") == 1


def test_bf16_max_gets_the_overload_at_6_3_and_not_at_5_2() -> None:
    done = translate_source(BF16_MAX, rocm_version="6.3")
    assert "return __hmax_nan(a, b);" in done.data.decode()
    assert [d.code for d in done.diagnostics] == [CODE]
    assert done.compat_header is not None
    assert "__hip_bfloat16 __hmax_nan(const __hip_bfloat16 a" in done.compat_header.decode()
    old = translate_source(BF16_MAX, rocm_version="5.2")  # no __hip_bfloat16: the type's rule reports it
    assert CODE not in {d.code for d in old.diagnostics} and old.compat_header is None


@pytest.mark.parametrize(
    "src",
    [
        pytest.param(
            "__device__ unsigned short f(void *p) { return atomicCAS((unsigned short int *)p, 1, 2); }", id="cast"
        ),
        pytest.param("template <class T> __device__ T f(T *p, T a, T b) { return atomicCAS(p, a, b); }", id="unseen"),
        pytest.param("__device__ unsigned short f(uint16_t *w) { return atomicCAS(&w[1], 1, 2); }", id="typedef"),
        pytest.param(
            "__device__ __nv_bfloat16 f(__nv_bfloat16 s, __nv_bfloat16 *v) { return s * __hmin_nan(v[0], v[1]); }",
            id="operand",
        ),
    ],
)
def test_calls_that_may_need_it(src: str) -> None:
    done = translate_source(src + "\n", rocm_version="6.3")
    assert [d.code for d in done.diagnostics] == [CODE]
    unseen = "cannot be seen" in done.diagnostics[0].message
    assert unseen == ("template" in src)


NOOP = """#include <cuda_fp16.h>
struct Lock { int atomicCAS(int a) { return a; } };
__device__ __half __hmax_nan(__half a, __half b, int);  // a project's own overload: a declaration, not a call
__global__ void k(int *flag, unsigned long long *seq, __half *h, Lock l) {
  int was = atomicCAS(flag, 0, 1);
  atomicCAS(&seq[2], 0ull, 1ull);
  h[0] = __hmax_nan(h[0], h[1]);
  h[1] = __hmin_nan((__half)h[0], h[1]);
  was += l.atomicCAS(was);  // atomicCAS(unsigned short *) in a comment
  const char *s = "atomicCAS(p, a, b)";
}
"""


@pytest.mark.parametrize("rocm", ["5.2", "6.3"])
def test_other_types_noop(rocm: str) -> None:
    """atomicCAS on int and unsigned long long, __hmax_nan/__hmin_nan on __half, members, comments, strings and a
    declaration: HIP's own overloads; nothing is added."""
    done = translate_source(NOOP, rocm_version=rocm)
    assert CODE not in {d.code for d in done.diagnostics} and done.compat_header is None
    assert "hipconv_compat.h" not in done.data.decode()


OWN_POLYFILL = """#include <cuda_bf16.h>
__device__ __nv_bfloat16 __hmax_nan(const __nv_bfloat16 a, const __nv_bfloat16 b) {
  return __hisnan(a) || __hisnan(b) ? __float2bfloat16(NAN) : (__hgt(a, b) ? a : b);
}
__device__ __nv_bfloat16 pick(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmax_nan(a, b); }
"""


def test_the_files_own_definition_noop() -> None:
    """A file that defines the overload itself (a polyfill for an older CUDA) keeps it: hipconv adds none,
    which would redefine it."""
    done = translate_source(OWN_POLYFILL, rocm_version="6.3")
    assert CODE not in {d.code for d in done.diagnostics} and done.compat_header is None
    other = translate_source(OWN_POLYFILL.replace("__hmax_nan(const", "__hmin_nan(const"), rocm_version="6.3")
    assert [d.code for d in other.diagnostics if d.code == CODE] == [CODE]  # another name: its overload is added


def test_no_compat_adds_nothing() -> None:
    done = translate_source(ATOMIC_U16, rocm_version="6.3", compat=False)
    assert not done.diagnostics and done.compat_header is None and "hipconv_compat" not in done.data.decode()


# --- the definitions compile where the release lacks them, and never redefine HIP's -----------------------
USES = """#include <cuda_fp16.h>
{bf16}
__global__ void k(unsigned short *u, int *i, unsigned int *w, __half *h{bf16_params}) {{
  atomicCAS(u, (unsigned short)0, (unsigned short)1);
  atomicCAS(i, 0, 1);
  atomicCAS(w, 0u, 1u);
  {bf16_body}
}}
"""


def uses(bf16: bool) -> str:
    return USES.format(
        bf16="#include <cuda_bf16.h>" if bf16 else "",
        bf16_params=", __nv_bfloat16 *b" if bf16 else "",
        # ROCm 5.7 on: __hmax_nan on __half (HIP's) beside the bf16 ones
        bf16_body="h[0] = __hmax_nan(h[0], h[1]); b[0] = __hmax_nan(b[0], b[1]); b[1] = __hmin_nan(b[0], b[1]);"
        if bf16
        else "",
    )


@pytest.mark.hipcc
def test_compiles_at_6_3(tmp_path: Path) -> None:
    reason = hipcc_syntax_missing()
    if reason is not None:
        print(f"test_overload_shims: skipped: {reason}")
        pytest.skip(reason)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(uses(bf16=True))
    done = translate_tree(tmp_path / "src", tmp_path / "out", rocm_version="6.3")
    assert [d.code for d in done.diagnostics] == [CODE] * 3
    checked = hipcc_syntax(tmp_path / "out" / "k.cu", flags=["-std=c++17", "-Wall", "-Werror"])
    assert checked.returncode == 0, checked.stderr[-4000:]


@pytest.mark.hipcc
def test_compiles_at_5_2_with_debian_hipcc(tmp_path: Path, hip_env: dict[str, str]) -> None:
    if shutil.which("hipcc") is None:
        print("test_overload_shims: skipped: Debian's hipcc not found (apt-get install hipcc; .ci/run does)")
        pytest.skip("Debian's hipcc not found")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(uses(bf16=False))
    done = translate_tree(tmp_path / "src", tmp_path / "out", rocm_version="5.2")
    assert [d.code for d in done.diagnostics] == [CODE]
    built = debian_hipcc(tmp_path / "out" / "k.cu", tmp_path / "k.o", hip_env)
    assert built.returncode == 0, built.stderr[-4000:]


# --- the proof on HIP-CPU -------------------------------------------------------------------------------
def bf16_float(bits: int) -> float:
    return float(struct.unpack("<f", struct.pack("<I", bits << 16))[0])


def is_nan(bits: int) -> bool:
    return (bits & 0x7F80) == 0x7F80 and (bits & 0x7F) != 0


def reference(a: int, b: int, op: str) -> int:
    """cuda_bf16.h: max(a, b) = (a > b) ? a : b (min: a < b), the canonical NaN 0x7fff when either input is
    NaN, and of two zeros +0 > -0."""
    if is_nan(a) or is_nan(b):
        return 0x7FFF
    x, y = bf16_float(a), bf16_float(b)
    if x == y == 0.0:  # zeros: +0 > -0
        zeros = {a, b}
        return (0x0000 if 0x0000 in zeros else 0x8000) if op == "max" else (0x8000 if 0x8000 in zeros else 0x0000)
    if op == "max":
        return a if x > y else b
    return a if x < y else b


BOUNDARY = [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0xFF81, 0x7FFF, 0x7FA5, 0x0001, 0x8001]
BOUNDARY += [0x007F, 0x807F, 0x0080, 0x8080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x3F81, 0xBF81]

BF16_PROGRAM = """#include <cstdio>
#include <cstring>
#include <cuda_bf16.h>
__global__ void minmax(const unsigned short *a, const unsigned short *b, unsigned short *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 x, y, hi, lo;
  memcpy(&x, &a[i], 2);
  memcpy(&y, &b[i], 2);
  hi = __hmax_nan(x, y);
  lo = __hmin_nan(x, y);
  memcpy(&out[2 * i], &hi, 2);
  memcpy(&out[2 * i + 1], &lo, 2);
}
int main() {
  int n = 0;
  static unsigned short a[8192], b[8192], out[16384];
  unsigned int x, y;
  while (n < 8192 && scanf("%x %x", &x, &y) == 2) { a[n] = x; b[n] = y; ++n; }
  unsigned short *da, *db, *dout;
  cudaMalloc(&da, sizeof(a)); cudaMalloc(&db, sizeof(b)); cudaMalloc(&dout, sizeof(out));
  cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice);
  minmax<<<(n + 63) / 64, 64>>>(da, db, dout, n);
  cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) printf("%04x %04x\\n", out[2 * i], out[2 * i + 1]);
  return 0;
}
"""

# threads contend on both halves of one word with CAS-loop increments; each successful CAS's returned old value
# is recorded; a second word's low half is hammered while its high half must keep 0xbeef; a compare that fails
# must return the current value and write nothing
ATOMIC_PROGRAM = """#include <cstdio>
#define BLOCKS 16
#define THREADS 64
#define ROUNDS 8
#define PER_HALF (BLOCKS * THREADS * ROUNDS / 2)
__global__ void contend(unsigned short *pair, unsigned short *seen, unsigned short *other, unsigned short *probe) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned short *half = &pair[t & 1];
  for (int r = 0; r < ROUNDS; ++r) {
    unsigned short old = *(volatile unsigned short *)half, assumed;
    do {
      assumed = old;
      old = atomicCAS(half, assumed, (unsigned short)(assumed + 1));
    } while (old != assumed);
    seen[(t & 1) * PER_HALF + old] += 1;  // each old value once per half: a sequential history
    unsigned short o = *(volatile unsigned short *)&other[0], oa;
    do {
      oa = o;
      o = atomicCAS(&other[0], oa, (unsigned short)(oa + 3));
    } while (o != oa);
  }
  if (t == 0) {
    probe[0] = atomicCAS(&probe[1], (unsigned short)0x1111, (unsigned short)0x2222);  // probe[1] is 0x4242
    probe[2] = atomicCAS(&probe[3], (unsigned short)0x5555, (unsigned short)0x6666);  // probe[3] is 0x5555
  }
}
int main() {
  unsigned short *pair, *seen, *other, *probe;
  cudaMalloc(&pair, 4 * sizeof(unsigned short));
  cudaMalloc(&seen, 2 * PER_HALF * sizeof(unsigned short));
  cudaMalloc(&other, 4 * sizeof(unsigned short));
  cudaMalloc(&probe, 4 * sizeof(unsigned short));
  unsigned short init_pair[4] = {0, 0, 0, 0}, init_other[4] = {0, 0xbeef, 0, 0}, init_probe[4] = {0, 0x4242, 0, 0x5555};
  cudaMemcpy(pair, init_pair, sizeof(init_pair), cudaMemcpyHostToDevice);
  cudaMemcpy(other, init_other, sizeof(init_other), cudaMemcpyHostToDevice);
  cudaMemcpy(probe, init_probe, sizeof(init_probe), cudaMemcpyHostToDevice);
  cudaMemset(seen, 0, 2 * PER_HALF * sizeof(unsigned short));
  contend<<<BLOCKS, THREADS>>>(pair, seen, other, probe);
  static unsigned short h_seen[2 * PER_HALF];
  unsigned short h_pair[4], h_other[4], h_probe[4];
  cudaMemcpy(h_pair, pair, sizeof(h_pair), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_other, other, sizeof(h_other), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_probe, probe, sizeof(h_probe), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_seen, seen, sizeof(h_seen), cudaMemcpyDeviceToHost);
  int once = 0;
  for (int i = 0; i < 2 * PER_HALF; ++i) once += h_seen[i] == 1;
  printf("%d %d %d %d %d %d %x %x %x %x %x\\n", PER_HALF, h_pair[0], h_pair[1], h_pair[2], h_pair[3], once,
         h_other[0], h_other[1], h_probe[0], h_probe[1], h_probe[2] << 16 | h_probe[3]);
  return 0;
}
"""


UNDER_TEST = "under_test_atomicCAS"


def run_on_hip_cpu(program: str, tmp_path: Path, prelude: Path, stdin: str = "") -> str:  # noqa: F811
    """Translate `program` at 6.3 (launches as hipLaunchKernelGGL), build it with g++ on HIP-CPU, run it."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "p.cu").write_text(program)
    done = translate_tree(src, out, rocm_version="6.3", kernel_launch="hip")
    assert not done.failed and CODE in {d.code for d in done.diagnostics}
    header = (out / "hipconv_compat.h").read_text()
    if "atomicCAS(unsigned short* address" in header:
        # HIP-CPU defines a 16-bit atomicCAS of its own (ROCm does not): in the built copy, hipconv's definition
        # and the program's calls (all on unsigned short) take another name, so that hipconv's is the one run
        header = header.replace(
            "unsigned short atomicCAS(unsigned short* address", f"unsigned short {UNDER_TEST}(unsigned short* address"
        )
        (out / "hipconv_compat.h").write_text(header)
        (out / "p.cu").write_text((out / "p.cu").read_text().replace("atomicCAS(", f"{UNDER_TEST}("))
    # HIP-CPU has no bfloat16: a 16-bit stand-in type is enough, as the definitions read its bits only
    stand_in = tmp_path / "stand-in" / "hip"
    stand_in.mkdir(parents=True)
    (stand_in / "hip_bf16.h").write_text("#pragma once\nstruct __hip_bfloat16 { unsigned short data; };\n")
    binary = tmp_path / "p"
    built = subprocess.run(
        ["g++", *CXX_FLAGS, f"-I{out}", f"-I{stand_in.parent}", "-include", str(prelude)]
        + ["-x", "c++", str(out / "p.cu"), "-x", "none", "-o", str(binary), "-ltbb", "-lpthread"],
        capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-4000:]
    ran = subprocess.run([str(binary)], input=stdin, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def test_bf16_nan_max_min_as_cuda_documents(tmp_path: Path, prelude: Path) -> None:  # noqa: F811
    rng = random.Random(37)
    pairs = [(a, b) for a in BOUNDARY for b in BOUNDARY]
    pairs += [(rng.randrange(1 << 16), rng.randrange(1 << 16)) for _ in range(3000)]
    pairs += [(a, a ^ 0x8000) for a, _ in pairs[-500:]]  # a value and its negation
    got = run_on_hip_cpu(BF16_PROGRAM, tmp_path, prelude, "".join(f"{a:x} {b:x}\n" for a, b in pairs)).split("\n")
    wrong = []
    for (a, b), line in zip(pairs, got, strict=False):
        hi, lo = (int(w, 16) for w in line.split())
        want = (reference(a, b, "max"), reference(a, b, "min"))
        if (hi, lo) != want:
            wrong.append(
                f"({a:#06x}, {b:#06x}): got max {hi:#06x} min {lo:#06x}, CUDA gives {want[0]:#06x} {want[1]:#06x}"
            )
    assert len(got) >= len(pairs) and not wrong, "\n".join(wrong[:20])


def test_atomic_cas_u16_under_contention(tmp_path: Path, prelude: Path) -> None:  # noqa: F811
    per_half, lo, hi, next_lo, next_hi, once, o_lo, o_hi, p0, p1, p23 = run_on_hip_cpu(
        ATOMIC_PROGRAM, tmp_path, prelude
    ).split()
    count = int(per_half)
    assert (int(lo), int(hi)) == (count, count), "each half ends at its exact count of increments"
    assert (int(next_lo), int(next_hi)) == (0, 0), "the word after the pair is untouched"
    assert int(once) == 2 * count, "each half returned every old value 0..count-1 exactly once"
    assert (int(o_lo, 16), int(o_hi, 16)) == ((3 * count * 2) & 0xFFFF, 0xBEEF), "the neighbouring half untouched"
    assert (int(p0, 16), int(p1, 16)) == (0x4242, 0x4242), "a failed compare returns the value and writes nothing"
    assert int(p23, 16) == 0x5555 << 16 | 0x6666, "a matching compare returns the old value and writes"
