// Warp statistics with the sm_80 reductions __reduce_*_sync and the sm_70 __match_any_sync /
// __match_all_sync, called with the full mask and written for any warp width: a warp's leader is
// lane threadIdx.x % warpSize == 0, lane masks are kept in 64 bits. ROCm has no __reduce_*_sync
// and, before 6.2, no __match_*_sync or __activemask: hipconv_compat.h's shims stand for them.
// Expected to pass on 64 lanes.
#include <climits>
#include <cstdio>
#include <vector>

struct Stats {
  int sum, min;
  unsigned max, bits_or, bits_and, bits_xor;
  int uniform_warps, mixed_warps;
  int histogram[8];
};

__global__ void stats(const int* in, Stats* s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int v = in[i];
  unsigned u = (unsigned)v;
  int sum = __reduce_add_sync(0xffffffff, v);
  int min = __reduce_min_sync(0xffffffff, v);
  unsigned max = __reduce_max_sync(0xffffffff, u);
  unsigned bits_or = __reduce_or_sync(0xffffffff, u);
  unsigned bits_and = __reduce_and_sync(0xffffffff, u);
  unsigned bits_xor = __reduce_xor_sync(0xffffffff, u);
  // peers: the lanes of the warp with the same key; the lowest of them counts the group
  int key = v & 7;
  unsigned long long peers = __match_any_sync(0xffffffff, key);
  if (__popcll(peers & ((1ull << lane) - 1)) == 0) atomicAdd(&s->histogram[key], __popcll(peers));
  // every lane of a warp has the same block index, and (with this data) not the same key
  unsigned long long active = __activemask();
  int same_block, same_key;
  unsigned long long all_block = __match_all_sync(0xffffffff, blockIdx.x, &same_block);
  unsigned long long all_key = __match_all_sync(0xffffffff, key, &same_key);
  if (lane == 0) {
    atomicAdd(&s->sum, sum);
    atomicMin(&s->min, min);
    atomicMax(&s->max, max);
    atomicOr(&s->bits_or, bits_or);
    atomicAnd(&s->bits_and, bits_and);
    atomicXor(&s->bits_xor, bits_xor);
    atomicAdd(&s->uniform_warps, same_block && all_block == active && __popcll(active) == warpSize);
    atomicAdd(&s->mixed_warps, !same_key && all_key == 0);
  }
}

int main() {
  const int threads = 256, blocks = 8, n = threads * blocks;
  std::vector<int> in(n);
  Stats want = {0, INT_MAX, 0, 0, ~0u, 0, 0, 0, {0}};
  for (int i = 0; i < n; ++i) {
    in[i] = (int)((i * 2654435761u) >> 7) % 2001 - 1000;
    unsigned u = (unsigned)in[i];
    want.sum += in[i];
    want.min = in[i] < want.min ? in[i] : want.min;
    want.max = u > want.max ? u : want.max;
    want.bits_or |= u;
    want.bits_and &= u;
    want.bits_xor ^= u;
    want.histogram[in[i] & 7] += 1;
  }
  Stats got = want, start = {0, INT_MAX, 0, 0, ~0u, 0, 0, 0, {0}};
  int* d_in;
  Stats* d_stats;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_stats, sizeof(Stats));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_stats, &start, sizeof(Stats), cudaMemcpyHostToDevice);
  stats<<<blocks, threads>>>(d_in, d_stats);
  cudaMemcpy(&got, d_stats, sizeof(Stats), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_stats);
  int warps = got.uniform_warps;  // one per warp of the launch, whatever the warp width
  bool ok = got.sum == want.sum && got.min == want.min && got.max == want.max && got.bits_or == want.bits_or &&
            got.bits_and == want.bits_and && got.bits_xor == want.bits_xor && warps > 0 && n % warps == 0 &&
            got.mixed_warps == warps;
  for (int k = 0; k < 8; ++k) ok = ok && got.histogram[k] == want.histogram[k];
  printf("%s: sum %d (%d), min %d (%d), max %u (%u), or %x (%x), and %x (%x), xor %x (%x), warps %d/%d\n",
         ok ? "PASS" : "FAIL", got.sum, want.sum, got.min, want.min, got.max, want.max, got.bits_or, want.bits_or,
         got.bits_and, want.bits_and, got.bits_xor, want.bits_xor, got.uniform_warps, got.mixed_warps);
  return ok ? 0 : 1;
}
