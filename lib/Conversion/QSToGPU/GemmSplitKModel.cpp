//===- GemmSplitKModel.cpp - the GEMM kernels' time model ----------------===//
//
// The time model that decides how a GEMM's K is shared out (GemmPlan.h):
// one block per output tile, S-way split-K, or stream-K, from per-chip
// k-tile times (sm_90a: fitted to the H200 run of 2026-12-04; sm_100a:
// data-sheet shares), the fixed cost of a work unit, and the floor of the
// operands streaming from HBM (docs/GPU.md, "Split-K or stream-K chosen
// by a cost model"; scripts/fit-split-k.py refits the constants).
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "Kernels.h"
#include <algorithm>

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

int64_t GemmPlan::streamKPlanes() const {
  IntegerOps ops;
  StreamKMath<int64_t, IntegerOps> math{*this, ops};
  int64_t planes = 1;
  for (int64_t t = 0; streamsK() && t < streamKTiles(); ++t)
    planes = std::max(planes, math.sharing(0, t).contributors);
  return planes;
}

namespace {
/// Data-sheet numbers of the chips the split-K model plans for (H200 SXM,
/// B200): multiprocessors, dense FP8 tensor-core peak (TFLOP/s, i.e.
/// 1e6 FLOP per microsecond), HBM bandwidth (TB/s, 1e6 bytes per
/// microsecond). A part with fewer multiprocessors (the plan's
/// multiprocessors()) has as much less peak; its bandwidth is assumed the
/// same.
struct ChipModel {
  int64_t sms;
  double fp8Tflops, hbmTBps;
};
constexpr ChipModel kHopperModel{kSMs, 1979, 4.8};
constexpr ChipModel kBlackwellModel{kSMsBlackwell, 4500, 8.0};
/// Fitted to the H200 run of 2026-12-04 (docs/performance.md, "Split-K
/// by default"): the 14 small-M times of run 2 (three shapes, S = 1 and a
/// split, per-tensor, fast_accumulate and FP8 block) within 7% RMS and
/// every one of their 7 split-or-not decisions right. The fixed time of
/// one work unit (filling the stage ring, the epilogue), the reduction
/// kernel's launch, and the share of the data-sheet HBM bandwidth at which
/// the operands stream in (2.8 of 4.8 TB/s: the floor of a GEMM whose
/// weights dominate, 128 x 8192 x 8192 at 28 us).
constexpr double kUnitMicros = 3.0, kLaunchMicros = 2.0,
                 kOperandStreamShare = 2.8 / 4.8;
/// sm_90a: one 128x128 tile's k-tile (K 128) on one multiprocessor,
/// measured (run 2: 8192^3 and the small-M shapes agree within 10%):
/// per-tensor with fast_accumulate, promoting per-tensor, FP8 block,
/// MXFP8 (from its 128x64 tiles) and NVFP4 (converted to f16).
constexpr double kHopperFastKTile = 0.38, kHopperSplitKTile = 0.48,
                 kHopperBlockKTile = 0.64, kHopperMXKTile = 2.83,
                 kHopperFP4KTile = 2.33;
/// sm_90a MXFP8 converted to bf16 (qs.gemm_mx_scaling = "convert"): not
/// timed yet; NVFP4's converting kernel, whose conversion takes more
/// instructions per value (docs/GPU.md), stands in for it.
constexpr double kHopperMXConvertedKTile = kHopperFP4KTile;
} // namespace

static const ChipModel &chipModel(const GemmPlan &plan) {
  return plan.tcgen05 ? kBlackwellModel : kHopperModel;
}

/// One k-tile of one output tile on one multiprocessor. sm_90a: the
/// measured times above, in proportion to the tile width; sm_100a (no
/// B200 here): its share of the peak, NVFP4's FP4 MMA at twice the FP8
/// rate (on 256-wide k-tiles).
static double modelKTileMicros(const GemmPlan &plan) {
  if (!plan.tcgen05) {
    // 16-bit operands: a 64-element k-tile at bf16's half the FP8 rate
    // (as long as FP8's 128-element one).
    double square = plan.fp4()              ? kHopperFP4KTile
                    : plan.mxConverts       ? kHopperMXConvertedKTile
                    : plan.a.blockDim == 3  ? kHopperMXKTile
                    : plan.a.blockDim != 0  ? kHopperBlockKTile
                    : plan.splitAccumulator ? kHopperSplitKTile
                                            : kHopperFastKTile;
    return square * plan.tileN / 128;
  }
  const ChipModel &chip = chipModel(plan);
  double rate = plan.fp4() ? 2.0 : 1.0;
  double flops = 2.0 * kTileM * plan.tileN * plan.kTileElems();
  return flops / (chip.fp8Tflops * 1e6 * rate / chip.sms);
}

/// The operands' bytes at the share of the HBM bandwidth they stream at,
/// and one unit's fixed time: no split runs faster than its operands come
/// in.
static double modelOperandMicros(const GemmPlan &plan) {
  const ChipModel &chip = chipModel(plan);
  double bytes = static_cast<double>(plan.m + plan.n) * plan.k *
                 (plan.fp4()          ? 0.5
                  : plan.sixteenBit() ? 2.0
                                      : 1.0);
  return bytes / (chip.hbmTBps * kOperandStreamShare * 1e6) + kUnitMicros;
}

