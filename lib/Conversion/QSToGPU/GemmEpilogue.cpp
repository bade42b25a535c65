//===- GemmEpilogue.cpp - GEMM kernels: epilogue --------------------------===//
//
// D = alpha acc (+ bias) (+ C), converted to the output type and stored:
// from wgmma's fragment registers (sm_90a) or from tensor-memory lanes
// (sm_100a), on the GPU and in the emulation alike.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "Kernels.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include <cassert>

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

Value gemm::finishOutput(KernelEnv &env, Value value, Value bias, Value c,
                         Type outType) {
  if (bias)
    value = arith::AddFOp::create(env.b, env.loc, value, env.toF32(bias));
  if (c)
    value = arith::AddFOp::create(env.b, env.loc, value, env.toF32(c));
  return roundOutput(env, value, outType);
}

Value gemm::roundOutput(KernelEnv &env, Value value, Type outType) {
  // The GPU converts with cvt.rn (same RNE result as the emulation).
  if (env.gpu && outType != value.getType())
    return arith::TruncFOp::create(env.b, env.loc, outType, value);
  return env.fromF32(value, outType);
}

void GemmCode::epilogue(Value tm, Value tn, Value consumer, Value t,
                        ValueRange args,
                        const std::function<Value(int64_t)> &acc) {
  Value rowBase = env.add(env.mul(tm, i(kTileM)), env.mul(consumer, i(64)));
  Value colBase = env.mul(tn, i(plan.tileN));
  // Registers 2j and 2j + 1 hold adjacent columns of one row.
  epilogueAt(
      args, plan.accRegs(), 2,
      [&](int64_t r) {
        Value fr, fc;
        std::tie(fr, fc) = fragment(t, i(r));
        return std::make_pair(env.add(rowBase, fr), env.add(colBase, fc));
      },
      acc);
}

void GemmCode::stagedEpilogueChunk(
    Value tm, Value tn, Value half, Value t, ValueRange args, int64_t chunk,
    const std::function<Value(int64_t)> &acc,
    const std::function<void(int64_t, Value, ArrayRef<Value>)> &store) {
  Value rowBase = env.add(env.mul(tm, i(kTileM)), env.mul(half, i(64)));
  Value colBase = env.mul(tn, i(plan.tileN));
  // The chunk's columns [chunk W, chunk W + W) are registers [chunk W / 2,
  // chunk W / 2 + W / 2) of every thread (8 columns per 4 registers).
  int64_t regs = plan.storeChunkCols() / 2, first = chunk * regs;
  epilogueAt(
      args, regs, 2,
      [&](int64_t r) {
        Value fr, fc;
        std::tie(fr, fc) = fragment(t, i(first + r));
        return std::make_pair(env.add(rowBase, fr), env.add(colBase, fc));
      },
      [&](int64_t r) { return acc(first + r); },
      [&](int64_t r, ArrayRef<Value> values) {
        Value fr, fc;
        std::tie(fr, fc) = fragment(t, i(first + r));
        Value column = arith::SubIOp::create(env.b, env.loc, fc,
                                             i(chunk * plan.storeChunkCols()));
        store(r / 2,
              env.add(env.mul(fr, i(128)),
                      env.mul(column, i(plan.stagedBytes()))),
              values);
      });
}

