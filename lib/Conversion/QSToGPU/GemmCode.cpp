//===- GemmCode.cpp - GEMM kernels: shared index code ---------------------===//

#include "GemmCode.h"
#include "GemmPtx.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
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

std::pair<Value, Value> GemmCode::tileOf(Value tile) {
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

void GemmCode::forEachTile(
    Value block, const std::function<void(Value, Value, Value)> &body) {
  if (plan.persistent()) {
    forEachTile(block, body, i(0), 1);
    return;
  }
  Value tm, tn;
  std::tie(tm, tn) = tileOf(block);
  body(tm, tn, i(0));
}

void GemmCode::forEachTile(Value block,
                           const std::function<void(Value, Value, Value)> &body,
                           Value phase, int64_t period) {
  Value first = env.add(block, env.mul(phase, i(plan.blocks())));
  auto loop = scf::ForOp::create(env.b, env.loc, first, i(plan.tiles()),
                                 i(period * plan.blocks()));
  OpBuilder::InsertionGuard guard(env.b);
  env.b.setInsertionPointToStart(loop.getBody());
  Value tile = loop.getInductionVar();
  Value iteration = env.div(arith::SubIOp::create(env.b, env.loc, tile, block),
                            i(plan.blocks()));
  Value tm, tn;
  std::tie(tm, tn) = tileOf(tile);
  body(tm, tn, env.mul(iteration, i(plan.kTiles())));
}

Value GemmCode::pairTile(Value block, Value tileStart, int64_t rank) {
  Value first = env.add(
      arith::SubIOp::create(env.b, env.loc, block, env.rem(block, i(2))),
      i(rank));
  if (!plan.persistent())
    return first;
  Value iteration = env.div(tileStart, i(plan.kTiles()));
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

void GemmCode::promote(TileScales &scales,
                       const std::function<Value(int64_t)> &partial,
                       const std::function<Value(int64_t)> &total,
                       const std::function<void(int64_t, Value)> &update,
                       int64_t chunk) {
  int64_t first = chunk * plan.mmaRegs();
  for (int64_t r = first; r < first + plan.mmaRegs(); ++r) {
    Value part = partial(r - first);
    if (scales.a.empty()) { // per-tensor FP8
      update(r, arith::AddFOp::create(env.b, env.loc, total(r), part));
      continue;
    }
    Value sA = scales.a[TileScales::keyA(plan, r)];
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
      scale = arith::SelectOp::create(
          env.b, env.loc, hi,
          arith::MulFOp::create(env.b, env.loc, sA, scales.b[1]),
          arith::MulFOp::create(env.b, env.loc, sA, scales.b[0]));
    } else {
      scale = arith::MulFOp::create(env.b, env.loc, sA,
                                    scales.b[TileScales::keyB(plan, r)]);
    }
    Value term = arith::MulFOp::create(env.b, env.loc, scale, part);
    update(r, arith::AddFOp::create(env.b, env.loc, total(r), term));
  }
}

Value GemmCode::prmt(Value a, Value b, Value selector) {
  if (!env.gpu)
    return emulatePrmt(env, a, b, selector);
  return NVVM::PermuteOp::create(
      env.b, env.loc, env.b.getI32Type(), a, b, selector,
      NVVM::PermuteModeAttr::get(env.b.getContext(),
                                 NVVM::PermuteMode::DEFAULT));
}

Value GemmCode::prmt(Value a, Value b, uint32_t selector) {
  assert((selector & 0x8888) == 0 && "prmt sign replication is not emulated");
  return prmt(a, b,
              arith::ConstantIntOp::create(env.b, env.loc, env.b.getI32Type(),
                                           selector));
}

Value GemmCode::e4m3SplatF16x2(Value code) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  if (env.gpu) {
    Value pair = arith::MulIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i16, code),
        arith::ConstantIntOp::create(b, loc, i16, 0x0101));
    return Ptx{b, loc}(i32, {pair}, "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h");
  }
  Value h = env.fromF32(
      emitDecodeToF32(b, loc, code, SmallFloatFormat::e4m3()), b.getF16Type());
  Value bits = arith::ExtUIOp::create(
      b, loc, i32, arith::BitcastOp::create(b, loc, i16, h));
  return arith::MulIOp::create(
      b, loc, bits, arith::ConstantIntOp::create(b, loc, i32, 0x10001));
}

