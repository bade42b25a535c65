//===- QuantizePhases.cpp - phases of the quantize kernels ----------------===//
//
// The pieces the quantize kernels are made of: the tile load into shared
// memory, each scale family's block scale (E8M0, FP32 block, NVFP4's two
// levels, per-tensor), the FP8/FP4 encodings (hardware conversions where
// the chip has them, else the exact software path), and the row-wise and
// 2-D amax phases over a tile; the column-wise phases are in
// QuantizeColumnPhases.cpp.
//
//===----------------------------------------------------------------------===//

#include "../QSToLinalg/ReferenceBuilders.h"
#include "QuantizePlan.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
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

//===----------------------------------------------------------------------===//
// Kernel pieces
//===----------------------------------------------------------------------===//

Value quant::load1(KernelEnv &env, Value buf, Value i) {
  return memref::LoadOp::create(env.b, env.loc, buf, ValueRange{i});
}
void quant::store1(KernelEnv &env, Value v, Value buf, Value i) {
  Type elt = cast<MemRefType>(buf.getType()).getElementType();
  if (v.getType() != elt)
    v = arith::BitcastOp::create(env.b, env.loc, elt, v);
  memref::StoreOp::create(env.b, env.loc, v, buf, ValueRange{i});
}

/// The `width`-bit values (16 or 32) whose bytes `bytes` are, group by
/// group, when each group of width / 8 is {trunc(w), trunc(w >> 8), ...} of
/// one w: KernelEnv::encodeFp8Pair's 16-bit pairs (hardware conversion),
/// KernelEnv::encodeE2M1Bytes's words; empty otherwise.
static SmallVector<Value> byteGroups(ArrayRef<Value> bytes, unsigned width) {
  SmallVector<Value> groups;
  size_t n = width / 8;
  auto source = [&](Value v, uint64_t &shift) -> Value {
    auto t = v.getDefiningOp<arith::TruncIOp>();
    if (!t || !t.getIn().getType().isInteger(width))
      return Value();
    shift = 0;
    auto shr = t.getIn().getDefiningOp<arith::ShRUIOp>();
    APInt amount;
    if (shr && matchPattern(shr.getRhs(), m_ConstantInt(&amount))) {
      shift = amount.getZExtValue();
      return shr.getLhs();
    }
    return t.getIn();
  };
  if (bytes.size() % n)
    return {};
  for (size_t j = 0; j < bytes.size(); j += n) {
    uint64_t shift = 0;
    Value whole = source(bytes[j], shift);
    if (!whole || shift != 0)
      return {};
    for (size_t k = 1; k < n; ++k) {
      Value part = source(bytes[j + k], shift);
      if (part != whole || shift != 8 * k)
        return {};
    }
    groups.push_back(whole);
  }
  return groups;
}

void quant::storeBytes(KernelEnv &env, ArrayRef<Value> bytes, Value buf,
                       Value i, bool aligned, std::optional<int64_t> limit) {
  OpBuilder &b = env.b;
  Type elt = cast<MemRefType>(buf.getType()).getElementType();
  int64_t n = bytes.size();
  if (aligned && !limit) {
    // Packed conversions' 16-bit pairs stay whole (no byte shuffling to
    // split and rejoin them: ~14 fewer PRMTs per 16 codes).
    Value v;
    for (unsigned width : {32u, 16u}) {
      SmallVector<Value> groups = byteGroups(bytes, width);
      if (groups.empty())
        continue;
      int64_t count = static_cast<int64_t>(groups.size());
      v = vector::BitCastOp::create(
          b, env.loc, VectorType::get({n}, b.getI8Type()),
          vector::FromElementsOp::create(
              b, env.loc, VectorType::get({count}, b.getIntegerType(width)),
              groups));
      break;
    }
    if (!v)
      v = vector::FromElementsOp::create(
          b, env.loc, VectorType::get({n}, b.getI8Type()), bytes);
    unsigned width = elt.getIntOrFloatBitWidth();
    if (width > 8)
      v = vector::BitCastOp::create(b, env.loc,
                                    VectorType::get({n * 8 / width}, elt), v);
    else if (!elt.isInteger(8))
      v = arith::BitcastOp::create(b, env.loc, VectorType::get({n}, elt), v);
    vector::StoreOp::create(b, env.loc, v, buf, ValueRange{i},
                            /*nontemporal=*/false, llvm::MaybeAlign(n));
    return;
  }
  assert(elt.getIntOrFloatBitWidth() == 8 && "byte stores into bytes");
  for (int64_t t = 0; t < n; ++t) {
    Value at = env.add(i, env.idx(t));
    if (limit)
      env.ifThen(env.lt(at, env.idx(*limit)),
                 [&] { store1(env, bytes[t], buf, at); });
    else
      store1(env, bytes[t], buf, at);
  }
}

