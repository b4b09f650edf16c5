// Calls, in a kernel run on HIP-CPU, each device function that hipconv's CPU backend stands in for
// (hip_cpu_include/hipcpu_device_functions.h), with the values ROCm gives for them on an AMD GPU.
// Prints one line per mismatch and PASS or FAIL. tests/test_run_device_functions.py builds and runs it.
#include <hip/hip_runtime.h>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>

__device__ int failures = 0;
#define CHECK(expr, want) check_eq(#expr, (expr), (want))

template <class T>
__device__ bool same(T got, T want) {
  return std::memcmp(&got, &want, sizeof got) == 0;  // bits: -0 against 0, and NaN against NaN
}
template <class T>
__device__ void check_eq(const char* what, T got, T want) {
  if (!same(got, want)) {
    printf("mismatch: %s\n", what);
    ++failures;
  }
}

__global__ void arithmetic() {
  const float third = 1.0f / 3.0f;
  CHECK(__fdividef(1.0f, 3.0f), third);
  CHECK(__fdiv_rn(1.0f, 3.0f), third);
  CHECK(__fadd_rn(0.1f, 0.2f), 0.1f + 0.2f);
  CHECK(__fsub_rn(1.0f, 1e-8f), 1.0f);
  CHECK(__fmul_rn(3.0f, third), 1.0f);
  CHECK(__fmaf_rn(3.0f, third, -1.0f), std::fma(3.0f, third, -1.0f));
  CHECK(__fmaf_rn(3.0f, third, -1.0f) != 0.0f, true);  // one rounding, not two
  CHECK(__frcp_rn(4.0f), 0.25f);
  CHECK(__fsqrt_rn(2.0f), std::sqrt(2.0f));
  CHECK(__frsqrt_rn(4.0f), 0.5f);
  CHECK(__frsqrt_rn(2.0f), 0.70710677f);
  CHECK(__dadd_rn(0.1, 0.2), 0.30000000000000004);
  CHECK(__dsub_rn(1.0, 0.25), 0.75);
  CHECK(__dmul_rn(1.5, 1.5), 2.25);
  CHECK(__ddiv_rn(1.0, 3.0), 1.0 / 3.0);
  CHECK(__drcp_rn(8.0), 0.125);
  CHECK(__dsqrt_rn(2.0), std::sqrt(2.0));
  CHECK(__fma_rn(0.1, 10.0, -1.0), std::fma(0.1, 10.0, -1.0));
  CHECK(__saturatef(-0.5f), 0.0f);
  CHECK(__saturatef(0.25f), 0.25f);
  CHECK(__saturatef(7.0f), 1.0f);
  CHECK(std::isnan(__saturatef(NAN)), true);  // ROCm passes a NaN through
}

