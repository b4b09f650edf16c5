"""CUDA 13's location forms of cudaMemAdvise and cudaMemPrefetchAsync (issue #38): a `cudaMemLocation` where CUDA 12
took a device ordinal (CUDA 12's cuda_runtime.h has them as C++ templates too). HIP's hipMemAdvise and
hipMemPrefetchAsync take a device id, hipCpuDeviceId for the host, in every release (ROCm 7.1 adds *_v2 forms
with a hipMemLocation). The calls are renamed as before, and hipconv_compat.h overloads the HIP names for a
hipMemLocation (the overload-shim mechanism, HC033; hipconv/data/cuda.overloads from tools/derive/overloads.py):
the facts per release, the translation, and the conversion the definitions do, run with g++ against a
stand-in of the few HIP declarations they use (HIP-CPU has no hipMemAdvise or hipMemPrefetchAsync), checked
against CUDA's documented meaning written here. Tests that need ../shared skip with the reason printed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hipconv.api import translate_source
from hipconv.settings import Version
from hipconv.translate.compat import compat_header
from hipconv.translate.matchers.overload_shims import overloads

INVENTORY = Path(__file__).resolve().parents[2] / "shared" / "api-inventory"
SETS = {
    "5.2": "hip-5.2", "5.7": "hip-5.7", "6.0": "hip-6.0", "6.1": "hip-6.1", "6.2": "hip-6.2", "6.3": "hip",
    "6.4": "hip-6.4", "7.0": "hip-7.0", "7.1": "hip-7.1", "7.2": "hip-7.2",
}  # fmt: skip
ADVISE, PREFETCH = "hipconv_mem_advise_location", "hipconv_mem_prefetch_location"


def need_inventory() -> None:
    if not (INVENTORY / "MANIFEST.json").is_file():
        reason = f"no API inventory at {INVENTORY} (../shared is on the project's machines and in CI only)"
        print(f"test_cuda13_signatures: skipped: {reason}")
        pytest.skip(reason)


def functions(folder: str, name: str) -> list[list[str]]:
    """The parameter types of each function record of `name` in a HIP set."""
    out = []
    for line in (INVENTORY / folder / "hip_runtime.jsonl").read_text(encoding="utf-8").splitlines():
        if f'"name":"{name}"' in line and (r := json.loads(line))["kind"] == "function":
            out.append([p["type"] for p in r.get("params", [])])
    return out


# --- the facts ------------------------------------------------------------------------------------------
def test_facts_name_the_hip_function_and_the_location_parameter() -> None:
    found = {o.shim: (o.cuda, o.hip, o.at) for o in overloads()}
    assert found[ADVISE] == ("cudaMemAdvise", "hipMemAdvise", 3)
    assert found[PREFETCH] == ("cudaMemPrefetchAsync", "hipMemPrefetchAsync", 2)


@pytest.mark.parametrize("release", list(SETS))
def test_every_release_takes_a_device_id_only(release: str) -> None:
    """Each ROCm release declares hipMemAdvise and hipMemPrefetchAsync with an int device and no hipMemLocation
    overload, so each lacks the location form and gets the shim; 7.1 on declare the *_v2 functions with it."""
    need_inventory()
    lacking = {o.shim: o.lacking for o in overloads()}
    for name, shim, at in (("hipMemAdvise", ADVISE, 3), ("hipMemPrefetchAsync", PREFETCH, 2)):
        declared = functions(SETS[release], name)
        assert declared and all(params[at] == "int" for params in declared), (release, name, declared)
        assert release in lacking[shim]
        v2 = functions(SETS[release], f"{name}_v2")
        assert bool(v2) == (Version.parse(release) >= Version.parse("7.1")), (release, name)
        assert all(params[at] == "hipMemLocation" for params in v2)


# --- the translation ------------------------------------------------------------------------------------
LOCATION_FORMS = """#include <cuda_runtime.h>
void place(float *p, size_t n, int dev, cudaStream_t s) {
  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = dev;
  cudaMemAdvise(p, n, cudaMemAdviseSetPreferredLocation, loc);
  cudaMemPrefetchAsync(p, n, loc, 0, s);
}
"""
DEVICE_IDS = """#include <cuda_runtime.h>
void place(float *p, size_t n, int dev, cudaStream_t s) {
  cudaMemAdvise(p, n, cudaMemAdviseSetAccessedBy, dev);
  cudaMemPrefetchAsync(p, n, dev, s);
  cudaMemPrefetchAsync(p, n, dev);
}
"""


@pytest.mark.parametrize("rocm", ["5.2", "6.3", "7.0"])  # 7.1 on: the _v2 functions (test_runtime_overloads.py)
def test_location_forms_keep_hip_names_and_get_the_overloads(rocm: str) -> None:
    done = translate_source(LOCATION_FORMS, rocm_version=rocm)
    assert "hipMemAdvise(p, n, hipMemAdviseSetPreferredLocation, loc);" in done.text
    assert "hipMemPrefetchAsync(p, n, loc, 0, s);" in done.text
    assert '#include "hipconv_compat.h"' in done.text
    header = (done.compat_header or b"").decode()
    assert "hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice," in header
    assert "hipError_t hipMemPrefetchAsync(const void* dev_ptr, size_t count, hipMemLocation location," in header
    notes = [d for d in done.diagnostics if d.code == "HC033"]
    assert [(d.line, d.symbol) for d in notes] == [(6, "cudaMemAdvise"), (7, "cudaMemPrefetchAsync")]
    assert all("cannot be seen" not in d.message for d in notes)  # `loc` is declared a cudaMemLocation above


def test_device_id_forms_noop() -> None:
    """The CUDA 12 forms (an int device, three or four arguments) are HIP's: renamed, no shim, no note."""
    done = translate_source(DEVICE_IDS, rocm_version="6.3")
    assert "hipMemAdvise(p, n, hipMemAdviseSetAccessedBy, dev);" in done.text
    assert "hipMemPrefetchAsync(p, n, dev, s);\n  hipMemPrefetchAsync(p, n, dev);" in done.text
    assert "hipconv_compat.h" not in done.text and not done.compat_header
    assert not [d for d in done.diagnostics if d.code in ("HC033", "HC007")]


