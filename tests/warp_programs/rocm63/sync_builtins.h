// ROCm 6.3's *_sync warp builtins for programs built against HIP-CPU (which has only the mask-less ones),
// with the contract of hip/amd_detail/amd_warp_sync_functions.h that decides whether a translated lane
// mask works (docs/lane-masks.md):
// - the mask must be a 64-bit integer: a static_assert, so a 32-bit mask does not compile;
// - without NDEBUG, the mask must be exactly the lanes that run the call (`mask == __ballot(true)`), or
//   the kernel stops at an assertion; HIP-CPU's __ballot(1) is that set of lanes (0xffffffff in a block
//   of 32 threads, whose one wavefront runs lanes 0-31);
// - then the mask-less builtin runs (a ballot keeps the bits the mask names).
// Force-included after hipcpu_prelude.h by tests/test_warp_launch_masks.py.
#ifndef HIPCONV_TEST_SYNC_BUILTINS_H
#define HIPCONV_TEST_SYNC_BUILTINS_H
#include <cstdio>
#include <cstdlib>
#include <type_traits>

template <class MaskT>
inline unsigned long long hipconv_test_checked_mask(MaskT mask, const char* builtin) {
  static_assert(std::is_integral<MaskT>::value && sizeof(MaskT) == 8,
                "The mask must be a 64-bit integer. "
                "Implicitly promoting a smaller integer is almost always an error.");
  const unsigned long long lanes = static_cast<unsigned long long>(mask);
#ifndef NDEBUG
  const unsigned long long running = __ballot(1);
  if (lanes != running) {
    std::fprintf(stderr, "%s: mask %#llx is not the lanes that run the call (%#llx): assertion failed\n", builtin,
                 lanes, running);
    std::abort();
  }
#endif
  return lanes;
}

template <class MaskT, class T>
inline T __shfl_sync(MaskT mask, T var, int src_lane, int width = warpSize) {
  hipconv_test_checked_mask(mask, "__shfl_sync");
  return __shfl(var, src_lane, width);
}
template <class MaskT, class T>
inline T __shfl_up_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
  hipconv_test_checked_mask(mask, "__shfl_up_sync");
  return __shfl_up(var, delta, width);
}
template <class MaskT, class T>
inline T __shfl_down_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
  hipconv_test_checked_mask(mask, "__shfl_down_sync");
  return __shfl_down(var, delta, width);
}
template <class MaskT, class T>
inline T __shfl_xor_sync(MaskT mask, T var, int lane_mask, int width = warpSize) {
  hipconv_test_checked_mask(mask, "__shfl_xor_sync");
  return __shfl_xor(var, lane_mask, width);
}
template <class MaskT>
inline unsigned long long __ballot_sync(MaskT mask, int predicate) {
  const unsigned long long lanes = hipconv_test_checked_mask(mask, "__ballot_sync");
  return __ballot(predicate) & lanes;
}
#endif  // HIPCONV_TEST_SYNC_BUILTINS_H