__global__ void bits_and_conversions() {
  CHECK(__float_as_int(1.0f), 0x3f800000);
  CHECK(__float_as_uint(-0.0f), 0x80000000u);
  CHECK(__int_as_float(0x40490fdb), 3.14159274f);
  CHECK(__uint_as_float(0x7f800000u), INFINITY);
  CHECK(__double_as_longlong(1.0), 0x3ff0000000000000ll);
  CHECK(__double2hiint(-2.0), static_cast<int>(0xc0000000u));
  CHECK(__double2loint(__hiloint2double(1, 0x12345678)), 0x12345678);
  CHECK(__hiloint2double(0x3ff00000, 0), 1.0);
  CHECK(__float2int_rn(2.5f), 2);
  CHECK(__float2int_rn(3.5f), 4);
  CHECK(__float2int_rn(-2.5f), -2);
  CHECK(__float2int_rd(-1.5f), -2);
  CHECK(__float2int_ru(-1.5f), -1);
  CHECK(__float2int_rz(-1.5f), -1);
  CHECK(__float2int_rn(1e10f), INT_MAX);  // saturates, as AMD's conversion does
  CHECK(__float2int_rz(-1e10f), INT_MIN);
  CHECK(__float2int_rn(NAN), 0);
  CHECK(__float2uint_rn(-3.0f), 0u);
  CHECK(__float2uint_ru(4294967296.0f), 4294967295u);  // 2^32: saturates
  CHECK(__float2uint_ru(0.5f), 1u);
  CHECK(__float2ll_rd(-0.5f), -1ll);
  CHECK(__float2ll_rn(1e30f), LLONG_MAX);
  CHECK(__float2ull_ru(0.25f), 1ull);
  CHECK(__float2ull_rz(1e20f), ULLONG_MAX);
  CHECK(__double2int_rn(-7.5), -8);
  CHECK(__double2int_rd(2.9999999), 2);
  CHECK(__double2int_ru(2.0000001), 3);
  CHECK(__double2int_rz(-2.9), -2);
  CHECK(__double2uint_rd(3e9), 3000000000u);
  CHECK(__double2uint_rz(-0.9), 0u);
  CHECK(__double2ll_rn(4503599627370497.5), 4503599627370498ll);
  CHECK(__double2ll_ru(-0.5), 0ll);
  CHECK(__double2ull_rn(1.5), 2ull);
  CHECK(__double2ull_rd(1e300), ULLONG_MAX);
  CHECK(__double2ll_rd(-2.5), -3ll);
  CHECK(__double2ll_rz(-2.5), -2ll);
  CHECK(__double2uint_rn(2.5), 2u);
  CHECK(__double2uint_ru(2.25), 3u);
  CHECK(__double2ull_ru(-0.75), 0ull);  // -0 is in range: 0
  CHECK(__double2ull_rz(1.99), 1ull);
  CHECK(__float2ll_ru(-2.5f), -2ll);
  CHECK(__float2ll_rz(2.75f), 2ll);
  CHECK(__float2uint_rd(7.9f), 7u);
  CHECK(__float2uint_rz(-0.5f), 0u);
  CHECK(__float2ull_rd(-1.0f), 0ull);  // below the range: saturates to 0
  CHECK(__float2ull_rn(6.5f), 6ull);
  // narrowing in the four roundings: 0.1 lies between two floats
  const float below = 0.099999994f, above = 0.1f;
  CHECK(__double2float_rn(0.1), above);
  CHECK(__double2float_rd(0.1), below);
  CHECK(__double2float_ru(0.1), above);
  CHECK(__double2float_rz(-0.1), -below);
  CHECK(__double2float_ru(-0.1), -below);
  CHECK(__double2float_rd(1e300), FLT_MAX);
  CHECK(__double2float_rn(1e300), INFINITY);
  CHECK(__int2float_rn(16777217), 16777216.0f);
  CHECK(__int2float_rd(16777217), 16777216.0f);
  CHECK(__int2float_ru(16777217), 16777218.0f);
  CHECK(__int2float_rz(-16777217), -16777216.0f);
  CHECK(__uint2float_ru(4294967295u), 4294967296.0f);
  CHECK(__uint2float_rd(4294967295u), 4294967040.0f);
  CHECK(__uint2float_rn(3u), 3.0f);
  CHECK(__uint2float_rz(16777219u), 16777218.0f);
  CHECK(__ll2float_rn(-3ll), -3.0f);
  CHECK(__ll2float_rd(-16777217ll), -16777218.0f);
  CHECK(__ll2float_ru(9223372036854775807ll), 9223372036854775808.0f);
  CHECK(__ll2float_rz(9223372036854775807ll), 9223371487098961920.0f);
  CHECK(__ull2float_rn(18446744073709551615ull), 18446744073709551616.0f);
  CHECK(__ull2float_rd(18446744073709551615ull), 18446742974197923840.0f);
  CHECK(__ull2float_ru(1ull), 1.0f);
  CHECK(__ull2float_rz(16777217ull), 16777216.0f);
  CHECK(__ll2double_rn(9007199254740993ll), 9007199254740992.0);
  CHECK(__ll2double_rd(-9007199254740993ll), -9007199254740994.0);
  CHECK(__ll2double_ru(9007199254740993ll), 9007199254740994.0);
  CHECK(__ll2double_rz(-9007199254740993ll), -9007199254740992.0);
  CHECK(__ull2double_rn(18446744073709551615ull), 18446744073709551616.0);
  CHECK(__ull2double_rd(18446744073709551615ull), 18446744073709549568.0);
  CHECK(__ull2double_ru(9007199254740993ull), 9007199254740994.0);
  CHECK(__ull2double_rz(9007199254740995ull), 9007199254740994.0);
  CHECK(__int2double_rn(-5), -5.0);
  CHECK(__uint2double_rn(4294967295u), 4294967295.0);
}