SmallVector<Value> quant::encode(KernelEnv &env, const Rep &r,
                                 ArrayRef<Value> values,
                                 ArrayRef<Value> words) {
  SmallVector<Value> bytes;
  OpBuilder &b = env.b;
  Type i8 = b.getI8Type();
  // Software E2M1 codes, 8 at a time into a word: RNE
  // (KernelEnv::encodeE2M1Bytes: the codes of emitEncodeF32, the reference
  // lowering's, in fewer instructions), stochastic with their words
  // (encodeE2M1StochasticBytes: emitE2M1Stochastic's codes).
  if (r.fp4 && !words.empty())
    return env.encodeE2M1StochasticBytes(values, words);
  if (r.fp4 && !(env.gpu && env.hardwareMx))
    return env.encodeE2M1Bytes(values);
  for (size_t t = 0; t + 1 < values.size(); t += 2) {
    if (r.fp4) {
      // cvt.rn.satfinite.e2m1x2.f32 d, a, b: a in the upper nibble. TE's
      // conversion on Blackwell (te-formats.md e2m1_rn_sat); the software
      // path above gives the same codes for every finite input.
      bytes.push_back(NVVM::ConvertF32x2ToF4x2Op::create(
          b, env.loc, i8, values[t + 1], values[t], /*relu=*/false,
          b.getType<Float4E2M1FNType>()));
      continue;
    }
    auto [lo, hi] =
        env.encodeFp8Pair(values[t], values[t + 1], r.format, r.fp8Type);
    bytes.push_back(lo);
    bytes.push_back(hi);
  }
  return bytes;
}

std::pair<Value, Value> quant::rngState(KernelEnv &env, const Plan &p) {
  if (p.rngArg < 0)
    return {};
  Value rng = env.args[p.rngArg];
  return {load1(env, rng, env.idx(0)), load1(env, rng, env.idx(1))};
}

SmallVector<Value> quant::randomWords(KernelEnv &env, const Rep &r,
                                      std::pair<Value, Value> state, Value zRow,
                                      Value first, int64_t zCols) {
  auto [seed, offset] = state;
  Value group =
      env.div(env.add(env.mul(zRow, env.idx(zCols)), first), env.idx(16));
  std::array<Value, 4> w = emitStochasticBits(env.b, env.loc, seed, offset,
                                              group, r.columnwise ? 1 : 0);
  return SmallVector<Value>(w.begin(), w.end());
}

/// The per-tensor scale (delayed: the operand; current: from the amax).
Value quant::perTensorScale(KernelEnv &env, const Plan &p) {
  Value zero = env.idx(0);
  if (p.delayed)
    return load1(env, env.args[p.scaleOperandArg], zero);
  Value amax = load1(env, env.args[p.amaxScratchArg], zero);
  return ref::computeScaleFromAmax(env.b, env.loc, amax, p.fp8Max, p.pow2,
                                   p.epsilon, FLT_MAX);
}

Value quant::repScale(KernelEnv &env, const Plan &p, const Rep &r,
                      Value perTensor) {
  if (r.kind == ScaleKind::PerTensor)
    return perTensor;
  if (r.kind == ScaleKind::NVFP4 && !r.rowScaled)
    return ref::nvfp4GlobalEncodeScale(
        env.b, env.loc, load1(env, env.args[r.amaxArg], env.idx(0)), r.e4m3Max);
  return Value();
}

Value quant::scaleBuffer(KernelEnv &env, const Rep &r) {
  return r.scaleArg >= 0 ? env.args[r.scaleArg] : Value();
}

