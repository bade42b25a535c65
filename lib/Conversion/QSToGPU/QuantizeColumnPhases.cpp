//===- QuantizeColumnPhases.cpp - column-wise phases of quantize ---------===//
//
// The column-wise phases of the quantize cast kernels (QuantizePlan.h):
// a thread per column block (columnwisePhase; per-tensor FP8 transposes by
// column pairs), FP8 1x128 blocks by column pairs over lanes
// (columnPairsPhase), transposed codes staged in shared memory for
// coalesced stores (stagedColumnStorePhase), MXFP8's column-wise codes
// in x's layout (xLayoutEncodePhase), and the row-wise codes transposed
// where an element has one scale in either usage (per-tensor FP8, 2-D
// blocks: columnFromRowCodesPhase). The shared building blocks (tiles,
// encoders, block scales, stores) are in QuantizePhases.cpp.
//
//===----------------------------------------------------------------------===//

#include "../QSToLinalg/ReferenceBuilders.h"
#include "QuantizePlan.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "qs/Dialect/QS/Utils/StochasticRounding.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::quant;

int64_t quant::stageRowBytes(const Tile &t, const Rep &r) {
  return t.rows / (r.fp4 ? 2 : 1) + 16;
}

bool quant::stagesColumnCodes(const Tile &t, const Rep &r) {
  int64_t perByte = r.fp4 ? 2 : 1;
  // In static shared memory with the tile (48 KiB): not the 2-D tiles of
  // 128 x 128 f32 or 16-bit elements, whose occupancy it would lower.
  int64_t bytes = t.rows * t.ld * t.elemBytes + t.cols * stageRowBytes(t, r);
  return r.columnwise && !r.xLayout && !t.swizzled &&
         (t.rows / perByte) % 16 == 0 && bytes <= 48 * 1024;
}

/// The 16 codes (`bytes`: 16, or 8 packed FP4) of tile column `c`, tile rows
/// `tileRow0` ..., z row `gc`, elements `first` ...: into the staging buffer
/// when the tile has one, else straight to z.
static void storeColumnCodes(KernelEnv &env, const Plan &p, const Tile &t,
                             const Rep &r, ArrayRef<Value> bytes, Value c,
                             Value tileRow0, Value gc, Value first) {
  if (t.colStage < 0) {
    storeChunk(env, bytes, env.args[r.dataArg], env.mul(gc, env.idx(p.m)),
               first, p.m, r.fp4, p.m % r.block == 0 && p.m % 16 == 0);
    return;
  }
  Value at = env.add(env.mul(c, env.idx(t.stageLd)),
                     r.fp4 ? env.div(tileRow0, env.idx(2)) : tileRow0);
  storeBytes(env, bytes, env.shared[t.colStage], at, /*aligned=*/true,
             std::nullopt);
}

void quant::stagedColumnStorePhase(KernelEnv &env, const Plan &p, const Tile &t,
                                   const Rep &r) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t perByte = r.fp4 ? 2 : 1;
  int64_t chunks = t.rows / perByte / 16;
  Value stage = env.shared[t.colStage], z = env.args[r.dataArg];
  env.forEachUnit(t.cols * chunks, [&](Value u) {
    Value c = env.div(u, env.idx(chunks));
    Value ch = env.rem(u, env.idx(chunks));
    Value gc = env.add(env.mul(tileCol, env.idx(t.cols)), c);
    Value first = env.add(env.mul(tileRow, env.idx(t.rows)),
                          env.mul(ch, env.idx(16 * perByte)));
    Value valid =
        env.land(env.lt(gc, env.idx(p.k)), env.lt(first, env.idx(p.m)));
    env.ifThen(valid, [&] {
      Value from =
          env.add(env.mul(c, env.idx(t.stageLd)), env.mul(ch, env.idx(16)));
      Value rowStart = env.mul(gc, env.idx(p.m));
      if (p.m % (16 * perByte) == 0) {
        // Whole chunks, 16-byte aligned in z.
        VectorType bytes = VectorType::get({16}, b.getI8Type());
        Value v = vector::LoadOp::create(b, loc, bytes, stage, ValueRange{from},
                                         false, llvm::MaybeAlign(16));
        Type elt = cast<MemRefType>(z.getType()).getElementType();
        if (!elt.isInteger(8))
          v = arith::BitcastOp::create(b, loc, VectorType::get({16}, elt), v);
        Value at = env.div(env.add(rowStart, first), env.idx(perByte));
        vector::StoreOp::create(b, loc, v, z, ValueRange{at}, false,
                                llvm::MaybeAlign(16));
        return;
      }
      for (int64_t e = 0; e < 16; ++e) {
        Value element = env.add(first, env.idx(e * perByte));
        env.ifThen(env.lt(element, env.idx(p.m)), [&] {
          Value at = env.div(env.add(rowStart, element), env.idx(perByte));
          store1(env, load1(env, stage, env.add(from, env.idx(e))), z, at);
        });
      }
    });
  });
}