__global__ void integers() {
  CHECK(__brev(1u), 0x80000000u);
  CHECK(__brev(0x12345678u), 0x1e6a2c48u);
  CHECK(__brevll(1ull), 0x8000000000000000ull);
  CHECK(__brevll(0x00000000ffff0000ull), 0x0000ffff00000000ull);
  CHECK(__byte_perm(0x33221100u, 0x77665544u, 0x0123u), 0x00112233u);
  CHECK(__byte_perm(0x33221100u, 0x77665544u, 0x7654u), 0x77665544u);
  CHECK(__byte_perm(0x33221100u, 0x77665544u, 0x9fu), 0x00001177u);  // selectors use 3 bits
  CHECK(__bitextract_u32(0xabcd1234u, 8, 8), 0x12u);
  CHECK(__bitextract_u32(0xabcd1234u, 4, 0), 0u);
  CHECK(__bitextract_u64(0xabcd123400000000ull, 40, 16), uint64_t{0xcd12});
  CHECK(__bitinsert_u32(0xffffffffu, 0u, 8, 8), 0xffff00ffu);
  CHECK(__bitinsert_u64(0ull, 0xffull, 60, 4), uint64_t{0xf000000000000000});
  CHECK(__funnelshift_l(0x80000000u, 0x1u, 1), 0x3u);
  CHECK(__funnelshift_l(0x80000000u, 0x1u, 33), 0x3u);  // the shift is taken mod 32
  CHECK(__funnelshift_lc(0x80000000u, 0x1u, 40), 0x80000000u);  // clamped to 32
  CHECK(__funnelshift_r(0x1u, 0x3u, 1), 0x80000000u);
  CHECK(__funnelshift_rc(0x1u, 0x3u, 32), 0x3u);
  CHECK(__mulhi(-2, 0x40000000), -1);
  CHECK(__umulhi(0xffffffffu, 0xffffffffu), 0xfffffffeu);
  CHECK(__mul64hi(-1ll, 1ll), -1ll);
  CHECK(__mul64hi(0x100000000ll, 0x100000000ll), 1ll);
  CHECK(__umul64hi(0xffffffffffffffffull, 0xffffffffffffffffull), 0xfffffffffffffffeull);
  CHECK(__umul24(0x1000003u, 2u), 6);  // the low 24 bits of each
  CHECK(__rhadd(1, 2), 2);
  CHECK(__rhadd(INT_MAX, INT_MAX), INT_MAX);
  CHECK(__rhadd(-3, 0), -1);
  CHECK(__uhadd(0xffffffffu, 1u), 0x80000000u);
  CHECK(__urhadd(0xffffffffu, 0xffffffffu), 0xffffffffu);
  CHECK(__sad(1, 5, 10u), 14u);
  CHECK(__sad(INT_MIN, INT_MAX, 0u), 0xffffffffu);
}

int main() {
  hipLaunchKernelGGL(arithmetic, dim3(1), dim3(1), 0, 0);
  hipLaunchKernelGGL(bits_and_conversions, dim3(1), dim3(1), 0, 0);
  hipLaunchKernelGGL(integers, dim3(1), dim3(1), 0, 0);
  hipDeviceSynchronize();
  int failed = 0;
  hipMemcpyFromSymbol(&failed, HIP_SYMBOL(failures), sizeof failed);
  printf("%s\n", failed == 0 ? "PASS" : "FAIL");
  return failed == 0 ? 0 : 1;
}
