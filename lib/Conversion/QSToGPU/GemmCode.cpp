//===- GemmCode.cpp - GEMM kernels: shared index code ---------------------===//

#include "GemmCode.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

Value GemmCode::shl(Value a, int64_t s) {
  return arith::ShLIOp::create(env.b, env.loc, a, i(s));
}

Value GemmCode::shr(Value a, int64_t s) {
  return arith::ShRUIOp::create(env.b, env.loc, a, i(s));
}

Value GemmCode::band(Value a, int64_t m) {
  return arith::AndIOp::create(env.b, env.loc, a, i(m));
}

Value GemmCode::minI(Value a, Value c) {
  return arith::MinUIOp::create(env.b, env.loc, a, c);
}

std::pair<Value, Value> GemmCode::tileOf(Value workUnit) {
  Value tile = plan.splitsK() ? env.rem(workUnit, i(plan.tiles())) : workUnit;
  // Multicast pairs: the order below over pairs of tile rows; the block's
  // rank in its pair picks the row.
  int64_t rows = plan.multicast() ? ceilDiv(plan.tilesM, 2) : plan.tilesM;
  Value unit = plan.multicast() ? env.div(tile, i(2)) : tile;
  int64_t groupSize = 8 * plan.tilesN;
  Value group = env.div(unit, i(groupSize));
  Value firstM = env.mul(group, i(8));
  Value rowsInGroup =
      minI(arith::SubIOp::create(env.b, env.loc, i(rows), firstM), i(8));
  Value inGroup = env.rem(unit, i(groupSize));
  Value tm = env.add(firstM, env.rem(inGroup, rowsInGroup));
  if (plan.multicast())
    tm = env.add(env.mul(tm, i(2)), env.rem(tile, i(2)));
  return {tm, env.div(inGroup, rowsInGroup)};
}

void GemmCode::beginUnit(Value unit) {
  if (!plan.splitsK()) {
    split = kBase = Value();
    return;
  }
  split = env.div(unit, i(plan.tiles()));
  kBase = env.mul(split, i(plan.kTilesPerUnit()));
  tile = env.rem(unit, i(plan.tiles()));
}

namespace {
/// StreamKMath's arithmetic in the kernels: on i32 values where its
/// products fit (GemmPlan::streamKFits32; i64 otherwise), which halves the
/// registers the segment's values hold next to the accumulators.
struct I32Ops {
  GemmCode &code;
  OpBuilder &b() { return code.env.b; }
  Location loc() { return code.env.loc; }
  Type type() {
    return code.plan.streamKFits32() ? b().getI32Type() : b().getI64Type();
  }
  Value c(int64_t v) {
    return arith::ConstantIntOp::create(b(), loc(), type(), v);
  }
  template <typename Op> Value binary(Value x, Value y) {
    return Op::create(b(), loc(), x, y);
  }
  Value add(Value x, Value y) { return binary<arith::AddIOp>(x, y); }
  Value sub(Value x, Value y) { return binary<arith::SubIOp>(x, y); }
  Value mul(Value x, Value y) { return binary<arith::MulIOp>(x, y); }
  Value div(Value x, Value y) { return binary<arith::DivUIOp>(x, y); }
  Value min(Value x, Value y) { return binary<arith::MinUIOp>(x, y); }
  Value max(Value x, Value y) { return binary<arith::MaxUIOp>(x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b(), loc(), arith::CmpIPredicate::ult, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b(), loc(), cond, x, y);
  }
  Value from(Value index) {
    return arith::IndexCastUIOp::create(b(), loc(), type(), index);
  }
  Value to(Value v) {
    return arith::IndexCastUIOp::create(b(), loc(), b().getIndexType(), v);
  }
};
} // namespace

Value GemmCode::sharesTile(Value block) {
  I32Ops ops{*this};
  StreamKSharing<Value> share = StreamKMath<Value, I32Ops>{plan, ops}.sharing(
      ops.from(block), ops.from(tile));
  contributors = ops.to(share.contributors);
  split = ops.to(share.plane);
  return arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::ugt,
                               share.contributors, ops.c(1));
}

void GemmCode::finishSegment(Value block,
                             const std::function<void()> &storePlane,
                             const std::function<void()> &arrive,
                             const std::function<void()> &storeD) {
  env.ifThenElse(
      sharesTile(block),
      [&] {
        storingPlane = true;
        storePlane();
        storingPlane = false;
        arrive();
      },
      storeD);
}