Value quant::blockScale(KernelEnv &env, const Plan &p, const Rep &r, Value amax,
                        Value zRow, Value zBlock, Value repScale, Value scales,
                        Value storeWhen) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  // The store (and what only it needs) under `storeWhen`.
  auto store = [&](const std::function<Value()> &value) {
    if (!scales)
      return;
    auto body = [&] {
      store1(env, value(), scales, r.scaleIndex(env, zRow, zBlock));
    };
    if (storeWhen)
      env.ifThen(storeWhen, body);
    else
      body();
  };
  switch (r.kind) {
  case ScaleKind::PerTensor:
    return repScale;
  case ScaleKind::E8M0: {
    Value pScaled =
        arith::MulFOp::create(b, loc, amax, env.f32(1.0f / r.fp8Max));
    // TE's float_to_e8m0: cvt.rp.satfinite.ue8m0x2.f32 on Blackwell (low
    // byte: the second operand); elsewhere the integer path, which the
    // spec gives the same result for every input, specials included.
    Value e;
    if (env.gpu && env.hardwareMx) {
      MLIRContext *ctx = b.getContext();
      Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
          b, loc, b.getI16Type(), pScaled, pScaled,
          NVVM::FPRoundingModeAttr::get(ctx, NVVM::FPRoundingMode::RP),
          NVVM::SaturationModeAttr::get(ctx, NVVM::SaturationMode::SATFINITE),
          b.getBoolAttr(false), TypeAttr::get(b.getType<Float8E8M0FNUType>()));
      e = arith::TruncIOp::create(b, loc, b.getI8Type(), pair);
    } else {
      e = emitE8M0Ceil(b, loc, pScaled);
    }
    store([&] { return e; });
    return emitE8M0ReciprocalToF32(b, loc, e);
  }
  case ScaleKind::F32Block: {
    Value s = ref::computeScaleFromAmax(b, loc, amax, r.fp8Max, r.pow2,
                                        r.epsilon, r.valueForInf);
    store([&] {
      return arith::DivFOp::create(b, loc, env.f32(1.0f), s).getResult();
    });
    return s;
  }
  case ScaleKind::NVFP4: {
    // Row-scaled: the block's row's amax; else the global one, read once.
    Value sEnc = repScale ? repScale
                          : ref::nvfp4GlobalEncodeScale(
                                b, loc, load1(env, env.args[r.amaxArg], zRow),
                                r.e4m3Max);
    Value factor = arith::MulFOp::create(b, loc, sEnc, env.f32(1.0f / 6.0f));
    Value v = arith::MulFOp::create(b, loc, amax, factor);
    v = arith::MinNumFOp::create(b, loc, v, env.f32(FLT_MAX));
    Value sf, decoded;
    std::tie(sf, decoded) = env.roundTripE4M3(v);
    store([&] { return sf; });
    Value sDec = arith::DivFOp::create(b, loc, env.f32(1.0f), sEnc);
    Value prod = arith::MulFOp::create(b, loc, decoded, sDec);
    Value inv = arith::DivFOp::create(b, loc, env.f32(1.0f), prod);
    return arith::MinNumFOp::create(b, loc, inv, env.f32(FLT_MAX));
  }
  }
  llvm_unreachable("scale kind");
}

Value quant::producerBlockScale(KernelEnv &env, const Plan &p, const Rep &r,
                                Value amax, Value zRow, Value zBlock,
                                Value scales) {
  return blockScale(env, p, r, amax, zRow, zBlock, /*repScale=*/{}, scales);
}

SmallVector<Value> quant::scaleValues(KernelEnv &env, ArrayRef<Value> values,
                                      ArrayRef<Value> mults) {
  assert((mults.size() == 1 || mults.size() == values.size()) &&
         "one factor, or one per value");
  auto mult = [&](size_t i) { return mults.size() == 1 ? mults[0] : mults[i]; };
  SmallVector<Value> scaled;
  size_t i = 0;
  for (; i + 1 < values.size(); i += 2) {
    KernelEnv::F32Pair product =
        env.pairwise(KernelEnv::PairOp::Mul, {values[i], values[i + 1]},
                     {mult(i), mult(i + 1)});
    scaled.append(product.begin(), product.end());
  }
  for (; i < values.size(); ++i)
    scaled.push_back(arith::MulFOp::create(env.b, env.loc, values[i], mult(i)));
  return scaled;
}

SmallVector<Value> quant::encodeScaled(KernelEnv &env, const Rep &r,
                                       ArrayRef<Value> values, Value mult) {
  return encode(env, r, scaleValues(env, values, mult));
}

std::pair<Value, Value> quant::tileCoords(KernelEnv &env, const Tile &t) {
  Value tile = env.blockId;
  if (t.reversed)
    tile = arith::SubIOp::create(env.b, env.loc, env.idx(t.grid - 1), tile);
  return {env.div(tile, env.idx(t.tilesPerRow)),
          env.rem(tile, env.idx(t.tilesPerRow))};
}

int64_t quant::vectorWidth(int64_t k, int64_t elemBytes) {
  int64_t vec = 16 / elemBytes;
  while (vec > 1 && k % vec != 0)
    vec /= 2;
  return vec;
}