/// One tile's FP32 plane (128 x tileN x 4 bytes) written or read by one
/// multiprocessor at its share of the data-sheet chip's HBM bandwidth
/// (also on parts with fewer multiprocessors: one multiprocessor's loads
/// do not speed up with fewer others): what a fused split-K unit or a
/// stream-K block pays per plane it stores or sums (one block sums a
/// tile's planes, at its share of the bandwidth, not all of it), at
/// two thirds of that share: the H200's fused 2-split of 256 x 4096 x 4096
/// (three planes on the tiles' last units) ran 18.5 us, 2.7 more than the
/// same split with the reduction kernel.
static double modelPlaneMicros(const GemmPlan &plan) {
  const ChipModel &chip = chipModel(plan);
  return 1.5 * kTileM * plan.tileN * 4 / (chip.hbmTBps * 1e6 / chip.sms);
}

double gemm::modelGemmMicros(const GemmPlan &plan, int64_t splitK) {
  const ChipModel &chip = chipModel(plan);
  double kTileMicros = modelKTileMicros(plan);
  // Units run in waves of one per multiprocessor (persistent: per block).
  int64_t sms = plan.multiprocessors();
  int64_t width =
      plan.persistent() ? std::min(plan.persistentBlocks, sms) : sms;
  int64_t waves = ceilDiv(plan.tiles() * splitK, width);
  double micros =
      std::max(waves * (plan.kTiles() / splitK * kTileMicros + kUnitMicros),
               modelOperandMicros(plan));
  if (splitK == 1)
    return micros;
  if (plan.fusesReductionWith(splitK)) {
    // Every unit stores its plane; the tiles' last units (the last splits,
    // units (S - 1) T .. S T - 1, in the last waves) then each sum S
    // planes on their own.
    int64_t reducingWaves = waves - plan.tiles() * (splitK - 1) / width;
    return micros + (waves + reducingWaves * splitK) * modelPlaneMicros(plan);
  }
  // The FP32 planes, written by the GEMM kernel and read by the reduction
  // kernel (all multiprocessors) through HBM (D, bias and C cost the same
  // either way), and the second launch.
  double planeBytes = 2.0 * splitK * plan.m * plan.n * 4;
  return micros + planeBytes / (chip.hbmTBps * 1e6) + kLaunchMicros;
}

int64_t gemm::chooseSplitK(const GemmPlan &plan) {
  int64_t best = 1;
  double bestMicros = modelGemmMicros(plan, 1);
  for (int64_t s = 2; s <= std::min(kMaxAutoSplitK, plan.kTiles()); ++s) {
    if (plan.kTiles() % s != 0)
      continue;
    double micros = modelGemmMicros(plan, s);
    if (micros < bestMicros) {
      best = s;
      bestMicros = micros;
    }
  }
  return best;
}

int64_t gemm::chooseDefaultSplitK(const GemmPlan &plan) {
  int64_t s = chooseSplitK(plan);
  return modelGemmMicros(plan, s) <
                 kDefaultSplitKGain * modelGemmMicros(plan, 1)
             ? s
             : 1;
}

GemmPlan gemm::withStreamK(const GemmPlan &plan) {
  GemmPlan streamed = plan;
  streamed.streamK = true;
  streamed.splitK = 1;
  if (!streamed.persistent())
    streamed.persistentBlocks = streamed.multiprocessors();
  return streamed;
}

double gemm::modelStreamKMicros(const GemmPlan &plan) {
  // A grid that divides the tiles runs the persistent kernel.
  if (!plan.streamsK())
    return modelGemmMicros(plan, 1);
  // Each block: its stream-K range's and data-parallel tiles' k-tiles, a
  // unit's fixed time per segment (a whole tile is one segment, as
  // modelGemmMicros charges a tile), a plane per segment of a shared tile,
  // and, for each shared tile that it begins (its plane 0, the last of
  // the tile's segments to finish: the others begin their ranges with
  // theirs), the sum of the tile's planes. The blocks run concurrently
  // (the slowest counts), in waves if the grid is wider than the chip.
  IntegerOps ops;
  StreamKMath<int64_t, IntegerOps> math{plan, ops};
  SmallVector<int64_t> planes(plan.blocks(), 0);
  for (int64_t t = 0; t < plan.streamKTiles(); ++t) {
    int64_t first = math.owner(t * plan.kTiles());
    int64_t contributors = math.sharing(first, t).contributors;
    if (contributors == 1)
      continue;
    for (int64_t g = first; g < first + contributors; ++g)
      ++planes[g];
    planes[first] += contributors;
  }
  double kTileMicros = modelKTileMicros(plan), slowest = 0;
  for (int64_t g = 0; g < plan.blocks(); ++g) {
    int64_t kTiles =
        math.hi(g) - math.lo(g) + plan.dataParallelRounds() * plan.kTiles();
    slowest = std::max(slowest, kTiles * kTileMicros +
                                    math.segments(g) * kUnitMicros +
                                    planes[g] * modelPlaneMicros(plan));
  }
  return std::max(ceilDiv(plan.blocks(), plan.multiprocessors()) * slowest,
                  modelOperandMicros(plan));
}

KSplit gemm::chooseKSplit(const GemmPlan &plan, bool streamKApplies) {
  KSplit best;
  // The TMA-store epilogue writes D from the GEMM kernel: no split summed
  // by the reduction kernel.
  best.splitK = plan.tmaStore && !plan.fusedReduce ? 1 : chooseSplitK(plan);
  GemmPlan streamed = withStreamK(plan);
  if (streamKApplies && streamed.streamsK() &&
      modelStreamKMicros(streamed) < modelGemmMicros(plan, best.splitK)) {
    best.splitK = 1;
    best.streamK = true;
  }
  return best;
}
