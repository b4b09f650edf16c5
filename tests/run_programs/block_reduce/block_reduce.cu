// A sum of 1..N: each block reduces its slice in shared memory, then one atomicAdd per block.
#include <cstdio>
#include <cuda_runtime.h>

#define N 4096
#define THREADS 128

__global__ void block_sum(const int* in, unsigned long long* total, int n) {
  __shared__ int partial[THREADS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)partial[0]);
}

int main() {
  int host[N];
  for (int i = 0; i < N; ++i) host[i] = i + 1;
  int* in;
  unsigned long long* total;
  cudaMalloc(&in, sizeof(host));
  cudaMalloc(&total, sizeof(*total));
  cudaMemcpy(in, host, sizeof(host), cudaMemcpyHostToDevice);
  cudaMemset(total, 0, sizeof(*total));
  block_sum<<<(N + THREADS - 1) / THREADS, THREADS>>>(in, total, N);
  unsigned long long sum = 0;
  cudaMemcpy(&sum, total, sizeof(sum), cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(total);
  unsigned long long expected = (unsigned long long)N * (N + 1) / 2;
  printf("%s\nsum %llu (expected %llu)\n", sum == expected ? "PASS" : "FAIL", sum, expected);
  return sum == expected ? 0 : 1;
}
