// Included by hipcpu_prelude.h: the device functions of ROCm 6.3 (__clang_hip_math.h,
// amd_device_functions.h) that HIP-CPU does not declare and that have a clear meaning on a CPU,
// each computing what ROCm computes on an AMD GPU. tests/test_run_device_functions.py derives the
// missing set from the ROCm 6.3 inventory and HIP-CPU's headers, checks that each name is here or
// listed in hip_cpu.yaml (device_functions_not_supplied) with the reason, and runs each one here.
//
// Precision: exact (the result ROCm gives), except __frsqrt_rn, which is 1/sqrt computed in double
// and rounded once to float (correctly rounded but in rare halfway cases; ROCm's is within 1 ulp).
// Conversions to an integer out of its range, or of a NaN, saturate (NaN -> 0), as AMD's
// conversion instructions do (in C++ they are undefined).
#ifndef HIPCPU_DEVICE_FUNCTIONS_H
#define HIPCPU_DEVICE_FUNCTIONS_H
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace hipconv_cpu {
template <class To, class From>
inline To bits(From from) noexcept {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}
// A float or double rounded to an integer by `round`, saturated to Int's range (NaN -> 0).
template <class Int, class F, class Round>
inline Int to_int(F x, Round round) noexcept {
  if (std::isnan(x)) return 0;
  const F r = round(x);
  if (r <= static_cast<F>(std::numeric_limits<Int>::min())) return std::numeric_limits<Int>::min();
  if (r >= static_cast<F>(std::numeric_limits<Int>::max())) return std::numeric_limits<Int>::max();
  return static_cast<Int>(r);
}
// `wide` (exact in long double) converted to the narrower To, rounded toward -inf (dir < 0), +inf
// (dir > 0) or zero (dir == 0): the nearest value, stepped once where it lies on the wrong side.
template <class To>
inline To directed(long double wide, int dir) noexcept {
  To near = static_cast<To>(wide);
  if (std::isnan(wide)) return near;
  const long double back = near;
  const bool down = dir < 0 || (dir == 0 && wide > 0);
  if (down && back > wide) return std::nextafter(near, -std::numeric_limits<To>::infinity());
  if (!down && back < wide) return std::nextafter(near, std::numeric_limits<To>::infinity());
  return near;
}
inline float rn(float x) { return std::nearbyint(x); }
inline double rn(double x) { return std::nearbyint(x); }
}  // namespace hipconv_cpu

// IEEE operations rounded to nearest: what the CPU's own operators do.
template <class = void> inline float __fadd_rn(float x, float y) noexcept { return x + y; }
template <class = void> inline float __fsub_rn(float x, float y) noexcept { return x - y; }
template <class = void> inline float __fmul_rn(float x, float y) noexcept { return x * y; }
template <class = void> inline float __fdiv_rn(float x, float y) noexcept { return x / y; }
template <class = void> inline float __fdividef(float x, float y) noexcept { return x / y; }
template <class = void> inline float __fmaf_rn(float x, float y, float z) noexcept { return std::fma(x, y, z); }
template <class = void> inline float __frcp_rn(float x) noexcept { return 1.0f / x; }
template <class = void> inline float __fsqrt_rn(float x) noexcept { return std::sqrt(x); }
template <class = void> inline float __frsqrt_rn(float x) noexcept {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
}
template <class = void> inline double __dadd_rn(double x, double y) noexcept { return x + y; }
template <class = void> inline double __dsub_rn(double x, double y) noexcept { return x - y; }
template <class = void> inline double __dmul_rn(double x, double y) noexcept { return x * y; }
template <class = void> inline double __ddiv_rn(double x, double y) noexcept { return x / y; }
template <class = void> inline double __drcp_rn(double x) noexcept { return 1.0 / x; }
template <class = void> inline double __dsqrt_rn(double x) noexcept { return std::sqrt(x); }
template <class = void> inline double __fma_rn(double x, double y, double z) noexcept { return std::fma(x, y, z); }
// ROCm's: a NaN passes through (CUDA's gives 0).
template <class = void> inline float __saturatef(float x) noexcept { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }

