//===- GemmTestPlans.h - GEMM plans for the unit tests ----------*- C++ -*-===//
//
// Plans of whole 128x128 tiles, as the protocol and stream-K tests build
// them (the tests then set the schedule they exercise).
//
//===----------------------------------------------------------------------===//

#ifndef QS_UNITTESTS_GEMMTESTPLANS_H
#define QS_UNITTESTS_GEMMTESTPLANS_H

#include "GemmPlan.h"

namespace mlir::qs::gpuk::gemm {

/// A per-tensor FP8 plan of `tilesM` x `tilesN` 128x128 tiles of `kTiles`
/// k-tiles on a ring of `stages` stages (one block per tile, no split).
inline GemmPlan tiledPlan(int64_t tilesM, int64_t tilesN, int64_t kTiles,
                          int64_t stages) {
  GemmPlan p;
  p.m = tilesM * kTileM;
  p.tileN = 128;
  p.n = tilesN * p.tileN;
  p.k = kTiles * kTileK;
  p.tilesM = tilesM;
  p.tilesN = tilesN;
  p.stages = stages;
  return p;
}

} // namespace mlir::qs::gpuk::gemm

#endif // QS_UNITTESTS_GEMMTESTPLANS_H
