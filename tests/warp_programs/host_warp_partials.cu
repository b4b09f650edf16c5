// Per-warp partial sums, sized on the host from a constant warp size: the kernel numbers its warps by warpSize
// (right on every device), the host launches 4 * WARP_SIZE threads and reads threads / WARP_SIZE partials,
// each the sum of WARP_SIZE values. Kept as it is, WARP_SIZE would make the host read 4 partials of 32 where a
// 64-lane wavefront writes 2 of 64; hipconv gives the host the device's warp size (hipconv_device_warp_size(),
// HC107), so the host launches 4 wavefronts and reads 4 partials of 64. Expected to pass on 64 lanes.
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
  warp_partials<<<1, warps * WARP_SIZE>>>(d_in, d_partials);
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
