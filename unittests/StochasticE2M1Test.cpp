//===- StochasticE2M1Test.cpp - the GPU's stochastic E2M1 sequence --------===//
//
// KernelEnv::encodeE2M1StochasticBytes computes stochastically rounded
// E2M1 codes on the GPU, eight per 32-bit word: per value a = min(|v|, 6),
// a' = mul.rp(a, 2^-126) (a subnormal a' rounded up), the field 4 bits(a')
// + prmt(~word, 0x7FFF, 0x7k54) whose byte 3 is the magnitude; then byte
// permutes gather the magnitudes and the signs (prmt's sign mode) into the
// word. The emulation cannot run the upward rounding (it computes bits(a')
// as integers instead). This test runs the GPU's sequence on the host, in
// the rounding mode it names (fesetround) and with prmt.b32 as the PTX ISA
// defines it, against the definition of StochasticRounding.h written out
// plainly: random f32 bit patterns and bytes, values on the grid's runs
// with bytes at and next to their thresholds, every byte in every
// position, random words of eight values, and the specials.
//
//===----------------------------------------------------------------------===//

#include "PtxModel.h"
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#pragma STDC FENV_ACCESS ON

namespace {

using qs_test::prmt;

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

/// The GPU's instructions for one value (KernelEnv::e2m1StochasticField):
/// min.f32, mul.rp.f32 by 2^-126 (subnormals kept), prmt.b32 of the
/// complemented word's byte k into 0x00007FFF, a multiply-add.
uint32_t gpuField(float v, uint32_t notWord, int k) {
  // min.f32: the other operand for any NaN, signaling ones too (which the
  // kernels never see: v is a product), where fmin may return NaN.
  volatile float a = std::isnan(v) ? 6.0f : std::fmin(std::fabs(v), 6.0f);
  std::fesetround(FE_UPWARD);
  volatile float scaled = a * 0x1p-126f;
  std::fesetround(FE_TONEAREST);
  return bitsOf(scaled) * 4 + prmt(notWord, 0x00007FFFu, 0x7054u | k << 8);
}

/// The GPU's word of eight codes: value i takes byte i mod 4 of word i / 4;
/// the sign bits are the values' own (NaN's clear: the GPU's f32 results'
/// NaN is 0x7FFFFFFF).
uint32_t gpuWord(const float (&v)[8], const uint32_t (&words)[2]) {
  uint32_t field[8], sign[8];
  for (int i = 0; i < 8; ++i) {
    field[i] = gpuField(v[i], ~words[i / 4], i % 4);
    sign[i] = std::isnan(v[i]) ? 0x7FFFFFFFu : bitsOf(v[i]);
  }
  auto gather = [](const uint32_t *x, uint32_t sel) {
    return prmt(prmt(x[0], x[2], sel), prmt(x[4], x[6], sel), 0x5410u);
  };
  uint32_t even = gather(field, 0x7373u), odd = gather(field + 1, 0x7373u);
  uint32_t evenSign = gather(sign, 0xFBFBu),
           oddSign = gather(sign + 1, 0x7373u);
  return (odd * 16 + even) | (evenSign & 0x08080808u) | (oddSign & 0x80808080u);
}

/// Code k (0-3) of a word of eight copies of v, both rng words `word`; the
/// copy at k + 4 must agree.
unsigned gpuSequence(float v, uint32_t word, int k) {
  float values[8];
  std::fill(values, values + 8, v);
  uint32_t code = gpuWord(values, {word, word});
  unsigned low = (code >> (4 * k)) & 0xF, high = (code >> (4 * k + 16)) & 0xF;
  EXPECT_EQ(low, high) << std::hexfloat << v;
  return low;
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

TEST(StochasticE2M1, Words) {
  // Eight different values per word, random words: each code in its own
  // nibble, the even and odd codes' sign paths together.
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> magnitude(0.0f, 7.0f);
  for (int i = 0; i < 500000; ++i) {
    float v[8];
    for (float &x : v)
      x = rng() % 8 == 0 ? fromBits(static_cast<uint32_t>(rng()))
                         : magnitude(rng) * (rng() & 1 ? -1.0f : 1.0f);
    uint32_t words[2] = {static_cast<uint32_t>(rng()),
                         static_cast<uint32_t>(rng())};
    uint32_t code = gpuWord(v, words);
    for (int j = 0; j < 8; ++j)
      ASSERT_EQ((code >> (4 * j)) & 0xF,
                definition(v[j], byteOf(words[j / 4], j % 4)))
          << std::hexfloat << v[j] << " at " << j << " words " << std::hex
          << words[0] << " " << words[1];
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
