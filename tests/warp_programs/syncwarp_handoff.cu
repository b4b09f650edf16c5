// A handoff through shared memory inside a warp: each lane stages a value, __syncwarp() makes the
// stores visible, then lane 0 of the warp sums the warp's staged values. Warp widths come from
// warpSize, so it is expected to pass on 64 lanes.
#include <cstdio>
#include <vector>

__global__ void sum_squares(const int* in, int* total, int n) {
  __shared__ int staged[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = i < n ? in[i] * in[i] : 0;
  __syncwarp();
  if (threadIdx.x % warpSize == 0) {
    int s = 0;
    for (int k = 0; k < warpSize; ++k) s += staged[threadIdx.x + k];
    atomicAdd(total, s);
  }
}

int main() {
  const int n = 1000, threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n);
  int want = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = i % 23 - 11;
    want += in[i] * in[i];
  }
  int *d_in, *d_total, got = 0;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_total, sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_total, &got, sizeof(int), cudaMemcpyHostToDevice);
  sum_squares<<<blocks, threads>>>(d_in, d_total, n);
  cudaMemcpy(&got, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_total);
  bool ok = got == want;
  printf("%s: sum of squares %d, expected %d\n", ok ? "PASS" : "FAIL", got, want);
  return ok ? 0 : 1;
}