Value GemmCode::streamKElement(Value plane, Value row, Value col) {
  Value slot = env.add(env.mul(plane, i(plan.streamKTiles())), tile);
  Value inTile = env.add(env.mul(env.rem(row, i(kTileM)), i(plan.tileN)),
                         env.rem(col, i(plan.tileN)));
  return env.add(env.mul(slot, i(kTileM * plan.tileN)), inTile);
}

Value GemmCode::arrivalsBeforeLast() {
  Type i32 = env.b.getI32Type();
  if (!plan.streamK)
    return arith::ConstantIntOp::create(env.b, env.loc, i32, plan.splitK - 1);
  return arith::IndexCastUIOp::create(
      env.b, env.loc, i32,
      arith::SubIOp::create(env.b, env.loc, contributors, i(1)));
}

void GemmCode::forEachUnitKTile(const std::function<void(Value)> &body) {
  if (!kCount) {
    env.loop(plan.kTilesPerUnit(), body);
    return;
  }
  OpBuilder::InsertionGuard guard(env.b);
  auto forOp = scf::ForOp::create(env.b, env.loc, i(0), kCount, i(1));
  env.b.setInsertionPoint(forOp.getBody()->getTerminator());
  body(forOp.getInductionVar());
}

Value GemmCode::splitKCounters() {
  return env.zeroedGlobal("split_k_counters", plan.tiles());
}

SmallVector<Value> GemmCode::sumPlanes(Value workspace, Value at, int64_t vec) {
  SmallVector<Value> sums = loadElements(env, workspace, at, vec);
  if (plan.streamK) {
    // Planes 1 .. contributors - 1 of the tile, streamKTiles() tiles apart,
    // in a loop per output group. (Unrolled up to 4 planes, loaded whether
    // the tile has that many contributors or not, the PTX was a third as
    // large, but ptxas 13.0 spilled 24-60 bytes in the MXFP8 and FP8
    // 1x128 x 1x128 kernels, with half-size epilogue batches too.)
    auto forOp =
        scf::ForOp::create(env.b, env.loc, i(1), contributors, i(1), sums);
    OpBuilder::InsertionGuard guard(env.b);
    env.b.setInsertionPointToStart(forOp.getBody());
    Value offset = env.mul(forOp.getInductionVar(),
                           i(plan.streamKTiles() * kTileM * plan.tileN));
    SmallVector<Value> plane =
        loadElements(env, workspace, env.add(offset, at), vec);
    SmallVector<Value> next;
    for (int64_t e = 0; e < vec; ++e)
      next.push_back(arith::AddFOp::create(
          env.b, env.loc, forOp.getRegionIterArgs()[e], plane[e]));
    scf::YieldOp::create(env.b, env.loc, next);
    return SmallVector<Value>(forOp.getResults());
  }
  for (int64_t s = 1; s < plan.splitK; ++s) {
    SmallVector<Value> plane =
        loadElements(env, workspace, env.add(i(s * plan.m * plan.n), at), vec);
    for (int64_t e = 0; e < vec; ++e)
      sums[e] = arith::AddFOp::create(env.b, env.loc, sums[e], plane[e]);
  }
  return sums;
}

void GemmCode::forEachTile(
    Value block, const std::function<void(Value, Value, Value)> &body) {
  if (plan.streamsK()) {
    I32Ops ops{*this};
    StreamKMath<Value, I32Ops> math{plan, ops};
    Value g = ops.from(block);
    auto loop = scf::ForOp::create(env.b, env.loc, i(0),
                                   ops.to(math.segments(g)), i(1));
    OpBuilder::InsertionGuard guard(env.b);
    env.b.setInsertionPointToStart(loop.getBody());
    StreamKSegment<Value> seg =
        math.segment(g, ops.from(loop.getInductionVar()));
    tile = ops.to(seg.tile);
    unitIndex = loop.getInductionVar();
    kBase = ops.to(seg.kBase);
    kCount = ops.to(seg.kCount);
    contributors = split = Value();
    Value tm, tn;
    std::tie(tm, tn) = tileOf(tile);
    body(tm, tn, ops.to(seg.tileStart));
    return;
  }
  if (plan.persistent()) {
    forEachTile(block, body, i(0), 1);
    return;
  }
  beginUnit(block);
  unitIndex = Value();
  Value tm, tn;
  std::tie(tm, tn) = tileOf(block);
  body(tm, tn, i(0));
}