void GemmCode::stagedBlocks(
    Value tm, Value tn, Value group, Value t, ValueRange args, int64_t pass,
    const std::function<SmallVector<Value>(Value)> &load,
    const std::function<Value(Value)> &loadValue,
    const std::function<Value(Value)> &loadShared) {
  const ProducerBlockQuantizer &q = *plan.outputBlocks;
  if (q.columnwise() && q.columnTransposed)
    stagedTransposedBlocks(tm, tn, group, t, args, pass, loadShared);
  else if (q.columnwise())
    stagedColumnBlocks(tm, tn, group, t, args, pass, loadValue);
  if (!q.rowwise())
    return;
  int64_t bytes = plan.stagedBytes(), chunkCols = plan.storeChunkCols();
  int64_t passCols = plan.stagedChunkGroup() * chunkCols;
  int64_t perRow = passCols / q.block, perPiece = 16 / bytes;
  int64_t rows = plan.storeBoxRows(), readers = plan.stagedReaders();
  int64_t pieces = q.block / perPiece, groupPieces = 32 / perPiece;
  // Block u of the pass (reader t takes u = t, t + readers, ...).
  for (int64_t k = 0; k * readers < rows * perRow; ++k) {
    Value u = k ? env.add(t, i(k * readers)) : t;
    Value r = env.div(u, i(perRow)), blk = env.rem(u, i(perRow));
    Value row =
        env.add(env.add(env.mul(tm, i(kTileM)), env.mul(group, i(rows))), r);
    Value col = env.add(env.add(env.mul(tn, i(plan.tileN)), i(pass * passCols)),
                        env.mul(blk, i(q.block)));
    Value inside =
        env.land(env.lt(u, i(rows * perRow)),
                 env.land(env.lt(row, i(plan.m)), env.lt(col, i(plan.n))));
    // Piece p (perPiece values) of the block: column blk * block + p *
    // perPiece of the pass, in chunk (buffer) column / chunkCols.
    auto piece = [&](int64_t p) {
      Value column = env.add(env.mul(blk, i(q.block)), i(p * perPiece));
      Value buffer = env.div(column, i(chunkCols));
      Value within = env.rem(column, i(chunkCols));
      return llvm::map_to_vector(
          load(env.add(env.add(env.mul(buffer, i(plan.stagingBufferBytes())),
                               env.mul(r, i(128))),
                       env.mul(within, i(bytes)))),
          [&](Value v) { return env.toF32(v); });
    };
    env.ifThen(inside, [&] {
      // The values in column order (the amax's order on sm_100a too); an
      // MXFP8 block's are kept for the codes.
      SmallVector<Value> values;
      Value amax = env.f32(0.0f);
      for (int64_t p = 0; p < pieces; ++p)
        for (Value v : piece(p)) {
          if (q.block == 32)
            values.push_back(v);
          amax = env.absMax(amax, v);
        }
      Value mult = q.scale(env, amax, row, env.div(col, i(q.block)),
                           outputExtra(args, 0));
      Value at = env.add(env.mul(row, i(plan.n)), col);
      for (int64_t g = 0; g < pieces / groupPieces; ++g) {
        if (q.block != 32) {
          values.clear();
          for (int64_t p = 0; p < groupPieces; ++p)
            llvm::append_range(values, piece(g * groupPieces + p));
        }
        storeCodes(q.encode(env, values, mult), outputD(args),
                   env.add(at, i(32 * g)));
      }
    });
  }
}

std::pair<Value, Value> GemmCode::columnBuffers(ValueRange args) const {
  // args: ..., d, [row-wise scales, column-wise codes], column-wise scales.
  bool rowwise = plan.outputBlocks->rowwise();
  return {rowwise ? outputExtra(args, 1) : outputD(args),
          outputExtra(args, rowwise ? 2 : 0)};
}

void GemmCode::stagedTransposedBlocks(
    Value tm, Value tn, Value group, Value t, ValueRange args, int64_t pass,
    const std::function<Value(Value)> &loadShared) {
  const ProducerBlockQuantizer &q = *plan.outputBlocks;
  int64_t bytes = plan.stagedBytes(), chunkCols = plan.storeChunkCols();
  int64_t rows = plan.storeBoxRows(), buffer = plan.stagingBufferBytes();
  Value data, scales;
  std::tie(data, scales) = columnBuffers(args);
  // Column u of the pass's 2 chunks (chunk u / W in buffer u / W): C
  // columns per group, read by its last C readers.
  int64_t perGroup = 2 * chunkCols / plan.stagingGroups();
  int64_t firstReader = plan.stagedReaders() - perGroup;
  Value u = env.add(env.mul(group, i(perGroup)),
                    arith::SubIOp::create(env.b, env.loc, t, i(firstReader)));
  Value chunkBase = env.add(env.mul(env.div(u, i(chunkCols)), i(buffer)),
                            env.mul(env.rem(u, i(chunkCols)), i(bytes)));
  Value firstRow = env.mul(tm, i(kTileM));
  Value col = env.add(
      env.add(env.mul(tn, i(plan.tileN)), i(pass * 2 * chunkCols)), u);
  // Row r of the tile: group r / R's buffers, its row r % R.
  auto value = [&](int64_t r) {
    return env.toF32(loadShared(
        env.add(chunkBase, i((r / rows) * 2 * buffer + (r % rows) * 128))));
  };
  // Tiles past M (a multicast pair's padding) have no blocks; a tile's
  // first 16 rows are inside M (M % 16 == 0).
  Value inside = env.land(env.lt(firstRow, i(plan.m)), env.lt(col, i(plan.n)));
  if (firstReader)
    inside = env.land(inside, arith::CmpIOp::create(env.b, env.loc,
                                                    arith::CmpIPredicate::uge,
                                                    t, i(firstReader)));
  env.ifThen(inside, [&] {
    Value amax = env.f32(0.0f);
    for (int64_t r = 0; r < kTileM; ++r) {
      Value raised = env.absMax(amax, value(r));
      amax = r < 16 ? raised
                    : arith::SelectOp::create(
                          env.b, env.loc,
                          env.lt(env.add(firstRow, i(r)), i(plan.m)), raised,
                          amax)
                          .getResult();
    }
    Value mult = q.columnScale(env, amax, col, tm, scales);
    for (int64_t g = 0; g < kTileM / 16; ++g) {
      Value row = env.add(firstRow, i(16 * g));
      env.ifThen(env.lt(row, i(plan.m)), [&] {
        SmallVector<Value> values;
        for (int64_t r = 16 * g; r < 16 * g + 16; ++r)
          values.push_back(value(r));
        storeCodes(q.encode(env, values, mult), data,
                   env.add(env.mul(col, i(plan.m)), row));
      });
    }
  });
}

