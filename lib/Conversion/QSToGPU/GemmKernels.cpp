//===- GemmKernels.cpp - per-tensor FP8 GEMM for sm_90a (wgmma + TMA) -----===//
//
// One kernel computes D[m, n] = alpha * sum_k A[m, k] B[n, k] (+ bias[n])
// (+ C[m, n]), alpha = scale_inv_A * scale_inv_B, with A and B FP8 in
// K-major order (row-wise data, or the transpose buffer of TN-only chips).
//
// Block: three warpgroups. Warpgroup 0 is the producer: one thread streams
// 128 x 128-byte tiles of A and tileN x 128-byte tiles of B with TMA
// (cp.async.bulk.tensor, 128-byte swizzle, zero fill past the edges) into a
// ring of `stages` shared-memory stages, each guarded by a "full" mbarrier
// (transaction bytes) and an "empty" mbarrier (one arrival per consumer).
// Warpgroups 1 and 2 are consumers: each owns 64 rows of the 128-row tile
// and issues four wgmma.mma_async m64n<tileN>k32 per stage into FP32
// registers, then applies the epilogue straight from its registers.
// setmaxnreg moves registers from the producer to the consumers.
//
// The emulation runs the same tiling on the CPU: the TMA copies write the
// same swizzled shared-memory image, the wgmma emulation decodes the same
// 64-bit shared-memory descriptors and accumulates into the same per-thread
// fragment registers, and the epilogue is the same code.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "Kernels.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;

namespace {
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
  /// MXFP8: scales in cuBLAS's 128x4-tiled order (optimize_for_gemm).
  bool swizzled = false;
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
  int64_t barrierOffset() const {
    return convertedOffset() + convertedBytes();
  }
  int64_t sharedBytes() const { return barrierOffset() + 16 * stages; }
  int64_t threads() const { return kWarpgroup * (1 + kConsumers); }
  int64_t accRegs() const { return tileN / 2; }
};

StringRef ptxType(Type t) { return isa<Float8E5M2Type>(t) ? "e5m2" : "e4m3"; }

/// The GEMM's index arithmetic, shared by the GPU kernel and the emulation.
struct GemmCode {
  KernelEnv &env;
  const GemmPlan &plan;

  Value i(int64_t v) { return env.idx(v); }
  Value shl(Value a, int64_t s) {
    return arith::ShLIOp::create(env.b, env.loc, a, i(s));
  }
  Value shr(Value a, int64_t s) {
    return arith::ShRUIOp::create(env.b, env.loc, a, i(s));
  }
  Value band(Value a, int64_t m) {
    return arith::AndIOp::create(env.b, env.loc, a, i(m));
  }
  Value minI(Value a, Value c) {
    return arith::MinUIOp::create(env.b, env.loc, a, c);
  }

  /// Tile (row, column) of a block: groups of 8 tile rows walk the tile
  /// columns together, so consecutive blocks share B tiles in L2.
  std::pair<Value, Value> tileOf(Value block) {
    int64_t groupSize = 8 * plan.tilesN;
    Value group = env.div(block, i(groupSize));
    Value firstM = env.mul(group, i(8));
    Value rowsInGroup = minI(arith::SubIOp::create(env.b, env.loc,
                                                   i(plan.tilesM), firstM),
                             i(8));
    Value inGroup = env.rem(block, i(groupSize));
    return {env.add(firstM, env.rem(inGroup, rowsInGroup)),
            env.div(inGroup, rowsInGroup)};
  }

  /// Shared-memory byte offsets (from the 1024-aligned base) of a stage.
  Value stageA(Value s) { return env.mul(s, i(plan.stageBytes())); }
  Value stageB(Value s) { return env.add(stageA(s), i(plan.aBytes())); }
  Value fullBarrier(Value s) {
    return env.add(i(plan.barrierOffset()), env.mul(s, i(8)));
  }
  Value emptyBarrier(Value s) {
    return env.add(i(plan.barrierOffset() + 8 * plan.stages),
                   env.mul(s, i(8)));
  }

  /// wgmma shared-memory descriptor of a K-major tile with 128-byte
  /// swizzle at byte address `address`: start address >> 4 (bits 0-13),
  /// leading byte offset 1 (unused for swizzled K-major), stride byte offset
  /// 1024 >> 4 (8 rows of 128 bytes; bits 32-45), layout 1 = 128-byte
  /// swizzle (bits 62-63).
  Value descriptor(Value address) {
    Value start = band(shr(address, 4), 0x3FFF);
    Value fixed = env.add(i(1 << 16), shl(i(1024 >> 4), 32));
    Value desc = env.add(start, fixed);
    Value i64v = arith::IndexCastUIOp::create(env.b, env.loc,
                                              env.b.getI64Type(), desc);
    Value layout = arith::ConstantIntOp::create(env.b, env.loc,
                                                env.b.getI64Type(), 1);
    layout = arith::ShLIOp::create(
        env.b, env.loc, layout,
        arith::ConstantIntOp::create(env.b, env.loc, env.b.getI64Type(), 62));
    return arith::OrIOp::create(env.b, env.loc, i64v, layout);
  }
  /// The descriptors of k-step `j` (32 bytes further along K).
  Value stepDescriptor(Value base, int64_t j) {
    return arith::AddIOp::create(
        env.b, env.loc, base,
        arith::ConstantIntOp::create(env.b, env.loc, env.b.getI64Type(),
                                     2 * j));
  }
  Value descA(Value base, Value s, Value consumer) {
    return descriptor(env.add(env.add(base, stageA(s)),
                              env.mul(consumer, i(64 * kTileK))));
  }
  Value descB(Value base, Value s) {
    return descriptor(env.add(base, stageB(s)));
  }

  /// NVFP4: byte offset of the converted f16 tile of A (or B) and of row
  /// `row`, element `e` (of 64) of its K-chunk `chunk`, before swizzling.
  Value convertedA() { return i(plan.convertedOffset()); }
  Value convertedB() { return i(plan.convertedOffset() + kTileM * 256); }
  Value convertedAt(Value tile, int64_t rows, Value chunk, Value row, Value e) {
    return env.add(env.add(tile, env.mul(chunk, i(rows * 128))),
                   env.add(env.mul(row, i(128)), env.mul(e, i(2))));
  }
  /// NVFP4: the descriptors of f16 k-step j (16 elements, 32 bytes) of
  /// consumer `consumer`'s A rows and of B.
  Value f16DescA(Value base, Value consumer, int64_t j) {
    Value chunk = env.add(convertedA(), i((j / 4) * kTileM * 128));
    return descriptor(env.add(env.add(base, chunk),
                              env.add(env.mul(consumer, i(64 * 128)),
                                      i((j % 4) * 32))));
  }
  Value f16DescB(Value base, int64_t j) {
    Value chunk = env.add(convertedB(), i((j / 4) * plan.tileN * 128));
    return descriptor(env.add(env.add(base, chunk), i((j % 4) * 32)));
  }

