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
/// saturation, NaN -> 7, as emitEncodeF32: KernelEnv::e2m1Parts, whose t
/// holds m in its low 3 bits) decodes to back_m = f32(f32(f32(m_value *
/// sf) * G) / 6E) with q's sign. The eight back_m are computed once per
/// block (the multiplications and the division are symmetric in sign, so
/// this is the reference's per-element arithmetic exactly) and stored in
/// the thread's column of `backs` (element m * threads + thread: a warp's
/// lookups hit 32 distinct banks whatever their m), so an element costs
/// one shared load instead of seven compare-selects. The sign is copied
/// from q: for q = -0 that gives -back_0 where the reference has +back_0,
/// which only changes the sign of a zero difference (|d| and d * d drop
/// it), and a NaN q comes from a NaN x, whose difference is NaN either way.
static Value errorOf(KernelEnv &env, const Rep &r, const Scale &s, Value g,
                     ArrayRef<Value> values, Value backs) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  int64_t threads = cast<MemRefType>(backs.getType()).getDimSize(0) / 8;
  Value sixE = env.f32(nvfp4SixE(r.e4m3Max));
  for (int m = 0; m < 8; ++m) {
    Value v =
        arith::MulFOp::create(b, loc, env.f32(kE2M1Magnitudes[m]), s.sfValue);
    Value back = arith::DivFOp::create(
        b, loc, arith::MulFOp::create(b, loc, v, g), sixE);
    store1(env, back, backs, env.add(env.idx(m * threads), env.threadId));
  }
  Type i32 = b.getI32Type();
  Value err = env.f32(0.0f);
  for (Value x : values) {
    Value q = arith::MulFOp::create(b, loc, x, s.inv);
    // t = 0x4B000000 + m.
    Value m = arith::SubIOp::create(
        b, loc, env.e2m1Parts(q).first,
        arith::ConstantIntOp::create(b, loc, i32, 0x4B000000));
    Value at = env.add(
        env.mul(arith::IndexCastUIOp::create(b, loc, b.getIndexType(), m),
                env.idx(threads)),
        env.threadId);
    Value back = math::CopySignOp::create(b, loc, load1(env, backs, at), q);
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

std::pair<Value, Value>
quant::fourOverSixErrors(KernelEnv &env, const Rep &r, Value amax, Value sEnc,
                         Value g, ArrayRef<Value> values, Value backs) {
  return {errorOf(env, r, scaleOf(env, amax, sEnc, Value()), g, values, backs),
          errorOf(env, r, scaleOf(env, amax, sEnc, env.f32(1.5f)), g, values,
                  backs)};
}

SmallVector<Value> quant::fourOverSixEncode(KernelEnv &env, const Rep &r,
                                            Value amax, Value sEnc, Value g,
                                            ArrayRef<Value> values, Value pick4,
                                            Value scales, Value scaleIndex,
                                            Value backs) {
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
    Value better =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                              errorOf(env, r, four, g, values, backs),
                              errorOf(env, r, six, g, values, backs));
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
        std::tie(e6, e4) = fourOverSixErrors(env, r, amax, sEnc, g, values,
                                             env.shared[t.fosBacks]);
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