void GemmCode::stagedColumnBlocks(
    Value tm, Value tn, Value group, Value t, ValueRange args, int64_t pass,
    const std::function<Value(Value)> &loadValue) {
  const ProducerBlockQuantizer &q = *plan.outputBlocks;
  int64_t bytes = plan.stagedBytes(), chunkCols = plan.storeChunkCols();
  int64_t rows = plan.storeBoxRows(), readers = plan.stagedReaders();
  int64_t units = chunkCols * (rows / q.block);
  Value data, scales;
  std::tie(data, scales) = columnBuffers(args);
  // Block u of the chunk (reader t takes u = t, t + readers, ...).
  for (int64_t k = 0; k * readers < units; ++k) {
    Value u = k ? env.add(t, i(k * readers)) : t;
    Value column = env.rem(u, i(chunkCols)), h = env.div(u, i(chunkCols));
    Value firstRow =
        env.add(env.add(env.mul(tm, i(kTileM)), env.mul(group, i(rows))),
                env.mul(h, i(q.block)));
    Value col = env.add(
        env.add(env.mul(tn, i(plan.tileN)), i(pass * chunkCols)), column);
    Value inside =
        env.land(env.lt(u, i(units)),
                 env.land(env.lt(firstRow, i(plan.m)), env.lt(col, i(plan.n))));
    env.ifThen(inside, [&] {
      SmallVector<Value> values;
      Value amax = env.f32(0.0f);
      for (int64_t j = 0; j < q.block; ++j) {
        Value row = env.add(env.mul(h, i(q.block)), i(j));
        values.push_back(env.toF32(loadValue(
            env.add(env.mul(row, i(128)), env.mul(column, i(bytes))))));
        amax = env.absMax(amax, values.back());
      }
      Value mult =
          q.columnScale(env, amax, col, env.div(firstRow, i(q.block)), scales);
      for (auto [j, code] : llvm::enumerate(q.encode(env, values, mult)))
        memref::StoreOp::create(
            env.b, env.loc,
            arith::BitcastOp::create(env.b, env.loc, plan.outType, code), data,
            env.add(env.mul(env.add(firstRow, i(j)), i(plan.n)), col));
    });
  }
}

void GemmCode::stagedCodes(
    Value tm, Value tn, Value group, Value t, ValueRange args, int64_t chunk,
    const std::function<Value(Value)> &loadWord,
    const std::function<SmallVector<Value>(Value)> &load16) {
  Value rowBase =
      env.add(env.mul(tm, i(kTileM)), env.mul(group, i(plan.storeBoxRows())));
  Value colBase = env.add(env.mul(tn, i(plan.tileN)),
                          i(chunk * plan.storeChunkCols()));
  // The i8 code of byte `k` of `word`.
  auto byteOf = [&](Value word, int64_t k) -> Value {
    Value shifted =
        k ? arith::ShRUIOp::create(
                env.b, env.loc, word,
                arith::ConstantIntOp::create(env.b, env.loc, word.getType(),
                                             8 * k))
                .getResult()
          : word;
    return arith::TruncIOp::create(env.b, env.loc, env.b.getI8Type(), shifted);
  };
  if (!plan.tmaStore) {
    // Row t / 2, half t % 2: four 16-byte pieces of 16 codes.
    Value r = shr(t, 1), half = band(t, 1);
    Value row = env.add(rowBase, r);
    for (int64_t p = 0; p < 4; ++p) {
      Value column = env.add(env.mul(half, i(64)), i(16 * p));
      Value col = env.add(colBase, column);
      env.ifThen(env.land(env.lt(row, i(plan.m)), env.lt(col, i(plan.n))),
                 [&] {
                   SmallVector<Value> codes;
                   for (Value word :
                        load16(env.add(env.mul(r, i(128)), column)))
                     for (int64_t k = 0; k < 4; ++k)
                       codes.push_back(byteOf(word, k));
                   storeCodes(codes, outputD(args),
                              env.add(env.mul(row, i(plan.n)), col));
                 });
    }
  }
  // Columns 4q ... 4q + 3 (q = t % 32) of rows 16 (t / 32) ... + 15: word
  // j is row j's four codes; column k's 16 codes are their bytes k.
  Value q = band(t, 31), rows = shl(shr(t, 5), 4);
  Value firstRow = env.add(rowBase, rows);
  Value firstCol = env.add(colBase, shl(q, 2));
  env.ifThen(env.lt(firstRow, i(plan.m)), [&] {
    SmallVector<Value> words;
    for (int64_t j = 0; j < 16; ++j)
      words.push_back(loadWord(
          env.add(env.mul(env.add(rows, i(j)), i(128)), shl(q, 2))));
    for (int64_t k = 0; k < 4; ++k) {
      Value col = env.add(firstCol, i(k));
      env.ifThen(env.lt(col, i(plan.n)), [&] {
        SmallVector<Value> codes;
        for (Value word : words)
          codes.push_back(byteOf(word, k));
        storeCodes(codes, outputExtra(args, 2),
                   env.add(env.mul(col, i(plan.m)), firstRow));
      });
    }
  });
}

