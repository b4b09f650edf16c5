// cg::reduce over a coalesced_group (cooperative_groups/reduce.h, which no HIP release has: the shim of
// hipconv_compat.h stands for it): the threads that run coalesced_threads() sum their values and take their
// maximum; every rank gets the result, and rank 0 of each group publishes it. On HIP-CPU the warp builtins are
// barriers of the block's fibers, so the group here is every thread of a warp (a wavefront: 64 lanes), and the
// host expects the sums and maxima of 64-thread groups. Expected to pass on 64 lanes.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

__global__ void group_stats(const int* in, int* sums, int* maxima, int* agree) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cg::coalesced_group active = cg::coalesced_threads();
  int sum = cg::reduce(active, in[i], cg::plus<int>());
  int most = cg::reduce(active, in[i], cg::greater<int>());
  int group = i / warpSize;
  if (active.thread_rank() == 0) {
    sums[group] = sum;
    maxima[group] = most;
  }
  if (active.thread_rank() == active.size() - 1) agree[group] = sum;  // the last rank has the same result
}

int main() {
  const int threads = 128, blocks = 4, n = threads * blocks, lanes = 64, groups = n / lanes;
  std::vector<int> in(n), sums(groups), maxima(groups), agree(groups);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 - 50;
  int *d_in, *d_sums, *d_maxima, *d_agree;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_sums, groups * sizeof(int));
  cudaMalloc(&d_maxima, groups * sizeof(int));
  cudaMalloc(&d_agree, groups * sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  group_stats<<<blocks, threads>>>(d_in, d_sums, d_maxima, d_agree);
  cudaMemcpy(sums.data(), d_sums, groups * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(maxima.data(), d_maxima, groups * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(agree.data(), d_agree, groups * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_sums);
  cudaFree(d_maxima);
  cudaFree(d_agree);
  int bad = 0;
  for (int g = 0; g < groups; ++g) {
    int want = 0, most = in[g * lanes];
    for (int l = 0; l < lanes; ++l) {
      want += in[g * lanes + l];
      most = most < in[g * lanes + l] ? in[g * lanes + l] : most;
    }
    bad += sums[g] != want || maxima[g] != most || agree[g] != want;
  }
  printf("%s: %d of %d groups wrong\n", bad == 0 ? "PASS" : "FAIL", bad, groups);
  return bad == 0 ? 0 : 1;
}
