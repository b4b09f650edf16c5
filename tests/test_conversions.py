"""Enumerator conversions (hipconv/data/hipblasDatatype_t.conversion, a rule's `converts:`): hipBLAS's v1
API (ROCm 5.2, 5.7) takes hipblasDatatype_t where cuBLAS's *Ex functions take cudaDataType and
cublasComputeType_t. The data against the inventories of every release, the shim of hipconv_compat.h run
on the host, the rewrites, and the 5.x output compiled against the v1 API of ROCm 6.3's hipblas.h.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
from conftest import FIXTURES, SHARED_INVENTORY

from helpers import SHARED, hipcc_syntax, hipcc_syntax_missing, ruleset
from hipconv.api import translate_source
from hipconv.resources import hip_releases
from hipconv.rules.conversions import conversion
from hipconv.settings import Version
from hipconv.translate.compat import compat_header

ROCM63 = SHARED / "rocm-6.3" / "include"
DATATYPE = "hipblasDatatype_t"
# the inventory folder of each bundled release
FOLDERS = {"6.3": "hip"} | {r: f"hip-{r}" for r in hip_releases() if r != "6.3"}
CUDA_FOLDERS = ("cuda-11.8", "cuda-12.9", "cuda")
needs_inventory = pytest.mark.skipif(
    not (SHARED_INVENTORY / "MANIFEST.json").is_file(),
    reason=f"{SHARED_INVENTORY} is not on this machine: the values cannot be checked",
)


@cache
def enumerators(folder: str, enum: str) -> dict[str, int]:
    """name -> value of the enumerators of `enum` in one inventory folder."""
    out = {}
    for path in (SHARED_INVENTORY / folder).glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["kind"] == "enumerator" and record.get("enum") == enum and record.get("value") is not None:
                out[record["name"]] = int(record["value"])
    return out


def cuda_value(name: str) -> set[int]:
    return {
        values[name]
        for folder in CUDA_FOLDERS
        for enum in ("cudaDataType_t", "cublasComputeType_t")
        if name in (values := enumerators(folder, enum))
    }


def v1_releases() -> list[str]:
    """The releases whose hipBLAS has hipblasDatatype_t as an enum of its own (5.2 ... 6.4; gone in 7.0)."""
    return [r for r in hip_releases() if enumerators(FOLDERS[r], DATATYPE)]


@needs_inventory
def test_every_cuda_value_is_the_inventorys() -> None:
    """Each CUDA enumerator has the value of every CUDA set that declares it, and the table lists them all."""
    table = conversion(DATATYPE).entries
    assert {name: {e.value} for name, e in table.items()} == {name: cuda_value(name) for name in table}
    every = {n for f in CUDA_FOLDERS for e in ("cudaDataType_t", "cublasComputeType_t") for n in enumerators(f, e)}
    assert set(table) == every


@needs_inventory
def test_every_counterpart_is_a_hipblas_datatype_of_each_v1_release() -> None:
    """The HIP names are hipblasDatatype_t enumerators, with one value, in every release from 5.2 to 6.4;
    every such enumerator but HIPBLAS_DATATYPE_INVALID is the counterpart of a cudaDataType value."""
    releases = v1_releases()
    assert releases[0] == "5.2" and "7.0" not in releases
    table = conversion(DATATYPE).entries.values()
    targets = {e.hip for e in table if e.hip}
    for rel in releases:
        values = enumerators(FOLDERS[rel], DATATYPE)
        assert targets <= set(values), rel
        assert {values[t] for t in targets} == {enumerators("hip-5.2", DATATYPE)[t] for t in targets}, rel
        reached = {e.hip for e in table if e.cuda.startswith("CUDA_") and e.hip}
        assert set(values) - reached <= {"HIPBLAS_DATATYPE_INVALID"}, rel


@needs_inventory
def test_a_translated_variable_keeps_the_cuda_value() -> None:
    """A cudaDataType variable becomes a hipDataType one; its values (HIP_R_16F ...) are CUDA's in every
    release that declares them, so the shim, which maps CUDA's values, gets what it expects."""
    for rel in hip_releases():
        hip = enumerators(FOLDERS[rel], "hipDataType")
        for name, value in hip.items():
            cuda = name.replace("HIP_", "CUDA_", 1)
            assert cuda_value(cuda) in (set(), {value}), (rel, name)