  /// Row (of 64) and column (of tileN) of accumulator register `r` of
  /// thread `t` of a warpgroup (the m64nNk32 f32 fragment layout).
  std::pair<Value, Value> fragment(Value t, Value r) {
    Value warp = shr(t, 5), lane = band(t, 31);
    Value row = env.add(env.add(shl(warp, 4), shr(lane, 2)),
                        shl(band(shr(r, 1), 1), 3));
    Value col = env.add(env.add(shl(shr(r, 2), 3), shl(band(lane, 3), 1)),
                        band(r, 1));
    return {row, col};
  }

  /// scale_inv of block (row, kb) of an operand's stored matrix; rows past
  /// the end read the last row's scale (their results are not stored).
  Value blockScale(const OperandPlan &op, Value scales, Value row, Value kb) {
    // Blocks past K (the last k-tile's zero-filled tail) read the last
    // block's scale: their partial sums are zero, and padding scales may be
    // anything (uninitialised in TE), NaN included.
    Value r = minI(row, i(op.rows - 1));
    kb = minI(kb, i(ceilDiv(plan.k, plan.blockK()) - 1));
    if (op.blockDim >= 3) {
      Value at = op.swizzled ? swizzledScale(r, kb, op.scaleLd)
                             : env.add(env.mul(r, i(op.scaleLd)), kb);
      Value code = arith::BitcastOp::create(
          env.b, env.loc, env.b.getI8Type(),
          memref::LoadOp::create(env.b, env.loc, scales, at));
      return op.blockDim == 3
                 ? emitE8M0ToF32(env.b, env.loc, code)
                 : emitDecodeToF32(env.b, env.loc, code,
                                   SmallFloatFormat::e4m3());
    }
    Value at = op.blockDim == 1
                   ? env.add(env.mul(kb, i(op.scaleLd)), r)
                   : env.add(env.mul(env.div(r, i(128)), i(op.scaleLd)), kb);
    return memref::LoadOp::create(env.b, env.loc, scales, at);
  }

  /// Offset of G[row, col] in cuBLAS's 128x4 tiling of a scale matrix with
  /// `cols` columns (te-formats.md §3.b).
  Value swizzledScale(Value row, Value col, int64_t cols) {
    Value tile = env.add(env.mul(env.div(row, i(128)), i(cols / 4)),
                         env.div(col, i(4)));
    Value inTile = env.add(
        env.mul(env.rem(row, i(32)), i(16)),
        env.add(env.mul(env.rem(env.div(row, i(32)), i(4)), i(4)),
                env.rem(col, i(4))));
    return env.add(env.mul(tile, i(512)), inTile);
  }

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
                        Value scalesA, Value scalesB) {
    Value rowBase = env.add(env.mul(tm, i(kTileM)), env.mul(consumer, i(64)));
    Value colBase = env.mul(tn, i(plan.tileN));
    TileScales scales;
    for (int64_t r = 0; r < plan.accRegs(); ++r) {
      Value fr, fc;
      std::tie(fr, fc) = fragment(t, i(r));
      int64_t ka = TileScales::keyA(plan, r), kb = TileScales::keyB(plan, r);
      if (!scales.a.count(ka))
        scales.a[ka] = blockScale(plan.a, scalesA, env.add(rowBase, fr), kt);
      if (!scales.b.count(kb))
        scales.b[kb] = blockScale(plan.b, scalesB, env.add(colBase, fc), kt);
    }
    return scales;
  }

  /// Block FP8 promotion of a k-tile: total[r] + (sA * sB) * partial[r] for
  /// every register (the reference's order), through `update(r, value)`.
  void promote(TileScales &scales, const std::function<Value(int64_t)> &partial,
               const std::function<Value(int64_t)> &total,
               const std::function<void(int64_t, Value)> &update) {
    for (int64_t r = 0; r < plan.accRegs(); ++r) {
      Value scale = arith::MulFOp::create(
          env.b, env.loc, scales.a[TileScales::keyA(plan, r)],
          scales.b[TileScales::keyB(plan, r)]);
      Value term = arith::MulFOp::create(env.b, env.loc, scale, partial(r));
      update(r, arith::AddFOp::create(env.b, env.loc, total(r), term));
    }
  }

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
                  const std::function<void(Value, ArrayRef<Value>)> &store16) {
    OpBuilder &b = env.b;
    Location loc = env.loc;
    Value rowInHalf = env.add(env.mul(consumer, i(64)), shr(t, 1));
    Value half = band(t, 1);
    auto convert = [&](const OperandPlan &op, Value scales, Value packed,
                       Value tile, int64_t tileRows, Value firstRow) {
      Value src = env.add(env.add(packed, env.mul(rowInHalf, i(kTileK / 2))),
                          env.mul(half, i(32)));
      SmallVector<Value> bytes = load16(src);
      SmallVector<Value> more = load16(env.add(src, i(16)));
      bytes.append(more.begin(), more.end());
      Value kb0 = env.add(env.mul(kt, i(8)), env.mul(half, i(4)));
      SmallVector<Value> scale;
      for (int64_t q = 0; q < 4; ++q)
        scale.push_back(blockScale(op, scales, env.add(firstRow, rowInHalf),
                                   env.add(kb0, i(q))));
      Type i8 = b.getI8Type(), i32 = b.getI32Type(), f16 = b.getF16Type();
      auto nibble = [&](Value byte, bool high) -> Value {
        Value v = high ? arith::ShRUIOp::create(
                             b, loc, byte,
                             arith::ConstantIntOp::create(b, loc, i8, 4))
                             .getResult()
                       : byte;
        return arith::AndIOp::create(
            b, loc, v, arith::ConstantIntOp::create(b, loc, i8, 0xF));
      };
      auto half16 = [&](Value code, Value blockScale) -> Value {
        Value v = arith::MulFOp::create(
            b, loc, emitDecodeToF32(b, loc, code, SmallFloatFormat::e2m1()),
            blockScale);
        Value h = env.gpu ? arith::TruncFOp::create(b, loc, f16, v).getResult()
                          : env.fromF32(v, f16);
        return arith::ExtUIOp::create(
            b, loc, i32, arith::BitcastOp::create(b, loc, b.getI16Type(), h));
      };
      for (int64_t g = 0; g < 8; ++g) {
        SmallVector<Value> words;
        for (int64_t w = 0; w < 4; ++w) {
          // Elements 8g + 2w and 8g + 2w + 1: one packed byte.
          int64_t e = 8 * g + 2 * w;
          Value byte = bytes[e / 2];
          Value lo = half16(nibble(byte, false), scale[e / 16]);
          Value hi = half16(nibble(byte, true), scale[e / 16]);
          words.push_back(arith::OrIOp::create(
              b, loc, lo,
              arith::ShLIOp::create(
                  b, loc, hi, arith::ConstantIntOp::create(b, loc, i32, 16))));
        }
        Value at = convertedAt(tile, tileRows, half, rowInHalf, i(8 * g));
        store16(at, words);
      }
    };
    convert(plan.a, scalesA, stageA(s), convertedA(), kTileM,
            env.mul(tm, i(kTileM)));
    convert(plan.b, scalesB, stageB(s), convertedB(), plan.tileN,
            env.mul(tn, i(plan.tileN)));
  }

  /// The epilogue of consumer `consumer`'s thread `t`: register r (from
  /// `acc`) to D[row, col] = alpha acc (+ bias[col]) (+ C[row, col]), alpha
  /// = scale_inv_A * scale_inv_B for per-tensor FP8 (block scales are
  /// already applied).
  void epilogue(Value tm, Value tn, Value consumer, Value t, ValueRange args,
                const std::function<Value(int64_t)> &acc) {
    // args: sa, sb, [amaxA, amaxB (NVFP4)], [bias], [c], d
    Value alpha;
    unsigned next = 2;
    if (plan.fp4()) {
      // (amaxA / 2688) (amaxB / 2688), as the reference's global factors.
      auto factor = [&](Value amax) {
        return arith::MulFOp::create(
            env.b, env.loc, memref::LoadOp::create(env.b, env.loc, amax, i(0)),
            env.f32(1.0f / 2688.0f));
      };
      alpha = arith::MulFOp::create(env.b, env.loc, factor(args[2]),
                                    factor(args[3]));
      next = 4;
    } else if (!plan.blockScaled()) {
      alpha = arith::MulFOp::create(
          env.b, env.loc, memref::LoadOp::create(env.b, env.loc, args[0], i(0)),
          memref::LoadOp::create(env.b, env.loc, args[1], i(0)));
    }
    Value bias = plan.bias ? args[next++] : Value();
    Value c = plan.accumulate ? args[next++] : Value();
    Value d = args[next];
    Value rowBase = env.add(env.mul(tm, i(kTileM)), env.mul(consumer, i(64)));
    Value colBase = env.mul(tn, i(plan.tileN));
    for (int64_t r = 0; r < plan.accRegs(); ++r) {
      Value fr, fc;
      std::tie(fr, fc) = fragment(t, i(r));
      Value row = env.add(rowBase, fr), col = env.add(colBase, fc);
      Value inside = env.land(env.lt(row, i(plan.m)), env.lt(col, i(plan.n)));
      Value v = acc(r);
      env.ifThen(inside, [&] {
        Value out =
            alpha ? arith::MulFOp::create(env.b, env.loc, v, alpha).getResult()
                  : v;
        if (bias)
          out = arith::AddFOp::create(
              env.b, env.loc, out,
              env.toF32(memref::LoadOp::create(env.b, env.loc, bias, col)));
        Value at = env.add(env.mul(row, i(plan.n)), col);
        if (c)
          out = arith::AddFOp::create(
              env.b, env.loc, out,
              env.toF32(memref::LoadOp::create(env.b, env.loc, c, at)));
        // The GPU converts with cvt.rn (same RNE result as the emulation).
        if (env.gpu && plan.outType != out.getType())
          out = arith::TruncFOp::create(env.b, env.loc, plan.outType, out);
        else
          out = env.fromF32(out, plan.outType);
        memref::StoreOp::create(env.b, env.loc, out, d, at);
      });
    }
  }
};