/// Per-tensor FP8 column-wise codes of a 16-bit tile whose codes are
/// staged: a thread takes a column pair and 16 rows, one 32-bit shared load
/// per row for both columns (a warp: 64 columns of a row, 128 bytes,
/// without bank conflicts), where one 16-bit load per element kept the
/// shared-memory pipe busy.
static void perTensorColumnPairs(KernelEnv &env, const Plan &p, const Tile &t,
                                 const Rep &r, Value mult) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value smem = env.shared[0];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t pairs = t.cols / 2;
  VectorType pairType = VectorType::get({2}, p.nominal);
  env.forEachUnit(pairs * (t.rows / 16), [&](Value u) {
    Value c0 = env.mul(env.rem(u, env.idx(pairs)), env.idx(2));
    Value i = env.div(u, env.idx(pairs));
    Value tileRow0 = env.mul(i, env.idx(16));
    Value gr0 = env.add(env.mul(tileRow, env.idx(t.rows)), tileRow0);
    SmallVector<Value> rows;
    for (int64_t rr = 0; rr < 16; ++rr)
      rows.push_back(vector::LoadOp::create(
          b, loc, pairType, smem,
          ValueRange{env.add(
              env.mul(env.add(tileRow0, env.idx(rr)), env.idx(t.ld)), c0)},
          false, llvm::MaybeAlign(2 * t.elemBytes)));
    for (int64_t e = 0; e < 2; ++e) {
      Value c = env.add(c0, env.idx(e));
      Value gc = env.add(env.mul(tileCol, env.idx(t.cols)), c);
      Value valid =
          env.land(env.lt(gc, env.idx(p.k)), env.lt(gr0, env.idx(p.m)));
      env.ifThen(valid, [&] {
        SmallVector<Value> values;
        for (Value v : rows)
          values.push_back(env.toF32(
              vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{e})));
        storeColumnCodes(env, p, t, r, encodeScaled(env, r, values, mult), c,
                         tileRow0, gc, gr0);
      });
    }
  });
}

