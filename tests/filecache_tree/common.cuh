#pragma once
#include <cstdio>
#include <cuda_runtime.h>

#define FULL_MASK 0xffffffff

#define cudaCheck(call)                                                       \
  do {                                                                        \
    cudaError_t err_ = (call);                                                \
    if (err_ != cudaSuccess) {                                                \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                               \
    }                                                                         \
  } while (0)
