//===- GemmSplitKTest.cpp - qs.gemm_split_k = "auto" ----------------------===//
//
// The split the GEMM plan picks by itself (chooseSplitK): always a divisor
// of the k-tiles of at most kMaxAutoSplitK, the model's fastest; none for
// grids that fill the chip, none where a persistent grid is no wider than
// the tiles, a split for small M with long K, and the H200's measured
// decisions (the model's constants are fitted to them). What "auto" picks
// (chooseKSplit): stream-K where the last wave is mostly empty and where
// it beats the fused split, never where its rules exclude it. Where the
// GEMM splits without being asked (defaultsToSplitK).
//
//===----------------------------------------------------------------------===//

#include "GemmPlan.h"
#include "Kernels.h"
#include "gtest/gtest.h"
#include <vector>

using namespace mlir::qs;
using namespace mlir::qs::gpuk::gemm;

namespace {

/// A per-tensor FP8 plan with fast_accumulate (or NVFP4 with `fp4`) of M x
/// N x K in 128 x `tileN` tiles, as emitGemm makes it.
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

/// The sm_90a kernels the H200 timed: per-tensor with fast_accumulate,
/// per-tensor promoting (the split accumulator), FP8 1x128 x 128x128.
enum class Family { Fast, Promoting, Block };
GemmPlan makePlan(int64_t m, int64_t n, int64_t k, Family family) {
  GemmPlan p = makePlan(m, n, k);
  p.splitAccumulator = family == Family::Promoting;
  if (family == Family::Block) {
    p.a.blockDim = 1;
    p.b.blockDim = 2;
  }
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
  // 32 tiles of 132 multiprocessors with 112 k-tiles: a split fills the
  // grid closer to one wave.
  GemmPlan deep = makePlan(128, 4096, 14336);
  EXPECT_EQ(chooseSplitK(deep), 2);
  expectFastest(deep);
  // The split's units stay within one wave.
  EXPECT_LE(deep.tiles() * chooseSplitK(deep), kSMs);
}

TEST(GemmSplitK, MeasuredOnTheH200) {
  // The model's constants are fitted to these times of the H200 run of
  // 2026-12-04 (docs/performance.md, microseconds, the kernel and the
  // reduction): whether the split beat one block per tile, the model
  // agrees in every case, and its times are within 16% of the measured.
  struct Case {
    int64_t m, n, k;
    Family family;
    int64_t s;
    double unsplit, split;
  };
  const Case cases[] = {
      {128, 4096, 14336, Family::Block, 4, 71.6, 34.4},
      {128, 4096, 14336, Family::Fast, 4, 42.1, 27.8},
      {128, 8192, 8192, Family::Block, 2, 45.7, 36.4},
      {128, 8192, 8192, Family::Fast, 2, 28.4, 29.9},
      {256, 4096, 4096, Family::Promoting, 2, 18.3, 16.7},
      {256, 4096, 4096, Family::Block, 2, 22.7, 19.6},
      {256, 4096, 4096, Family::Fast, 2, 16.6, 15.8},
  };
  for (const Case &c : cases) {
    GemmPlan plan = makePlan(c.m, c.n, c.k, c.family);
    double unsplit = modelGemmMicros(plan, 1);
    double split = modelGemmMicros(plan, c.s);
    EXPECT_EQ(split < unsplit, c.split < c.unsplit)
        << c.m << "x" << c.n << "x" << c.k << " S = " << c.s;
    EXPECT_NEAR(unsplit / c.unsplit, 1.0, 0.16) << c.m << "x" << c.n;
    EXPECT_NEAR(split / c.split, 1.0, 0.16) << c.m << "x" << c.n;
    // And what it picks splits where a split was faster; by default only
    // where one was, and wherever one was more than 20% faster.
    EXPECT_EQ(chooseSplitK(plan) > 1, c.split < c.unsplit)
        << c.m << "x" << c.n << "x" << c.k;
    if (chooseDefaultSplitK(plan) > 1)
      EXPECT_LT(c.split, c.unsplit) << c.m << "x" << c.n << "x" << c.k;
    if (c.split < 0.8 * c.unsplit)
      EXPECT_GT(chooseDefaultSplitK(plan), 1)
          << c.m << "x" << c.n << "x" << c.k;
    expectFastest(plan);
  }
}

TEST(GemmSplitK, ShortKDoesNotPayForTheReduction) {
  // One tile of 4 k-tiles: halving them saves less than the reduction
  // kernel's launch costs.
  GemmPlan plan = makePlan(128, 128, 512);
  EXPECT_EQ(chooseSplitK(plan), 1);
  expectFastest(plan);
  EXPECT_LT(modelGemmMicros(plan, 1), modelGemmMicros(plan, 2));
}

TEST(GemmSplitK, OperandsStreamAtAFloor) {
  // 128 x 8192 x 8192 with fast_accumulate: 64 tiles on half the chip
  // already read the 64 MiB of B at the rate the operands come in; a
  // split would only add its planes (measured: 28.4 us unsplit, 29.9 in
  // two splits). The FP8 block kernel, slower per k-tile, does split.
  GemmPlan fast = makePlan(128, 8192, 8192, Family::Fast);
  EXPECT_EQ(chooseSplitK(fast), 1);
  EXPECT_EQ(modelGemmMicros(fast, 1), modelGemmMicros(fast, 1));
  GemmPlan block = makePlan(128, 8192, 8192, Family::Block);
  EXPECT_EQ(chooseSplitK(block), 2);
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
  EXPECT_EQ(chooseSplitK(full), 2);
}

TEST(GemmSplitK, Multiprocessors) {
  // The plan's multiprocessors (EmitOptions::multiprocessors) set the wave
  // width: 32 FP8 block tiles of 112 k-tiles make 128 units (one wave) on
  // 132, 224 (two full waves) on 114, 64 (one wave) on 64.
  GemmPlan plan = makePlan(128, 4096, 14336, Family::Block);
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
  // sm_100a NVFP4 k-tiles are 256 wide: K = 32768 is 128 k-tiles; 8 tiles
  // of 148 multiprocessors split in four. 32 tiles of K = 16384 do not:
  // their 32 MiB of B take longer to stream in than the k-tiles on 32
  // multiprocessors.
  GemmPlan fp4 = makePlan(128, 1024, 32768, 128, true, true);
  EXPECT_EQ(fp4.kTiles(), 128);
  EXPECT_EQ(chooseSplitK(fp4), 4);
  expectFastest(fp4);
  GemmPlan streamed = makePlan(128, 4096, 16384, 128, true, true);
  EXPECT_EQ(chooseSplitK(streamed), 1);
  expectFastest(streamed);
  EXPECT_EQ(chooseSplitK(makePlan(8192, 8192, 8192, 256, true)), 1);
}

} // namespace