void quant::columnwisePhase(KernelEnv &env, const Plan &p, const Tile &t,
                            const Rep &r, Value repScale,
                            std::pair<Value, Value> rng) {
  if (t.swizzled) {
    columnPairsPhase(env, p, t, r, repScale);
    return;
  }
  if (r.kind == ScaleKind::PerTensor && !r.fp4 && !p.twoD && t.elemBytes == 2 &&
      t.colStage >= 0) {
    perTensorColumnPairs(env, p, t, r, repScale);
    return;
  }
  Value smem = env.shared[0];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t perCol = t.rows / r.block;
  env.forEachUnit(t.cols * perCol, [&](Value u) {
    Value c = env.rem(u, env.idx(t.cols));
    Value i = env.div(u, env.idx(t.cols));
    Value gc = env.add(env.mul(tileCol, env.idx(t.cols)), c);
    Value gBlock = env.add(env.mul(tileRow, env.idx(perCol)), i);
    Value gr0 = env.mul(gBlock, env.idx(r.block));
    Value valid = env.land(env.lt(gc, env.idx(p.k)), env.lt(gr0, env.idx(p.m)));
    env.ifThen(valid, [&] {
      auto element = [&](int64_t rr) {
        Value at =
            env.add(env.mul(env.add(env.mul(i, env.idx(r.block)), env.idx(rr)),
                            env.idx(t.ld)),
                    c);
        return env.toF32(load1(env, smem, at));
      };
      SmallVector<Value> transformed;
      if (r.rht)
        transformed = rht16(env, columnChunk(env, t, i, c), p.rhtSignMask);
      auto value = [&](int64_t rr) {
        return r.rht ? transformed[rr] : element(rr);
      };
      Value amax;
      if (p.twoD) {
        Value bj = env.div(c, env.idx(p.twoD));
        amax = load1(env, env.shared[r.rht ? t.rhtBlockAmax : t.blockAmax],
                     env.add(env.mul(i, env.idx(t.cols / p.twoD)), bj));
      } else if (r.kind != ScaleKind::PerTensor && r.rht) {
        amax = env.absMaxAll(env.f32(0.0f), transformed);
      } else if (r.kind != ScaleKind::PerTensor) {
        // A loop over 16-row chunks (see rowwisePhase).
        int64_t chunk = std::min<int64_t>(16, r.block);
        amax = env.loopReduce(
            r.block / chunk, env.f32(0.0f), [&](Value ci, Value acc) {
              for (int64_t rr = 0; rr < chunk; ++rr) {
                Value row =
                    env.add(env.mul(i, env.idx(r.block)),
                            env.add(env.mul(ci, env.idx(chunk)), env.idx(rr)));
                acc = env.absMax(
                    acc,
                    env.toF32(load1(env, smem,
                                    env.add(env.mul(row, env.idx(t.ld)), c))));
              }
              return acc;
            });
      }
      if (r.fourOverSix) {
        auto [sEnc, g] = nvfp4Globals(env, r, repScale, gc);
        Value pick4 = p.twoD ? fourOverSixTilePick(env, t, r, c, i) : Value();
        SmallVector<Value> bytes = fourOverSixEncode(
            env, r, amax, sEnc, g, columnChunk(env, t, i, c), pick4,
            scaleBuffer(env, r), r.scaleIndex(env, gc, gBlock),
            env.shared[t.fosBacks]);
        storeColumnCodes(env, p, t, r, bytes, c, env.mul(i, env.idx(r.block)),
                         gc, gr0);
        return;
      }
      Value mult = blockScale(env, p, r, amax, gc, gBlock, repScale,
                              scaleBuffer(env, r));
      if (r.xLayout) {
        // Codes in x's layout are written row by row by xLayoutEncodePhase.
        store1(env, mult, env.shared[t.mults],
               env.add(env.mul(i, env.idx(t.cols)), c));
        return;
      }
      for (int64_t c0 = 0; c0 < r.block; c0 += 16) {
        SmallVector<Value> values;
        for (int64_t rr = 0; rr < 16; ++rr)
          values.push_back(value(c0 + rr));
        values = scaleValues(env, values, mult);
        SmallVector<Value> words;
        if (r.stochastic)
          words = randomWords(env, r, rng, gc, env.add(gr0, env.idx(c0)), p.m);
        SmallVector<Value> bytes = encode(env, r, values, words);
        // Transposed: z[gc, gr0 + c0 ...] at gc * M + gr0 + c0.
        storeColumnCodes(env, p, t, r, bytes, c,
                         env.add(env.mul(i, env.idx(r.block)), env.idx(c0)), gc,
                         env.add(gr0, env.idx(c0)));
      }
    });
  });
}

