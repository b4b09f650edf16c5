// Counting the even values with a warp vote, in two versions selected by the CUDA release and the
// architecture, as older libraries did: CUDA 9 and later on sm_30 or newer sum the votes with a
// shuffle over warpSize lanes; the pre-CUDA-9 branch keeps a 32-bit ballot, for 32-lane warps.
// HIP defines neither macro, so as written HIP would compile the old branch, which counts lanes
// 0-31 of each 64-lane wavefront twice and lanes 32-63 never. hipconv evaluates the test as nvcc 13
// does (HC020) and keeps the new branch. Expected to pass on 64 lanes.
#include <cstdio>
#include <vector>

__device__ int warp_count(bool vote) {
#if CUDART_VERSION >= 9000 && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 300)
  int v = vote ? 1 : 0;
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return threadIdx.x % warpSize == 0 ? v : 0;
#else
  unsigned int votes = __ballot(vote);
  return threadIdx.x % 32 == 0 ? __popc(votes) : 0;
#endif
}

__global__ void count_even(const int* in, int* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int c = warp_count(i < n && in[i] % 2 == 0);
  if (c != 0) atomicAdd(total, c);
}

int main() {
  const int n = 3000, threads = 128, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n);
  int want = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = (i / 40) % 2 == 0 ? 2 * i : 2 * i + 1;  // runs of 40 even, then 40 odd values
    want += in[i] % 2 == 0;
  }
  int *d_in, *d_total, got = 0;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_total, sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_total, &got, sizeof(int), cudaMemcpyHostToDevice);
  count_even<<<blocks, threads>>>(d_in, d_total, n);
  cudaMemcpy(&got, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_total);
  bool ok = got == want;
  printf("%s: %d even values counted, expected %d\n", ok ? "PASS" : "FAIL", got, want);
  return ok ? 0 : 1;
}