void GemmCode::forEachTile(Value block,
                           const std::function<void(Value, Value, Value)> &body,
                           Value phase, int64_t period) {
  Value first = env.add(block, env.mul(phase, i(plan.blocks())));
  auto loop = scf::ForOp::create(env.b, env.loc, first, i(plan.units()),
                                 i(period * plan.blocks()));
  OpBuilder::InsertionGuard guard(env.b);
  env.b.setInsertionPointToStart(loop.getBody());
  Value unit = loop.getInductionVar();
  Value iteration = env.div(arith::SubIOp::create(env.b, env.loc, unit, block),
                            i(plan.blocks()));
  beginUnit(unit);
  unitIndex = iteration;
  Value tm, tn;
  std::tie(tm, tn) = tileOf(unit);
  body(tm, tn, env.mul(iteration, i(plan.kTilesPerUnit())));
}

Value GemmCode::pairTile(Value block, Value tileStart, int64_t rank) {
  Value first = env.add(
      arith::SubIOp::create(env.b, env.loc, block, env.rem(block, i(2))),
      i(rank));
  if (!plan.persistent())
    return first;
  Value iteration = env.div(tileStart, i(plan.kTilesPerUnit()));
  return env.add(first, env.mul(iteration, i(plan.blocks())));
}

Value GemmCode::fullBarrier(Value s) {
  return env.add(i(plan.barrierOffset()), env.mul(s, i(8)));
}

Value GemmCode::emptyBarrier(Value s) {
  return env.add(i(plan.barrierOffset() + 8 * plan.stages), env.mul(s, i(8)));
}

Value GemmCode::descriptor(Value address) {
  Value start = band(shr(address, 4), 0x3FFF);
  Value fixed = env.add(i(1 << 16), shl(i(1024 >> 4), 32));
  Value desc = env.add(start, fixed);
  Value i64v =
      arith::IndexCastUIOp::create(env.b, env.loc, env.b.getI64Type(), desc);
  Value layout =
      arith::ConstantIntOp::create(env.b, env.loc, env.b.getI64Type(), 1);
  layout = arith::ShLIOp::create(
      env.b, env.loc, layout,
      arith::ConstantIntOp::create(env.b, env.loc, env.b.getI64Type(), 62));
  return arith::OrIOp::create(env.b, env.loc, i64v, layout);
}

Value GemmCode::stepDescriptor(Value base, int64_t j) {
  return arith::AddIOp::create(
      env.b, env.loc, base,
      arith::ConstantIntOp::create(env.b, env.loc, env.b.getI64Type(), 2 * j));
}

Value GemmCode::descA(Value base, Value s, Value buffer, Value consumer) {
  return descriptor(env.add(env.add(base, tileA(s, buffer)),
                            env.mul(consumer, i(64 * kTileK))));
}

Value GemmCode::descB(Value base, Value s, Value buffer, int64_t chunk) {
  return descriptor(env.add(env.add(base, tileB(s, buffer)),
                            i(chunk * plan.mmaN() * kTileK)));
}