// Bits as another type.
template <class = void> inline int __float_as_int(float x) noexcept { return hipconv_cpu::bits<int>(x); }
template <class = void> inline unsigned __float_as_uint(float x) noexcept { return hipconv_cpu::bits<unsigned>(x); }
template <class = void> inline float __int_as_float(int x) noexcept { return hipconv_cpu::bits<float>(x); }
template <class = void> inline float __uint_as_float(unsigned x) noexcept { return hipconv_cpu::bits<float>(x); }
template <class = void> inline long long __double_as_longlong(double x) noexcept {
  return hipconv_cpu::bits<long long>(x);
}
template <class = void> inline int __double2hiint(double x) noexcept {
  return static_cast<int>(hipconv_cpu::bits<unsigned long long>(x) >> 32);
}
template <class = void> inline int __double2loint(double x) noexcept {
  return static_cast<int>(hipconv_cpu::bits<unsigned long long>(x) & 0xffffffffu);
}
template <class = void> inline double __hiloint2double(int hi, int lo) noexcept {
  return hipconv_cpu::bits<double>((static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) |
                                   static_cast<unsigned>(lo));
}

// To an integer: rn (to nearest, ties to even), rd (down), ru (up), rz (toward zero).
#define HIPCONV_CPU_TO_INT(FROM, F, NAME, INT)                                                          \
  template <class = void> inline INT __##FROM##2##NAME##_rn(F x) noexcept {                            \
    return hipconv_cpu::to_int<INT>(x, [](F v) { return hipconv_cpu::rn(v); });                     \
  }                                                                                                     \
  template <class = void> inline INT __##FROM##2##NAME##_rd(F x) noexcept {                            \
    return hipconv_cpu::to_int<INT>(x, [](F v) { return std::floor(v); });                            \
  }                                                                                                     \
  template <class = void> inline INT __##FROM##2##NAME##_ru(F x) noexcept {                            \
    return hipconv_cpu::to_int<INT>(x, [](F v) { return std::ceil(v); });                             \
  }                                                                                                     \
  template <class = void> inline INT __##FROM##2##NAME##_rz(F x) noexcept {                            \
    return hipconv_cpu::to_int<INT>(x, [](F v) { return std::trunc(v); });                            \
  }
HIPCONV_CPU_TO_INT(float, float, int, int)
HIPCONV_CPU_TO_INT(float, float, uint, unsigned)
HIPCONV_CPU_TO_INT(float, float, ll, long long)
HIPCONV_CPU_TO_INT(float, float, ull, unsigned long long)
HIPCONV_CPU_TO_INT(double, double, int, int)
HIPCONV_CPU_TO_INT(double, double, uint, unsigned)
HIPCONV_CPU_TO_INT(double, double, ll, long long)
HIPCONV_CPU_TO_INT(double, double, ull, unsigned long long)
#undef HIPCONV_CPU_TO_INT

// To a narrower floating type, in the four roundings (the integer is exact in long double).
#define HIPCONV_CPU_NARROW(FROM, F, NAME, TO)                                                           \
  template <class = void> inline TO __##FROM##2##NAME##_rn(F x) noexcept { return static_cast<TO>(x); } \
  template <class = void> inline TO __##FROM##2##NAME##_rd(F x) noexcept {                            \
    return hipconv_cpu::directed<TO>(static_cast<long double>(x), -1);                                \
  }                                                                                                     \
  template <class = void> inline TO __##FROM##2##NAME##_ru(F x) noexcept {                            \
    return hipconv_cpu::directed<TO>(static_cast<long double>(x), 1);                                 \
  }                                                                                                     \
  template <class = void> inline TO __##FROM##2##NAME##_rz(F x) noexcept {                            \
    return hipconv_cpu::directed<TO>(static_cast<long double>(x), 0);                                 \
  }
HIPCONV_CPU_NARROW(double, double, float, float)
HIPCONV_CPU_NARROW(int, int, float, float)
HIPCONV_CPU_NARROW(uint, unsigned, float, float)
HIPCONV_CPU_NARROW(ll, long long, float, float)
HIPCONV_CPU_NARROW(ull, unsigned long long, float, float)
HIPCONV_CPU_NARROW(ll, long long, double, double)
HIPCONV_CPU_NARROW(ull, unsigned long long, double, double)
#undef HIPCONV_CPU_NARROW
template <class = void> inline double __int2double_rn(int x) noexcept { return x; }
template <class = void> inline double __uint2double_rn(unsigned x) noexcept { return x; }

