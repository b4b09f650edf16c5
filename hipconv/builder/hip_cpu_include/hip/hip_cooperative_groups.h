// The part of ROCm's cooperative groups the warp programs use, for HIP-CPU (which has none),
// written from ROCm 6.3's amd_hip_cooperative_groups.h: a tile's rank is the block-linear thread
// rank modulo its size, and its shuffles are the warp shuffles with the tile size as their width.
// HIP-CPU's __shfl, __shfl_down and __shfl_up given a width below 64 compare the source lane with
// the width instead of the segment's end, so lanes past the first segment get their own value
// back; the tile shuffles here pick the source lane themselves and shuffle over the whole wavefront.
#pragma once
#include <hip/hip_runtime.h>

#include "hipcpu_prelude.h"  // __lane_id

namespace cooperative_groups {

class thread_block {
 public:
  unsigned thread_rank() const {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  void sync() const { __syncthreads(); }
};

inline thread_block this_thread_block() { return thread_block(); }

template <unsigned Size, class Parent = void>
class thread_block_tile {
  static_assert(Size != 0 && (Size & (Size - 1)) == 0 && Size <= 64, "a power of 2 up to the wavefront size");

 public:
  static constexpr unsigned num_threads() { return Size; }
  static constexpr unsigned size() { return Size; }
  unsigned thread_rank() const { return thread_block().thread_rank() & (Size - 1); }
  unsigned meta_group_rank() const { return thread_block().thread_rank() / Size; }
  void sync() const { (void)__ballot(1); }
  template <class T>
  T shfl(T var, int src_rank) const { return __shfl(var, segment() + (src_rank & (Size - 1))); }
  template <class T>
  T shfl_down(T var, unsigned delta) const {
    unsigned rank = __lane_id() & (Size - 1);
    return __shfl(var, __lane_id() + (rank + delta < Size ? delta : 0));
  }
  template <class T>
  T shfl_up(T var, unsigned delta) const {
    unsigned rank = __lane_id() & (Size - 1);
    return __shfl(var, __lane_id() - (rank >= delta ? delta : 0));
  }
  template <class T>
  T shfl_xor(T var, unsigned lane_mask) const {
    unsigned rank = __lane_id() & (Size - 1);
    return __shfl(var, segment() + ((rank ^ lane_mask) < Size ? rank ^ lane_mask : rank));
  }

 private:
  static unsigned segment() { return __lane_id() & ~(Size - 1); }  // the tile's first lane in the wavefront
};

// The lanes that run coalesced_threads(), ranked from the lowest; shfl_up takes the lane delta ranks
// below (its own value where there is none), as ROCm's does.
class coalesced_group {
 public:
  coalesced_group() : mask_(__ballot(1)) {}
  unsigned size() const { return __popcll(mask_); }
  unsigned thread_rank() const { return __popcll(mask_ & ((1ull << __lane_id()) - 1)); }
  template <class T>
  T shfl_up(T var, unsigned delta) const {
    unsigned rank = thread_rank();
    unsigned long long below = mask_;
    int lane = __lane_id();
    for (unsigned r = 0; rank >= delta && r < rank - delta; ++r) below &= below - 1;  // drop the lowest ones
    if (rank >= delta) lane = __builtin_ctzll(below);
    return __shfl(var, lane);
  }
  template <class T>
  T shfl(T var, int src_rank) const {
    unsigned long long lanes = mask_;
    for (int r = 0; r < src_rank % static_cast<int>(size()); ++r) lanes &= lanes - 1;
    return __shfl(var, __builtin_ctzll(lanes));
  }

 private:
  unsigned long long mask_;
};

inline coalesced_group coalesced_threads() { return coalesced_group(); }

template <unsigned Size, class Parent>
thread_block_tile<Size> tiled_partition(const Parent&) {
  return thread_block_tile<Size>();
}

}  // namespace cooperative_groups
