#include "tl-impl.h"

#ifdef TL_BUILD
#error "TL_BUILD is private to tl-base"
#endif

extern "C" void tl_cpu_add(const struct tl_tensor* a, const struct tl_tensor* b, struct tl_tensor* out) {
    const int64_t n = tl_nelements(a);
    const float* x = static_cast<const float*>(a->data);
    const float* y = static_cast<const float*>(b->data);
    float* z = static_cast<float*>(out->data);
    for (int64_t i = 0; i < n; ++i) {
        z[i] = x[i] + y[i];
    }
}
