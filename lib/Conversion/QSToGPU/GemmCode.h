//===- GemmCode.h - GEMM kernels: plan and shared index code ----*- C++ -*-===//
//
// Private to the QSToGPU library. A GEMM kernel's plan (tile shape, stage
// ring, per-operand scaling) and the index arithmetic shared by the GPU
// kernels (GemmKernels.cpp, GemmTcgen05.cpp) and their CPU emulations
// (GemmEmulation.cpp, Tcgen05Emulation.cpp): tile order, shared-memory
// offsets, wgmma descriptors, fragment layout, block scales, promotion
// (GemmCode.cpp), NVFP4 conversion (GemmFp4Code.cpp), the epilogue
// (GemmEpilogue.cpp) and tcgen05's descriptors (Tcgen05Code.cpp). The plan
// is made in GemmPlan.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOGPU_GEMMCODE_H
#define QS_LIB_CONVERSION_QSTOGPU_GEMMCODE_H

#include "KernelBuilder.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include <functional>
#include <map>
#include <memory>

namespace mlir {
namespace qs {
namespace gpuk {
struct GemmOutputQuantizer;    // Kernels.h
struct ProducerBlockQuantizer; // Kernels.h
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
  StringRef typeA, typeB; // PTX names: e4m3 / e5m2
  Type outType;
  bool bias, accumulate;
  OperandPlan a, b;
  /// Block-scaled (FP8 block, MXFP8): each scale block of K (blockK wide)
  /// is summed on its own and promoted, times its two scales, into FP32
  /// totals; `groupsPerRound` blocks are summed at once (one accumulator
  /// set each) between two waits.
  bool blockScaled() const { return a.blockDim != 0 && !fp4(); }
  /// sm_90a per-tensor FP8 without fast_accumulate: each k-tile (128
  /// elements of K, four wgmma k-steps) is summed on its own and added to
  /// FP32 totals, as the block-scaled kernels promote (scales of 1; alpha
  /// in the epilogue). Hopper's FP8 wgmma keeps only about 14 bits of a
  /// running sum, so this is what makes the accumulation FP32 (CUTLASS's
  /// promotion interval of 4 k-steps, cuBLASLt without FAST_ACCUM).
  bool splitAccumulator = false;
  /// Whether the consumers sum each scale block (or k-tile) into fresh
  /// accumulators and promote it into FP32 totals.
  bool promotes() const { return blockScaled() || splitAccumulator; }
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
  /// 128-byte swizzled row of packed codes).
  int64_t kTileElems() const { return tcgen05 && fp4() ? 2 * kTileK : kTileK; }
  /// Bytes of one row of a k-tile as loaded (FP4 packs two codes a byte).
  int64_t rowBytes() const { return fp4() ? kTileElems() / 2 : kTileElems(); }
  /// sm_90a: MN-major FP8 operands (MXFP8 column-wise data, per-tensor FP8
  /// without a transpose buffer) are copied transposed, K-major, into
  /// shared memory after the ring, as FP8 wgmma reads K-major tiles only.
  bool transposes() const { return !tcgen05 && (a.mnMajor || b.mnMajor); }
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
  int64_t pitch() const { return fp4() ? k / 2 : k; }
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
  /// sm_90a NVFP4: two buffers (k-tile kt converts into buffer kt % 2
  /// while the wgmmas of kt - 1 read the other) of converted f16 tiles
  /// after the ring (128 x 128 f16 of A, tileN x 128 of B, each as two
  /// K-major 64-element chunks with the 128-byte swizzle). sm_90a MN-major
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
  int64_t convertedBufferBytes() const { return (kTileM + tileN) * 256; }
  int64_t convertedBytes() const {
    if (fp4() && !tcgen05)
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
    return isa<Float8E4M3FNType, Float8E5M2Type>(outType) && !outputBlocks;
  }
  /// A fused output quantizer with a transpose buffer (GemmOutputQuantizer::
  /// transpose; sm_90a, one pass writing D, canFuseOutputQuantizer): each
  /// consumer stages its codes chunk by chunk as the TMA-store epilogue
  /// does (64 rows x 128 one-byte columns per buffer), then its threads
  /// read them back (GemmCode::stagedCodes): rows 16 bytes at a time
  /// (unless the TMA store writes them) and 4 x 16 blocks transposed into
  /// the [N, M] buffer, the kernel's argument after the amax.
  bool outputTranspose = false;
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

/// The fields of a tcgen05 instruction descriptor (PTX ISA "Instruction
/// descriptor format"). Block-scaled kinds (mxf8f6f4, mxf4nvf4): sparsity
/// 0, B scale-factor id (bits 4-5), A and B types (7-9, 10-12; mxf8f6f4:
/// E4M3 0, E5M2 1; mxf4nvf4: E2M1 1), MN-major A and B (15, 16), N >> 3
/// (17-22), scale type (23: UE4M3 0, UE8M0 1), M >> 7 (27-28; 24-26
/// reserved), A scale-factor id (29-30), K 32 / 64 (31 = 0). kind::f8f6f4
/// (per-tensor FP8): D type F32 = 1 in bits 4-5, the same type, N fields,
/// M >> 4 (24-28), no scale fields. (For M = 128 and 256 both M encodings
/// are the same bits.)
struct Tcgen05Instr {
  bool blockScaled = true;
  int64_t m = 128, n = 128;
  unsigned typeA = 0, typeB = 0;
  bool scaleE8M0 = true;
  /// MN-major A / B (bits 15 / 16).
  bool mnMajorA = false, mnMajorB = false;
  unsigned sfIdA = 0, sfIdB = 0;
  /// kind::f8f6f4: the D type (F32 = 1).
  unsigned dType = 1;
  uint32_t encode() const;
  static Tcgen05Instr decode(uint32_t bits, bool blockScaled);
};

/// The GEMM's index arithmetic, shared by the GPU kernel and the emulation.
struct GemmCode {
  KernelEnv &env;
  const GemmPlan &plan;