Tile quant::makeTile(const Plan &p, ArrayRef<const Rep *> reps) {
  Tile t;
  t.elemBytes = p.nominal.getIntOrFloatBitWidth() / 8;
  t.rows = 64;
  t.cols = 64;
  bool row = false, col = false;
  for (const Rep *r : reps) {
    if (r->columnwise) {
      col = true;
      t.rows = std::max(t.rows, r->block);
    } else {
      row = true;
      t.cols = std::max(t.cols, r->block);
    }
  }
  if (p.twoD) {
    t.rows = std::max<int64_t>(64, p.twoD);
    t.cols = std::max<int64_t>(64, p.twoD);
  }
  t.vec = vectorWidth(p.k, t.elemBytes);
  t.ld = t.cols + 16 / t.elemBytes;
  // A 2-D tile holds whole square blocks (128 x 128 f32 blocks: 66 KiB,
  // in dynamic shared memory).
  if (!p.twoD && t.rows * t.ld * t.elemBytes > 48 * 1024) {
    // Single-representation kernels only (see emitQuantize).
    if (!col)
      t.rows = 32;
    if (!row)
      t.cols = 32;
    t.ld = t.cols + 16 / t.elemBytes;
  }
  // FP8 1 x 128 blocks (row-wise, column-wise or both) of a 16-bit input
  // with a column-wise representation: the column-pair phase's layout
  // (at most 128 x 128 elements, 32 KiB: never narrowed above).
  t.swizzled = !p.twoD && col && t.elemBytes == 2 && !reps.empty() &&
               llvm::all_of(reps, [](const Rep *r) {
                 return r->kind == ScaleKind::F32Block && r->block == 128;
               });
  if (t.swizzled)
    t.ld = t.cols;
  t.tilesPerRow = ceilDiv(p.k, t.cols);
  t.grid = ceilDiv(p.m, t.rows) * t.tilesPerRow;
  return t;
}

Value quant::tileOffset(KernelEnv &env, const Tile &t, Value row, Value col) {
  Value rowStart = env.mul(row, env.idx(t.ld));
  if (!t.swizzled)
    return env.add(rowStart, col);
  // Chunks of 16 bytes (8 elements): chunk ^ ((row & 7) ^ ((row >> 4) & 6)).
  OpBuilder &b = env.b;
  auto andI = [&](Value v, int64_t m) {
    return arith::AndIOp::create(b, env.loc, v, env.idx(m)).getResult();
  };
  auto xorI = [&](Value x, Value y) {
    return arith::XOrIOp::create(b, env.loc, x, y).getResult();
  };
  Value f = xorI(andI(row, 7), andI(env.div(row, env.idx(16)), 6));
  Value chunk = xorI(env.div(col, env.idx(8)), f);
  return env.add(rowStart, env.add(env.mul(chunk, env.idx(8)), andI(col, 7)));
}

SmallVector<Value> quant::readRow(KernelEnv &env, const Tile &t, Value smem,
                                  Value offset, int64_t n, Type nominal) {
  SmallVector<Value> values;
  int64_t vec = std::min<int64_t>(t.vec, n);
  // Swizzled tiles: offset = row * ld + col, read chunk by chunk (a vector
  // never crosses a 16-byte chunk: vec divides 8).
  Value row, col;
  if (t.swizzled) {
    row = env.div(offset, env.idx(t.ld));
    col = env.rem(offset, env.idx(t.ld));
  }
  for (int64_t c = 0; c < n; c += vec) {
    Value at = t.swizzled ? tileOffset(env, t, row, env.add(col, env.idx(c)))
                          : env.add(offset, env.idx(c));
    if (vec == 1) {
      values.push_back(env.toF32(load1(env, smem, at)));
      continue;
    }
    Value v = vector::LoadOp::create(
        env.b, env.loc, VectorType::get({vec}, nominal), smem, ValueRange{at},
        false, llvm::MaybeAlign(vec * t.elemBytes));
    llvm::append_range(values, env.vectorToF32(v));
  }
  return values;
}

