// Per-warp sums and votes written for any warp width: the shuffle distances start at warpSize / 2, the lane
// that publishes is lane 0 of whatever warp size the device has, and the votes are any/all (no lane masks).
#include <cstdio>
#include <cuda_runtime.h>

#define N 512
#define THREADS 128

__global__ void warp_sums(const int* in, int* total, int* warps_with_odd, int* warps_all_positive, int* warps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int value = in[i];
  int sum = value;
  for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);
  int any_odd = __any_sync(0xffffffff, value % 2 != 0);
  int all_positive = __all_sync(0xffffffff, value > 0);
  if (threadIdx.x % warpSize == 0) {
    atomicAdd(total, sum);
    atomicAdd(warps_with_odd, any_odd ? 1 : 0);
    atomicAdd(warps_all_positive, all_positive ? 1 : 0);
    atomicAdd(warps, 1);
  }
}

int main() {
  int host[N];
  for (int i = 0; i < N; ++i) host[i] = 2 * (i % 50) + 2;  // even and positive
  host[300] = 7;                                          // one odd value
  int *in, *counts;
  cudaMalloc(&in, sizeof(host));
  cudaMalloc(&counts, 4 * sizeof(int));
  cudaMemcpy(in, host, sizeof(host), cudaMemcpyHostToDevice);
  cudaMemset(counts, 0, 4 * sizeof(int));
  warp_sums<<<N / THREADS, THREADS>>>(in, counts, counts + 1, counts + 2, counts + 3);
  int got[4];
  cudaMemcpy(got, counts, sizeof(got), cudaMemcpyDeviceToHost);
  int expected = 0;
  for (int i = 0; i < N; ++i) expected += host[i];
  bool ok = got[0] == expected && got[1] == 1 && got[2] == got[3];
  printf("%s\ntotal %d (expected %d), warps with an odd value %d\n", ok ? "PASS" : "FAIL", got[0], expected, got[1]);
  cudaFree(in);
  cudaFree(counts);
  return ok ? 0 : 1;
}
