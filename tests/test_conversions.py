"""Enumerator conversions (hipconv/data/TYPE.conversion, a rule's `converts:`): hipBLAS's v1 API (ROCm 5.2,
5.7) takes hipblasDatatype_t where cuBLAS's *Ex functions take cudaDataType and cublasComputeType_t; from
ROCm 6.0 hipBLAS's GemmEx functions take a hipblasComputeType_t where code written for CUDA 10 passes a
cudaDataType as the compute type (C++ overloads of cuBLAS take it). The data against the inventories of
every release, the shims of hipconv_compat.h run on the host, the rewrites, and the output compiled
against ROCm 6.3's hipblas.h: its v1 API for 5.x, its v2 API for 6.3 and, with HIPBLAS_V2, for 7.2.
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
from hipconv.diagnostics import CODES, Severity
from hipconv.resources import hip_releases
from hipconv.rules.conversions import conversion
from hipconv.rules.model import Rule, RuleKind
from hipconv.settings import Version
from hipconv.translate.compat import compat_header

ROCM63 = SHARED / "rocm-6.3" / "include"
DATATYPE = "hipblasDatatype_t"
COMPUTE = "hipblasComputeType_t"
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


def cuda_value(name: str, enums: tuple[str, ...] = ("cudaDataType_t", "cublasComputeType_t")) -> set[int]:
    return {values[name] for folder in CUDA_FOLDERS for enum in enums if name in (values := enumerators(folder, enum))}


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


def v2_releases() -> list[str]:
    """The releases whose hipBLAS has hipblasComputeType_t (6.0 on)."""
    return [r for r in hip_releases() if enumerators(FOLDERS[r], COMPUTE)]


@needs_inventory
def test_rules_convert_only_where_hipblas_has_v1_types() -> None:
    converting = [r for r in ruleset().rules if DATATYPE in r.converts.values()]
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


# the fixtures of the Ex calls with 5.x goldens: GEMMs, and the level-1 calls (dot, dotc, axpy, nrm2, scal, rot)
EX_UNITS = [("cublas_gemm_ex", "gemm_ex.cu"), ("cublas_level1_ex", "level1_ex.cu")]
V1_UNITS = [FIXTURES / case / f"hip-{rel}" / unit for case, unit in EX_UNITS for rel in ("5.2", "5.7")] + [
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


# -- from ROCm 6.0: a data type as the compute type (code written for CUDA 10) -> hipblasComputeType_t


def data_type_compute_overloads() -> set[str]:
    """The cuBLAS functions a CUDA set declares twice, with computeType a cublasComputeType_t and a
    cudaDataType: C++ overloads for code written for CUDA 10."""
    found = set()
    for folder in CUDA_FOLDERS:
        forms: dict[str, set[str]] = {}
        for line in (SHARED_INVENTORY / folder / "cublas.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for param in record.get("params", []) if record["kind"] == "function" else []:
                if param["name"] == "computeType":
                    forms.setdefault(record["name"], set()).add(param["type"])
        found |= {name for name, types in forms.items() if {"cublasComputeType_t", "cudaDataType"} <= types}
    return found


def rule_releases(rule: Rule) -> set[str]:
    return {r for r in hip_releases() if rule.rocm.available(Version.parse(r)) and rule.rocm.covers(Version.parse(r))}


@needs_inventory
def test_overloads_with_a_data_type_compute_type_convert_it_from_6_0() -> None:
    """Each function cuBLAS overloads with a cudaDataType compute type converts computeType, and only it, to
    hipblasComputeType_t in every release whose hipBLAS has that type; no other rule converts to it."""
    overloaded = data_type_compute_overloads()
    assert "cublasGemmEx" in overloaded
    converting = [r for r in ruleset().rules if COMPUTE in r.converts.values()]
    assert {r.cuda for r in converting} == overloaded
    assert all(r.converts == {"computeType": COMPUTE} for r in converting)
    for cuda in overloaded:
        covered = set().union(*(rule_releases(r) for r in converting if r.cuda == cuda))
        assert covered == set(v2_releases()), cuda


@needs_inventory
def test_compute_type_table_against_the_inventories() -> None:
    """Each cudaDataType enumerator of any CUDA set, with its value; each counterpart what the cuBLAS compute
    type of the same precision becomes (CUDA_C_64F -> CUBLAS_COMPUTE_64F's HIP name), a hipblasComputeType_t
    with one value in every release from 6.0."""
    table = conversion(COMPUTE).entries
    assert {name: {e.value} for name, e in table.items()} == {n: cuda_value(n, ("cudaDataType_t",)) for n in table}
    assert set(table) == {n for f in CUDA_FOLDERS for n in enumerators(f, "cudaDataType_t")}
    renames = {r.cuda: r.hip for r in ruleset().rules if r.kind is RuleKind.ENUMERATOR}
    mapped = [e for e in table.values() if e.hip]
    assert {e.cuda for e in mapped} >= {"CUDA_R_32F", "CUDA_R_64F", "CUDA_R_16F", "CUDA_R_32I"}
    for entry in mapped:
        precision = entry.cuda.split("_", 2)[2]  # CUDA_C_64F -> 64F
        assert entry.hip == renames[f"CUBLAS_COMPUTE_{precision}"], entry
        assert len({enumerators(FOLDERS[rel], COMPUTE)[str(entry.hip)] for rel in v2_releases()}) == 1, entry
    assert all(e.why for e in table.values() if not e.hip)


@pytest.mark.skipif(
    _compiler() is None or not (ROCM63 / "hipblas" / "hipblas.h").is_file(),
    reason="needs g++ and ROCm 6.3's headers (../shared/rocm-6.3)",
)
@needs_inventory
def test_compute_type_shim_maps_every_value(tmp_path: Path) -> None:
    """hipconv_hipblasComputeType_t, compiled from the generated hipconv_compat.h and run on the host: each
    data type (0 to 63) with a counterpart gives it (as ROCm 6.3 numbers it), any other 15, a value no
    release's hipblasComputeType_t has; each compute type passes unchanged."""
    compute = enumerators("hip", COMPUTE)
    (tmp_path / "hipconv_compat.h").write_bytes(compat_header({"hipconv_hipblasComputeType_t"}, Version.parse("6.3")))
    (tmp_path / "main.cpp").write_text(
        '#include "hipconv_compat.h"\n#include <cstdio>\nint main() {\n'
        "  for (int v = 0; v < 64; ++v)\n"
        '    std::printf("d %d %d\\n", v, (int)hipconv_hipblasComputeType_t(static_cast<hipDataType>(v)));\n'
        + "".join(
            f'  std::printf("c {v} %d\\n", (int)hipconv_hipblasComputeType_t(static_cast<{COMPUTE}>({v})));\n'
            for v in sorted(compute.values())
        )
        + "}\n"
    )
    exe = tmp_path / "main"
    flags = ["-std=c++17", "-D__HIP_PLATFORM_AMD__", f"-I{ROCM63}"]
    built = subprocess.run(
        [str(_compiler()), *flags, str(tmp_path / "main.cpp"), "-o", str(exe)], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr[-3000:]
    got = {
        tuple(line.split()[:2]): int(line.split()[2])
        for line in subprocess.check_output([str(exe)], text=True).splitlines()
    }
    expected = {("d", str(v)): 15 for v in range(64)} | {("c", str(v)): v for v in compute.values()}
    for entry in conversion(COMPUTE).entries.values():
        if entry.hip:
            expected["d", str(entry.value)] = compute[entry.hip]
    assert got == expected
    assert all(15 not in enumerators(FOLDERS[rel], COMPUTE).values() for rel in v2_releases())


@pytest.mark.parametrize("rocm", ["6.0", "6.3", "7.2"])
@pytest.mark.parametrize(
    ("compute", "written"),
    [
        pytest.param("CUDA_R_32F", "HIPBLAS_COMPUTE_32F", id="r32f"),
        pytest.param("CUDA_C_64F", "HIPBLAS_COMPUTE_64F", id="c64f"),
        pytest.param("CUDA_R_16F", "HIPBLAS_COMPUTE_16F", id="r16f"),
        pytest.param("CUDA_R_32I", "HIPBLAS_COMPUTE_32I", id="r32i"),
    ],
)
def test_a_data_type_compute_type_becomes_cublas_migrated_one(compute: str, written: str, rocm: str) -> None:
    out = translate_source(GEMM.replace("COMPUTE", compute), rocm_version=rocm)
    assert f"C,\n               t, 8, {written}, HIPBLAS_GEMM_DEFAULT);" in out.text
    assert "hipconv_" not in out.text
    assert out.diagnostics == ()


DECLARED = """\
#include <cublas_v2.h>
void f(cublasHandle_t h, const void *A, void *C, DECLARATION, bool fast) {
  float a = 1, b = 0;
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &a, A, CUDA_R_16F, 8, A, CUDA_R_16F, 8, &b, C, CUDA_R_32F, 8,
               COMPUTE, CUBLAS_GEMM_DEFAULT);
}
"""


@pytest.mark.parametrize("rocm", ["6.3", "7.2"])
@pytest.mark.parametrize(
    ("declaration", "compute", "written"),
    [
        pytest.param("cudaDataType t", "t", "hipconv_hipblasComputeType_t(t)", id="data-type-variable"),
        pytest.param("const cudaDataType_t t", "t", "hipconv_hipblasComputeType_t(t)", id="data-type-t-variable"),
        pytest.param("cublasComputeType_t ct", "ct", "ct", id="compute-type-variable"),
        pytest.param("int unused", "CUBLAS_COMPUTE_64F", "HIPBLAS_COMPUTE_64F", id="compute-type-enumerator"),
        pytest.param(
            "int unused",
            "fast ? CUBLAS_COMPUTE_32F_FAST_16F : CUBLAS_COMPUTE_32F",
            "hipconv_hipblasComputeType_t(fast ? HIPBLAS_COMPUTE_32F_FAST_16F : HIPBLAS_COMPUTE_32F)",
            id="expression-of-unseen-type",
        ),
    ],
)
def test_compute_type_arguments_by_their_type(declaration: str, compute: str, written: str, rocm: str) -> None:
    """A cudaDataType variable goes through the shim; a cublasComputeType_t one, or an enumerator of it, passes
    as it is; an expression whose type hipconv does not see goes through the shim, whose overload for
    hipblasComputeType_t returns it unchanged."""
    out = translate_source(DECLARED.replace("DECLARATION", declaration).replace("COMPUTE", compute), rocm_version=rocm)
    assert f"C, HIP_R_32F, 8,\n               {written}, HIPBLAS_GEMM_DEFAULT);" in out.text
    shimmed = written.startswith("hipconv_")
    assert ('#include "hipconv_compat.h"' in out.text) == shimmed
    assert [d.code for d in out.diagnostics] == ["HC011"] * shimmed


@pytest.mark.parametrize("rocm", ["6.0", "7.2"])
def test_a_data_type_cublas_refuses_as_compute_type_is_reported(rocm: str) -> None:
    """cuBLAS's overload returns CUBLAS_STATUS_NOT_SUPPORTED for a data type with no compute type (CUDA_R_8I):
    no hipblasComputeType_t means it, and the call is left as it is."""
    out = translate_source(GEMM.replace("COMPUTE", "CUDA_R_8I"), rocm_version=rocm)
    assert "cublasGemmEx(h, CUBLAS_OP_N" in out.text
    (reported,) = [d for d in out.diagnostics if d.code == "HC018"]
    assert "computeType CUDA_R_8I has no hipblasComputeType_t of the same meaning" in reported.message
    assert "CUBLAS_STATUS_NOT_SUPPORTED" in reported.message


def test_a_data_type_variable_as_compute_type_without_shims_is_reported() -> None:
    source = DECLARED.replace("DECLARATION", "cudaDataType t").replace("COMPUTE", "t")
    out = translate_source(source, rocm_version="6.3", compat=False)
    assert "cublasGemmEx(h, CUBLAS_OP_N" in out.text
    (reported,) = [d for d in out.diagnostics if d.code == "HC018"]
    assert "computeType 't' needs hipconv_hipblasComputeType_t of hipconv_compat.h" in reported.message


# -- TF32 from ROCm 6.0: translated, with a warning


@pytest.mark.parametrize("rocm", ["6.0", "7.2"])
def test_tf32_compute_type_translates_with_a_warning(rocm: str) -> None:
    out = translate_source(GEMM.replace("COMPUTE", "CUBLAS_COMPUTE_32F_FAST_TF32"), rocm_version=rocm)
    assert "t, 8, HIPBLAS_COMPUTE_32F_FAST_TF32, HIPBLAS_GEMM_DEFAULT);" in out.text
    (warned,) = out.diagnostics
    assert (warned.code, CODES[warned.code].severity) == ("HC004", Severity.WARNING)
    assert "cuBLAS backend only" in warned.message
    assert "pass CUBLAS_COMPUTE_32F" in warned.message


@pytest.mark.skipif(not (ROCM63 / "hipblas" / "hipblas.h").is_file(), reason=f"{ROCM63} is not on this machine")
def test_tf32_warning_rests_on_the_headers() -> None:
    """hipblas-common.h says TF32 compute is supported with the cuBLAS backend only, and hipblas.h's table of
    the GemmEx types the rocBLAS backend supports has HIPBLAS_COMPUTE_32F for float data, not FAST_TF32: what
    the warning says and the fix it gives."""
    common = (ROCM63 / "hipblas-common" / "hipblas-common.h").read_text(encoding="utf-8")
    tf32 = re.search(r"HIPBLAS_COMPUTE_32F_FAST_TF32\s*=\s*\d+,\s*/\*\*<([^*]*)\*/", common)
    assert tf32 is not None and "Only supported with cuBLAS backend" in tf32[1]
    text = (ROCM63 / "hipblas" / "hipblas.h").read_text(encoding="utf-8")
    table = text[text.index("For rocBLAS backend, conversion from hipblasComputeType_t") :][:2000]
    rows = re.findall(
        r"^\s*\|\s*(HIP_\w+)\s*\|\s*(HIP_\w+)\s*\|\s*(HIP_\w+)\s*\|\s*(HIPBLAS_COMPUTE_\w+)\s*\|", table, re.M
    )
    assert ("HIP_R_32F", "HIP_R_32F", "HIP_R_32F", "HIPBLAS_COMPUTE_32F") in rows
    assert all("TF32" not in row[3] for row in rows)
    (rule,) = [r for r in ruleset().rules if r.cuda == "CUBLAS_COMPUTE_32F_FAST_TF32"]
    assert rule.rewrite_code == "HC004"


# -- the output against ROCm 6.3's v2 API (7.x's plain names: 6.3's hipblas.h with HIPBLAS_V2)

V2_UNITS = [
    *(
        (u, ())
        for case in ("cublas_gemm_ex", "cublas_complex_ex", "cublas_level1_ex")
        for u in sorted((FIXTURES / case / "hip-6.3").glob("*.cu"))
    ),
    *(
        (u, ("-DHIPBLAS_V2",))
        for case in ("cublas_gemm_ex", "cublas_complex_ex", "cublas_level1_ex")
        for u in sorted((FIXTURES / case / "hip-7.2").glob("*.cu"))
    ),
]


@pytest.mark.hipcc
@pytest.mark.skipif(hipcc_syntax_missing() is not None, reason=hipcc_syntax_missing() or "")
@pytest.mark.parametrize(
    ("unit", "flags"), V2_UNITS, ids=[f"{u.parents[1].name}/{u.parent.name}/{u.name}" for u, _ in V2_UNITS]
)
def test_v2_output_compiles_against_hipblas_v2(unit: Path, flags: tuple[str, ...]) -> None:
    """The 6.3 goldens of the Ex fixtures compile against ROCm 6.3's hipblas.h without an error (the
    TF32 GEMMs included: they are warned about, not broken); the 7.2 goldens with -DHIPBLAS_V2, under which
    6.3's hipblas.h gives the plain names (hipblasGemmEx) the _v2 prototypes that 7.x declares under them
    (tests/test_call_types.py compares the inventories)."""
    done = hipcc_syntax(unit, flags=flags)
    assert done.returncode == 0, done.stderr[-4000:]