@pytest.mark.skipif(not (ROCM63 / "hipblas" / "hipblas.h").is_file(), reason=f"{ROCM63} is not on this machine")
@needs_inventory
def test_data_types_agree_with_hipblas_v2_table() -> None:
    """hipblas.h's `#ifdef HIPBLAS_V2` block names each hipblasDatatype_t value's hipDataType: the CUDA
    enumerator converted to it has that hipDataType's value."""
    text = (ROCM63 / "hipblas" / "hipblas.h").read_text(encoding="utf-8")
    defines = dict(re.findall(r"^#define\s+(HIPBLAS_[RC]_\w+)\s+(HIP_[RC]_\w+)\s*$", text, re.M))
    assert len(defines) == 16
    hip_values = enumerators("hip", "hipDataType")
    for entry in conversion(DATATYPE).entries.values():
        if entry.cuda.startswith("CUDA_") and entry.hip:
            assert hip_values[defines[entry.hip]] == entry.value, entry


@needs_inventory
def test_rules_convert_only_where_hipblas_has_v1_types() -> None:
    converting = [r for r in ruleset().rules if r.converts]
    assert {r.cuda for r in converting} >= {
        "cublasGemmEx",
        "cublasGemmBatchedEx",
        "cublasGemmStridedBatchedEx",
        "cublasDotEx",
        "cublasDotcEx",
        "cublasAxpyEx",
        "cublasScalEx",
        "cublasNrm2Ex",
        "cublasRotEx",
    }
    for rule in converting:
        covered = [r for r in hip_releases() if rule.rocm.covers(Version.parse(r))]
        assert set(covered) <= set(v1_releases()), rule.id
        assert set(rule.converts.values()) == {DATATYPE}


def _compiler() -> str | None:
    return shutil.which("g++")