void GemmCode::transposeTiles(
    Value thread, Value s, Value buffer,
    const std::function<SmallVector<Value>(Value)> &load16,
    const std::function<void(Value, ArrayRef<Value>)> &store16) {
  // The 4 x 4 byte transpose of words x[0..3] (x[j] byte b -> out[b] byte
  // j) in eight prmt.
  auto transpose4 = [&](ArrayRef<Value> x) -> SmallVector<Value, 4> {
    Value lo01 = prmt(x[0], x[1], 0x5140), lo23 = prmt(x[2], x[3], 0x5140);
    Value hi01 = prmt(x[0], x[1], 0x7362), hi23 = prmt(x[2], x[3], 0x7362);
    return {prmt(lo01, lo23, 0x5410), prmt(lo01, lo23, 0x7632),
            prmt(hi01, hi23, 0x5410), prmt(hi01, hi23, 0x7632)};
  };
  auto transpose = [&](Value source, Value tile, int64_t tileRows, Value q) {
    int64_t n = tileRows / 16, stride = std::max<int64_t>(1, 8 / n);
    Value mc = env.rem(q, i(n));
    Value kc = band(env.add(env.mul(mc, i(stride)), env.div(q, i(n))), 7);
    // Rows 16 kc + r of the MN-major tile, 16 bytes at column 16 mc.
    Value src = env.add(env.add(source, env.mul(kc, i(16 * tileRows))),
                        env.mul(mc, i(16)));
    SmallVector<SmallVector<Value>> in;
    for (int64_t r = 0; r < 16; ++r)
      in.push_back(load16(env.add(src, i(r * tileRows))));
    Value dst = env.add(env.add(tile, env.mul(mc, i(16 * kTileK))),
                        env.mul(kc, i(16)));
    for (int64_t w = 0; w < 4; ++w) {
      // Output row 16 mc + 4w + c: its word v holds byte c of word w of
      // rows 4v .. 4v + 3.
      SmallVector<SmallVector<Value, 4>> words(4);
      for (int64_t v = 0; v < 4; ++v) {
        SmallVector<Value, 4> t = transpose4({in[4 * v][w], in[4 * v + 1][w],
                                              in[4 * v + 2][w],
                                              in[4 * v + 3][w]});
        for (int64_t c = 0; c < 4; ++c)
          words[c].push_back(t[c]);
      }
      for (int64_t c = 0; c < 4; ++c)
        store16(env.add(dst, i((4 * w + c) * kTileK)), words[c]);
    }
  };
  if (plan.a.mnMajor)
    env.ifThen(env.lt(thread, i(kTileM / 2)),
               [&] { transpose(stageA(s), tileA(s, buffer), kTileM, thread); });
  if (plan.b.mnMajor) {
    Value q = arith::SubIOp::create(env.b, env.loc, thread, i(kWarpgroup));
    env.ifThen(env.land(arith::CmpIOp::create(env.b, env.loc,
                                              arith::CmpIPredicate::uge, thread,
                                              i(kWarpgroup)),
                        env.lt(q, i(plan.tileN / 2))),
               [&] { transpose(stageB(s), tileB(s, buffer), plan.tileN, q); });
  }
}

Value GemmCode::convertedAt(Value tile, int64_t rows, Value chunk, Value row,
                            Value e) {
  return env.add(env.add(tile, env.mul(chunk, i(rows * 128))),
                 env.add(env.mul(row, i(128)), env.mul(e, i(2))));
}

Value GemmCode::f16DescA(Value base, Value buffer, Value consumer, int64_t j) {
  Value chunk = env.add(convertedA(buffer), i((j / 4) * kTileM * 128));
  return descriptor(
      env.add(env.add(base, chunk),
              env.add(env.mul(consumer, i(64 * 128)), i((j % 4) * 32))));
}

Value GemmCode::f16DescB(Value base, Value buffer, int64_t j) {
  Value chunk = env.add(convertedB(buffer), i((j / 4) * plan.tileN * 128));
  return descriptor(env.add(env.add(base, chunk), i((j % 4) * 32)));
}

std::pair<Value, Value> GemmCode::fragment(Value t, Value r) {
  Value warp = shr(t, 5), lane = band(t, 31);
  Value row =
      env.add(env.add(shl(warp, 4), shr(lane, 2)), shl(band(shr(r, 1), 1), 3));
  Value col =
      env.add(env.add(shl(shr(r, 2), 3), shl(band(lane, 3), 1)), band(r, 1));
  return {row, col};
}

Value GemmCode::blockScaleCode(const OperandPlan &op, Value scales, Value row,
                              Value kb) {
  // Blocks past K (the last k-tile's zero-filled tail) read the last
  // block's scale: their partial sums are zero, and padding scales may be
  // anything (uninitialised in TE), NaN included.
  Value r = minI(row, i(op.rows - 1));
  kb = minI(kb, i(ceilDiv(plan.k, plan.blockK()) - 1));
  // MN-major (column-wise) compact MXFP8 scales: G[row, kb] at
  // kb * scaleLd + row.
  Value at = op.swizzled  ? swizzledScale(r, kb, op.scaleLd)
             : op.mnMajor ? env.add(env.mul(kb, i(op.scaleLd)), r)
                          : env.add(env.mul(r, i(op.scaleLd)), kb);
  return arith::BitcastOp::create(
      env.b, env.loc, env.b.getI8Type(),
      memref::LoadOp::create(env.b, env.loc, scales, at));
}

