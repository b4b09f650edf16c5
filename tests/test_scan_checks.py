"""Every scan check against its fixture: `// expect: HCxxx` lines must fire, `// expect-ok` lines must not."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURES, SHARED_INVENTORY

from helpers import comment_annotations
from hipconv.diagnostics import CODES
from hipconv.resources import cuda_releases, hip_releases
from hipconv.rules import load_ruleset
from hipconv.scan.checks import CHECKS
from hipconv.scan.device_props import DeviceProp, device_props
from hipconv.scan.scanner import scan_sources
from hipconv.settings import Settings, Version
from hipconv.translate.source import SourceFile

CHECK_FIXTURES = sorted((FIXTURES / "scan" / "checks").glob("*.cu"))
LOOKALIKES = sorted((FIXTURES / "scan" / "lookalikes").glob("*.cu"))


def scan_text(data: bytes, rocm: str = "6.3", path: str = "k.cu", disabled: frozenset[str] = frozenset()):
    settings = Settings(Version.parse(rocm))
    return scan_sources(
        [SourceFile.from_bytes(path, data)], load_ruleset().table(settings), settings, disabled=disabled
    )[0]


def check_codes(data: bytes, rocm: str = "6.3") -> set[tuple[int, str]]:
    return {
        (f.diagnostic.line, f.diagnostic.code)
        for f in scan_text(data, rocm).findings
        if f.diagnostic.code.startswith("HC3")
    }


@pytest.mark.parametrize("fixture", CHECK_FIXTURES, ids=lambda p: p.name)
def test_check_fixture(fixture: Path) -> None:
    data = fixture.read_bytes()
    annotations = comment_annotations(data)
    expected = {(line, text.split(":", 1)[1].strip()) for line, text in annotations if text.startswith("expect:")}
    ok_lines = {line for line, text in annotations if text.startswith("expect-ok")}
    assert expected and ok_lines, "each fixture needs a true positive and a look-alike"
    assert {code for _, code in expected} == {fixture.name[:5]}
    target = re.match(rb"// ROCm (\d+\.\d+)\n", data)  # a first line `// ROCm 7.0`: scanned for that target
    found = check_codes(data, target.group(1).decode() if target else "6.3")
    missed, incorrect = expected - found, found - expected
    assert not missed and not incorrect, f"missed: {sorted(missed)}; incorrect: {sorted(incorrect)}"
    assert not {line for line, _ in found} & ok_lines


@pytest.mark.parametrize("fixture", LOOKALIKES, ids=lambda p: p.name)
def test_lookalike_program_reports_no_wavefront_hazard(fixture: Path) -> None:
    """Whole programs that look like warp code and are not (32x32 matrix tiles, cooperative-groups tiles of 32)."""
    assert check_codes(fixture.read_bytes()) == set()


ACTIVEMASK_SOURCE = """#define FULL32 0xffffffff
#define FULL64 0xffffffffffffffffull
__global__ void k(int* out) {{
  unsigned long long active = __activemask();
  if ({test}) out[threadIdx.x] = 1;
}}
"""


@pytest.mark.parametrize(
    "test",
    [
        "__activemask() == 0xffffffff",
        "__activemask() != 0xFFFFFFFFu",
        "0xffffffff == __activemask()",
        "__activemask() == FULL32",
        "active == 0xffffffff",
        "FULL32 != active",
    ],
)
def test_activemask_compared_with_a_32_bit_full_mask(test: str) -> None:
    src = ACTIVEMASK_SOURCE.format(test=test).encode()
    found = [f.diagnostic for f in scan_text(src).findings if f.diagnostic.code == "HC304"]
    assert [(d.line, d.code) for d in found] == [(5, "HC304")]
    assert "tests lanes 0-31 only" in found[0].message
    assert "(compare with 0xffffffffffffffffull)" in found[0].message


@pytest.mark.parametrize(
    "test", ["__activemask() == 0xffffffffffffffffull", "active == FULL64", "active == ~0ull", "active != 0"]
)
def test_activemask_compared_with_a_64_bit_mask_is_no_hc304(test: str) -> None:
    assert (5, "HC304") not in check_codes(ACTIVEMASK_SOURCE.format(test=test).encode())


def test_two_codes_at_one_position_are_both_reported() -> None:
    """A 32-bit store of __activemask's result (HC304) and __activemask itself (HC305) point at one token."""
    src = b"__device__ unsigned leader() {\n  unsigned active = __activemask();\n  return __ffs(active) - 1;\n}\n"
    found = [(f.diagnostic.line, f.diagnostic.col, f.diagnostic.code) for f in scan_text(src).findings]
    assert found == [(2, 21, "HC304"), (2, 21, "HC305"), (3, 10, "HC304")]


