//===- GemmCode.h - GEMM kernels: plan and shared index code ----*- C++ -*-===//
//
// Private to the QSToGPU library. A GEMM kernel's plan (tile shape, stage
// ring, per-operand scaling) and the index arithmetic shared by the GPU
// kernel (GemmKernels.cpp) and its CPU emulation (GemmEmulation.cpp): tile
// order, shared-memory offsets, wgmma descriptors, fragment layout, block
// scales, promotion, NVFP4 conversion and the epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOGPU_GEMMCODE_H
#define QS_LIB_CONVERSION_QSTOGPU_GEMMCODE_H

#include "KernelBuilder.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include <functional>
#include <map>

namespace mlir {
namespace qs {
namespace gpuk {
namespace gemm {

constexpr int64_t kTileM = 128, kTileK = 128, kWarpgroup = 128;
constexpr int64_t kConsumers = 2, kKSteps = kTileK / 32;
/// Streaming multiprocessors of an H100/H200 (tile-shape choice only).
constexpr int64_t kSMs = 132;
/// Shared memory given to the stage ring (of 227 KiB per block on sm_90).
constexpr int64_t kRingBytes = 192 * 1024;
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
  /// One scale per row (and block), not per 128 rows.
  bool perRow() const { return blockDim == 1 || blockDim == 3; }
  /// Rows of the stored K-major matrix (M for A, N for B).
  int64_t rows = 0;
  /// Block scales, stored matrix [rows, K] (te-formats.md §4.b, GEMM_READY):
  /// 1x128: scale[kb * scaleLd + row], scaleLd = roundup(rows, 4);
  /// 128x128: scale[(row / 128) * scaleLd + kb], scaleLd =
  /// roundup(ceil(K / 128), 4); MXFP8 (te-formats.md §3.b): E8M0
  /// G[row, kb] at row * scaleLd + kb or, swizzled, the 128x4-tiled offset,
  /// scaleLd = roundup(K / 32, 4); NVFP4 (§5.b): E4M3 G[row, kb] likewise,
  /// scaleLd = roundup(K / 16, 4).
  int64_t scaleLd = 0;
};

struct GemmPlan {
  int64_t m, n, k;
  int64_t tileN, stages, tilesM, tilesN;
  StringRef typeA, typeB; // PTX names: e4m3 / e5m2
  Type outType;
  bool bias, accumulate;
  OperandPlan a, b;
  /// Block-scaled (FP8 block, MXFP8): each scale block of K (blockK wide)
  /// is summed on its own and promoted, times its two scales, into FP32
  /// totals; `groupsPerRound` blocks are summed at once (one accumulator
  /// set each) between two waits.
  bool blockScaled() const { return a.blockDim != 0 && !fp4(); }
  /// NVFP4: the consumers convert each k-tile's E2M1 codes times their E4M3
  /// block scales to f16 (exact) in shared memory, and f16 wgmma sums them
  /// (no promotion); the global amaxes scale the epilogue.
  bool fp4() const { return a.blockDim == 4; }
  int64_t blockK() const {
    return a.blockDim == 3 ? 32 : a.blockDim == 4 ? 16 : 128;
  }
  int64_t groupsPerRound() const { return a.blockDim == 3 ? 2 : 1; }
  int64_t stepsPerGroup() const { return blockK() / 32; }

  /// Bytes of one row of a k-tile as loaded (FP4 packs two codes a byte).
  int64_t rowBytes() const { return fp4() ? kTileK / 2 : kTileK; }
  /// Bytes of one operand row in global memory.
  int64_t pitch() const { return fp4() ? k / 2 : k; }
  int64_t aBytes() const { return kTileM * rowBytes(); }
  int64_t stageBytes() const { return (kTileM + tileN) * rowBytes(); }
  int64_t kTiles() const { return ceilDiv(k, kTileK); }
  /// NVFP4: the converted f16 tiles after the ring (128 x 128 f16 of A,
  /// tileN x 128 of B, each as two K-major 64-element chunks with the
  /// 128-byte swizzle).
  int64_t convertedOffset() const { return stages * stageBytes(); }
  int64_t convertedBytes() const { return fp4() ? (kTileM + tileN) * 256 : 0; }
  int64_t barrierOffset() const { return convertedOffset() + convertedBytes(); }
  int64_t sharedBytes() const { return barrierOffset() + 16 * stages; }
  int64_t threads() const { return kWarpgroup * (1 + kConsumers); }
  int64_t accRegs() const { return tileN / 2; }
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

