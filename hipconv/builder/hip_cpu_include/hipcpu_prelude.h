// Force-included (g++ -include) into every translated warp program built against HIP-CPU
// (../shared/hip-cpu), which runs HIP on the CPU with 64-lane wavefronts but predates a few
// device functions that ROCm has, and the AMDGPU builtins that hipconv's compat shims call. Only
// those are stood in for here, each as ROCm defines it for a 64-wide wavefront (ROCm 6.3's
// amd_warp_functions.h and amd_hip_cooperative_groups.h).
//
// Each stand-in is a function template with a defaulted parameter: a real definition of the same
// name (a `hipconv_compat.h` shim, say) is an ordinary function, which overload resolution
// prefers, so it is never redefined here.
//
// On HIP-CPU every warp builtin is a barrier of the block's fibers, so the warp programs call
// them in uniform control flow (all threads of a block, the same number of times).
#ifndef HIPCPU_PRELUDE_H  // a guard, not #pragma once: the precompiled copy has another path
#define HIPCPU_PRELUDE_H
#include <hip/hip_runtime.h>
#include <hipcpu_device_functions.h>  // ROCm's device functions that HIP-CPU lacks

// ROCm 6.2+: the active lanes, 64 bits on wave64 (every lane of a wavefront runs in lockstep).
template <class = void>
inline unsigned long long __activemask() noexcept {
  return __ballot(1);
}

// The AMDGPU builtins of hipconv_compat.h's shims (hipconv_syncwarp): a barrier of the
// wavefront's lanes and a memory fence. HIP-CPU's lanes are fibers of one thread, so a warp
// builtin is the barrier, and the fence orders that thread's accesses.
#define __builtin_amdgcn_wave_barrier() ((void)__ballot(1))
#define __builtin_amdgcn_fence(order, scope) __atomic_thread_fence(order)

template <class = void>
inline unsigned __lane_id() noexcept {
  return threadIdx.x % warpSize;
}

// ROCm's shuffles with a width below 64 (amd_warp_functions.h): the wavefront is cut into segments of
// `width` lanes and each lane reads within its own. HIP-CPU's compare the source index with the width
// instead of the segment's end, so every lane past the first segment gets its own value back. These
// pick ROCm's source lane and shuffle over the whole wavefront; HIP-CPU's names are templates with the
// same parameters, so the stand-ins take the names by function-like macros (a call `(__shfl)(v, i)`
// reaches HIP-CPU's own).
template <class T>
inline T hipcpu_shfl(T var, int src_lane, int width = warpSize) noexcept {
  int self = __lane_id();
  return (__shfl)(var, (src_lane & (width - 1)) + (self & ~(width - 1)));
}
template <class T>
inline T hipcpu_shfl_up(T var, unsigned lane_delta, int width = warpSize) noexcept {
  int self = __lane_id();
  int index = self - static_cast<int>(lane_delta);
  return (__shfl)(var, index < (self & ~(width - 1)) ? self : index);
}
template <class T>
inline T hipcpu_shfl_down(T var, unsigned lane_delta, int width = warpSize) noexcept {
  int self = __lane_id();
  int index = self + static_cast<int>(lane_delta);
  return (__shfl)(var, static_cast<int>((self & (width - 1)) + lane_delta) >= width ? self : index);
}
template <class T>
inline T hipcpu_shfl_xor(T var, int lane_mask, int width = warpSize) noexcept {
  int self = __lane_id();
  int index = self ^ lane_mask;
  return (__shfl)(var, index >= ((self + width) & ~(width - 1)) ? self : index);
}
#define __shfl(...) hipcpu_shfl(__VA_ARGS__)
#define __shfl_up(...) hipcpu_shfl_up(__VA_ARGS__)
#define __shfl_down(...) hipcpu_shfl_down(__VA_ARGS__)
#define __shfl_xor(...) hipcpu_shfl_xor(__VA_ARGS__)
// HIP-CPU's hipGetDeviceProperties reports the CPU's SIMD width as warpSize (4 or 8, say), while its
// kernels run 64-lane wavefronts (warpSize in device code is 64): a program that sizes per-warp work
// from the properties would then disagree with its own kernels. The properties here say 64. A macro,
// since a function of HIP-CPU's signature cannot be declared twice; defined after HIP-CPU's header,
// so only the program's calls are renamed.
inline hipError_t hipconv_cpu_device_properties(hipDeviceProp_t* props, int device) noexcept {
  const hipError_t status = ::hip::detail::device_properties(props, device);
  if (status == hipSuccess) props->warpSize = warpSize;
  return status;
}
#define hipGetDeviceProperties hipconv_cpu_device_properties
// hipconv_compat.h's hipconv_device_warp_size() reads the wavefront size as ROCm gives it,
// hipDeviceGetAttribute(&size, hipDeviceAttributeWarpSize, device), which HIP-CPU lacks: stood in
// for that attribute alone (the only enumerator here), from the properties above (64).
enum hipDeviceAttribute_t { hipDeviceAttributeWarpSize };
inline hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute, int device) noexcept {
  hipDeviceProp_t props;
  const hipError_t status = hipconv_cpu_device_properties(&props, device);
  if (status == hipSuccess && attribute == hipDeviceAttributeWarpSize) *value = props.warpSize;
  return status;
}

#endif  // HIPCPU_PRELUDE_H