// Integer intrinsics, as amd_device_functions.h defines them.
template <class = void> inline unsigned __brev(unsigned x) noexcept {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
template <class = void> inline unsigned long long __brevll(unsigned long long x) noexcept {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) | __brev(static_cast<unsigned>(x >> 32));
}
template <class = void> inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) noexcept {
  const unsigned long long both = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((both >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
template <class = void> inline unsigned __bitextract_u32(unsigned src, unsigned offset, unsigned width) noexcept {
  offset &= 31;
  width &= 31;
  return width == 0 ? 0 : (src >> offset) & ((1u << width) - 1);
}
template <class = void> inline std::uint64_t __bitextract_u64(std::uint64_t src, unsigned offset, unsigned width) noexcept {
  offset &= 63;
  width &= 63;
  return width == 0 ? 0 : (src >> offset) & ((std::uint64_t{1} << width) - 1);
}
template <class = void>
inline unsigned __bitinsert_u32(unsigned src, unsigned ins, unsigned offset, unsigned width) noexcept {
  offset &= 31;
  width &= 31;
  const unsigned mask = (1u << width) - 1;
  return (src & ~(mask << offset)) | ((ins & mask) << offset);
}
template <class = void>
inline std::uint64_t __bitinsert_u64(std::uint64_t src, std::uint64_t ins, unsigned offset, unsigned width) noexcept {
  offset &= 63;
  width &= 63;
  const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
  return (src & ~(mask << offset)) | ((ins & mask) << offset);
}
// hi:lo shifted right by `shift` bits, the low word kept (AMD's alignbit).
inline unsigned hipconv_cpu_alignbit(unsigned hi, unsigned lo, unsigned shift) noexcept {
  return static_cast<unsigned>(((static_cast<unsigned long long>(hi) << 32) | lo) >> (shift & 31));
}
template <class = void> inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) noexcept {
  return (shift & 31) == 0 ? hi : hipconv_cpu_alignbit(hi, lo, 32 - (shift & 31));
}
template <class = void> inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) noexcept {
  const unsigned s = shift >= 32 ? 32 : shift;
  return s == 0 ? hi : hipconv_cpu_alignbit(hi, lo, 32 - s);
}
template <class = void> inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) noexcept {
  return hipconv_cpu_alignbit(hi, lo, shift);
}
template <class = void> inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) noexcept {
  return shift >= 32 ? hi : hipconv_cpu_alignbit(hi, lo, shift);
}
template <class = void> inline int __mulhi(int x, int y) noexcept {
  return static_cast<int>((static_cast<long long>(x) * y) >> 32);
}
template <class = void> inline unsigned __umulhi(unsigned x, unsigned y) noexcept {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) * y) >> 32);
}
template <class = void> inline long long __mul64hi(long long x, long long y) noexcept {
  return static_cast<long long>((static_cast<__int128>(x) * y) >> 64);
}
template <class = void> inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) noexcept {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}
template <class = void> inline int __umul24(unsigned x, unsigned y) noexcept {
  return static_cast<int>((x & 0xffffffu) * (y & 0xffffffu));
}
template <class = void> inline int __rhadd(int x, int y) noexcept {
  return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1);
}
template <class = void> inline unsigned __uhadd(unsigned x, unsigned y) noexcept {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y) >> 1);
}
template <class = void> inline unsigned __urhadd(unsigned x, unsigned y) noexcept {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}
// |x - y| + z in 32-bit arithmetic that wraps, as on the GPU.
template <class = void> inline unsigned __sad(int x, int y, unsigned z) noexcept {
  const unsigned ux = static_cast<unsigned>(x), uy = static_cast<unsigned>(y);
  return x > y ? ux - uy + z : uy - ux + z;
}

#endif  // HIPCPU_DEVICE_FUNCTIONS_H
