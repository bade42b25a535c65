//===- HalfPairTest.cpp - the dequantize kernel's 16-bit pair arithmetic --===//
//
// Runs on the host the integer sequences that KernelEnv emits for the GPU
// around its packed conversions (KernelDecode.cpp), against their
// definitions:
// * decodeE2M1Word: a code's magnitude at bits 9-11 of an f16 and its sign
//   at bit 15 give the code's value times 2^-14, for codes i and i + 4 of a
//   word at once; every code at every position.
// * packFromF32Pair's NaN fix-up after cvt.rn.{bf16,f16}x2.f32: every half
//   whose magnitude exceeds infinity's becomes the reference's NaN, every
//   other half is kept, for every 16-bit pattern in either half.
//
//===----------------------------------------------------------------------===//

#include "PtxModel.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

using qs_test::prmt;

/// The value of IEEE half bits `h` (exact in double).
double halfValue(uint16_t h) {
  int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double v = e ? std::ldexp(1024 + m, e - 25) : std::ldexp(m, -24);
  return h & 0x8000 ? -v : v;
}

/// The E2M1 values of te-formats.md (codes 0-7; bit 3 the sign).
const double kE2M1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

/// KernelEnv::decodeE2M1Word's bits for codes k and k + 4 of `word`.
uint32_t e2m1PairBits(uint32_t word, int k) {
  int by = 9 - 4 * k, signBy = 12 - 4 * k;
  uint32_t mags = (by >= 0 ? word << by : word >> -by) & 0x0E000E00u;
  uint32_t signs = (word << signBy) & 0x80008000u;
  return mags | signs;
}

TEST(HalfPairTest, E2M1DecodeEveryCodeAtEveryPosition) {
  uint32_t state = 12345;
  for (int position = 0; position < 8; ++position)
    for (uint32_t code = 0; code < 16; ++code)
      for (int trial = 0; trial < 64; ++trial) {
        state = state * 1664525u + 1013904223u;
        uint32_t word =
            (state & ~(0xFu << (4 * position))) | code << (4 * position);
        int k = position % 4;
        uint32_t bits = e2m1PairBits(word, k);
        uint16_t half = position < 4 ? bits & 0xFFFF : bits >> 16;
        double want = kE2M1[code & 7] * (code & 8 ? -1 : 1);
        double got = halfValue(half) * 16384.0;
        ASSERT_EQ(got, want) << "code " << code << " at " << position;
        ASSERT_EQ(std::signbit(got), (code & 8) != 0);
        // The other half holds code position ^ 4's value.
        uint32_t other = (word >> (4 * (position ^ 4))) & 0xF;
        uint16_t otherHalf = position < 4 ? bits >> 16 : bits & 0xFFFF;
        ASSERT_EQ(halfValue(otherHalf) * 16384.0,
                  kE2M1[other & 7] * (other & 8 ? -1 : 1));
      }
}

/// packFromF32Pair's fix-up of a cvt result `w` for a format whose
/// infinity is `inf` and whose NaN is `nan`.
uint32_t fixNaNs(uint32_t w, uint32_t inf, uint32_t nan) {
  uint32_t n = (w | 0x80008000u) - (inf + 1) * 0x10001u;
  uint32_t m = prmt(n, n, 0xBB99u);
  return (w & ~m) | (nan * 0x10001u & m);
}

void checkFix(const mlir::qs::SmallFloatFormat &format) {
  uint32_t inf = ((1u << format.expBits) - 1) << format.manBits;
  uint32_t nan = format.nanCode;
  auto want = [&](uint32_t h) { return (h & 0x7FFF) > inf ? nan : h; };
  const uint32_t others[] = {0,       0x8000, inf,     inf | 0x8000,
                             inf + 1, 0xFFFF, inf - 1, 0x7FFF,
                             0x0001,  0x8001, nan,     0x3C00};
  for (uint32_t h = 0; h < 0x10000; ++h)
    for (uint32_t o : others) {
      uint32_t lo = fixNaNs(o << 16 | h, inf, nan);
      ASSERT_EQ(lo & 0xFFFF, want(h)) << std::hex << h << " low";
      ASSERT_EQ(lo >> 16, want(o)) << std::hex << o << " high";
      uint32_t hi = fixNaNs(h << 16 | o, inf, nan);
      ASSERT_EQ(hi >> 16, want(h)) << std::hex << h << " high";
      ASSERT_EQ(hi & 0xFFFF, want(o)) << std::hex << o << " low";
    }
}

TEST(HalfPairTest, Bf16NaNFixUp) {
  checkFix(mlir::qs::SmallFloatFormat::bf16());
}

TEST(HalfPairTest, F16NaNFixUp) { checkFix(mlir::qs::SmallFloatFormat::f16()); }

} // namespace