def test_shared_array_sized_by_a_warp_size_name() -> None:
    """`[WARP_SIZE]` with WARP_SIZE defined as 32 is a per-lane array, with or without warp intrinsics beside it."""
    src = b"""#define WARP_SIZE 32
#define TILE 32
__global__ void k(const float* in, float* out) {
  __shared__ float lanes[WARP_SIZE];
  __shared__ float warps[1024 / WARP_SIZE];
  __shared__ float tile[TILE][TILE + 1];
  lanes[threadIdx.x % warpSize] = warps[threadIdx.x / warpSize] = tile[threadIdx.y][threadIdx.x] = in[0];
  out[0] = lanes[0] + warps[0] + tile[0][0];
}
"""
    assert check_codes(src) == {(1, "HC301"), (4, "HC306"), (5, "HC306")}
    messages = [f.diagnostic.message for f in scan_text(src).findings if f.diagnostic.code == "HC306"]
    assert messages[0].startswith("shared array sized WARP_SIZE, one slot per lane")
    assert messages[0].endswith("(size it for 64 lanes)")
    assert "`/ WARP_SIZE`" in messages[1]


@pytest.mark.parametrize(
    ("expression", "fix"),
    [
        ("threadIdx.x % 32", "(use `% warpSize`, or `__lane_id()` for the lane)"),
        ("threadIdx.x & 31", "(use `& (warpSize - 1)`, or `__lane_id()` for the lane)"),
        ("threadIdx.x / 32", "(use `/ warpSize`)"),
        ("threadIdx.x >> 5", "(use `/ warpSize` (e.g. `threadIdx.x / warpSize` for the warp index))"),
    ],
)
def test_lane_arithmetic_finding_carries_its_fix(expression: str, fix: str) -> None:
    src = f"__global__ void k(int* p) {{ p[{expression}] = 1; }}\n".encode()
    found = [f.diagnostic.message for f in scan_text(src).findings]
    assert len(found) == 1 and found[0].endswith(fix)


def test_every_check_has_a_code_and_a_fixture() -> None:
    scan_codes = {c for c in CODES if c.startswith("HC3")}
    # a rule's own code (HC312 for __CUDA_ARCH__'s value) is reported by translate and scan alike
    rule_codes = {rule.code for rule in load_ruleset().rules if rule.code in scan_codes}
    assert rule_codes == {"HC312"}
    assert [c.code for c in CHECKS] == sorted(scan_codes - rule_codes)
    assert len({c.id for c in CHECKS}) == len(CHECKS)
    assert {p.name[:5] for p in CHECK_FIXTURES} == scan_codes
    assert all(CODES[c].hint for c in scan_codes)


def device_prop_messages(member: str, rocm: str) -> list[str]:
    src = f"void f() {{ cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0); int x = prop.{member}; }}\n"
    return [f.diagnostic.message for f in scan_text(src.encode(), rocm).findings if f.diagnostic.code == "HC314"]


def test_device_prop_field_follows_the_target_release() -> None:
    src = b"void f() { cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0); int x = prop.luid[0]; }\n"
    assert check_codes(src, rocm="5.2") == {(1, "HC314")}
    assert check_codes(src, rocm="5.7") == {(1, "HC314")}
    assert check_codes(src, rocm="6.0") == set()
    assert check_codes(src, rocm="7.2") == set()


