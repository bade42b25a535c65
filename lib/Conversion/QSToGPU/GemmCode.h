//===- GemmCode.h - GEMM kernels: shared index code -------------*- C++ -*-===//
//
// Private to the QSToGPU library. The index arithmetic shared by the GPU
// kernels (GemmKernels.cpp, GemmTcgen05.cpp) and their CPU emulations
// (GemmEmulation.cpp, Tcgen05Emulation.cpp): tile order, shared-memory
// offsets, wgmma descriptors, fragment layout, block scales, promotion
// (GemmCode.cpp), NVFP4 conversion (GemmFp4Code.cpp), the epilogue
// (GemmEpilogue.cpp) and tcgen05's descriptors (Tcgen05Code.cpp), from
// the kernel's plan (GemmPlan.h).
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOGPU_GEMMCODE_H
#define QS_LIB_CONVERSION_QSTOGPU_GEMMCODE_H

#include "GemmPlan.h"
#include "KernelBuilder.h"
#include <functional>
#include <map>
#include <memory>

namespace mlir {
namespace qs {
namespace gpuk {
struct GemmOutputQuantizer; // Kernels.h
namespace gemm {

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

  /// converts(): byte offset of the converted 16-bit tile of A (or B) in buffer
  /// `buffer` (0 or 1), and of row `row`, element `e` (of 64) of its
  /// K-chunk `chunk`, before swizzling.
  Value convertedA(Value buffer) {
    return env.add(i(plan.convertedOffset()),
                   env.mul(buffer, i(plan.convertedBufferBytes())));
  }
  Value convertedB(Value buffer) {
    return env.add(convertedA(buffer), i(kTileM * plan.convertedK() * 2));
  }
  Value convertedAt(Value tile, int64_t rows, Value chunk, Value row, Value e);
  /// converts(): the block-scale codes (i8) of row `rowInTile` of tile
  /// (tm, tn)'s A and of its B (rows past the end read the last row's), at
  /// scale blocks `blocks` of K each: A's, then B's.
  SmallVector<Value> operandScaleCodes(Value tm, Value tn, Value rowInTile,
                                       ArrayRef<Value> blocks, Value scalesA,
                                       Value scalesB);
  /// MXFP8 converted (GemmPlan::mxConverts): the E8M0 codes (zero-extended
  /// to i32) of the 32-blocks that thread `t` of consumer `consumer`
  /// converts in k-tile `kt`: A's, then B's. A K-major operand's two:
  /// halves 0 and 1 of row consumer * 64 + t % 64, block 4 kt + 2 h + t /
  /// 64 in half h. An MN-major operand's eight: of half 0, then of half 1,
  /// the blocks of its four tile rows (mxMNMajorSlice) at block 4 kt + 2 h
  /// + g / 4.
  SmallVector<Value> mxScaleCodes(Value tm, Value tn, Value consumer, Value t,
                                  Value kt, Value scalesA, Value scalesB);
  /// mxScaleCodes' codes per k-tile for operand `op`.
  static int64_t mxCodes(const OperandPlan &op) { return op.mnMajor ? 8 : 2; }
  /// MXFP8 converted, an MN-major operand: consumer thread T = consumer *
  /// 128 + t (lane l = T % 32, warp w = T / 32) converts tile rows 4 l ..
  /// 4 l + 3 at elements 8 g .. 8 g + 7 of each half k-tile, g = (w + l /
  /// 2) % 8: every load of a warp reads one 4-byte column of 32 different
  /// banks, and the eight lanes of a quarter warp store eight different
  /// swizzled chunks. Returns {first tile row, g}.
  std::pair<Value, Value> mxMNMajorSlice(Value consumer, Value t);
  /// MXFP8 converted: thread `t` of consumer `consumer` converts its share
  /// of half `h` (elements 64 h .. 64 h + 63 of the k-tile) of stage `s`'s
  /// A tile and of its B tile times the blocks' E8M0 scales (`codes`:
  /// mxScaleCodes') to bf16, into the converted K-major tiles of buffer
  /// `buffer`. A K-major operand (128-byte swizzled codes): 32 elements of
  /// one row, two 16-byte loads. An MN-major one ([128 K rows, tile rows]
  /// unswizzled, column-wise MXFP8 data): mxMNMajorSlice's 4 x 8 codes,
  /// eight 4-byte loads of four rows' codes at one k, transposed into
  /// 16-bit pairs along K with prmt, so that the conversion transposes as
  /// well (bf16 wgmma reads the K-major result; no FP8 transposing copy).
  /// Per 16-bit pair of codes cvt.rn.f16x2.e4m3x2 (e5m2x2), both halves to
  /// f32, mul.rn.f32 by the scale, cvt.rn.bf16x2.f32; the emulation
  /// decodes each code, multiplies and rounds to bf16 (exact but for
  /// products below 2^-126). `load4` / `load16` read 4 / 16 bytes at a
  /// shared-memory offset (as i32 words), `store16` writes four i32 at an
  /// offset before swizzling.
  void convertMx(Value consumer, Value t, Value s, int64_t h, Value buffer,
                 ArrayRef<Value> codes,
                 const std::function<Value(Value)> &load4,
                 const std::function<SmallVector<Value>(Value)> &load16,
                 const std::function<void(Value, ArrayRef<Value>)> &store16);
  /// converts(): the descriptors of 16-bit k-step j (16 elements, 32 bytes) of
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
    /// sA * sB by (keyA, keyB) (hiFrom: keyB 0 and 1 are b[0], b[1]),
    /// where multiplyScales computed them ahead of promote.
    std::map<std::pair<int64_t, int64_t>, Value> products;
  };
  /// The products of every A and B scale of `scales` (not packed), now:
  /// a prefetching k-loop multiplies the carried scales before it loads
  /// the next k-tile's into the same registers (so ptxas needs no copies,
  /// which it would place early and stall on the loads).
  void multiplyScales(TileScales &scales);
  /// The loaded values of `scales` in a fixed order (a's, then b's, by
  /// key), to carry them through a loop (GemmPlan::prefetchesScales), and
  /// `shape` (the same keys) holding `values` in that order instead.
  static SmallVector<Value> scaleValues(const TileScales &scales);
  static TileScales withScaleValues(TileScales shape, ValueRange values);
  /// Likewise the products multiplyScales computed (by key), to carry a
  /// k-tile's products to its promotion in the next iteration
  /// (GemmPlan::overlapsPromotion); `shape`'s scale values are not
  /// promote's then (every product is given).
  static SmallVector<Value> productValues(const TileScales &scales);
  static TileScales withProductValues(TileScales shape, ValueRange values);
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
  /// promote with MXFP8's packed E8M0 words on both operands: where every
  /// code of the thread's words lies in [64, 191] (one test per word), each
  /// product of scales is formed from the codes' exponent fields by one
  /// integer add (the FP32 product's bits), else each code is decoded and
  /// the decodes multiplied; the same values either way. Not in stream-K
  /// kernels (8 bytes of spills).
  void promotePacked(TileScales &scales,
                     const std::function<Value(int64_t)> &partial,
                     const std::function<Value(int64_t)> &total,
                     const std::function<void(int64_t, Value)> &update,
                     int64_t chunk);

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

/// Four FP8 codes of PTX type `type` (e4m3 / e5m2; an i32 word,
/// little-endian) times f32 scales, rounded to bf16, as two bf16x2 words:
/// elements 0, 1 times `scale0` and 2, 3 times `scale1`, the lower element
/// in the lower half (GemmMxConvert.cpp; the converting kernel's and the
/// dequantizing pre-pass's values, hence the same).
SmallVector<Value, 2> convertMxWord(KernelEnv &env, StringRef type, Value word,
                                    Value scale0, Value scale1);

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
