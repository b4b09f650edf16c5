// CUDA's integer umin/umax/llmin/llmax/ullmin/ullmax and __hisinf, which hipconv_compat.h shims (no
// HIP release has the first six; HIP's __hisinf returns 1, not -1, for negative infinity). Each
// case's expected value is written out from CUDA's definitions (math_functions.hpp, cuda_fp16.hpp):
// the arguments convert to the parameter type first (umin(-1, 5) compares 0xffffffff with 5), and
// __hisinf is -1 for the bits 0xfc00, 1 for 0x7c00, 0 for anything else (NaN, the largest finite).
// Expected to pass on 64 lanes.
#include <cuda_fp16.h>

#include <cstdio>
#include <cstring>

constexpr int kCases = 8;

struct Results {
  unsigned u[kCases];
  long long ll[kCases];
  unsigned long long ull[kCases];
  int inf[kCases];
};

__global__ void minmax(const int* a, const int* b, const unsigned short* half_bits, Results* r) {
  int i = threadIdx.x;
  if (i >= kCases) return;
  // even cases the minimum, odd ones the maximum; int arguments, as a caller would pass them
  r->u[i] = i % 2 == 0 ? umin(a[i], b[i]) : umax(a[i], b[i]);
  r->ll[i] = i % 2 == 0 ? llmin(a[i], b[i]) : llmax(a[i], b[i]);
  r->ull[i] = i % 2 == 0 ? ullmin(a[i], b[i]) : ullmax(a[i], b[i]);
  __half h;
  memcpy(&h, &half_bits[i], sizeof(h));
  r->inf[i] = __hisinf(h);
}

int main() {
  const int a[kCases] = {-1, -1, 3, 3, -7, -7, 0, 2147483647};
  const int b[kCases] = {5, 5, 3, 9, -2, -2, -1, -2147483647 - 1};
  const unsigned short bits[kCases] = {0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7bff, 0xfbff, 0x0000, 0x8000};
  const Results want = {
      {5u, 0xffffffffu, 3u, 9u, 0xfffffff9u, 0xfffffffeu, 0u, 0x80000000u},
      {-1, 5, 3, 9, -7, -2, -1, 2147483647},
      {5ull, 0xffffffffffffffffull, 3ull, 9ull, 0xfffffffffffffff9ull, 0xfffffffffffffffeull, 0ull,
       0xffffffff80000000ull},
      {1, -1, 0, 0, 0, 0, 0, 0},
  };
  int *d_a, *d_b;
  unsigned short* d_bits;
  Results* d_r;
  Results got;
  memset(&got, 0x55, sizeof(got));
  cudaMalloc(&d_a, sizeof(a));
  cudaMalloc(&d_b, sizeof(b));
  cudaMalloc(&d_bits, sizeof(bits));
  cudaMalloc(&d_r, sizeof(Results));
  cudaMemcpy(d_a, a, sizeof(a), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, sizeof(b), cudaMemcpyHostToDevice);
  cudaMemcpy(d_bits, bits, sizeof(bits), cudaMemcpyHostToDevice);
  cudaMemcpy(d_r, &got, sizeof(Results), cudaMemcpyHostToDevice);
  minmax<<<1, 64>>>(d_a, d_b, d_bits, d_r);
  cudaMemcpy(&got, d_r, sizeof(Results), cudaMemcpyDeviceToHost);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_bits);
  cudaFree(d_r);
  bool ok = true;
  for (int k = 0; k < kCases; ++k) {
    bool same = got.u[k] == want.u[k] && got.ll[k] == want.ll[k] && got.ull[k] == want.ull[k] &&
                got.inf[k] == want.inf[k];
    if (!same)
      printf("case %d: u %x (%x), ll %lld (%lld), ull %llx (%llx), __hisinf %d (%d)\n", k, got.u[k], want.u[k],
             got.ll[k], want.ll[k], got.ull[k], want.ull[k], got.inf[k], want.inf[k]);
    ok = ok && same;
  }
  printf("%s: %d cases of umin/umax/llmin/llmax/ullmin/ullmax and __hisinf\n", ok ? "PASS" : "FAIL", kCases);
  return ok ? 0 : 1;
}
