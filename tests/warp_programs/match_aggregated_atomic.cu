// Warp-aggregated atomics per key: the lanes holding the same key find each other with
// __match_any_sync, the lowest of them (__ffs) adds their count to the key's counter with one
// atomicAdd, and each lane takes a unique slot after it. The peers' mask is kept in 32 bits, as for
// a CUDA warp: on a 64-wide wavefront __match_any_sync returns 64 bits, lanes 32-63 lose their own
// bits (the leader is wrong or missing), and the counters come out wrong.
#include <cstdio>
#include <vector>

__device__ int take_slot(int* counters, int key) {
  unsigned peers = __match_any_sync(0xffffffff, key);  // HAZARD: HC304
  int leader = __ffs(peers) - 1;
  int lane = threadIdx.x % warpSize;
  int base = 0;
  if (lane == leader) base = atomicAdd(&counters[key], __popc(peers));
  base = __shfl_sync(0xffffffff, base, leader < 0 ? 0 : leader);
  return base + __popc(peers & ((1u << (lane % 32)) - 1));
}

__global__ void bucket(const int* keys, int* counters, int* slots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  slots[i] = take_slot(counters, keys[i]);
}

int main() {
  const int threads = 128, blocks = 4, n = threads * blocks, buckets = 5;
  std::vector<int> keys(n), counters(buckets, 0), slots(n, -1), want(buckets, 0);
  for (int i = 0; i < n; ++i) {
    keys[i] = (i * 7 + i / 3) % buckets;
    ++want[keys[i]];
  }
  int *d_keys, *d_counters, *d_slots;
  cudaMalloc(&d_keys, n * sizeof(int));
  cudaMalloc(&d_counters, buckets * sizeof(int));
  cudaMalloc(&d_slots, n * sizeof(int));
  cudaMemcpy(d_keys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_counters, counters.data(), buckets * sizeof(int), cudaMemcpyHostToDevice);
  bucket<<<blocks, threads>>>(d_keys, d_counters, d_slots);
  cudaMemcpy(counters.data(), d_counters, buckets * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(slots.data(), d_slots, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_keys);
  cudaFree(d_counters);
  cudaFree(d_slots);
  std::vector<std::vector<int>> seen(buckets, std::vector<int>(n, 0));  // each key's slots are 0..count-1, once each
  bool ok = counters == want;
  for (int i = 0; i < n; ++i) ok = ok && slots[i] >= 0 && slots[i] < want[keys[i]] && !seen[keys[i]][slots[i]]++;
  printf("%s: counters %d %d %d %d %d, expected %d %d %d %d %d\n", ok ? "PASS" : "FAIL", counters[0], counters[1],
         counters[2], counters[3], counters[4], want[0], want[1], want[2], want[3], want[4]);
  return ok ? 0 : 1;
}
