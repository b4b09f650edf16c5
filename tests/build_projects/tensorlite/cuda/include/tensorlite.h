// tensorlite: a small tensor library with a CPU and a CUDA backend (a test project of hipconv)
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifndef TL_MAX_DIMS
#error "TL_MAX_DIMS is given by the project's CMake"
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum tl_type { TL_F32 = 0, TL_F16 = 1, TL_I32 = 2 };

struct tl_tensor {
    enum tl_type type;
    int64_t ne[TL_MAX_DIMS];  // elements in each dimension
    size_t nb[TL_MAX_DIMS];   // stride in bytes
    void* data;
};

int64_t tl_nelements(const struct tl_tensor* t);
size_t tl_type_size(enum tl_type type);

#ifdef __cplusplus
}
#endif
