// Block sum staged per warp in __shared__ int partial[32], written with 32 throughout: lane
// threadIdx.x % 32, warp threadIdx.x / 32, a shuffle loop from 16. On 64 lanes each half of a
// wavefront acts as one of these 32-thread "warps" (a shuffle by at most 16 stays in its half),
// so the 32s agree with each other and the sum is right: expected to pass on 64 lanes.
#include <cstdio>
#include <vector>

__global__ void block_sum(const int* in, int* total, int n) {
  __shared__ int partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) s += partial[w];
    atomicAdd(total, s);
  }
}

int main() {
  const int n = 3000, threads = 512, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n);
  int want = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 17) % 41 - 20;
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
