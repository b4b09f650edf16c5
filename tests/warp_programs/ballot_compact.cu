// Stream compaction with __ballot_sync: each warp votes, its first lane reserves room for the
// kept values with one atomicAdd, and each kept lane writes at its rank among the warp's votes.
// The vote is kept in 64 bits and counted with __popcll: expected to pass on 64 lanes.
#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void keep_multiples_of_3(const int* in, int* out, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  bool keep = i < n && in[i] % 3 == 0;
  unsigned long long votes = __ballot_sync(0xffffffff, keep);
  int base = 0;
  if (lane == 0) base = atomicAdd(count, __popcll(votes));
  base = __shfl_sync(0xffffffff, base, 0);
  if (keep) out[base + __popcll(votes & ((1ull << lane) - 1))] = in[i];
}

int main() {
  const int n = 3000, threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n), want;
  for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000;
  for (int v : in)
    if (v % 3 == 0) want.push_back(v);
  int *d_in, *d_out, *d_count, count = 0;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMalloc(&d_count, sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_count, &count, sizeof(int), cudaMemcpyHostToDevice);
  keep_multiples_of_3<<<blocks, threads>>>(d_in, d_out, d_count, n);
  cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost);
  std::vector<int> got(std::min(std::max(count, 0), n));
  cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_count);
  std::sort(got.begin(), got.end());  // warps append in any order
  std::sort(want.begin(), want.end());
  bool ok = count == (int)want.size() && got == want;
  printf("%s: kept %d values, expected %zu\n", ok ? "PASS" : "FAIL", count, want.size());
  return ok ? 0 : 1;
}
