#include "common.cuh"

// one block per row: a shared-memory tree reduction
__global__ void tl_row_sum_f32(const float* x, float* out, int64_t cols) {
    __shared__ float partial[TL_CUDA_BLOCK];
    const float* row = x + blockIdx.x * cols;
    float sum = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        sum += row[c];
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step /= 2) {
        if (threadIdx.x < step) {
            partial[threadIdx.x] += partial[threadIdx.x + step];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x] = partial[0];
    }
}

extern "C" void tl_cuda_row_sum(const struct tl_tensor* t, struct tl_tensor* out, cudaStream_t stream) {
    const int64_t rows = tl_rows(t);
    tl_row_sum_f32<<<static_cast<unsigned>(rows), TL_CUDA_BLOCK, 0, stream>>>(
        static_cast<const float*>(t->data), static_cast<float*>(out->data), t->ne[0]);
    TL_CUDA_CHECK(cudaGetLastError());
}