std::pair<Value, Value> GemmCode::storeBox(Value tm, Value tn, Value group,
                                           int64_t chunk) {
  return {env.add(env.mul(tm, i(kTileM)),
                  env.mul(group, i(plan.storeBoxRows()))),
          env.add(env.mul(tn, i(plan.tileN)), i(chunk * plan.storeChunkCols()))};
}

Value GemmCode::stmatrixRow(Value t, int64_t q) {
  Value warp = shr(t, 5), lane = band(t, 31), matrix = shr(lane, 3);
  // Row: the warp's 16, + 8 for matrices 1 and 3; column: 16q, + 8 for
  // matrices 2 and 3 (2 bytes each).
  Value row =
      env.add(env.add(shl(warp, 4), band(lane, 7)), shl(band(matrix, 1), 3));
  Value column = env.add(i(16 * q), shl(shr(matrix, 1), 3));
  return env.add(env.mul(row, i(128)), shl(column, 1));
}

void GemmCode::epilogueAt(
    ValueRange args, int64_t count, int64_t vec,
    const std::function<std::pair<Value, Value>(int64_t)> &position,
    const std::function<Value(int64_t)> &acc,
    const std::function<void(int64_t, ArrayRef<Value>)> &sink) {
  while (plan.n % vec != 0)
    vec /= 2;
  // args: sa, sb, [amaxA, amaxB (NVFP4)], [bias], [c], d; split-K: sa, sb,
  // [amaxA, amaxB], workspace (bias and C are the reduction's); fused
  // split-K: sa, sb, [amaxA, amaxB], [bias], [c], d, workspace.
  Value alpha;
  unsigned next = 2;
  // NVFP4 factor amax / 6E (E = 448: 2688) of a global amax, or of a
  // row-scaled operand's stored row (A: the output row, B: the output
  // column).
  auto factor = [&](const OperandPlan &op, Value amax, Value index) -> Value {
    return arith::MulFOp::create(
        env.b, env.loc, memref::LoadOp::create(env.b, env.loc, amax, index),
        env.f32(nvfp4InvSixE(op.e4m3Max)));
  };
  if (reducing) {
    // The planes hold alpha acc (row factors included).
    next = plan.fp4() ? 4 : 2;
  } else if (plan.fp4()) {
    // The reference's order: v * (gA gB), then * (rA[row] rB[col]).
    Value gA = plan.a.rowScaled ? Value() : factor(plan.a, args[2], i(0));
    Value gB = plan.b.rowScaled ? Value() : factor(plan.b, args[3], i(0));
    alpha = gA && gB ? arith::MulFOp::create(env.b, env.loc, gA, gB).getResult()
                     : (gA ? gA : gB);
    next = 4;
  } else if (!plan.blockScaled()) {
    alpha = arith::MulFOp::create(
        env.b, env.loc, memref::LoadOp::create(env.b, env.loc, args[0], i(0)),
        memref::LoadOp::create(env.b, env.loc, args[1], i(0)));
  }
  // partial: this pass stores the unit's plane (stream-K: the segment's,
  // when it shares its tile).
  bool partial = (plan.splitsK() && !reducing) || storingPlane;
  bool finishes = !plan.splitsK() || plan.fusesReduction();
  Value bias = plan.bias && finishes ? args[next++] : Value();
  Value c = plan.accumulate && finishes ? args[next++] : Value();
  Value d = args[next];
  Value workspace = plan.splitsK() || plan.streamsK() ? args.back() : Value();
  if (partial) {
    bias = c = Value();
    d = workspace;
  }
  // A fused output quantizer (canFuseOutputQuantizer): in the pass that
  // writes D (not one storing a plane), the FP32 values, their running
  // |max| over the elements this thread stores, then scale and FP8 codes
  // (stored, or given to the TMA-store staging `sink` as values of D's
  // FP8 type).
  bool quantizes = plan.quantizesOutput() && !partial;
  // Output amaxes (a current-scaling or NVFP4 quantize of D): the running
  // |max| of the values this thread stores, as stored in D's type (taken
  // before the rounding, see `track`).
  bool tracksAmax = plan.outputAmaxes > 0 && !partial;
  // A block quantizer (plan.outputBlocks) on sm_100a (tmemColumns: the
  // `count` values are 32 consecutive columns of a row, of one block): the
  // values rounded to the quantize's nominal type, their amax
  // (blockAmax), then the block's scale and their codes, stored with one
  // vector store. On sm_90a (stagesBlocks) the values go to the staging
  // `sink` in the nominal type (storeType()); stagedBlocks encodes them.
  bool quantizesBlocks = plan.outputBlocks && !partial && !plan.stagesBlocks();
  assert((!quantizesBlocks || count == 32) &&
         "a block quantizer takes 32 columns of a row per call");
  SmallVector<Value> blockValues;
  Value outScale, amaxOut, running;
  if (quantizes) {
    outScale = memref::LoadOp::create(env.b, env.loc, args[next + 1], i(0));
    amaxOut = args[next + 2];
  }
  if (quantizes || tracksAmax)
    running = env.f32(0.0f);
  // Values outside D (clamped positions) are neither stored nor counted.
  // Output amaxes track the FP32 values before their rounding to D's type,
  // which is rounded once at the end: RNE is monotonic and symmetric, so
  // round(max |v|) = max |round(v)| (and the stores keep their packed
  // conversions).
  // Returns whether the group is inside D (`inside` builds that test).
  auto track = [&](ArrayRef<Value> outs, const std::function<Value()> &inside) {
    Value groupMax = running;
    for (Value v : outs)
      groupMax = env.absMax(groupMax, v);
    Value in = inside();
    running = arith::SelectOp::create(env.b, env.loc, in, groupMax, running);
    return in;
  };
  // What the stores take: FP32 for a quantizing epilogue (scaled and
  // converted by quantizeOutput), D's type, or an FP32 plane.
  Type f32 = Float32Type::get(env.b.getContext());
  Type storeType = quantizes || quantizesBlocks ? f32
                   : reducing                   ? plan.outType
                   : storingPlane               ? f32
                                                : plan.storeType();
  // Split-K: this unit's plane of the [S, M, N] workspace.
  Value plane =
      partial && !plan.streamK ? env.mul(split, i(plan.m * plan.n)) : Value();
  bool rowScaled =
      !reducing && plan.fp4() && (plan.a.rowScaled || plan.b.rowScaled);
  // Reads first, then stores, kEpilogueBatch values at a time. As far as
  // LLVM and ptxas know D may alias bias and C (and the amaxes), so a load
  // issued after a store stays after it: reading each group's bias / C
  // between the stores (as this code did until 2026-11-30; the SASS of the
  // 128x256 fprop with bias was LDG, LDG, FMUL, FADD, STG per group) waits
  // out the load latency once per group, 64 times per thread. The batch's
  // loads read clamped (in-range) positions unconditionally; only the
  // stores are guarded.
  constexpr int64_t kEpilogueBatch = 16;
  int64_t batch = quantizesBlocks ? count / vec
                                  : std::max<int64_t>(kEpilogueBatch / vec, 1);
  for (int64_t g0 = 0; g0 < count / vec; g0 += batch) {
    struct Group {
      Value row, first;
      SmallVector<Value> bias, c, rows, sums;
    };
    SmallVector<Group, 0> groups;
    for (int64_t g = g0; g < std::min(g0 + batch, count / vec); ++g) {
      Group group;
      std::tie(group.row, group.first) = position(g * vec);
      Value row = minI(group.row, i(plan.m - 1));
      // The planes' sums at a clamped, in-range group (N % vec == 0).
      if (reducing && plan.streamK)
        group.sums = sumPlanes(
            workspace,
            streamKElement(i(0), row, minI(group.first, i(plan.n - vec))), vec);
      else if (reducing)
        group.sums = sumPlanes(workspace,
                               env.add(env.mul(row, i(plan.n)),
                                       minI(group.first, i(plan.n - vec))),
                               vec);
      for (int64_t e = 0; e < vec; ++e) {
        Value col = minI(env.add(group.first, i(e)), i(plan.n - 1));
        if (rowScaled) {
          Value rows =
              plan.a.rowScaled ? factor(plan.a, args[2], row) : env.f32(1.0f);
          if (plan.b.rowScaled)
            rows = arith::MulFOp::create(env.b, env.loc, rows,
                                         factor(plan.b, args[3], col));
          group.rows.push_back(rows);
        }
        if (bias)
          group.bias.push_back(
              memref::LoadOp::create(env.b, env.loc, bias, col));
        if (c)
          group.c.push_back(memref::LoadOp::create(
              env.b, env.loc, c, env.add(env.mul(row, i(plan.n)), col)));
      }
      groups.push_back(std::move(group));
    }
    for (Group &group : groups) {
      int64_t g = g0 + (&group - groups.begin());
      // The stored values (type `type`: storeType, or FP32 before rounding).
      auto values = [&](Type type) {
        SmallVector<Value> outs;
        for (int64_t e = 0; e < vec; ++e) {
          Value v = reducing ? group.sums[e] : acc(g * vec + e);
          Value out =
              alpha
                  ? arith::MulFOp::create(env.b, env.loc, v, alpha).getResult()
                  : v;
          if (rowScaled)
            out = arith::MulFOp::create(env.b, env.loc, out, group.rows[e]);
          outs.push_back(finishOutput(env, out, bias ? group.bias[e] : Value(),
                                      c ? group.c[e] : Value(), type));
        }
        return outs;
      };
      // Output amaxes: FP32 values tracked, then rounded.
      auto trackedValues = [&](const std::function<Value()> &inside) {
        SmallVector<Value> f32s = values(f32);
        track(f32s, inside);
        return llvm::map_to_vector(
            f32s, [&](Value v) { return roundOutput(env, v, storeType); });
      };
      // N % vec == 0 and first % vec == 0: the group is inside or outside.
      auto insideD = [&] {
        return env.land(env.lt(group.row, i(plan.m)),
                        env.lt(group.first, i(plan.n)));
      };
      if (quantizesBlocks) {
        for (Value v : values(plan.outputBlocks->nominal))
          blockValues.push_back(env.toF32(v));
        continue;
      }
      if (sink && !quantizes) {
        sink(g * vec, tracksAmax ? trackedValues(insideD) : values(storeType));
        continue;
      }
      if (quantizes) {
        // Values of clamped positions outside D are computed but neither
        // stored (the TMA store clips them) nor counted in the amax.
        SmallVector<Value> outs = values(storeType);
        Value inside = track(outs, insideD);
        SmallVector<Value> codes = quantizeOutput(outs, outScale);
        if (sink) {
          sink(g * vec, llvm::map_to_vector(codes, [&](Value code) {
                 return arith::BitcastOp::create(env.b, env.loc, plan.outType,
                                                 code)
                     .getResult();
               }));
          continue;
        }
        env.ifThen(inside, [&] {
          storeCodes(codes, d,
                     env.add(env.mul(group.row, i(plan.n)), group.first));
        });
        continue;
      }
      // With output amaxes the values (at clamped positions too) come
      // first, for the running |max|.
      Value inside;
      SmallVector<Value> tracked;
      if (tracksAmax)
        tracked = trackedValues([&] { return inside = insideD(); });
      else
        inside = insideD();
      env.ifThen(inside, [&] {
        SmallVector<Value> outs = tracksAmax ? tracked : values(storeType);
        Value at = storingPlane
                       ? streamKElement(split, group.row, group.first)
                       : env.add(env.mul(group.row, i(plan.n)), group.first);
        if (plane)
          at = env.add(plane, at);
        if (vec == 1) {
          memref::StoreOp::create(env.b, env.loc, outs[0], d, at);
          return;
        }
        // One vector store (16-byte-class on the GPU: D's rows are
        // multiples of vec elements; element-aligned in the emulation,
        // whose buffers may come from numpy).
        Value packed = vector::FromElementsOp::create(
            env.b, env.loc, VectorType::get({vec}, outs[0].getType()), outs);
        int64_t bytes = outs[0].getType().getIntOrFloatBitWidth() / 8;
        vector::StoreOp::create(
            env.b, env.loc, packed, d, ValueRange{at},
            /*nontemporal=*/false,
            llvm::MaybeAlign(env.gpu ? vec * bytes : bytes));
      });
    }
    if (quantizesBlocks) {
      // A block of more than these 32 values had its amax pass.
      if (blockAmaxOnly || count == plan.outputBlocks->block)
        for (Value v : blockValues)
          blockAmax = env.absMax(blockAmax, v);
      if (blockAmaxOnly)
        continue;
      // N % block == 0 (canFuseBlockQuantizer) and the blocks start at
      // multiples of it: a block is inside D or outside. Outside, neither
      // codes nor scale are stored (its rows or columns may lie past the
      // scale buffer's padding).
      const Group &first = groups.front();
      Value inside = env.land(env.lt(first.row, i(plan.m)),
                              env.lt(first.first, i(plan.n)));
      env.ifThen(inside, [&] {
        const ProducerBlockQuantizer &q = *plan.outputBlocks;
        Value mult =
            q.scale(env, blockAmax, first.row, env.div(first.first, i(q.block)),
                    blockChunk == 0 ? args[next + 1] : Value());
        storeCodes(q.encode(env, blockValues, mult), d,
                   env.add(env.mul(first.row, i(plan.n)), first.first));
      });
    }
  }
  // One atomic max per warp (GPU) of what this call stored; the state was
  // set to max(amax, +0) before the launch (emitOutputQuantizerPrepare),
  // output amaxes to +0 by the quantize's init kernel.
  if (quantizes)
    env.atomicMaxToGlobal(running, amaxOut);
  if (tracksAmax)
    running = env.toF32(roundOutput(env, running, storeType));
  for (int64_t a = 0; tracksAmax && a < plan.outputAmaxes; ++a)
    env.atomicMaxToGlobal(running, args[next + 1 + a]);
}