  Value i(int64_t v) { return env.idx(v); }
  Value shl(Value a, int64_t s);
  Value shr(Value a, int64_t s);
  Value band(Value a, int64_t m);
  Value minI(Value a, Value c);

  /// Tile (row, column) of work unit `unit` (GemmPlan::splitK: of its tile
  /// unit % tiles()): groups of 8 tile rows walk the tile columns together,
  /// so consecutive tiles (blocks) share B tiles in L2.
  std::pair<Value, Value> tileOf(Value unit);
  /// Enters work unit `unit`: sets `split` and `kBase` (split-K; null
  /// otherwise) for the code of its k-loop and epilogue.
  void beginUnit(Value unit);
  /// Split-K: the unit's split of K (its plane of the workspace), its
  /// first k-tile and its output tile (unit % tiles()); null without
  /// split-K.
  Value split = {}, kBase = {}, tile = {};
  /// Inside forEachTile's loops: the unit's place among the block's units
  /// (a persistent block's iteration, a stream-K block's segment); null
  /// for a block of one unit. tcgen05: it picks the accumulator buffer.
  Value unitIndex = {};
  /// GemmPlan::fusesReduction(): while set, epilogue, tmemEpilogue and
  /// epilogueAt emit the last unit's pass instead of the plane stores:
  /// each value is the sum of the S planes at its position (in plane
  /// order), plus bias and C, stored to D (`acc` is not read).
  bool reducing = false;
  /// Stream-K (GemmPlan::streamsK()): the segment's k-tile count, and
  /// (set by sharesTile) how many blocks share its tile (`split` is this
  /// block's plane among them, `tile` the tile's index in tile order);
  /// null otherwise.
  Value kCount = {}, contributors = {};
  /// The unit's k-tiles: kCount, or kTilesPerUnit().
  Value unitKTiles() { return kCount ? kCount : i(plan.kTilesPerUnit()); }
  /// Stream-K, after the segment's k-loop: whether its tile is shared
  /// (the segment stores a plane and arrives) rather than computed whole
  /// (stores D); sets `contributors` and `split` of block `block`.
  Value sharesTile(Value block);
  /// Stream-K: while set, the epilogue stores the segment's plane (alpha
  /// applied, no bias or C) instead of D.
  bool storingPlane = false;
  /// A block quantizer of D (GemmPlan::outputBlocks), set by tmemEpilogue
  /// around each tmemColumns call of a block's 32-column chunks:
  /// `blockAmax` the running max |v| of the block's values so far (f32,
  /// from +0); with `blockAmaxOnly` the call only raises it (a 1x128
  /// block's first pass over its four chunks); else it raises it, then
  /// encodes the chunk with the block's scale (stored with the first
  /// chunk, `blockChunk` 0) and stores its codes.
  Value blockAmax = {};
  bool blockAmaxOnly = false;
  int64_t blockChunk = 0;
  /// Whether the epilogue about to run writes D through the TMA-store
  /// staging (GemmPlan::tmaStore; or staged blocks, GemmPlan::
  /// stagesBlocks; or a transposed FP8 output, GemmPlan::outputTranspose):
  /// D itself (a whole tile, or the last unit's reducing
  /// pass), not a split-K or stream-K FP32 plane, which goes to the
  /// workspace directly.
  bool stagesStores() const {
    return (plan.tmaStore || plan.stagesBlocks() || plan.outputTranspose) &&
           !storingPlane &&
           (reducing || !plan.splitsK());
  }
  /// D among the epilogue's arguments of the emulation (the last but the
  /// output quantizer's scale and amax, or the output amaxes, and the
  /// workspace).
  Value outputD(ValueRange args) const { return outputExtra(args, -1); }
  /// Argument `k` after D (GemmPlan::outputExtras; -1: D itself).
  Value outputExtra(ValueRange args, int64_t k) const {
    size_t after =
        (plan.splitsK() || plan.streamsK() ? 1 : 0) + plan.outputExtras();
    return args[args.size() - after + k];
  }
  /// Stream-K, after a segment's k-loop (the GPU kernel's and the
  /// emulation's): where block `block` shares the tile, `storePlane()`
  /// with storingPlane set, then `arrive()`; else `storeD()`.
  void finishSegment(Value block, const std::function<void()> &storePlane,
                     const std::function<void()> &arrive,
                     const std::function<void()> &storeD);
  /// Stream-K: the workspace offset of D's (row, col) in plane `plane` of
  /// stream-K tile `tile` (GemmPlan::streamKPlanes).
  Value streamKElement(Value plane, Value row, Value col);
  /// Fused arrivals: the i32 count of units that arrive on the tile's
  /// counter before its last one (split-K: S - 1; stream-K: the
  /// segment's contributors - 1).
  Value arrivalsBeforeLast();
  /// Runs `body(j)` for each of the unit's k-tiles j in [0, unitKTiles()).
  void forEachUnitKTile(const std::function<void(Value)> &body);
  /// GemmPlan::fusesReduction(): the tiles' arrival counters, a
  /// memref<tiles() x i32> global of the kernel's module (zero-initialized;
  /// global memory on the GPU).
  Value splitKCounters();
  /// The sum, in plane order, of the `vec` FP32 values at element `at` of
  /// each plane of the [S, M, N] `workspace` (vector loads of `vec`
  /// elements: `at` is a multiple of `vec`).
  SmallVector<Value> sumPlanes(Value workspace, Value at, int64_t vec);
  /// The k-tile (of the whole K) of the unit's k-tile `j` (of
  /// kTilesPerUnit()): data and scales are read at it, while the stage
  /// ring and the accumulators' first-step predicates count `j`.
  Value kTileOf(Value j) { return kBase ? env.add(kBase, j) : j; }
  /// Runs `body(tm, tn, tileStart)` for each work unit of block `block`
  /// (beginUnit first): its own, or (persistent) units block, block +
  /// blocks(), ... in a loop; `tileStart` counts the k-tiles of the
  /// block's earlier units, so that it = tileStart + j numbers the block's
  /// k-tiles through the stage ring (stage it % stages, round it /
  /// stages).
  void forEachTile(Value block,
                   const std::function<void(Value, Value, Value)> &body);
  /// The same for the block's iterations phase, phase + period, ... only
  /// (persistent kernels; ping-pong consumer c: phase c, period 2).
  void forEachTile(Value block,
                   const std::function<void(Value, Value, Value)> &body,
                   Value phase, int64_t period);
  /// Multicast pairs: the tile the pair's block of rank `rank` computes in
  /// the same iteration of forEachTile as block `block` (whose tile's
  /// k-tiles start at `tileStart`).
  Value pairTile(Value block, Value tileStart, int64_t rank);

