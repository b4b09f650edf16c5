// Counts the negative values with one ballot per warp, keeping the ballot in 32 bits: right on a 32-lane warp,
// but on a 64-lane wavefront the upper 32 lanes' votes are cut off, so the count comes out short.
#include <cstdio>
#include <cuda_runtime.h>

#define N 256

__global__ void count_negative(const int* in, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned votes = __ballot_sync(0xffffffff, in[i] < 0);  // HAZARD: HC304
  if (threadIdx.x % warpSize == 0) atomicAdd(count, __popc(votes));
}

int main() {
  int host[N], expected = 0;
  for (int i = 0; i < N; ++i) {
    host[i] = (i % 3 == 0) ? -i - 1 : i;
    expected += host[i] < 0;
  }
  int *in, *count;
  cudaMalloc(&in, sizeof(host));
  cudaMalloc(&count, sizeof(int));
  cudaMemcpy(in, host, sizeof(host), cudaMemcpyHostToDevice);
  cudaMemset(count, 0, sizeof(int));
  count_negative<<<N / 64, 64>>>(in, count);
  int got = 0;
  cudaMemcpy(&got, count, sizeof(got), cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(count);
  printf("%s\nnegative %d (expected %d)\n", got == expected ? "PASS" : "FAIL", got, expected);
  return got == expected ? 0 : 1;
}
