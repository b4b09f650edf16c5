"""FP8 (cuda_fp8.h -> hip/hip_fp8.h, rules/fp8.yaml from tools/derive/fp8.py): the OCP names per ROCm release,
never the FNUZ ones; and that the HIP type a rule writes reads every bit pattern as CUDA's format does."""

from __future__ import annotations

import functools
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from hipconv.diagnostics import NOT_IN_TARGET, UNSUPPORTED
from hipconv.rules import load_ruleset
from hipconv.rules.model import LookupTable, Rule
from hipconv.settings import Settings, Version
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import translate_one

ROCM63 = Path(__file__).resolve().parents[2] / "shared" / "rocm-6.3"
CLANG = "clang++-19"


@functools.cache
def _table(rocm: str) -> tuple[LookupTable, Settings]:
    settings = Settings(Version.parse(rocm))
    return load_ruleset().table(settings), settings


def translate(src: str, rocm: str) -> tuple[str, list[str]]:
    table, settings = _table(rocm)
    source = SourceFile.from_bytes("q.cuh", src.encode())  # a header: no runtime include
    result = translate_one(source, table, settings)
    text = result.output.decode() if result.output is not None else src
    return text, [f"{d.code} {d.rule_id} {d.message}" for d in result.diagnostics]


def fp8_rules() -> list[Rule]:
    return [r for r in load_ruleset().rules if r.library == "fp8"]


def test_no_rule_writes_an_fnuz_name() -> None:
    """The FNUZ formats read the same bits as other values: no CUDA name may become one."""
    rules = fp8_rules()
    assert rules
    assert not [r.cuda for r in rules if r.hip and "fnuz" in r.hip.lower()]


@pytest.mark.parametrize(
    ("src", "rocm", "expected"),
    [
        pytest.param(
            "__nv_fp8_e4m3 q = __nv_fp8_e4m3(x);",
            "6.3",
            "__hip_fp8_e4m3 q = __hip_fp8_e4m3(x);",
            id="e4m3-type",
        ),
        pytest.param(
            "s = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);",
            "6.3",
            "s = __hip_cvt_float_to_fp8(x, __HIP_SATFINITE, __HIP_E5M2);",
            id="conversion",
        ),
        pytest.param(
            "__nv_fp8x4_storage_t four; __nv_saturation_t sat = __NV_NOSAT;",
            "6.2",
            "__hip_fp8x4_storage_t four; __hip_saturation_t sat = __HIP_NOSAT;",
            id="formatless-at-6.2",
        ),
        pytest.param(
            "#ifdef __CUDA_FP8_TYPES_EXIST__\n#endif\n", "6.3", "#ifdef HIP_FP8_TYPE_OCP\n#endif\n", id="marker"
        ),
    ],
)
def test_fp8_names_map_to_ocp(src: str, rocm: str, expected: str) -> None:
    text, diagnostics = translate(src, rocm)
    assert text == expected
    assert diagnostics == []


@pytest.mark.parametrize(
    ("src", "rocm", "why"),
    [
        pytest.param("__nv_fp8_e4m3 q;", "6.2", "ROCm 6.2 has only the FNUZ formats", id="e4m3-at-6.2"),
        pytest.param("f = __NV_E4M3;", "6.2", "ROCm 6.2 has only the FNUZ formats", id="interpretation-at-6.2"),
        pytest.param(
            "s = __nv_cvt_float_to_fp8(x, s, f);",
            "6.2",
            "__hip_cvt_float_to_fp8 there is for those only",
            id="conversion-at-6.2",
        ),
        pytest.param("__nv_fp8_storage_t b;", "5.2", "ROCm 5.2-6.1 has no hip_fp8.h", id="storage-at-5.2"),
    ],
)
def test_fp8_names_before_the_ocp_release_are_reported(src: str, rocm: str, why: str) -> None:
    text, diagnostics = translate(src, rocm)
    assert text == src
    assert len(diagnostics) == 1
    assert diagnostics[0].startswith(NOT_IN_TARGET)
    assert why in diagnostics[0]


def test_e8m0_has_no_counterpart() -> None:
    text, diagnostics = translate("__nv_fp8_e8m0 scale;", "6.3")
    assert text == "__nv_fp8_e8m0 scale;"
    assert [d.split()[0] for d in diagnostics] == [UNSUPPORTED]
    assert "E4M3 and E5M2 formats only" in diagnostics[0]