namespace {
TEST(GemmSplitK, FusedReductionSumsOnOneMultiprocessor) {
  // qs.gemm_split_k_reduce = "fused": no second launch, but each tile's
  // last unit sums its S planes itself, at one multiprocessor's share of
  // the HBM bandwidth. One tile of 32 k-tiles splits 16 ways with the
  // reduction kernel (spread over the chip) and not at all fused (one unit
  // would read 16 planes, 1 MiB, alone); FP8 block 128 x 8192 x 8192 (64
  // tiles of 64 k-tiles) splits in 2 either way; grids that fill the chip
  // do not split. S = 1 costs the same in both modes. The fused 2-split
  // of 256 x 4096 x 4096 that the H200 timed (18.5 us against 16.6
  // unsplit and 15.8 with the reduction kernel) is not chosen.
  GemmPlan one = makePlan(128, 128, 4096);
  GemmPlan oneFused = one;
  oneFused.fusedReduce = true;
  EXPECT_EQ(chooseSplitK(one), 16);
  EXPECT_EQ(chooseSplitK(oneFused), 1);
  expectFastest(oneFused);
  EXPECT_GT(modelGemmMicros(oneFused, 16), modelGemmMicros(one, 16));
  EXPECT_LT(modelGemmMicros(oneFused, 2), modelGemmMicros(oneFused, 4));
  EXPECT_EQ(modelGemmMicros(oneFused, 1), modelGemmMicros(one, 1));
  GemmPlan wide = makePlan(128, 8192, 8192, Family::Block);
  wide.fusedReduce = true;
  EXPECT_EQ(chooseSplitK(wide), 2);
  expectFastest(wide);
  GemmPlan timed = makePlan(256, 4096, 4096, Family::Fast);
  timed.fusedReduce = true;
  EXPECT_EQ(chooseSplitK(timed), 1);
  GemmPlan full = makePlan(4096, 4096, 4096);
  full.fusedReduce = true;
  EXPECT_EQ(chooseSplitK(full), 1);
}

/// Every split the kernels can run (divisors of the k-tiles up to the
/// limit).
std::vector<int64_t> splits(const GemmPlan &plan) {
  std::vector<int64_t> all;
  for (int64_t s = 1; s <= std::min(kMaxAutoSplitK, plan.kTiles()); ++s)
    if (plan.kTiles() % s == 0)
      all.push_back(s);
  return all;
}

TEST(GemmSplitK, StreamKForAPartlyEmptyLastWave) {
  // 8192^3 in 128x128 tiles: 4096 tiles are 31.03 waves of 132, the last
  // one 4 tiles. Stream-K's 132 blocks share the last 136 tiles' k-tiles
  // (65-66 each) and then compute 30 whole tiles each: faster in the model
  // than every split and than none.
  GemmPlan plan = makePlan(8192, 8192, 8192);
  KSplit split = chooseKSplit(plan, true);
  EXPECT_TRUE(split.streamK);
  EXPECT_EQ(split.splitK, 1);
  GemmPlan streamed = withStreamK(plan);
  EXPECT_EQ(streamed.blocks(), kSMs);
  EXPECT_EQ(streamed.streamKTiles(), 136);
  for (int64_t s : splits(plan))
    EXPECT_LT(modelStreamKMicros(streamed), modelGemmMicros(plan, s))
        << "S = " << s;
  // Where stream-K's rules exclude it: the split model alone.
  split = chooseKSplit(plan, false);
  EXPECT_FALSE(split.streamK);
  EXPECT_EQ(split.splitK, chooseSplitK(plan));
  // 4096^3: 1024 tiles, 7.76 waves. Stream-K would save 7 of each block's
  // 256 k-tiles, less than its planes cost.
  GemmPlan square = makePlan(4096, 4096, 4096);
  EXPECT_FALSE(chooseKSplit(square, true).streamK);
  EXPECT_GT(modelStreamKMicros(withStreamK(square)),
            modelGemmMicros(square, 1));
  // A grid that divides the tiles (32 multiprocessors, 1024 tiles) has no
  // stream-K tiles: the persistent kernel, nothing to choose.
  square.sms = 32;
  GemmPlan divided = withStreamK(square);
  EXPECT_FALSE(divided.streamsK());
  EXPECT_FALSE(chooseKSplit(square, true).streamK);
  EXPECT_EQ(modelStreamKMicros(divided), modelGemmMicros(divided, 1));
  // One tile of 32 k-tiles: stream-K would give them to 32 blocks, one of
  // which would sum 32 planes alone; the 16-way split wins.
  split = chooseKSplit(makePlan(128, 128, 4096), true);
  EXPECT_FALSE(split.streamK);
  EXPECT_EQ(split.splitK, 16);
  // A persistent grid asked for is stream-K's grid.
  EXPECT_EQ(
      withStreamK(makePlan(8192, 8192, 8192, 128, false, false, 100)).blocks(),
      100);
}

TEST(GemmSplitK, StreamKAgainstFusedSplit) {
  // 5 tiles of 48 k-tiles on 4 multiprocessors (test_gemm_split_k_auto's
  // stream-K case): with the fused reduction stream-K (4 blocks of 60
  // k-tiles, 2 planes per shared tile) beats every fused split, whose
  // last units sum S planes each; with the reduction kernel the 2-way
  // split (10 units, 3 waves of 24 k-tiles) is faster still.
  GemmPlan plan = makePlan(128, 640, 6144);
  plan.sms = 4;
  plan.fusedReduce = true;
  EXPECT_TRUE(chooseKSplit(plan, true).streamK);
  for (int64_t s : splits(plan))
    EXPECT_LT(modelStreamKMicros(withStreamK(plan)), modelGemmMicros(plan, s))
        << "S = " << s;
  plan.fusedReduce = false;
  KSplit split = chooseKSplit(plan, true);
  EXPECT_FALSE(split.streamK);
  EXPECT_EQ(split.splitK, 2);
}
} // namespace