@pytest.mark.parametrize(
    ("member", "rocm", "message"),
    [
        pytest.param(
            "luid[0]",
            "5.7",
            "cudaDeviceProp::luid has no hipDeviceProp_t counterpart in ROCm 5.7 (it appears in ROCm 6.0)",
            id="later-release",
        ),
        pytest.param(
            "deviceOverlap",
            "5.2",
            "cudaDeviceProp::deviceOverlap has no hipDeviceProp_t counterpart in ROCm 5.2 (it appears in ROCm 6.0; "
            "CUDA 13.0 removed it from cudaDeviceProp)",
            id="cuda-12-member",
        ),
        pytest.param(
            "sparseCudaArraySupported",
            "5.2",
            "cudaDeviceProp::sparseCudaArraySupported has no hipDeviceProp_t counterpart in ROCm 5.2 (it appears in "
            "ROCm 6.0 as sparseHipArraySupported)",
            id="hip-spelling-later",
        ),
        pytest.param(
            "sparseCudaArraySupported",
            "7.2",
            "cudaDeviceProp::sparseCudaArraySupported has no hipDeviceProp_t counterpart of that name in ROCm 7.2 "
            "(hipDeviceProp_t spells it sparseHipArraySupported, from ROCm 6.0 on)",
            id="hip-spelling",
        ),
        pytest.param(
            "deviceNumaId",
            "7.2",
            "cudaDeviceProp::deviceNumaId has no hipDeviceProp_t counterpart in ROCm 7.2 (no bundled ROCm release has "
            "it)",
            id="none",
        ),
    ],
)
def test_device_prop_message_names_the_first_release(member: str, rocm: str, message: str) -> None:
    assert device_prop_messages(member, rocm) == [message]


@pytest.mark.parametrize("member", ["clockRate", "memoryClockRate", "maxTexture1DLinear", "computeMode"])
def test_device_prop_member_cuda_13_removed_but_hip_has_is_no_finding(member: str) -> None:
    """Code written for CUDA 12 reads these; every bundled hipDeviceProp_t has them."""
    assert device_prop_messages(member, "5.2") == []


def test_device_prop_member_a_rocm_release_dropped() -> None:
    """No member has been dropped by a bundled release so far; the message for one that is."""
    prop = DeviceProp("gcnArch", ("11.8", "12.9", "13.0"), ("5.2", "5.7"), "gcnArch")
    assert prop.problem(Version.parse("5.7")) is None
    assert prop.problem(Version.parse("6.3")) == (
        "cudaDeviceProp::gcnArch has no hipDeviceProp_t counterpart in ROCm 6.3 (it appears in ROCm 5.2; "
        "ROCm 6.0 removed it)"
    )


def test_checks_see_every_preprocessor_branch_and_macro_body() -> None:
    src = b"#if 0\n__device__ int a() { return threadIdx.x % 32; }\n#else\n#define LANE() (threadIdx.x & 31)\n#endif\n"
    assert check_codes(src) == {(2, "HC301"), (4, "HC301")}


def test_checks_noop_on_plain_cpp() -> None:
    src = b"int main() { int a[32]; for (int i = 16; i > 0; i /= 2) a[i % 32] = i & 31; return a[0] / 32; }\n"
    assert scan_text(src, path="main.cpp").findings == ()


def test_disabled_check_is_not_run() -> None:
    src = b"__global__ void k(int* p) { p[threadIdx.x % 32] = 0; }\n"
    assert scan_text(src, disabled=frozenset({"HC301"})).findings == ()


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason="../shared/api-inventory not present")
def test_device_prop_table_matches_the_inventories() -> None:
    """Every member of cudaDeviceProp (CUDA 11.8, 12.9, 13.0) with the ROCm releases whose hipDeviceProp_t has
    it, in every bundled release: the full header parses (5.2 ... 6.3) and the host-only sets (6.4 ...), whose
    records carry hipDeviceProp_t's members too (ROCm 6.0 on it is hipDeviceProp_tR0600 by a macro)."""

    def fields(folder: str, file: str, names: tuple[str, ...]) -> list[str]:
        for line in (SHARED_INVENTORY / folder / file).open(encoding="utf-8"):
            record = json.loads(line)
            if record["name"] in names and record.get("fields"):
                return list(record["fields"])
        raise AssertionError(f"{names[0]} has no fields in {folder}")

    cuda_folders = {"11.8": "cuda-11.8", "12.9": "cuda-12.9", "13.0": "cuda"}
    hip_folders = {rel: "hip" if rel == "6.3" else f"hip-{rel}" for rel in hip_releases()}
    assert cuda_releases() == list(cuda_folders)
    cuda = {rel: fields(folder, "cuda_runtime.jsonl", ("cudaDeviceProp",)) for rel, folder in cuda_folders.items()}
    hip = {
        rel: set(fields(folder, "hip_runtime.jsonl", ("hipDeviceProp_t", "hipDeviceProp_tR0600")))
        for rel, folder in hip_folders.items()
    }
    expected = {}
    for member in {m for have in cuda.values() for m in have}:
        spelling = member
        if not any(member in have for have in hip.values()):  # HIP spells `Cuda` as `Hip`
            spelling = member.replace("Cuda", "Hip")
        expected[member] = DeviceProp(
            member,
            tuple(rel for rel, have in cuda.items() if member in have),
            tuple(rel for rel, have in hip.items() if spelling in have),
            spelling if any(spelling in have for have in hip.values()) else member,
        )
    assert dict(device_props()) == expected
    # what the inventories say today, as HC314's messages rely on it
    assert expected["luid"].hip[0] == "6.0" and expected["deviceNumaId"].hip == ()
    assert expected["sparseCudaArraySupported"].spelling == "sparseHipArraySupported"
    assert expected["clockRate"].cuda == ("11.8", "12.9")