void quant::columnPairsPhase(KernelEnv &env, const Plan &p, const Tile &t,
                             const Rep &r, Value repScale) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value smem = env.shared[0];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  constexpr int64_t kQuarter = 32;
  int64_t blocks = t.rows / r.block, groups = t.cols / 16;
  VectorType pairType = VectorType::get({2}, p.nominal);
  env.forEachUnit(blocks * groups * 32, [&](Value u) {
    // Whole warps take a unit each (32 lanes: 8 column pairs x 4 quarters).
    Value lane = env.rem(u, env.idx(32));
    Value warpUnit = env.div(u, env.idx(32));
    Value block = env.div(warpUnit, env.idx(groups));
    Value pair =
        env.add(env.mul(env.rem(warpUnit, env.idx(groups)), env.idx(8)),
                env.rem(lane, env.idx(8)));
    Value quarter = env.div(lane, env.idx(8));
    Value c0 = env.mul(pair, env.idx(2));
    Value firstRow = env.add(env.mul(block, env.idx(r.block)),
                             env.mul(quarter, env.idx(kQuarter)));
    // 32 rows of both columns from `from`, one 32-bit load per row.
    auto quarterRows = [&](Value from) {
      SmallVector<Value> rows;
      for (int64_t rr = 0; rr < kQuarter; ++rr)
        rows.push_back(vector::LoadOp::create(
            b, loc, pairType, smem,
            ValueRange{tileOffset(env, t, env.add(from, env.idx(rr)), c0)},
            false, llvm::MaybeAlign(2 * t.elemBytes)));
      return rows;
    };
    // Both columns' max |x| over `rows` in packed 16-bit arithmetic
    // (max.bf16x2 / max.f16x2: exact, and NaN-ignoring as
    // KernelEnv::absMax; |x| as the bits & 0x7FFF, since LLVM 22 widens a
    // bf16 fabs to f32).
    VectorType bitsType = VectorType::get({2}, b.getI16Type());
    auto packedMax = [&](ArrayRef<Value> rows, Value acc) {
      Value magnitude = arith::ConstantOp::create(
          b, loc, bitsType,
          DenseElementsAttr::get(bitsType, b.getI16IntegerAttr(0x7FFF)));
      for (Value v : rows) {
        Value bits = arith::AndIOp::create(
            b, loc, arith::BitcastOp::create(b, loc, bitsType, v), magnitude);
        acc = arith::MaxNumFOp::create(
            b, loc, acc, arith::BitcastOp::create(b, loc, pairType, bits));
      }
      return acc;
    };
    auto column = [&](Value v, int64_t e) {
      return env.toF32(
          vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{e}));
    };
    Value gBlock = env.add(env.mul(tileRow, env.idx(blocks)), block);
    Value gr0 = env.mul(gBlock, env.idx(r.block));
    Value zeros = arith::ConstantOp::create(
        b, loc, pairType,
        DenseElementsAttr::get(pairType, b.getFloatAttr(p.nominal, 0.0)));
    SmallVector<Value> pairs = quarterRows(firstRow);
    Value lanesMax = packedMax(pairs, zeros);
    if (!env.gpu) {
      // The emulation runs lanes one by one: the other quarters' rows here
      // (the GPU's shuffles below).
      for (int64_t q = 0; q < r.block / kQuarter; ++q)
        lanesMax =
            packedMax(quarterRows(env.add(env.mul(block, env.idx(r.block)),
                                          env.idx(q * kQuarter))),
                      lanesMax);
    }
    for (int64_t e = 0; e < 2; ++e) {
      Value amax = column(lanesMax, e);
      if (env.gpu) {
        // The 4 lanes of the column (lane bits 3 and 4).
        for (int32_t offset : {8, 16}) {
          auto other = gpu::ShuffleOp::create(b, loc, amax, offset, 32,
                                              gpu::ShuffleMode::XOR);
          amax =
              arith::MaxNumFOp::create(b, loc, amax, other.getShuffleResult());
        }
      }
      Value gc =
          env.add(env.mul(tileCol, env.idx(t.cols)), env.add(c0, env.idx(e)));
      Value valid =
          env.land(env.lt(gc, env.idx(p.k)), env.lt(gr0, env.idx(p.m)));
      // One lane of the four stores the block's scale.
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          quarter, env.idx(0));
      Value mult = blockScale(env, p, r, amax, gc, gBlock, repScale,
                              scaleBuffer(env, r), env.land(valid, first));
      env.ifThen(valid, [&] {
        for (int64_t h = 0; h < kQuarter; h += 16) {
          SmallVector<Value> values;
          for (int64_t rr = 0; rr < 16; ++rr)
            values.push_back(column(pairs[h + rr], e));
          SmallVector<Value> bytes = encodeScaled(env, r, values, mult);
          // Transposed: z[gc, gr0 + 32 quarter + h ...].
          Value at = env.add(env.add(gr0, env.mul(quarter, env.idx(kQuarter))),
                             env.idx(h));
          storeChunk(env, bytes, env.args[r.dataArg], env.mul(gc, env.idx(p.m)),
                     at, p.m, /*fp4=*/false, p.m % r.block == 0);
        }
      });
    }
  });
}