SmallVector<Value> GemmCode::quantizeOutput(ArrayRef<Value> values,
                                            Value scale) {
  // q = fp8_rn_sat(D * scale), as the quantize kernels (and qs.quantize's
  // reference) compute it; cvt.rn.satfinite pairs on the GPU.
  SmallFloatFormat format = isa<Float8E4M3FNType>(plan.outType)
                                ? SmallFloatFormat::e4m3()
                                : SmallFloatFormat::e5m2();
  SmallVector<Value> scaled = llvm::map_to_vector(values, [&](Value v) {
    return arith::MulFOp::create(env.b, env.loc, v, scale).getResult();
  });
  SmallVector<Value> codes;
  for (size_t e = 0; e < scaled.size(); e += 2) {
    Value hi = e + 1 < scaled.size() ? scaled[e + 1] : scaled[e];
    auto [lo, hiCode] = env.encodeFp8Pair(scaled[e], hi, format, plan.outType);
    codes.push_back(lo);
    if (e + 1 < scaled.size())
      codes.push_back(hiCode);
  }
  return codes;
}

void GemmCode::storeCodes(ArrayRef<Value> codes, Value d, Value at) {
  int64_t n = codes.size();
  Value v = vector::FromElementsOp::create(
      env.b, env.loc, VectorType::get({n}, env.b.getI8Type()), codes);
  v = arith::BitcastOp::create(env.b, env.loc,
                               VectorType::get({n}, plan.outType), v);
  // Aligned on the GPU (rows of D are multiples of n bytes); byte-aligned
  // in the emulation, whose buffers may come from numpy.
  vector::StoreOp::create(env.b, env.loc, v, d, ValueRange{at},
                          /*nontemporal=*/false,
                          llvm::MaybeAlign(env.gpu ? n : 1));
}

