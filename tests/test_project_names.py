"""Names the project declares in one file (a helper macro in a header) are the project's own in every file
of the same run: no HC001 where they are used. A real unknown CUDA-looking name still gets it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hipconv
from hipconv.api import translate_tree
from tests.helpers import run_cli

COMMON_H = """\
#pragma once
#include <cstdio>
#include <cuda_runtime.h>

#define CUDA_BLOCK_SIZE 256
#define cudaCheckError(msg) {                                          \\
    cudaError_t err = cudaGetLastError();                              \\
    if (err != cudaSuccess) { fprintf(stderr, "%s\\n", msg); exit(1); } \\
}

static inline void cudaSafeCall(cudaError_t status) {
    if (status != cudaSuccess) exit(1);
}

struct cudaTimings { float upload, kernel; };
"""

DWT_CU = """\
#include "common.h"

__global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

void run(float *x, int n, cudaTimings *t) {
    scale<<<(n + CUDA_BLOCK_SIZE - 1) / CUDA_BLOCK_SIZE, CUDA_BLOCK_SIZE>>>(x, n);
    cudaCheckError("scale");
    cudaSafeCall(cudaDeviceSynchronize());
    t->kernel = 0.0f;
}
"""

MAIN_CU = """\
#include "common.h"

void run(float *x, int n, cudaTimings *t);

