// A histogram whose kernel lives in histogram.cu: the program is two translation units.
#include <cstdio>
#include "histogram.cuh"

int main() {
  const int n = 3000;
  static unsigned char host[n];
  unsigned expected[BINS] = {0};
  for (int i = 0; i < n; ++i) {
    host[i] = (unsigned char)((i * 7 + i / 5) % BINS);
    ++expected[host[i]];
  }
  unsigned char* in;
  unsigned* bins;
  cudaMalloc(&in, n);
  cudaMalloc(&bins, BINS * sizeof(unsigned));
  cudaMemcpy(in, host, n, cudaMemcpyHostToDevice);
  cudaMemset(bins, 0, BINS * sizeof(unsigned));
  cudaError_t launched = histogram(in, n, bins);
  unsigned got[BINS];
  cudaMemcpy(got, bins, sizeof(got), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int b = 0; b < BINS; ++b) wrong += got[b] != expected[b];
  printf("%s\nbin 0: %u, bin 15: %u, launch %s\n", wrong == 0 && launched == cudaSuccess ? "PASS" : "FAIL", got[0],
         got[15], launched == cudaSuccess ? "ok" : "failed");
  cudaFree(in);
  cudaFree(bins);
  return wrong == 0 && launched == cudaSuccess ? 0 : 1;
}