void quant::loadTilePhase(KernelEnv &env, const Plan &p, const Tile &t) {
  OpBuilder &b = env.b;
  Value x = env.args[p.xArg], smem = env.shared[0];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t perRow = t.cols / t.vec;
  VectorType vt = VectorType::get({t.vec}, p.nominal);
  if (p.delayed)
    store1(env, env.f32(0.0f), env.shared[t.slots], env.threadId);
  env.forEachUnit(t.rows * perRow, [&](Value u) {
    Value r = env.div(u, env.idx(perRow));
    Value cv = env.rem(u, env.idx(perRow));
    Value gr = env.add(env.mul(tileRow, env.idx(t.rows)), r);
    Value gc =
        env.add(env.mul(tileCol, env.idx(t.cols)), env.mul(cv, env.idx(t.vec)));
    Value inBounds =
        env.land(env.lt(gr, env.idx(p.m)), env.lt(gc, env.idx(p.k)));
    Value dst = tileOffset(env, t, r, env.mul(cv, env.idx(t.vec)));
    auto ifOp = scf::IfOp::create(b, env.loc, vt, inBounds, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value src = env.add(env.mul(gr, env.idx(p.k)), gc);
      Value v =
          vector::LoadOp::create(b, env.loc, vt, x, ValueRange{src}, false,
                                 llvm::MaybeAlign(t.vec * t.elemBytes));
      scf::YieldOp::create(b, env.loc, v);
      b.setInsertionPointToStart(ifOp.elseBlock());
      Value zero = arith::ConstantOp::create(
          b, env.loc, vt,
          DenseElementsAttr::get(vt, b.getFloatAttr(p.nominal, 0.0)));
      scf::YieldOp::create(b, env.loc, zero);
    }
    Value v = ifOp.getResult(0);
    vector::StoreOp::create(b, env.loc, v, smem, ValueRange{dst}, false,
                            llvm::MaybeAlign(t.vec * t.elemBytes));
    if (p.delayed) {
      Value slot = env.absMaxAll(load1(env, env.shared[t.slots], env.threadId),
                                 env.vectorToF32(v));
      store1(env, slot, env.shared[t.slots], env.threadId);
    }
  });
}

void quant::storeChunk(KernelEnv &env, ArrayRef<Value> bytes, Value buf,
                       Value rowStart, Value first, int64_t rowLength, bool fp4,
                       bool alwaysInside) {
  auto vectorStore = [&] {
    Value at = env.add(rowStart, first);
    if (fp4)
      at = env.div(at, env.idx(2));
    storeBytes(env, bytes, buf, at, /*aligned=*/true, std::nullopt);
  };
  auto byteStores = [&] {
    for (int64_t e = 0; e < static_cast<int64_t>(bytes.size()); ++e) {
      Value element = env.add(first, env.idx(fp4 ? 2 * e : e));
      env.ifThen(env.lt(element, env.idx(rowLength)), [&] {
        Value at = env.add(rowStart, element);
        if (fp4)
          at = env.div(at, env.idx(2));
        store1(env, bytes[e], buf, at);
      });
    }
  };
  if (rowLength % 16 != 0) {
    // Unaligned rows: vector stores would be misaligned.
    byteStores();
    return;
  }
  if (alwaysInside) {
    vectorStore();
    return;
  }
  Value inside =
      arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::ule,
                            env.add(first, env.idx(16)), env.idx(rowLength));
  env.ifThenElse(inside, vectorStore, byteStores);
}

/// The RHT's first three butterflies (bits 1, 2, 4) on w[r] = x[r] * s[r]
/// / 4 (exact), the 16 partial sums a[r] held as the pairs (a[i], a[i + 8])
/// of i < 8: the two lanes of a pair take the same steps (their partners
/// are i + h and i + 8 + h), so each step is one pairwise operation (one
/// f32x2 instruction on sm_100a), and the last butterfly (bit 8) combines
/// a pair's own lanes.
static SmallVector<KernelEnv::F32Pair>
rhtPairs(KernelEnv &env, ArrayRef<Value> x, uint32_t signMask) {
  using PairOp = KernelEnv::PairOp;
  auto factor = [&](int r) {
    return env.f32(ref::nvfp4RHTInputFactor(r, signMask));
  };
  SmallVector<KernelEnv::F32Pair> a;
  for (int i = 0; i < 8; ++i)
    a.push_back(env.pairwise(PairOp::Mul, {x[i], x[i + 8]},
                             {factor(i), factor(i + 8)}));
  for (int h = 1; h < 8; h *= 2)
    for (int i = 0; i < 8; ++i) {
      if (i & h)
        continue;
      KernelEnv::F32Pair lo = a[i], hi = a[i + h];
      a[i] = env.pairwise(PairOp::Add, lo, hi);
      a[i + h] = env.pairwise(PairOp::Sub, lo, hi);
    }
  return a;
}

SmallVector<Value> quant::rhtSums16(KernelEnv &env, ArrayRef<Value> x,
                                    uint32_t signMask) {
  // w[r] = x[r] * s[r] / 4 (exact), then the butterflies of bit 1, 2, 4, 8.
  SmallVector<Value> sums(16);
  for (auto [i, pair] : llvm::enumerate(rhtPairs(env, x, signMask))) {
    sums[i] = arith::AddFOp::create(env.b, env.loc, pair[0], pair[1]);
    sums[i + 8] = arith::SubFOp::create(env.b, env.loc, pair[0], pair[1]);
  }
  return sums;
}