def test_no_compat_leaves_the_location_form_to_the_compiler() -> None:
    done = translate_source(LOCATION_FORMS, rocm_version="6.3", compat=False)
    assert "hipconv_compat.h" not in done.text
    assert not [d for d in done.diagnostics if d.code == "HC033"]


# --- the definitions, run -------------------------------------------------------------------------------
# a stand-in of the HIP declarations the definitions use (HIP's values: hip_runtime_api.h), recording what the
# device-id functions receive
STAND_IN = """#pragma once
#include <cstddef>
typedef enum hipError_t { hipSuccess = 0, hipErrorInvalidValue = 1 } hipError_t;
typedef enum hipMemoryAdvise { hipMemAdviseSetReadMostly = 1, hipMemAdviseUnsetReadMostly = 2,
  hipMemAdviseSetPreferredLocation = 3, hipMemAdviseUnsetPreferredLocation = 4, hipMemAdviseSetAccessedBy = 5,
  hipMemAdviseUnsetAccessedBy = 6 } hipMemoryAdvise;
typedef enum hipMemLocationType { hipMemLocationTypeInvalid = 0, hipMemLocationTypeDevice = 1 } hipMemLocationType;
typedef struct hipMemLocation { hipMemLocationType type; int id; } hipMemLocation;
typedef struct ihipStream_t *hipStream_t;
#define hipCpuDeviceId ((int)-1)
static int g_device = -100;
static hipStream_t g_stream = nullptr;
static hipError_t hipMemAdvise(const void *, size_t, hipMemoryAdvise, int device) {
  g_device = device; return hipSuccess;
}
static hipError_t hipMemPrefetchAsync(const void *, size_t, int device, hipStream_t stream = 0) {
  g_device = device; g_stream = stream; return hipSuccess;
}
"""
DRIVER = """#include <cstdio>
#include "hipconv_compat.h"
static hipMemLocation at(int type, int id) { hipMemLocation l; l.type = (hipMemLocationType)type; l.id = id; return l; }
int main() {
  static float data[64];
  hipStream_t s = reinterpret_cast<hipStream_t>(&data[1]);
  const int types[] = {0, 1, 2, 3};  // CUDA's invalid, device, host, host NUMA node
  for (int type : types) for (int advice = 1; advice <= 6; ++advice) {
    g_device = -100;
    int rc = hipMemAdvise(data, sizeof data, (hipMemoryAdvise)advice, at(type, 3));
    printf("advise %d %d %d %d\\n", type, advice, rc, g_device);
  }
  for (int type : types) for (unsigned flags = 0; flags < 2; ++flags) {
    g_device = -100; g_stream = nullptr;
    int rc = hipMemPrefetchAsync(data, sizeof data, at(type, 2), flags, s);
    printf("prefetch %d %u %d %d %d\\n", type, flags, rc, g_device, g_stream == s);
  }
  return 0;
}
"""


def expected_lines() -> list[str]:
    """CUDA's meaning: a device location passes its id, the host hipCpuDeviceId (-1); cudaMemAdvise ignores the
    location for set/unset read-mostly and unset preferred location; anything else is an invalid value (1),
    and so are prefetch flags other than 0 (reserved)."""
    out = []
    for type_ in range(4):
        for advice in range(1, 7):
            device = {1: 3, 2: -1}.get(type_, 0 if advice in (1, 2, 4) else None)
            out.append(f"advise {type_} {advice} {0 if device is not None else 1} {-100 if device is None else device}")
    for type_ in range(4):
        for flags in range(2):
            device = {1: 2, 2: -1}.get(type_) if flags == 0 else None
            rc, called = (0, 1) if device is not None else (1, 0)
            out.append(f"prefetch {type_} {flags} {rc} {-100 if device is None else device} {called}")
    return out


def test_the_definitions_convert_as_cuda_means(tmp_path: Path) -> None:
    cxx = shutil.which("g++")
    if cxx is None:
        print("test_cuda13_signatures: skipped: no g++ on PATH")
        pytest.skip("no g++ on PATH")
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / "hip_runtime.h").write_text(STAND_IN, encoding="utf-8")
    (tmp_path / "hipconv_compat.h").write_bytes(compat_header([ADVISE, PREFETCH], Version.parse("6.3")))
    (tmp_path / "main.cpp").write_text(DRIVER, encoding="utf-8")
    exe = tmp_path / "main"
    subprocess.run(
        [cxx, "-std=c++17", "-Wall", "-Werror", "-I", str(tmp_path), str(tmp_path / "main.cpp"), "-o", str(exe)],
        check=True,
        timeout=120,
    )
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=30).stdout.splitlines()
    assert got == expected_lines()