Value GemmCode::mulF16x2(Value x, Value y) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type i16 = b.getI16Type(), i32 = b.getI32Type(), f16 = b.getF16Type();
  if (env.gpu)
    return Ptx{b, loc}(i32, {x, y}, "mul.rn.f16x2 $0, $1, $2;", "=r,r,r");
  // The exact f32 product of two f16 values, rounded to f16 (RNE).
  auto half = [&](Value v, int64_t k) {
    Value bits = arith::TruncIOp::create(
        b, loc, i16,
        arith::ShRUIOp::create(
            b, loc, v, arith::ConstantIntOp::create(b, loc, i32, 16 * k)));
    return env.toF32(arith::BitcastOp::create(b, loc, f16, bits));
  };
  Value result;
  for (int64_t k = 0; k < 2; ++k) {
    Value product = env.fromF32(
        arith::MulFOp::create(b, loc, half(x, k), half(y, k)), f16);
    Value bits = arith::ShLIOp::create(
        b, loc,
        arith::ExtUIOp::create(b, loc, i32,
                               arith::BitcastOp::create(b, loc, i16, product)),
        arith::ConstantIntOp::create(b, loc, i32, 16 * k));
    result = result ? arith::OrIOp::create(b, loc, result, bits).getResult()
                    : bits;
  }
  return result;
}

SmallVector<Value> GemmCode::fp4ScaleCodes(Value tm, Value tn, Value consumer,
                                           Value t, Value kt, Value scalesA,
                                           Value scalesB) {
  Value rowInHalf = env.add(env.mul(consumer, i(64)), shr(t, 1));
  Value kb0 = env.add(env.mul(kt, i(8)), env.mul(band(t, 1), i(4)));
  SmallVector<Value> codes;
  for (auto [op, scales, firstRow] :
       {std::tuple<const OperandPlan &, Value, Value>{plan.a, scalesA,
                                                      env.mul(tm, i(kTileM))},
        {plan.b, scalesB, env.mul(tn, i(plan.tileN))}})
    for (int64_t q = 0; q < 4; ++q)
      codes.push_back(blockScaleCode(op, scales, env.add(firstRow, rowInHalf),
                                     env.add(kb0, i(q))));
  return codes;
}

void GemmCode::convertFp4(
    Value consumer, Value t, Value kt, Value s, ArrayRef<Value> codes,
    const std::function<SmallVector<Value>(Value)> &load16,
    const std::function<void(Value, ArrayRef<Value>)> &store16) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type i32 = b.getI32Type();
  auto c32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  auto shift = [&](Value v, int64_t right) -> Value {
    return right ? arith::ShRUIOp::create(b, loc, v, c32(right)).getResult()
                 : v;
  };
  auto andI = [&](Value v, int64_t mask) {
    return arith::AndIOp::create(b, loc, v, c32(mask)).getResult();
  };
  auto orI = [&](Value x, Value y) {
    return arith::OrIOp::create(b, loc, x, y).getResult();
  };
  auto mulI = [&](Value v, int64_t factor) {
    return arith::MulIOp::create(b, loc, v, c32(factor)).getResult();
  };
  // The f16 high bytes of the E2M1 magnitudes 0, 0.5, 1, 1.5 (bytes 0-3)
  // and 2, 3, 4, 6 (bytes 4-7); every low byte is zero.
  Value tableLo = c32(0x3E3C3800), tableHi = c32(0x46444240);
  Value rowInHalf = env.add(env.mul(consumer, i(64)), shr(t, 1));
  Value half = band(t, 1);
  auto convert = [&](ArrayRef<Value> blockCodes, Value packed, Value tile,
                     int64_t tileRows) {
    Value src = env.add(env.add(packed, env.mul(rowInHalf, i(kTileK / 2))),
                        env.mul(half, i(32)));
    SmallVector<Value> words = load16(src);
    SmallVector<Value> more = load16(env.add(src, i(16)));
    words.append(more.begin(), more.end());
    SmallVector<Value> scale;
    for (Value code : blockCodes)
      scale.push_back(e4m3SplatF16x2(code));
    for (int64_t g = 0; g < 8; ++g) {
      // Packed word g: elements 8g .. 8g + 7, in block g / 2.
      SmallVector<Value> out;
      for (int64_t w = 0; w < 4; ++w) {
        // Byte w: elements 8g + 2w (low nibble c0) and 8g + 2w + 1 (c1).
        // Selector nibbles 1 and 3 pick their high bytes (c0 at bits 4-6,
        // c1 at bits 12-14: the magnitudes times 0x110, whose sums at bits
        // 8-11 stay below bit 12); nibbles 0 and 2 pick byte 0 (zero), the
        // low bytes. The sign bits 3 and 7 go to bits 15 and 31 (times
        // 2^12 + 2^24).
        Value byte = andI(shift(words[g], 8 * w), 0xFF);
        Value selector = andI(mulI(andI(byte, 0x77), 0x110), 0x7070);
        Value sign = andI(mulI(andI(byte, 0x88), 0x1001000),
                          static_cast<int32_t>(0x80008000u));
        Value value = orI(prmt(tableLo, tableHi, selector), sign);
        out.push_back(mulF16x2(value, scale[g / 2]));
      }
      store16(convertedAt(tile, tileRows, half, rowInHalf, i(8 * g)), out);
    }
  };
  Value buffer = band(kt, 1);
  convert(codes.take_front(4), stageA(s), convertedA(buffer), kTileM);
  convert(codes.drop_front(4), stageB(s), convertedB(buffer), plan.tileN);
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

