// Cooperative groups: a block split into thread_block_tile<32>, reduced with tile.shfl_xor(v, 16)
// and then tile.shfl_down; rank 0 of each tile adds its tile's sum. A tile's shuffles take the
// tile size as their width, so a 32-thread tile stays 32 threads inside a 64-wide wavefront:
// expected to pass on 64 lanes (ROCm's cooperative groups shuffle with the tile's width).
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

__device__ int tile_sum(cg::thread_block_tile<32> tile, int v) {
  v += tile.shfl_xor(v, 16);
  for (int offset = 8; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
  return v;
}

__global__ void sum(const int* in, int* total, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + block.thread_rank();
  int v = tile_sum(tile, i < n ? in[i] : 0);
  if (tile.thread_rank() == 0) atomicAdd(total, v);
}

int main() {
  const int n = 1500, threads = 192, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n);
  int want = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 13) % 29 - 10;
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
  printf("%s: sum %d, expected %d\n", ok ? "PASS" : "FAIL", got, want);
  return ok ? 0 : 1;
}
