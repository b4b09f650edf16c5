"""Release ranges: `--rocm-version LOW..HIGH` writes one tree for every bundled release of the range
(hipconv.rules.ranges, translate.matchers.release_range, docs/release-ranges.md).

The golden trees are tests/fixtures/range_*/ (test_fixtures.py checks them, and compiles range_pinned_host
with Debian's hipcc, HIP 5.2); here the same output is checked against ROCm 6.3's headers, the options'
errors, the single-release path, and what each kind of difference becomes."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from helpers import hipcc_syntax, hipcc_syntax_missing, run_cli
from hipconv.api import translate_source
from hipconv.config import Config, settings_from
from hipconv.diagnostics import CODES, RANGE_GAP, RANGE_WARP_SIZE_CONSTANT, SHIMMED, Severity
from hipconv.errors import ConfigError
from hipconv.resources import hip_releases, releases_between, rocm_range
from hipconv.rules import load_ruleset
from hipconv.rules.model import RuleSet
from hipconv.rules.ranges import guard_value, run_table
from hipconv.settings import Version

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_ROCM = Path(__file__).resolve().parents[2] / "shared" / "rocm-6.3"

PINNED = """#include <cuda_runtime.h>
int main() {
  float *p = nullptr;
  cudaHostAlloc(&p, 64, cudaHostAllocMapped);
  cudaFreeHost(p);
  return 0;
}
"""


# --- the option -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        pytest.param("4.0..7.2", "ROCm release range '4.0..7.2': ROCm '4.0' is not a bundled release", id="low-out"),
        pytest.param("5.2..9.9", "ROCm release range '5.2..9.9': ROCm '9.9' is not a bundled release", id="high-out"),
        pytest.param("7.2..5.2", "ROCm release range '7.2..5.2': 7.2 is not older than 5.2", id="reversed"),
        pytest.param("6.3..6.3", "ROCm release range '6.3..6.3': 6.3 is not older than 6.3", id="one-release"),
        pytest.param("5.2..", "invalid ROCm release range '5.2..': expected LOW..HIGH", id="no-high"),
        pytest.param("..7.2", "invalid ROCm release range '..7.2': expected LOW..HIGH", id="no-low"),
        pytest.param("5.2...7.2", "invalid ROCm release range '5.2...7.2': expected LOW..HIGH", id="three-dots"),
        pytest.param("5..7", "invalid ROCm release range '5..7': expected LOW..HIGH", id="no-minor"),
    ],
)
def test_bad_ranges_are_usage_errors(value: str, message: str, tmp_path: Path) -> None:
    """Exit 2 (nothing written), `error: <message>` and a hint on stderr."""
    source = tmp_path / "k.cu"
    source.write_text(PINNED)
    out = tmp_path / "out"
    done = run_cli("translate", source, "-o", out, "--rocm-version", value)
    assert done.code == 2
    assert f"error: {message}" in done.stderr
    assert "hint: " in done.stderr
    assert not out.exists()


def test_reversed_range_hint_gives_the_order(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        rocm_range("7.2..5.2")
    assert caught.value.hint is not None and "5.2..7.2" in caught.value.hint


def test_range_in_the_configuration_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`rocm-version = "LOW..HIGH"` in [tool.hipconv] works as the option does, and a bad one names the file."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "k.cu").write_text(PINNED)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".hipconv.toml").write_text('rocm-version = "5.2..7.2"\n')
    done = run_cli("translate", "k.cu", "-o", "out.cu")
    assert done.code == 0, done.stderr
    assert "hipconv_r_cudaHostAlloc(&p, 64, hipconv_r_cudaHostAllocMapped)" in (tmp_path / "out.cu").read_text()
    (tmp_path / ".hipconv.toml").write_text('rocm-version = "7.2..5.2"\n')
    done = run_cli("translate", "k.cu", "-o", "again.cu")
    assert done.code == 2
    assert ".hipconv.toml: [tool.hipconv] rocm-version: ROCm release range '7.2..5.2'" in done.stderr


def test_range_output_tree_and_its_marker(tmp_path: Path) -> None:
    """A tree written for a range has hipconv_compat.h with the guarded macros, the same on a rerun (which finds
    the files and the header in the cache); its marker names the range, so a run for one release is refused."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(PINNED)
    out = tmp_path / "out"
    for _ in range(2):
        done = run_cli("translate", tmp_path / "src", "-o", out, "--rocm-version", "5.2..7.2")
        assert done.code == 0, done.stderr
        header = (out / "hipconv_compat.h").read_text()
        assert "#if HIP_VERSION >= 60300000\n#define hipconv_r_cudaFreeHost hipFreeHost\n#else\n" in header
    done = run_cli("translate", tmp_path / "src", "-o", out, "--rocm-version", "7.2")
    assert done.code == 2
    assert "was written for ROCm 5.2..7.2; this run targets ROCm 7.2" in done.stderr


