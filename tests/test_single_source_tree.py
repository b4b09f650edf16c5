"""translate --single-source and build --single-source over a tree of several files (issue #41 on real code).

The portability header serves every file of a tree, so a CUDA name whose HIP name depends on how it is used
(cudaEventCreate: one argument hipEventCreate, two arguments hipEventCreateWithFlags) is #defined once, as
its `uncalled` form, and any other use is a guarded edit in its file (hipconv.single_source.shared_names);
a conditional directive the translation inserts is written for both compilers; and build --single-source reads
each Makefile's HIP side. The golden tree tests/fixtures/single_clash is built
with nvcc, Debian's hipcc and ROCm 6.3's hipcc-syntax by tests/test_single_source.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import COMPILE_TIMEOUT_S, HIPCC_SYNTAX, hipcc_syntax_missing, ruleset, run_cli
from hipconv.settings import Settings, Version
from hipconv.single_source.fold import HIP_TEST, digest, fold, unwrap
from hipconv.single_source.shared_names import header_renames

CLASH = Path(__file__).parent / "fixtures" / "single_clash"
NVCC = Path(os.environ.get("CUDA_PATH", "/usr/local/cuda")) / "bin" / "nvcc"
TABLE = ruleset().table(Settings(Version.parse("6.3")))


@pytest.mark.parametrize(
    ("cuda", "hip", "shared"),
    [
        ("cudaEventCreate", "hipEventCreate", True),  # what `&cudaEventCreate` becomes: a macro serves it
        ("cudaEventCreate", "hipEventCreateWithFlags", False),  # only a two-argument call becomes this
        ("cudaMalloc", "hipMalloc", True),  # one HIP name whatever the use
        ("my_own_function", "my_hip_function", True),  # not an API: nothing to say
    ],
)
def test_header_renames(cuda: str, hip: str, shared: bool) -> None:
    assert header_renames(TABLE)(cuda, hip) is shared


def test_fold_guards_only_the_use_the_header_cannot_hold() -> None:
    """Both calls in one file: the one-argument call stays a rename, the two-argument call is a guarded edit."""
    cuda = "cudaEventCreate(&a);\ncudaEventCreate(&b, cudaEventDisableTiming);\n"
    hip = "hipEventCreate(&a);\nhipEventCreateWithFlags(&b, hipEventDisableTiming);\n"
    folded = fold(cuda, hip, header_include="hipconv_portability.h", shared=header_renames(TABLE))
    mark = digest(["cudaEventCreate(&b, cudaEventDisableTiming);\n"])
    assert folded.text == (
        "cudaEventCreate(&a);\n"
        f"#if {HIP_TEST} // hipconv single-source {mark}\n"
        "hipEventCreateWithFlags(&b, hipEventDisableTiming);\n"
        "#else // hipconv single-source\n"
        "cudaEventCreate(&b, cudaEventDisableTiming);\n"
        f"#endif // hipconv single-source {mark}\n"
    )
    assert folded.renames == {
        ("cudaEventCreate", "hipEventCreate"),
        ("cudaEventDisableTiming", "hipEventDisableTiming"),
    }


def test_fold_without_a_header_test_is_unchanged_noop() -> None:
    """fold's default (`shared` not given) keeps every consistent rename, as before."""
    cuda, hip = "cudaEventCreate(&b, 0);\n", "hipEventCreateWithFlags(&b, 0);\n"
    folded = fold(cuda, hip, header_include="hipconv_portability.h")
    assert folded.text == cuda
    assert folded.renames == {("cudaEventCreate", "hipEventCreateWithFlags")}


def _defines(header: Path) -> list[str]:
    return [line for line in header.read_text().splitlines() if line.startswith("#define cudaEventCreate ")]


def test_a_name_renamed_two_ways_across_files_is_defined_once(tmp_path: Path) -> None:
    """timing.cu calls cudaEventCreate with one argument, overlap.cu with two: one #define, and each file's
    single-source form is what it is when translated alone (so scan and a per-file pre-commit agree)."""
    out = tmp_path / "out"
    result = run_cli("translate", CLASH / "cuda", "-o", out, "--single-source", "--rocm-version", "6.3")
    assert result.code == 0, result.stderr
    assert _defines(out / "hipconv_portability.h") == ["#define cudaEventCreate hipEventCreate"]
    overlap = (out / "overlap.cu").read_text()
    assert "    CHECK(hipEventCreateWithFlags(&done, hipEventDisableTiming));\n#else" in overlap
    for name in ("timing.cu", "overlap.cu"):
        alone = tmp_path / name
        shutil.copytree(CLASH / "cuda", alone / "src", ignore=lambda d, names: [n for n in names if n == "main.cu"])
        (alone / "src" / ("overlap.cu" if name == "timing.cu" else "timing.cu")).unlink()
        result = run_cli("translate", alone / "src", "-o", alone / "out", "--single-source", "--rocm-version", "6.3")
        assert result.code == 0, result.stderr
        assert (alone / "out" / name).read_bytes() == (out / name).read_bytes()