  /// Shared-memory byte offsets (from the 1024-aligned base) of a stage.
  Value stageA(Value s) { return env.mul(s, i(plan.stageBytes())); }
  Value stageB(Value s) { return env.add(stageA(s), i(plan.aBytes())); }
  Value fullBarrier(Value s);
  Value emptyBarrier(Value s);

  /// wgmma shared-memory descriptor of a K-major tile with 128-byte
  /// swizzle at byte address `address`: start address >> 4 (bits 0-13),
  /// leading byte offset 1 (unused for swizzled K-major), stride byte offset
  /// 1024 >> 4 (8 rows of 128 bytes; bits 32-45), layout 1 = 128-byte
  /// swizzle (bits 62-63).
  Value descriptor(Value address);
  /// The descriptors of k-step `j` (32 bytes further along K).
  Value stepDescriptor(Value base, int64_t j);
  /// The K-major tiles wgmma reads in stage `s`: the stage's, or for an
  /// MN-major operand its transposed copy in buffer `buffer` (0 or 1;
  /// GemmPlan::transposeBuffers).
  Value tileA(Value s, Value buffer) {
    return plan.a.mnMajor ? transposedTile(buffer, 0) : stageA(s);
  }
  Value tileB(Value s, Value buffer) {
    return plan.b.mnMajor
               ? transposedTile(buffer, plan.a.mnMajor ? kTileM * kTileK : 0)
               : stageB(s);
  }
  Value transposedTile(Value buffer, int64_t offset) {
    return env.add(i(plan.convertedOffset() + offset),
                   env.mul(buffer, i(plan.transposedBytes())));
  }
  /// The transposed-tile buffer of the block's k-tile `it`.
  Value transposeBuffer(Value it) {
    return plan.transposeBuffers() == 2 ? band(it, 1) : i(0);
  }
  Value descA(Value base, Value s, Value buffer, Value consumer);
  /// `chunk`: B's rows [chunk * mmaN(), (chunk + 1) * mmaN()) (128 rows of
  /// 128 bytes further on).
  Value descB(Value base, Value s, Value buffer, int64_t chunk = 0);

  /// sm_90a MN-major operands: consumer thread `thread` (of 256) copies its
  /// 16 x 16-byte block of stage `s`'s [128 K rows, tile rows] tile
  /// (unswizzled) transposed into the operand's K-major swizzled tile
  /// (tileA / tileB of buffer `buffer`). Block q of an operand with R / 16 = n
  /// column blocks: MN block q % n, K block ((q % n) * 8 / n + q / n) % 8, so
  /// the eight threads of each quarter warp (one 16-byte access each) read
  /// eight different 16-byte columns and write eight different swizzled chunks.
  /// A's blocks go to threads [0, 64), B's to [128, 128 + tileN / 2).
  /// `load16(offset)` returns the four i32 words at a shared-memory offset,
  /// `store16(offset, words)` stores four i32 at an offset before
  /// swizzling.
  void
  transposeTiles(Value thread, Value s, Value buffer,
                 const std::function<SmallVector<Value>(Value)> &load16,
                 const std::function<void(Value, ArrayRef<Value>)> &store16);

  /// PTX prmt.b32 (default mode) of i32 values: byte i of the result is
  /// byte selector[4i+2:4i] of {b, a} (a: bytes 0-3). Selector bits 4i+3
  /// (sign replication) must be clear: the emulation does not model them,
  /// and the kernels' selectors (constants, or built with nibbles < 8)
  /// never set them. nvvm.prmt on the GPU, emulated otherwise.
  Value prmt(Value a, Value b, Value selector);
  Value prmt(Value a, Value b, uint32_t selector);
  /// f16x2 (i32) with both halves the E4M3 code `code` (i8) as f16 (exact):
  /// cvt.rn.f16x2.e4m3x2 on the GPU.
  Value e4m3SplatF16x2(Value code);
  /// mul.rn.f16x2 of two f16x2 (i32) values.
  Value mulF16x2(Value a, Value b);

