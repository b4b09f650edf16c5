#include "common.cuh"

__global__ void tl_add_f32(const float* x, const float* y, float* z, int64_t n) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        z[i] = x[i] + y[i];
    }
}

__global__ void tl_scale_f32(float* x, float s, int64_t n) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] *= s;
    }
}

extern "C" void tl_cuda_add(const struct tl_tensor* a, const struct tl_tensor* b, struct tl_tensor* out,
                            cudaStream_t stream) {
    const int64_t n = tl_nelements(a);
    tl_add_f32<<<tl_blocks(n), TL_CUDA_BLOCK, 0, stream>>>(static_cast<const float*>(a->data),
                                                          static_cast<const float*>(b->data),
                                                          static_cast<float*>(out->data), n);
    TL_CUDA_CHECK(cudaGetLastError());
}

extern "C" void tl_cuda_scale(struct tl_tensor* t, float s, cudaStream_t stream) {
    const int64_t n = tl_nelements(t);
    tl_scale_f32<<<tl_blocks(n), TL_CUDA_BLOCK, 0, stream>>>(static_cast<float*>(t->data), s, n);
    TL_CUDA_CHECK(cudaGetLastError());
}
