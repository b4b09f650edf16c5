"""Issue #38's last runtime and driver forms: CUDA 13's cuCtxCreate(pctx, CUctxCreateParams *, flags, dev), runtime
calls made by a project's token-pasting macro (`#define cuda(fn) cuda##fn`), and CUDA 13's location forms of
cudaMemPrefetchAsync/cudaMemAdvise where ROCm 7.1+ has them (hipMemPrefetchAsync_v2, hipMemAdvise_v2).

The translations are checked as text, each report and each form left alone included; the shims of
hipconv_compat.h run with g++ against a stand-in of the few HIP declarations they use (HIP-CPU has no
hipCtxCreate), checked against CUDA's documented meaning written here. The fixtures ctx13_create, paste_* and
prefetch_* compile them with hipcc (tests/test_fixtures.py, tests/test_rocm63_syntax.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hipconv.api import translate_source
from hipconv.rules.template_codes import _problems
from hipconv.settings import Version
from hipconv.translate.compat import compat_header

# --- cuCtxCreate: CUDA 13's form ------------------------------------------------------------------------
CTX = """#include <cuda.h>
CUresult make(CUcontext *ctx, CUdevice dev) {{
  return cuCtxCreate(ctx, {params}, CU_CTX_SCHED_AUTO, dev);
}}
"""


@pytest.mark.parametrize(
    "params",
    [
        "NULL",
        "nullptr",
        "0",
        "(CUctxCreateParams *)0",
        "(CUctxCreateParams*)NULL",
        "static_cast<CUctxCreateParams *>(nullptr)",
        "( nullptr )",
    ],
)
@pytest.mark.parametrize("rocm", ["5.2", "6.3", "7.2"])
def test_null_params_is_hip_ctx_create(params: str, rocm: str) -> None:
    done = translate_source(CTX.format(params=params), rocm_version=rocm)
    assert "  return hipCtxCreate(ctx, hipDeviceScheduleAuto, dev);\n" in done.text
    assert "hipconv_compat.h" not in done.text and not done.compat_header
    assert "CUctxCreateParams" not in done.text
    codes = [(d.code, d.rule_id) for d in done.diagnostics]
    assert codes == [("HC004", "cuda_driver.cuCtxCreate.4-args")]  # hipCtxCreate is deprecated in every release
    assert "deprecated" in done.diagnostics[0].message


@pytest.mark.parametrize("params", ["params", "cfg.params", "pick(dev)", "(CUctxCreateParams *)p"])
def test_params_known_at_run_time_go_through_the_shim(params: str) -> None:
    done = translate_source(CTX.format(params=params), rocm_version="6.3")
    assert (
        f"return hipconv_ctx_create_params(ctx, {params.replace('CUctxCreateParams', 'hipconv_CUctxCreateParams')}, "
        in done.text
    )
    assert '#include "hipconv_compat.h"' in done.text
    header = (done.compat_header or b"").decode()
    assert "static inline hipError_t hipconv_ctx_create_params(hipCtx_t* pctx, const void* ctx_create_params," in header


def test_params_variable_gets_the_compat_type() -> None:
    src = CTX.format(params="params").replace("CUdevice dev)", "CUdevice dev, CUctxCreateParams *params)")
    done = translate_source(src, rocm_version="6.3")
    assert "CUdevice dev" not in done.text and "hipconv_CUctxCreateParams *params)" in done.text
    header = (done.compat_header or b"").decode()
    assert "typedef struct hipconv_CUctxCreateParams_st hipconv_CUctxCreateParams;" in header
    assert [d.code for d in done.diagnostics if d.code == "HC011"] == ["HC011"]


def test_no_compat_leaves_a_run_time_params_call() -> None:
    done = translate_source(CTX.format(params="params"), rocm_version="6.3", compat=False)
    assert "return cuCtxCreate(ctx, params, CU_CTX_SCHED_AUTO, dev);" in done.text  # kept whole
    found = [d for d in done.diagnostics if d.code == "HC007"]
    assert len(found) == 1 and "--no-compat" in found[0].message
    # a null pointer needs no shim
    done = translate_source(CTX.format(params="nullptr"), rocm_version="6.3", compat=False)
    assert "return hipCtxCreate(ctx, hipDeviceScheduleAuto, dev);" in done.text


def test_cuda12_form_noop_and_other_counts() -> None:
    src = (
        "#include <cuda.h>\nvoid f(CUcontext *c, CUdevice d) {\n  cuCtxCreate(c, 0, d);\n"
        "  cuCtxCreate(c, 0, 0, 0, d);\n}\n"
    )
    done = translate_source(src, rocm_version="6.3")
    assert "  hipCtxCreate(c, 0, d);\n" in done.text
    assert "  cuCtxCreate(c, 0, 0, 0, d);\n" in done.text  # five arguments: no form takes them
    assert [(d.code, d.line) for d in done.diagnostics] == [("HC004", 3), ("HC007", 4)]
    assert "its HIP rewrites take 3 or 4" in done.diagnostics[1].message


def test_template_shim_names_are_checked_when_rules_load() -> None:
    assert _problems("t.j2", '{{ shim("hipconv_ctx_create_params") }}') == ()
    (problem,) = _problems("t.j2", '{{ shim("hipconv_no_such_shim") }}')
    assert "no templates/compat/hipconv_no_such_shim.h.j2" in problem
    (problem,) = _problems("t.j2", "{{ shim(name) }}")
    assert "literal shim name" in problem


# --- the shims, run ---------------------------------------------------------------------------------------
CTX_STAND_IN = """#pragma once
typedef enum hipError_t { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorNotSupported = 801 } hipError_t;
typedef struct ihipCtx_t *hipCtx_t;
typedef int hipDevice_t;
static int g_calls = 0;
static unsigned g_flags = 0;
static hipDevice_t g_dev = -1;
static hipError_t hipCtxCreate(hipCtx_t *ctx, unsigned int flags, hipDevice_t device) {
  ++g_calls; g_flags = flags; g_dev = device; *ctx = reinterpret_cast<hipCtx_t>(&g_calls); return hipSuccess;
}
"""
CTX_DRIVER = """#include <cstdio>
#include "hipconv_compat.h"
int main() {
  hipCtx_t ctx = nullptr;
  hipconv_CUctxCreateParams *none = nullptr;
  int rc = hipconv_ctx_create_params(&ctx, none, 4u, 2);
  printf("null %d %d %u %d %d\\n", rc, g_calls, g_flags, g_dev, ctx != nullptr);
  ctx = nullptr;
  static char storage[16];
  hipconv_CUctxCreateParams *some = reinterpret_cast<hipconv_CUctxCreateParams *>(storage);
  rc = hipconv_ctx_create_params(&ctx, some, 1u, 3);
  printf("params %d %d %d\\n", rc, g_calls, ctx != nullptr);
  return 0;
}
"""


def _run(tmp_path: Path, stand_in: str, shims: list[str], driver: str, rocm: str) -> list[str]:
    cxx = shutil.which("g++")
    if cxx is None:
        print("test_runtime_overloads: skipped: no g++ on PATH")
        pytest.skip("no g++ on PATH")
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / "hip_runtime.h").write_text(stand_in, encoding="utf-8")
    (tmp_path / "hipconv_compat.h").write_bytes(compat_header(shims, Version.parse(rocm)))
    (tmp_path / "main.cpp").write_text(driver, encoding="utf-8")
    exe = tmp_path / "main"
    cmd = [cxx, "-std=c++17", "-Wall", "-Werror", "-I", str(tmp_path), str(tmp_path / "main.cpp"), "-o", str(exe)]
    subprocess.run(cmd, check=True, timeout=120)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=30).stdout.splitlines()


def test_ctx_create_shim_as_cuda_means(tmp_path: Path) -> None:
    """CUDA: a null ctxCreateParams creates the context cuCtxCreate_v2 creates (flags and device passed on);
    HIP has no create parameters, so any other pointer is hipErrorNotSupported and creates nothing."""
    got = _run(tmp_path, CTX_STAND_IN, ["hipconv_ctx_create_params", "hipconv_CUctxCreateParams"], CTX_DRIVER, "6.3")
    assert got == ["null 0 1 4 2 1", "params 801 1 0"]


# --- CUDA 13's location forms where ROCm 7.1+ has them ----------------------------------------------------
LOCATIONS = """#include <cuda_runtime.h>
cudaMemLocation where(int dev);
void place(float *p, size_t n, int dev, cudaStream_t s) {
  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = dev;
  cudaMemAdvise(p, n, cudaMemAdviseSetPreferredLocation, loc);
  cudaMemPrefetchAsync(p, n, loc, 0, s);
  cudaMemPrefetchAsync(p, n, (cudaMemLocation)loc, 0u, s);
  cudaMemPrefetchAsync(p, n, loc, 0);
  cudaMemPrefetchAsync(p, n, where(dev), 0, s);
  cudaMemPrefetchAsync(p, n, dev, s);
}
"""


def test_direct_facts_follow_the_inventories() -> None:
    from hipconv.translate.matchers.overload_shims import overloads

    found = {o.cuda: (o.direct, o.direct_in) for o in overloads() if o.direct}
    assert found == {
        "cudaMemAdvise": ("hipMemAdvise_v2", ("7.1", "7.2")),
        "cudaMemPrefetchAsync": ("hipMemPrefetchAsync_v2", ("7.1", "7.2")),
    }


@pytest.mark.parametrize("rocm", ["7.1", "7.2"])
def test_visible_locations_become_the_v2_functions(rocm: str) -> None:
    done = translate_source(LOCATIONS, rocm_version=rocm)
    lines = done.text.splitlines()[-7:-1]
    assert lines == [
        "  hipMemAdvise_v2(p, n, hipMemAdviseSetPreferredLocation, loc);",
        "  hipMemPrefetchAsync_v2(p, n, loc, 0, s);",
        "  hipMemPrefetchAsync_v2(p, n, (hipMemLocation)loc, 0u, s);",
        "  hipMemPrefetchAsync(p, n, loc, 0);",  # the stream left out: the overload, whose stream defaults
        "  hipMemPrefetchAsync(p, n, where(dev), 0, s);",  # the type cannot be seen here: the overload
        "  hipMemPrefetchAsync(p, n, dev, s);",  # CUDA 12's device ordinal: HIP's own
    ]
    notes = sorted(d.line for d in done.diagnostics if d.code == "HC033")
    assert notes == [10, 11]  # the _v2 calls need no overload; `dev` is visibly an int
    assert [d for d in done.diagnostics if d.code not in ("HC033",)] == []


@pytest.mark.parametrize("rocm", ["5.2", "6.3", "7.0"])
def test_older_targets_keep_the_conversion(rocm: str) -> None:
    done = translate_source(LOCATIONS, rocm_version=rocm)
    assert "_v2" not in done.text
    assert "  hipMemPrefetchAsync(p, n, loc, 0, s);" in done.text
    assert sorted(d.line for d in done.diagnostics if d.code == "HC033") == [7, 8, 9, 10, 11]


def test_v2_rename_is_idempotent() -> None:
    once = translate_source(LOCATIONS, rocm_version="7.2").text
    assert translate_source(once, rocm_version="7.2").text == once


# --- token-pasted runtime calls ---------------------------------------------------------------------------
PASTED = """#include <cuda_runtime.h>
#define {define}
void run(float **p, float *d, cudaStream_t *s) {{
  {name}(MallocHost(p, 16));
  {name}(Malloc(&d, 16));
  {name}(StreamCreate(s));
  {name}(Free(d));
}}
"""


@pytest.mark.parametrize(
    ("define", "name", "pasted"),
    [
        pytest.param("cuda(fn) cuda##fn", "cuda", "hip##fn", id="cuda"),
        pytest.param("CUDA_CALL(x) cuda ## x", "CUDA_CALL", "hip ## x", id="spaced"),
        pytest.param("CU(x) cuda##x /* runtime */", "CU", "hip##x /* runtime */", id="comment"),
    ],
)
def test_every_use_renamed_keeps_the_macro(define: str, name: str, pasted: str) -> None:
    done = translate_source(PASTED.format(define=define, name=name), rocm_version="6.3")
    signature = define.split(" ", 1)[0]
    assert f"#define {signature} {pasted}\n" in done.text
    assert f"  {name}(HostMalloc(p, 16));\n  {name}(Malloc(&d, 16));\n  {name}(StreamCreate(s));\n" in done.text
    assert [(d.code, d.line, d.symbol) for d in done.diagnostics] == [("HC004", 4, "cudaMallocHost")]
    assert done.diagnostics[0].message.startswith(f"{name}(...) pastes cudaMallocHost: ")
    assert translate_source(done.text, rocm_version="6.3").text == done.text  # a second run changes nothing


def test_unknown_pasted_name_writes_the_others_out() -> None:
    src = PASTED.format(define="cuda(fn) cuda##fn", name="cuda").replace("cuda(Free(d));", "cuda(Frees(d));")
    done = translate_source(src, rocm_version="6.3")
    assert "#define cuda(fn) cuda##fn\n" in done.text  # kept: cudaFrees has no HIP name to paste
    assert "  hipHostMalloc(p, 16);\n  hipMalloc(&d, 16);\n  hipStreamCreate(s);\n  cuda(Frees(d));\n" in done.text
    found = [(d.code, d.line) for d in done.diagnostics]
    assert ("HC001", 7) in found and ("HC004", 4) in found
    assert "cudaFrees, which no rule knows" in next(d.message for d in done.diagnostics if d.code == "HC001")


def test_pasted_overloads_and_compat() -> None:
    src = (
        "#include <cuda_runtime.h>\n#define cuda(fn) cuda##fn\n"
        "void f(float **d, float *h, cudaEvent_t *e) {\n"
        "  cuda(HostGetDevicePointer(d, h, 0));\n  cuda(EventCreate(e, cudaEventDisableTiming));\n}\n"
    )
    done = translate_source(src, rocm_version="6.3")
    assert (
        "  cuda(HostGetDevicePointer(d, h, 0));\n  cuda(EventCreateWithFlags(e, hipEventDisableTiming));" in done.text
    )
    assert "#define cuda(fn) hip##fn" in done.text
    assert [d.code for d in done.diagnostics] == ["HC033"]
    assert "hipHostGetDevicePointer" in (done.compat_header or b"").decode()


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("#define cuda(fn) cuda##fn\n", id="defined-never-used"),
        pytest.param("#define PASTE(a, b) a##b\nint x = PASTE(cuda, Foo);\n", id="two-parameters"),
        pytest.param("#define MY(fn) my##fn\nint y = MY(Malloc(0));\n", id="not-a-cuda-prefix"),
        pytest.param("#define hip(fn) hip##fn\nint z = hip(Malloc(0));\n", id="already-hip"),
    ],
)
def test_pasting_noop(src: str) -> None:
    done = translate_source(src, rocm_version="6.3")
    assert done.text == src
