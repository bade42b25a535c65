//===- GemmPlan.h - GEMM kernels: the plan ----------------------*- C++ -*-===//
//
// Private to the QSToGPU library. A GEMM kernel's plan (tile shape, stage
// ring, per-operand scaling, grid, split-K / stream-K, epilogue options),
// made in GemmPlan.cpp, and the arithmetic of its schedules (stream-K
// segments, the split-K / stream-K wave model) that the kernels
// (GemmCode.h), the plan and the unit tests share.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOGPU_GEMMPLAN_H
#define QS_LIB_CONVERSION_QSTOGPU_GEMMPLAN_H

#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"
#include <algorithm>
#include <cstdint>
#include <memory>

namespace mlir {
namespace qs {
namespace gpuk {
struct ProducerBlockQuantizer; // Kernels.h
struct GemmOperand;            // Kernels.h
namespace gemm {

constexpr int64_t kTileM = 128, kTileK = 128, kWarpgroup = 128;
constexpr int64_t kConsumers = 2, kKSteps = kTileK / 32;
/// Streaming multiprocessors of an H100/H200 SXM and of a B200: the
/// default of GemmPlan::multiprocessors.
constexpr int64_t kSMs = 132;
constexpr int64_t kSMsBlackwell = 148;
/// Shared memory given to the stage ring (of 227 KiB per block on sm_90
/// and sm_100), and the most it may take where kRingBytes holds fewer than
/// 4 stages (sm_100a block-scaled 128x256 tiles).
constexpr int64_t kRingBytes = 192 * 1024, kRingBytesMax = 224 * 1024;
constexpr llvm::StringLiteral kSharedSymbol = "qs_gemm_smem";

/// How an operand's FP8 codes are scaled, and where its block scales are.
struct OperandPlan {
  /// 0: per-tensor (one scale_inv), 1: 1x128 blocks, 2: 128x128 blocks,
  /// 3: MXFP8 1x32 blocks (E8M0 scales), 4: NVFP4 (E2M1 codes, 1x16 blocks
  /// of E4M3 scales, a global amax).
  int blockDim = 0;
  /// MXFP8, NVFP4: scales in cuBLAS's 128x4-tiled order (optimize_for_gemm).
  bool swizzled = false;
  /// Row-scaled NVFP4: one amax per stored row instead of a global one.
  bool rowScaled = false;
  /// NVFP4: E of the global scale (nvfp4_e4m3_max): amax / 6E dequantizes.
  int64_t e4m3Max = 448;
  /// tcgen05: the data is [K, rows] (MN-major; GemmOperand::mnMajor).
  bool mnMajor = false;
  /// One scale per row (and block), not per 128 rows.
  bool perRow() const { return blockDim == 1 || blockDim == 3; }
  /// Rows of the operand's K-major view (M for A, N for B).
  int64_t rows = 0;
  /// Block scales, stored matrix [rows, K] (te-formats.md §4.b, GEMM_READY):
  /// 1x128: scale[kb * scaleLd + row], scaleLd = roundup(rows, 4);
  /// 128x128: scale[(row / 128) * scaleLd + kb], scaleLd =
  /// roundup(ceil(K / 128), 4); MXFP8 (te-formats.md §3.b): E8M0
  /// G[row, kb] at row * scaleLd + kb or, swizzled, the 128x4-tiled offset,
  /// scaleLd = roundup(K / 32, 4) (MN-major, i.e. column-wise, compact:
  /// at kb * scaleLd + row, scaleLd = roundup(rows, 128)); NVFP4 (§5.b):
  /// E4M3 G[row, kb] likewise, scaleLd = roundup(K / 16, 4).
  int64_t scaleLd = 0;
};

/// The OperandPlan of `op` with `rows` rows in its K-major view, of a GEMM
/// with `k` elements of K (GemmPlan.cpp).
OperandPlan makeOperandPlan(const GemmOperand &op, int64_t rows, int64_t k);

struct GemmPlan {
  int64_t m, n, k;
  /// sm_100a: the tcgen05 kernel (block-scaled MMA, accumulators and scale
  /// factors in tensor memory; GemmTcgen05.cpp) instead of wgmma.
  bool tcgen05 = false;
  int64_t tileN, stages, tilesM, tilesN;
  /// The target GPU's multiprocessors (EmitOptions::multiprocessors); 0:
  /// the chip's data-sheet count (132 for sm_90a, 148 for sm_100a).
  int64_t sms = 0;
  int64_t multiprocessors() const {
    return sms ? sms : tcgen05 ? kSMsBlackwell : kSMs;
  }
  /// Persistent kernels (qs.gemm_persistent; sm_90a, and sm_100a with
  /// double-buffered accumulators): the number of blocks asked for; 0: one
  /// block per output tile.
  int64_t persistentBlocks = 0;
  bool persistent() const { return persistentBlocks != 0; }
  /// qs.gemm_cluster = 2 (sm_90a per-tensor FP8): blocks 2c and 2c + 1 form
  /// a cluster computing tiles (2 pm, tn) and (2 pm + 1, tn) of one tile
  /// pair (persistent: of pairs c, c + blocks / 2, ... in turn); each loads
  /// half of the shared B tile (its rank's tileN / 2 rows) with TMA
  /// multicast into both blocks' stage, and a stage is refilled once the
  /// consumers of both blocks freed it (empty barriers count 2 x 2
  /// arrivals). With an odd tile-row count the last pair's second block
  /// has no rows inside M and computes zeros it does not store.
  int64_t cluster = 1;
  bool multicast() const { return cluster == 2; }
  /// qs.gemm_schedule = "pingpong" (sm_90a per-tensor FP8 with
  /// fast_accumulate, persistent, 128 x 128 tiles): consumer c computes the block's tiles of iterations
  /// c, c + 2, ... whole (two m64 accumulators, 64 registers each), so one
  /// consumer's epilogue overlaps the other's wgmmas; the stage ring is
  /// filled in tile order, so each stage has one consumer.
  bool pingpong = false;
  /// Consumer warpgroups that read (and free) each stage.
  int64_t stageConsumers() const { return pingpong ? 1 : kConsumers; }
  int64_t tiles() const {
    return (multicast() ? roundUp(tilesM, 2) : tilesM) * tilesN;
  }
  /// qs.gemm_split_k = S: each output tile's K is cut into S equal ranges
  /// of k-tiles (S divides kTiles()), one work unit each: unit u computes
  /// split u / tiles() of tile u % tiles() and stores its FP32 partial
  /// result (alpha applied, no bias, no C) into plane u / tiles() of an
  /// [S, M, N] workspace; a second kernel (emitGemm) sums the planes in
  /// order and finishes D, or (fusedReduce) the tile's last unit does.
  /// Blocks (and persistent blocks' loops) walk units as they otherwise
  /// walk tiles.
  int64_t splitK = 1;
  bool splitsK() const { return splitK > 1; }
  /// qs.gemm_split_k_reduce = "fused": after storing its plane, a unit
  /// counts itself done on its tile's counter (GemmCode::splitKCounters,
  /// one i32 per tile, zero between launches); the unit that finds S - 1
  /// units done before it sums the tile's planes in order (the second
  /// kernel's sums), adds bias and C, stores D and zeroes the counter.
  bool fusedReduce = false;
  bool fusesReduction() const { return fusesReductionWith(splitK); }
  bool fusesReductionWith(int64_t split) const {
    return split > 1 && fusedReduce;
  }
  /// qs.gemm_split_k = "stream" (persistent: sm_90a cooperative, sm_100a):
  /// stream-K over the last tiles, data-parallel tiles before them (CUTLASS's
  /// "data-parallel + stream-K" hybrid). With G = blocks() persistent
  /// blocks and T = tiles(): if G divides T every block computes T / G
  /// whole tiles; else the last streamKTiles() tiles in tile order (all T
  /// if T < 2G, else G + T mod G: between one and two waves) form Wsk =
  /// streamKTiles() x kTiles() k-tiles, of which block g computes the
  /// contiguous range [g Wsk / G, (g + 1) Wsk / G) (floors) first, as
  /// segments of consecutive k-tiles of one tile each, then the
  /// data-parallel tiles g, g + G, ... after them (StreamKMath). A
  /// segment covering its whole tile stores D; the others store FP32
  /// planes and arrive on the tile's counter as fused split-K units do,
  /// the last of the tile's contributors summing the planes in k order.
  bool streamK = false;
  bool streamsK() const { return streamK && streamKTiles() > 0; }
  int64_t streamKTiles() const {
    int64_t t = tiles(), g = blocks();
    return t % g == 0 ? 0 : t < 2 * g ? t : g + t % g;
  }
  int64_t streamKIters() const { return streamKTiles() * kTiles(); }
  /// Whether StreamKMath's products (at most blocks() x (streamKIters() +
  /// blocks())) fit 31 bits, so that the kernels compute it in i32.
  bool streamKFits32() const {
    return blocks() * (streamKIters() + blocks()) < (int64_t(1) << 31);
  }
  /// Tiles each block computes whole after its stream-K range.
  int64_t dataParallelRounds() const {
    return (tiles() - streamKTiles()) / blocks();
  }
  /// The most blocks whose ranges share one stream-K tile (the planes of
  /// the workspace: plane p of stream-K tile t holds the partial sum of
  /// the tile's p-th block, at ((p streamKTiles() + t) 128 + row) tileN +
  /// column).
  int64_t streamKPlanes() const;
  int64_t units() const { return tiles() * splitK; }
  int64_t kTilesPerUnit() const { return kTiles() / splitK; }
  /// The grid: one block per unit (tile, or tile and split of K), or
  /// min(persistentBlocks, units) blocks each computing units b, b + blocks,
  /// b + 2 blocks, ... With multicast the persistent grid is even
  /// (persistentBlocks rounded down, at least 2): tiles() is even, so the
  /// blocks of a pair walk the two tiles of each pair together and compute as
  /// many tiles as each other.
  int64_t blocks() const {
    // Stream-K: persistentBlocks, at most one per k-tile of the GEMM.
    if (streamK)
      return std::min(persistentBlocks, tiles() * kTiles());
    if (!persistent())
      return units();
    int64_t asked = multicast() ? std::max<int64_t>(2, persistentBlocks & ~1)
                                : persistentBlocks;
    return std::min(asked, units());
  }
  StringRef typeA, typeB; // PTX names: e4m3 / e5m2 (sixteenBit: its type)
  /// sm_90a MXFP8 and NVFP4 with qs.gemm_mx_scaling = "dequantize": the
  /// operands are 16-bit floats ("bf16"; NVFP4 "f16"), K-major [rows, K] in
  /// global memory, written by the pre-pass kernels (emitGemmDequantize)
  /// with the block scales folded in, and the kernel is the per-tensor one
  /// (fast accumulation; alpha the pre-passes' factors) with 64-element
  /// k-tiles: 128-byte rows as FP8's 128-element ones, so that the stage
  /// ring, the TMA boxes, the descriptors and their 32-byte k-steps are
  /// FP8's, and each k-step is an m64nNk16 16-bit wgmma. Empty otherwise.
  StringRef sixteenBitType;
  bool sixteenBit() const { return !sixteenBitType.empty(); }
  Type outType;
  bool bias, accumulate;
  OperandPlan a, b;
  /// Block-scaled (FP8 block, MXFP8): each scale block of K (blockK wide)
  /// is summed on its own and promoted, times its two scales, into FP32
  /// totals; `groupsPerRound` blocks are summed at once (one accumulator
  /// set each) between two waits.
  bool blockScaled() const { return a.blockDim != 0 && !fp4(); }
  /// sm_90a MXFP8 with qs.gemm_mx_scaling = "convert" (the default): the
  /// consumers convert each 64-element half of a k-tile, E4M3 codes times
  /// their E8M0 block scales, to K-major bf16 tiles (exact: 4 significant
  /// bits, f32's exponent range; MN-major operands transposed on the way)
  /// in shared memory, and bf16 wgmma sums them into
  /// FP32 with no promotion, as NVFP4's f16 path (converts()).
  bool mxConverts = false;
  /// The consumers convert the operands to 16-bit floats in shared memory
  /// and run f16 (NVFP4) or bf16 (MXFP8, mxConverts) wgmma: sm_90a.
  bool converts() const { return !tcgen05 && (fp4() || mxConverts); }
  /// converts(): the PTX type of the converted values.
  StringRef convertedType() const { return fp4() ? "f16" : "bf16"; }
  /// converts(): elements of K per conversion (one barrier pair, one
  /// converted buffer): NVFP4 a whole k-tile, MXFP8 half of one (its
  /// stages are twice NVFP4's, so two 128-wide buffers would leave two
  /// stages in the ring).
  int64_t convertedK() const { return fp4() ? kTileK : kTileK / 2; }
  /// sm_90a per-tensor FP8 without fast_accumulate: each k-tile (128
  /// elements of K, four wgmma k-steps) is summed on its own and added to
  /// FP32 totals, as the block-scaled kernels promote (scales of 1; alpha
  /// in the epilogue). Hopper's FP8 wgmma keeps only about 14 bits of a
  /// running sum, so this is what makes the accumulation FP32 (CUTLASS's
  /// promotion interval of 4 k-steps, cuBLASLt without FAST_ACCUM).
  bool splitAccumulator = false;
  /// Whether the consumers sum each scale block (or k-tile) into fresh
  /// accumulators and promote it into FP32 totals.
  bool promotes() const {
    return (blockScaled() && !mxConverts) || splitAccumulator;
  }
  /// sm_90a FP8 block scaling with B in 128x128 blocks (1x128 x 128x128:
  /// fprop, dgrad) in one-chunk tiles (128 columns or fewer): each consumer
  /// thread loads k-tile kt + 1's scales (two row scales of A, one block
  /// scale of B: at most kPrefetchedScales values) while k-tile kt runs
  /// and carries them through the k-loop, so that their global-load
  /// latency hides behind a whole k-tile (its mbarrier wait, wgmmas and
  /// promotion), not only behind the k-tile's own wgmmas. 1x128 x 1x128
  /// (wgrad: 32 column scales per thread and k-tile), 128x192 tiles (four
  /// scales and products per chunk: ptxas spills) and MXFP8 load within
  /// the k-tile. (MXFP8 carrying its 18 packed words was tried: with four
  /// blocks per round ptxas spills 140 bytes; with two it does not, but
  /// ptxas then schedules the first round's decodes, whose words are
  /// ready, before the wgmmas, delaying their issue by ~180 instructions.)
  /// qs.gemm_scale_loads = "in_tile": never.
  bool prefetchesScales() const {
    return blockScaled() && blockK() == 128 && !b.perRow() &&
           mmaChunks() == 1 && !tcgen05 && !scaleLoadsInTile;
  }
  bool scaleLoadsInTile = false;
  static constexpr int64_t kPrefetchedScales = 4;
  /// sm_90a promoting kernels (per-tensor FP8 with the split accumulator,
  /// FP8 block scaling with 128x128-block B in 128- or 192-wide tiles,
  /// MXFP8 in 128x64 tiles) of K-major operands: each wgmma group (a
  /// k-tile, a 128x192 tile's 96-column chunk of one, or two of an MXFP8
  /// k-tile's four 32-blocks) is issued into one of two sets of partial
  /// accumulators before the previous group's partial sums, in the other, are
  /// promoted (after `wgmma.wait_group 1`), so that the tensor cores run
  /// while the consumer promotes. The k-loop runs overlappedRun() k-tiles
  /// in a row as straight-line code and waits for all of them after the
  /// last. The totals are the same sums in the same order as promoting
  /// each group after its own `wait_group 0` (qs.gemm_promotion =
  /// "in_tile": the kernel before 2026-12-05). Not overlapped: 128x256
  /// tiles (a second 64-register partial set next to their 128 totals
  /// would not fit the consumers' 232 registers), 1x128 x 1x128 (wgrad:
  /// its 32 column scales per thread and k-tile spill at two k-tiles in a
  /// row), MXFP8 in 128x128 tiles (244 bytes of spills), MN-major operands (the
  /// transposed tiles' two buffers assume each k-tile done within its
  /// iteration), persistent and stream-K kernels with a fused FP8 output
  /// quantizer (its epilogue in the tile loop: ptxas spills 4 to 190
  /// bytes), persistent MXFP8 kernels quantizing their output in blocks
  /// (24 bytes).
  bool overlapsPromotion() const {
    if (!promotes() || tcgen05 || transposes() || promotionInTile ||
        (quantizesOutput() && (persistent() || streamK)))
      return false;
    if (a.blockDim == 3)
      return mmaChunks() == 1 && !(outputBlocks && persistent());
    return blockK() == 128 && b.blockDim != 1 &&
           (mmaChunks() == 1 || tileN == 192);
  }
  bool promotionInTile = false;
  /// overlapsPromotion: the scale blocks of one wgmma group (a set of
  /// partial sums each): MXFP8 two of a k-tile's four 32-blocks (two
  /// groups per k-tile, 2 x 2 x mmaRegs() partial registers), else the
  /// k-tile's one 128-block.
  int64_t overlappedGroups() const { return a.blockDim == 3 ? 2 : 1; }
  /// overlapsPromotion: the length of a run, k-tiles whose wgmma groups
  /// are issued one after the other with the previous group promoted in
  /// between (no group is in flight across a loop's back edge: ptxas 13.0
  /// does not track which wait completes a group carried around a loop
  /// and serializes every wgmma then); the tensor cores wait for the
  /// promotion of a run's last group only. At most 4 k-tiles, 3 with
  /// prefetched scales (4 spill 16 bytes at 8192^3 under ptxas 13.0, and 8
  /// spill the partial sums), 1 in 128x192 tiles (two chunks: 2 spill 136
  /// bytes, 248 for FP8 block), and at most half the unit's k-tiles, so
  /// that the k-loop stays a loop (ptxas hoists so much out of a k-loop
  /// unrolled whole that the multicast kernels spill 256 bytes at 4
  /// k-tiles and serialize their wgmmas), chosen so that the runs plus the
  /// k-tiles after the last whole run (summed one at a time) are fewest;
  /// stream-K, whose segment lengths the kernel learns, runs the most.
  int64_t overlappedRun() const {
    int64_t most = mmaChunks() > 1 || a.blockDim == 3 ? 1
                   : prefetchesScales()               ? 3
                                                      : 4;
    if (streamK)
      return most;
    int64_t n = kTilesPerUnit(), best = 1;
    for (int64_t d = 2; d <= std::min(most, n / 2); ++d)
      if (n / d + n % d <= n / best + n % best)
        best = d;
    return best;
  }
  /// Columns of N that one wgmma group (and its partial accumulators)
  /// covers: the whole tile, except that promoting kernels sum a 128x256
  /// tile's two 128-column chunks in turn (64 partial registers next to
  /// the 128 FP32 totals: a whole-tile partial set would make 256), a
  /// 128x192 tile's two 96-column chunks (48 partial registers), and
  /// MXFP8's 64-column ones (a 128x128 tile's two; the registers of one
  /// chunk times groupsPerRound sets).
  int64_t mmaN() const {
    if (!promotes())
      return tileN;
    int64_t chunk = tileN == 192 ? 96 : a.blockDim == 3 ? 64 : 128;
    return std::min<int64_t>(tileN, chunk);
  }
  int64_t mmaChunks() const { return tileN / mmaN(); }
  int64_t mmaRegs() const { return mmaN() / 2; }
  /// NVFP4: the consumers convert each k-tile's E2M1 codes times their E4M3
  /// block scales to f16 (exact) in shared memory, and f16 wgmma sums them
  /// (no promotion); the global amaxes scale the epilogue.
  bool fp4() const { return a.blockDim == 4; }
  int64_t blockK() const {
    return a.blockDim == 3 ? 32 : a.blockDim == 4 ? 16 : 128;
  }
  /// sm_90a MXFP8: a row's (column's) four E8M0 codes of a k-tile are one
  /// aligned word in the compact row-major and in the GEMM-swizzled
  /// layout (not in the compact column-wise one, whose blocks of a row lie
  /// a row of scales apart), loaded whole (GemmCode::loadScales).
  bool packedScales(const OperandPlan &op) const {
    return a.blockDim == 3 && !tcgen05 && (!op.mnMajor || op.swizzled);
  }
  bool packedScales() const { return packedScales(a) && packedScales(b); }
  /// MXFP8: all four 32-blocks of a k-tile between two waits (four sets of
  /// 32 partial registers) in 128x64 tiles; two per round where four sets
  /// spill under ptxas 13.0: 128x128 tiles (300-500 bytes even with packed
  /// scales) and persistent kernels whose scales are not all packed (the
  /// compact column-wise scales of a persistent dgrad: 44 bytes).
  int64_t groupsPerRound() const {
    if (a.blockDim != 3)
      return 1;
    return tileN == 64 && (packedScales() || !persistent()) ? 4 : 2;
  }
  int64_t stepsPerGroup() const { return blockK() / 32; }

