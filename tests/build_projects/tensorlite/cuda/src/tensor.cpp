#include "tl-impl.h"

#ifndef TL_BUILD
#error "TL_BUILD is a private definition of tl-base"
#endif

extern "C" int64_t tl_nelements(const struct tl_tensor* t) {
    int64_t n = 1;
    for (int i = 0; i < TL_MAX_DIMS; ++i) {
        n *= t->ne[i];
    }
    return n;
}

extern "C" size_t tl_type_size(enum tl_type type) {
    switch (type) {
        case TL_F32: return 4;
        case TL_F16: return 2;
        case TL_I32: return 4;
    }
    return 0;
}