//===----------------------------------------------------------------------===//
// GPU kernel
//===----------------------------------------------------------------------===//

struct Ptx {
  OpBuilder &b;
  Location loc;

  /// Inline PTX with side effects; `$N` names operand N.
  Value operator()(Type result, ValueRange operands, StringRef text,
                   StringRef constraints) {
    auto op = LLVM::InlineAsmOp::create(
        b, loc, result ? TypeRange{result} : TypeRange{}, operands,
        b.getStringAttr(text), b.getStringAttr(constraints),
        b.getUnitAttr(), UnitAttr(),
        LLVM::TailCallKindAttr::get(b.getContext(), LLVM::tailcallkind::TailCallKind::None),
        LLVM::AsmDialectAttr(), ArrayAttr());
    return result ? op.getResult(0) : Value();
  }
  void operator()(ValueRange operands, StringRef text, StringRef constraints) {
    (*this)(Type(), operands, text, constraints);
  }
  Value i32(Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  }
  Value i64(Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
  }
  Value pointerOf(Value memref) {
    return i64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
  }
  void wait(Value barrier, Value parity) {
    (*this)({i32(barrier), i32(parity)},
            "{\n.reg .pred p;\nLAB_WAIT:\n"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n"
            "@p bra DONE;\nbra LAB_WAIT;\nDONE:\n}",
            "r,r");
  }
};

/// The 128-byte swizzle of a shared-memory byte address: the 16-byte chunk
/// index (bits 4-6) XOR the row within 8 rows of 128 bytes (bits 7-9).
Value swizzle(GemmCode &code, Value address) {
  Value row = code.band(code.shr(address, 7), 7);
  return arith::XOrIOp::create(code.env.b, code.env.loc, address,
                               code.shl(row, 4));
}

/// The shared-memory window address of the block's dynamic shared memory
/// (an extern array aligned to 1024 bytes, as the 128-byte swizzle needs).
Value sharedBase(OpBuilder &b, Location loc) {
  auto kernels = b.getInsertionBlock()
                     ->getParentOp()
                     ->getParentOfType<gpu::GPUModuleOp>();
  MLIRContext *ctx = b.getContext();
  auto arrayType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0);
  if (!kernels.lookupSymbol(kSharedSymbol)) {
    OpBuilder gb(ctx);
    gb.setInsertionPointToStart(kernels.getBody());
    LLVM::GlobalOp::create(gb, loc, arrayType, /*isConstant=*/false,
                           LLVM::Linkage::External, kSharedSymbol,
                           Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
  }
  Value ptr = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, 3), kSharedSymbol);
  Value asInt = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), asInt);
}

