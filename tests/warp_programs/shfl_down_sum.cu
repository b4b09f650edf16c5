// Warp sum with __shfl_down_sync written for any warp width: the loop starts at warpSize / 2, and
// lane 0 of each warp adds its warp's sum to the total. Expected to pass on 64 lanes.
#include <cstdio>
#include <vector>

__device__ int warp_sum(int v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void sum(const int* in, int* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = warp_sum(i < n ? in[i] : 0);
  if (threadIdx.x % warpSize == 0) atomicAdd(total, v);
}

int main() {
  const int n = 2000, threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n);
  long long want = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 37) % 101 - 50;
    want += in[i];
  }
  int *d_in, *d_total, got = 0;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_total, sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_total, &got, sizeof(int), cudaMemcpyHostToDevice);
  sum<<<blocks, threads>>>(d_in, d_total, n);
  cudaMemcpy(&got, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_total);
  bool ok = got == want;
  printf("%s: sum %d, expected %lld\n", ok ? "PASS" : "FAIL", got, want);
  return ok ? 0 : 1;
}