@pytest.mark.parametrize(
    "index", ["threadIdx.x / 32", "threadIdx.x >> 5", "tid / warpSize", "warp", "warp_id", "wid"], ids=str
)
def test_per_warp_array_indexed_by_a_warp_id(index: str) -> None:
    """A [32] shared array with one slot per warp, as every block reduction writes it, with or without warp
    intrinsics beside it: the last wavefront reads it lane by lane, past its end on AMD."""
    src = f"""__device__ float warp_sum(float v);
__global__ void block_sum(const float* in, float* out) {{
  __shared__ float partial[32];
  unsigned tid = threadIdx.x;
  int warp = tid >> 5, warp_id = tid / 32;
  const int wid = tid / warpSize;
  float v = warp_sum(in[tid]);
  if (tid % warpSize == 0) partial[{index}] = v;
  __syncthreads();
  if (tid < warpSize) out[blockIdx.x] = warp_sum(partial[tid % warpSize]);
}}
""".encode()
    found = [f.diagnostic for f in scan_text(src).findings if f.diagnostic.code == "HC306"]
    assert [(d.line, d.col) for d in found] == [(3, 28)]
    assert f"indexed by the warp id `{index}`" in found[0].message


ROCM7_WARP_SIZE_USES = b"""#define WARP_SIZE 32
#define LOG_WARP_SIZE 5
constexpr int kWarpSize = 32;
__global__ void k(const float* in, float* out) {
  __shared__ float lanes[32];
  __shared__ float warps[32];
  __shared__ float per_block[1024 / 32];
  __shared__ float named[WARP_SIZE];
  float v = in[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  unsigned votes = __ballot_sync(0xffffffff, v > 0);
  lanes[threadIdx.x % 32] = warps[threadIdx.x / 32] = per_block[threadIdx.x >> 5] = named[threadIdx.x & 31] = v;
  for (int lane = 0; lane < 32; ++lane) v += lanes[lane];
  out[0] = v + __popc(votes) + kWarpSize + (1 << LOG_WARP_SIZE);
}
"""
# a fix that puts warpSize where C++ needs a constant: an array bound, a template argument, a constant's definition
_CONSTANT_WARP_SIZE_FIX = re.compile(
    r"\(use warpSize\)|AMD's warpSize|size[ds]? (?:it |them |\w+ arrays )?by warpSize|\[warpSize\]|<\s*warpSize\s*[,>]"
    r"|constant derived from|derive it from warpSize|by blockDim / warpSize"
)


def test_no_hint_puts_warp_size_where_rocm_7_needs_a_constant() -> None:
    """From ROCm 7.0 warpSize is not a constant expression: no message or hint of hipconv may suggest it for an
    array bound, a template argument or a constant's definition when the target is 7.x (the fix is a constant
    defined per target)."""
    sources = [*CHECK_FIXTURES, *LOOKALIKES]
    texts = [CODES[code].hint for code in CODES]
    for data in [ROCM7_WARP_SIZE_USES, *(p.read_bytes() for p in sources)]:
        texts += [f"{f.diagnostic.message} {f.hint}" for f in scan_text(data, rocm="7.2").findings]
    offending = [t for t in texts if _CONSTANT_WARP_SIZE_FIX.search(t)]
    assert not offending
    definitions = [f.diagnostic.message for f in scan_text(ROCM7_WARP_SIZE_USES, rocm="7.2").findings][:3]
    assert all("define the constant per target, 64 for gfx9" in m for m in definitions), definitions
    assert "(use warpSize)" in scan_text(ROCM7_WARP_SIZE_USES, rocm="6.3").findings[0].diagnostic.message