SmallVector<Value> quant::rht16(KernelEnv &env, ArrayRef<Value> x,
                                uint32_t signMask) {
  // The values' NaN bits are never stored: they feed amaxes (NaN ignored)
  // and E2M1 encodes (NaN -> 0x7).
  return env.roundToBf16Values(rhtSums16(env, x, signMask));
}

Value quant::rhtAbsMax16(KernelEnv &env, ArrayRef<Value> x, uint32_t signMask) {
  // The last butterfly's sums p + q and p - q: one has the real magnitude
  // |p| + |q|, the other ||p| - |q||, and rounding to nearest is monotonic
  // and odd, so the larger rounded magnitude is f32(|p| + |q|) (inf where
  // either overflows; NaN, which the amax ignores, where both are NaN).
  // One addition per pair instead of two sums and two maxima.
  Value amax = env.f32(0.0f);
  for (const KernelEnv::F32Pair &pair : rhtPairs(env, x, signMask))
    amax = env.absMax(amax, arith::AddFOp::create(
                                env.b, env.loc,
                                math::AbsFOp::create(env.b, env.loc, pair[0]),
                                math::AbsFOp::create(env.b, env.loc, pair[1])));
  return env.roundToBf16(amax);
}

/// Whether rowLanesPhase quantizes `r`: row-wise blocks of 32 to 128
/// elements with a computed scale (MXFP8, FP8 1 x 128), whole 16-element
/// chunks per lane, every lane of the kernel busy in every round (the
/// shuffles need the whole warp).
static bool splitsRowBlocks(const KernelEnv &env, const Plan &p, const Tile &t,
                            const Rep &r) {
  return !p.directStores && !p.twoD && !r.fourOverSix && !r.stochastic &&
         r.block >= 32 && r.block <= 128 && t.cols % r.block == 0 &&
         (r.kind == ScaleKind::E8M0 || r.kind == ScaleKind::F32Block) &&
         (t.rows * t.cols / 16) % env.threads == 0;
}

/// Row-wise blocks split over r.block / 16 consecutive lanes, one
/// 16-element chunk each: the block's amax by XOR shuffles within the lane
/// group (the emulation, which runs lanes one by one, reads the whole block
/// instead), its scale stored by the group's first lane, and each lane's
/// 16 codes stored by the lane, so that a warp's vector stores cover whole
/// 32-byte sectors of consecutive chunks (one lane per block wrote
/// r.block / 16 chunks one instruction apart, half a sector per
/// instruction, and FP8 1 x 128 kept half of the block's threads idle).
static void rowLanesPhase(KernelEnv &env, const Plan &p, const Tile &t,
                          const Rep &r, Value repScale) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value smem = env.shared[0];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t chunks = t.cols / 16, lanes = r.block / 16;
  env.forEachUnit(t.rows * chunks, [&](Value u) {
    Value row = env.div(u, env.idx(chunks));
    Value ch = env.rem(u, env.idx(chunks));
    Value j = env.div(ch, env.idx(lanes));
    Value gr = env.add(env.mul(tileRow, env.idx(t.rows)), row);
    Value gBlock = env.add(env.mul(tileCol, env.idx(t.cols / r.block)), j);
    Value gc = env.mul(gBlock, env.idx(r.block));
    Value gcChunk =
        env.add(env.mul(tileCol, env.idx(t.cols)), env.mul(ch, env.idx(16)));
    Value base = env.mul(row, env.idx(t.ld));
    SmallVector<Value> values = readRow(
        env, t, smem, env.add(base, env.mul(ch, env.idx(16))), 16, p.nominal);
    Value amax = env.f32(0.0f);
    if (env.gpu) {
      // f32 maxima, not absMaxAll's packed ones: with those LLVM unrolled
      // the unit loop of these memory-bound kernels (MXFP8 row-wise 34 ->
      // 40 registers, occupancy bound 87.5% -> 75%).
      for (Value v : values)
        amax = env.absMax(amax, v);
      for (int32_t offset = 1; offset < lanes; offset *= 2) {
        auto other = gpu::ShuffleOp::create(b, loc, amax, offset, 32,
                                            gpu::ShuffleMode::XOR);
        amax = arith::MaxNumFOp::create(b, loc, amax, other.getShuffleResult());
      }
    } else {
      Value blockStart = env.add(base, env.mul(j, env.idx(r.block)));
      amax = env.loopReduce(lanes, amax, [&](Value i, Value acc) {
        Value at = env.add(blockStart, env.mul(i, env.idx(16)));
        for (Value v : readRow(env, t, smem, at, 16, p.nominal))
          acc = env.absMax(acc, v);
        return acc;
      });
    }
    // Rows and blocks past the tensor's end read zeros (loadTilePhase).
    Value rowValid = env.lt(gr, env.idx(p.m));
    Value firstLane =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              env.rem(ch, env.idx(lanes)), env.idx(0));
    Value mult = blockScale(
        env, p, r, amax, gr, gBlock, repScale, scaleBuffer(env, r),
        env.land(env.land(rowValid, firstLane), env.lt(gc, env.idx(p.k))));
    env.ifThen(env.land(rowValid, env.lt(gcChunk, env.idx(p.k))), [&] {
      storeChunk(env, encodeScaled(env, r, values, mult), env.args[r.dataArg],
                 env.mul(gr, env.idx(p.k)), gcChunk, p.k, r.fp4, p.k % 16 == 0);
    });
  });
}