namespace {
/// GEMM operands of M x N x K (per-tensor, or MXFP8 with `mx`), no kernel
/// options.
/// `mx`: MXFP8 operands (K-major), 1 converted to bf16 (the default),
/// 2 promoted per 32-block (qs.gemm_mx_scaling = "promote").
mlir::qs::gpuk::GemmOperands makeOperands(int64_t m, int64_t n, int64_t k,
                                          int mx = 0) {
  mlir::qs::gpuk::GemmOperands o;
  o.m = m;
  o.n = n;
  o.k = k;
  o.a.blockDim = o.b.blockDim = mx ? 3 : 0;
  o.mxPromote = mx == 2;
  return o;
}

TEST(GemmSplitK, ByDefault) {
  using mlir::qs::gpuk::defaultsToSplitK;
  // sm_90a, 32 tiles of 132 multiprocessors: the model decides.
  EXPECT_TRUE(defaultsToSplitK(makeOperands(128, 4096, 14336), 90, 0));
  // Tiles that fill the chip, one k-tile, sm_100a (unmeasured): never.
  EXPECT_FALSE(defaultsToSplitK(makeOperands(8192, 8192, 8192), 90, 0));
  EXPECT_FALSE(defaultsToSplitK(makeOperands(128, 4096, 128), 90, 0));
  EXPECT_FALSE(defaultsToSplitK(makeOperands(128, 4096, 14336), 100, 0));
  // 132 tiles of 128x128 fill 132 multiprocessors, not 133; promoted
  // MXFP8's 128x64 tiles count double, converted MXFP8's 128x128 do not.
  EXPECT_FALSE(defaultsToSplitK(makeOperands(128, 132 * 128, 4096), 90, 0));
  EXPECT_TRUE(defaultsToSplitK(makeOperands(128, 132 * 128, 4096), 90, 133));
  EXPECT_FALSE(defaultsToSplitK(makeOperands(128, 66 * 128, 4096, 2), 90, 0));
  EXPECT_TRUE(defaultsToSplitK(makeOperands(128, 65 * 128, 4096, 2), 90, 0));
  EXPECT_TRUE(defaultsToSplitK(makeOperands(128, 131 * 128, 4096, 1), 90, 0));
  EXPECT_FALSE(defaultsToSplitK(makeOperands(128, 132 * 128, 4096, 1), 90, 0));
  // Kernel options that fix the grid or the epilogue.
  for (int option = 0; option < 5; ++option) {
    mlir::qs::gpuk::GemmOperands o = makeOperands(128, 4096, 14336);
    o.persistentBlocks = option == 0 ? 132 : 0;
    o.pingpong = option == 1;
    o.clusterSize = option == 2 ? 2 : 1;
    o.tmaStore = option == 3;
    o.fusedReduce = option == 4;
    EXPECT_FALSE(defaultsToSplitK(o, 90, 0)) << "option " << option;
  }
}
} // namespace

