//===- LayoutTest.cpp - inner-tensor layouts against te-formats.md --------===//
//
// Checks QuantizerAttrInterface::getInnerTensors against the tables of
// te-formats.md §7.5 and the layout formulas of §2.b-§5.b, and the swizzle
// offsets of §8.6.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/IR/QSDialect.h"
#include "qs/Dialect/QS/IR/QSTypes.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::qs;

namespace {

class LayoutTest : public ::testing::Test {
protected:
  LayoutTest() { ctx.loadDialect<QSDialect>(); }

  /// "name shape elt" lines of the inner tensors, e.g.
  /// "rowwise_scale_inv 128x4 f8E8M0FNU".
  std::string describe(QuantizerAttrInterface q, ArrayRef<int64_t> shape,
                       StringRef chip = "sm_90a") {
    SmallVector<InnerTensor> inner;
    q.getInnerTensors(shape, *TargetInfo::parse(chip), inner);
    std::string s;
    llvm::raw_string_ostream os(s);
    for (const InnerTensor &t : inner) {
      os << t.name << " ";
      llvm::interleave(t.shape, os, "x");
      os << " " << t.elementType << "\n";
    }
    return s;
  }

  Type e4m3() { return Float8E4M3FNType::get(&ctx); }
  Type e5m2() { return Float8E5M2Type::get(&ctx); }
  llvm::APFloat zero() { return llvm::APFloat(0.0f); }