void gemm::emitOutputQuantizerPrepare(OpBuilder &b, Location loc,
                                      ModuleOp module,
                                      const GemmOutputQuantizer &quantizer,
                                      const EmitOptions &options) {
  KernelDesc desc;
  desc.name = "qs_gemm_output_prepare";
  desc.threads = 32;
  desc.phases.push_back([](KernelEnv &env) {
    Value zero = env.idx(0);
    Value first = arith::CmpIOp::create(
        env.b, env.loc, arith::CmpIPredicate::eq, env.threadId, zero);
    env.ifThen(first, [&] {
      // scale_inv = 1 / scale (IEEE division, TE's __frcp_rn), as the
      // quantize kernels write it.
      Value scale = memref::LoadOp::create(env.b, env.loc, env.args[0], zero);
      memref::StoreOp::create(
          env.b, env.loc,
          arith::DivFOp::create(env.b, env.loc, env.f32(1.0f), scale),
          env.args[2], zero);
      // max(state, amax) with amax >= +0 equals max(state', amax) for
      // state' = state if state > 0 else +0 (NaN too: maxnum ignores it),
      // which the epilogue's unsigned-integer atomic max can combine.
      Value old = memref::LoadOp::create(env.b, env.loc, env.args[1], zero);
      Value positive = arith::CmpFOp::create(
          env.b, env.loc, arith::CmpFPredicate::OGT, old, env.f32(0.0f));
      old =
          arith::SelectOp::create(env.b, env.loc, positive, old, env.f32(0.0f));
      memref::StoreOp::create(env.b, env.loc, old, env.args[3], zero);
    });
  });
  emitKernel(b, loc, module, desc,
             ValueRange{quantizer.scale, quantizer.amaxIn, quantizer.scaleInv,
                        quantizer.amaxOut},
             options);
}