def test_fp8_noop() -> None:
    """HIP code already written for hip_fp8.h, FNUZ types included, stays as it is."""
    src = "__hip_fp8_e4m3 a; __hip_fp8_e4m3_fnuz b; __hip_fp8_storage_t s = __HIP_E4M3_FNUZ;"
    assert translate(src, "6.3") == (src, [])


def ocp_value(bits: int, exponent_bits: int) -> float:
    """The value of an OCP FP8 bit pattern (OCP 8-bit floating point specification, v1.0): E4M3 has bias 7,
    no infinities and one NaN mantissa (S.1111.111); E5M2 is IEEE-like with bias 15."""
    mantissa_bits = 7 - exponent_bits
    bias = (1 << (exponent_bits - 1)) - 1
    sign = -1.0 if bits & 0x80 else 1.0
    e = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1)
    m = bits & ((1 << mantissa_bits) - 1)
    top = (1 << exponent_bits) - 1
    if exponent_bits == 4 and e == top and m == (1 << mantissa_bits) - 1:
        return math.nan
    if exponent_bits == 5 and e == top:
        return sign * math.inf if m == 0 else math.nan
    if e == 0:
        return sign * m / (1 << mantissa_bits) * 2.0 ** (1 - bias)
    return sign * (1 + m / (1 << mantissa_bits)) * 2.0 ** (e - bias)


def _decode_program(types: list[str]) -> str:
    lines = ["#include <hip/hip_runtime.h>", "#include <hip/hip_fp8.h>", "#include <cstdio>", "int main() {"]
    for t in types:
        lines.append(f'  for (int i = 0; i < 256; ++i) {{ {t} v; v.__x = i; std::printf("%a\\n", float(v)); }}')
    return "\n".join([*lines, "  return 0;", "}", ""])


@pytest.mark.skipif(
    not (ROCM63 / "include" / "hip" / "hip_fp8.h").is_file() or shutil.which(CLANG) is None,
    reason=f"needs {ROCM63}/include (../shared, on the project's machines and in CI) and {CLANG}",
)
def test_the_hip_types_read_bits_as_cudas_ocp_formats(tmp_path: Path) -> None:
    """Host code built against ROCm 6.3's hip_fp8.h decodes all 256 patterns of the types the rules write at
    6.3 exactly as the OCP formats (CUDA's) do; the FNUZ type of the same width does not."""
    table, _ = _table("6.3")
    e4m3 = table.identifiers["__nv_fp8_e4m3"].rule
    e5m2 = table.identifiers["__nv_fp8_e5m2"].rule
    assert e4m3 is not None and e5m2 is not None
    types = [str(e4m3.hip), str(e5m2.hip), f"{e4m3.hip}_fnuz"]
    source = tmp_path / "decode.hip"
    source.write_text(_decode_program(types), encoding="utf-8")
    exe = tmp_path / "decode"
    cmd = [CLANG, "-x", "hip", "--cuda-host-only", "-nogpulib", "--offload-arch=gfx90a", f"--rocm-path={ROCM63}"]
    cmd += ["-isystem", str(ROCM63 / "include"), "-std=c++17", "-O1", "-w", str(source), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert build.returncode == 0, build.stderr
    values = [
        float.fromhex(v) for v in subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split()
    ]
    assert len(values) == 3 * 256

    def same(a: float, b: float) -> bool:
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))

    e4m3_values, e5m2_values = values[:256], values[256:512]
    wrong = [i for i in range(256) if not same(e4m3_values[i], ocp_value(i, 4))]
    assert not wrong, f"{types[0]}: patterns {wrong[:8]} differ from OCP E4M3"
    infinities = [i for i in range(256) if math.isinf(ocp_value(i, 5))]
    wrong = [i for i in range(256) if i not in infinities and not same(e5m2_values[i], ocp_value(i, 5))]
    assert not wrong, f"{types[1]}: patterns {wrong[:8]} differ from OCP E5M2"
    # 6.3 reads E5M2's infinities as the largest finite value: the rule's note says so, while it holds
    largest = max(v for v in (ocp_value(i, 5) for i in range(256)) if math.isfinite(v))
    if any(not same(e5m2_values[i], ocp_value(i, 5)) for i in infinities):
        assert [abs(e5m2_values[i]) for i in infinities] == [largest, largest]
        assert e5m2.note is not None and f"{largest:g}" in e5m2.note
    fnuz = values[2 * 256 :]
    assert sum(not same(fnuz[i], ocp_value(i, 4)) for i in range(256)) > 200
