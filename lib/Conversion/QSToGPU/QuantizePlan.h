//===- QuantizePlan.h - plans and phases of quantize kernels ---*- C++ -*-===//
//
// Private to the QSToGPU conversion. What the quantize and dequantize
// kernels of one quantized type read and write (Plan: one Rep per
// representation, the launch's argument indices), the cast kernels' tile
// geometry (Tile), and the phases those kernels are made of.
//   QuantizePlan.cpp      plans (scale layouts per family) and support checks
//   QuantizePhases.cpp    tile loads, block scales, encodings, the row-wise
//                         and 2-D phases
//   QuantizeColumnPhases.cpp the column-wise phases
//   QuantizeKernels.cpp   the kernels of a quantize and their launch order
//   DequantizeKernels.cpp the dequantize kernel
// The design (te-formats.md §2-§5, numerics identical to the reference
// lowering): a kernel block owns a TR x TC tile of the 2-D input x [M, K],
// reads it once from global memory with vector loads into shared memory,
// then each thread owns whole scaling blocks of each representation:
//   row-wise    z = x,   blocks 1 x B of a tile row, codes stored row-major;
//   column-wise z = x^T, blocks B x 1 of a tile column, codes stored
//               transposed ([K, M]) or, for MXFP8, in x's layout.
// A thread computes its block's amax (reading shared memory), the scale by
// the family's rule, writes the scale at its place in the scale layout, and
// converts and stores its codes 16 at a time.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOGPU_QUANTIZEPLAN_H
#define QS_LIB_CONVERSION_QSTOGPU_QUANTIZEPLAN_H

#include "KernelBuilder.h"
#include "qs/Dialect/QS/IR/QSTarget.h"
#include "qs/Dialect/QS/IR/QSTypes.h"
#include <cfloat>