void GemmCode::tmemEpilogue(
    ValueRange args, Value tm, Value tn, Value tmemLane,
    const std::function<std::function<Value(int64_t)>(int64_t)> &load) {
  if (!plan.outputBlocks || reducing || storingPlane) {
    for (int64_t chunk = 0; chunk < plan.tileN / 32; ++chunk)
      tmemColumns(args, tm, tn, tmemLane, chunk,
                  reducing ? nullptr : load(chunk), nullptr);
    return;
  }
  // A block quantizer: per block, a first pass over its chunks for the
  // amax where it has more than one (1x128), then the pass that encodes.
  int64_t chunks = plan.outputBlocks->block / 32;
  for (int64_t first = 0; first < plan.tileN / 32; first += chunks) {
    blockAmax = env.f32(0.0f);
    blockAmaxOnly = chunks > 1;
    for (int64_t c = 0; blockAmaxOnly && c < chunks; ++c)
      tmemColumns(args, tm, tn, tmemLane, first + c, load(first + c), nullptr);
    blockAmaxOnly = false;
    for (int64_t c = 0; c < chunks; ++c) {
      blockChunk = c;
      tmemColumns(args, tm, tn, tmemLane, first + c, load(first + c), nullptr);
    }
  }
}

void GemmCode::tmemStagedChunk(
    ValueRange args, Value tm, Value tn, Value tmemLane, int64_t chunk,
    const std::function<std::function<Value(int64_t)>(int64_t)> &load,
    const std::function<void(Value, ArrayRef<Value>)> &store) {
  int64_t cols = plan.storeChunkCols(), bytes = plan.stagedBytes();
  Value rowOffset = env.mul(band(tmemLane, 31), i(128));
  for (int64_t ld = chunk * cols / 32; ld < (chunk + 1) * cols / 32; ++ld) {
    int64_t first = 32 * ld - chunk * cols;
    tmemColumns(args, tm, tn, tmemLane, ld, reducing ? nullptr : load(ld),
                [&](int64_t r, ArrayRef<Value> values) {
                  store(env.add(rowOffset, i((first + r) * bytes)), values);
                });
  }
}