void quant::rowwisePhase(KernelEnv &env, const Plan &p, const Tile &t,
                         const Rep &r, Value repScale,
                         std::pair<Value, Value> rng) {
  if (splitsRowBlocks(env, p, t, r)) {
    assert(!t.codesInPlace && "row lanes leave no codes in the tile");
    rowLanesPhase(env, p, t, r, repScale);
    return;
  }
  Value smem = env.shared[0];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t perRow = t.cols / r.block;
  env.forEachUnit(t.rows * perRow, [&](Value u) {
    Value row = env.div(u, env.idx(perRow));
    Value j = env.rem(u, env.idx(perRow));
    Value gr = env.add(env.mul(tileRow, env.idx(t.rows)), row);
    Value gBlock = env.add(env.mul(tileCol, env.idx(perRow)), j);
    Value gc = env.mul(gBlock, env.idx(r.block));
    Value valid = env.land(env.lt(gr, env.idx(p.m)), env.lt(gc, env.idx(p.k)));
    env.ifThen(valid, [&] {
      Value base =
          env.add(env.mul(row, env.idx(t.ld)), env.mul(j, env.idx(r.block)));
      Value amax;
      if (p.twoD) {
        // The 2-D block's amax (blockAmaxPhase).
        Value bi = env.div(row, env.idx(p.twoD));
        amax = load1(env, env.shared[t.blockAmax],
                     env.add(env.mul(bi, env.idx(t.cols / p.twoD)), j));
      } else if (r.kind != ScaleKind::PerTensor) {
        // A loop over 16-element chunks (not unrolled here: a 128-long
        // block would otherwise keep 128 values live).
        int64_t chunk = std::min<int64_t>(16, r.block);
        amax = env.loopReduce(
            r.block / chunk, env.f32(0.0f), [&](Value i, Value acc) {
              Value at = env.add(base, env.mul(i, env.idx(chunk)));
              return env.absMaxAll(acc,
                                   readRow(env, t, smem, at, chunk, p.nominal));
            });
      }
      if (r.fourOverSix) {
        auto [sEnc, g] = nvfp4Globals(env, r, repScale, gr);
        Value pick4 = p.twoD ? fourOverSixTilePick(env, t, r, row, j) : Value();
        SmallVector<Value> bytes = fourOverSixEncode(
            env, r, amax, sEnc, g, readRow(env, t, smem, base, 16, p.nominal),
            pick4, scaleBuffer(env, r), r.scaleIndex(env, gr, gBlock),
            env.shared[t.fosBacks]);
        storeChunk(env, bytes, env.args[r.dataArg], env.mul(gr, env.idx(p.k)),
                   gc, p.k, /*fp4=*/true, p.k % 16 == 0);
        return;
      }
      Value mult = blockScale(env, p, r, amax, gr, gBlock, repScale,
                              scaleBuffer(env, r));
      for (int64_t c = 0; c < r.block; c += 16) {
        SmallVector<Value> values = scaleValues(
            env,
            readRow(env, t, smem, env.add(base, env.idx(c)), 16, p.nominal),
            mult);
        SmallVector<Value> words;
        if (r.stochastic)
          words = randomWords(env, r, rng, gr, env.add(gc, env.idx(c)), p.k);
        SmallVector<Value> bytes = encode(env, r, values, words);
        // Over the chunk's start in the tile: no other thread reads the
        // chunk, and this one has.
        if (t.codesInPlace)
          storeBytes(env, bytes, smem, env.add(base, env.idx(c)),
                     /*aligned=*/true, std::nullopt);
        Value at = env.add(env.mul(gr, env.idx(p.k)), env.add(gc, env.idx(c)));
        if (r.fp4)
          at = env.div(at, env.idx(2));
        // z row `gr`, elements gc + c ...: whole 16-element chunks go out
        // with one vector store; a chunk crossing the row's end (partial
        // blocks of unaligned shapes) byte by byte.
        storeChunk(env, bytes, env.args[r.dataArg], env.mul(gr, env.idx(p.k)),
                   env.add(gc, env.idx(c)), p.k, r.fp4, p.k % r.block == 0);
      }
    });
  });
}