Value GemmCode::scaleWord(const OperandPlan &op, Value scales, Value row,
                          Value ktile) {
  Value r = minI(row, i(op.rows - 1));
  Value col = env.mul(ktile, i(4));
  Value at = op.swizzled ? swizzledScale(r, col, op.scaleLd)
                         : env.add(env.mul(r, i(op.scaleLd)), col);
  // scaleLd and the 128x4 tiles keep the word 4-byte aligned (the GPU's
  // buffers are; the emulation's may come from numpy).
  Type elem = cast<MemRefType>(scales.getType()).getElementType();
  Value bytes = vector::LoadOp::create(
      env.b, env.loc, VectorType::get({4}, elem), scales, ValueRange{at},
      /*nontemporal=*/false, llvm::MaybeAlign(env.gpu ? 4 : 1));
  Value word = vector::BitCastOp::create(
      env.b, env.loc, VectorType::get({1}, env.b.getI32Type()), bytes);
  return vector::ExtractOp::create(env.b, env.loc, word, ArrayRef<int64_t>{0});
}

Value GemmCode::blockScale(const OperandPlan &op, Value scales, Value row,
                           Value kb) {
  if (op.blockDim >= 3) {
    Value code = blockScaleCode(op, scales, row, kb);
    return op.blockDim == 3 ? emitE8M0ToF32(env.b, env.loc, code)
                            : emitDecodeToF32(env.b, env.loc, code,
                                              SmallFloatFormat::e4m3());
  }
  // FP32 scales; past the end as blockScaleCode.
  Value r = minI(row, i(op.rows - 1));
  kb = minI(kb, i(ceilDiv(plan.k, plan.blockK()) - 1));
  Value at = op.blockDim == 1
                 ? env.add(env.mul(kb, i(op.scaleLd)), r)
                 : env.add(env.mul(env.div(r, i(128)), i(op.scaleLd)), kb);
  return memref::LoadOp::create(env.b, env.loc, scales, at);
}

Value GemmCode::swizzledScale(Value row, Value col, int64_t cols) {
  Value tile =
      env.add(env.mul(env.div(row, i(128)), i(cols / 4)), env.div(col, i(4)));
  Value inTile =
      env.add(env.mul(env.rem(row, i(32)), i(16)),
              env.add(env.mul(env.rem(env.div(row, i(32)), i(4)), i(4)),
                      env.rem(col, i(4))));
  return env.add(env.mul(tile, i(512)), inTile);
}

GemmCode::TileScales GemmCode::loadScales(Value tm, Value tn, Value consumer,
                                          Value t, Value kt, Value scalesA,
                                          Value scalesB, int64_t chunk) {
  TileScales scales;
  if (plan.a.blockDim == 0) // per-tensor FP8: alpha in the epilogue
    return scales;
  Value rowBase = env.add(env.mul(tm, i(kTileM)), env.mul(consumer, i(64)));
  Value colBase = env.mul(tn, i(plan.tileN));
  int64_t first = chunk * plan.mmaRegs();
  // Packed MXFP8 scales: the words of k-tile `ktile`, byte kt % 4.
  Value ktile;
  if (plan.packedScales(plan.a) || plan.packedScales(plan.b)) {
    ktile = env.div(kt, i(4));
    scales.byte = env.rem(kt, i(4));
    // Blocks past K (in the last k-tile) take the last block's code: their
    // partial sums are zero, their padding codes anything (NaN included).
    int64_t blocks = ceilDiv(plan.k, plan.blockK());
    if (blocks % 4 != 0)
      scales.byte =
          minI(scales.byte, arith::SubIOp::create(env.b, env.loc, i(blocks - 1),
                                                  env.mul(ktile, i(4))));
  } else if (!plan.b.perRow() && plan.mmaN() % 128 != 0) {
    Value chunkStart = env.add(colBase, i(chunk * plan.mmaN()));
    scales.b[0] = blockScale(plan.b, scalesB, chunkStart, kt);
    scales.b[1] = blockScale(plan.b, scalesB,
                             env.add(chunkStart, i(plan.mmaN() - 1)), kt);
    // The tile column where the next 128-column block begins.
    scales.hiFrom = arith::SubIOp::create(
        env.b, env.loc,
        env.mul(env.add(env.div(chunkStart, i(128)), i(1)), i(128)), colBase);
  }
  auto load = [&](const OperandPlan &op, Value memref, Value row) {
    return plan.packedScales(op) ? scaleWord(op, memref, row, ktile)
                                 : blockScale(op, memref, row, kt);
  };
  for (int64_t r = first; r < first + plan.mmaRegs(); ++r) {
    Value fr, fc;
    std::tie(fr, fc) = fragment(t, i(r));
    int64_t ka = TileScales::keyA(plan, r), kb = TileScales::keyB(plan, r);
    if (!scales.a.count(ka))
      scales.a[ka] = load(plan.a, scalesA, env.add(rowBase, fr));
    if (!scales.b.count(kb))
      scales.b[kb] = load(plan.b, scalesB, env.add(colBase, fc));
  }
  return scales;
}