def test_range_settings_keep_one_target() -> None:
    """Settings.rocm stays one release (HIGH); the range is its own field; one release has none."""
    ranged = settings_from(Config(), "5.2..6.3.1", None)
    assert ranged.rocm == Version.parse("6.3")
    assert ranged.rocm_range == (Version.parse("5.2"), Version.parse("6.3"))
    single = settings_from(Config(), "6.3", None)
    assert single.rocm == Version.parse("6.3") and single.rocm_range is None
    assert releases_between(*ranged.rocm_range) == ["5.2", "5.7", "6.0", "6.1", "6.2", "6.3"]


# --- the table ------------------------------------------------------------------------------------------


def test_one_release_resolves_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The single-release path makes one table, as before, and nothing else; a range makes HIGH's too."""
    ruleset = load_ruleset(())
    made: list[Version] = []
    table = RuleSet.table

    def counted(self: RuleSet, settings):  # type: ignore[no-untyped-def]
        made.append(settings.rocm)
        return table(self, settings)

    monkeypatch.setattr(RuleSet, "table", counted)
    single = run_table(ruleset, settings_from(Config(), "6.3", None))
    assert made == [Version.parse("6.3")]
    assert not single.ranged and not single.gaps
    made.clear()
    ranged = run_table(ruleset, settings_from(Config(), "6.2..7.0", None))
    assert made == [Version.parse("7.0")]  # one table: only the names whose rules change inside are resolved again
    assert ranged.ranged and ranged.gaps


@pytest.mark.parametrize("release", ["5.2", "5.7", "6.0", "6.3", "7.2"])
def test_hip_version_guards_match_the_headers(release: str) -> None:
    """HIP_VERSION = major * 10000000 + minor * 100000 + patch: a release's guard value is its first build."""
    major, minor = (int(p) for p in release.split("."))
    assert guard_value(release) == major * 10_000_000 + minor * 100_000
    headers = [Path("/usr/include/hip/hip_version.h"), SHARED_ROCM / "include" / "hip" / "hip_version.h"]
    for header in (h for h in headers if h.is_file()):
        text = header.read_text()
        parts = {k: int(v) for k, v in re.findall(r"#define HIP_VERSION_(MAJOR|MINOR|PATCH) (\d+)", text)}
        assert "HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH" in text
        installed = f"{parts['MAJOR']}.{parts['MINOR']}"
        value = parts["MAJOR"] * 10_000_000 + parts["MINOR"] * 100_000 + parts["PATCH"]
        if installed in hip_releases():
            assert guard_value(installed) <= value < guard_value(installed) + 100_000


# --- what each difference becomes ------------------------------------------------------------------------


def test_renamed_names_become_guarded_macros() -> None:
    done = translate_source(PINNED, rocm_version="5.2..7.2")
    text = done.data.decode()
    assert '#include "hipconv_compat.h"' in text
    assert "hipconv_r_cudaHostAlloc(&p, 64, hipconv_r_cudaHostAllocMapped);" in text
    assert "hipconv_r_cudaFreeHost(p);" in text
    assert done.compat_header is not None
    header = done.compat_header.decode()
    assert "#include <hip/hip_version.h>" in header
    assert (
        "// cudaHostAlloc: hipHostMalloc in ROCm 5.2–6.2; hipHostAlloc in ROCm 6.3–7.2\n"
        "#if HIP_VERSION >= 60300000\n"
        "#define hipconv_r_cudaHostAlloc hipHostAlloc\n"
        "#else\n"
        "#define hipconv_r_cudaHostAlloc hipHostMalloc\n"
        "#endif\n"
    ) in header
    notes = [d for d in done.diagnostics if d.code == SHIMMED]
    assert [d.line for d in notes] == [4, 4, 5]
    assert "cudaHostAlloc is spelled differently across ROCm 5.2..7.2" in notes[0].message


def test_range_whose_releases_agree_is_the_single_release_output_noop() -> None:
    """6.3..7.2 spell every name here alike: the output and diagnostics are 7.2's, with no macro."""
    ranged = translate_source(PINNED, rocm_version="6.3..7.2")
    single = translate_source(PINNED, rocm_version="7.2")
    assert ranged.data == single.data
    assert ranged.compat_header == single.compat_header
    assert [(d.code, d.line, d.message) for d in ranged.diagnostics] == [
        (d.code, d.line, d.message) for d in single.diagnostics
    ]
    assert b"hipconv_r_" not in ranged.data


