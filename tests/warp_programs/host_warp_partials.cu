// Per-warp partial sums, sized on the host from a constant warp size: the kernel numbers its warps by warpSize
// (right on every device), the host launches 4 * WARP_SIZE threads and reads threads / WARP_SIZE partials,
// each the sum of WARP_SIZE values. On a 64-lane wavefront the kernel writes 2 partials of 64 values where the
// host reads 4 of 32 (HC317: the host must read the device's warp size). Expected to fail on 64 lanes.
#include <cstdio>
#include <vector>

#define WARP_SIZE 32

__global__ void warp_partials(const int* in, int* partials) {
  int v = in[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % warpSize == 0) partials[threadIdx.x / warpSize] = v;
}

int main() {
  const int warps = 4, threads = warps * WARP_SIZE;
  std::vector<int> in(threads), partials(warps, 0);
  for (int i = 0; i < threads; ++i) in[i] = i % 7 + 1;
  int *d_in, *d_partials;
  cudaMalloc(&d_in, threads * sizeof(int));
  cudaMalloc(&d_partials, warps * sizeof(int));
  cudaMemcpy(d_in, in.data(), threads * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_partials, 0, warps * sizeof(int));
  warp_partials<<<1, warps * WARP_SIZE>>>(d_in, d_partials);  // HAZARD: HC317
  cudaMemcpy(partials.data(), d_partials, warps * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_partials);
  int bad = 0;
  for (int w = 0; w < warps; ++w) {
    int want = 0;
    for (int l = 0; l < WARP_SIZE; ++l) want += in[w * WARP_SIZE + l];
    bad += partials[w] != want;
  }
  printf("%s: %d of %d partials wrong\n", bad == 0 ? "PASS" : "FAIL", bad, warps);
  return bad == 0 ? 0 : 1;
}
