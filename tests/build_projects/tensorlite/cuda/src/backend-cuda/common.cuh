// what the CUDA backend's kernels share
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "tl-impl.h"

#if defined(NOMINMAX)
#error "NOMINMAX is defined only on Windows"
#endif
#if TL_CUDA_DIMS != TL_MAX_DIMS
#error "TL_CUDA_DIMS is the root's TL_MAX_DIMS"
#endif

#define TL_CUDA_CHECK(call)                                                                   \
    do {                                                                                      \
        cudaError_t err_ = (call);                                                            \
        if (err_ != cudaSuccess) {                                                            \
            fprintf(stderr, "tensorlite: %s at %s:%d\n", cudaGetErrorString(err_), __FILE__, __LINE__); \
            abort();                                                                          \
        }                                                                                     \
    } while (0)

constexpr int TL_CUDA_BLOCK = 256;

static inline int tl_blocks(int64_t n) {
    return static_cast<int>((n + TL_CUDA_BLOCK - 1) / TL_CUDA_BLOCK);
}