  /// NVFP4: byte offset of the converted f16 tile of A (or B) in buffer
  /// `buffer` (0 or 1), and of row `row`, element `e` (of 64) of its
  /// K-chunk `chunk`, before swizzling.
  Value convertedA(Value buffer) {
    return env.add(i(plan.convertedOffset()),
                   env.mul(buffer, i(plan.convertedBufferBytes())));
  }
  Value convertedB(Value buffer) {
    return env.add(convertedA(buffer), i(kTileM * 256));
  }
  Value convertedAt(Value tile, int64_t rows, Value chunk, Value row, Value e);
  /// NVFP4: the descriptors of f16 k-step j (16 elements, 32 bytes) of
  /// consumer `consumer`'s A rows and of B, in buffer `buffer`.
  Value f16DescA(Value base, Value buffer, Value consumer, int64_t j);
  Value f16DescB(Value base, Value buffer, int64_t j);

  /// Row (of 64) and column (of tileN) of accumulator register `r` of
  /// thread `t` of a warpgroup (the m64nNk32 f32 fragment layout).
  std::pair<Value, Value> fragment(Value t, Value r);

  /// scale_inv of block (row, kb) of an operand's stored matrix; rows past
  /// the end read the last row's scale (their results are not stored).
  Value blockScale(const OperandPlan &op, Value scales, Value row, Value kb);
  /// MXFP8 / NVFP4: the block's scale code itself (E8M0 / E4M3, i8).
  Value blockScaleCode(const OperandPlan &op, Value scales, Value row,
                       Value kb);
  /// MXFP8, K-major (GemmPlan::packedScales): the i32 word of the E8M0
  /// codes of blocks 4 ktile .. 4 ktile + 3 of row `row` (rows past the end
  /// read the last row's), little-endian.
  Value scaleWord(const OperandPlan &op, Value scales, Value row, Value ktile);

  /// Offset of G[row, col] in cuBLAS's 128x4 tiling of a scale matrix with
  /// `cols` columns (te-formats.md §3.b).
  Value swizzledScale(Value row, Value col, int64_t cols);

  /// The block scales one thread needs for scale block `kt`: sA of the rows of
  /// its registers (a register's row depends on bit 1 of r; key (r >> 1) & 1
  /// for 1x128 A), sB of their columns (r / 4 and bit 0; key
  /// ((r >> 2) << 1) | (r & 1) for 1x128 B); one value for 128x128 blocks,
  /// uniform over a tile. Loaded before the k-tile's wgmmas, so the loads
  /// overlap them.
  struct TileScales {
    std::map<int64_t, Value> a, b;
    static int64_t keyA(const GemmPlan &p, int64_t r) {
      return p.a.perRow() ? (r >> 1) & 1 : 0;
    }
    static int64_t keyB(const GemmPlan &p, int64_t r) {
      return p.b.perRow() ? ((r >> 2) << 1) | (r & 1) : 0;
    }
    /// 128x128 B blocks in a 128x192 tile, whose 96-column chunks may
    /// straddle two blocks: b[0] is the scale of the block of the chunk's
    /// first column, b[1] of its last, and tile columns from `hiFrom` on
    /// take b[1] (a register's 8-column group never straddles; the choice
    /// is made in promote, after the wgmmas, so that two values, not one
    /// per group, stay live across them).
    Value hiFrom;
    /// GemmPlan::packedScales(op): that operand's map holds i32 words of a
    /// k-tile's four E8M0 codes (byte j: 32-block 4 kt + j) and `byte` is
    /// this block's byte; promote decodes it after the wgmmas (the words of
    /// all four blocks are the same loads), so 18 words stay live across
    /// them, not 72 decoded scales.
    Value byte;
  };
  /// `chunk`: registers [chunk * mmaRegs(), (chunk + 1) * mmaRegs()) only
  /// (GemmPlan::mmaChunks).
  TileScales loadScales(Value tm, Value tn, Value consumer, Value t, Value kt,
                        Value scalesA, Value scalesB, int64_t chunk = 0);

  /// Block FP8 promotion of a k-tile: total[r] + (sA * sB) * partial[r] for
  /// every register (the reference's order), through `update(r, value)`;
  /// per-tensor FP8 (split accumulator, no scales loaded): total[r] +
  /// partial[r]. `chunk`: registers r of [chunk * mmaRegs(), (chunk + 1) *
  /// mmaRegs()) only, whose partial sums are partial(r - chunk * mmaRegs()).
  void promote(TileScales &scales, const std::function<Value(int64_t)> &partial,
               const std::function<Value(int64_t)> &total,
               const std::function<void(int64_t, Value)> &update,
               int64_t chunk = 0);

  /// NVFP4: thread `t` of consumer `consumer` converts its half-row of A
  /// and of B for k-tile `kt` (stage `s`, buffer kt % 2): 32 packed bytes
  /// (64 E2M1 codes, low nibble first) times their four E4M3 block scales, to
  /// f16 (exact: at most 6 significant bits, magnitudes in [2^-10, 2688]),
  /// written as eight 16-byte groups into the swizzled f16 tile. Two codes (a
  /// byte) at a time: one prmt looks up both f16 high bytes in an 8-byte table
  /// (E2M1 magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6 have zero low bytes), the
  /// sign bits are or-ed in, and one mul.rn.f16x2 applies the scale (its
  /// f16x2 splat from cvt.rn.f16x2.e4m3x2). `load16(offset)` returns the
  /// four i32 words at a shared-memory offset, `store16(offset, words)`
  /// stores four i32 there. `codes`: fp4ScaleCodes of k-tile kt.
  void convertFp4(Value consumer, Value t, Value kt, Value s,
                  ArrayRef<Value> codes,
                  const std::function<SmallVector<Value>(Value)> &load16,
                  const std::function<void(Value, ArrayRef<Value>)> &store16);
  /// NVFP4: the E4M3 block-scale codes (i8) convertFp4 applies for k-tile
  /// `kt`: the four 16-blocks of the thread's half-row of A, then of B
  /// (blocks past K read the last one's). The kernel loads those of k-tile
  /// kt + 1 while it converts kt (a loop-carried prefetch; the emulation
  /// keeps them in a buffer the same way), so their global-memory latency
  /// is not waited out in every k-tile.
  SmallVector<Value> fp4ScaleCodes(Value tm, Value tn, Value consumer, Value t,
                                   Value kt, Value scalesA, Value scalesB);