void GemmCode::epilogueAt(
    ValueRange args, int64_t count, int64_t vec,
    const std::function<std::pair<Value, Value>(int64_t)> &position,
    const std::function<Value(int64_t)> &acc) {
  while (plan.n % vec != 0)
    vec /= 2;
  // args: sa, sb, [amaxA, amaxB (NVFP4)], [bias], [c], d
  Value alpha;
  unsigned next = 2;
  // NVFP4 factor amax / 2688 of a global amax, or of a row-scaled
  // operand's stored row (A: the output row, B: the output column).
  auto factor = [&](Value amax, Value index) -> Value {
    return arith::MulFOp::create(
        env.b, env.loc, memref::LoadOp::create(env.b, env.loc, amax, index),
        env.f32(1.0f / 2688.0f));
  };
  if (plan.fp4()) {
    // The reference's order: v * (gA gB), then * (rA[row] rB[col]).
    Value gA = plan.a.rowScaled ? Value() : factor(args[2], i(0));
    Value gB = plan.b.rowScaled ? Value() : factor(args[3], i(0));
    alpha = gA && gB ? arith::MulFOp::create(env.b, env.loc, gA, gB).getResult()
                     : (gA ? gA : gB);
    next = 4;
  } else if (!plan.blockScaled()) {
    alpha = arith::MulFOp::create(
        env.b, env.loc, memref::LoadOp::create(env.b, env.loc, args[0], i(0)),
        memref::LoadOp::create(env.b, env.loc, args[1], i(0)));
  }
  Value bias = plan.bias ? args[next++] : Value();
  Value c = plan.accumulate ? args[next++] : Value();
  Value d = args[next];
  bool rowScaled = plan.fp4() && (plan.a.rowScaled || plan.b.rowScaled);
  // Reads first, then stores, kEpilogueBatch values at a time. As far as
  // LLVM and ptxas know D may alias bias and C (and the amaxes), so a load
  // issued after a store stays after it: reading each group's bias / C
  // between the stores (as this code did until 2026-11-30; the SASS of the
  // 128x256 fprop with bias was LDG, LDG, FMUL, FADD, STG per group) waits
  // out the load latency once per group, 64 times per thread. The batch's
  // loads read clamped (in-range) positions unconditionally; only the
  // stores are guarded.
  constexpr int64_t kEpilogueBatch = 16;
  int64_t batch = std::max<int64_t>(kEpilogueBatch / vec, 1);
  for (int64_t g0 = 0; g0 < count / vec; g0 += batch) {
    struct Group {
      Value row, first;
      SmallVector<Value> bias, c, rows;
    };
    SmallVector<Group> groups;
    for (int64_t g = g0; g < std::min(g0 + batch, count / vec); ++g) {
      Group group;
      std::tie(group.row, group.first) = position(g * vec);
      Value row = minI(group.row, i(plan.m - 1));
      for (int64_t e = 0; e < vec; ++e) {
        Value col = minI(env.add(group.first, i(e)), i(plan.n - 1));
        if (rowScaled) {
          Value rows = plan.a.rowScaled ? factor(args[2], row) : env.f32(1.0f);
          if (plan.b.rowScaled)
            rows = arith::MulFOp::create(env.b, env.loc, rows,
                                         factor(args[3], col));
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
      // N % vec == 0 and first % vec == 0: the group is inside or outside.
      Value inside = env.land(env.lt(group.row, i(plan.m)),
                              env.lt(group.first, i(plan.n)));
      int64_t g = g0 + (&group - groups.begin());
      env.ifThen(inside, [&] {
        SmallVector<Value> outs;
        for (int64_t e = 0; e < vec; ++e) {
          Value v = acc(g * vec + e);
          Value out =
              alpha
                  ? arith::MulFOp::create(env.b, env.loc, v, alpha).getResult()
                  : v;
          if (rowScaled)
            out = arith::MulFOp::create(env.b, env.loc, out, group.rows[e]);
          if (bias)
            out = arith::AddFOp::create(env.b, env.loc, out,
                                        env.toF32(group.bias[e]));
          if (c)
            out = arith::AddFOp::create(env.b, env.loc, out,
                                        env.toF32(group.c[e]));
          // The GPU converts with cvt.rn (same RNE result as the emulation).
          if (env.gpu && plan.outType != out.getType())
            out = arith::TruncFOp::create(env.b, env.loc, plan.outType, out);
          else
            out = env.fromF32(out, plan.outType);
          outs.push_back(out);
        }
        Value at = env.add(env.mul(group.row, i(plan.n)), group.first);
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
  }
}

/// The 128-byte swizzle of a shared-memory byte address: the 16-byte chunk
/// index (bits 4-6) XOR the row within 8 rows of 128 bytes (bits 7-9).
Value gemm::swizzle(GemmCode &code, Value address) {
  Value row = code.band(code.shr(address, 7), 7);
  return arith::XOrIOp::create(code.env.b, code.env.loc, address,
                               code.shl(row, 4));
}

//===----------------------------------------------------------------------===//
// tcgen05 (sm_100a)
//===----------------------------------------------------------------------===//

uint32_t Tcgen05Instr::encode() const {
  uint32_t common = (typeA & 7) << 7 | (typeB & 7) << 10 |
                    uint32_t(mnMajorA) << 15 | uint32_t(mnMajorB) << 16 |
                    uint32_t(n >> 3) << 17;
  if (!blockScaled)
    return common | (dType & 3) << 4 | uint32_t(m >> 4) << 24;
  assert(m % 128 == 0 && "block-scaled tcgen05.mma has M = 128 or 256");
  return common | (sfIdB & 3) << 4 | uint32_t(scaleE8M0) << 23 |
         uint32_t(m >> 7) << 27 | (sfIdA & 3) << 29;
}

Tcgen05Instr Tcgen05Instr::decode(uint32_t bits, bool blockScaled) {
  Tcgen05Instr d;
  d.blockScaled = blockScaled;
  if (!blockScaled) {
    d.scaleE8M0 = false;
    d.dType = (bits >> 4) & 3;
  } else {
    d.sfIdB = (bits >> 4) & 3;
    d.scaleE8M0 = (bits >> 23) & 1;
    d.sfIdA = (bits >> 29) & 3;
  }
  d.typeA = (bits >> 7) & 7;
  d.typeB = (bits >> 10) & 7;
  d.mnMajorA = (bits >> 15) & 1;
  d.mnMajorB = (bits >> 16) & 1;
  d.n = int64_t((bits >> 17) & 0x3F) << 3;
  d.m = blockScaled ? int64_t((bits >> 27) & 3) << 7
                    : int64_t((bits >> 24) & 0x1F) << 4;
  return d;
}

void GemmCode::tmemEpilogue(
    ValueRange args, Value tm, Value tn, Value tmemLane,
    const std::function<std::function<Value(int64_t)>(int64_t)> &load) {
  Value row = env.add(env.mul(tm, i(kTileM)), tmemLane);
  for (int64_t chunk = 0; chunk < plan.tileN / 32; ++chunk) {
    std::function<Value(int64_t)> bits = load(chunk);
    Value colBase = env.add(env.mul(tn, i(plan.tileN)), i(32 * chunk));
    // 16 bytes of the row per store.
    int64_t outBytes = plan.outType.getIntOrFloatBitWidth() / 8;
    epilogueAt(
        args, 32, 16 / outBytes,
        [&](int64_t r) { return std::make_pair(row, env.add(colBase, i(r))); },
        [&](int64_t r) {
          return arith::BitcastOp::create(env.b, env.loc, env.b.getF32Type(),
                                          bits(r))
              .getResult();
        });
  }
}

Value GemmCode::stageSf(Value s, int64_t op, int64_t c) {
  return env.add(stageA(s),
                 i(plan.tileBytes() + (op * plan.sfChunks() + c) * 512));
}

namespace {
/// start >> 4 | stride >> 4 << 32 | version 1 << 46 | layout << 61, plus
/// the leading byte offset field.
Value sm100Descriptor(GemmCode &code, Value address, int64_t leading,
                      int64_t stride, int64_t layout) {
  KernelEnv &env = code.env;
  Value start = code.band(code.shr(address, 4), 0x3FFF);
  Value desc = arith::IndexCastUIOp::create(
      env.b, env.loc, env.b.getI64Type(),
      env.add(start, env.add(code.i(leading << 16),
                             code.shl(code.i(stride >> 4), 32))));
  uint64_t high = uint64_t(1) << 46 | uint64_t(layout) << 61;
  return arith::OrIOp::create(
      env.b, env.loc, desc,
      arith::ConstantIntOp::create(env.b, env.loc, env.b.getI64Type(),
                                   static_cast<int64_t>(high)));
}
} // namespace

Value GemmCode::ummaDescriptor(Value address, const OperandPlan &op) {
  return sm100Descriptor(*this, address,
                         op.mnMajor ? plan.mnAtomBytes() >> 4 : 1, 1024, 2);
}

Value GemmCode::mmaStep(const OperandPlan &op, Value desc, int64_t j) {
  int64_t bytes = op.mnMajor ? 32 * 128 : 32;
  return arith::AddIOp::create(
      env.b, env.loc, desc,
      arith::ConstantIntOp::create(env.b, env.loc, env.b.getI64Type(),
                                   (bytes >> 4) * j));
}

Value GemmCode::sfDescriptor(Value address) {
  return sm100Descriptor(*this, address, 0, 128, 0);
}

Value GemmCode::sfColumn(Value slot, int64_t op, int64_t c) {
  int64_t chunks = plan.sfChunks();
  return env.add(env.mul(slot, i(8 * chunks)),
                 i(plan.tileN + 4 * (op * chunks + c)));
}

Tcgen05Instr GemmCode::instr(int64_t j) const {
  Tcgen05Instr d;
  d.m = kTileM;
  d.n = plan.tileN;
  d.mnMajorA = plan.a.mnMajor;
  d.mnMajorB = plan.b.mnMajor;
  if (plan.sfChunks() == 0) {
    d.blockScaled = false;
    d.typeA = plan.typeA == "e5m2" ? 1 : 0;
    d.typeB = plan.typeB == "e5m2" ? 1 : 0;
    d.scaleE8M0 = false;
  } else if (plan.fp4()) {
    d.typeA = d.typeB = 1; // E2M1 (packed, kind::mxf4nvf4)
    d.scaleE8M0 = false;   // UE4M3
  } else {
    d.typeA = plan.typeA == "e5m2" ? 1 : 0;
    d.typeB = plan.typeB == "e5m2" ? 1 : 0;
    d.scaleE8M0 = true;
    d.sfIdA = d.sfIdB = j;
  }
  return d;
}

void GemmCode::gatherScales(
    Value tm, Value tn, Value lane, Value kt, Value s, Value scalesA,
    Value scalesB, const std::function<Value(Value, Value)> &loadWord,
    const std::function<Value(Value, Value)> &loadByte,
    const std::function<void(Value, ArrayRef<Value>)> &store16) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  int64_t blocks = ceilDiv(plan.k, plan.sfBlockK());
  int64_t chunks = plan.sfChunks();
  // 1.0 in each byte: E8M0 127, E4M3 0x38.
  int64_t ones = plan.fp4() ? 0x38383838 : 0x7F7F7F7F;
  for (int64_t op = 0; op < 2; ++op) {
    const OperandPlan &p = op ? plan.b : plan.a;
    Value scales = op ? scalesB : scalesA;
    Value rowBase = op ? env.mul(tn, i(plan.tileN)) : env.mul(tm, i(kTileM));
    for (int64_t c = 0; c < chunks; ++c) {
      Value first = env.mul(env.add(env.mul(kt, i(chunks)), i(c)), i(4));
      // Real blocks in this word: clamp(blocks - first, 0, 4); the word
      // read is the last real one when none is.
      Value real = arith::SelectOp::create(
          b, loc, env.lt(first, i(blocks)),
          minI(arith::SubIOp::create(b, loc, i(blocks), first), i(4)), i(0));
      Value at0 = minI(first, i((blocks - 1) / 4 * 4));
      Value keep64 = arith::SubIOp::create(
          b, loc,
          arith::ShLIOp::create(
              b, loc, arith::ConstantIntOp::create(b, loc, i64, 1),
              arith::IndexCastUIOp::create(b, loc, i64,
                                           env.mul(real, i(8)))),
          arith::ConstantIntOp::create(b, loc, i64, 1));
      Value keep = arith::TruncIOp::create(b, loc, i32, keep64);
      Value fill = arith::AndIOp::create(
          b, loc, arith::ConstantIntOp::create(b, loc, i32, ones),
          arith::XOrIOp::create(
              b, loc, keep, arith::ConstantIntOp::create(b, loc, i32, -1)));
      SmallVector<Value> words;
      for (int64_t g = 0; g < 4; ++g) {
        Value row = minI(env.add(rowBase, env.add(lane, i(32 * g))),
                         i(p.rows - 1));
        Value word;
        if (p.blockDim <= 2) {
          // FP8 block: one FP32 scale per 128-block (the word's four
          // 32-blocks), its exponent byte in each of the word's bytes.
          Value bits = arith::BitcastOp::create(
              b, loc, i32, blockScale(p, scales, row, env.div(at0, i(4))));
          Value e = arith::AndIOp::create(
              b, loc,
              arith::ShRUIOp::create(
                  b, loc, bits, arith::ConstantIntOp::create(b, loc, i32, 23)),
              arith::ConstantIntOp::create(b, loc, i32, 0xFF));
          word = arith::MulIOp::create(
              b, loc, e, arith::ConstantIntOp::create(b, loc, i32, 0x01010101));
        } else if (p.mnMajor && !p.swizzled) {
          // Column-wise compact: G[row, kb] at kb * scaleLd + row.
          for (int64_t q = 0; q < 4; ++q) {
            Value kb = minI(env.add(at0, i(q)), i(blocks - 1));
            Value byte = loadByte(scales, env.add(env.mul(kb, i(p.scaleLd)), row));
            byte = arith::ShLIOp::create(
                b, loc, byte, arith::ConstantIntOp::create(b, loc, i32, 8 * q));
            word = word ? arith::OrIOp::create(b, loc, word, byte).getResult()
                        : byte;
          }
        } else {
          Value at = p.swizzled ? swizzledScale(row, at0, p.scaleLd)
                                : env.add(env.mul(row, i(p.scaleLd)), at0);
          word = loadWord(scales, at);
        }
        words.push_back(arith::OrIOp::create(
            b, loc, arith::AndIOp::create(b, loc, word, keep), fill));
      }
      store16(env.add(stageSf(s, op, c), env.mul(lane, i(16))), words);
    }
  }
}
