//===- SplitKReduction.cpp - GEMM kernels: the split-K reduction ----------===//
//
// The kernel that sums a split-K GEMM's FP32 planes into D (with bias, C,
// a fused output quantizer or output amaxes), run after the GEMM kernel
// on the same stream; its variant for an FP8 output with a transpose
// buffer, which writes both layouts through shared memory; and its variant
// for a block-scaled output (MXFP8, FP8 1x128), which quantizes D's
// blocks from rows staged in shared memory.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "Kernels.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include <cassert>

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

namespace {
/// The block's tile of D in a reduction kernel's grid of `rows` x `cols`
/// tiles, `tilesN` to a row of tiles (block b: tile row b / tilesN): its
/// row of tiles, first row and first column.
struct TileOrigin {
  Value tileRow, row0, col0;
  TileOrigin(KernelEnv &env, int64_t rows, int64_t cols, int64_t tilesN)
      : tileRow(env.div(env.blockId, env.idx(tilesN))),
        row0(env.mul(tileRow, env.idx(rows))),
        col0(env.mul(env.rem(env.blockId, env.idx(tilesN)), env.idx(cols))) {}
};

/// D's 4 values at row `row`, columns `col` ... + 3 as the epilogue
/// finishes them (the planes summed, `bias`'s values added, converted to
/// `type`), read at the nearest group inside D when outside it (row and
/// column clamped: the kernels do every load before their guarded stores,
/// as emitSplitKReduction says). N is a multiple of 4.
SmallVector<Value> finishGroup(KernelEnv &env, const GemmPlan &plan,
                               Value workspace, Value bias, Value row,
                               Value col, Type type) {
  auto clamp = [&](Value a, int64_t c) {
    return arith::MinUIOp::create(env.b, env.loc, a, env.idx(c)).getResult();
  };
  Value readCol = clamp(col, plan.n - 4);
  SmallVector<Value> sums = GemmCode{env, plan}.sumPlanes(
      workspace,
      env.add(env.mul(clamp(row, plan.m - 1), env.idx(plan.n)), readCol), 4);
  SmallVector<Value> biasValues;
  if (bias)
    biasValues = loadElements(env, bias, readCol, 4);
  return llvm::map_to_vector(llvm::seq<int64_t>(0, 4), [&](int64_t e) {
    return finishOutput(env, sums[e], bias ? biasValues[e] : Value(), Value(),
                        type);
  });
}

/// The reduction of a split-K GEMM whose fused FP8 output quantizer has a
/// transpose buffer (GemmOutputQuantizer::transpose: sm_90a, column-wise
/// usage; D's codes again as [N, M]). Tiles of 64 x 64 elements, one per
/// block of 256 threads. Phase 1: thread t takes four groups of 4
/// consecutive elements of tile rows t / 16 + 16 r (r < 4), columns
/// 4 (t % 16) ... + 3 (a plane row's 256 bytes read by 16 threads): sums
/// the planes, adds the bias, quantizes as the epilogue does
/// (GemmCode::quantizeOutput), max-combines |values| inside D into the
/// amax, stores the 4 codes into D and stages them in shared memory (rows
/// of kPitch bytes). Phase 2, after the barrier: thread t reads tile
/// column t / 4's codes of rows 16 (t % 4) ... + 15 back and stores them
/// with one 16-byte store into row `column` of the transpose. M and N are
/// multiples of 16 (canFuseOutputQuantizer): a group of 4 and a piece of
/// 16 lie inside D or outside it.
void emitTransposingReduction(OpBuilder &b, Location loc, ModuleOp module,
                              const GemmPlan &plan, Value workspace,
                              Value bias, Value d, const EmitOptions &options,
                              const GemmOutputQuantizer &quantizer) {
  constexpr int64_t kTile = 64, kPitch = kTile + 4, kGroups = 4;
  int64_t m = plan.m, n = plan.n, tilesN = ceilDiv(n, kTile);
  assert(m % 16 == 0 && n % 16 == 0 && "canFuseOutputQuantizer");
  SmallVector<Value> args = {workspace};
  if (bias)
    args.push_back(bias);
  args.append({d, quantizer.scale, quantizer.amaxOut, quantizer.transpose});
  bool hasBias = static_cast<bool>(bias);
  KernelDesc desc;
  desc.name = "qs_gemm_split_k_reduce_transpose";
  desc.threads = 256;
  desc.gridSize = ceilDiv(m, kTile) * tilesN;
  desc.shared.push_back(MemRefType::get({kTile * kPitch}, b.getI8Type()));
  desc.phases.push_back([=](KernelEnv &env) {
    GemmCode code{env, plan};
    Value out = env.args[1 + hasBias];
    Value scale = memref::LoadOp::create(env.b, env.loc,
                                         env.args[2 + hasBias], env.idx(0));
    TileOrigin o(env, kTile, kTile, tilesN);
    Value lane = env.rem(env.threadId, env.idx(16));
    Value col = env.add(o.col0, env.mul(lane, env.idx(4)));
    // Every group's loads before the guarded stores.
    Value running = env.f32(0.0f);
    SmallVector<Value> rows, insides;
    SmallVector<SmallVector<Value>> codes;
    for (int64_t r = 0; r < kGroups; ++r) {
      Value local = env.add(env.div(env.threadId, env.idx(16)),
                            env.idx(16 * r));
      Value row = env.add(o.row0, local);
      SmallVector<Value> outs =
          finishGroup(env, plan, env.args[0], hasBias ? env.args[1] : Value(),
                      row, col, env.b.getF32Type());
      Value inside = env.land(env.lt(row, env.idx(m)), env.lt(col, env.idx(n)));
      Value groupMax = running;
      for (Value v : outs)
        groupMax = env.absMax(groupMax, v);
      running =
          arith::SelectOp::create(env.b, env.loc, inside, groupMax, running);
      codes.push_back(code.quantizeOutput(outs, scale));
      Value staged = env.add(env.mul(local, env.idx(kPitch)),
                             env.mul(lane, env.idx(4)));
      for (int64_t e = 0; e < 4; ++e)
        memref::StoreOp::create(env.b, env.loc, codes.back()[e], env.shared[0],
                                env.add(staged, env.idx(e)));
      rows.push_back(row);
      insides.push_back(inside);
    }
    for (int64_t r = 0; r < kGroups; ++r)
      env.ifThen(insides[r], [&] {
        code.storeCodes(codes[r], out,
                        env.add(env.mul(rows[r], env.idx(n)), col));
      });
    env.atomicMaxToGlobal(running, env.args[3 + hasBias]);
  });
  desc.phases.push_back([=](KernelEnv &env) {
    GemmCode code{env, plan};
    TileOrigin o(env, kTile, kTile, tilesN);
    Value local = env.div(env.threadId, env.idx(4));
    Value first = env.mul(env.rem(env.threadId, env.idx(4)), env.idx(16));
    Value col = env.add(o.col0, local), row = env.add(o.row0, first);
    env.ifThen(env.land(env.lt(col, env.idx(n)), env.lt(row, env.idx(m))),
               [&] {
                 SmallVector<Value> column;
                 for (int64_t i = 0; i < 16; ++i)
                   column.push_back(memref::LoadOp::create(
                       env.b, env.loc, env.shared[0],
                       env.add(env.mul(env.add(first, env.idx(i)),
                                       env.idx(kPitch)),
                               local)));
                 code.storeCodes(column, env.args.back(),
                                 env.add(env.mul(col, env.idx(m)), row));
               });
  });
  emitKernel(b, loc, module, desc, args, options);
}
/// The reduction of a split-K GEMM whose block quantizer writes D
/// (GemmPlan::reductionBlocks: MXFP8 1x32 / 32x1, FP8 1x128 / 128x1).
/// Tiles of R x 128 elements, one per block of 256 threads: R = 128 with
/// FP8 128 x 1 column blocks (a column block's rows, of a 16-bit nominal
/// type), else 32 (an MXFP8 column block's). Phase 1: thread t sums the
/// planes of R / 8 groups of 4 consecutive elements of a row (group
/// t + 256 i: row g / 32, columns 4 (g % 32) ... + 3), adds the bias,
/// rounds to the quantize's nominal type (as the epilogue stages them) and
/// stages the values, zero outside D. Phase 2: a thread per row block
/// (max |v| of its staged values, its scale stored and its multiplier
/// kept in shared memory) and per column (the column block's). Phase 3:
/// the codes: row-wise, the groups of phase 1 again (4 codes, one 32-bit
/// store); MXFP8 column-wise (x's layout), 4 rows of a column per unit,
/// byte stores; FP8 column-wise (transposed, [N, M]), 16 rows of a column
/// per unit, one 16-byte store (M a multiple of 16,
/// canFuseBlockQuantizer). N is a multiple of the block: a group lies
/// inside D's columns or outside them.
void emitBlockReduction(OpBuilder &b, Location loc, ModuleOp module,
                        const GemmPlan &plan, Value workspace, Value bias,
                        const EmitOptions &options) {
  const ProducerBlockQuantizer &q = *plan.reductionBlocks;
  constexpr int64_t kCols = 128, kThreads = 256;
  int64_t block = q.block, m = plan.m, n = plan.n;
  int64_t rows = q.columnwise() && block == 128 ? 128 : 32;
  int64_t tilesN = ceilDiv(n, kCols), rowBlocks = kCols / block;
  assert(n % block == 0 && "canFuseBlockQuantizer");
  bool hasBias = static_cast<bool>(bias);
  SmallVector<Value> args = {workspace};
  if (bias)
    args.push_back(bias);
  args.push_back(q.d());
  llvm::append_range(args, q.extraBuffers());
  Type f32 = b.getF32Type();
  KernelDesc desc;
  desc.name = "qs_gemm_split_k_reduce_blocks";
  desc.threads = kThreads;
  desc.gridSize = ceilDiv(m, rows) * tilesN;
  // Shared: the staged values; the row blocks' and the columns'
  // multipliers.
  desc.shared.push_back(MemRefType::get({rows * kCols}, q.nominal));
  if (q.rowwise())
    desc.shared.push_back(MemRefType::get({rows * rowBlocks}, f32));
  if (q.columnwise())
    desc.shared.push_back(MemRefType::get({kCols}, f32));
  // The kernel's buffers: D, then ProducerBlockQuantizer::extraBuffers().
  struct Buffers {
    Value d, rowScales, columnData, columnScales;
  };
  auto buffers = [=](KernelEnv &env) {
    ValueRange extras = ValueRange(env.args).drop_front(2 + hasBias);
    Buffers r;
    r.d = env.args[1 + hasBias];
    if (q.rowwise())
      r.rowScales = extras[0];
    if (q.columnwise()) {
      r.columnData = q.rowwise() ? extras[1] : r.d;
      r.columnScales = extras.back();
    }
    return r;
  };
  auto origin = [=](KernelEnv &env) {
    return TileOrigin(env, rows, kCols, tilesN);
  };
  auto staged = [](KernelEnv &env, Value index) {
    return env.toF32(
        memref::LoadOp::create(env.b, env.loc, env.shared[0], index));
  };
  // The staged tile: rows of kCols values in 16-byte chunks of `chunk`
  // values; chunk k of row r lies at chunk k ^ ((r + r / 16) % 8) of the
  // row (XOR-swizzled), which keeps every phase's accesses free of bank
  // conflicts: a quarter warp's 16-byte loads of 8 consecutive rows'
  // chunks (step 2's row blocks), a warp's values of one row (steps 1 and
  // 3) and of 16-row pieces of 4 columns (step 3, FP8 column blocks).
  int64_t chunk = 128 / q.nominal.getIntOrFloatBitWidth();
  auto chunkAt = [=](KernelEnv &env, Value r, Value k) {
    Value swizzle = env.rem(env.add(r, env.div(r, env.idx(16))), env.idx(8));
    Value moved = arith::XOrIOp::create(env.b, env.loc, k, swizzle);
    return env.add(env.mul(r, env.idx(kCols)), env.mul(moved, env.idx(chunk)));
  };
  auto stagedAt = [=](KernelEnv &env, Value r, Value c) {
    return env.add(chunkAt(env, r, env.div(c, env.idx(chunk))),
                   env.rem(c, env.idx(chunk)));
  };
  // Group i of the thread (phases 1 and 3): its tile row and column.
  auto group = [](KernelEnv &env, int64_t i) {
    Value g = env.add(env.threadId, env.idx(kThreads * i));
    return std::make_pair(env.div(g, env.idx(kCols / 4)),
                          env.mul(env.rem(g, env.idx(kCols / 4)), env.idx(4)));
  };
  desc.phases.push_back([=](KernelEnv &env) {
    TileOrigin o = origin(env);
    Value zero = env.fromF32(env.f32(0.0f), q.nominal);
    for (int64_t i = 0; i < rows / 8; ++i) {
      auto [r, c] = group(env, i);
      Value row = env.add(o.row0, r), col = env.add(o.col0, c);
      Value inside = env.land(env.lt(row, env.idx(m)), env.lt(col, env.idx(n)));
      SmallVector<Value> values =
          finishGroup(env, plan, env.args[0], hasBias ? env.args[1] : Value(),
                      row, col, q.nominal);
      Value at = stagedAt(env, r, c);
      for (int64_t e = 0; e < 4; ++e) {
        Value v =
            arith::SelectOp::create(env.b, env.loc, inside, values[e], zero);
        memref::StoreOp::create(env.b, env.loc, v, env.shared[0],
                                env.add(at, env.idx(e)));
      }
    }
  });
  desc.phases.push_back([=](KernelEnv &env) {
    TileOrigin o = origin(env);
    Buffers buf = buffers(env);
    // Row block j of tile row r: unit j * rows + r (consecutive threads on
    // consecutive rows), read a chunk at a time.
    if (q.rowwise())
      env.forEachUnit(rows * rowBlocks, [&](Value u) {
        Value j = env.div(u, env.idx(rows));
        Value r = env.rem(u, env.idx(rows));
        Value row = env.add(o.row0, r);
        Value col = env.add(o.col0, env.mul(j, env.idx(block)));
        Value firstChunk = env.mul(j, env.idx(block / chunk));
        env.ifThen(
            env.land(env.lt(row, env.idx(m)), env.lt(col, env.idx(n))), [&] {
              Value amax = env.loopReduce(
                  block / chunk, env.f32(0.0f), [&](Value k, Value acc) {
                    Value at = chunkAt(env, r, env.add(firstChunk, k));
                    for (int64_t e = 0; e < chunk; ++e)
                      acc =
                          env.absMax(acc, staged(env, env.add(at, env.idx(e))));
                    return acc;
                  });
              Value mult = q.scale(env, amax, row, env.div(col, env.idx(block)),
                                   buf.rowScales);
              memref::StoreOp::create(
                  env.b, env.loc, mult, env.shared[1],
                  env.add(env.mul(r, env.idx(rowBlocks)), j));
            });
      });
    if (q.columnwise())
      env.forEachUnit(kCols, [&](Value c) {
        Value col = env.add(o.col0, c);
        env.ifThen(env.lt(col, env.idx(n)), [&] {
          // Eight rows an iteration, unrolled: their swizzles are constants
          // apart.
          Value amax =
              env.loopReduce(rows / 8, env.f32(0.0f), [&](Value g, Value acc) {
                for (int64_t i = 0; i < 8; ++i) {
                  Value r = env.add(env.mul(g, env.idx(8)), env.idx(i));
                  acc = env.absMax(acc, staged(env, stagedAt(env, r, c)));
                }
                return acc;
              });
          Value mult =
              q.columnScale(env, amax, col, o.tileRow, buf.columnScales);
          memref::StoreOp::create(env.b, env.loc, mult, env.shared.back(), c);
        });
      });
  });
  desc.phases.push_back([=](KernelEnv &env) {
    GemmCode code{env, plan};
    TileOrigin o = origin(env);
    Buffers buf = buffers(env);
    if (q.rowwise())
      for (int64_t i = 0; i < rows / 8; ++i) {
        Value r, c;
        std::tie(r, c) = group(env, i);
        Value row = env.add(o.row0, r), col = env.add(o.col0, c);
        env.ifThen(
            env.land(env.lt(row, env.idx(m)), env.lt(col, env.idx(n))), [&] {
              Value at = stagedAt(env, r, c);
              SmallVector<Value> values;
              for (int64_t e = 0; e < 4; ++e)
                values.push_back(staged(env, env.add(at, env.idx(e))));
              Value mult =
                  memref::LoadOp::create(env.b, env.loc, env.shared[1],
                                         env.add(env.mul(r, env.idx(rowBlocks)),
                                                 env.div(c, env.idx(block))));
              code.storeCodes(q.encode(env, values, mult), buf.d,
                              env.add(env.mul(row, env.idx(n)), col));
            });
      }
    if (!q.columnwise())
      return;
    // A unit: `per` consecutive rows of a column (consecutive threads on
    // consecutive columns for x's layout, on consecutive pieces of a
    // transposed row).
    int64_t per = q.columnTransposed ? 16 : 4, pieces = rows / per;
    env.forEachUnit(kCols * pieces, [&](Value u) {
      Value c = q.columnTransposed ? env.div(u, env.idx(pieces))
                                   : env.rem(u, env.idx(kCols));
      Value p = q.columnTransposed ? env.rem(u, env.idx(pieces))
                                   : env.div(u, env.idx(kCols));
      Value col = env.add(o.col0, c);
      Value first = env.mul(p, env.idx(per));
      Value row = env.add(o.row0, first);
      env.ifThen(
          env.land(env.lt(row, env.idx(m)), env.lt(col, env.idx(n))), [&] {
            SmallVector<Value> values;
            for (int64_t k = 0; k < per; ++k)
              values.push_back(
                  staged(env, stagedAt(env, env.add(first, env.idx(k)), c)));
            Value mult =
                memref::LoadOp::create(env.b, env.loc, env.shared.back(), c);
            SmallVector<Value> codes = q.encode(env, values, mult);
            if (q.columnTransposed) {
              code.storeCodes(codes, buf.columnData,
                              env.add(env.mul(col, env.idx(m)), row));
              return;
            }
            for (int64_t k = 0; k < per; ++k) {
              Value at = env.add(row, env.idx(k));
              env.ifThen(env.lt(at, env.idx(m)), [&] {
                memref::StoreOp::create(
                    env.b, env.loc,
                    arith::BitcastOp::create(env.b, env.loc, q.codeType,
                                             codes[k]),
                    buf.columnData, env.add(env.mul(at, env.idx(n)), col));
              });
            }
          });
    });
  });
  emitKernel(b, loc, module, desc, args, options);
}
} // namespace

