#include "common.cuh"

__global__ void sum(const float *in, float *out, int n) {
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

int main() {
  const int n = 1 << 20;
  float *in, *out;
  cudaCheck(cudaMalloc(&in, n * sizeof(float)));
  cudaCheck(cudaMalloc(&out, sizeof(float)));
  cudaCheck(cudaMemset(out, 0, sizeof(float)));
  sum<<<256, 256>>>(in, out, n);
  cudaCheck(cudaDeviceSynchronize());
  cudaCheck(cudaFree(in));
  cudaCheck(cudaFree(out));
  return 0;
}
