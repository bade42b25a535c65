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
// from the errors fourOverSixErrorPhase leaves in shared memory. Map-to-4
// wins only when strictly better.
//
// The errors need no codes (errorOf): an element's E2M1 magnitude follows
// from |q| and the rounding boundaries, its decoded value from eight
// computed once per block. Only the chosen candidate is encoded
// (cvt.rn.satfinite.e2m1x2.f32 on sm_100a, the software encoding
// elsewhere).
//
//===----------------------------------------------------------------------===//

#include "../QSToLinalg/ReferenceBuilders.h"
#include "QuantizePlan.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/E2M1Boundaries.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::quant;

namespace {
/// One candidate's scale: its E4M3 byte, that byte's value and the encode
/// multiplier min(1 / f32(sf * S_dec), FLT_MAX).
struct Scale {
  Value sf, sfValue, inv;
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

/// The candidate scale e4m3(min(f32(base * expand), 448)), base =
/// f32(f32(amax / 6) * S_enc) (no multiplication when `expand` is null:
/// map-to-6).
static Scale scaleOf(KernelEnv &env, Value amax, Value sEnc, Value expand) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value v = arith::MulFOp::create(
      b, loc, arith::DivFOp::create(b, loc, amax, env.f32(6.0f)), sEnc);
  if (expand)
    v = arith::MulFOp::create(b, loc, v, expand);
  v = arith::MinNumFOp::create(b, loc, v, env.f32(448.0f));
  Scale s;
  std::tie(s.sf, s.sfValue) = env.roundTripE4M3(v);
  Value sDec = arith::DivFOp::create(b, loc, env.f32(1.0f), sEnc);
  s.inv = arith::DivFOp::create(b, loc, env.f32(1.0f),
                                arith::MulFOp::create(b, loc, s.sfValue, sDec));
  s.inv = arith::MinNumFOp::create(b, loc, s.inv, env.f32(FLT_MAX));
  return s;
}

/// The candidate's error sum over `values`, without its codes: an element
/// whose scaled value q = f32(x * inv) has E2M1 magnitude m (RNE with
/// saturation, as emitEncodeF32: m counts the rounding boundaries |q|
/// passes, > 0.25, >= 0.75, > 1.25, >= 1.75, > 2.5, >= 3.5, > 5 or NaN,
/// the ties going to the even code) decodes to back_m = f32(f32(f32(m_value
/// * sf) * G) / 6E), negated when q < 0. The eight back_m are computed once
/// per block (the multiplications and the division are symmetric in sign,
/// so this is the reference's per-element arithmetic exactly; a zero's sign
/// only changes the sign of a zero difference, which |d| and d * d drop).
static Value errorOf(KernelEnv &env, const Rep &r, const Scale &s, Value g,
                     ArrayRef<Value> values) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  // Boundary i separates magnitudes i and i + 1 (E2M1Boundaries.h); `>=`
  // where the tie rounds up to the even code, strict elsewhere, and NaN
  // passes the last (saturates to 6, as emitEncodeF32).
  auto predicate = [](int i) {
    if (i == 6)
      return arith::CmpFPredicate::UGT;
    return kE2M1BoundaryInclusive[i] ? arith::CmpFPredicate::OGE
                                     : arith::CmpFPredicate::OGT;
  };
  static_assert(!kE2M1BoundaryInclusive[6]);
  Value sixE = env.f32(nvfp4SixE(r.e4m3Max));
  std::array<Value, 8> backs;
  for (int m = 0; m < 8; ++m) {
    Value v =
        arith::MulFOp::create(b, loc, env.f32(kE2M1Magnitudes[m]), s.sfValue);
    backs[m] = arith::DivFOp::create(b, loc,
                                     arith::MulFOp::create(b, loc, v, g), sixE);
  }
  Value err = env.f32(0.0f);
  for (Value x : values) {
    Value q = arith::MulFOp::create(b, loc, x, s.inv);
    Value mag = math::AbsFOp::create(b, loc, q);
    Value back = backs[0];
    for (int i = 0; i < 7; ++i) {
      Value passes = arith::CmpFOp::create(b, loc, predicate(i), mag,
                                           env.f32(kE2M1Boundaries[i]));
      back = arith::SelectOp::create(b, loc, passes, backs[i + 1], back);
    }
    Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, q,
                                           env.f32(0.0f));
    back = arith::SelectOp::create(b, loc, negative,
                                   arith::NegFOp::create(b, loc, back), back);
    Value d = arith::SubFOp::create(b, loc, back, x);
    Value e = r.mse ? arith::MulFOp::create(b, loc, d, d).getResult()
                    : math::AbsFOp::create(b, loc, d).getResult();
    err = arith::AddFOp::create(b, loc, err, e);
  }
  return err;
}

/// The E2M1 codes of f32(x * inv) for the 16 `values`, two per byte (the
/// even element in the low nibble): cvt.rn.satfinite.e2m1x2.f32 on sm_100a
/// (TE's conversion; the software path gives the same codes for every
/// finite input, QuantizePhases.cpp encode), KernelEnv::encodeE2M1Bytes
/// (the codes of emitEncodeF32) elsewhere.
static SmallVector<Value> encodeWith(KernelEnv &env, Value inv,
                                     ArrayRef<Value> values) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  SmallVector<Value> scaled = llvm::map_to_vector(values, [&](Value v) {
    return arith::MulFOp::create(b, loc, v, inv).getResult();
  });
  if (!(env.gpu && env.hardwareMx))
    return env.encodeE2M1Bytes(scaled);
  SmallVector<Value> bytes;
  for (size_t t = 0; t + 1 < scaled.size(); t += 2)
    bytes.push_back(NVVM::ConvertF32x2ToF4x2Op::create(
        b, loc, b.getI8Type(), scaled[t + 1], scaled[t], /*relu=*/false,
        b.getType<Float4E2M1FNType>()));
  return bytes;
}

std::pair<Value, Value> quant::fourOverSixErrors(KernelEnv &env, const Rep &r,
                                                 Value amax, Value sEnc,
                                                 Value g,
                                                 ArrayRef<Value> values) {
  return {errorOf(env, r, scaleOf(env, amax, sEnc, Value()), g, values),
          errorOf(env, r, scaleOf(env, amax, sEnc, env.f32(1.5f)), g, values)};
}

SmallVector<Value> quant::fourOverSixEncode(KernelEnv &env, const Rep &r,
                                            Value amax, Value sEnc, Value g,
                                            ArrayRef<Value> values, Value pick4,
                                            Value scales, Value scaleIndex) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Scale chosen;
  if (pick4) {
    // The tile has chosen: only its candidate (base * 1 is base).
    chosen = scaleOf(
        env, amax, sEnc,
        arith::SelectOp::create(b, loc, pick4, env.f32(1.5f), env.f32(1.0f)));
  } else {
    Scale six = scaleOf(env, amax, sEnc, Value());
    Scale four = scaleOf(env, amax, sEnc, env.f32(1.5f));
    Value better = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                         errorOf(env, r, four, g, values),
                                         errorOf(env, r, six, g, values));
    chosen.sf = arith::SelectOp::create(b, loc, better, four.sf, six.sf);
    chosen.inv = arith::SelectOp::create(b, loc, better, four.inv, six.inv);
  }
  store1(env, chosen.sf, scales, scaleIndex);
  return encodeWith(env, chosen.inv, values);
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
