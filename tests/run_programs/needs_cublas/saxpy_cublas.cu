// y = 2x + y with cuBLAS: hipBLAS on AMD, which HIP-CPU does not provide.
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>

int main() {
  const int n = 4;
  float x[n] = {1, 2, 3, 4}, y[n] = {1, 1, 1, 1}, alpha = 2.0f;
  float *dx, *dy;
  cudaMalloc(&dx, sizeof(x));
  cudaMalloc(&dy, sizeof(y));
  cudaMemcpy(dx, x, sizeof(x), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, sizeof(y), cudaMemcpyHostToDevice);
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSaxpy(handle, n, &alpha, dx, 1, dy, 1);
  cublasDestroy(handle);
  cudaMemcpy(y, dy, sizeof(y), cudaMemcpyDeviceToHost);
  bool ok = y[0] == 3 && y[3] == 9;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
