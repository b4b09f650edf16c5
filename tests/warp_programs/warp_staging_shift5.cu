// Block sum staged per warp in shared memory: each warp's sum (a warpSize-wide shuffle reduction)
// goes to partial[threadIdx.x >> 5], then thread 0 adds blockDim.x / warpSize partials. The warp
// index divides by 32: on 64 lanes the wavefront sums land in partial[0], [2], [4], ... while
// thread 0 reads partial[0..3], so half of them are missed.
#include <cstdio>
#include <vector>

__device__ int warp_sum(int v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void block_sum(const int* in, int* total, int n) {
  __shared__ int partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = warp_sum(i < n ? in[i] : 0);
  int warp = threadIdx.x >> 5;  // HAZARD: HC301
  if (threadIdx.x % warpSize == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int w = 0; w < blockDim.x / warpSize; ++w) s += partial[w];
    atomicAdd(total, s);
  }
}

int main() {
  const int n = 2048, threads = 256, blocks = n / threads;
  std::vector<int> in(n);
  int want = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 11) % 19;
    want += in[i];
  }
  int *d_in, *d_total, got = 0;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_total, sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_total, &got, sizeof(int), cudaMemcpyHostToDevice);
  block_sum<<<blocks, threads>>>(d_in, d_total, n);
  cudaMemcpy(&got, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_total);
  bool ok = got == want;
  printf("%s: sum %d, expected %d\n", ok ? "PASS" : "FAIL", got, want);
  return ok ? 0 : 1;
}
