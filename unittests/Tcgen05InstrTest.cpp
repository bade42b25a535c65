//===- Tcgen05InstrTest.cpp - tcgen05 instruction descriptors -------------===//
//
// The sm_100a GEMM kernel's instruction descriptors against the field
// positions of the PTX ISA tables ("Instruction descriptor format":
// .kind::f8f6f4, .kind::mxf8f6f4, .kind::mxf4nvf4), written out bit by bit
// here, and the decoder the CPU emulation uses.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "gtest/gtest.h"

using namespace mlir::qs::gpuk::gemm;

namespace {

uint32_t bits(uint32_t value, unsigned lo) { return value << lo; }

TEST(Tcgen05Instr, PerTensorF8F6F4) {
  Tcgen05Instr d;
  d.blockScaled = false;
  d.typeA = 1; // E5M2
  d.typeB = 0; // E4M3
  d.scaleE8M0 = false;
  d.m = 128;
  d.n = 256;
  d.mnMajorB = true;
  // dtype F32 (4-5), atype (7-9), btype (10-12), transpose B (16), N >> 3
  // (17-22), M >> 4 (24-28).
  uint32_t want = bits(1, 4) | bits(1, 7) | bits(0, 10) | bits(1, 16) |
                  bits(256 >> 3, 17) | bits(128 >> 4, 24);
  EXPECT_EQ(d.encode(), want);
  Tcgen05Instr back = Tcgen05Instr::decode(want, /*blockScaled=*/false);
  EXPECT_EQ(back.m, 128);
  EXPECT_EQ(back.n, 256);
  EXPECT_EQ(back.typeA, 1u);
  EXPECT_EQ(back.dType, 1u);
  EXPECT_TRUE(back.mnMajorB);
  EXPECT_FALSE(back.mnMajorA);
}

TEST(Tcgen05Instr, MXF8F6F4) {
  for (unsigned id = 0; id < 4; ++id) {
    Tcgen05Instr d;
    d.m = 128;
    d.n = 128;
    d.typeA = 0;
    d.typeB = 1;
    d.mnMajorA = true;
    d.sfIdA = id;
    d.sfIdB = 3 - id;
    // B scale-factor id (4-5), atype, btype, transpose A (15), N >> 3,
    // UE8M0 (23), M >> 7 (27-28), A scale-factor id (29-30); bits 0-3, 6,
    // 24-26 and 31 reserved.
    uint32_t want = bits(3 - id, 4) | bits(0, 7) | bits(1, 10) | bits(1, 15) |
                    bits(128 >> 3, 17) | bits(1, 23) | bits(128 >> 7, 27) |
                    bits(id, 29);
    EXPECT_EQ(d.encode(), want) << "scale-factor id " << id;
    EXPECT_EQ(d.encode() & (0xFu | bits(1, 6) | bits(7, 24) | bits(1, 31)),
              0u);
    Tcgen05Instr back = Tcgen05Instr::decode(want, /*blockScaled=*/true);
    EXPECT_EQ(back.sfIdA, id);
    EXPECT_EQ(back.sfIdB, 3 - id);
    EXPECT_EQ(back.m, 128);
    EXPECT_TRUE(back.scaleE8M0);
  }
}

TEST(Tcgen05Instr, MXF4NVF4) {
  Tcgen05Instr d;
  d.m = 256;
  d.n = 128;
  d.typeA = d.typeB = 1; // E2M1
  d.scaleE8M0 = false;   // UE4M3
  // atype E2M1 (7-9), btype E2M1 (10-11; 12 reserved), UE4M3 (23 = 0),
  // M >> 7 (27-28), scale-factor ids 0 (scale_vec::4X), K = 64 (31 = 0).
  uint32_t want =
      bits(1, 7) | bits(1, 10) | bits(128 >> 3, 17) | bits(256 >> 7, 27);
  EXPECT_EQ(d.encode(), want);
  Tcgen05Instr back = Tcgen05Instr::decode(want, /*blockScaled=*/true);
  EXPECT_EQ(back.m, 256);
  EXPECT_FALSE(back.scaleE8M0);
}

} // namespace