  MLIRContext ctx;
};

TEST_F(LayoutTest, Fp8CurrentTNOnly) {
  auto q = Fp8CurrentAttr::get(&ctx, e4m3(), true, true, false, zero());
  EXPECT_EQ(describe(q, {4, 8}), "data 4x8 f8E4M3FN\n"
                                 "transpose 8x4 f8E4M3FN\n"
                                 "scale_inv 1 f32\n");
}

TEST_F(LayoutTest, Fp8CurrentNonTN) {
  auto q = Fp8CurrentAttr::get(&ctx, e4m3(), true, true, false, zero());
  EXPECT_EQ(describe(q, {4, 8}, "sm_100a"), "data 4x8 f8E4M3FN\n"
                                            "scale_inv 1 f32\n");
  // The single data buffer serves both usages on non-TN chips.
  auto colOnly = Fp8CurrentAttr::get(&ctx, e4m3(), false, true, false, zero());
  EXPECT_EQ(describe(colOnly, {4, 8}, "sm_100a"), "data 4x8 f8E4M3FN\n"
                                                  "scale_inv 1 f32\n");
  EXPECT_EQ(colOnly.getAvailableUsage(*TargetInfo::parse("sm_100a")),
            Usage::Both);
}

TEST_F(LayoutTest, Fp8DelayedTransposeKeepsLeadingDims) {
  auto q = Fp8DelayedAttr::get(&ctx, e5m2(), false, true);
  EXPECT_EQ(describe(q, {2, 3, 16}), "transpose 16x2x3 f8E5M2\n"
                                     "scale_inv 1 f32\n");
}

TEST_F(LayoutTest, MXFP8) {
  auto q = MXFP8Attr::get(&ctx, e4m3(), true, true, false, false);
  EXPECT_EQ(describe(q, {64, 128}), "rowwise_data 64x128 f8E4M3FN\n"
                                    "rowwise_scale_inv 128x4 f8E8M0FNU\n"
                                    "columnwise_data 64x128 f8E4M3FN\n"
                                    "columnwise_scale_inv 4x128 f8E8M0FNU\n");
  EXPECT_EQ(describe(q, {2, 64, 256}),
            "rowwise_data 2x64x256 f8E4M3FN\n"
            "rowwise_scale_inv 128x8 f8E8M0FNU\n"
            "columnwise_data 2x64x256 f8E4M3FN\n"
            "columnwise_scale_inv 4x256 f8E8M0FNU\n");
}

TEST_F(LayoutTest, Fp8Block2D) {
  auto q = Fp8BlockAttr::get(&ctx, e4m3(), true, true, 2, true, zero());
  EXPECT_EQ(describe(q, {128, 256}), "rowwise_data 128x256 f8E4M3FN\n"
                                     "rowwise_scale_inv 1x4 f32\n"
                                     "columnwise_data 256x128 f8E4M3FN\n"
                                     "columnwise_scale_inv 2x4 f32\n");
}

TEST_F(LayoutTest, Fp8Block1D) {
  auto q = Fp8BlockAttr::get(&ctx, e4m3(), true, true, 1, true, zero());
  EXPECT_EQ(describe(q, {128, 256}), "rowwise_data 128x256 f8E4M3FN\n"
                                     "rowwise_scale_inv 2x128 f32\n"
                                     "columnwise_data 256x128 f8E4M3FN\n"
                                     "columnwise_scale_inv 1x256 f32\n");
  EXPECT_EQ(describe(q, {2, 64, 256}), "rowwise_data 2x64x256 f8E4M3FN\n"
                                       "rowwise_scale_inv 2x128 f32\n"
                                       "columnwise_data 256x2x64 f8E4M3FN\n"
                                       "columnwise_scale_inv 1x256 f32\n");
  // te-formats.md §8.3: M = 300, K = 384 gives a (3, 300) row-wise buffer.
  EXPECT_EQ(describe(q.withUsage(true, false), {300, 384}),
            "rowwise_data 300x384 f8E4M3FN\n"
            "rowwise_scale_inv 3x300 f32\n");
}

TEST_F(LayoutTest, NVFP4) {
  auto q = NVFP4Attr::get(&ctx, true, true, false, false, false, false, false,
                          false, true, false, 448, "MAE");
  EXPECT_EQ(describe(q, {64, 128}), "rowwise_data 64x64 i8\n"
                                    "rowwise_scale_inv 128x8 f8E4M3FN\n"
                                    "columnwise_data 128x32 i8\n"
                                    "columnwise_scale_inv 128x4 f8E4M3FN\n"
                                    "amax_rowwise 1 f32\n"
                                    "amax_columnwise 1 f32\n");
  EXPECT_EQ(describe(q, {2, 64, 256}),
            "rowwise_data 2x64x128 i8\n"
            "rowwise_scale_inv 128x16 f8E4M3FN\n"
            "columnwise_data 256x64 i8\n"
            "columnwise_scale_inv 256x8 f8E4M3FN\n"
            "amax_rowwise 1 f32\n"
            "amax_columnwise 1 f32\n");
}

TEST_F(LayoutTest, NVFP4RowScaled) {
  auto q = NVFP4Attr::get(&ctx, true, true, false, false, false, false, true,
                          false, true, false, 448, "MAE");
  EXPECT_EQ(describe(q, {32, 48}), "rowwise_data 32x24 i8\n"
                                   "rowwise_scale_inv 128x4 f8E4M3FN\n"
                                   "columnwise_data 48x16 i8\n"
                                   "columnwise_scale_inv 128x4 f8E4M3FN\n"
                                   "amax_rowwise 32 f32\n"
                                   "amax_columnwise 48 f32\n");
}

TEST_F(LayoutTest, UsageTransitions) {
  TargetInfo hopper = *TargetInfo::parse("sm_90a");
  auto fp8Row = Fp8CurrentAttr::get(&ctx, e4m3(), true, false, false, zero());
  EXPECT_TRUE(fp8Row.canCreateUsage(Usage::Both, hopper));
  auto fp8Col = Fp8CurrentAttr::get(&ctx, e4m3(), false, true, false, zero());
  EXPECT_FALSE(fp8Col.canCreateUsage(Usage::Rowwise, hopper));
  auto mxRow = MXFP8Attr::get(&ctx, e4m3(), true, false, false, false);
  EXPECT_FALSE(mxRow.canCreateUsage(Usage::Columnwise, hopper));
  EXPECT_TRUE(mxRow.canCreateUsage(Usage::Rowwise, hopper));
  auto block1 = Fp8BlockAttr::get(&ctx, e4m3(), true, false, 1, true, zero());
  EXPECT_FALSE(block1.canCreateUsage(Usage::Columnwise, hopper));
  auto block2 = Fp8BlockAttr::get(&ctx, e4m3(), true, false, 2, true, zero());
  EXPECT_TRUE(block2.canCreateUsage(Usage::Both, hopper));
  auto nv2d = NVFP4Attr::get(&ctx, true, false, false, false, true, false,
                             false, false, true, false, 448, "MAE");
  EXPECT_TRUE(nv2d.canCreateUsage(Usage::Columnwise, hopper));
  auto nv1d = NVFP4Attr::get(&ctx, true, false, false, false, false, false,
                             false, false, true, false, 448, "MAE");
  EXPECT_FALSE(nv1d.canCreateUsage(Usage::Columnwise, hopper));
}

TEST_F(LayoutTest, GemmCompatibility) {
  EXPECT_TRUE(areGemmCompatible(ScalingMode::Block1D, ScalingMode::Block2D));
  EXPECT_TRUE(areGemmCompatible(ScalingMode::Block1D, ScalingMode::Block1D));
  EXPECT_FALSE(areGemmCompatible(ScalingMode::Block2D, ScalingMode::Block2D));
  EXPECT_FALSE(
      areGemmCompatible(ScalingMode::MXFP8_1D, ScalingMode::NVFP4_1D));
  EXPECT_TRUE(areGemmCompatible(ScalingMode::DelayedTensor,
                                ScalingMode::DelayedTensor));
}

TEST(QuantizerMath, Rounding) {
  EXPECT_EQ(ceilDiv(300, 128), 3);
  EXPECT_EQ(ceilDiv(256, 128), 2);
  EXPECT_EQ(roundUp(300, 4), 300);
  EXPECT_EQ(roundUp(301, 4), 304);
  EXPECT_EQ(roundUp(1, 128), 128);
}

TEST(QuantizerMath, Flatten) {
  Flat2D f = flatten2D({2, 64, 256});
  EXPECT_EQ(f.m, 128);
  EXPECT_EQ(f.k, 256);
  Flat2D v = flatten2D({48});
  EXPECT_EQ(v.m, 1);
  EXPECT_EQ(v.k, 48);
  EXPECT_EQ(rotateLastToFront({2, 64, 256}),
            (SmallVector<int64_t, 4>{256, 2, 64}));
}

// te-formats.md §8.6: row-wise MXFP8 scales of M = 256, K = 512 (16 columns).
TEST(QuantizerMath, SwizzleOffsets) {
  EXPECT_EQ(gemmSwizzledScaleOffset(130, 5, 16), 2593);
  EXPECT_EQ(gemmSwizzledScaleOffset(37, 2, 16), 86);
  EXPECT_EQ(gemmSwizzledScaleOffset(1, 0, 4), 16);
  EXPECT_EQ(gemmSwizzledScaleOffset(32, 0, 4), 4);
  EXPECT_EQ(gemmSwizzledScaleOffset(0, 1, 4), 1);
}

} // namespace
