// An inclusive scan of each block's slice in dynamic shared memory (its size given at launch), two halves
// of the input on two streams, timed with events.
#include <cstdio>
#include <cuda_runtime.h>

#define N 1024
#define THREADS 256

__global__ void block_scan(const float* in, float* out, int n) {
  extern __shared__ float buffer[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buffer[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    float add = threadIdx.x >= offset ? buffer[threadIdx.x - offset] : 0.0f;
    __syncthreads();
    buffer[threadIdx.x] += add;
    __syncthreads();
  }
  if (i < n) out[i] = buffer[threadIdx.x];
}

int main() {
  static float host_in[N], host_out[N];
  for (int i = 0; i < N; ++i) host_in[i] = 0.5f * (i % 7);
  float *in, *out;
  cudaMalloc(&in, sizeof(host_in));
  cudaMalloc(&out, sizeof(host_out));
  cudaStream_t streams[2];
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int s = 0; s < 2; ++s) cudaStreamCreate(&streams[s]);
  cudaEventRecord(start, streams[0]);
  const int half = N / 2;
  for (int s = 0; s < 2; ++s) {
    cudaMemcpyAsync(in + s * half, host_in + s * half, half * sizeof(float), cudaMemcpyHostToDevice, streams[s]);
    block_scan<<<half / THREADS, THREADS, THREADS * sizeof(float), streams[s]>>>(in + s * half, out + s * half, half);
    cudaMemcpyAsync(host_out + s * half, out + s * half, half * sizeof(float), cudaMemcpyDeviceToHost, streams[s]);
  }
  cudaStreamSynchronize(streams[1]);
  cudaEventRecord(stop, streams[0]);
  cudaEventSynchronize(stop);
  float ms = -1.0f;
  cudaEventElapsedTime(&ms, start, stop);
  int wrong = 0;
  double total = 0.0;
  for (int b = 0; b < N / THREADS; ++b) {
    float running = 0.0f;
    for (int t = 0; t < THREADS; ++t) {
      running += host_in[b * THREADS + t];
      if (host_out[b * THREADS + t] != running) ++wrong;
    }
    total += running;
  }
  for (int s = 0; s < 2; ++s) cudaStreamDestroy(streams[s]);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(in);
  cudaFree(out);
  printf("%s\nblock totals %.1f, wrong %d, timed %s\n", wrong == 0 ? "PASS" : "FAIL", total, wrong,
         ms >= 0.0f ? "yes" : "no");
  return wrong == 0 ? 0 : 1;
}