def test_moved_header_becomes_guarded_includes() -> None:
    done = translate_source(
        "#include <cublas_v2.h>\nvoid f(cublasHandle_t *h) { cublasCreate(h); }\n", rocm_version="5.2..6.3"
    )
    head = '#include <hip/hip_runtime.h>\n#include "hipconv_compat.h"\nvoid f(hipblasHandle_t'
    assert done.data.decode().startswith(head)
    assert done.compat_header is not None
    assert (
        "#if HIP_VERSION >= 50700000\n#include <hipblas/hipblas.h>\n#else\n#include <hipblas.h>\n#endif"
        in done.compat_header.decode()
    )


def test_missing_names_are_reported_with_the_releases_that_lack_them() -> None:
    source = "#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat16 *p) { p[0] = __float2bfloat16(1.0f); }\n"
    done = translate_source(source, rocm_version="5.2..6.3")
    gaps = [d for d in done.diagnostics if d.code == RANGE_GAP]
    assert [(d.line, d.symbol) for d in gaps] == [(1, "cuda_bf16.h"), (2, "__nv_bfloat16"), (2, "__float2bfloat16")]
    assert gaps[1].message == (
        "__nv_bfloat16 does not build on every release of ROCm 5.2..6.3: ROCm 5.2 has no counterpart (no shim either)"
    )
    assert CODES[RANGE_GAP].severity is Severity.ERROR
    # written as the newest release has them, not left as CUDA
    assert b"__hip_bfloat16" in done.data and b"hip/hip_bf16.h" in done.data
    # 5.7 has them all: nothing to report
    assert not [d for d in translate_source(source, rocm_version="5.7..7.2").diagnostics if d.code == RANGE_GAP]


def test_calls_with_other_arguments_are_reported() -> None:
    """cublasGemmEx takes hipblasDatatype_t in 5.x and hipDataType with hipblasComputeType_t from 6.0: no macro of
    one name can convert its enumerator arguments, so it is reported, naming each release's function."""
    source = (
        "#include <cublas_v2.h>\n"
        "void g(cublasHandle_t h, const float *a, float *c, const float *one) {\n"
        "  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, one, a, CUDA_R_32F, 8, a, CUDA_R_32F, 8, one, c,\n"
        "               CUDA_R_32F, 8, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);\n"
        "}\n"
    )
    done = translate_source(source, rocm_version="5.2..7.2")
    gaps = {d.symbol: d.message for d in done.diagnostics if d.code == RANGE_GAP}
    assert gaps["cublasGemmEx"] == (
        "cublasGemmEx does not build on every release of ROCm 5.2..7.2: its calls take other arguments across "
        "the range (hipblasGemmEx in ROCm 5.2–5.7, hipblasGemmEx_v2 in ROCm 6.0–6.4, hipblasGemmEx in ROCm "
        "7.0–7.2), which no one macro spells"
    )
    assert "ROCm 5.2–5.7 have no counterpart" in gaps["CUBLAS_COMPUTE_32F"]


def test_members_and_other_namespaces_are_not_reported_noop() -> None:
    """A member named as an API, a function of the project's own namespace, a comment: left alone, not reported."""
    source = (
        '#include "pool.h"\n'
        "int f(Pool p) { return p.cudaHostAlloc + mine::__float2bfloat16(p.size); }\n"
        "// __nv_bfloat16 and cudaHostAlloc, in a comment\n"
    )
    done = translate_source(source, path="pool.cpp", rocm_version="5.2..7.2")
    assert done.diagnostics == ()
    assert done.data == source.encode()


# --- warpSize as a constant (HC038) -------------------------------------------------------------------

WARP_CONSTANTS = """#include <hip/hip_runtime.h>
#define WARPS (256 / warpSize)
template <int N> __device__ float first(const float *p) { return p[N - 1]; }
__global__ void k(float *p, int n) {
  __shared__ float per_warp[WARPS];
  constexpr int half = warpSize / 2;
  p[0] = first<warpSize>(per_warp) + half + n % warpSize;
}
"""


