//===- FourOverSix.cpp - NVFP4 4over6 in the quantize kernels -------------===//
//
// te-formats.md §5.c (4over6), the arithmetic of the reference lowering
// (NVFP4Reference.cpp) per block: with E = nvfp4_e4m3_max, base =
// f32(f32(amax / 6) * S_enc); map-to-6 has sf6 = e4m3(min(base, 448)),
// map-to-4 sf4 = e4m3(min(f32(base * 1.5), 448)); each candidate's codes
// are e2m1(f32(x * min(1 / f32(sf * S_dec), FLT_MAX))) and its error the
// f32 sum, in element order from 0, of |d| or d * d with d =
// f32(f32(f32(f32(e2m1(q) * sf) * G) / 6E) - x). A 1 x 16 block decides
// alone; a 16 x 16 tile (2-D) sums its 16 z rows' errors as a tree first,
// from the errors fourOverSixErrorPhase leaves in shared memory, and its
// blocks then encode only the chosen candidate. Map-to-4 wins only when
// strictly better. Codes: cvt.rn.satfinite.e2m1x2.f32 on sm_100a, the
// software encoding elsewhere; decoded (for the errors) in software.
//
//===----------------------------------------------------------------------===//

#include "../QSToLinalg/ReferenceBuilders.h"
#include "QuantizePlan.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::quant;

namespace {
/// One candidate encoding of a block.
struct Candidate {
  Value sf;                 // E4M3 scale byte (i8)
  SmallVector<Value> bytes; // packed E2M1 codes (i8, element 2i low nibble)
  Value err;                // f32 error sum, when asked for
};
} // namespace

std::pair<Value, Value> quant::nvfp4Globals(KernelEnv &env, const Rep &r,
                                            Value repScale, Value zRow) {
  Value g = load1(env, env.args[r.amaxArg], r.rowScaled ? zRow : env.idx(0));
  Value sEnc = r.rowScaled
                   ? ref::nvfp4GlobalEncodeScale(env.b, env.loc, g, r.e4m3Max)
                   : repScale;
  return {sEnc, g};
}

/// The E2M1 codes of the f32 pair (`lo`, `hi`) packed into one byte (`lo`
/// in the low nibble) and, when `codes` is given, each code alone (i8, low
/// nibble). On sm_100a cvt.rn.satfinite.e2m1x2.f32 (TE's conversion; the
/// software path gives the same codes for every finite input,
/// QuantizePhases.cpp encode), the single codes then taken back out of the
/// byte.
static Value e2m1Pair(KernelEnv &env, Value lo, Value hi,
                      SmallVectorImpl<Value> *codes) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type i8 = b.getI8Type();
  Value four = arith::ConstantIntOp::create(b, loc, i8, 4);
  if (env.gpu && env.hardwareMx) {
    Value byte = NVVM::ConvertF32x2ToF4x2Op::create(
        b, loc, i8, hi, lo, /*relu=*/false, b.getType<Float4E2M1FNType>());
    if (codes) {
      codes->push_back(arith::AndIOp::create(
          b, loc, byte, arith::ConstantIntOp::create(b, loc, i8, 15)));
      codes->push_back(arith::ShRUIOp::create(b, loc, byte, four));
    }
    return byte;
  }
  Value loCode = emitEncodeF32(b, loc, lo, SmallFloatFormat::e2m1());
  Value hiCode = emitEncodeF32(b, loc, hi, SmallFloatFormat::e2m1());
  if (codes)
    codes->append({loCode, hiCode});
  return arith::OrIOp::create(b, loc, loCode,
                              arith::ShLIOp::create(b, loc, hiCode, four));
}

/// The candidate whose scale is e4m3(min(f32(base * expand), 448)) (no
/// multiplication when `expand` is null: map-to-6), with its error when
/// `withError`.
static Candidate candidate(KernelEnv &env, const Rep &r, Value amax, Value sEnc,
                           Value g, ArrayRef<Value> values, Value expand,
                           bool withError) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  SmallFloatFormat e4m3 = SmallFloatFormat::e4m3();
  Candidate c;
  Value v = arith::MulFOp::create(
      b, loc, arith::DivFOp::create(b, loc, amax, env.f32(6.0f)), sEnc);
  if (expand)
    v = arith::MulFOp::create(b, loc, v, expand);
  v = arith::MinNumFOp::create(b, loc, v, env.f32(448.0f));
  c.sf = emitEncodeF32(b, loc, v, e4m3);
  Value sfValue = emitDecodeToF32(b, loc, c.sf, e4m3);
  Value sDec = arith::DivFOp::create(b, loc, env.f32(1.0f), sEnc);
  Value inv = arith::DivFOp::create(
      b, loc, env.f32(1.0f), arith::MulFOp::create(b, loc, sfValue, sDec));
  inv = arith::MinNumFOp::create(b, loc, inv, env.f32(FLT_MAX));
  Value sixE = env.f32(nvfp4SixE(r.e4m3Max));
  if (withError)
    c.err = env.f32(0.0f);
  // Pair by pair, each element's error right after its code.
  for (size_t t = 0; t + 1 < values.size(); t += 2) {
    SmallVector<Value, 2> codes;
    c.bytes.push_back(
        e2m1Pair(env, arith::MulFOp::create(b, loc, values[t], inv),
                 arith::MulFOp::create(b, loc, values[t + 1], inv),
                 withError ? &codes : nullptr));
    for (size_t k = 0; k < codes.size(); ++k) {
      Value back = arith::MulFOp::create(
          b, loc, emitDecodeToF32(b, loc, codes[k], SmallFloatFormat::e2m1()),
          sfValue);
      back = arith::DivFOp::create(
          b, loc, arith::MulFOp::create(b, loc, back, g), sixE);
      Value d = arith::SubFOp::create(b, loc, back, values[t + k]);
      Value e = r.mse ? arith::MulFOp::create(b, loc, d, d).getResult()
                      : math::AbsFOp::create(b, loc, d).getResult();
      c.err = arith::AddFOp::create(b, loc, c.err, e);
    }
  }
  return c;
}