TEST(GemmSplitK, SixteenBitOperands) {
  // MXFP8 / NVFP4 dequantized by pre-passes (GemmPlan::sixteenBit): the
  // per-tensor kernel on 64-element k-tiles of 128-byte rows, twice FP8's
  // k-tiles and bytes; each k-tile charged the FP8 fast k-tile's time
  // (half the elements at half the rate), the operands twice the bytes.
  GemmPlan fp8 = makePlan(8192, 8192, 8192, 256);
  GemmPlan wide = fp8;
  wide.sixteenBitType = "bf16";
  EXPECT_EQ(wide.kTileElems(), 64);
  EXPECT_EQ(wide.rowBytes(), fp8.rowBytes());
  EXPECT_EQ(wide.tileBytes(), fp8.tileBytes());
  EXPECT_EQ(wide.pitch(), 2 * fp8.pitch());
  EXPECT_EQ(wide.kTiles(), 2 * fp8.kTiles());
  // K ending inside a k-tile: 1056 = 16.5 64-element k-tiles.
  wide.k = 1056;
  EXPECT_EQ(wide.kTiles(), 17);
  // So the model sees the FP8 GEMM with twice the K (the same k-tiles
  // and operand bytes).
  wide.k = 8192;
  GemmPlan twiceK = makePlan(8192, 8192, 16384, 256);
  EXPECT_DOUBLE_EQ(modelGemmMicros(wide, 1), modelGemmMicros(twiceK, 1));
  EXPECT_GT(modelGemmMicros(wide, 1), 1.9 * modelGemmMicros(fp8, 1));
  EXPECT_EQ(chooseSplitK(wide), 1);
  // 128 x 8192 x 8192: the operands' bytes (twice FP8's) set the floor.
  GemmPlan thin = makePlan(128, 8192, 8192);
  GemmPlan thinWide = thin;
  thinWide.sixteenBitType = "f16";
  EXPECT_GT(modelGemmMicros(thinWide, 1), modelGemmMicros(thin, 1));
}