bool quant::derivesColumnCodes(const Plan &p, ArrayRef<const Rep *> reps) {
  if (p.directStores || reps.size() != 2 ||
      reps[0]->columnwise == reps[1]->columnwise)
    return false;
  const Rep &row = *reps[reps[0]->columnwise ? 1 : 0];
  const Rep &col = *reps[reps[0]->columnwise ? 0 : 1];
  auto roundsAlone = [](const Rep &r) {
    return r.stochastic || r.fourOverSix || r.rht || r.rowScaled || r.xLayout;
  };
  // One scale for an element in either usage: the tensor's, or its 2-D
  // block's.
  bool sharedScale =
      p.twoD ? row.kind == ScaleKind::F32Block || row.kind == ScaleKind::NVFP4
             : row.kind == ScaleKind::PerTensor;
  return sharedScale && row.kind == col.kind && row.fp4 == col.fp4 &&
         row.fp8Type == col.fp8Type && !roundsAlone(row) && !roundsAlone(col);
}

void quant::columnFromRowCodesPhase(KernelEnv &env, const Plan &p,
                                    const Tile &t, const Rep &r) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value smem = env.shared[0];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  // Read before this phase's first store (quant::repScale).
  Value scale = repScale(env, p, r, Value());
  int64_t perByte = r.fp4 ? 2 : 1, perWord = 4 * perByte;
  int64_t groups = t.cols / perWord, chunks = t.rows / 16;
  env.forEachUnit(groups * chunks, [&](Value u) {
    // Consecutive threads take consecutive column groups of a chunk.
    Value c0 = env.mul(env.rem(u, env.idx(groups)), env.idx(perWord));
    Value tileRow0 = env.mul(env.div(u, env.idx(groups)), env.idx(16));
    Value gr0 = env.add(env.mul(tileRow, env.idx(t.rows)), tileRow0);
    Value gc0 = env.add(env.mul(tileCol, env.idx(t.cols)), c0);
    // The codes of columns c0 ... of a tile row: in the 16-element chunk
    // holding them, at byte (c0 % 16) / perByte (rowwisePhase).
    Value inRow =
        env.add(env.mul(env.div(c0, env.idx(16)), env.idx(16)),
                env.div(env.div(env.rem(c0, env.idx(16)), env.idx(perByte)),
                        env.idx(t.elemBytes)));
    SmallVector<Value> words;
    for (int64_t rr = 0; rr < 16; ++rr) {
      Value at = env.add(env.mul(env.add(tileRow0, env.idx(rr)), env.idx(t.ld)),
                         inRow);
      words.push_back(env.loadWord(smem, at));
    }
    // columns[e]: column c0 + e's 16 codes as words (4 rows of bytes or 8
    // rows of nibbles each).
    SmallVector<SmallVector<Value>> columns(perWord);
    for (int64_t h = 0; h < 16; h += perWord) {
      ArrayRef<Value> part = ArrayRef<Value>(words).slice(h, perWord);
      SmallVector<Value> out =
          r.fp4 ? env.transposeNibbles8x8(part) : env.transposeBytes4x4(part);
      for (int64_t e = 0; e < perWord; ++e)
        columns[e].push_back(out[e]);
    }
    // The column-wise scale entries: per-tensor FP8 has none (scaleInvPhase
    // writes its one); 2-D blocks take their block's amax (perWord divides
    // the block side), once per block along z.
    std::function<void(Value)> storeScale;
    if (p.twoD) {
      Value blockStart =
          r.block == 16
              ? Value()
              : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      env.rem(tileRow0, env.idx(r.block)),
                                      env.idx(0))
                    .getResult();
      Value gBlock = env.div(gr0, env.idx(r.block));
      Value amax = load1(env, env.shared[t.blockAmax],
                         env.add(env.mul(env.div(tileRow0, env.idx(p.twoD)),
                                         env.idx(t.cols / p.twoD)),
                                 env.div(c0, env.idx(p.twoD))));
      storeScale = [&, blockStart, gBlock, amax](Value gc) {
        blockScale(env, p, r, amax, gc, gBlock, scale, scaleBuffer(env, r),
                   blockStart);
      };
    }
    auto column = [&](int64_t e) {
      Value c = env.add(c0, env.idx(e));
      Value gc = env.add(gc0, env.idx(e));
      SmallVector<Value> bytes;
      for (Value w : columns[e])
        env.appendWordBytes(w, bytes);
      storeColumnCodes(env, p, t, r, bytes, c, tileRow0, gc, gr0);
      if (storeScale)
        storeScale(gc);
    };
    Value rowsInside = env.lt(gr0, env.idx(p.m));
    if (p.k % perWord == 0) {
      // The group's columns lie inside together.
      env.ifThen(env.land(rowsInside, env.lt(gc0, env.idx(p.k))), [&] {
        for (int64_t e = 0; e < perWord; ++e)
          column(e);
      });
      return;
    }
    for (int64_t e = 0; e < perWord; ++e)
      env.ifThen(
          env.land(rowsInside, env.lt(env.add(gc0, env.idx(e)), env.idx(p.k))),
          [&] { column(e); });
  });
}

