// The largest value of each warp, in versions chosen by macros defined from the CUDA release, as
// libraries spell it: SYNC_SHUFFLES is `CUDART_VERSION >= 9000` and tested by #if; a build without the
// CUDA runtime (`#ifndef CUDART_VERSION`) takes a stub that finds nothing. HIP defines neither, so as
// written HIP would compile the stub: every maximum would be 0. hipconv rewrites the #define's body
// and the #ifndef as nvcc 13 reads them (HC020), and the shuffle over warpSize lanes stays live.
// Expected to pass on 64 lanes.
#include <cstdio>
#include <vector>

#define SYNC_SHUFFLES (CUDART_VERSION >= 9000 /* the _sync shuffles */)

#ifndef CUDART_VERSION
__device__ int warp_max(int v) { return 0; }
#elif SYNC_SHUFFLES
__device__ int warp_max(int v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    int other = __shfl_xor_sync(0xffffffff, v, offset);
    v = other > v ? other : v;
  }
  return v;
}
#else
__device__ int warp_max(int v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    int other = __shfl_xor(v, offset);
    v = other > v ? other : v;
  }
  return v;
}
#endif

__global__ void block_max(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int m = warp_max(i < n ? in[i] : 0);
  if (threadIdx.x % warpSize == 0) atomicMax(out, m);
}

int main() {
  const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n);
  int want = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 7919) % 4093 + 1;
    want = in[i] > want ? in[i] : want;
  }
  int *d_in, *d_out, got = 0;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_out, &got, sizeof(int), cudaMemcpyHostToDevice);
  block_max<<<blocks, threads>>>(d_in, d_out, n);
  cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  bool ok = got == want;
  printf("%s: maximum %d, expected %d\n", ok ? "PASS" : "FAIL", got, want);
  return ok ? 0 : 1;
}