/// wgmma.mma_async instructions in one asm block, one per descriptor pair,
/// accumulating into `acc`, or with `fresh` into zeros (the first wgmma's
/// scale-d predicate is false, so acc's values are not read). FP8:
/// m64nNk32 .<A>.<B>; NVFP4 (converted): m64nNk16 .f16.f16, K-major.
Value emitWgmmas(OpBuilder &b, Location loc, const GemmPlan &plan, Value acc,
                 ArrayRef<Value> descsA, ArrayRef<Value> descsB, bool fresh) {
  int64_t regs = plan.accRegs();
  int64_t steps = descsA.size();
  std::string text = "{\n.reg .pred p, q;\nsetp.ne.b32 p, $" +
                     std::to_string(regs + 2 * steps) + ", 0;\n" +
                     "setp.ne.b32 q, $" +
                     std::to_string(regs + 2 * steps + 1) + ", 0;\n";
  std::string list = "{";
  for (int64_t r = 0; r < regs; ++r)
    list += (r ? ", $" : "$") + std::to_string(r);
  list += "}";
  std::string shape =
      plan.fp4() ? llvm::formatv("m64n{0}k16.f32.f16.f16", plan.tileN).str()
                 : llvm::formatv("m64n{0}k32.f32.{1}.{2}", plan.tileN,
                                 plan.typeA, plan.typeB)
                       .str();
  // f16 takes transpose immediates (0: K-major); FP8 is K-major only.
  StringRef trans = plan.fp4() ? ", 0, 0" : "";
  for (int64_t j = 0; j < steps; ++j)
    text += llvm::formatv("wgmma.mma_async.sync.aligned.{0} {1}, ${2}, ${3}, "
                          "{4}, 1, 1{5};\n",
                          shape, list, regs + j, regs + steps + j,
                          j == 0 ? "p" : "q", trans)
                .str();
  text += "}";
  std::string constraints;
  for (int64_t r = 0; r < regs; ++r)
    constraints += "=f,";
  for (int64_t j = 0; j < 2 * steps; ++j)
    constraints += "l,";
  constraints += "r,r";
  for (int64_t r = 0; r < regs; ++r)
    constraints += "," + std::to_string(r);
  SmallVector<Value> operands(descsA.begin(), descsA.end());
  operands.append(descsB.begin(), descsB.end());
  operands.push_back(
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), fresh ? 0 : 1));
  operands.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
  for (int64_t r = 0; r < regs; ++r)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, r));
  Ptx ptx{b, loc};
  return ptx(acc.getType(), operands, text, constraints);
}

/// FP8 k-steps [firstStep, firstStep + steps) of a stage (32 bytes of K
/// each) in one asm block.
Value emitWgmmaStep(OpBuilder &b, Location loc, const GemmPlan &plan,
                    Value acc, Value descA, Value descB, GemmCode &code,
                    bool fresh = false, int64_t firstStep = 0,
                    int64_t steps = kKSteps) {
  SmallVector<Value> descsA, descsB;
  for (int64_t j = 0; j < steps; ++j) {
    descsA.push_back(code.stepDescriptor(descA, firstStep + j));
    descsB.push_back(code.stepDescriptor(descB, firstStep + j));
  }
  return emitWgmmas(b, loc, plan, acc, descsA, descsB, fresh);
}