void quant::xLayoutEncodePhase(KernelEnv &env, const Plan &p, const Tile &t,
                               const Rep &r) {
  Value smem = env.shared[0], mults = env.shared[t.mults];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t groups = t.cols / 16;
  env.forEachUnit(t.rows * groups, [&](Value u) {
    Value row = env.div(u, env.idx(groups));
    Value g = env.rem(u, env.idx(groups));
    Value gr = env.add(env.mul(tileRow, env.idx(t.rows)), row);
    Value gc =
        env.add(env.mul(tileCol, env.idx(t.cols)), env.mul(g, env.idx(16)));
    Value valid = env.land(env.lt(gr, env.idx(p.m)), env.lt(gc, env.idx(p.k)));
    env.ifThen(valid, [&] {
      SmallVector<Value> values =
          readRow(env, t, smem,
                  env.add(env.mul(row, env.idx(t.ld)), env.mul(g, env.idx(16))),
                  16, p.nominal);
      Value multRow = env.mul(env.div(row, env.idx(r.block)), env.idx(t.cols));
      SmallVector<Value> factors;
      for (size_t e = 0; e < values.size(); ++e)
        factors.push_back(
            load1(env, mults,
                  env.add(multRow, env.add(env.mul(g, env.idx(16)),
                                           env.idx(static_cast<int64_t>(e))))));
      SmallVector<Value> bytes =
          encode(env, r, scaleValues(env, values, factors));
      storeBytes(env, bytes, env.args[r.dataArg],
                 env.add(env.mul(gr, env.idx(p.k)), gc),
                 /*aligned=*/p.k % 16 == 0, std::nullopt);
    });
  });
}
