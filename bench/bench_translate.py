"""Throughput and memory benchmark for `hipconv translate` (not part of the test run).

Generates a tree of realistic CUDA sources (kernels with warp shuffles, host code
with the runtime API and error checks, driver-API loaders, headers), translates it
with the installed `hipconv` in a child process, and reports MB/s, files/s and the
child's peak RSS. Two tree sizes show whether memory stays flat as the tree grows.

    python bench/bench_translate.py                 # 8 MB and 32 MB trees, --jobs 1
    python bench/bench_translate.py --sizes 64 --jobs 2
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNEL_FILE = """\
// {name}.cu - generated benchmark source {index}
// Licensed under the Apache License 2.0.
#include <cstdio>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CUDA_CHECK(call)                                                   \\
  do {{                                                                     \\
    cudaError_t err_ = (call);                                             \\
    if (err_ != cudaSuccess) {{                                             \\
      fprintf(stderr, "%s:%d: %s\\n", __FILE__, __LINE__,                   \\
              cudaGetErrorString(err_));                                   \\
      return err_;                                                         \\
    }}                                                                      \\
  }} while (0)

template <typename T>
__device__ T warp_sum_{index}(T v) {{
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}}

__global__ void reduce_{index}(const float* __restrict__ in, float* out, int n) {{
  __shared__ float partial[32];
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i] * {scale}f;
  v = warp_sum_{index}(v);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {{
    v = (threadIdx.x < blockDim.x / 32) ? partial[threadIdx.x] : 0.f;
    v = warp_sum_{index}(v);
    if (threadIdx.x == 0) atomicAdd(out, v);
  }}
}}

__global__ void saxpy_{index}(int n, float a, const float* x, float* y) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}}

cudaError_t run_{index}(const float* host, int n, float* result, cudaStream_t stream) {{
  float *d_in = nullptr, *d_out = nullptr;
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(float), stream));
  CUDA_CHECK(cudaMemcpyAsync(d_in, host, n * sizeof(float), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaEventRecord(start, stream));
  reduce_{index}<<<(n + 255) / 256, 256, 0, stream>>>(d_in, d_out, n);
  saxpy_{index}<<<(n + 255) / 256, 256, 0, stream>>>(n, 2.0f, d_in, d_in);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaMemcpyAsync(result, d_out, sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  float ms = 0.f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  printf("reduce_{index}: %.3f ms (\\"cudaMalloc\\" in a string stays)\\n", ms);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaEventDestroy(start));
  return cudaEventDestroy(stop);
}}
"""

HOST_FILE = """\
// {name}.cpp - host-side driver API module loader {index}
#include <cuda.h>
#include <vector>
#include <stdexcept>

static void check_{index}(CUresult r) {{
  if (r != CUDA_SUCCESS) {{
    const char* msg = nullptr;
    cuGetErrorString(r, &msg);
    throw std::runtime_error(msg ? msg : "unknown CUDA driver error");
  }}
}}

int launch_{index}(const char* image, int n) {{
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  CUdeviceptr buf;
  check_{index}(cuInit(0));
  check_{index}(cuDeviceGet(&dev, 0));
  check_{index}(cuCtxCreate(&ctx, 0, dev));
  check_{index}(cuModuleLoadData(&mod, image));
  check_{index}(cuModuleGetFunction(&fn, mod, "saxpy_{index}"));
  check_{index}(cuMemAlloc(&buf, n * sizeof(float)));
  std::vector<float> host(n, {scale}f);
  check_{index}(cuMemcpyHtoD(buf, host.data(), n * sizeof(float)));
  void* args[] = {{&n, &buf}};
  check_{index}(cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  check_{index}(cuCtxSynchronize());
  check_{index}(cuMemFree(buf));
  check_{index}(cuModuleUnload(mod));
  return cuCtxDestroy(ctx) == CUDA_SUCCESS ? 0 : 1;
}}
"""

HEADER_FILE = """\
// {name}.cuh - device helpers {index}
#pragma once
#include <cuda_fp16.h>

__device__ __forceinline__ __half2 mul_add_{index}(__half2 a, __half2 b, __half2 c) {{
  return __hfma2(a, b, c);
}}

__device__ __forceinline__ float to_float_{index}(__half h) {{ return __half2float(h); }}

struct Params{index} {{
  cudaStream_t stream;
  dim3 grid, block;
  int n;
}};
"""


def generate(root: Path, target_bytes: int) -> tuple[int, int]:
    total = files = 0
    index = 0
    while total < target_bytes:
        folder = root / f"module_{index // 50:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        for template, suffix in ((KERNEL_FILE, ".cu"), (HOST_FILE, ".cpp"), (HEADER_FILE, ".cuh")):
            text = template.format(name=f"unit_{index}", index=index, scale=1 + index % 7)
            path = folder / f"unit_{index}{suffix}"
            path.write_text(text)
            total += len(text)
            files += 1
        index += 1
    return total, files


def measure(source: Path, out: Path, jobs: int) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one `hipconv translate` child process."""
    cmd = [sys.executable, "-m", "hipconv", "translate", str(source), "-o", str(out), "--jobs", str(jobs), "--force"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = proc.communicate()
    elapsed = time.perf_counter() - start
    _, status, usage = os.wait4(proc.pid, 0) if False else (0, proc.returncode, None)
    if status not in (0, 1):
        raise SystemExit(f"hipconv failed ({status}):\n{err.decode()[-2000:]}")
    return elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=float, nargs="+", default=[8, 32], help="tree sizes in MB")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the generated trees")
    args = parser.parse_args()
    print(f"{'tree MB':>8} {'files':>7} {'seconds':>8} {'MB/s':>7} {'files/s':>8} {'peak RSS MB':>12}")
    for size in args.sizes:
        work = Path(tempfile.mkdtemp(prefix="hipconv-bench-"))
        try:
            nbytes, nfiles = generate(work / "cuda", int(size * 1e6))
            # each size in its own interpreter, so ru_maxrss is that run's peak alone
            child = subprocess.run(
                [sys.executable, __file__, "--_measure", str(work / "cuda"), str(work / "hip"), str(args.jobs)],
                capture_output=True, text=True, check=True,
            ) if False else None
            seconds, peak_kib = _measure_isolated(work / "cuda", work / "hip", args.jobs)
            print(f"{nbytes / 1e6:8.1f} {nfiles:7d} {seconds:8.2f} {nbytes / 1e6 / seconds:7.2f} "
                  f"{nfiles / seconds:8.0f} {peak_kib / 1024:12.1f}")
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
    return 0


def _measure_isolated(source: Path, out: Path, jobs: int) -> tuple[float, int]:
    """Run hipconv via a small wrapper process so RUSAGE_CHILDREN covers only this run."""
    code = (
        "import resource, subprocess, sys, time\n"
        "cmd = [sys.executable, '-m', 'hipconv', 'translate', sys.argv[1], '-o', sys.argv[2], '--jobs', sys.argv[3], '--force']\n"
        "t = time.perf_counter(); p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
        "dt = time.perf_counter() - t\n"
        "if p.returncode not in (0, 1): sys.exit(p.stderr.decode()[-2000:])\n"
        "print(dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(source), str(out), str(jobs)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"hipconv failed:\n{done.stderr}")
    seconds, peak = done.stdout.split()
    return float(seconds), int(peak)


if __name__ == "__main__":
    raise SystemExit(main())
