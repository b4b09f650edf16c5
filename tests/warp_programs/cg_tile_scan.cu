// Cooperative-groups scans (cooperative_groups/scan.h): stream compaction by an exclusive scan of
// keep-flags over a thread_block_tile<32>, running float totals by an inclusive scan over a tile of 16,
// a running maximum with cg::greater-style lambda, and a float inclusive scan over a tile of 64 (two
// CUDA warps). The float values are chosen so that the order of the additions shows in the result:
// each lane's expected value is CUDA's order (rank r adds the value d ranks below, d = 1, 2, 4, ...;
// a 64-tile adds the lower warp's total last), computed on the host. No HIP release has
// cooperative_groups/scan.h: hipconv_compat.h's shims stand for it. Expected to pass on 64 lanes.
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

__global__ void scans(const int* in, const float* f, int* out_keep, int* out_count, float* out_f16,
                      int* out_max, float* out_f64, float* out_ex64) {
  cg::thread_block block = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + block.thread_rank();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int keep = in[i] % 3 == 0;
  int slot = cg::exclusive_scan(warp, keep);  // where a kept value goes
  out_keep[i] = keep ? slot : -1;
  out_count[i] = cg::inclusive_scan(warp, keep, cg::plus<int>());
  cg::thread_block_tile<16> sixteen = cg::tiled_partition<16>(block);
  out_f16[i] = cg::inclusive_scan(sixteen, f[i]);
  out_max[i] = cg::inclusive_scan(warp, in[i], [](int a, int b) { return a > b ? a : b; });
  cg::thread_block_tile<64> wide = cg::tiled_partition<64>(block);
  out_f64[i] = cg::inclusive_scan(wide, f[i], cg::plus<float>());
  out_ex64[i] = cg::exclusive_scan(wide, f[i]);
}

// CUDA's combining order for one group of `size` ranks starting at v[0]: rank r adds the value d below.
static void cuda_order_scan(float* v, int size) {
  for (int d = 1; d < size; d *= 2) {
    std::vector<float> lower(v, v + size);
    for (int r = d; r < size; ++r) v[r] = v[r] + lower[r - d];
  }
}

int main() {
  const int n = 256, threads = 128, blocks = n / threads;
  std::vector<int> in(n);
  std::vector<float> f(n);
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 37) % 101;
    f[i] = (i % 5 == 0) ? 1e8f : (i % 7 == 0 ? -1e8f : 0.75f + (float)(i % 9));  // additions that round
  }
  int *d_in, *d_keep, *d_count, *d_max;
  float *d_f, *d_f16, *d_f64, *d_ex64;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_keep, n * sizeof(int));
  cudaMalloc(&d_count, n * sizeof(int));
  cudaMalloc(&d_max, n * sizeof(int));
  cudaMalloc(&d_f, n * sizeof(float));
  cudaMalloc(&d_f16, n * sizeof(float));
  cudaMalloc(&d_f64, n * sizeof(float));
  cudaMalloc(&d_ex64, n * sizeof(float));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_f, f.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  scans<<<blocks, threads>>>(d_in, d_f, d_keep, d_count, d_f16, d_max, d_f64, d_ex64);
  std::vector<int> keep(n), count(n), max(n);
  std::vector<float> f16(n), f64(n), ex64(n);
  cudaMemcpy(keep.data(), d_keep, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(count.data(), d_count, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(max.data(), d_max, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(f16.data(), d_f16, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(f64.data(), d_f64, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(ex64.data(), d_ex64, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < n; t += 32) {  // tiles of 32: compaction slots, counts and running maxima
    int kept = 0, running = 0;
    for (int r = 0; r < 32; ++r) {
      int k = in[t + r] % 3 == 0;
      bad += keep[t + r] != (k ? kept : -1);
      kept += k;
      bad += count[t + r] != kept;
      running = r == 0 || in[t + r] > running ? in[t + r] : running;
      bad += max[t + r] != running;
    }
  }
  for (int t = 0; t < n; t += 16) {  // tiles of 16: CUDA's order
    std::vector<float> want(f.begin() + t, f.begin() + t + 16);
    cuda_order_scan(want.data(), 16);
    for (int r = 0; r < 16; ++r) bad += f16[t + r] != want[r];
  }
  for (int t = 0; t < n; t += 64) {  // tiles of 64: two warps of 32, the upper one adding the lower's total
    std::vector<float> want(f.begin() + t, f.begin() + t + 64);
    cuda_order_scan(want.data(), 32);
    cuda_order_scan(want.data() + 32, 32);
    float lower_total = want[31];
    for (int r = 32; r < 64; ++r) want[r] = want[r] + lower_total;
    for (int r = 0; r < 64; ++r) {
      bad += f64[t + r] != want[r];
      float ex = r == 0 ? 0.0f : r == 32 ? lower_total : want[r - 1];
      bad += ex64[t + r] != ex;
    }
  }
  printf("%s: %d mismatches\n", bad == 0 ? "PASS" : "FAIL", bad);
  return bad == 0 ? 0 : 1;
}
