// Warp maximum with an unrolled __shfl_xor_sync butterfly that starts at 16, half of a 32-lane
// warp: on a 64-wide wavefront lanes 0-31 never see lanes 32-63, so lane 0 misses their maximum.
#include <cstdio>
#include <vector>

__device__ int larger(int a, int b) { return a > b ? a : b; }

__device__ int warp_max(int v) {
  v = larger(v, __shfl_xor_sync(0xffffffff, v, 16));  // HAZARD: HC303
  v = larger(v, __shfl_xor_sync(0xffffffff, v, 8));
  v = larger(v, __shfl_xor_sync(0xffffffff, v, 4));
  v = larger(v, __shfl_xor_sync(0xffffffff, v, 2));
  v = larger(v, __shfl_xor_sync(0xffffffff, v, 1));
  return v;
}

__global__ void maximum(const int* in, int* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = warp_max(i < n ? in[i] : -1000000);
  if (threadIdx.x % warpSize == 0) atomicMax(result, v);
}

int main() {
  const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 53) % 97;
  in[300] = 5000;  // the largest value sits in the upper half of a 64-lane wavefront
  int want = in[0];
  for (int v : in) want = v > want ? v : want;
  int *d_in, *d_result, got = -1000000;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_result, sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_result, &got, sizeof(int), cudaMemcpyHostToDevice);
  maximum<<<blocks, threads>>>(d_in, d_result, n);
  cudaMemcpy(&got, d_result, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_result);
  bool ok = got == want;
  printf("%s: max %d, expected %d\n", ok ? "PASS" : "FAIL", got, want);
  return ok ? 0 : 1;
}
