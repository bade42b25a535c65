//===- StochasticE2M1Test.cpp - the GPU's stochastic E2M1 sequence --------===//
//
// KernelEnv::e2m1StochasticParts computes a stochastically rounded E2M1
// magnitude on the GPU as min(cap, min_j sub.rp(C_j, fma.rm(|v|, -c_j,
// F))), F = 128 + (byte + 1/2) 2^-8 built by a byte permute, and the
// emulation cannot run those rounding modes (it steps the nearest sums
// instead). This test runs the GPU's sequence on the host, in the rounding
// modes it names (fesetround), against the definition of
// StochasticRounding.h written out plainly: random f32 bit patterns and
// bytes, values on the grid's runs with bytes at and next to their
// thresholds, every byte, and the specials.
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
/// |v| / s, up iff (byte + 1/2) 2^-8 < t - floor(t); |v| >= 6 and NaN give
/// 7; v's sign (none for NaN).
unsigned definition(float v, uint8_t byte) {
  if (std::isnan(v))
    return 7;
  double a = std::fabs(static_cast<double>(v));
  unsigned magnitude = 7;
  if (a < 6) {
    double s = a < 2 ? 0.5 : a < 4 ? 1 : 2;
    unsigned base = a < 2 ? 0 : a < 4 ? 2 : 4;
    double t = a / s; // exact in double
    double whole = std::floor(t);
    double u = (byte + 0.5) * 0x1p-8;
    magnitude = std::min(
        base + static_cast<unsigned>(whole) + (u < t - whole ? 1u : 0u), 7u);
  }
  return magnitude | (std::signbit(v) ? 8u : 0u);
}

/// The GPU's instructions, in order (prmt.b32 of byte k of `word` into
/// 0x43000080, fma.rm.f32, sub.rp.f32, min.f32); NaN's sign bit is clear
/// on the GPU (its f32 results' NaN is 0x7FFFFFFF).
unsigned gpuSequence(float v, uint32_t word, int k) {
  const float scales[3] = {2.0f, 1.0f, 0.5f};
  const float biases[3] = {0x1p23f + 129, 0x1p23f + 131, 0x1p23f + 133};
  volatile float f = fromBits(0x43000080u | ((word >> (8 * k)) & 0xFFu) << 8);
  volatile float a = std::fabs(v);
  float w = 0.0f;
  for (int j = 0; j < 3; ++j) {
    std::fesetround(FE_DOWNWARD);
    volatile float negZ = std::fma(a, -scales[j], f);
    std::fesetround(FE_UPWARD);
    volatile float wj = biases[j] - negZ;
    std::fesetround(FE_TONEAREST);
    w = j ? std::fmin(w, wj) : wj;
  }
  w = std::fmin(w, 0x1p23f + 8);
  unsigned magnitude = bitsOf(w) - 0x4B000001u;
  return magnitude | (!std::isnan(v) && std::signbit(v) ? 8u : 0u);
}

uint8_t byteOf(uint32_t word, int k) {
  return static_cast<uint8_t>(word >> (8 * k));
}

/// 2M values from `value(rng)` with random words, byte i mod 4 of each.
template <typename ValueFn>
void checkRandomWords(uint32_t seed, ValueFn value) {
  std::mt19937 rng(seed);
  for (int i = 0; i < 2000000; ++i) {
    float v = value(rng);
    uint32_t word = static_cast<uint32_t>(rng());
    int k = i % 4;
    ASSERT_EQ(gpuSequence(v, word, k), definition(v, byteOf(word, k)))
        << std::hexfloat << v << " word " << std::hex << word << " byte " << k;
  }
}

TEST(StochasticE2M1, RandomPatterns) {
  checkRandomWords(2026, [](std::mt19937 &rng) {
    return fromBits(static_cast<uint32_t>(rng()));
  });
}

TEST(StochasticE2M1, ValuesOnTheRuns) {
  std::uniform_real_distribution<float> magnitude(0.0f, 7.0f);
  checkRandomWords(7, [&](std::mt19937 &rng) {
    return magnitude(rng) * (rng() & 1 ? -1.0f : 1.0f);
  });
}

TEST(StochasticE2M1, Thresholds) {
  // v whose fraction t - floor(t) is (b + 1/2) 2^-8, or 1 ulp of v either
  // side: byte b rounds down at the threshold and below it (u = frac is not
  // below frac), up above it; byte b - 1 rounds up, b + 1 down. In byte
  // k of the word, the other bytes random.
  std::mt19937 rng(11);
  int ups = 0, downs = 0;
  for (int i = 0; i < 200000; ++i) {
    unsigned b = rng() % 256;
    unsigned whole = rng() % 12; // t in [0, 12): every run, past 6
    int run = rng() % 3;         // s = 1/2, 1, 2
    double s = run == 0 ? 0.5 : run == 1 ? 1 : 2;
    double a = (whole + (b + 0.5) * 0x1p-8) * s;
    float v = static_cast<float>(a);
    if (static_cast<double>(v) != a || (run == 0   ? a >= 2
                                        : run == 1 ? (a < 2 || a >= 4)
                                                   : a < 4))
      continue; // not in that run
    for (float x : {v, std::nextafter(v, 0.0f), std::nextafter(v, 8.0f)}) {
      for (unsigned byte : {b, b - 1, b + 1}) {
        if (byte > 255)
          continue;
        int k = rng() % 4;
        uint32_t word = static_cast<uint32_t>(rng());
        word = (word & ~(0xFFu << (8 * k))) | byte << (8 * k);
        unsigned want = definition(x, static_cast<uint8_t>(byte));
        ASSERT_EQ(gpuSequence(x, word, k), want)
            << std::hexfloat << x << " word " << std::hex << word;
        ASSERT_EQ(gpuSequence(-x, word, k), want | 8);
        bool up = (want & 7) != (definition(x, 255) & 7);
        (up ? ups : downs) += a < 6;
      }
    }
  }
  EXPECT_GT(ups, 100000);
  EXPECT_GT(downs, 100000);
}

TEST(StochasticE2M1, EveryByte) {
  // Every byte in every position against values across the runs.
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> magnitude(0.0f, 6.5f);
  for (int i = 0; i < 4000; ++i) {
    float v = magnitude(rng);
    for (uint32_t byte = 0; byte < 256; ++byte)
      for (int k = 0; k < 4; ++k) {
        uint32_t word = byte << (8 * k) | (0x5Au << (8 * ((k + 1) % 4)));
        ASSERT_EQ(gpuSequence(v, word, k),
                  definition(v, static_cast<uint8_t>(byte)))
            << std::hexfloat << v << " byte " << byte << " at " << k;
      }
  }
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
      for (int k = 0; k < 4; ++k)
        EXPECT_EQ(gpuSequence(v, word, k), definition(v, byteOf(word, k)))
            << std::hexfloat << v << " word " << std::hex << word << " byte "
            << k;
}

} // namespace
