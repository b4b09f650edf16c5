#include "common.cuh"

struct tl_cuda_context {
    int device;
    cudaStream_t stream;
#ifdef TL_USE_GRAPHS
    cudaGraph_t graph;
    cudaGraphExec_t instance;
    bool captured;
#endif
};

extern "C" struct tl_cuda_context* tl_cuda_init(int device) {
    auto* ctx = new tl_cuda_context{};
    ctx->device = device;
    TL_CUDA_CHECK(cudaSetDevice(device));
    TL_CUDA_CHECK(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
    return ctx;
}

extern "C" void tl_cuda_copy_peer(void* dst, int dst_device, const void* src, int src_device, size_t bytes,
                                  struct tl_cuda_context* ctx) {
#ifdef TL_NO_PEER
    TL_UNUSED(dst_device);
    TL_UNUSED(src_device);
    TL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, ctx->stream));
#else
    const size_t batch = bytes / TL_PEER_MAX_BATCH + 1;
    for (size_t done = 0; done < bytes; done += batch) {
        const size_t n = bytes - done < batch ? bytes - done : batch;
        TL_CUDA_CHECK(cudaMemcpyPeerAsync(static_cast<char*>(dst) + done, dst_device,
                                          static_cast<const char*>(src) + done, src_device, n, ctx->stream));
    }
#endif
}

extern "C" void tl_cuda_free(struct tl_cuda_context* ctx) {
#ifdef TL_USE_GRAPHS
    if (ctx->captured) {
        TL_CUDA_CHECK(cudaGraphExecDestroy(ctx->instance));
        TL_CUDA_CHECK(cudaGraphDestroy(ctx->graph));
    }
#endif
    TL_CUDA_CHECK(cudaStreamDestroy(ctx->stream));
    delete ctx;
}