void emitGpuBody(KernelEnv &env, const GemmPlan &plan) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  GemmCode code{env, plan};
  Ptx ptx{b, loc};
  // args: tmA, tmB, sa, sb, [bias], [c], d
  Value tmA = ptx.pointerOf(env.args[0]), tmB = ptx.pointerOf(env.args[1]);
  ValueRange epilogueArgs = ValueRange(env.args).drop_front(2);
  Value base = sharedBase(b, loc);
  Value tid = env.threadId;
  Value wg = env.div(tid, env.idx(kWarpgroup));
  Value t = env.rem(tid, env.idx(kWarpgroup));
  Value tm, tn;
  std::tie(tm, tn) = code.tileOf(env.blockId);
  Value zero = env.idx(0);
  auto eq = [&](Value a, Value c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, c);
  };

  env.ifThen(eq(tid, zero), [&] {
    for (int64_t s = 0; s < plan.stages; ++s) {
      ptx({ptx.i32(env.add(base, code.fullBarrier(env.idx(s)))),
           ptx.i32(env.idx(1))},
          "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r");
      ptx({ptx.i32(env.add(base, code.emptyBarrier(env.idx(s)))),
           ptx.i32(env.idx(kConsumers))},
          "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r");
    }
    ptx({}, "fence.mbarrier_init.release.cluster;\n"
            "fence.proxy.async.shared::cta;", "");
    ptx({tmA}, "prefetch.tensormap [$0];", "l");
    ptx({tmB}, "prefetch.tensormap [$0];", "l");
  });
  gpu::BarrierOp::create(b, loc);

  int64_t kTiles = plan.kTiles();
  env.ifThenElse(
      eq(wg, zero),
      [&] {
        // Producer warpgroup: gives registers away; one thread issues TMA.
        ptx({}, "setmaxnreg.dec.sync.aligned.u32 40;", "");
        env.ifThen(eq(t, zero), [&] {
          env.loop(kTiles, [&](Value kt) {
            Value s = env.rem(kt, env.idx(plan.stages));
            Value round = env.div(kt, env.idx(plan.stages));
            env.ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                             kt, env.idx(plan.stages)),
                       [&] {
                         Value parity = code.band(
                             arith::SubIOp::create(b, loc, round, env.idx(1)),
                             1);
                         ptx.wait(env.add(base, code.emptyBarrier(s)), parity);
                       });
            Value full = ptx.i32(env.add(base, code.fullBarrier(s)));
            ptx({full, ptx.i32(env.idx(plan.stageBytes()))},
                "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;",
                "r,r");
            Value k0 = ptx.i32(env.mul(kt, env.idx(plan.rowBytes())));
            auto load = [&](Value dst, Value map, Value row) {
              ptx({ptx.i32(env.add(base, dst)), map, k0, ptx.i32(row), full},
                  "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                  "complete_tx::bytes [$0], [$1, {$2, $3}], [$4];",
                  "r,l,r,r,r");
            };
            load(code.stageA(s), tmA, env.mul(tm, env.idx(kTileM)));
            load(code.stageB(s), tmB, env.mul(tn, env.idx(plan.tileN)));
          });
        });
      },
      [&] {
        // Consumer warpgroups: 64 rows each.
        ptx({}, "setmaxnreg.inc.sync.aligned.u32 232;", "");
        Value consumer = arith::SubIOp::create(b, loc, wg, env.idx(1));
        SmallVector<Type> fields(plan.accRegs(), b.getF32Type());
        auto accType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
        Value acc = LLVM::ZeroOp::create(b, loc, accType);
        auto forOp = scf::ForOp::create(b, loc, env.idx(0), env.idx(kTiles),
                                        env.idx(1), ValueRange{acc});
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(forOp.getBody());
          Value kt = forOp.getInductionVar();
          Value s = env.rem(kt, env.idx(plan.stages));
          Value parity =
              code.band(env.div(kt, env.idx(plan.stages)), 1);
          ptx.wait(env.add(base, code.fullBarrier(s)), parity);
          Value total = forOp.getRegionIterArgs()[0];
          if (plan.fp4()) {
            // Both consumers are past their previous wgmmas, which read the
            // converted tiles (named barrier 1: the 256 consumer threads).
            ptx({}, "bar.sync 1, 256;", "");
            code.convertFp4(
                tm, tn, consumer, t, kt, s, epilogueArgs[0], epilogueArgs[1],
                [&](Value offset) {
                  Type i32 = b.getI32Type();
                  auto words = LLVM::LLVMStructType::getLiteral(
                      b.getContext(), {i32, i32, i32, i32});
                  Value v = ptx(words, {ptx.i32(env.add(base, offset))},
                                "ld.shared.v4.b32 {$0, $1, $2, $3}, [$4];",
                                "=r,=r,=r,=r,r");
                  SmallVector<Value> bytes;
                  for (int64_t w = 0; w < 4; ++w) {
                    Value word = LLVM::ExtractValueOp::create(b, loc, v, w);
                    for (int64_t k = 0; k < 4; ++k)
                      bytes.push_back(arith::TruncIOp::create(
                          b, loc, b.getI8Type(),
                          arith::ShRUIOp::create(
                              b, loc, word,
                              arith::ConstantIntOp::create(b, loc, i32, 8 * k))));
                  }
                  return bytes;
                },
                [&](Value offset, ArrayRef<Value> words) {
                  SmallVector<Value> operands = {
                      ptx.i32(env.add(base, swizzle(code, offset)))};
                  operands.append(words.begin(), words.end());
                  ptx(operands, "st.shared.v4.b32 [$0], {$1, $2, $3, $4};",
                      "r,r,r,r,r");
                });
            // The generic-proxy writes, visible to wgmma (async proxy), and
            // complete in both consumers; the packed stage can be refilled.
            ptx({}, "fence.proxy.async.shared::cta;", "");
            ptx({}, "bar.sync 1, 256;", "");
            env.ifThen(eq(t, zero), [&] {
              ptx({ptx.i32(env.add(base, code.emptyBarrier(s)))},
                  "mbarrier.arrive.shared::cta.b64 _, [$0];", "r");
            });
            ptx({}, "wgmma.fence.sync.aligned;", "");
            SmallVector<Value> descsA, descsB;
            for (int64_t j = 0; j < kTileK / 16; ++j) {
              descsA.push_back(code.f16DescA(base, consumer, j));
              descsB.push_back(code.f16DescB(base, j));
            }
            Value next = emitWgmmas(b, loc, plan, total, descsA, descsB,
                                    /*fresh=*/false);
            ptx({}, "wgmma.commit_group.sync.aligned;\n"
                    "wgmma.wait_group.sync.aligned 0;", "");
            scf::YieldOp::create(b, loc, next);
          } else if (plan.blockScaled()) {
            ptx({}, "wgmma.fence.sync.aligned;", "");
            // Each scale block of K on its own (fresh accumulators), then
            // promoted; `groupsPerRound` blocks between two waits.
            int64_t groups = kTileK / plan.blockK();
            int64_t perRound = plan.groupsPerRound();
            Value next = total;
            for (int64_t round = 0; round < groups / perRound; ++round) {
              SmallVector<GemmCode::TileScales> scales;
              for (int64_t g = 0; g < perRound; ++g) {
                Value kb = env.add(env.mul(kt, env.idx(groups)),
                                   env.idx(round * perRound + g));
                scales.push_back(code.loadScales(tm, tn, consumer, t, kb,
                                                 epilogueArgs[0],
                                                 epilogueArgs[1]));
              }
              if (round != 0)
                ptx({}, "wgmma.fence.sync.aligned;", "");
              SmallVector<Value> partials;
              for (int64_t g = 0; g < perRound; ++g) {
                Value fresh = LLVM::UndefOp::create(b, loc, accType);
                int64_t first = (round * perRound + g) * plan.stepsPerGroup();
                partials.push_back(emitWgmmaStep(
                    b, loc, plan, fresh, code.descA(base, s, consumer),
                    code.descB(base, s), code, /*fresh=*/true, first,
                    plan.stepsPerGroup()));
              }
              ptx({}, "wgmma.commit_group.sync.aligned;\n"
                      "wgmma.wait_group.sync.aligned 0;", "");
              if (round == groups / perRound - 1)
                env.ifThen(eq(t, zero), [&] {
                  ptx({ptx.i32(env.add(base, code.emptyBarrier(s)))},
                      "mbarrier.arrive.shared::cta.b64 _, [$0];", "r");
                });
              for (int64_t g = 0; g < perRound; ++g) {
                Value before = next;
                code.promote(
                    scales[g],
                    [&](int64_t r) {
                      return LLVM::ExtractValueOp::create(b, loc, partials[g], r)
                          .getResult();
                    },
                    [&](int64_t r) {
                      return LLVM::ExtractValueOp::create(b, loc, before, r)
                          .getResult();
                    },
                    [&](int64_t r, Value v) {
                      next = LLVM::InsertValueOp::create(b, loc, next, v, r);
                    });
              }
            }
            scf::YieldOp::create(b, loc, next);
          } else {
            ptx({}, "wgmma.fence.sync.aligned;", "");
            Value next = emitWgmmaStep(b, loc, plan, total,
                                       code.descA(base, s, consumer),
                                       code.descB(base, s), code);
            // One group stays in flight: wait for the previous stage's
            // wgmmas, then free that stage (one arrival per consumer).
            ptx({}, "wgmma.commit_group.sync.aligned;\n"
                    "wgmma.wait_group.sync.aligned 1;", "");
            Value previous = env.rem(env.add(kt, env.idx(plan.stages - 1)),
                                     env.idx(plan.stages));
            Value release = env.land(
                eq(t, zero), arith::CmpIOp::create(
                                 b, loc, arith::CmpIPredicate::ugt, kt, zero));
            env.ifThen(release, [&] {
              ptx({ptx.i32(env.add(base, code.emptyBarrier(previous)))},
                  "mbarrier.arrive.shared::cta.b64 _, [$0];", "r");
            });
            scf::YieldOp::create(b, loc, next);
          }
        }
        ptx({}, "wgmma.wait_group.sync.aligned 0;", "");
        Value result = forOp.getResult(0);
        code.epilogue(tm, tn, consumer, t, epilogueArgs, [&](int64_t r) {
          return LLVM::ExtractValueOp::create(b, loc, result, r).getResult();
        });
      });
}

