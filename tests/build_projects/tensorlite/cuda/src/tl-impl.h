// internal helpers shared by the backends
#pragma once

#include "tensorlite.h"

#if defined(_WIN32_WINNT) || defined(TL_ON_OPENBSD) || defined(_DARWIN_C_SOURCE)
#error "a definition from another platform's branch of the CMake project"
#endif
#ifndef TL_ON_LINUX
#error "TL_ON_LINUX is defined on Linux by the project's CMake"
#endif

#define TL_UNUSED(x) (void)(x)

static inline int64_t tl_rows(const struct tl_tensor* t) {
    int64_t rows = 1;
    for (int i = 1; i < TL_MAX_DIMS; ++i) {
        rows *= t->ne[i];
    }
    return rows;
}
