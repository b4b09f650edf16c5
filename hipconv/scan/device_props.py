"""cudaDeviceProp fields that hipDeviceProp_t lacks: the data behind check HC314 (amd.device-prop-field)."""

from __future__ import annotations

# cudaDeviceProp fields (CUDA 13) that hipDeviceProp_t lacks, by the first bundled ROCm release that has them
# (None: no bundled release). From ../shared/api-inventory; tests/test_scan_checks.py re-derives it.
DEVICE_PROP_SINCE: dict[str, str | None] = {
    **dict.fromkeys(
        (
            "uuid luid luidDeviceNodeMask maxTexture1DMipmap maxTexture2DMipmap maxTexture2DLinear maxTexture2DGather "
            "maxTexture3DAlt maxTextureCubemap maxTexture1DLayered maxTexture2DLayered maxTextureCubemapLayered "
            "maxSurface1D maxSurface2D maxSurface3D maxSurface1DLayered maxSurface2DLayered maxSurfaceCubemap "
            "maxSurfaceCubemapLayered surfaceAlignment asyncEngineCount unifiedAddressing persistingL2CacheMaxSize "
            "streamPrioritiesSupported globalL1CacheSupported localL1CacheSupported sharedMemPerMultiprocessor "
            "regsPerMultiprocessor multiGpuBoardGroupID hostNativeAtomicSupported computePreemptionSupported "
            "canUseHostPointerForRegisteredMem sharedMemPerBlockOptin maxBlocksPerMultiProcessor "
            "accessPolicyMaxWindowSize reservedSharedMemPerBlock hostRegisterSupported hostRegisterReadOnlySupported "
            "timelineSemaphoreInteropSupported memoryPoolsSupported gpuDirectRDMASupported "
            "gpuDirectRDMAFlushWritesOptions gpuDirectRDMAWritesOrdering memoryPoolSupportedHandleTypes "
            "ipcEventSupported clusterLaunch unifiedFunctionPointers reserved"
        ).split(),
        "6.3",
    ),
    **dict.fromkeys(
        (
            "sparseCudaArraySupported deferredMappingCudaArraySupported deviceNumaConfig deviceNumaId mpsEnabled "
            "hostNumaId gpuPciDeviceID gpuPciSubsystemID hostNumaMultinodeIpcSupported"
        ).split(),
        None,
    ),
}