//===----------------------------------------------------------------------===//
// CPU emulation
//===----------------------------------------------------------------------===//

/// TMA: box [rows, rowBytes] of `global` ([total rows, pitch] bytes,
/// row-major) at (row0, byte k0) into shared `dst`, 128-byte swizzled (FP8)
/// or not (packed FP4), zero past the edges.
void emulateTma(GemmCode &code, Value smem, Value dst, Value global,
                int64_t totalRows, Value row0, Value k0, int64_t rows) {
  KernelEnv &env = code.env;
  OpBuilder &b = env.b;
  Type i8 = b.getI8Type();
  int64_t rowBytes = code.plan.rowBytes(), pitch = code.plan.pitch();
  env.loop(rows, [&](Value r) {
    env.loop(rowBytes, [&](Value c) {
      Value gr = env.add(row0, r), gc = env.add(k0, c);
      Value inside = env.land(env.lt(gr, env.idx(totalRows)),
                              env.lt(gc, env.idx(pitch)));
      auto ifOp = scf::IfOp::create(b, env.loc, TypeRange{i8}, inside, true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value v = memref::LoadOp::create(
            b, env.loc, global, env.add(env.mul(gr, env.idx(pitch)), gc));
        if (v.getType() != i8)
          v = arith::BitcastOp::create(b, env.loc, i8, v);
        scf::YieldOp::create(b, env.loc, v);
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(
            b, env.loc,
            arith::ConstantIntOp::create(b, env.loc, i8, 0).getResult());
      }
      Value at = env.add(dst, env.add(env.mul(r, env.idx(rowBytes)), c));
      if (!code.plan.fp4())
        at = swizzle(code, at);
      memref::StoreOp::create(b, env.loc, ifOp.getResult(0), smem, at);
    });
  });
}

/// wgmma m64n<tileN>k32 (FP8) or m64n<tileN>k16 (f16, NVFP4): decodes the
/// descriptors like the hardware (start address, stride byte offset,
/// 128-byte swizzle) and adds the products into the fragment registers
/// `regs[t][r]` of one warpgroup.
void emulateWgmma(GemmCode &code, Value smem, Value regs, Value regBase,
                  Value descA, Value descB, Type typeA, Type typeB) {
  KernelEnv &env = code.env;
  OpBuilder &b = env.b;
  Location loc = env.loc;
  auto field = [&](Value desc, int64_t shift) {
    Value v = arith::ShRUIOp::create(
        b, loc, desc,
        arith::ConstantIntOp::create(b, loc, b.getI64Type(), shift));
    v = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
    return code.shl(code.band(v, 0x3FFF), 4);
  };
  Value startA = field(descA, 0), strideA = field(descA, 32);
  Value startB = field(descB, 0), strideB = field(descB, 32);
  bool f16 = code.plan.fp4();
  int64_t elementBytes = f16 ? 2 : 1;
  auto element = [&](Value start, Value stride, Value row, Value kk,
                     Type type) -> Value {
    Value address = env.add(
        env.add(start, env.mul(code.shr(row, 3), stride)),
        env.add(env.mul(code.band(row, 7), env.idx(128)),
                env.mul(kk, env.idx(elementBytes))));
    Value byte = memref::LoadOp::create(b, loc, smem, swizzle(code, address));
    if (!f16)
      return emitDecodeToF32(b, loc, byte, *SmallFloatFormat::get(type));
    // Little-endian f16: both bytes lie in the same 16-byte chunk.
    Value high = memref::LoadOp::create(
        b, loc, smem, swizzle(code, env.add(address, env.idx(1))));
    Type i16 = b.getI16Type();
    Value bits = arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i16, byte),
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i16, high),
                              arith::ConstantIntOp::create(b, loc, i16, 8)));
    return env.toF32(arith::BitcastOp::create(b, loc, b.getF16Type(), bits));
  };
  int64_t regsPerThread = code.plan.accRegs();
  env.loop(kWarpgroup, [&](Value t) {
    env.loop(regsPerThread, [&](Value r) {
      Value row, col;
      std::tie(row, col) = code.fragment(t, r);
      Value sum = env.loopReduce(f16 ? 16 : 32, env.f32(0.0f),
                                 [&](Value kk, Value acc) {
        Value p = arith::MulFOp::create(
            b, loc, element(startA, strideA, row, kk, typeA),
            element(startB, strideB, col, kk, typeB));
        return arith::AddFOp::create(b, loc, acc, p).getResult();
      });
      Value at = env.add(env.add(regBase, env.mul(t, env.idx(regsPerThread))), r);
      Value old = memref::LoadOp::create(b, loc, regs, at);
      memref::StoreOp::create(b, loc, arith::AddFOp::create(b, loc, old, sum),
                              regs, at);
    });
  });
}

