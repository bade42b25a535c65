//===- GemmSplitKTest.cpp - qs.gemm_split_k = "auto" ----------------------===//
//
// The split the GEMM plan picks by itself (chooseSplitK): always a divisor
// of the k-tiles of at most kMaxAutoSplitK, the model's fastest; none for
// grids that fill the chip, none where a persistent grid is no wider than
// the tiles, a split for small M with long K.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "gtest/gtest.h"

using namespace mlir::qs;
using namespace mlir::qs::gpuk::gemm;

namespace {

/// A per-tensor FP8 plan (or NVFP4 with `fp4`) of M x N x K in 128 x
/// `tileN` tiles, as emitGemm makes it.
GemmPlan makePlan(int64_t m, int64_t n, int64_t k, int64_t tileN = 128,
                  bool tcgen05 = false, bool fp4 = false,
                  int64_t persistent = 0) {
  GemmPlan p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.tcgen05 = tcgen05;
  p.a.blockDim = p.b.blockDim = fp4 ? 4 : 0;
  p.tileN = tileN;
  p.tilesM = ceilDiv(m, kTileM);
  p.tilesN = ceilDiv(n, tileN);
  p.persistentBlocks = persistent;
  return p;
}

/// chooseSplitK's answer is the model's fastest divisor.
void expectFastest(const GemmPlan &plan) {
  int64_t chosen = chooseSplitK(plan);
  ASSERT_GE(chosen, 1);
  ASSERT_LE(chosen, kMaxAutoSplitK);
  EXPECT_EQ(plan.kTiles() % chosen, 0);
  for (int64_t s = 1; s <= std::min(kMaxAutoSplitK, plan.kTiles()); ++s)
    if (plan.kTiles() % s == 0)
      EXPECT_LE(modelGemmMicros(plan, chosen), modelGemmMicros(plan, s))
          << "S = " << s << " beats the chosen S = " << chosen;
}

TEST(GemmSplitK, FullGridsDoNotSplit) {
  // 8192^3 in 128x256 tiles: 2048 tiles; 4096^3 in 128x128: 1024.
  for (const GemmPlan &plan : {makePlan(8192, 8192, 8192, 256),
                               makePlan(4096, 4096, 4096),
                               makePlan(8192, 4096, 14336)}) {
    EXPECT_EQ(chooseSplitK(plan), 1) << plan.m << "x" << plan.n;
    expectFastest(plan);
  }
}

TEST(GemmSplitK, SmallMLongKSplits) {
  // 64 and 32 tiles of 132 multiprocessors with 64 and 112 k-tiles: each
  // split fills the grid closer to one wave.
  GemmPlan wide = makePlan(128, 8192, 8192);
  EXPECT_EQ(chooseSplitK(wide), 2);
  expectFastest(wide);
  GemmPlan deep = makePlan(128, 4096, 14336);
  EXPECT_EQ(chooseSplitK(deep), 4);
  expectFastest(deep);
  // The split's units stay within one wave.
  EXPECT_LE(deep.tiles() * chooseSplitK(deep), kSMs);
}

TEST(GemmSplitK, ShortKDoesNotPayForItsPlanes) {
  // 64 tiles of 32 k-tiles: half the chip idle, but halving 32 k-tiles
  // saves less than the 16 MiB of FP32 planes through HBM and a second
  // launch cost.
  GemmPlan plan = makePlan(256, 4096, 4096);
  EXPECT_EQ(chooseSplitK(plan), 1);
  expectFastest(plan);
  EXPECT_LT(modelGemmMicros(plan, 1), modelGemmMicros(plan, 2));
}

TEST(GemmSplitK, OnlyDivisorsUpToTheLimit) {
  // 127 k-tiles (prime, above the limit): no split the kernels can run.
  GemmPlan prime = makePlan(128, 1024, 127 * 128);
  EXPECT_EQ(chooseSplitK(prime), 1);
  // 99 k-tiles (9 x 11) over 8 tiles: 9 or 11, never 3 x 33.
  GemmPlan odd = makePlan(128, 1024, 99 * 128);
  int64_t chosen = chooseSplitK(odd);
  EXPECT_EQ(99 % chosen, 0);
  EXPECT_GT(chosen, 1);
  EXPECT_LE(chosen, kMaxAutoSplitK);
  expectFastest(odd);
  // One k-tile: nothing to split.
  EXPECT_EQ(chooseSplitK(makePlan(128, 128, 128)), 1);
}

TEST(GemmSplitK, PersistentGridWidth) {
  // A persistent grid of 32 blocks over 32 tiles has no idle blocks to
  // give split units to; 132 blocks have.
  GemmPlan narrow = makePlan(128, 4096, 14336, 128, false, false, 32);
  EXPECT_EQ(chooseSplitK(narrow), 1);
  GemmPlan full = makePlan(128, 4096, 14336, 128, false, false, kSMs);
  EXPECT_EQ(chooseSplitK(full), 4);
}

TEST(GemmSplitK, Multiprocessors) {
  // The plan's multiprocessors (EmitOptions::multiprocessors) set the wave
  // width: 32 tiles of 112 k-tiles make 128 units (one wave) on 132, 224
  // (two full waves) on 114, 64 (one wave) on 64.
  GemmPlan plan = makePlan(128, 4096, 14336);
  EXPECT_EQ(plan.multiprocessors(), kSMs);
  EXPECT_EQ(chooseSplitK(plan), 4);
  plan.sms = 114;
  EXPECT_EQ(chooseSplitK(plan), 7);
  expectFastest(plan);
  plan.sms = 64;
  EXPECT_EQ(chooseSplitK(plan), 2);
  expectFastest(plan);
  // A GPU with as many multiprocessors as tiles has none idle.
  plan.sms = 32;
  EXPECT_EQ(chooseSplitK(plan), 1);
}

TEST(GemmSplitK, Blackwell) {
  // sm_100a NVFP4 k-tiles are 256 wide: K = 16384 is 64 k-tiles; 32 tiles
  // of 148 multiprocessors split in four.
  GemmPlan fp4 = makePlan(128, 4096, 16384, 128, true, true);
  EXPECT_EQ(fp4.kTiles(), 64);
  EXPECT_EQ(chooseSplitK(fp4), 4);
  expectFastest(fp4);
  EXPECT_EQ(chooseSplitK(makePlan(8192, 8192, 8192, 256, true)), 1);
}

} // namespace

namespace {
TEST(GemmSplitK, FusedReductionHasNoSecondLaunch) {
  // qs.gemm_split_k_reduce = "fused": the model drops the reduction
  // kernel's launch, so 256 x 4096 x 4096 (64 tiles, 32 k-tiles), which
  // does not pay for a second kernel, splits in 2; the planes' traffic is
  // still charged, and grids that fill the chip still do not split.
  GemmPlan plan = makePlan(256, 4096, 4096);
  EXPECT_EQ(chooseSplitK(plan), 1);
  plan.fusedReduce = true;
  EXPECT_EQ(chooseSplitK(plan), 2);
  expectFastest(plan);
  EXPECT_LT(modelGemmMicros(plan, 2),
            modelGemmMicros(makePlan(256, 4096, 4096), 2));
  EXPECT_EQ(modelGemmMicros(plan, 1),
            modelGemmMicros(makePlan(256, 4096, 4096), 1));
  GemmPlan full = makePlan(4096, 4096, 4096);
  full.fusedReduce = true;
  EXPECT_EQ(chooseSplitK(full), 1);
}
} // namespace
