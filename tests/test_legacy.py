"""Legacy library names known from the HIP side only (HC027, tools/derive/legacy.py), as
docs/cuda-releases.md shows them: the page's command, run on the program it describes."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from helpers import run_cli

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "cuda-releases.md"
LEGACY = (
    "#include <cusparse.h>\n"
    "int spmv(cusparseHandle_t h, cusparseMatDescr_t d, const float *v, const int *r, const int *c, float *x,\n"
    "         float *y) {\n"
    "  cusparseScsrmv(h, CUSPARSE_OPERATION_NON_TRANSPOSE, 4, 4, 8, x, d, v, r, c, x, x, y);\n"
    "  return 0;\n"
    "}\n"
)


def doc_blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_page_command_prints_the_page_diagnostic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "legacy.cu").write_text(LEGACY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    (command,) = doc_blocks("sh")
    argv = shlex.split(command)
    assert argv[0] == "hipconv"
    run = run_cli(*argv[1:])
    shown = " ".join(doc_blocks("")[0].split())
    assert shown in " ".join(run.stderr.split()), run.stderr
    assert "hipsparseScsrmv(h, HIPSPARSE_OPERATION_NON_TRANSPOSE" in run.stdout.decode()


@pytest.mark.parametrize("release", ["5.2", "7.2"])
def test_a_call_with_more_arguments_than_hip_takes_is_left(
    release: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = LEGACY.replace("x, y);", "x, y, 0);")
    (tmp_path / "legacy.cu").write_text(src, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = run_cli("translate", "--rocm-version", release, "legacy.cu")
    assert "HC007" in run.stderr and "HC027" not in run.stderr, run.stderr
    assert "cusparseScsrmv(h," in run.stdout.decode()


def test_hip_own_names_of_no_cuda_shape_stay_hc001(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # hipsolverSgetrf: hipSOLVER's regular API; the rest hipBLAS's, hipFFT's and hipRAND's own extensions,
    # which no CUDA release had (tools/derive/legacy.py searches cuSPARSE only); _64 names are never legacy
    names = (
        "cusolverSgetrf",
        "cusparseScsrmv_64",
        "cublasSaxpyBatched",
        "cublasStrmmOutofplace",
        "cublasHaxpy",
        "cufftExtPlanScaleFactor",
        "curandGenerateChar",
    )
    src = "void f(void *h) {\n" + "".join(f"  {name}(h);\n" for name in names) + "}\n"
    (tmp_path / "x.cu").write_text(src, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for release in ("5.7", "6.3"):
        run = run_cli("translate", "--rocm-version", release, "x.cu")
        for name in names:
            assert re.search(rf"HC001\]: {name} looks like CUDA API", run.stderr), run.stderr
        assert "HC027" not in run.stderr


@pytest.mark.parametrize("release", ["5.2", "6.3", "7.2"])
def test_the_old_execution_control_api_is_legacy(release: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # tools/curated.yaml runtime_legacy: in no CUDA inventory; HIP declares the twins in every release
    src = (
        "__global__ void k(int v) {}\n"
        "int f(int v) {\n"
        "  cudaConfigureCall(dim3(1), dim3(64));\n"
        "  cudaSetupArgument(&v, sizeof(v), 0);\n"
        "  return cudaLaunch((const void *)k) != cudaSuccess;\n"
        "}\n"
    )
    (tmp_path / "x.cu").write_text(src, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = run_cli("translate", "--rocm-version", release, "x.cu")
    out = run.stdout.decode()
    assert "hipConfigureCall(dim3(1), dim3(64));" in out
    assert "hipSetupArgument(&v, sizeof(v), 0);" in out
    assert "hipLaunchByPtr((const void *)k)" in out
    found = re.findall(r"\[(HC\d+) cudart\.(\w+)\]: .* rewritten to (\w+)", run.stderr)
    assert found == [
        ("HC027", "cudaConfigureCall", "hipConfigureCall"),
        ("HC027", "cudaSetupArgument", "hipSetupArgument"),
        ("HC027", "cudaLaunch", "hipLaunchByPtr"),
    ], run.stderr
    assert "HC001" not in run.stderr


def test_a_launch_call_with_more_arguments_than_hip_takes_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = "int f(const void *k, void *s) { return cudaLaunch(k, s) != cudaSuccess; }\n"
    (tmp_path / "x.cu").write_text(src, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = run_cli("translate", "--rocm-version", "6.3", "x.cu")
    assert "HC007" in run.stderr and "HC027" not in run.stderr, run.stderr
    assert "cudaLaunch(k, s)" in run.stdout.decode()