std::pair<Value, Value> quant::fourOverSixErrors(KernelEnv &env, const Rep &r,
                                                 Value amax, Value sEnc,
                                                 Value g,
                                                 ArrayRef<Value> values) {
  return {candidate(env, r, amax, sEnc, g, values, Value(), true).err,
          candidate(env, r, amax, sEnc, g, values, env.f32(1.5f), true).err};
}

SmallVector<Value> quant::fourOverSixEncode(KernelEnv &env, const Rep &r,
                                            Value amax, Value sEnc, Value g,
                                            ArrayRef<Value> values, Value pick4,
                                            Value scales, Value scaleIndex) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  if (pick4) {
    // The tile has chosen: only its candidate (base * 1.0 is base).
    Candidate c = candidate(
        env, r, amax, sEnc, g, values,
        arith::SelectOp::create(b, loc, pick4, env.f32(1.5f), env.f32(1.0f)),
        false);
    store1(env, c.sf, scales, scaleIndex);
    return c.bytes;
  }
  Candidate six = candidate(env, r, amax, sEnc, g, values, Value(), true);
  Candidate four =
      candidate(env, r, amax, sEnc, g, values, env.f32(1.5f), true);
  Value pick = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                     four.err, six.err);
  auto select = [&](Value a4, Value a6) {
    return arith::SelectOp::create(b, loc, pick, a4, a6).getResult();
  };
  store1(env, select(four.sf, six.sf), scales, scaleIndex);
  SmallVector<Value> bytes;
  for (auto [a4, a6] : llvm::zip_equal(four.bytes, six.bytes))
    bytes.push_back(select(a4, a6));
  return bytes;
}

void quant::fourOverSixErrorPhase(KernelEnv &env, const Plan &p, const Tile &t,
                                  ArrayRef<Rep> reps) {
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  for (const Rep &r : reps) {
    if (!r.fourOverSix)
      continue;
    // z rows of the tile and 16-blocks along them.
    int64_t zRows = r.columnwise ? t.cols : t.rows;
    int64_t blocks = (r.columnwise ? t.rows : t.cols) / 16;
    Value buffer = env.shared[t.fosErrors[r.columnwise]];
    Value sEnc, g;
    std::tie(sEnc, g) = nvfp4Globals(env, r, repScale(env, p, r, Value()), {});
    env.forEachUnit(zRows * blocks, [&](Value u) {
      Value zr = env.div(u, env.idx(blocks));
      Value blk = env.rem(u, env.idx(blocks));
      // The x element of z row zr, element 16 blk + e of the block.
      Value xr0 = r.columnwise ? env.mul(blk, env.idx(16)) : zr;
      Value xc0 = r.columnwise ? zr : env.mul(blk, env.idx(16));
      Value gr = env.add(env.mul(tileRow, env.idx(t.rows)), xr0);
      Value gc = env.add(env.mul(tileCol, env.idx(t.cols)), xc0);
      Value valid =
          env.land(env.lt(gr, env.idx(p.m)), env.lt(gc, env.idx(p.k)));
      env.ifThen(valid, [&] {
        SmallVector<Value> values;
        if (r.columnwise)
          values = columnChunk(env, t, blk, zr);
        else
          values = readRow(
              env, t, env.shared[0],
              env.add(env.mul(zr, env.idx(t.ld)), env.mul(blk, env.idx(16))),
              16, p.nominal);
        // The tile amax (blockAmaxPhase, indexed by x's 16 x 16 blocks).
        Value bi = env.div(xr0, env.idx(16)), bj = env.div(xc0, env.idx(16));
        Value amax = load1(env, env.shared[t.blockAmax],
                           env.add(env.mul(bi, env.idx(t.cols / 16)), bj));
        Value e6, e4;
        std::tie(e6, e4) = fourOverSixErrors(env, r, amax, sEnc, g, values);
        store1(env, e6, buffer, env.mul(u, env.idx(2)));
        store1(env, e4, buffer, env.add(env.mul(u, env.idx(2)), env.idx(1)));
      });
    });
  }
}

Value quant::fourOverSixTilePick(KernelEnv &env, const Tile &t, const Rep &r,
                                 Value zRow, Value block) {
  int64_t blocks = (r.columnwise ? t.rows : t.cols) / 16;
  Value buffer = env.shared[t.fosErrors[r.columnwise]];
  Value first = env.mul(env.div(zRow, env.idx(16)), env.idx(16));
  std::array<Value, 2> sums;
  for (int cand = 0; cand < 2; ++cand) {
    SmallVector<Value> e;
    for (int64_t i = 0; i < 16; ++i) {
      Value seg =
          env.add(env.mul(env.add(first, env.idx(i)), env.idx(blocks)), block);
      e.push_back(
          load1(env, buffer, env.add(env.mul(seg, env.idx(2)), env.idx(cand))));
    }
    for (int64_t n = 8; n >= 1; n /= 2)
      for (int64_t i = 0; i < n; ++i)
        e[i] = arith::AddFOp::create(env.b, env.loc, e[i], e[i + n]);
    sums[cand] = e[0];
  }
  return arith::CmpFOp::create(env.b, env.loc, arith::CmpFPredicate::OLT,
                               sums[1], sums[0]);
}
