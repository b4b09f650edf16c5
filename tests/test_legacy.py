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
    # hipsolverSgetrf is hipSOLVER's regular API, outside cuSOLVER's sub-APIs; cudaConfigureCall is runtime
    src = "void f(void *h) { cusolverSgetrf(h); cudaConfigureCall(h); cusparseScsrmv_64(h); }\n"
    (tmp_path / "x.cu").write_text(src, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = run_cli("translate", "--rocm-version", "6.3", "x.cu")
    for name in ("cusolverSgetrf", "cudaConfigureCall", "cusparseScsrmv_64"):
        assert re.search(rf"HC001\]: {name} looks like CUDA API", run.stderr), run.stderr
    assert "HC027" not in run.stderr


def test_a_deprecated_legacy_twin_is_reported_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # hipblasStrmmOutofplace: ROCm 5.7 only, deprecated there; one HC027 says both, no HC004 beside it
    src = "#include <cublas_v2.h>\nvoid f(cublasHandle_t h) { cublasStrmmOutofplace(h); }\n"
    (tmp_path / "x.cu").write_text(src, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = run_cli("translate", "--rocm-version", "5.7", "x.cu")
    found = re.findall(r"\[(HC\d+) [^\]]*cublasStrmmOutofplace\]: (.*)", run.stderr)
    assert [code for code, _ in found] == ["HC027"], run.stderr
    assert "deprecated from 5.7" in found[0][1]
    assert "hipblasStrmmOutofplace(h)" in run.stdout.decode()