  /// Elements of K per k-tile: 128, or 256 for NVFP4 on tcgen05 (one
  /// 128-byte swizzled row of packed codes), or 64 for 16-bit operands
  /// (sixteenBit(): one 128-byte row of 16-bit values).
  int64_t kTileElems() const {
    return sixteenBit() ? kTileK / 2 : tcgen05 && fp4() ? 2 * kTileK : kTileK;
  }
  /// Bytes of one row of a k-tile as loaded (FP4 packs two codes a byte,
  /// 16-bit operands take two): 128 on sm_90a.
  int64_t rowBytes() const {
    return fp4()          ? kTileElems() / 2
           : sixteenBit() ? 2 * kTileElems()
                          : kTileElems();
  }
  /// sm_90a: MN-major FP8 operands (MXFP8 column-wise data promoted per
  /// 32-block, per-tensor FP8 without a transpose buffer) are copied
  /// transposed, K-major, into shared memory after the ring, as FP8 wgmma
  /// reads K-major tiles only (MXFP8 converted to bf16 transposes in its
  /// conversion: GemmCode::convertMx).
  bool transposes() const {
    return !tcgen05 && !converts() && (a.mnMajor || b.mnMajor);
  }
  /// Whether TMA writes an operand's tiles 128-byte swizzled (what the
  /// tensor cores read); sm_90a's packed FP4 tiles and MN-major tiles are
  /// read by the consumers instead (unswizzled).
  bool swizzledTile(const OperandPlan &op) const {
    return tcgen05 || (!fp4() && !op.mnMajor);
  }
  /// tcgen05 MN-major (FP8) tiles: TMA's 128-byte swizzle spans at most 128
  /// bytes of a box row, so a tile wider than 128 rows of M or N is loaded
  /// as 128-byte-wide atoms, one box each: atom t holds tile rows [128 t,
  /// 128 t + 128) for all kTileElems() K-rows, at byte t * mnAtomBytes() of
  /// the tile (the descriptor's leading byte offset). sm_90a's MN-major
  /// tiles are unswizzled and loaded whole.
  int64_t mnBoxBytes(const OperandPlan &op, int64_t tileRows) const {
    return swizzledTile(op) ? std::min<int64_t>(tileRows, 128) : tileRows;
  }
  int64_t mnAtomBytes() const { return kTileElems() * 128; }
  /// Bytes of one operand row in global memory.
  int64_t pitch() const { return fp4() ? k / 2 : sixteenBit() ? 2 * k : k; }
  int64_t aBytes() const { return kTileM * rowBytes(); }
  /// Bytes TMA writes per stage (the A and B tiles).
  int64_t tileBytes() const { return (kTileM + tileN) * rowBytes(); }
  /// tcgen05: 512-byte scale-factor chunks (128 rows x 4 blocks, cuBLAS's
  /// 128x4 tile) per operand and k-tile: MXFP8 and FP8 block 1 (4 x 32),
  /// NVFP4 4 (16 x 16), per-tensor FP8 none.
  int64_t sfChunks() const {
    return a.blockDim == 0 ? 0 : fp4() ? 4 : 1;
  }
  /// tcgen05: elements of K per scale factor: 16 (NVFP4) or 32 (MXFP8, and
  /// FP8 block scaling run as MXFP8: each 128-block's scale four times).
  int64_t sfBlockK() const { return fp4() ? 16 : 32; }
  /// tcgen05: 128-row groups of operand `op`'s tile, each with its own
  /// chunks: A 1, B tileN / 128 (128x256 tiles: 2).
  int64_t sfGroups(int64_t op) const { return op ? tileN / kTileM : 1; }
  /// tcgen05: the chunks of one stage (and of one tensor-memory slot).
  int64_t sfStageChunks() const { return sfChunks() * (1 + sfGroups(1)); }
  /// Place of chunk `c`, row group `g` of operand `op` among a stage's
  /// chunks: A's chunks, then B's, the groups of one chunk adjacent (so
  /// that in tensor memory B row n's word is at column n / 32 of the
  /// chunk's first group: what an N = 256 MMA reads).
  int64_t sfChunkIndex(int64_t op, int64_t c, int64_t g) const {
    return op ? sfChunks() + c * sfGroups(1) + g : c;
  }
  int64_t sfBytes() const { return tcgen05 ? sfStageChunks() * 512 : 0; }
  int64_t stageBytes() const { return tileBytes() + sfBytes(); }
  int64_t kTiles() const { return ceilDiv(k, kTileElems()); }
  /// converts(): two buffers (conversion c, of convertedK() elements of
  /// K, into buffer c % 2 while the wgmmas of c - 1 read the other) of
  /// converted 16-bit tiles after the ring (NVFP4: 128 x 128 f16 of A,
  /// tileN x 128 of B, each as two K-major 64-element chunks with the
  /// 128-byte swizzle; MXFP8: one such chunk of bf16 each). sm_90a MN-major
  /// operands: their transposed K-major FP8 tiles (A's 128 x 128 bytes if A
  /// is MN-major, then B's tileN x 128), 128-byte swizzled, in
  /// transposeBuffers() buffers.
  int64_t convertedOffset() const { return stages * stageBytes(); }
  /// sm_90a MN-major operands: bytes of one buffer of transposed tiles.
  int64_t transposedBytes() const {
    return (a.mnMajor ? kTileM * kTileK : 0) + (b.mnMajor ? tileN * kTileK : 0);
  }
  /// 2: the block's k-tile `it` copies into buffer it % 2 while the wgmmas
  /// of it - 1 read the other (as NVFP4's f16 tiles); 1 where two buffers
  /// would leave fewer than 4 stages in the ring (per-tensor 128x256 with
  /// an MN-major B).
  int64_t transposeBuffers() const {
    return (kRingBytes - 2 * transposedBytes()) / stageBytes() >= 4 ? 2 : 1;
  }
  int64_t convertedBufferBytes() const {
    return (kTileM + tileN) * convertedK() * 2;
  }
  int64_t convertedBytes() const {
    if (converts())
      return 2 * convertedBufferBytes();
    if (!transposes())
      return 0;
    return transposeBuffers() * transposedBytes();
  }
  /// qs.gemm_epilogue = "tma": each consumer warpgroup (sm_90a) converts
  /// its 64 rows of the tile 128 bytes of columns (a "store chunk":
  /// storeChunkCols() columns) at a time into one of two staging buffers
  /// of 64 rows x 128 bytes (128-byte swizzled, as TMA reads them) and
  /// stores it with one TMA bulk tensor store (which clips at D's edges),
  /// alternating buffers; two per consumer, after the converted tiles.
  /// sm_100a: each warp likewise with its 32 rows, in two 32 x 128-byte
  /// buffers at the start of the stage ring, which the block no longer
  /// reads once its MMAs are done (no shared memory added), or with
  /// persistent blocks (whose ring feeds the next units) after the ring
  /// (stagingBytes()).
  bool tmaStore = false;
  /// The rows of one TMA store box: a consumer warpgroup's (sm_90a) or a
  /// warp's (sm_100a).
  int64_t storeBoxRows() const { return tcgen05 ? 32 : 64; }
  int64_t outBytes() const { return outType.getIntOrFloatBitWidth() / 8; }
  /// A fused output quantizer (GemmOutputQuantizer): D's type is FP8, the
  /// epilogue scales, converts and takes the amax of the FP32 values; the
  /// kernel's arguments after d are the scale and the amax state.
  bool quantizesOutput() const {
    return isa<Float8E4M3FNType, Float8E5M2Type>(outType) && !outputBlocks &&
           !reductionBlocks;
  }
  /// A fused output quantizer with a transpose buffer (GemmOutputQuantizer::
  /// transpose; sm_90a, the GEMM kernel writing D, canFuseOutputQuantizer;
  /// in a fused reduction's last unit and stream-K's too): each
  /// consumer stages its codes chunk by chunk as the TMA-store epilogue
  /// does (64 rows x 128 one-byte columns per buffer), then its threads
  /// read them back (GemmCode::stagedCodes): rows 16 bytes at a time
  /// (unless the TMA store writes them) and 4 x 16 blocks transposed into
  /// the [N, M] buffer, the kernel's argument after the amax.
  bool outputTranspose = false;
  /// A fused output quantizer with a transpose buffer whose split-K
  /// reduction kernel writes D: that kernel writes the transpose too,
  /// through shared memory (emitSplitKReduction).
  bool reductionTransposes = false;
  /// A block-scaled quantize of D (emitGemm's blockQuantizer: MXFP8 of
  /// any usage, or row-wise FP8 1x128; canFuseBlockQuantizer): D's type is
  /// its FP8 code type, and the tcgen05 epilogue, whose thread holds 32
  /// consecutive columns of a row per tensor-memory load, rounds them to
  /// the quantize's nominal type, takes the block's amax and scale, then
  /// encodes them (GemmCode::tmemEpilogue); the sm_90a epilogue, and the
  /// tcgen05 one with column-wise blocks, stage the rounded values first
  /// (stagesBlocks()). The kernel's arguments after d are
  /// ProducerBlockQuantizer::extraBuffers(). Null: none.
  std::shared_ptr<const ProducerBlockQuantizer> outputBlocks;
  /// A block-scaled quantize of D whose split-K reduction kernel writes D
  /// (the GEMM kernel stores FP32 planes only): that kernel quantizes the
  /// blocks from rows staged in shared memory (emitSplitKReduction,
  /// qs_gemm_split_k_reduce_blocks). Null: none.
  std::shared_ptr<const ProducerBlockQuantizer> reductionBlocks;
  /// The global amax buffers of a quantize of D (emitGemm's outputAmaxes:
  /// current scaling, NVFP4) that the pass writing D max-combines max |D|
  /// into; the kernel's arguments after d. 0: none.
  int64_t outputAmaxes = 0;
  /// The arguments after d that the pass writing D takes: the output
  /// quantizer's scale and amax, the block quantizer's extraBuffers(), or
  /// the output amaxes.
  int64_t outputExtras() const;
  /// What the GEMM kernel's epilogue stores: D's type (stagedType()), or
  /// with split-K the FP32 partial results.
  Type storeType() const {
    return splitsK() ? Float32Type::get(outType.getContext()) : stagedType();
  }
  /// sm_90a with a block quantizer (outputBlocks: MXFP8, or FP8 1x128 of
  /// a 16-bit nominal type): a block's columns of a row are spread over
  /// the four threads of a quad (8 of every 32 each), so each consumer
  /// stages its rows in its nominal type as the TMA-store epilogue does
  /// (same buffers, chunks and stmatrix layout; no tensor map), then each
  /// thread reads back one block of a row, or of a column
  /// (GemmCode::stagedBlocks) and stores its scale and codes directly.
  /// sm_100a with column-wise MXFP8 blocks (a column's 32 rows are the
  /// lanes of a warp) likewise: each warp stages its 32 rows as its
  /// TMA-store epilogue does, then its lanes read the blocks back.
  bool stagesBlocks() const;
  /// FP8 1x128 column-wise blocks (128 x 1: the rows of every staging
  /// group, sm_90a's two consumers or sm_100a's four epilogue warps;
  /// canFuseBlockQuantizer): the groups stage each pass into their own
  /// buffers and meet at a barrier of all their threads (named barrier 1:
  /// 256 or 128 threads) instead of their own, then read each other's
  /// rows (GemmCode::stagedTransposedBlocks).
  bool stagesAcrossGroups() const;
  /// The staging groups (each with its own rows and two buffers): sm_90a's
  /// consumer warpgroups, tcgen05's epilogue warps.
  int64_t stagingGroups() const { return tcgen05 ? 4 : kConsumers; }
  /// The threads that read back one staging group's blocks
  /// (GemmCode::stagedBlocks): a consumer warpgroup, or a tcgen05 warp.
  int64_t stagedReaders() const { return tcgen05 ? 32 : kWarpgroup; }
  /// Where group 0's staging buffers start (group g's at g * 2 *
  /// stagingBufferBytes() after it): sm_90a's and persistent tcgen05
  /// kernels' after the ring, else (tcgen05) the ring's start.
  int64_t stagingStart() const {
    return tcgen05 && !persistent() ? 0 : stagingOffset();
  }
  /// The store chunks staged before each read-back pass: 1, or the 2 (both
  /// of the consumer's buffers) that hold a 1x128 block of 16-bit values.
  int64_t stagedChunkGroup() const;
  /// The type of the staged values: D's, or a staged block quantizer's
  /// nominal type.
  Type stagedType() const;
  int64_t stagedBytes() const {
    return stagedType().getIntOrFloatBitWidth() / 8;
  }
  int64_t storeChunkCols() const { return 128 / stagedBytes(); }
  int64_t storeChunks() const { return ceilDiv(tileN, storeChunkCols()); }
  /// One TMA-store staging buffer: a box of storeBoxRows() rows x 128
  /// bytes (sm_90a: a consumer has two; sm_100a: a warp has two, at the
  /// start of the stage ring or, persistent, after it).
  int64_t stagingBufferBytes() const { return storeBoxRows() * 128; }
  int64_t stagingOffset() const {
    return roundUp(convertedOffset() + convertedBytes(), 1024);
  }
  /// TMA-store staging after the ring: sm_90a two buffers per consumer;
  /// persistent tcgen05 kernels two per epilogue warp (their ring is busy
  /// with the next unit's loads; one block per tile stages in the ring).
  int64_t stagingBytes() const {
    if (!tmaStore && !stagesBlocks() && !outputTranspose)
      return 0;
    if (tcgen05)
      return persistent() ? 4 * 2 * stagingBufferBytes() : 0;
    return kConsumers * 2 * stagingBufferBytes();
  }
  int64_t barrierOffset() const { return stagingOffset() + stagingBytes(); }
  /// Full and empty barriers per stage; tcgen05 adds the "accumulator done"
  /// barrier (accumulator buffer 0's "full") and the word tcgen05.alloc
  /// writes the tensor-memory address to, and persistent tcgen05 kernels
  /// buffer 1's "full" and both buffers' "empty" barriers.
  int64_t doneBarrierOffset() const { return barrierOffset() + 16 * stages; }
  int64_t tmemSlotOffset() const { return doneBarrierOffset() + 8; }
  /// tcgen05: accumulator buffer `buffer`'s full barrier (the MMA thread's
  /// commit after the unit's last k-tile; buffer 0's is "done") and, with
  /// two buffers, its empty barrier (one arrival per epilogue thread once
  /// it has read the buffer).
  int64_t accFullOffset(int64_t buffer) const {
    return buffer ? doneBarrierOffset() + 16 : doneBarrierOffset();
  }
  int64_t accEmptyOffset(int64_t buffer) const {
    return doneBarrierOffset() + 24 + 8 * buffer;
  }
  /// fusesReduction() and stream-K: the word in which the unit's arrival
  /// tells the block whether it is its tile's last (16 bytes reserved).
  int64_t lastUnitFlagOffset() const {
    return barrierOffset() + 16 * stages +
           (!tcgen05          ? 0
            : epilogueWarps() ? 48
                              : 16);
  }
  bool arrives() const { return fusesReduction() || streamsK(); }
  int64_t sharedBytes() const {
    return lastUnitFlagOffset() + (arrives() ? 16 : 0);
  }
  /// sm_90a: a producer and two consumer warpgroups; tcgen05: four warps
  /// (TMA, MMA, scale factors, idle), all four in the epilogue, and
  /// persistent four more for the epilogue (warp 4 + q reads lane quarter
  /// q), which overlaps the next unit's MMAs.
  int64_t threads() const {
    if (tcgen05)
      return epilogueWarps() ? 2 * kWarpgroup : kWarpgroup;
    return kWarpgroup * (1 + kConsumers);
  }
  /// tcgen05 persistent kernels: warps 4-7 run the epilogue of each unit
  /// beside the other roles, synchronized by each accumulator buffer's
  /// full and empty barriers (one block per tile: all four warps, after
  /// the "done" barrier).
  bool epilogueWarps() const { return tcgen05 && persistent(); }
  /// tcgen05: accumulator buffers in tensor memory: persistent kernels
  /// have two (unit i of the block sums into buffer i % 2 while the
  /// epilogue warps read unit i - 1's) except with block-scaled 128x256
  /// tiles, where two would take all 512 columns and leave none for the
  /// scale factors (unit i + 1's MMAs then wait for unit i's epilogue to
  /// read the one buffer; its loads still run ahead); others one.
  int64_t accBuffers() const {
    if (!epilogueWarps())
      return 1;
    return sfChunks() > 0 && tileN == 256 ? 1 : 2;
  }
  /// tcgen05: the first scale-factor column (after the accumulators).
  int64_t accColumns() const { return accBuffers() * tileN; }
  /// tcgen05: tensor-memory columns to allocate (a power of 2 >= 32):
  /// accumulators in [0, accColumns()), then one scale-factor slot per
  /// stage (the k-tile in stage s copies its chunks to slot s; the stage's
  /// previous MMAs are complete by then, as its refill waited for them).
  int64_t tmemColumns() const {
    int64_t needed = accColumns() + stages * 4 * sfStageChunks(), columns = 32;
    while (columns < needed)
      columns *= 2;
    return columns;
  }
  int64_t accRegs() const { return tileN / 2; }
};

/// Stream-K (GemmPlan::streamsK()): what block g computes in its segment
/// s: `tile` in tile order (tileOf), its k-tiles [kBase, kBase + kCount),
/// `tileStart` the block's k-tiles before it (the stage ring's count).
template <typename V> struct StreamKSegment {
  V tile, kBase, kCount, tileStart;
};
/// How many blocks share a tile (1: one block computes it whole and stores
/// D) and block g's place among them (its plane).
template <typename V> struct StreamKSharing { V contributors, plane; };

/// Block g's segments (its stream-K range's tiles, then its data-parallel
/// tiles), segment s of them, and the sharing of its tile, in any
/// arithmetic: `ops` provides c(int64), add, sub, mul, div (of
/// non-negative values), min, max, lt and select(cond, a, b) on V (the
/// kernel's i32 values, GemmCode.cpp's I32Ops; int64_t in the plan and
/// the unit tests, IntegerOps). Block g's range
/// [lo, hi) = [g W / G, (g + 1) W / G) of the W stream-K k-tiles (x = t
/// kTiles() + k: k-tile k of stream-K tile t) is nonempty (W >= G);
/// k-tile x is in the range of block ((x + 1) G - 1) / W, the largest g
/// with g W / G <= x. (The kernels compute the sharing after the k-loop,
/// from the tile, so that it is not live across it.)
template <typename V, typename Ops> struct StreamKMath {
  const GemmPlan &plan;
  Ops &ops;
  int64_t kt = plan.kTiles(), w = plan.streamKIters(), blocks = plan.blocks();

  V lo(V g) { return ops.div(ops.mul(g, ops.c(w)), ops.c(blocks)); }
  V hi(V g) { return lo(ops.add(g, ops.c(1))); }
  /// Segments of block g's stream-K range.
  V ranged(V g) {
    return ops.add(ops.sub(ops.div(ops.sub(hi(g), ops.c(1)), ops.c(kt)),
                           ops.div(lo(g), ops.c(kt))),
                   ops.c(1));
  }
  V segments(V g) {
    return ops.add(ranged(g), ops.c(plan.dataParallelRounds()));
  }
  V owner(V x) {
    return ops.div(
        ops.sub(ops.mul(ops.add(x, ops.c(1)), ops.c(blocks)), ops.c(1)),
        ops.c(w));
  }
  StreamKSegment<V> segment(V g, V s) {
    V l = lo(g), h = hi(g), r = ranged(g);
    auto inRange = ops.lt(s, r);
    // A stream-K segment: tile t's k-tiles inside [lo, hi).
    V t = ops.add(ops.div(l, ops.c(kt)), s);
    V tileLo = ops.mul(t, ops.c(kt));
    V first = ops.max(l, tileLo);
    V last = ops.min(h, ops.add(tileLo, ops.c(kt)));
    // A data-parallel tile: round i = s - ranged (wraps where unused).
    V round = ops.sub(s, r);
    V dpTile = ops.add(ops.add(ops.c(plan.streamKTiles()), g),
                       ops.mul(round, ops.c(blocks)));
    StreamKSegment<V> seg;
    seg.tile = ops.select(inRange, t, dpTile);
    seg.kBase = ops.select(inRange, ops.sub(first, tileLo), ops.c(0));
    seg.kCount = ops.select(inRange, ops.sub(last, first), ops.c(kt));
    seg.tileStart =
        ops.select(inRange, ops.sub(first, l),
                   ops.add(ops.sub(h, l), ops.mul(round, ops.c(kt))));
    return seg;
  }
  StreamKSharing<V> sharing(V g, V tile) {
    auto streamed = ops.lt(tile, ops.c(plan.streamKTiles()));
    V tileLo = ops.mul(tile, ops.c(kt));
    V firstOwner = owner(tileLo);
    V lastOwner = owner(ops.add(tileLo, ops.c(kt - 1)));
    StreamKSharing<V> share;
    share.contributors = ops.select(
        streamed, ops.add(ops.sub(lastOwner, firstOwner), ops.c(1)), ops.c(1));
    share.plane = ops.select(streamed, ops.sub(g, firstOwner), ops.c(0));
    return share;
  }
};

/// StreamKMath's arithmetic on integers (the plan, the unit tests).
struct IntegerOps {
  int64_t c(int64_t v) { return v; }
  int64_t add(int64_t a, int64_t b) { return a + b; }
  int64_t sub(int64_t a, int64_t b) { return a - b; }
  int64_t mul(int64_t a, int64_t b) { return a * b; }
  int64_t div(int64_t a, int64_t b) { return a / b; }
  int64_t min(int64_t a, int64_t b) { return std::min(a, b); }
  int64_t max(int64_t a, int64_t b) { return std::max(a, b); }
  bool lt(int64_t a, int64_t b) { return a < b; }
  int64_t select(bool cond, int64_t a, int64_t b) { return cond ? a : b; }
};

/// qs.gemm_split_k = "auto": the split S (1: none) that a wave model of
/// the plan's time picks among the divisors of kTiles() up to
/// kMaxAutoSplitK (GemmPlan.cpp; docs/GPU.md "Split-K").
constexpr int64_t kMaxAutoSplitK = 16;
int64_t chooseSplitK(const GemmPlan &plan);
/// Split-K by default (GemmOperands::splitKDefault): chooseSplitK's split
/// where the model makes it faster than one block per tile by more than
/// its error on the H200's times (at most kDefaultSplitKGain of the
/// unsplit time), else 1: a split costs a workspace and a second kernel.
constexpr double kDefaultSplitKGain = 0.9;
int64_t chooseDefaultSplitK(const GemmPlan &plan);
/// The model's time of the plan's GEMM (and reduction) in microseconds
/// with split `splitK` (a divisor of kTiles()).
double modelGemmMicros(const GemmPlan &plan, int64_t splitK);
/// The plan with stream-K (GemmPlan::streamK) as "auto" would run it: no
/// split, the plan's persistent grid or one block per multiprocessor.
GemmPlan withStreamK(const GemmPlan &plan);
/// The model's time of a stream-K plan in microseconds: its slowest
/// block's k-tiles, segments and the planes it stores and sums.
double modelStreamKMicros(const GemmPlan &plan);
/// What "auto" picks: chooseSplitK's split, or stream-K where
/// `streamKApplies` (the GEMM meets stream-K's rules), its grid does not
/// divide the tiles and the model finds it faster than that split. With
/// the TMA-store epilogue and the reduction kernel (which the TMA store
/// does not support) the split is 1: only stream-K is considered.
struct KSplit {
  int64_t splitK = 1;
  bool streamK = false;
};
KSplit chooseKSplit(const GemmPlan &plan, bool streamKApplies);

} // namespace gemm
} // namespace gpuk
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOGPU_GEMMPLAN_H
