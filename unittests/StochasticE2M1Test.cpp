//===- StochasticE2M1Test.cpp - the GPU's stochastic E2M1 sequence --------===//
//
// KernelEnv::e2m1StochasticParts computes a stochastically rounded E2M1
// magnitude on the GPU as min(cap, min_j sub.rp(C_j, fma.rm(|v|, -c_j,
// K))), K = word >> 8, and the emulation cannot run those rounding modes
// (it steps the nearest sums instead). This test runs the GPU's sequence
// on the host, in the rounding modes it names (fesetround), against the
// definition of StochasticRounding.h written out plainly: random f32 bit
// patterns and words, values on the grid's runs with words at and next to
// their thresholds, and the specials.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#pragma STDC FENV_ACCESS ON

namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// StochasticRounding.h: spacing s (1/2 below 2, 1 below 4, else 2), t =
/// |v| / s, up iff (word >> 8) 2^-24 < t - floor(t); |v| >= 6 and NaN give
/// 7; v's sign (none for NaN).
unsigned definition(float v, uint32_t word) {
  if (std::isnan(v))
    return 7;
  double a = std::fabs(static_cast<double>(v));
  unsigned magnitude = 7;
  if (a < 6) {
    double s = a < 2 ? 0.5 : a < 4 ? 1 : 2;
    unsigned base = a < 2 ? 0 : a < 4 ? 2 : 4;
    double t = a / s; // exact in double
    double whole = std::floor(t);
    double u = static_cast<double>(word >> 8) * 0x1p-24;
    magnitude = std::min(
        base + static_cast<unsigned>(whole) + (u < t - whole ? 1u : 0u), 7u);
  }
  return magnitude | (std::signbit(v) ? 8u : 0u);
}

/// The GPU's instructions, in order (fma.rm.f32, sub.rp.f32, min.f32);
/// NaN's sign bit is clear on the GPU (its f32 results' NaN is 0x7FFFFFFF).
unsigned gpuSequence(float v, uint32_t word) {
  const float scales[3] = {0x1p25f, 0x1p24f, 0x1p23f};
  const float biases[3] = {0x1p47f + 0x1p24f, 0x1p47f + 3 * 0x1p24f,
                           0x1p47f + 5 * 0x1p24f};
  volatile float k = static_cast<float>(word >> 8);
  volatile float a = std::fabs(v);
  float w = 0.0f;
  for (int j = 0; j < 3; ++j) {
    std::fesetround(FE_DOWNWARD);
    volatile float negY = std::fma(a, -scales[j], k);
    std::fesetround(FE_UPWARD);
    volatile float wj = biases[j] - negY;
    std::fesetround(FE_TONEAREST);
    w = j ? std::fmin(w, wj) : wj;
  }
  w = std::fmin(w, 0x1p47f + 8 * 0x1p24f);
  unsigned magnitude = bitsOf(w) - 0x57000001u;
  return magnitude | (!std::isnan(v) && std::signbit(v) ? 8u : 0u);
}

TEST(StochasticE2M1, RandomPatterns) {
  std::mt19937 rng(2026);
  for (int i = 0; i < 2000000; ++i) {
    float v = fromBits(static_cast<uint32_t>(rng()));
    uint32_t word = static_cast<uint32_t>(rng());
    ASSERT_EQ(gpuSequence(v, word), definition(v, word))
        << std::hexfloat << v << " word " << std::hex << word;
  }
}

TEST(StochasticE2M1, ValuesOnTheRuns) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> magnitude(0.0f, 7.0f);
  for (int i = 0; i < 2000000; ++i) {
    float v = magnitude(rng) * (rng() & 1 ? -1.0f : 1.0f);
    uint32_t word = static_cast<uint32_t>(rng());
    ASSERT_EQ(gpuSequence(v, word), definition(v, word))
        << std::hexfloat << v << " word " << std::hex << word;
  }
}

TEST(StochasticE2M1, Thresholds) {
  // v whose fraction t - floor(t) is a multiple of 2^-24, F 2^-24: the word
  // with K = F rounds down (u = frac is not below it), K = F - 1 rounds up;
  // the low 8 bits of the word never matter.
  std::mt19937 rng(11);
  int ups = 0, downs = 0;
  for (int i = 0; i < 200000; ++i) {
    uint32_t f = static_cast<uint32_t>(rng()) & 0xFFFFFF;
    if (f == 0)
      continue;
    unsigned whole = rng() % 12; // t in [0, 12): every run, past 6
    int run = rng() % 3;         // s = 1/2, 1, 2
    double s = run == 0 ? 0.5 : run == 1 ? 1 : 2;
    double a = (whole + f * 0x1p-24) * s;
    float v = static_cast<float>(a);
    if (static_cast<double>(v) != a || (run == 0   ? a >= 2
                                        : run == 1 ? (a < 2 || a >= 4)
                                                   : a < 4))
      continue; // not exact, or not in that run
    for (uint32_t k : {f, f - 1}) {
      uint32_t word = k << 8 | (static_cast<uint32_t>(rng()) & 0xFF);
      unsigned want = definition(v, word);
      ASSERT_EQ(gpuSequence(v, word), want)
          << std::hexfloat << v << " word " << std::hex << word;
      ASSERT_EQ(gpuSequence(-v, word), want | 8);
      (k == f ? downs : ups) += a < 6;
    }
  }
  EXPECT_GT(ups, 10000);
  EXPECT_GT(downs, 10000);
}

TEST(StochasticE2M1, Specials) {
  const float values[] = {0.0f,    -0.0f,     0x1p-149f, -0x1p-149f, 0x1p-126f,
                          0.25f,   0.5f,      1.75f,     2.0f,       3.5f,
                          4.0f,    5.999999f, 6.0f,      6.5f,       1e30f,
                          3.4e38f, INFINITY,  -INFINITY, NAN,        -NAN};
  const uint32_t words[] = {0u,          0xFFu,       0x100u,
                            0x80000000u, 0xFFFFFF00u, 0xFFFFFFFFu};
  for (float v : values)
    for (uint32_t word : words)
      EXPECT_EQ(gpuSequence(v, word), definition(v, word))
          << std::hexfloat << v << " word " << std::hex << word;
}

} // namespace
