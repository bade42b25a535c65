//===- StreamKTest.cpp - qs.gemm_split_k = "stream" -----------------------===//
//
// The stream-K decomposition (StreamKMath, the same template the kernels
// and their emulation instantiate) over many grids and problem sizes: every
// k-tile of every output tile is computed by exactly one segment; each
// block's segments are consecutive k-tiles of its stage ring (tileStart),
// its stream-K range first, then its data-parallel tiles; the blocks'
// stream-K work differs by at most one k-tile; a tile's sharing (how many
// blocks, each one's plane) matches the segments that cover it, planes in
// k order, within GemmPlan::streamKPlanes(); and the arrival protocol over
// those counts (the last of a tile's contributors reduces) gives every
// shared tile exactly one reducer, in every block order.
//
//===----------------------------------------------------------------------===//

#include "GemmPlan.h"
#include "GemmTestPlans.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <map>
#include <random>

using namespace mlir::qs;
using namespace mlir::qs::gpuk::gemm;

namespace {

GemmPlan streamPlan(int64_t tilesM, int64_t tilesN, int64_t kTiles,
                    int64_t blocks) {
  GemmPlan p = tiledPlan(tilesM, tilesN, kTiles, 6);
  p.persistentBlocks = blocks;
  p.streamK = true;
  return p;
}

struct Segment {
  int64_t block, tile, kBase, kCount, contributors, plane;
};

/// Every segment of every block, checking the per-block invariants.
std::vector<Segment> segmentsOf(const GemmPlan &plan) {
  IntegerOps ops;
  StreamKMath<int64_t, IntegerOps> math{plan, ops};
  std::vector<Segment> all;
  int64_t minStream = INT64_MAX, maxStream = 0;
  for (int64_t g = 0; g < plan.blocks(); ++g) {
    int64_t ring = 0, streamed = 0, segments = math.segments(g);
    EXPECT_EQ(segments - plan.dataParallelRounds() >= 1, true);
    for (int64_t s = 0; s < segments; ++s) {
      StreamKSegment<int64_t> seg = math.segment(g, s);
      StreamKSharing<int64_t> share = math.sharing(g, seg.tile);
      // The stage ring counts the block's k-tiles in order.
      EXPECT_EQ(seg.tileStart, ring) << "block " << g << " segment " << s;
      ring += seg.kCount;
      EXPECT_GE(seg.kCount, 1);
      EXPECT_GE(seg.kBase, 0);
      EXPECT_LE(seg.kBase + seg.kCount, plan.kTiles());
      EXPECT_LT(seg.tile, plan.tiles());
      bool streamTile = seg.tile < plan.streamKTiles();
      // Stream-K segments first, then whole data-parallel tiles.
      EXPECT_EQ(streamTile, s < segments - plan.dataParallelRounds());
      if (streamTile)
        streamed += seg.kCount;
      else
        EXPECT_EQ(seg.kCount, plan.kTiles());
      all.push_back({g, seg.tile, seg.kBase, seg.kCount, share.contributors,
                     share.plane});
    }
    minStream = std::min(minStream, streamed);
    maxStream = std::max(maxStream, streamed);
  }
  EXPECT_LE(maxStream - minStream, 1) << "unbalanced stream-K ranges";
  return all;
}

void checkPlan(const GemmPlan &plan) {
  SCOPED_TRACE(testing::Message()
               << plan.tiles() << " tiles x " << plan.kTiles()
               << " k-tiles over " << plan.blocks() << " blocks");
  ASSERT_TRUE(plan.streamsK());
  std::vector<Segment> all = segmentsOf(plan);
  // Coverage: each (tile, k-tile) exactly once.
  std::vector<int> covered(plan.tiles() * plan.kTiles(), 0);
  std::map<int64_t, std::vector<Segment>> byTile;
  for (const Segment &s : all) {
    for (int64_t k = s.kBase; k < s.kBase + s.kCount; ++k)
      ++covered[s.tile * plan.kTiles() + k];
    byTile[s.tile].push_back(s);
  }
  for (int64_t x = 0; x < int64_t(covered.size()); ++x)
    ASSERT_EQ(covered[x], 1) << "tile " << x / plan.kTiles() << " k-tile "
                             << x % plan.kTiles();
  // Sharing: the count of segments, planes 0.. in k order, one block each.
  for (auto &[tile, segs] : byTile) {
    std::sort(segs.begin(), segs.end(), [](const Segment &a, const Segment &b) {
      return a.kBase < b.kBase;
    });
    for (size_t i = 0; i < segs.size(); ++i) {
      EXPECT_EQ(segs[i].contributors, int64_t(segs.size())) << "tile " << tile;
      EXPECT_EQ(segs[i].plane, int64_t(i)) << "tile " << tile;
      EXPECT_LT(segs[i].plane, plan.streamKPlanes());
      if (i)
        EXPECT_GT(segs[i].block, segs[i - 1].block);
    }
  }
  // The fused arrival in random block orders: a shared tile's counter
  // reaches contributors - 1 exactly once, after every plane is stored.
  std::mt19937 rng(plan.tiles() * 7919 + plan.kTiles());
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<Segment> order = all;
    std::shuffle(order.begin(), order.end(), rng);
    std::map<int64_t, int64_t> counter, stored, reducers;
    for (const Segment &s : order) {
      if (s.contributors == 1)
        continue;
      ++stored[s.tile];
      if (counter[s.tile]++ == s.contributors - 1) {
        ++reducers[s.tile];
        EXPECT_EQ(stored[s.tile], s.contributors);
      }
    }
    for (auto &[tile, count] : stored)
      EXPECT_EQ(reducers[tile], 1) << "tile " << tile;
  }
}