  //===--------------------------------------------------------------------===//
  // tcgen05 (sm_100a)
  //===--------------------------------------------------------------------===//

  /// Byte offset of scale-factor chunk `c` of operand `op` (0: A, 1: B),
  /// row group `g` (GemmPlan::sfGroups), in stage `s` (after the stage's A
  /// and B tiles).
  Value stageSf(Value s, int64_t op, int64_t c, int64_t g = 0);
  /// sm_100 shared-memory matrix descriptor of operand `op`'s tile with
  /// 128-byte swizzle at `address`: start >> 4 (bits 0-13), leading byte
  /// offset >> 4 (bits 16-29: K-major 1, unused when swizzled; MN-major the
  /// distance between 128-byte atoms along M or N, mnAtomBytes()), stride
  /// byte offset 1024 >> 4 (bits 32-45: 8 rows of 128 bytes, along M or N
  /// for K-major, along K for MN-major), version 1 (bits 46-47), base
  /// offset 0 (bits 49-51: tiles are 1024-aligned), layout 2 = 128-byte
  /// swizzle (bits 61-63).
  Value ummaDescriptor(Value address, const OperandPlan &op);
  /// The descriptor of MMA k-step `j` of operand `op` from its tile's
  /// descriptor: 32 bytes further along K (K-major), or 32 rows of 128
  /// bytes (MN-major: rows along K in every atom).
  Value mmaStep(const OperandPlan &op, Value desc, int64_t j);
  /// Descriptor of a 512-byte scale-factor chunk read by tcgen05.cp
  /// .32x128b: 32 rows of 16 bytes, no swizzle, stride byte offset 128
  /// (8 rows), version 1.
  Value sfDescriptor(Value address);
  /// The first tensor-memory column of the current unit's accumulator
  /// buffer: 0, or with two buffers (persistent) tileN for the block's odd
  /// units (unitIndex).
  Value accColumn();
  /// Tensor-memory column of scale-factor chunk `c`, row group `g` of
  /// operand `op` in slot `slot` (the stage): each chunk takes 4 columns
  /// (column q holds rows 32q + lane of the group), a B chunk's groups
  /// adjacent (GemmPlan::sfChunkIndex).
  Value sfColumn(Value slot, int64_t op, int64_t c, int64_t g = 0);
  /// The instruction descriptor of k-step `j` (of 4) of a k-tile: MXFP8
  /// reads scale byte j of each 32-bit column (one 32-block per K = 32
  /// step); NVFP4 reads all four bytes (four 16-blocks per K = 64 step);
  /// per-tensor FP8 (kind::f8f6f4) has no scale factors.
  Tcgen05Instr instr(int64_t j) const;
  /// Lane `lane` of the scale-factor warp writes row `lane` of each of
  /// k-tile `kt`'s chunks in stage `s`: the 4-block words of tile rows
  /// lane, lane + 32, lane + 64 and lane + 96 (cuBLAS's 128x4 tile, which
  /// is what tcgen05.cp .32x128b.warpx4 copies to 4 columns of all 128
  /// lanes), from compact or GEMM-swizzled scales alike (both keep a row's
  /// 4 blocks in one aligned word). FP8 block scaling (as TE on Blackwell):
  /// the E8M0 byte of each FP32 scale_inv (its exponent bits 30-23, exact
  /// for power-of-two scales), for the four 32-blocks of its 128-block.
  /// Blocks past K become 1.0 (their codes are zero, their stored scales
  /// may be NaN); rows past the end read the last row. `loadWord(scales, offset)` returns the 4 bytes at a byte
  /// offset as i32 (little-endian), `store16(offset, words)` stores four
  /// i32 at a shared-memory offset.
  /// MN-major compact MXFP8 scales keep a row's blocks apart
  /// (`loadByte(scales, offset)`: one byte as i32).
  void gatherScales(Value tm, Value tn, Value lane, Value kt, Value s,
                    Value scalesA, Value scalesB,
                    const std::function<Value(Value, Value)> &loadWord,
                    const std::function<Value(Value, Value)> &loadByte,
                    const std::function<void(Value, ArrayRef<Value>)> &store16);

  /// The epilogue of the thread that reads tensor-memory lane `tmemLane`
  /// (output row tm * 128 + tmemLane), 32 columns at a time: `load(chunk)`
  /// reads columns [32 chunk, 32 chunk + 32) of the lane and returns
  /// accessor r -> the FP32 accumulator's bits (i32) of column 32 chunk + r.
  /// With a block quantizer of 1x128 blocks each block's four chunks are
  /// read twice: for the block's amax, then for its codes.
  void tmemEpilogue(
      ValueRange args, Value tm, Value tn, Value tmemLane,
      const std::function<std::function<Value(int64_t)>(int64_t)> &load);
  /// GemmPlan::tmaStore on sm_100a: the same values for store chunk
  /// `chunk` only (columns chunk * storeChunkCols() ... of the tile: 128
  /// bytes of the row, from one or two of `load`'s 32-column chunks), each
  /// 16-byte group handed to `store(offset, values)` with its byte offset
  /// in the warp's 32 x 128-byte staging buffer before swizzling
  /// (tmemLane % 32 * 128 + column bytes). Values past D's edges are
  /// computed as well; the TMA store does not write them.
  void tmemStagedChunk(
      ValueRange args, Value tm, Value tn, Value tmemLane, int64_t chunk,
      const std::function<std::function<Value(int64_t)>(int64_t)> &load,
      const std::function<void(Value, ArrayRef<Value>)> &store);

