// Counting with __ballot_sync + __popc, the vote stored in a 32-bit unsigned as CUDA's warp
// allows: on a 64-wide wavefront the votes of lanes 32-63 are dropped, so the count is short.
#include <cstdio>
#include <vector>

__global__ void count_negative(const int* in, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned votes = __ballot_sync(0xffffffff, i < n && in[i] < 0);  // HAZARD: HC304
  if (threadIdx.x % warpSize == 0) atomicAdd(count, __popc(votes));
}

int main() {
  const int n = 4096, threads = 256, blocks = n / threads;
  std::vector<int> in(n);
  int want = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 31) % 17 - 8;
    want += in[i] < 0;
  }
  int *d_in, *d_count, got = 0;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_count, sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_count, &got, sizeof(int), cudaMemcpyHostToDevice);
  count_negative<<<blocks, threads>>>(d_in, d_count, n);
  cudaMemcpy(&got, d_count, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_count);
  bool ok = got == want;
  printf("%s: %d negative values, expected %d\n", ok ? "PASS" : "FAIL", got, want);
  return ok ? 0 : 1;
}
