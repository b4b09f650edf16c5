"""Issue #38's long tail, part B: facts the rules and the build-file rewriter rest on, checked against the
inventories (the fixtures interop_map_flags, headers_*, nvtx_ranges and build_thrust_define show what a user
gets)."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import SHARED_INVENTORY

from helpers import ruleset
from hipconv.buildfiles.defines import BACKEND_VALUES, hip_definitions
from hipconv.settings import Version
from hipconv.translate.compat import compat_header

NO_INVENTORY = f"{SHARED_INVENTORY} is not on this machine: the values cannot be compared"
# the ROCm inventories with the runtime's enumerators (6.4-7.2 are host C APIs read from .pxd files: values too)
ROCM = ("hip-5.2", "hip-5.7", "hip-6.0", "hip-6.1", "hip-6.2", "hip", "hip-6.4", "hip-7.0", "hip-7.1", "hip-7.2")


@functools.cache
def values(folder: str, library: str) -> dict[str, int]:
    out: dict[str, int] = {}
    with (SHARED_INVENTORY / folder / f"{library}.jsonl").open() as f:
        for line in f:
            record = json.loads(line)
            if record["kind"] == "enumerator" and isinstance(record.get("value"), int):
                out[record["name"]] = record["value"]
    return out


def translation(cuda: str) -> str | None:
    """The HIP name the newest rule of `cuda` writes."""
    rules = [r for r in ruleset().rules if r.cuda == cuda]
    assert rules, f"no rule for {cuda}"
    return rules[-1].hip


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason=NO_INVENTORY)
@pytest.mark.parametrize(
    ("cuda", "library"),
    [
        ("cudaGraphicsMapFlagsNone", "cuda_runtime"),
        ("cudaGraphicsMapFlagsReadOnly", "cuda_runtime"),
        ("cudaGraphicsMapFlagsWriteDiscard", "cuda_runtime"),
        ("CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE", "cuda_driver"),
        ("CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY", "cuda_driver"),
        ("CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD", "cuda_driver"),
    ],
)
def test_map_flags_become_the_register_flag_of_their_value(cuda: str, library: str) -> None:
    """HIP has no map flags: each becomes the register flag with CUDA's value, in every ROCm release."""
    hip = translation(cuda)
    assert hip is not None and hip.startswith("hipGraphicsRegisterFlags")
    value = values("cuda", library)[cuda]
    per_release = {rel: values(rel, "hip_runtime").get(hip) for rel in ROCM}
    assert set(per_release.values()) == {value}, per_release


def test_map_flags_without_a_hip_call_stay_reported() -> None:
    """cudaGraphicsResourceSetMapFlags has no HIP counterpart: its flag is translated, the call reported."""
    assert translation("cudaGraphicsResourceSetMapFlags") is None


def test_thrust_backend_is_the_rules() -> None:
    """The build files' Thrust backend is the one the thrust rule writes in sources."""
    for (_, cuda), hip in BACKEND_VALUES.items():
        assert translation(cuda) == hip


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA",
            "THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP",
            id="definition",
        ),
        pytest.param(
            "-O2 -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA -g",
            "-O2 -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP -g",
            id="flag",
        ),
        pytest.param(
            "A=1;THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA",
            "A=1;THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP",
            id="cmake-list",
        ),
    ],
)
def test_hip_definitions(text: str, expected: str) -> None:
    assert hip_definitions(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP", id="another-backend"),
        pytest.param("MY_THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA", id="another-macro"),
        pytest.param("THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA_X", id="another-value"),
        pytest.param("THRUST_HOST_SYSTEM=THRUST_HOST_SYSTEM_CPP", id="host-system"),
    ],
)
def test_hip_definitions_noop(text: str) -> None:
    assert hip_definitions(text) == text


ROCM63 = SHARED_INVENTORY.parent / "rocm-6.3"
CLANG = "clang++-19"
CUB_DEBUG_MAIN = """#define HIPCUB_STDERR
#include <hipcub/hipcub.hpp>
#include "hipconv_compat.h"
#include <cstdio>

static hipError_t step(int k) { return k < 2 ? hipSuccess : hipErrorInvalidValue; }

int main() {
  for (int k = 0; k < 4; ++k) {
    hipconv_CubDebugExit(step(k));
    std::printf("step %d done\\n", k);
  }
  return 0;
}
"""


@pytest.mark.hipcc
@pytest.mark.skipif(
    not (ROCM63 / "include" / "hipcub" / "hipcub.hpp").is_file() or shutil.which(CLANG) is None,
    reason=f"needs {ROCM63} (../shared) and {CLANG} (apt-get install -y clang-19)",
)
def test_cub_debug_exit_shim_exits_on_the_first_error(tmp_path: Path) -> None:
    """CUB's CubDebugExit: hipcub::Debug prints the error (HIPCUB_STDERR), the process exits with status 1 there."""
    (tmp_path / "hipconv_compat.h").write_bytes(compat_header(["hipconv_CubDebugExit"], Version.parse("6.3")))
    source, exe = tmp_path / "main.hip", tmp_path / "main"
    source.write_text(CUB_DEBUG_MAIN)
    build = subprocess.run(
        [CLANG, "-x", "hip", "--offload-host-only", "-nogpulib", f"--rocm-path={ROCM63}", "-isystem",
         str(ROCM63 / "include"), "-std=c++17", str(source), "-o", str(exe)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=False)
    assert (run.returncode, run.stdout) == (1, "step 0 done\nstep 1 done\n")
    assert "HIP error 1 [" in run.stderr and f"{source}" in run.stderr
