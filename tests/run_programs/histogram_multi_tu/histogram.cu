// The kernel and its launcher, in a translation unit of their own.
#include "histogram.cuh"

__global__ void count_bins(const unsigned char* in, int n, unsigned* bins) {
  __shared__ unsigned local[BINS];
  if (threadIdx.x < BINS) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i] % BINS], 1u);
  __syncthreads();
  if (threadIdx.x < BINS) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

cudaError_t histogram(const unsigned char* in, int n, unsigned* bins) {
  count_bins<<<4, 64>>>(in, n, bins);
  return cudaGetLastError();
}