TEST(StreamK, Decomposition) {
  // (tiles M, tiles N, k-tiles, blocks): fewer tiles than blocks, one to
  // two waves, many waves with a remainder, one k-tile per tile, blocks
  // with ranges shorter than a tile, H200-sized grids.
  const int64_t cases[][4] = {
      {1, 1, 16, 5},   {1, 3, 4, 7},    {3, 5, 4, 4},    {3, 5, 12, 4},
      {5, 3, 1, 4},    {2, 2, 3, 11},   {7, 9, 5, 8},    {32, 32, 32, 132},
      {32, 16, 32, 132}, {64, 32, 64, 132}, {64, 56, 112, 132},
      {2, 32, 64, 132}, {1, 3, 1, 2},   {9, 1, 2, 2}};
  for (const auto &c : cases)
    checkPlan(streamPlan(c[0], c[1], c[2], c[3]));
  // Every grid up to 24 blocks on a few shapes.
  for (int64_t blocks = 2; blocks <= 24; ++blocks)
    for (const auto &shape : {std::array<int64_t, 3>{3, 5, 4},
                              std::array<int64_t, 3>{4, 7, 9},
                              std::array<int64_t, 3>{1, 2, 13}}) {
      GemmPlan plan = streamPlan(shape[0], shape[1], shape[2], blocks);
      if (plan.streamsK())
        checkPlan(plan);
    }
}

TEST(StreamK, RegionAndGrid) {
  // Many waves: the last G + T mod G tiles; fewer tiles than two waves:
  // all; a grid dividing the tiles: none (plain persistent tiles).
  EXPECT_EQ(streamPlan(32, 32, 32, 132).streamKTiles(), 132 + 1024 % 132);
  EXPECT_EQ(streamPlan(32, 32, 32, 132).dataParallelRounds(), 6);
  EXPECT_EQ(streamPlan(8, 16, 32, 132).streamKTiles(), 128);
  EXPECT_EQ(streamPlan(8, 16, 32, 132).blocks(), 132);
  EXPECT_FALSE(streamPlan(3, 4, 8, 6).streamsK());
  // The arrival's flag word lies inside the block's shared memory (it is
  // past the ring's barriers); a plan without shared tiles has none.
  GemmPlan shared = streamPlan(32, 32, 32, 132);
  EXPECT_TRUE(shared.arrives());
  EXPECT_LE(shared.lastUnitFlagOffset() + 16, shared.sharedBytes());
  EXPECT_EQ(streamPlan(3, 4, 8, 6).sharedBytes(),
            streamPlan(3, 4, 8, 6).lastUnitFlagOffset());
  // At most one block per k-tile of the GEMM.
  EXPECT_EQ(streamPlan(1, 1, 5, 132).blocks(), 5);
  // Ranges of at least a tile share a tile between at most two blocks.
  EXPECT_EQ(streamPlan(32, 32, 32, 132).streamKPlanes(), 2);
  EXPECT_TRUE(streamPlan(64, 64, 1024, 132).streamKFits32());
}

} // namespace