  /// Tile (row, column) of a block: groups of 8 tile rows walk the tile
  /// columns together, so consecutive blocks share B tiles in L2.
  std::pair<Value, Value> tileOf(Value block);

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
  Value descA(Value base, Value s, Value consumer);
  Value descB(Value base, Value s);

  /// NVFP4: byte offset of the converted f16 tile of A (or B) and of row
  /// `row`, element `e` (of 64) of its K-chunk `chunk`, before swizzling.
  Value convertedA() { return i(plan.convertedOffset()); }
  Value convertedB() { return i(plan.convertedOffset() + kTileM * 256); }
  Value convertedAt(Value tile, int64_t rows, Value chunk, Value row, Value e);
  /// NVFP4: the descriptors of f16 k-step j (16 elements, 32 bytes) of
  /// consumer `consumer`'s A rows and of B.
  Value f16DescA(Value base, Value consumer, int64_t j);
  Value f16DescB(Value base, int64_t j);

  /// Row (of 64) and column (of tileN) of accumulator register `r` of
  /// thread `t` of a warpgroup (the m64nNk32 f32 fragment layout).
  std::pair<Value, Value> fragment(Value t, Value r);

  /// scale_inv of block (row, kb) of an operand's stored matrix; rows past
  /// the end read the last row's scale (their results are not stored).
  Value blockScale(const OperandPlan &op, Value scales, Value row, Value kb);

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
  };
  TileScales loadScales(Value tm, Value tn, Value consumer, Value t, Value kt,
                        Value scalesA, Value scalesB);

  /// Block FP8 promotion of a k-tile: total[r] + (sA * sB) * partial[r] for
  /// every register (the reference's order), through `update(r, value)`.
  void promote(TileScales &scales, const std::function<Value(int64_t)> &partial,
               const std::function<Value(int64_t)> &total,
               const std::function<void(int64_t, Value)> &update);

  /// NVFP4: thread `t` of consumer `consumer` converts its half-row of A
  /// and of B for k-tile `kt` (stage `s`): 32 packed bytes (64 E2M1 codes,
  /// low nibble first) times their four E4M3 block scales, to f16 (exact:
  /// at most 6 significant bits, magnitudes in [2^-10, 2688]), written as
  /// eight 16-byte groups into the swizzled f16 tile. `load16(offset)`
  /// returns the 16 bytes at a shared-memory offset (i8 values),
  /// `store16(offset, words)` stores four i32 there.
  void convertFp4(Value tm, Value tn, Value consumer, Value t, Value kt,
                  Value s, Value scalesA, Value scalesB,
                  const std::function<SmallVector<Value>(Value)> &load16,
                  const std::function<void(Value, ArrayRef<Value>)> &store16);

  /// The epilogue of consumer `consumer`'s thread `t`: register r (from
  /// `acc`) to D[row, col] = alpha acc (+ bias[col]) (+ C[row, col]), alpha
  /// = scale_inv_A * scale_inv_B for per-tensor FP8 (block scales are
  /// already applied).
  void epilogue(Value tm, Value tn, Value consumer, Value t, ValueRange args,
                const std::function<Value(int64_t)> &acc);
};

/// The 128-byte swizzle of a shared-memory byte address: the 16-byte chunk
/// index (bits 4-6) XOR the row within 8 rows of 128 bytes (bits 7-9).
Value swizzle(GemmCode &code, Value address);

/// The block's code on the GPU (GemmKernels.cpp) and in the emulation
/// (GemmEmulation.cpp); KernelDesc::blockBody.
void emitGpuBody(KernelEnv &env, const GemmPlan &plan);
void emitEmulatedBody(KernelEnv &env, const GemmPlan &plan, Type typeA,
                      Type typeB);

} // namespace gemm
} // namespace gpuk
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOGPU_GEMMCODE_H
