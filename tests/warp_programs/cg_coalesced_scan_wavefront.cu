// Stream compaction with an exclusive scan over coalesced_threads() (cooperative_groups/scan.h, shimmed by
// hipconv_compat.h): each thread that keeps its value takes the slot the scan gives it among its warp's
// threads. The host expects CUDA's result: a coalesced_group is the active threads of one 32-thread warp, so
// the slots start again at 0 at thread 32 of each block. On AMD the group is the active lanes of a 64-lane
// wavefront: with 64-thread blocks, lanes 32-63 continue the lower half's count (HC106). Expected to fail on
// 64 lanes.
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

__global__ void warp_slots(const int* in, int* slots, int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cg::coalesced_group active = cg::coalesced_threads();
  int keep = in[i] % 3 == 0;
  int slot = cg::exclusive_scan(active, keep);  // HAZARD: HC106
  slots[i] = keep ? slot : -1;
  counts[i] = cg::inclusive_scan(active, keep);
}

int main() {
  const int threads = 64, blocks = 4, n = threads * blocks, warp = 32;
  std::vector<int> in(n), slots(n), counts(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101;
  int *d_in, *d_slots, *d_counts;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_slots, n * sizeof(int));
  cudaMalloc(&d_counts, n * sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  warp_slots<<<blocks, threads>>>(d_in, d_slots, d_counts);
  cudaMemcpy(slots.data(), d_slots, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(counts.data(), d_counts, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_slots);
  cudaFree(d_counts);
  int bad = 0;
  for (int w = 0; w < n; w += warp) {  // CUDA: one group per 32-thread warp
    int kept = 0;
    for (int l = 0; l < warp; ++l) {
      int keep = in[w + l] % 3 == 0;
      bad += slots[w + l] != (keep ? kept : -1);
      kept += keep;
      bad += counts[w + l] != kept;
    }
  }
  printf("%s: %d mismatches\n", bad == 0 ? "PASS" : "FAIL", bad);
  return bad == 0 ? 0 : 1;
}