@pytest.mark.skipif(
    _compiler() is None or not (ROCM63 / "hipblas" / "hipblas.h").is_file(),
    reason="needs g++ and ROCm 6.3's headers (../shared/rocm-6.3), whose hipblas.h keeps the v1 types",
)
@needs_inventory
def test_shim_maps_every_value(tmp_path: Path) -> None:
    """hipconv_hipblasDatatype_t, compiled from the generated hipconv_compat.h and run on the host: every
    CUDA value with a counterpart gives that hipblasDatatype_t value (as the 5.2 inventory has it), and
    every other value from 0 to 127 gives 255 (no type)."""
    (tmp_path / "hipconv_compat.h").write_bytes(compat_header({"hipconv_hipblasDatatype_t"}, Version.parse("5.2")))
    (tmp_path / "main.cpp").write_text(
        '#include "hipconv_compat.h"\n#include <cstdio>\n'
        'int main() { for (int v = 0; v < 128; ++v) std::printf("%d %d\\n", v, (int)hipconv_hipblasDatatype_t(v)); }\n'
    )
    exe = tmp_path / "main"
    flags = ["-std=c++17", "-D__HIP_PLATFORM_AMD__", f"-I{ROCM63}", f"-I{ROCM63 / 'hipblas'}"]
    built = subprocess.run(
        [str(_compiler()), *flags, str(tmp_path / "main.cpp"), "-o", str(exe)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    got = dict(tuple(map(int, line.split())) for line in subprocess.check_output([str(exe)], text=True).splitlines())
    v1 = enumerators("hip-5.2", DATATYPE)
    expected = {v: 255 for v in range(128)}
    for entry in conversion(DATATYPE).entries.values():
        if entry.hip:
            expected[entry.value] = v1[entry.hip]
    assert got == expected


GEMM = """\
#include <cublas_v2.h>
void f(cublasHandle_t h, const void *A, void *C, cudaDataType_t t) {
  float a = 1, b = 0;
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, 8, 8, 8, &a, A, CUDA_R_16F, 8, A, /* B */ CUDA_R_16BF, 8, &b, C,
               t, 8, COMPUTE, CUBLAS_GEMM_DEFAULT);
}
"""


@pytest.mark.parametrize(
    ("compute", "rocm", "written"),
    [
        pytest.param("CUBLAS_COMPUTE_32F", "5.2", "HIPBLAS_R_32F", id="compute-32f-5.2"),
        pytest.param("CUBLAS_COMPUTE_16F", "5.7", "HIPBLAS_R_16F", id="compute-16f-5.7"),
        pytest.param("CUBLAS_COMPUTE_32F_FAST_16BF", "5.2", "HIPBLAS_R_32F", id="fast-16bf-5.2"),
        pytest.param("CUDA_R_64F", "5.2", "HIPBLAS_R_64F", id="legacy-cudadatatype-compute-5.2"),
    ],
)
def test_enumerators_become_v1_values(compute: str, rocm: str, written: str) -> None:
    out = translate_source(GEMM.replace("COMPUTE", compute), rocm_version=rocm)
    assert (
        "hipblasGemmEx(h, HIPBLAS_OP_N, HIPBLAS_OP_T, 8, 8, 8, &a, A, HIPBLAS_R_16F, 8, A, /* B */ HIPBLAS_R_16B"
        in out.text
    )
    assert f"hipconv_hipblasDatatype_t(t), 8, {written}, HIPBLAS_GEMM_DEFAULT);" in out.text
    assert '#include "hipconv_compat.h"' in out.text
    assert [d.code for d in out.diagnostics] == ["HC011"]


@pytest.mark.parametrize(
    "compute",
    ["CUBLAS_COMPUTE_32F_FAST_TF32", "CUBLAS_COMPUTE_32F_PEDANTIC", "CUBLAS_COMPUTE_64F_PEDANTIC"],
)
def test_compute_types_without_a_v1_meaning_are_reported(compute: str) -> None:
    source = GEMM.replace("COMPUTE", compute)
    out = translate_source(source, rocm_version="5.2")
    assert "cublasGemmEx(h, CUBLAS_OP_N" in out.text  # the call kept whole
    (reported,) = [d for d in out.diagnostics if d.code == "HC018"]
    assert f"computeType {compute} has no hipblasDatatype_t of the same meaning" in reported.message


def test_a_variable_without_shims_is_reported() -> None:
    out = translate_source(GEMM.replace("COMPUTE", "CUBLAS_COMPUTE_32F"), rocm_version="5.2", compat=False)
    assert "cublasGemmEx(h, CUBLAS_OP_N" in out.text
    (reported,) = [d for d in out.diagnostics if d.code == "HC018"]
    assert "Ctype 't' needs hipconv_hipblasDatatype_t of hipconv_compat.h" in reported.message


@pytest.mark.parametrize("rocm", ["6.0", "6.3", "7.2"])
def test_v2_releases_convert_nothing(rocm: str) -> None:
    """From ROCm 6.0 the v2 functions take hipDataType and hipblasComputeType_t: names are renamed only."""
    out = translate_source(GEMM.replace("COMPUTE", "CUBLAS_COMPUTE_32F"), rocm_version=rocm)
    assert "HIP_R_16F, 8, A, /* B */ HIP_R_16BF, 8, &b, C,\n               t, 8, HIPBLAS_COMPUTE_32F," in out.text
    assert "hipconv_" not in out.text
    assert out.diagnostics == ()


V1_UNITS = [FIXTURES / "cublas_gemm_ex" / f"hip-{rel}" / "gemm_ex.cu" for rel in ("5.2", "5.7")] + [
    FIXTURES / "cublas_complex_ex" / "hip-5.2" / "complex_ex.cu"
]


@pytest.mark.hipcc
@pytest.mark.skipif(hipcc_syntax_missing() is not None, reason=hipcc_syntax_missing() or "")
@pytest.mark.parametrize("unit", V1_UNITS, ids=[f"{u.parents[1].name}/{u.parent.name}" for u in V1_UNITS])
def test_v1_output_compiles_against_hipblas_v1(unit: Path) -> None:
    """No hipBLAS headers of ROCm 5.x are here, but ROCm 6.3's hipblas.h keeps the v1 API (hipblasDatatype_t,
    hipblasGemmEx taking it, hipblasComplex) unless HIPBLAS_V2 is defined, with 5.x's prototypes (the
    5.2, 5.7 and 6.3 inventories agree): the 5.x goldens compile against it (`<hipblas.h>` of 5.2 found
    through -I .../include/hipblas)."""
    done = hipcc_syntax(unit, [ROCM63 / "hipblas"])
    assert done.returncode == 0, done.stderr[-4000:]