void emitEmulatedBody(KernelEnv &env, const GemmPlan &plan, Type typeA,
                      Type typeB) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  GemmCode code{env, plan};
  // args: a, b, sa, sb, [bias], [c], d
  Value a = env.args[0], bm = env.args[1];
  ValueRange epilogueArgs = ValueRange(env.args).drop_front(2);
  int64_t regCount = kConsumers * kWarpgroup * plan.accRegs();
  Value smem = memref::AllocOp::create(
      b, loc, MemRefType::get({plan.sharedBytes()}, b.getI8Type()));
  Value regs = memref::AllocOp::create(
      b, loc, MemRefType::get({regCount}, b.getF32Type()));
  Value partial = plan.blockScaled()
                      ? memref::AllocOp::create(
                            b, loc, MemRefType::get({regCount}, b.getF32Type()))
                            .getResult()
                      : Value();
  env.loop(regCount, [&](Value r) {
    memref::StoreOp::create(b, loc, env.f32(0.0f), regs, r);
  });
  Value tm, tn;
  std::tie(tm, tn) = code.tileOf(env.blockId);
  Value base = env.idx(0);
  env.loop(plan.kTiles(), [&](Value kt) {
    // The producer's step, then each consumer's (no waits needed).
    Value s = env.rem(kt, env.idx(plan.stages));
    Value k0 = env.mul(kt, env.idx(plan.rowBytes()));
    emulateTma(code, smem, code.stageA(s), a, plan.m,
               env.mul(tm, env.idx(kTileM)), k0, kTileM);
    emulateTma(code, smem, code.stageB(s), bm, plan.n,
               env.mul(tn, env.idx(plan.tileN)), k0, plan.tileN);
    if (plan.fp4()) {
      // Every consumer thread converts its half-rows, then the wgmmas.
      env.loop(kConsumers, [&](Value consumer) {
        env.loop(kWarpgroup, [&](Value t) {
          code.convertFp4(
              tm, tn, consumer, t, kt, s, epilogueArgs[0], epilogueArgs[1],
              [&](Value offset) {
                SmallVector<Value> bytes;
                for (int64_t k = 0; k < 16; ++k)
                  bytes.push_back(memref::LoadOp::create(
                      b, loc, smem, env.add(offset, env.idx(k))));
                return bytes;
              },
              [&](Value offset, ArrayRef<Value> words) {
                Value at = swizzle(code, offset);
                for (auto [w, word] : llvm::enumerate(words))
                  for (int64_t k = 0; k < 4; ++k)
                    memref::StoreOp::create(
                        b, loc,
                        arith::TruncIOp::create(
                            b, loc, b.getI8Type(),
                            arith::ShRUIOp::create(
                                b, loc, word,
                                arith::ConstantIntOp::create(
                                    b, loc, b.getI32Type(), 8 * k))),
                        smem, env.add(at, env.idx(4 * w + k)));
              });
        });
      });
      env.loop(kConsumers, [&](Value consumer) {
        Value regBase = env.mul(consumer, env.idx(kWarpgroup * plan.accRegs()));
        for (int64_t j = 0; j < kTileK / 16; ++j)
          emulateWgmma(code, smem, regs, regBase,
                       code.f16DescA(base, consumer, j), code.f16DescB(base, j),
                       b.getF16Type(), b.getF16Type());
      });
      return;
    }
    env.loop(kConsumers, [&](Value consumer) {
      Value descA = code.descA(base, s, consumer);
      Value descB = code.descB(base, s);
      Value regBase = env.mul(consumer, env.idx(kWarpgroup * plan.accRegs()));
      if (!plan.blockScaled()) {
        for (int64_t j = 0; j < kKSteps; ++j)
          emulateWgmma(code, smem, regs, regBase, code.stepDescriptor(descA, j),
                       code.stepDescriptor(descB, j), typeA, typeB);
        return;
      }
      // Block scaling: each scale block of K into zeroed partial registers,
      // then promoted.
      int64_t groups = kTileK / plan.blockK();
      for (int64_t g = 0; g < groups; ++g) {
        env.loop(kWarpgroup * plan.accRegs(), [&](Value r) {
          memref::StoreOp::create(b, loc, env.f32(0.0f), partial,
                                  env.add(regBase, r));
        });
        for (int64_t j = 0; j < plan.stepsPerGroup(); ++j) {
          int64_t step = g * plan.stepsPerGroup() + j;
          emulateWgmma(code, smem, partial, regBase,
                       code.stepDescriptor(descA, step),
                       code.stepDescriptor(descB, step), typeA, typeB);
        }
        Value kb = env.add(env.mul(kt, env.idx(groups)), env.idx(g));
        env.loop(kWarpgroup, [&](Value t) {
          Value at = env.add(regBase, env.mul(t, env.idx(plan.accRegs())));
          auto load = [&](Value buffer, int64_t r) {
            return memref::LoadOp::create(b, loc, buffer,
                                          env.add(at, env.idx(r)))
                .getResult();
          };
          GemmCode::TileScales scales = code.loadScales(
              tm, tn, consumer, t, kb, epilogueArgs[0], epilogueArgs[1]);
          code.promote(
              scales, [&](int64_t r) { return load(partial, r); },
              [&](int64_t r) { return load(regs, r); },
              [&](int64_t r, Value v) {
                memref::StoreOp::create(b, loc, v, regs,
                                        env.add(at, env.idx(r)));
              });
        });
      }
    });
  });
  env.loop(kConsumers, [&](Value consumer) {
    env.loop(kWarpgroup, [&](Value t) {
      Value regBase = env.mul(
          env.add(env.mul(consumer, env.idx(kWarpgroup)), t),
          env.idx(plan.accRegs()));
      code.epilogue(tm, tn, consumer, t, epilogueArgs, [&](int64_t r) {
        return memref::LoadOp::create(b, loc, regs,
                                      env.add(regBase, env.idx(r)))
            .getResult();
      });
    });
  });
  // Buffer deallocation frees `regs` and `smem` (and the tensor maps).
}