def test_one_argument_calls_only_need_no_guarded_edit_noop(tmp_path: Path) -> None:
    """A tree that calls cudaEventCreate with one argument only: a rename, as before the split."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(CLASH / "cuda" / "timing.cu", src)
    shutil.copy(CLASH / "cuda" / "check.cuh", src)
    result = run_cli("translate", src, "-o", tmp_path / "out", "--single-source", "--rocm-version", "6.3")
    assert result.code == 0, result.stderr
    text = (tmp_path / "out" / "timing.cu").read_text()
    assert "hipEventCreate" not in text and text.count(f"#if {HIP_TEST}") == 1  # the include's guard only
    assert _defines(tmp_path / "out" / "hipconv_portability.h") == ["#define cudaEventCreate hipEventCreate"]


MAKEFILE = """\
GPU_ARCHS = -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90

clash: main.cu timing.cu overlap.cu check.cuh
\tnvcc -std=c++17 -DSCALE_CHECKED $(GPU_ARCHS) -o $@ main.cu timing.cu overlap.cu
"""


def test_build_single_source_reads_the_makefiles_hip_side(tmp_path: Path) -> None:
    """build --single-source compiles each TU with the flags of the Makefile's HIP side (GPU_BACKEND=HIP), not
    its CUDA side: nvcc's -gencode reached hipcc before (nvidia-blog: 2 TUs failed on it)."""
    missing = hipcc_syntax_missing()
    if missing:
        pytest.skip(missing)
    src = tmp_path / "src"
    shutil.copytree(CLASH / "cuda", src)
    (src / "Makefile").write_text(MAKEFILE)
    report = tmp_path / "report.json"
    result = run_cli(
        "build", src, "-o", tmp_path / "out", "--single-source", "--check-only", "--rocm-version", "6.3",
        "--hipcc", HIPCC_SYNTAX, "-j", "1", "--report", report,
    )  # fmt: skip
    units = json.loads(report.read_text())["units"]
    assert [(u["file"], u["status"]) for u in units] == [
        (name, "compiled") for name in ("main.cu", "overlap.cu", "timing.cu")
    ], result.stderr
    for unit in units:
        assert "-DSCALE_CHECKED" in unit["command"] and "--offload-arch=gfx90a" in unit["command"]
        assert not any(word.startswith("-gencode") for word in unit["command"])
    assert result.code == 0, result.stderr


ERRNAMES_H = """\
// Names of runtime and driver errors, for log messages.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

static const char *error_name(cudaError_t error)
{
    return cudaGetErrorName(error);
}

static const char *error_name(CUresult error)
{
    const char *name = "unknown";
    cuGetErrorName(error, &name);
    return name;
}
"""

REPORT_CU = """\
#include <cstdio>
#include "errnames.h"

void report(cudaError_t error) { std::printf("runtime: %s\\n", error_name(error)); }
"""


def test_an_inserted_conditional_is_written_on_both_sides(tmp_path: Path) -> None:
    """Both overloads of error_name become error_name(hipError_t), and the translation encloses the second in
    `#if 0` ... `#endif`: a guarded edit cannot hold one end of it (rodinia's helper_cuda.h: 5 TUs failed as
    HIP on an unterminated #if). Both lines are written for both compilers (nvcc reads `1`), marked, and a
    rerun reads them away."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "errnames.h").write_text(ERRNAMES_H)
    (src / "report.cu").write_text(REPORT_CU)
    result = run_cli("translate", src, "-o", out, "--single-source", "--rocm-version", "6.3")
    assert result.code == 0, result.stderr
    text = (out / "errnames.h").read_text()
    opening = f"#if ({HIP_TEST}) ? (0) : 1 // hipconv single-source inserted: as translated, a redefinition of "
    assert text.count(opening) == 1
    assert text.count("#endif // hipconv single-source inserted\n") == 1
    assert unwrap(text) == ERRNAMES_H
    again = tmp_path / "again"
    result = run_cli("translate", out, "-o", again, "--single-source", "--rocm-version", "6.3")
    assert result.code == 0, result.stderr
    assert (again / "errnames.h").read_bytes() == (out / "errnames.h").read_bytes()
    missing = hipcc_syntax_missing()
    if missing:
        pytest.skip(missing)
    built = subprocess.run(
        [HIPCC_SYNTAX, "report.cu"], cwd=out, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S
    )
    assert built.returncode == 0, built.stderr
    if not NVCC.exists():
        pytest.skip(f"{NVCC} not found: no CUDA toolkit on this machine")
    built = subprocess.run(
        [NVCC, "-x", "cu", "--cuda", "-o", os.devnull, "report.cu"],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT_S,
    )
    assert built.returncode == 0, built.stderr
