// Inclusive scan of each 32-element segment with the lane numbered modulo 32, as the shuffle's width 32
// segments it: both count positions in the same 32-lane segment, so the scan is right on 64-wide
// wavefronts too (each wavefront holds two segments). Expected to pass on 64 lanes.
#include <cstdio>
#include <vector>

__global__ void segment_scan(const int* in, int* out, int n) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  int v = id < n ? in[id] : 0;
  for (int i = 1; i < 32; i *= 2) {
    int up = __shfl_up_sync(0xffffffff, v, i, 32);
    if (lane >= i) v += up;
  }
  if (id < n) out[id] = v;
}

int main() {
  const int n = 1024, threads = 128, blocks = n / threads;
  std::vector<int> in(n), out(n, 0);
  for (int i = 0; i < n; ++i) in[i] = (i * 7) % 5 + 1;
  int *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  segment_scan<<<blocks, threads>>>(d_in, d_out, n);
  cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  int bad = 0, sum = 0;
  for (int i = 0; i < n; ++i) {
    sum = (i % 32 == 0 ? 0 : sum) + in[i];
    bad += out[i] != sum;
  }
  printf("%s: %d of %d prefix sums wrong\n", bad == 0 ? "PASS" : "FAIL", bad, n);
  return bad == 0 ? 0 : 1;
}