bool isPerTensor(QuantTensorType type) {
  return isa<Fp8DelayedAttr, Fp8CurrentAttr>(type.getQuantizer());
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

LogicalResult gpuk::checkGemmSupport(
    const GemmOperands &operands, const TargetInfo &chip,
    function_ref<InFlightDiagnostic()> emitError) {
  bool perTensor = isPerTensor(operands.a.type) && isPerTensor(operands.b.type);
  bool block = isa<Fp8BlockAttr>(operands.a.type.getQuantizer()) &&
               isa<Fp8BlockAttr>(operands.b.type.getQuantizer());
  bool mx = isa<MXFP8Attr>(operands.a.type.getQuantizer()) &&
            isa<MXFP8Attr>(operands.b.type.getQuantizer());
  auto nvA = dyn_cast<NVFP4Attr>(operands.a.type.getQuantizer());
  auto nvB = dyn_cast<NVFP4Attr>(operands.b.type.getQuantizer());
  bool fp4 = nvA && nvB;
  // (qs.gemm's verifier guarantees one family for both operands and at most
  // one 128x128-scaled FP8 block operand.)
  if (fp4 && (nvA.getRowScaledNvfp4() || nvB.getRowScaledNvfp4()))
    return emitError() << "has no GPU kernel yet for row-scaled NVFP4 "
                          "operands (per-row amax vectors; NVFP4 with a "
                          "global amax has one, on sm_90a); qs-cpu-pipeline "
                          "can run it";
  // (Every family has a kernel; qs.gemm's verifier guarantees one family.)
  assert((perTensor || block || mx || fp4) && "a GEMM of mixed families");
  (void)perTensor;
  for (auto [name, operand] : {std::pair<StringRef, const GemmOperand *>{
                                   "a", &operands.a},
                               {"b", &operands.b}}) {
    if (operand->kMajor)
      continue;
    if (mx)
      return emitError()
             << "operand " << name
             << " is contracted over its first dimension, but MXFP8 keeps "
                "column-wise data in the tensor's own layout (not K-major) "
                "and FP8 wgmma reads K-major operands only: on sm_90a, "
                "MXFP8 GEMMs contract both operands over their last "
                "dimension (TN, as fprop)";
    return emitError()
           << "operand " << name
           << " is contracted over its first dimension and has no "
              "transpose buffer: FP8 wgmma reads K-major operands only "
              "(qs.chip = \"sm_90a\" stores the column-wise FP8 usage "
              "transposed)";
  }
  if (chip.getComputeCapability() != 90)
    return emitError() << "FP8 GEMM kernels use wgmma, which only sm_90a has "
                          "(ptxas rejects FP8 wgmma for sm_100a); the tcgen05 "
                          "kernels of sm_100a do not exist yet";
  if (operands.k % 16 != 0)
    return emitError() << "GEMM kernels need K (here " << operands.k
                       << ") to be a multiple of 16: TMA row strides are "
                          "multiples of 16 bytes (cuBLASLt has the same "
                          "rule, lda % 16 == 0)";
  if (fp4 && operands.k % 32 != 0)
    return emitError() << "NVFP4 GEMM kernels need K (here " << operands.k
                       << ") to be a multiple of 32: a packed row (K / 2 "
                          "bytes) must be a multiple of 16 bytes for TMA";
  if ((block && operands.tileN == 256) || ((mx || fp4) && operands.tileN))
    return emitError() << "block-scaled GEMM kernels use fixed tile widths "
                          "(FP8 block 128, MXFP8 64, NVFP4 128); "
                          "qs.gemm_tile_n applies to per-tensor FP8 only";
  return success();
}

void gpuk::emitGemm(OpBuilder &b, Location loc, ModuleOp module,
                    const GemmOperands &operands, Type outType, Value bias,
                    Value c, Value d, const EmitOptions &options) {
  GemmPlan plan;
  plan.m = operands.m;
  plan.n = operands.n;
  plan.k = operands.k;
  plan.tilesM = ceilDiv(plan.m, kTileM);
  // 128x256 tiles when they still fill every multiprocessor.
  auto operandPlan = [&](const GemmOperand &op, int64_t rows) {
    OperandPlan p;
    p.blockDim = op.blockDim;
    p.swizzled = op.swizzled;
    p.rows = rows;
    p.scaleLd = op.blockDim == 1   ? roundUp(rows, 4)
                : op.blockDim == 2 ? roundUp(ceilDiv(plan.k, 128), 4)
                : op.blockDim == 3 ? roundUp(plan.k / 32, 4)
                : op.blockDim == 4 ? roundUp(plan.k / 16, 4)
                                   : 0;
    return p;
  };
  plan.a = operandPlan(operands.a, plan.m);
  plan.b = operandPlan(operands.b, plan.n);
  plan.tileN = operands.tileN          ? operands.tileN
               : plan.a.blockDim == 3  ? 64
               : plan.blockScaled() || plan.fp4() ? 128
               : plan.tilesM * ceilDiv(plan.n, 256) >= kSMs ? 256
                                                            : 128;
  plan.tilesN = ceilDiv(plan.n, plan.tileN);
  plan.stages = (kRingBytes - (plan.fp4() ? (kTileM + plan.tileN) * 256 : 0)) /
                plan.stageBytes();
  Type typeA = cast<MemRefType>(operands.a.data.getType()).getElementType();
  Type typeB = cast<MemRefType>(operands.b.data.getType()).getElementType();
  plan.typeA = ptxType(typeA);
  plan.typeB = ptxType(typeB);
  plan.outType = outType;
  plan.bias = static_cast<bool>(bias);
  plan.accumulate = static_cast<bool>(c);

  KernelDesc desc;
  desc.name = "qs_gemm";
  desc.gridSize = plan.tilesM * plan.tilesN;
  desc.threads = plan.threads();
  desc.dynamicSharedBytes = plan.sharedBytes();
  // 384 threads x 168 registers fit the 64K register file; setmaxnreg then
  // moves 128 x (168 - 40) registers to the consumers (232 each).
  desc.maxRegisters = 168;
  SmallVector<Value> args;
  if (options.gpu) {
    // The TMA descriptors, encoded on the host into device buffers.
    auto mapType = MemRefType::get({16}, b.getI64Type());
    auto encode = [&](Value data, int64_t rows, int64_t boxRows) {
      Value map = memref::AllocOp::create(b, loc, mapType);
      // FP8: 128-byte swizzle (wgmma reads the tile); packed FP4: none
      // (the consumers read it with ordinary loads).
      emitEncodeTensorMap(b, loc, module, map, data, rows, plan.pitch(),
                          boxRows, plan.rowBytes(), plan.fp4() ? 0 : 128);
      return map;
    };
    args = {encode(operands.a.data, plan.m, kTileM),
            encode(operands.b.data, plan.n, plan.tileN)};
  } else {
    args = {operands.a.data, operands.b.data};
  }
  args.push_back(operands.a.scaleInv);
  args.push_back(operands.b.scaleInv);
  if (plan.fp4()) {
    args.push_back(operands.a.amax);
    args.push_back(operands.b.amax);
  }
  if (bias)
    args.push_back(bias);
  if (c)
    args.push_back(c);
  args.push_back(d);
  if (options.gpu)
    desc.blockBody = [plan](KernelEnv &env) { emitGpuBody(env, plan); };
  else
    desc.blockBody = [plan, typeA, typeB](KernelEnv &env) {
      emitEmulatedBody(env, plan, typeA, typeB);
    };
  emitKernel(b, loc, module, desc, args, options.gpu, options.hardwareFp8);
}

void gpuk::emitEncodeTensorMap(OpBuilder &b, Location loc, ModuleOp module,
                               Value map, Value data, int64_t rows,
                               int64_t cols, int64_t boxRows,
                               int64_t boxCols, int64_t swizzleBytes) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  auto fnType = FunctionType::get(ctx, SmallVector<Type>(7, i64),
                                  {b.getI32Type()});
  auto fn = module.lookupSymbol<func::FuncOp>(kEncodeTensorMapFn);
  if (!fn) {
    OpBuilder mb(ctx);
    mb.setInsertionPointToStart(module.getBody());
    fn = func::FuncOp::create(mb, loc, kEncodeTensorMapFn, fnType);
    fn.setPrivate();
  }
  auto pointer = [&](Value memref) {
    return arith::IndexCastUIOp::create(
        b, loc, i64, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
  };
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  func::CallOp::create(b, loc, fn,
                       ValueRange{pointer(map), pointer(data), constant(rows),
                                  constant(cols), constant(boxRows),
                                  constant(boxCols), constant(swizzleBytes)});
}