int main() {
    float *x;
    cudaTimings t;
    cudaSafeCall(cudaMalloc(&x, 1024 * sizeof(float)));
    run(x, 1024, &t);
    cudaCheckError("run");
    cudaFooBar(x);
    cudaSafeCall(cudaFree(x));
    return 0;
}
"""

UNKNOWN = "cudaFooBar looks like CUDA API but is in no CUDA 11.8–13.0 inventory; left unchanged"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name, text in {"common.h": COMMON_H, "dwt.cu": DWT_CU, "main.cu": MAIN_CU}.items():
        (src / name).write_text(text)
    return src


def _hc001(stderr: str) -> list[str]:
    return sorted(line.rsplit("/", 1)[-1] for line in stderr.splitlines() if "[HC001]" in line)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_translate_reports_only_the_name_no_file_of_the_project_declares(project: Path, jobs: str) -> None:
    out = project.parent / "out"
    result = run_cli("translate", project, "-o", out, "--jobs", jobs, "--strict")
    assert result.code == 1  # --strict: cudaFooBar is left unported
    assert _hc001(result.stderr) == [f"main.cu:11:5: warning[HC001]: {UNKNOWN}"]
    main = (out / "main.cu").read_text()
    assert "cudaSafeCall(hipMalloc(&x, 1024 * sizeof(float)));\n" in main
    assert 'cudaCheckError("run");\n    cudaFooBar(x);\n' in main  # the project's names and the unknown one kept
    assert "cudaError_t err = hipGetLastError();" not in (out / "common.h").read_text()  # hipError_t: renamed
    assert "hipError_t err = hipGetLastError();" in (out / "common.h").read_text()


def test_translate_without_the_unknown_name_passes_strict(project: Path) -> None:
    (project / "main.cu").write_text(MAIN_CU.replace("    cudaFooBar(x);\n", ""))
    result = run_cli("translate", project, "-o", project.parent / "out", "--strict")
    assert (result.code, _hc001(result.stderr)) == (0, [])


def test_annotate_marks_only_the_name_no_file_of_the_project_declares(project: Path) -> None:
    out = project.parent / "out"
    assert run_cli("translate", project, "-o", out, "--annotate").code == 0
    marked = [
        (path.name, line.strip())
        for path in sorted(out.iterdir())
        for line in path.read_text().splitlines()
        if "// hipconv:" in line
    ]
    assert marked == [("main.cu", f"// hipconv: HC001 {UNKNOWN}")]


def _scan_hc001(*paths: Path) -> tuple[int, list[tuple[str, int, str]]]:
    result = run_cli("scan", "--format", "json", *paths)
    findings = json.loads(result.stdout)["findings"]
    hc001 = [(Path(f["path"]).name, f["line"], f["symbol"]) for f in findings if f["code"] == "HC001"]
    return result.code, hc001


def test_scan_reports_only_the_name_no_file_of_the_project_declares(project: Path) -> None:
    assert _scan_hc001(project) == (1, [("main.cu", 11, "cudaFooBar")])


def test_scan_knows_the_names_declared_by_the_files_it_is_given(project: Path) -> None:
    """Files named one by one (pre-commit): the project is the files of the run and what they include."""
    assert _scan_hc001(project / "dwt.cu", project / "common.h") == (0, [])
    assert _scan_hc001(project / "dwt.cu") == (0, [])  # common.h not in the run, but dwt.cu includes it
    (project / "dwt.cu").write_text(DWT_CU.replace('#include "common.h"\n', ""))
    code, alone = _scan_hc001(project / "dwt.cu")  # nothing declares them for dwt.cu now, alone or in the tree
    assert code == 1
    assert alone == [
        ("dwt.cu", 7, "cudaTimings"),
        ("dwt.cu", 8, "CUDA_BLOCK_SIZE"),
        ("dwt.cu", 8, "CUDA_BLOCK_SIZE"),
        ("dwt.cu", 8, "CUDA_BLOCK_SIZE"),
        ("dwt.cu", 9, "cudaCheckError"),
        ("dwt.cu", 10, "cudaSafeCall"),
    ]
    assert [f for f in _scan_hc001(project)[1] if f[0] == "dwt.cu"] == alone


def test_translate_tree_reports_only_the_name_no_file_of_the_project_declares(project: Path) -> None:
    done = translate_tree(project, project.parent / "out")
    assert [(Path(d.path).name, d.line, d.symbol, d.message) for d in done.diagnostics if d.code == "HC001"] == [
        ("main.cu", 11, "cudaFooBar", UNKNOWN)
    ]


def test_translate_source_knows_only_its_own_declarations() -> None:
    """One text in memory: no project around it, as before."""
    result = hipconv.translate_source(DWT_CU.replace("cudaTimings *t", "float *t"), path="dwt.cu")
    assert [d.symbol for d in result.diagnostics if d.code == "HC001"] == [
        "CUDA_BLOCK_SIZE",
        "CUDA_BLOCK_SIZE",
        "CUDA_BLOCK_SIZE",
        "cudaCheckError",
        "cudaSafeCall",
    ]


NOT_DECLARATIONS = """\
#pragma once
#include <nvtx3/nvToolsExt.h>
// call cudaFooBar() before the first launch
#define POP_RANGE nvtxRangePop();
static inline int reset(int x) {
    return cudaFooBar(x);
}
#ifdef USE_PROFILER
#endif
cudaResetHelper(1);
"""

USES = """\
#include "prof.h"
void f() {
    nvtxRangePop();
    cudaFooBar(1);
    cudaResetHelper(2);
}
"""


def test_uses_mentions_and_macro_bodies_declare_nothing(tmp_path: Path) -> None:
    """A call after `return`, a name in a comment, the body of `#define POP_RANGE nvtxRangePop();` and a
    call after a directive line declare no name: reported in the other file too."""
    (tmp_path / "prof.h").write_text(NOT_DECLARATIONS)
    (tmp_path / "use.cpp").write_text(USES)
    code, found = _scan_hc001(tmp_path)
    assert code == 1
    assert [(name, symbol) for name, _, symbol in found if name == "use.cpp"] == [
        ("use.cpp", "nvtxRangePop"),
        ("use.cpp", "cudaFooBar"),
        ("use.cpp", "cudaResetHelper"),
    ]
    assert [symbol for name, _, symbol in found if name == "prof.h"] == [
        "nvtxRangePop",
        "cudaFooBar",
        "cudaResetHelper",
    ]