void GemmCode::tmemColumns(
    ValueRange args, Value tm, Value tn, Value tmemLane, int64_t ld,
    const std::function<Value(int64_t)> &bits,
    const std::function<void(int64_t, ArrayRef<Value>)> &sink) {
  Value row = env.add(env.mul(tm, i(kTileM)), tmemLane);
  Value colBase = env.add(env.mul(tn, i(plan.tileN)), i(32 * ld));
  // 16 bytes of the row per store.
  int64_t outBytes =
      (reducing ? plan.outType : plan.storeType()).getIntOrFloatBitWidth() / 8;
  epilogueAt(
      args, 32, 16 / outBytes,
      [&](int64_t r) { return std::make_pair(row, env.add(colBase, i(r))); },
      [&](int64_t r) {
        return arith::BitcastOp::create(env.b, env.loc, env.b.getF32Type(),
                                        bits(r))
            .getResult();
      },
      sink);
}

SmallVector<Value> gemm::loadElements(KernelEnv &env, Value buffer, Value at,
                                      int64_t vec) {
  SmallVector<Value> values;
  if (vec == 1) {
    values.push_back(memref::LoadOp::create(env.b, env.loc, buffer, at));
    return values;
  }
  Type type = cast<MemRefType>(buffer.getType()).getElementType();
  int64_t bytes = type.getIntOrFloatBitWidth() / 8;
  Value v = vector::LoadOp::create(
      env.b, env.loc, VectorType::get({vec}, type), buffer, ValueRange{at},
      /*nontemporal=*/false, llvm::MaybeAlign(env.gpu ? vec * bytes : bytes));
  for (int64_t i = 0; i < vec; ++i)
    values.push_back(
        vector::ExtractOp::create(env.b, env.loc, v, ArrayRef<int64_t>{i}));
  return values;
}