void gemm::emitSplitKReduction(OpBuilder &b, Location loc, ModuleOp module,
                               const GemmPlan &plan, Value workspace,
                               Value bias, Value c, Value d,
                               const EmitOptions &options,
                               const GemmOutputQuantizer *quantizer,
                               ValueRange outputAmaxes) {
  if (plan.reductionBlocks) {
    assert(!c && !quantizer && outputAmaxes.empty() &&
           "a block quantizer has no accumulate operand");
    emitBlockReduction(b, loc, module, plan, workspace, bias, options);
    return;
  }
  if (quantizer && quantizer->transpose) {
    assert(!c && outputAmaxes.empty() &&
           "a fused output quantizer has no accumulate operand");
    emitTransposingReduction(b, loc, module, plan, workspace, bias, d,
                             options, *quantizer);
    return;
  }
  SmallVector<Value> args = {workspace};
  if (bias)
    args.push_back(bias);
  if (c)
    args.push_back(c);
  args.push_back(d);
  if (quantizer) {
    args.push_back(quantizer->scale);
    args.push_back(quantizer->amaxOut);
  }
  llvm::append_range(args, outputAmaxes);
  int64_t elements = plan.m * plan.n;
  int64_t n = plan.n;
  bool quantizes = quantizer != nullptr;
  int64_t amaxes = outputAmaxes.size();
  // A quantizing reduction finishes FP32 values, then scales and converts
  // them; with output amaxes the FP32 values are tracked, then rounded
  // (as in the epilogue).
  Type f32 = Float32Type::get(b.getContext());
  Type outType = quantizes ? f32 : plan.outType;
  bool hasBias = static_cast<bool>(bias), hasC = static_cast<bool>(c);
  KernelDesc desc;
  desc.name = "qs_gemm_split_k_reduce";
  desc.threads = 256;
  // Groups of `vec` consecutive elements of a row: 4 when N is a multiple
  // of 4 (16-byte plane loads, one store per group; the planes are
  // M N elements apart, so every group is aligned), else 1. Four groups
  // per thread, consecutive threads on consecutive groups (each plane
  // read coalesced). All loads (at clamped, in-range positions) come
  // before the guarded stores: as in the epilogue, the compilers cannot
  // tell that D does not alias the planes, bias or C, so a load after a
  // store would stay after it.
  int64_t vec = n % 4 == 0 ? 4 : 1, groups = elements / vec;
  constexpr int64_t kPerThread = 4;
  int64_t perBlock = desc.threads * kPerThread;
  desc.gridSize = ceilDiv(groups, perBlock);
  desc.phases.push_back([=](KernelEnv &env) {
    Value ws = env.args[0];
    Value biasArg = hasBias ? env.args[1] : Value();
    Value cArg = hasC ? env.args[hasBias ? 2 : 1] : Value();
    unsigned dIndex = 1 + hasBias + hasC;
    Value out = env.args[dIndex];
    Value outScale =
        quantizes ? memref::LoadOp::create(env.b, env.loc, env.args[dIndex + 1],
                                           env.idx(0))
                        .getResult()
                  : Value();
    Value running = env.f32(0.0f);
    auto load = [&](Value buffer, Value at) {
      return loadElements(env, buffer, at, vec);
    };
    Value first =
        env.add(env.mul(env.blockId, env.idx(perBlock)), env.threadId);
    SmallVector<Value> positions;
    SmallVector<SmallVector<Value>> results;
    for (int64_t r = 0; r < kPerThread; ++r) {
      Value g = env.add(first, env.idx(r * desc.threads));
      Value at = env.mul(
          arith::MinUIOp::create(env.b, env.loc, g, env.idx(groups - 1)),
          env.idx(vec));
      SmallVector<Value> sums = GemmCode{env, plan}.sumPlanes(ws, at, vec);
      SmallVector<Value> biasValues, cValues;
      if (biasArg)
        biasValues = load(biasArg, env.rem(at, env.idx(n)));
      if (cArg)
        cValues = load(cArg, at);
      SmallVector<Value> outs;
      for (int64_t i = 0; i < vec; ++i)
        outs.push_back(
            finishOutput(env, sums[i], biasArg ? biasValues[i] : Value(),
                         cArg ? cValues[i] : Value(), amaxes ? f32 : outType));
      if (quantizes || amaxes) {
        // The |max| of groups inside D, then for a quantizer the codes in
        // place of the values.
        Value groupMax = running;
        for (Value v : outs)
          groupMax = env.absMax(groupMax, v);
        running = arith::SelectOp::create(
            env.b, env.loc, env.lt(g, env.idx(groups)), groupMax, running);
      }
      if (quantizes)
        outs = GemmCode{env, plan}.quantizeOutput(outs, outScale);
      else if (amaxes)
        outs = llvm::map_to_vector(
            outs, [&](Value v) { return roundOutput(env, v, outType); });
      positions.push_back(g);
      results.push_back(std::move(outs));
    }
    int64_t outBytes = outType.getIntOrFloatBitWidth() / 8;
    for (int64_t r = 0; r < kPerThread; ++r)
      env.ifThen(env.lt(positions[r], env.idx(groups)), [&] {
        Value at = env.mul(positions[r], env.idx(vec));
        if (quantizes) {
          GemmCode{env, plan}.storeCodes(results[r], out, at);
          return;
        }
        if (vec == 1) {
          memref::StoreOp::create(env.b, env.loc, results[r][0], out, at);
          return;
        }
        Value packed = vector::FromElementsOp::create(
            env.b, env.loc, VectorType::get({vec}, outType), results[r]);
        vector::StoreOp::create(
            env.b, env.loc, packed, out, ValueRange{at}, /*nontemporal=*/false,
            llvm::MaybeAlign(env.gpu ? vec * outBytes : outBytes));
      });
    // One atomic max per warp of the |values| this thread stored.
    if (quantizes)
      env.atomicMaxToGlobal(running, env.args.back());
    if (amaxes)
      running = env.toF32(roundOutput(env, running, outType));
    for (int64_t a = 0; a < amaxes; ++a)
      env.atomicMaxToGlobal(running, env.args[dIndex + 1 + a]);
  });
  emitKernel(b, loc, module, desc, args, options);
}