  /// The epilogue of consumer `consumer`'s thread `t`: register r (from
  /// `acc`) to D[row, col] = alpha acc (+ bias[col]) (+ C[row, col]), alpha
  /// = scale_inv_A * scale_inv_B for per-tensor FP8 (block scales are
  /// already applied).
  void epilogue(Value tm, Value tn, Value consumer, Value t, ValueRange args,
                const std::function<Value(int64_t)> &acc);
  /// GemmPlan::tmaStore: the same values for store chunk `chunk` only (the
  /// thread's registers [chunk * storeChunkCols() / 2, ...) of rows `half`
  /// * 64 ..., columns chunk * storeChunkCols() ... of the tile), each pair
  /// of adjacent columns handed to `store(g, offset, values)` in order (g =
  /// 0, 1, ...: the pair of registers 2g and 2g + 1) with its byte offset
  /// in the chunk's 64 x 128-byte staging buffer before swizzling (row *
  /// 128 + column bytes). Values past D's edges are computed as well (from
  /// clamped bias / C positions); the TMA store does not write them.
  void stagedEpilogueChunk(
      Value tm, Value tn, Value half, Value t, ValueRange args, int64_t chunk,
      const std::function<Value(int64_t)> &acc,
      const std::function<void(int64_t, Value, ArrayRef<Value>)> &store);
  /// 16-bit outputs of the TMA-store epilogue are staged with
  /// `stmatrix.sync.aligned.m8n8.x4.shared.b16`: a store chunk's pairs 4q
  /// .. 4q + 3 of a thread (registers 8q .. 8q + 7: columns 16q .. 16q +
  /// 15 of the chunk, rows r and r + 8 of its warp's 16) are the four 8x8
  /// matrices of stmatrix q (columns 16q .. +7 rows 0-7, rows 8-15, then
  /// columns 16q + 8 .. +15 likewise), each lane's word i being row lane /
  /// 4, columns 2 (lane % 4) of matrix i: wgmma's fragment order. Lane l
  /// supplies the address of row l % 8 of matrix l / 8; this is that row's
  /// byte offset in the staging buffer before swizzling (a 16-byte piece
  /// of one 128-byte row, which the swizzle keeps whole), for consumer
  /// thread `t` (0-127).
  Value stmatrixRow(Value t, int64_t q);
  /// GemmPlan::stagesBlocks, once the store chunks of read-back pass
  /// `pass` (chunks pass * g ... of g = stagedChunkGroup(), chunk j of
  /// them in buffer j) of rows `group` * R ... of tile (tm, tn) are staged
  /// (stagedEpilogueChunk, tmemStagedChunk: the values in the quantize's
  /// nominal type, R = storeBoxRows() rows x 128 bytes per chunk): block
  /// u of the R b blocks of the pass (row u / b, block u % b of the b
  /// blocks per row: MXFP8 2 (bf16, f16) or 1 (f32), FP8 1x128 1) is read
  /// by reader `t` = u % stagedReaders() (sm_90a: one block per consumer
  /// thread, threads 64-127 have none for f32; sm_100a: a lane reads R b /
  /// 32) back 16
  /// bytes at a time by `load(offset)` (the values at byte `offset` of
  /// the pass's buffers before swizzling: buffer j's bytes at j *
  /// stagingBufferBytes()); its amax, scale (stored) and codes, 32 at a
  /// time (32-byte stores; a 1x128 block is read twice, for the amax and
  /// for the codes, so no thread holds its 128 values). Blocks outside D
  /// (N a multiple of the block: whole blocks) are skipped.
  /// With column-wise MXFP8 blocks too (or only), stagedColumnBlocks
  /// follows, reading single values with `loadValue(offset)`; with FP8
  /// 1x128 column-wise blocks, stagedTransposedBlocks, reading with
  /// `loadShared(offset)` (a value at byte `offset` of every group's
  /// staging before swizzling: group g's buffers from g * 2 *
  /// stagingBufferBytes() on).
  void stagedBlocks(Value tm, Value tn, Value group, Value t, ValueRange args,
                    int64_t pass,
                    const std::function<SmallVector<Value>(Value)> &load,
                    const std::function<Value(Value)> &loadValue,
                    const std::function<Value(Value)> &loadShared = nullptr);
  /// A block quantizer's column-wise codes and scales among the
  /// epilogue's arguments (ProducerBlockQuantizer::extraBuffers; the codes
  /// are D without row-wise usage).
  std::pair<Value, Value> columnBuffers(ValueRange args) const;
  /// The FP8 1x128 column-wise blocks (128 x 1) of a pass
  /// (stagesAcrossGroups: its two chunks of every group staged, 128 rows
  /// x 128 16-bit columns): C = 128 / stagingGroups() readers of each
  /// group take a column each, column C group + t - (R - C) of the pass
  /// (R = stagedReaders(): sm_90a consumer threads 64-127, whose threads
  /// 0-63 read the row blocks; each lane of a tcgen05 warp, which reads
  /// its row block too), read its 128 values with `loadShared` for the amax
  /// (rows past M not counted), store the FP32 scale_inv (the column-wise
  /// scales, `columnScale`), then read them again 32 at a time, encode them and
  /// store the codes in the transposed [N, M] layout, 16 bytes at a time
  /// (rows past M skipped: M % 16 == 0). Columns past N are skipped.
  void stagedTransposedBlocks(Value tm, Value tn, Value group, Value t,
                              ValueRange args, int64_t pass,
                              const std::function<Value(Value)> &loadShared);
  /// The column-wise MXFP8 blocks (32 x 1) of a staged chunk (pass `pass`,
  /// one chunk: R rows x W columns, W = storeChunkCols()): block u takes
  /// column u % W, rows 32 (u / W) ... + 31 of the group's R (read by `t`
  /// = u % stagedReaders(): sm_90a's consumer thread, R = 64, W = 32 for
  /// FP32 leaves threads 64-127 none; sm_100a's lane, R = 32), reads its
  /// 32 values with `loadValue(offset)` (one nominal-typed value at byte
  /// `offset` of the chunk's buffer before swizzling; a warp reads 32
  /// consecutive columns of a row, conflict-free), stores its E8M0 scale
  /// and its 32 codes in x's layout, one byte per row (a warp's stores
  /// fill 32 consecutive bytes of a row). Blocks outside D are skipped
  /// (M is a multiple of 32: whole blocks).
  void stagedColumnBlocks(Value tm, Value tn, Value group, Value t,
                          ValueRange args, int64_t pass,
                          const std::function<Value(Value)> &loadValue);
  /// GemmPlan::outputTranspose, once store chunk `chunk` of consumer
  /// `group`'s rows of tile (tm, tn) is staged (64 rows x 128 FP8 codes):
  /// consumer thread `t` reads 4-byte words back with `loadWord(offset)`
  /// (the codes at byte `offset` of the chunk's buffer before swizzling,
  /// the first in the low byte), or four at a time with `load16(offset)`,
  /// and stores
  /// - unless the TMA store writes the rows (GemmPlan::tmaStore): row t /
  ///   2, bytes 64 (t % 2) ... + 63 of the chunk, four 16-byte loads and
  ///   stores into D (a quarter warp's 16-byte loads hit eight distinct
  ///   bank groups under the swizzle);
  /// - the transpose: columns 4 (t % 32) ... + 3 of rows 16 (t / 32) ...
  ///   + 15 (16 words; a warp reads one whole 128-byte row per load), one
  ///   16-byte store per column into row `column` of the [N, M]
  ///   transpose.
  /// Rows past M (16 at a time: M % 16 == 0) and columns past N (N % 16
  /// == 0) are skipped.
  void stagedCodes(Value tm, Value tn, Value group, Value t, ValueRange args,
                   int64_t chunk, const std::function<Value(Value)> &loadWord,
                   const std::function<SmallVector<Value>(Value)> &load16);
  /// GemmPlan::tmaStore: D's first row and column of the TMA store box of
  /// store chunk `chunk` of tile (tm, tn) for box row group `group` (a
  /// consumer's 64 rows on sm_90a, a warp's 32 on sm_100a); the kernels
  /// store there, the emulation reads its box back from there.
  std::pair<Value, Value> storeBox(Value tm, Value tn, Value group,
                                   int64_t chunk);
  /// The same for `count` values: value r (from `acc`) goes to output
  /// element `position(r)` = (row, column) of D. Values come in groups of
  /// `vec` (r = g vec + e at (row, col + e), col a multiple of vec): when N
  /// is a multiple of the group size a group is inside D or outside it as
  /// a whole and is stored with one vector store (vec halves until it
  /// divides N).
  /// With `sink`, each group's values go to sink(g * vec, values) instead,
  /// whether inside D or not.
  void
  epilogueAt(ValueRange args, int64_t count, int64_t vec,
             const std::function<std::pair<Value, Value>(int64_t)> &position,
             const std::function<Value(int64_t)> &acc,
             const std::function<void(int64_t, ArrayRef<Value>)> &sink = {});
  /// A fused output quantizer's FP8 codes (i8) of FP32 values:
  /// fp8_rn_sat(v * scale), in pairs (cvt.rn.satfinite on the GPU).
  SmallVector<Value> quantizeOutput(ArrayRef<Value> values, Value scale);
  /// Stores consecutive codes (i8) into D (FP8 elements) at element `at`.
  void storeCodes(ArrayRef<Value> codes, Value d, Value at);
  /// tmemEpilogue's 32 columns [32 ld, 32 ld + 32) of tensor-memory lane
  /// `tmemLane` (accumulator bits from `bits`; null in the reducing pass),
  /// stored to D or handed to `sink` as epilogueAt does.
  void tmemColumns(ValueRange args, Value tm, Value tn, Value tmemLane,
                   int64_t ld, const std::function<Value(int64_t)> &bits,
                   const std::function<void(int64_t, ArrayRef<Value>)> &sink);
};

/// D's value from an FP32 result: + bias (of any float type, or null), + C
/// (likewise), converted to `outType` (RNE; cvt.rn on the GPU). The GEMM
/// epilogue's and the split-K reduction's last steps.
Value finishOutput(KernelEnv &env, Value value, Value bias, Value c,
                   Type outType);
/// FP32 `value` converted to `outType` (RNE; cvt.rn on the GPU).
Value roundOutput(KernelEnv &env, Value value, Type outType);

/// The one-thread kernel launched before a GEMM with a fused output
/// quantizer: scale_inv = 1 / scale and the updated amax's initial value
/// max(state, +0), which the epilogues' atomics then raise.
void emitOutputQuantizerPrepare(OpBuilder &b, Location loc, ModuleOp module,
                                const GemmOutputQuantizer &quantizer,
                                const EmitOptions &options);

/// `vec` consecutive elements of a 1-D memref from element `at` (one
/// vector load, aligned to its size on the GPU; element-aligned in the
/// emulation, whose buffers may come from numpy).
SmallVector<Value> loadElements(KernelEnv &env, Value buffer, Value at,
                                int64_t vec);

/// Split-K (GemmPlan::splitK): the kernel that finishes D from the GEMM
/// kernel's FP32 planes, `workspace` [S, M, N]: D[e] = ((plane 0 + plane 1)
/// + ...) (+ bias) (+ C), element by element, in plane order (the same
/// sums on every run). Its launch follows the GEMM's on the same stream.
/// With `quantizer` (a fused output quantizer: D is FP8) it quantizes the
/// FP32 sums as the GEMM epilogue would (GemmCode::quantizeOutput) and
/// max-combines their |values| into quantizer->amaxOut; with
/// `outputAmaxes` it max-combines |D| into each.
void emitSplitKReduction(OpBuilder &b, Location loc, ModuleOp module,
                         const GemmPlan &plan, Value workspace, Value bias,
                         Value c, Value d, const EmitOptions &options,
                         const GemmOutputQuantizer *quantizer = nullptr,
                         ValueRange outputAmaxes = {});

/// The 128-byte swizzle of a shared-memory byte address: the 16-byte chunk
/// index (bits 4-6) XOR the row within 8 rows of 128 bytes (bits 7-9).
Value swizzle(GemmCode &code, Value address);

/// The emulated producer step (GemmEmulation.cpp): TMA of k-tile `kt` of
/// block tile (tm, tn)'s A and B tiles from `a` and `b` into stage `s` of
/// the shared-memory image `smem`, as the kernel's tensor maps box them:
/// K-major [tile rows, row bytes] or MN-major [K-tile rows, tile-rows
/// bytes], 128-byte swizzled if the plan's tiles of that operand are, zero
/// past the edges. Multicast pairs: B's half h (rows [h tileN / 2, (h + 1)
/// tileN / 2) of the tile) is what the pair's block of rank h loads, of its
/// own tile column `pairColumns[h]` (the same as tn when the pair's tiles
/// share B, as they must).
void emulateStageTma(GemmCode &code, Value smem, Value a, Value b, Value tm,
                     Value tn, Value kt, Value s,
                     ArrayRef<Value> pairColumns = {});

/// GemmPlan::fusesReduction() in the emulation, once every thread of the
/// unit stored its plane: the unit counts itself done on its tile's
/// counter and, if it is the last (the counter then goes back to zero),
/// runs `reduce` with code.reducing set (the GPU's BlockEmitter::
/// arriveAndReduce without the fences and barriers that blocks run one
/// after another do not need).
void emulateSplitKArrival(GemmCode &code, const std::function<void()> &reduce);

/// PTX prmt.b32 (default mode, selector bits 3, 7, 11, 15 clear) on i32
/// values, in arith (the emulation's).
Value emulatePrmt(KernelEnv &env, Value a, Value b, Value selector);

/// The emulation's staged FP8 codes (GemmPlan::outputTranspose): the
/// word of the four codes at byte `offset` of `staging` before swizzling
/// (the first in the low byte, as ld.shared.b32 reads them).
Value emulateStagedWord(GemmCode &code, Value staging, Value offset);

/// GemmPlan::tmaStore in the emulation: the TMA store of a box of
/// storeBoxRows() x 128 bytes staged (128-byte swizzled, as the kernels
/// write it) in `staging` (a memref of D's element type, one box) to D at
/// `origin` (row, column: GemmCode::storeBox), clipped at D's edges as
/// TMA clips it.
void emulateTmaStoreBox(GemmCode &code, Value staging, Value d,
                        std::pair<Value, Value> origin);
/// The epilogue's values written to `staging` at byte `offset` (before
/// swizzling) and on, as the kernels' shared-memory stores write them.
void emulateStaging(GemmCode &code, Value staging, Value offset,
                    ArrayRef<Value> values);
/// GemmPlan::stagesBlocks in the emulation: every reader's
/// GemmCode::stagedBlocks of read-back pass `pass` for staging group
/// `group`, from `staging` (emulateStaging's buffers of the pass, one after
/// another, from byte `base` on; GemmPlan::stagesAcrossGroups: every
/// group's buffers, `base` the group's).
void emulateStagedBlocks(GemmCode &code, Value staging, Value tm, Value tn,
                         Value group, ValueRange args, int64_t pass,
                         Value base);

/// Emulated 16-byte shared-memory store (GemmEmulation.cpp): four i32
/// words, little-endian, at byte `at` of the i8 memref `smem`.
void emulateStore16(KernelEnv &env, Value smem, Value at,
                    ArrayRef<Value> words);

/// The block's code on the GPU (GemmKernels.cpp) and in the emulation
/// (GemmEmulation.cpp); KernelDesc::blockBody.
void emitGpuBody(KernelEnv &env, const GemmPlan &plan);
void emitEmulatedBody(KernelEnv &env, const GemmPlan &plan, Type typeA,
                      Type typeB);
/// The sm_100a kernel (GemmTcgen05.cpp) and its emulation
/// (Tcgen05Emulation.cpp).
void emitTcgen05Body(KernelEnv &env, const GemmPlan &plan);
void emitTcgen05EmulatedBody(KernelEnv &env, const GemmPlan &plan, Type typeA,
                             Type typeB);

} // namespace gemm
} // namespace gpuk
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOGPU_GEMMCODE_H