SmallVector<Value> GemmCode::scaleValues(const TileScales &scales) {
  SmallVector<Value> values;
  for (const auto &[key, value] : scales.a)
    values.push_back(value);
  for (const auto &[key, value] : scales.b)
    values.push_back(value);
  return values;
}

GemmCode::TileScales GemmCode::withScaleValues(TileScales shape,
                                               ValueRange values) {
  assert(values.size() == shape.a.size() + shape.b.size() &&
         "one value per key");
  for (auto &[key, value] : shape.a) {
    value = values.front();
    values = values.drop_front();
  }
  for (auto &[key, value] : shape.b) {
    value = values.front();
    values = values.drop_front();
  }
  return shape;
}

SmallVector<Value> GemmCode::productValues(const TileScales &scales) {
  SmallVector<Value> values;
  for (const auto &[key, value] : scales.products)
    values.push_back(value);
  return values;
}

GemmCode::TileScales GemmCode::withProductValues(TileScales shape,
                                                 ValueRange values) {
  assert(values.size() == shape.products.size() && "one value per product");
  for (auto &[key, value] : shape.products) {
    value = values.front();
    values = values.drop_front();
  }
  return shape;
}

void GemmCode::multiplyScales(TileScales &scales) {
  assert(!scales.byte && "packed scales decode in promote");
  for (const auto &[ka, sA] : scales.a)
    for (const auto &[kb, sB] : scales.b)
      scales.products[{ka, kb}] = arith::MulFOp::create(env.b, env.loc, sA, sB);
}

void GemmCode::promotePacked(TileScales &scales,
                             const std::function<Value(int64_t)> &partial,
                             const std::function<Value(int64_t)> &total,
                             const std::function<void(int64_t, Value)> &update,
                             int64_t chunk) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  int64_t first = chunk * plan.mmaRegs();
  // Every code of the thread's words in [64, 191] (the top two bits of
  // each byte differ): then each product of an A and a B code is
  // 2^(cA + cB - 254) with cA + cB in [128, 382], whose FP32 bits are
  // (cA + cB - 127) << 23 (382: 0x7F800000, the +inf that the FP32
  // product rounds to), the decodes' product bit for bit.
  Value ok;
  for (auto *map : {&scales.a, &scales.b})
    for (auto &[key, word] : *map) {
      Value mixed = arith::AndIOp::create(
          b, loc,
          arith::XOrIOp::create(b, loc, word,
                                arith::ShLIOp::create(b, loc, word, c(1))),
          c(0x80808080));
      Value all = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mixed,
                                        c(0x80808080));
      ok = ok ? arith::AndIOp::create(b, loc, ok, all).getResult() : all;
    }
  Value shift =
      arith::IndexCastUIOp::create(b, loc, i32, env.mul(scales.byte, i(8)));
  // A code's exponent field: ((word >> 8 byte) & 0xFF) << 23.
  auto field = [&](Value word) {
    return arith::ShLIOp::create(
        b, loc,
        arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, word, shift), c(0xFF)),
        c(23));
  };
  SmallVector<Type> types(plan.mmaRegs(), f32);
  auto ifOp = scf::IfOp::create(b, loc, types, ok, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    std::map<int64_t, Value> fieldsA, fieldsB;
    for (auto &[key, word] : scales.a)
      fieldsA[key] = arith::SubIOp::create(b, loc, field(word), c(127 << 23));
    for (auto &[key, word] : scales.b)
      fieldsB[key] = field(word);
    SmallVector<Value> results;
    for (int64_t r = first; r < first + plan.mmaRegs(); ++r) {
      Value bits =
          arith::AddIOp::create(b, loc, fieldsA[TileScales::keyA(plan, r)],
                                fieldsB[TileScales::keyB(plan, r)]);
      Value scale = arith::BitcastOp::create(b, loc, f32, bits);
      results.push_back(
          math::FmaOp::create(b, loc, scale, partial(r - first), total(r)));
    }
    scf::YieldOp::create(b, loc, results);
    // Otherwise each code decoded (emitE8M0ToF32: 0 is 2^-127, 255 NaN).
    b.setInsertionPointToStart(ifOp.elseBlock());
    results.clear();
    for (int64_t r = first; r < first + plan.mmaRegs(); ++r) {
      auto decode = [&](Value word) {
        Value code = arith::TruncIOp::create(
            b, loc, b.getI8Type(), arith::ShRUIOp::create(b, loc, word, shift));
        return emitE8M0ToF32(b, loc, code);
      };
      Value scale = arith::MulFOp::create(
          b, loc, decode(scales.a[TileScales::keyA(plan, r)]),
          decode(scales.b[TileScales::keyB(plan, r)]));
      results.push_back(
          math::FmaOp::create(b, loc, scale, partial(r - first), total(r)));
    }
    scf::YieldOp::create(b, loc, results);
  }
  for (int64_t r = first; r < first + plan.mmaRegs(); ++r)
    update(r, ifOp.getResult(r - first));
}