namespace mlir {
namespace qs {
namespace gpuk {
namespace quant {

enum class ScaleKind { PerTensor, E8M0, F32Block, NVFP4 };

/// One representation written by the cast kernel.
struct Rep {
  bool columnwise = false; // z = x^T
  bool xLayout = false;    // column-wise codes kept in x's layout (MXFP8)
  int64_t block = 16;      // B
  ScaleKind kind = ScaleKind::PerTensor;
  bool fp4 = false;
  SmallFloatFormat format = SmallFloatFormat::e4m3();
  Type fp8Type;
  int dataArg = -1, scaleArg = -1, amaxArg = -1;
  /// Scale layout: (z row, block index along the z row) -> element index.
  std::function<Value(KernelEnv &, Value, Value)> scaleIndex;
  float fp8Max = 448.0f, epsilon = 0.0f, valueForInf = FLT_MAX;
  bool pow2 = false;
  /// NVFP4 row-scaled: the global amax is per z row (amaxArg is a vector).
  bool rowScaled = false;
  /// NVFP4 column-wise with RHT: z = bf16(RHT(x^T)), 16-row chunks.
  bool rht = false;
  /// NVFP4 stochastic rounding: the codes' random words come from the rng
  /// state (Plan::rngArg), stream 0 row-wise, 1 column-wise.
  bool stochastic = false;
  /// NVFP4: E of the global scale S_enc = 6E / G (nvfp4_e4m3_max), and
  /// 4over6 (each block keeps the better of map-to-6 and map-to-4; block
  /// errors as sums of squares with `mse`, else of absolute values).
  int64_t e4m3Max = 448;
  bool fourOverSix = false, mse = false;
};

/// Everything the kernels of one quantize need; argument indices refer to
/// the launch's memref list.
struct Plan {
  int64_t m = 0, k = 0;
  Type nominal;
  SmallVector<Rep> reps;
  bool delayed = false, current = false;
  /// qs.quantize_stores = "direct": no rowLanesPhase, no staged
  /// transposes (EmitOptions::directQuantizeStores).
  bool directStores = false;
  int xArg = 0, scaleOperandArg = -1, amaxStateInArg = -1, amaxStateOutArg = -1,
      scaleInvArg = -1, amaxScratchArg = -1, rngArg = -1;
  /// Given global amaxes (TE's amax reduction; current scaling, NVFP4
  /// without row scales): their buffer, whose element 0 the init kernel
  /// copies into every buffer of globalAmaxArgs, and with RHT element 1
  /// into rhtAmaxArg, in place of the amax kernel; else -1.
  int givenAmaxArg = -1;
  /// Buffers the init kernel zeroes (every element), and the amax buffers the
  /// amax kernel max-reduces into.
  SmallVector<int> zeroArgs, globalAmaxArgs;
  /// 2-D quantization: the side of the square blocks (0 for 1-D).
  int64_t twoD = 0;
  /// Row-scaled NVFP4: the per-row amax buffers of the row-wise and the
  /// column-wise representation (-1 if absent).
  bool rowScaled = false;
  int rowAmaxArg = -1, colAmaxArg = -1;
  /// RHT: the column-wise amax buffer (max |RHT(x^T)|), else -1, the
  /// element of it the amax goes to (qs.amax's result holds max |x| first),
  /// and the transform's sign mask (ref::nvfp4RHTInputFactor).
  int rhtAmaxArg = -1;
  /// A qs.bias_grad of x fused into the first cast kernel (emitQuantize's
  /// biasGradWorkspace): the FP32 chunk sums [chunks, K] it writes
  /// (biasGradChunkPhase); else -1.
  int biasGradArg = -1;
  int64_t rhtAmaxIndex = 0;
  uint32_t rhtSignMask = 0;
  float fp8Max = 448.0f, epsilon = 0.0f;
  bool pow2 = false;
};

/// The cast kernel's tile geometry.
struct Tile {
  int64_t rows, cols, ld, vec, elemBytes;
  int64_t tilesPerRow, grid;
  /// FP8 1 x 128 blocks of a 16-bit input with column-wise usage
  /// (columnPairsPhase): rows unpadded (ld = cols) and 16-byte chunk c of
  /// row r stored at chunk c ^ f(r), f(r) = (r & 7) ^ ((r >> 4) & 6)
  /// (tileOffset). Eight consecutive rows read a chunk each without bank
  /// conflicts (the row-wise phase's 16-byte loads), and so do a warp's
  /// 32-bit loads of 8 column pairs in 4 row quarters 32 rows apart.
  bool swizzled = false;
  /// Block b takes tile grid - 1 - b: a pass over x that follows another
  /// (the amax pass of current scaling / NVFP4, or the first of two cast
  /// kernels) starts where that one ended, whose data L2 still holds (50
  /// MB on H100/H200: all of a 4096 x 4096 bf16 input).
  bool reversed = false;
  /// Both usages, the column-wise codes the row-wise codes transposed
  /// (derivesColumnCodes): the row-wise phase also writes each 16-element
  /// chunk's codes over the chunk's start in the tile, and
  /// columnFromRowCodesPhase writes the column-wise codes from there.
  bool codesInPlace = false;
  /// Shared buffers besides the tile (index 0): delayed-scaling amax slots,
  /// x-layout multipliers, 2-D segment and block amaxes, and with RHT the
  /// column-wise representation's 2-D block amaxes (-1 if absent).
  int slots = -1, mults = -1, segAmax = -1, blockAmax = -1, rhtBlockAmax = -1;
  /// Transposed column-wise codes staged for stagedColumnStorePhase: bytes
  /// [cols][stageLd], tile column c's codes (rows in order) at c * stageLd
  /// (-1 if absent).
  int colStage = -1;
  int64_t stageLd = 0;
  /// 2-D NVFP4 4over6: per representation (index: Rep::columnwise) the
  /// map-to-6 and map-to-4 errors of every 1 x 16 segment of its z rows in
  /// the tile ([segment][2]; fourOverSixErrorPhase), or -1.
  int fosErrors[2] = {-1, -1};
  /// NVFP4 4over6: [8 * threads] f32, element m * threads + thread the
  /// decoded value of E2M1 magnitude m under the candidate whose error the
  /// thread is summing (errorOf's lookup table), or -1.
  int fosBacks = -1;
};

/// Builds the plan; outs start at argument 1 (after x), then the optional
/// delayed scale and amax state (`hasAmaxIn`; for current scaling the given
/// global amax), the rng state (`hasRng`), then scratch.
Plan makePlan(QuantTensorType type, const TargetInfo &target, bool hasScale,
              bool hasAmaxIn, unsigned numScratch, bool hasRng = false);

/// Element `i` of a 1-D buffer; a store bitcasts `v` to the element type.
Value load1(KernelEnv &env, Value buf, Value i);
void store1(KernelEnv &env, Value v, Value buf, Value i);

/// The widest vector (at most 16 bytes) of `elemBytes` elements dividing k.
int64_t vectorWidth(int64_t k, int64_t elemBytes);
/// The tile of a cast kernel writing `reps` (all of the plan's when empty).
Tile makeTile(const Plan &p, ArrayRef<const Rep *> reps);
/// (tile row, tile column) of the block's tile.
std::pair<Value, Value> tileCoords(KernelEnv &env, const Tile &t);
/// The shared-memory element index of tile element (row, col): row * ld +
/// col, or with Tile::swizzled its chunk permuted.
Value tileOffset(KernelEnv &env, const Tile &t, Value row, Value col);
/// Reads n consecutive tile elements from shared memory at `offset`
/// (a multiple of `vec`) as f32.
SmallVector<Value> readRow(KernelEnv &env, const Tile &t, Value smem,
                           Value offset, int64_t n, Type nominal);
/// NVFP4's RHT of one 16-element chunk of a column: z[j] = bf16(sum_r x[r]
/// R[r][j]) with the reference's (and Numerics.md's) rounding: the exact
/// products w[r] = x[r] s[r] / 4, then four f32 butterfly stages (bit h = 1,
/// 2, 4, 8: a[i], a[i + h] <- a[i] + a[i + h], a[i] - a[i + h]), 80
/// operations instead of the 256 of the matrix product; on sm_100a the
/// products and the first three stages as f32 pairs (a[i], a[i + 8]), 32
/// f32x2 instructions and 16 scalar ones.
SmallVector<Value> rht16(KernelEnv &env, ArrayRef<Value> x, uint32_t signMask);
/// The f32 sums of rht16, before their rounding to bf16.
SmallVector<Value> rhtSums16(KernelEnv &env, ArrayRef<Value> x,
                             uint32_t signMask);
/// max_j |rht16(x)[j]| ignoring NaN (0 if all are NaN), computed as the bf16
/// rounding of max_j |sum_j|: rounding is monotone and odd, so it commutes
/// with the maximum of magnitudes (one rounding instead of 16); the last
/// stage's pair of sums p + q, p - q enters as f32(|p| + |q|), their larger
/// magnitude (8 additions and maxima instead of 16 each).
Value rhtAbsMax16(KernelEnv &env, ArrayRef<Value> x, uint32_t signMask);
/// The 16-row chunk `i` of tile column `c` (rows 16 i .. 16 i + 15), read
/// from the tile in shared memory as f32: what rht16 transforms.
SmallVector<Value> columnChunk(KernelEnv &env, const Tile &t, Value i, Value c);

/// Phase 1: the tile into shared memory (zeros outside the tensor); for
/// delayed scaling, the running amax of the thread into `slots`.
void loadTilePhase(KernelEnv &env, const Plan &p, const Tile &t);
/// qs.bias_grad's chunk sums of the tile loaded by loadTilePhase (its rows
/// a multiple of kBiasGradChunkRows, out-of-range elements +0.0): one unit
/// per chunk of the tile and column, the column's kBiasGradChunkRows
/// elements summed from +0.0 in row order from shared memory, stored into
/// Plan::biasGradArg's [chunks, K] (the standalone chunk kernel's sums).
void biasGradChunkPhase(KernelEnv &env, const Plan &p, const Tile &t);

/// Stores i8 `bytes` at element `i` of `buf` (8-bit elements): one vector
/// store when `aligned`, else byte stores, each guarded by `i + n < limit`
/// when `limit` is set. Into a buffer of wider elements (the tile in
/// shared memory: Tile::codesInPlace) only aligned, n * 8 a multiple of
/// their width, at element `i`.
void storeBytes(KernelEnv &env, ArrayRef<Value> bytes, Value buf, Value i,
                bool aligned, std::optional<int64_t> limit);

/// values[i] * mults[i] (one mult: the same factor for every value), f32
/// RNE, before a conversion: on sm_100a values 2k and 2k + 1 as one f32
/// pair (mul.rn.f32x2; the pairs the conversions take), else one by one,
/// the same bits. The products feed conversions, never a sum (ptxas
/// contracts an f32x2 product into an f32x2 sum: KernelEnv::pairwise).
SmallVector<Value> scaleValues(KernelEnv &env, ArrayRef<Value> values,
                               ArrayRef<Value> mults);

/// Encodes 16 (FP8) or 16 (FP4, packed into 8 bytes) f32 values; FP4
/// codes with a random byte per value (`words`, four a word) round
/// stochastically (StochasticRounding.h's definition, the reference
/// lowering's codes, on both chips: sm_100a's cvt.rs.satfinite.e2m1x4.f32
/// applies its random bits its own way).
SmallVector<Value> encode(KernelEnv &env, const Rep &r, ArrayRef<Value> values,
                          ArrayRef<Value> words = {});

/// Stochastic rounding's random words of the 16 elements of z row `zRow`
/// (`zCols` elements, a multiple of 16 for NVFP4) from element `first` (a
/// multiple of 16): one Philox group, a byte per element, stream 0
/// row-wise, 1 column-wise.
SmallVector<Value> randomWords(KernelEnv &env, const Rep &r,
                               std::pair<Value, Value> state, Value zRow,
                               Value first, int64_t zCols);

/// The scale buffer of representation `r`; null for per-tensor FP8 (its
/// scale_inv is written once, by scaleInvPhase).
Value scaleBuffer(KernelEnv &env, const Rep &r);

/// Computes the scale of one block from its amax, stores it into `scales`
/// (the representation's scale buffer; null: not stored) where `storeWhen`
/// holds (null: always), and returns the multiplier applied to the block's
/// values before conversion (`repScale`: as quant::repScale gives it).
Value blockScale(KernelEnv &env, const Plan &p, const Rep &r, Value amax,
                 Value zRow, Value zBlock, Value repScale, Value scales,
                 Value storeWhen = Value());

/// Stores the codes of 16 consecutive elements, starting at element `first`
/// of a z row that begins at element `rowStart` and has `rowLength`
/// elements: one 16-byte (FP8) or 8-byte (packed FP4) vector store when the
/// chunk lies inside the row and the row length keeps it aligned, else byte
/// stores of the elements inside the row.
void storeChunk(KernelEnv &env, ArrayRef<Value> bytes, Value buf,
                Value rowStart, Value first, int64_t rowLength, bool fp4,
                bool alwaysInside);

/// The per-tensor scale (delayed: the operand; current: from the amax
/// scratch).
Value perTensorScale(KernelEnv &env, const Plan &p);
/// What every block of representation `r` uses, read by each thread before
/// its first store: `perTensor` (perTensorScale) for per-tensor FP8,
/// NVFP4's global encode scale (unless row-scaled); null otherwise. As far
/// as LLVM and ptxas know the outputs may alias the amax and scale
/// operands, so a read after a store stays after it and waits out its
/// latency (until 2026-11-30 each phase, and NVFP4 each block, read them
/// anew between stores).
Value repScale(KernelEnv &env, const Plan &p, const Rep &r, Value perTensor);
/// Stochastic rounding's (seed, offset), read like repScale before the
/// first store (null values without an rng state).
std::pair<Value, Value> rngState(KernelEnv &env, const Plan &p);
/// Row-wise blocks (1 x B) of the tile (`repScale`: quant::repScale; `rng`:
/// rngState, for representations that round stochastically).
void rowwisePhase(KernelEnv &env, const Plan &p, const Tile &t, const Rep &r,
                  Value repScale, std::pair<Value, Value> rng = {});
/// A row-wise block of representation `r` (a kind whose scale follows
/// from the block alone: E8M0 or F32Block) quantized outside the cast
/// kernels, by the kernel that produced its values (a GEMM epilogue), in
/// two steps that compute exactly what rowwisePhase does: the block's scale
/// from its `amax` (max |v| of its values as f32 of the nominal type), z
/// row `zRow`, block `zBlock` of the row, stored into `scales` at
/// r.scaleIndex (null: not stored), returning the multiplier; then the
/// codes (i8) of some of its values times that multiplier.
Value producerBlockScale(KernelEnv &env, const Plan &p, const Rep &r,
                         Value amax, Value zRow, Value zBlock, Value scales);
SmallVector<Value> encodeScaled(KernelEnv &env, const Rep &r,
                                ArrayRef<Value> values, Value mult);
/// Column-wise blocks (B x 1) of the tile (Tile::swizzled tiles:
/// columnPairsPhase).
void columnwisePhase(KernelEnv &env, const Plan &p, const Tile &t, const Rep &r,
                     Value repScale, std::pair<Value, Value> rng = {});
/// FP8 128 x 1 column blocks of a swizzled 16-bit tile: a warp takes 8
/// column pairs of a 128-row block, lane l the pair l % 8 in rows
/// 32 (l / 8) ... + 31, read with one 32-bit load per row into registers
/// (bf16x2 / f16x2: both columns), once. The block amax of each column
/// meets across the 4 lanes that share it (shfl.xor 8 and 16); each lane
/// then converts and stores its 32 codes of each column (two 16-byte
/// stores). The CPU emulation reads the block's 128 rows instead.
void columnPairsPhase(KernelEnv &env, const Plan &p, const Tile &t,
                      const Rep &r, Value repScale);
/// Whether the column-wise phase stages rep `r`'s transposed codes in
/// shared memory (Tile::colStage) for stagedColumnStorePhase: the generic
/// column-wise path (not columnPairsPhase, not x's layout) with whole
/// 16-byte chunks of codes per tile column.
bool stagesColumnCodes(const Tile &t, const Rep &r);
/// Bytes per tile column in that staging buffer (Tile::stageLd): the
/// column's codes and 16 bytes of padding (16-byte stores of consecutive
/// columns then fall in distinct banks).
int64_t stageRowBytes(const Tile &t, const Rep &r);
/// The staged transposed codes of `r` (Tile::colStage) out to z with
/// 16-byte stores, consecutive threads taking consecutive chunks of a z row
/// (a warp: whole 32-byte sectors of 8 z rows for a 64-row tile of FP8),
/// byte by byte where the z rows' length (M) keeps vectors unaligned.
void stagedColumnStorePhase(KernelEnv &env, const Plan &p, const Tile &t,
                            const Rep &r);
/// Whether the column-wise codes of `reps` (a cast kernel's two
/// representations) are the row-wise codes transposed, bit for bit: per-tensor
/// FP8 and 2-D blocks give an element one scale in either usage, so its
/// code is the same, unless the column-wise representation rounds on its
/// own (stochastically, 4over6's per-segment choice, after the RHT) or
/// keeps x's layout (MXFP8). Not with qs.quantize_stores = "direct".
bool derivesColumnCodes(const Plan &p, ArrayRef<const Rep *> reps);
/// The column-wise representation `r` of a Tile::codesInPlace tile (after
/// the row-wise phase and a barrier): a unit is a 16-row chunk of 4 tile
/// columns (FP8) or 8 (FP4, packed), whose codes one 32-bit shared load
/// per row brings in; 4 x 4 byte transposes (8 prmt) or 8 x 8 nibble
/// transposes (16 prmt, 16 logic operations) turn them into each column's
/// 16 codes, stored as columnwisePhase stores its own (staged or not); 2-D
/// blocks' column-wise scales from the block amaxes (blockScale).
void columnFromRowCodesPhase(KernelEnv &env, const Plan &p, const Tile &t,
                             const Rep &r);
/// Column-wise codes kept in x's layout (MXFP8): after columnwisePhase left
/// each block's multiplier in shared memory, each thread converts 16
/// consecutive elements of a tile row and stores them with one 16-byte store.
void xLayoutEncodePhase(KernelEnv &env, const Plan &p, const Tile &t,
                        const Rep &r);
/// 2-D quantization, step 1: the amax of every 1 x B row segment of the
/// tile.
void segmentAmaxPhase(KernelEnv &env, const Plan &p, const Tile &t);
/// 2-D quantization, step 2: the amax of every B x B block (elements
/// outside the tensor are zeros in the tile).
void blockAmaxPhase(KernelEnv &env, const Plan &p, const Tile &t);
/// 2-D quantization with RHT (NVFP4 column-wise, z = bf16(RHT(x^T))), step
/// 1: max |RHT(chunk)| of every 16-row chunk of a tile column, into the
/// segment buffer ([TR / 16, TC]; blockAmaxPhase is done with it).
void rhtSegmentAmaxPhase(KernelEnv &env, const Plan &p, const Tile &t);
/// Step 2: the amax of every 16 x 16 block of the transformed tile, the
/// maximum of its 16 chunks (into `rhtBlockAmax`, indexed like
/// `blockAmax`: the z block (a, b) transforms the x block (b, a)).
void rhtBlockAmaxPhase(KernelEnv &env, const Tile &t);
/// NVFP4 4over6 (te-formats.md §5.c): the S_enc and global amax G of z row
/// `zRow` (`repScale`: quant::repScale, null when row-scaled).
std::pair<Value, Value> nvfp4Globals(KernelEnv &env, const Rep &r,
                                     Value repScale, Value zRow);
/// The map-to-6 and map-to-4 errors of the 16 `values` (f32 of the z
/// elements) of a block whose amax (its tile's with 2-D) is `amax`;
/// `backs` is the Tile::fosBacks buffer.
std::pair<Value, Value> fourOverSixErrors(KernelEnv &env, const Rep &r,
                                          Value amax, Value sEnc, Value g,
                                          ArrayRef<Value> values, Value backs);
/// The 16 `values` of a block encoded as 4over6 says: the chosen
/// candidate's scale byte stored into `scales` at `scaleIndex`, its packed
/// codes (8 bytes) returned. `pick4` (i1, with 2-D: the tile's choice,
/// fourOverSixTilePick; only that candidate is computed) or null: both
/// candidates, this block's own errors decide (`backs`: Tile::fosBacks).
SmallVector<Value> fourOverSixEncode(KernelEnv &env, const Rep &r, Value amax,
                                     Value sEnc, Value g,
                                     ArrayRef<Value> values, Value pick4,
                                     Value scales, Value scaleIndex,
                                     Value backs);
/// 2-D 4over6, step 1 (after blockAmaxPhase): every 1 x 16 segment's
/// errors of both candidates, for each representation of `reps` that uses
/// 4over6, into Tile::fosErrors.
void fourOverSixErrorPhase(KernelEnv &env, const Plan &p, const Tile &t,
                           ArrayRef<Rep> reps);
/// Step 2: whether the 16 x 16 tile of segment `seg` (z-row-major within
/// the representation's buffer: z row `zRow` of the tile, block `block`
/// along it) keeps map-to-4: its 16 segments' errors summed as a tree
/// (a_i = e_i + e_{i+8}, then + 4, + 2, + 1), map-to-4 strictly smaller.
Value fourOverSixTilePick(KernelEnv &env, const Tile &t, const Rep &r,
                          Value zRow, Value block);

/// Block 0, thread 0 writes the per-tensor scale_inv, 1 / `s`
/// (perTensorScale).
void scaleInvPhase(KernelEnv &env, const Plan &p, Value s);

} // namespace quant
} // namespace gpuk
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOGPU_QUANTIZEPLAN_H
