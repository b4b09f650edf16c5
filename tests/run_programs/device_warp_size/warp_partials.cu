// Per-warp partial sums, the warps counted on the host from cudaDeviceProp::warpSize and in the kernel
// from warpSize: a program sized by the device's properties is right only where the two agree.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N 4096
#define THREADS 256

__global__ void warp_sums(const int* in, int* partial) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int warp = i / warpSize;
  atomicAdd(&partial[warp], in[i]);
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int warps = N / prop.warpSize;
  int* host = (int*)malloc(N * sizeof(int));
  int* sums = (int*)malloc(warps * sizeof(int));
  for (int i = 0; i < N; ++i) host[i] = i % 7;
  int *in, *partial;
  cudaMalloc(&in, N * sizeof(int));
  cudaMalloc(&partial, warps * sizeof(int));
  cudaMemcpy(in, host, N * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(partial, 0, warps * sizeof(int));
  warp_sums<<<N / THREADS, THREADS>>>(in, partial);
  cudaMemcpy(sums, partial, warps * sizeof(int), cudaMemcpyDeviceToHost);
  int wrong = 0;
  long total = 0;
  for (int w = 0; w < warps; ++w) {
    int expected = 0;
    for (int i = w * prop.warpSize; i < (w + 1) * prop.warpSize; ++i) expected += host[i];
    wrong += sums[w] != expected;
    total += sums[w];
  }
  cudaFree(in);
  cudaFree(partial);
  free(host);
  free(sums);
  printf("%s\n%d wrong per-warp sums; total %ld\n", wrong ? "FAIL" : "PASS", wrong, total);
  return wrong ? 1 : 0;
}
