// Warp-aggregated atomics: the active lanes elect a leader (__activemask, __ffs), which adds the
// warp's count to the counter with one atomicAdd and hands the old value to the others with a
// shuffle. Each lane gets a unique slot. The mask is kept in 32 bits, as for a CUDA warp: on a
// 64-wide wavefront lanes 32-63 are not counted, so slots collide and the counter is short.
#include <cstdio>
#include <vector>

__device__ int next_slot(int* counter) {
  unsigned active = __activemask();  // HAZARD: HC304
  int lane = threadIdx.x % warpSize;
  int leader = __ffs(active) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(counter, __popc(active));
  base = __shfl_sync(active, base, leader);
  return base + __popc(active & ((1u << lane) - 1));
}

__global__ void take_slots(int* counter, int* owner, int slots) {
  int slot = next_slot(counter);
  if (slot < slots) owner[slot] = blockIdx.x * blockDim.x + threadIdx.x;
}

int main() {
  const int threads = 128, blocks = 8, n = threads * blocks;
  std::vector<int> owner(n, -1);
  int *d_counter, *d_owner, counter = 0;
  cudaMalloc(&d_counter, sizeof(int));
  cudaMalloc(&d_owner, n * sizeof(int));
  cudaMemcpy(d_counter, &counter, sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_owner, owner.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  take_slots<<<blocks, threads>>>(d_counter, d_owner, n);
  cudaMemcpy(&counter, d_counter, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(owner.data(), d_owner, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_counter);
  cudaFree(d_owner);
  std::vector<int> seen(n, 0);  // every thread owns exactly one slot
  bool ok = counter == n;
  for (int t : owner) ok = ok && t >= 0 && t < n && !seen[t]++;
  printf("%s: counter %d, expected %d\n", ok ? "PASS" : "FAIL", counter, n);
  return ok ? 0 : 1;
}