void quant::segmentAmaxPhase(KernelEnv &env, const Plan &p, const Tile &t) {
  int64_t perRow = t.cols / p.twoD;
  env.forEachUnit(t.rows * perRow, [&](Value u) {
    Value row = env.div(u, env.idx(perRow));
    Value j = env.rem(u, env.idx(perRow));
    Value base =
        env.add(env.mul(row, env.idx(t.ld)), env.mul(j, env.idx(p.twoD)));
    Value amax = env.absMaxAll(
        env.f32(0.0f), readRow(env, t, env.shared[0], base, p.twoD, p.nominal));
    store1(env, amax, env.shared[t.segAmax], u);
  });
}

void quant::blockAmaxPhase(KernelEnv &env, const Plan &p, const Tile &t) {
  int64_t perRow = t.cols / p.twoD;
  env.forEachUnit((t.rows / p.twoD) * perRow, [&](Value u) {
    Value bi = env.div(u, env.idx(perRow));
    Value bj = env.rem(u, env.idx(perRow));
    SmallVector<Value> maxima;
    for (int64_t rr = 0; rr < p.twoD; ++rr) {
      Value row = env.add(env.mul(bi, env.idx(p.twoD)), env.idx(rr));
      maxima.push_back(load1(env, env.shared[t.segAmax],
                             env.add(env.mul(row, env.idx(perRow)), bj)));
    }
    // A tree of maxima (log2 B deep) rather than a chain of B: one thread
    // per block does this while the block's other threads wait at the
    // barrier (128 x 128 blocks: one thread of 128). The same value:
    // maxnum ignores NaN in any order, and the segment maxima are >= +0.
    auto maxnum = [&](Value x, Value y) -> Value {
      return arith::MaxNumFOp::create(env.b, env.loc, x, y);
    };
    Value amax = maxnum(env.f32(0.0f), reduceTree(maxima, maxnum));
    store1(env, amax, env.shared[t.blockAmax], u);
  });
}

SmallVector<Value> quant::columnChunk(KernelEnv &env, const Tile &t, Value i,
                                      Value c) {
  SmallVector<Value> xs;
  for (int64_t rr = 0; rr < 16; ++rr)
    xs.push_back(env.toF32(
        load1(env, env.shared[0],
              env.add(env.mul(env.add(env.mul(i, env.idx(16)), env.idx(rr)),
                              env.idx(t.ld)),
                      c))));
  return xs;
}

void quant::rhtSegmentAmaxPhase(KernelEnv &env, const Plan &p, const Tile &t) {
  env.forEachUnit(t.cols * (t.rows / 16), [&](Value u) {
    Value c = env.rem(u, env.idx(t.cols));
    Value i = env.div(u, env.idx(t.cols));
    store1(env, rhtAbsMax16(env, columnChunk(env, t, i, c), p.rhtSignMask),
           env.shared[t.segAmax], u);
  });
}

void quant::rhtBlockAmaxPhase(KernelEnv &env, const Tile &t) {
  int64_t perRow = t.cols / 16;
  env.forEachUnit((t.rows / 16) * perRow, [&](Value u) {
    Value bi = env.div(u, env.idx(perRow));
    Value bj = env.rem(u, env.idx(perRow));
    Value base =
        env.add(env.mul(bi, env.idx(t.cols)), env.mul(bj, env.idx(16)));
    Value amax = env.f32(0.0f);
    for (int64_t cc = 0; cc < 16; ++cc)
      amax = arith::MaxNumFOp::create(
          env.b, env.loc, amax,
          load1(env, env.shared[t.segAmax], env.add(base, env.idx(cc))));
    store1(env, amax, env.shared[t.rhtBlockAmax], u);
  });
}

void quant::scaleInvPhase(KernelEnv &env, const Plan &p, Value s) {
  Value first =
      env.land(arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::eq,
                                     env.blockId, env.idx(0)),
               arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::eq,
                                     env.threadId, env.idx(0)));
  env.ifThen(first, [&] {
    store1(env, arith::DivFOp::create(env.b, env.loc, env.f32(1.0f), s),
           env.args[p.scaleInvArg], env.idx(0));
  });
}