@pytest.mark.parametrize(
    ("span", "releases"),
    [
        pytest.param("5.2..7.2", "ROCm 7.0, 7.1 and 7.2 (of the range 5.2..7.2)", id="reaches-7.2"),
        pytest.param("6.4..7.0", "ROCm 7.0 (of the range 6.4..7.0)", id="ends-at-7.0"),
        pytest.param("7.0..7.2", "ROCm 7.0, 7.1 and 7.2 (of the range 7.0..7.2)", id="all-7.x"),
    ],
)
def test_warp_size_constants_are_errors_in_a_range_reaching_7(span: str, releases: str) -> None:
    """Each use where C++ needs a constant, directly or through a macro defined with warpSize, is an error at its
    line naming the 7.x releases of the range; the run-time use (`n % warpSize`) is not; nothing is rewritten."""
    done = translate_source(WARP_CONSTANTS, path="k.hip.cpp", rocm_version=span)
    found = [d for d in done.diagnostics if d.code == RANGE_WARP_SIZE_CONSTANT]
    assert [(d.line, d.col, d.symbol) for d in found] == [(5, 29, "WARPS"), (6, 24, "warpSize"), (7, 16, "warpSize")]
    assert found[0].message.startswith(
        f"WARPS (defined with warpSize) as an array bound, which must be a constant: {releases} read warpSize at "
        "run time, so this does not build there: define the constant per target (64 on gfx9"
    )
    assert "in a constant expression (constexpr)" in found[1].message
    assert "as a template argument" in found[2].message
    assert all("use warpSize" not in d.message for d in found)  # never warpSize as the constant for 7.x
    assert CODES[RANGE_WARP_SIZE_CONSTANT].severity is Severity.ERROR
    assert done.data == WARP_CONSTANTS.encode()


@pytest.mark.parametrize("rocm", ["5.2..6.4", "6.3", "7.2"])
def test_warp_size_constants_outside_a_range_reaching_7_noop(rocm: str) -> None:
    """A range that ends before 7.0 builds them everywhere; a single release is `hipconv scan`'s (HC307)."""
    done = translate_source(WARP_CONSTANTS, path="k.hip.cpp", rocm_version=rocm)
    assert not [d for d in done.diagnostics if d.code == RANGE_WARP_SIZE_CONSTANT]


def test_warp_size_constant_fails_the_run_with_fail_on_error(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(WARP_CONSTANTS)
    result = run_cli(
        "translate",
        str(tmp_path / "k.cu"),
        "-o",
        str(tmp_path / "out"),
        "--rocm-version",
        "6.3..7.2",
        "--fail-on",
        "error",
    )
    assert result.code == 1
    assert re.search(r"k\.cu:5:29: error\[HC038\]: WARPS \(defined with warpSize\) as an array bound", result.stderr)


# --- the fixtures' output, compiled with ROCm 6.3's headers ------------------------------------------------


@pytest.mark.hipcc
@pytest.mark.parametrize(
    "case", ["range_pinned_host", "range_hipblas", "range_bf16", "range_warp_size", "range_warp_size_noop"]
)
def test_range_output_builds_with_rocm63(case: str, tmp_path: Path) -> None:
    """The golden output that Debian's hipcc (5.2) builds where it has the libraries (test_fixtures) builds
    with ROCm 6.3's headers too, from the same files (range_warp_size: warpSize is a constant up to 6.4, so
    what HC038 reports builds there; it is 7.x that cannot)."""
    reason = hipcc_syntax_missing()
    if reason is not None:
        pytest.skip(reason)
    tree = tmp_path / case
    shutil.copytree(FIXTURES / case / "hip", tree)
    for unit in sorted(tree.glob("*.cu")):
        done = hipcc_syntax(unit, [tree])
        assert done.returncode == 0, done.stderr[-4000:]


@pytest.mark.hipcc
def test_hipblas_5x_branch_builds_against_the_v1_declarations(tmp_path: Path) -> None:
    """Debian's HIP 5.2 has no hipBLAS. The 5.x definition of hipconv_r_cublasCgemm (casts to hipblasComplex*,
    <hipblas.h>) is checked against ROCm 6.3's v1 declarations, which have 5.x's signatures, by forcing the
    header's guards to their last branch."""
    reason = hipcc_syntax_missing()
    if reason is not None:
        pytest.skip(reason)
    tree = tmp_path / "old"
    shutil.copytree(FIXTURES / "range_hipblas" / "hip", tree)
    header = tree / "hipconv_compat.h"
    text = header.read_text()
    assert "#define hipconv_r_cublasCgemm(handle, transa" in text
    forced = re.sub(r"#(if|elif) HIP_VERSION >= \d+", r"#\1 0", text)
    header.write_text(forced)
    done = hipcc_syntax(tree / "complex_gemm.cu", [tree, SHARED_ROCM / "include" / "hipblas"])
    assert done.returncode == 0, done.stderr[-4000:]