void GemmCode::promote(TileScales &scales,
                       const std::function<Value(int64_t)> &partial,
                       const std::function<Value(int64_t)> &total,
                       const std::function<void(int64_t, Value)> &update,
                       int64_t chunk) {
  int64_t first = chunk * plan.mmaRegs();
  // (Stream-K kernels, whose segment bookkeeping holds registers, keep
  // the decodes: the second path spills 8 bytes there.)
  if (scales.byte && plan.packedScales() && !plan.streamK) {
    promotePacked(scales, partial, total, update, chunk);
    return;
  }
  for (int64_t r = first; r < first + plan.mmaRegs(); ++r) {
    Value part = partial(r - first);
    if (scales.a.empty()) { // per-tensor FP8
      update(r, arith::AddFOp::create(env.b, env.loc, total(r), part));
      continue;
    }
    int64_t ka = TileScales::keyA(plan, r);
    Value sA = scales.a[ka];
    // sA * sB of B's key `kb` (multiplyScales' product if computed).
    auto product = [&](int64_t kb) -> Value {
      auto it = scales.products.find({ka, kb});
      if (it != scales.products.end())
        return it->second;
      return arith::MulFOp::create(env.b, env.loc, sA, scales.b[kb]);
    };
    Value scale;
    if (scales.byte) {
      // Byte `byte` of each word, decoded as blockScale decodes it.
      Type i32 = env.b.getI32Type();
      Value shift = arith::IndexCastUIOp::create(env.b, env.loc, i32,
                                                 env.mul(scales.byte, i(8)));
      auto decode = [&](Value word) {
        Value code = arith::TruncIOp::create(
            env.b, env.loc, env.b.getI8Type(),
            arith::ShRUIOp::create(env.b, env.loc, word, shift));
        return emitE8M0ToF32(env.b, env.loc, code);
      };
      Value sB = scales.b[TileScales::keyB(plan, r)];
      scale = arith::MulFOp::create(
          env.b, env.loc, plan.packedScales(plan.a) ? decode(sA) : sA,
          plan.packedScales(plan.b) ? decode(sB) : sB);
    } else if (scales.hiFrom) {
      // The same product as below, of the block of r's 8-column group.
      Value hi = env.lt(scales.hiFrom, i(8 * (r >> 2) + 1));
      scale =
          arith::SelectOp::create(env.b, env.loc, hi, product(1), product(0));
    } else {
      scale = product(TileScales::keyB(plan, r));
    }
    // total + (sA sB) P in one rounding (fma.rn.f32, DeepGEMM's FFMA
    // promotion): half the instructions of a multiply and an add per
    // accumulator register, within the FP32 bound (docs/Numerics.md).
    update(r, math::FmaOp::create(env.b, env.loc, scale, part, total(r)));
  }
}

/// The 128-byte swizzle of a shared-memory byte address: the 16-byte chunk
/// index (bits 4-6) XOR the row within 8 rows of 128 bytes (bits 7-9).
Value gemm::swizzle(GemmCode &code, Value address) {
  Value row = code.band(code.shr(address, 7), 7);
  return arith::XOrIOp::create(code.env.b, code.env.loc, address,
                               code.shl(row, 4));
}
