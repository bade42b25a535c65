//===- ConstantDivision.h - f32 division by 6 and 6E ------------*- C++ -*-===//
//
// f32(t / c) for the constants of 4over6's arithmetic (c = 6E = 2688 or
// 1536, and 6) by Markstein's correction: y = f32(1 / c), q0 = f32(t y),
// r = fma(-q0, c, t), q = fma(r, y, q0). r is exact (q0 is within two ulps
// of t / c) and q is the correctly rounded quotient for every t whose
// significand passes; that holds for each of the 2^23 significands with
// every divisor in kConstantDivisors (unittests/ConstantDivisionTest.cpp
// checks them all, at two exponents and both signs; f32(t y) alone misses
// two fifths to two thirds of them). The sequence is free of scale while
// every intermediate stays normal: t = 2^e t' gives q0, r and q equal to
// 2^e times those of t', so the significand check covers every t with
// kConstantDivisionMin <= |t| <= kConstantDivisionMax (there q0 > 2^-76,
// r is a multiple of 2^-128 and nothing overflows). Outside that range,
// and for 0, NaN and infinities, the kernels divide with div.rn.
//
// The 4over6 kernels use it (FourOverSix.cpp): a block's decoded E2M1
// values are f32(f32(f32(m sf) G) / 6E) for the eight magnitudes m, its
// scales start from f32(amax / 6), and on sm_90a every div.rn.f32 costs
// ~15 SASS instructions on its fast path (a range check, FCHK, a branch
// around a slow-path call).
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_UTILS_CONSTANTDIVISION_H
#define QS_DIALECT_QS_UTILS_CONSTANTDIVISION_H

#include <cmath>

namespace mlir {
namespace qs {

inline constexpr float kConstantDivisionMin = 0x1p-64f;
inline constexpr float kConstantDivisionMax = 0x1p64f;

/// The divisors the sequence is checked for: NVFP4's 6E with E = 448 and
/// 256, and 6 (4over6's amax / 6).
inline constexpr float kConstantDivisors[3] = {2688.0f, 1536.0f, 6.0f};

/// The sequence on the host, as the kernels emit it (the check's model).
inline float divideByConstant(float t, float c) {
  float y = 1.0f / c;
  float q0 = t * y;
  float r = std::fma(-q0, c, t);
  return std::fma(r, y, q0);
}

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_UTILS_CONSTANTDIVISION_H
