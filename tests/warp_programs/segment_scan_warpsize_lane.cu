// Inclusive scan of each 32-element segment, CUDA style: the shuffle works on segments of 32 lanes (its
// width argument), but the lane is numbered modulo warpSize. On a 32-lane warp the two are the same; on a
// 64-wide wavefront lanes 32-63 have lane numbers 32-63 while being positions 0-31 of their segment, so
// `lane >= i` is true where __shfl_up returned the lane's own value: it is added again.
#include <cstdio>
#include <vector>

__global__ void segment_scan(const int* in, int* out, int n) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int v = id < n ? in[id] : 0;
  for (int i = 1; i < 32; i *= 2) {
    int up = __shfl_up_sync(0xffffffff, v, i, 32);  // HAZARD: HC322
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