PER_WARP_READ = """__device__ float warp_sum(float v);
__device__ float block_sum(float v) {{
  static __shared__ float partial[32];
  int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;
  const int waves = blockDim.x / warpSize, warps = blockDim.x / 32;
  if (lane == 0) partial[wid] = warp_sum(v);
  __syncthreads();
  {read}
  return wid == 0 ? warp_sum(v) : v;
}}
"""


@pytest.mark.parametrize(
    "read",
    [
        "v = threadIdx.x < blockDim.x / warpSize ? partial[lane] : 0.0f;",
        "v = (blockDim.x / warpSize > threadIdx.x) ? partial[lane] : 0.0f;",
        "if (lane < waves) v = partial[lane];",
        "if (wid == 0) { if (lane < (blockDim.x + warpSize - 1) / warpSize) { v = partial[lane]; } }",
        "for (int w = 0; w < waves; ++w) v += partial[w];",
        "v = partial[0] + partial[wid];",
    ],
)
def test_per_warp_array_read_by_the_blocks_wavefronts_is_no_hc306(read: str) -> None:
    assert (3, "HC306") not in check_codes(PER_WARP_READ.format(read=read).encode())


@pytest.mark.parametrize(
    ("read", "how"),
    [
        ("v = partial[lane];", "`partial[lane]` reads them with no guard"),
        ("if (wid == 0) v = partial[lane];", "`partial[lane]` reads them with no guard"),
        ("v = threadIdx.x < warpSize ? partial[lane] : 0.0f;", "`partial[lane]` reads them with no guard"),
        ("v = lane < warpSize ? 0.0f : partial[lane];", "`partial[lane]` reads them with no guard"),
        ("v = lane < warps ? partial[lane] : 0.0f;", "`partial[lane]` is guarded by `warps`, a count of 32-wide"),
        ("if (lane < blockDim.x >> 5) v = partial[lane];", "is guarded by `blockDim.x >> 5`, a count of 32-wide"),
        ("float* p = partial; v = p[lane];", "`partial` is passed on"),
    ],
)
def test_per_warp_array_read_past_the_blocks_wavefronts(read: str, how: str) -> None:
    found = [f.diagnostic for f in scan_text(PER_WARP_READ.format(read=read).encode()).findings]
    messages = [d.message for d in found if (d.line, d.code) == (3, "HC306")]
    assert len(messages) == 1 and how in messages[0], messages


WARP_SIZE_IN_IF = b"""#define LANES warpSize
#if warpSize == 64
#define WAVE 64
#elif defined(LANES) && \\
    LANES == 32
#define WAVE 32
#endif
__global__ void k(int* out) {
  __shared__ int lanes[warpSize];
  lanes[threadIdx.x % warpSize] = warpSize;
  out[threadIdx.x] = lanes[0];
}
"""


@pytest.mark.parametrize("rocm", ["5.2", "6.3", "7.2"])
def test_warp_size_in_an_if_directive_reads_as_0_at_every_target(rocm: str) -> None:
    """warpSize is no macro: in `#if` it reads as 0 (and a macro defined as it too), whatever the target; as an
    array bound it stops compiling from ROCm 7.0 only."""
    found = [f.diagnostic for f in scan_text(WARP_SIZE_IN_IF, rocm).findings if f.diagnostic.code == "HC307"]
    expected = [(2, 5), (5, 5)] + ([(9, 24)] if rocm == "7.2" else [])  # not `defined(LANES)`: it is a macro
    assert [(d.line, d.col) for d in found] == expected
    assert "in `#if`: warpSize is no macro, so the preprocessor reads it as 0" in found[0].message
    assert found[1].message.startswith("LANES (defined with warpSize) in `#elif`")
