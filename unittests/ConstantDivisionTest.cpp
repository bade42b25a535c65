//===- ConstantDivisionTest.cpp - Markstein division by 6 and 6E ----------===//
//
// ConstantDivision.h: the three-instruction division equals f32(t / c) for
// every significand of t (exhaustive at two exponents, the argument there
// extends it to the whole range) and for random t across the range; and it
// is not the bare multiplication, which misses millions of quotients.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/Utils/ConstantDivision.h"

#include <cstdint>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

using namespace mlir::qs;

namespace {

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(ConstantDivision, EverySignificand) {
  for (float c : kConstantDivisors) {
    int64_t wrong = 0, productWrong = 0;
    for (uint32_t exponent : {127u, 128u})
      for (uint32_t m = 0; m < (1u << 23); ++m) {
        float t = fromBits(exponent << 23 | m);
        float want = t / c;
        wrong += divideByConstant(t, c) != want;
        wrong += divideByConstant(-t, c) != -want;
        volatile float product = t * (1.0f / c);
        productWrong += product != want;
      }
    EXPECT_EQ(wrong, 0) << "divisor " << c;
    // The correction is needed: f32(t * f32(1 / c)) alone is off for
    // two fifths to two thirds of the significands.
    EXPECT_GT(productWrong, 1000000) << "divisor " << c;
  }
}

TEST(ConstantDivision, AcrossTheRange) {
  std::mt19937 rng(2026);
  std::uniform_int_distribution<uint32_t> significand(0, (1u << 23) - 1);
  std::uniform_int_distribution<int> exponent(-64, 63);
  for (float c : kConstantDivisors)
    for (int i = 0; i < 1000000; ++i) {
      float t =
          std::ldexp(fromBits(127u << 23 | significand(rng)), exponent(rng));
      ASSERT_GE(t, kConstantDivisionMin);
      ASSERT_LE(t, kConstantDivisionMax);
      ASSERT_EQ(divideByConstant(t, c), t / c) << t << " / " << c;
    }
  // The ends of the range themselves.
  for (float c : kConstantDivisors) {
    EXPECT_EQ(divideByConstant(kConstantDivisionMin, c),
              kConstantDivisionMin / c);
    EXPECT_EQ(divideByConstant(kConstantDivisionMax, c),
              kConstantDivisionMax / c);
  }
}

} // namespace
