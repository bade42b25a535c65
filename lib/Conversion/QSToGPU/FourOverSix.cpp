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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/ConstantDivision.h"
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

/// A candidate's E2M1 codes of 16 values, accumulated while errorOf
/// computes their magnitudes (e2m1Parts' t = kE2M1FieldBias + magnitude, m the
/// sign's carrier), so that the chosen candidate needs no second encoding:
/// per 8-value word the sum of t_i 16^i (mod 2^32, one multiply-add per
/// value) and, when `signs` is set, of 8 sign_i 16^i (a sign is the same
/// for both candidates: q = x inv with inv > 0, NaN positive in both).
/// finish() adds the signs and removes the t's fields, as
/// KernelEnv::encodeE2M1Bytes packs them (the same words).
struct CodeWords {
  bool signs = false;
  std::array<Value, 2> magnitude, sign;

  void add(KernelEnv &env, size_t i, Value t, Value m) {
    auto term = [&](Value acc, Value v, uint32_t unit) -> Value {
      Value scaled = arith::MulIOp::create(
          env.b, env.loc, v,
          arith::ConstantIntOp::create(env.b, env.loc, env.b.getI32Type(),
                                       static_cast<int32_t>(unit)));
      return acc ? arith::AddIOp::create(env.b, env.loc, scaled, acc)
                       .getResult()
                 : scaled;
    };
    uint32_t unit = 1u << (4 * (i % 8));
    magnitude[i / 8] = term(magnitude[i / 8], t, unit);
    if (signs)
      sign[i / 8] = term(sign[i / 8], env.e2m1SignBit(m), 8u * unit);
  }

  /// The code bytes of `magnitudes` (one candidate's, or a selection of
  /// two) with `signs`' sign bits.
  static SmallVector<Value> finish(KernelEnv &env, ArrayRef<Value> magnitudes,
                                   const CodeWords &signs) {
    // The t's fields add up to kE2M1FieldBias * 0x11111111 = 0xFB000000
    // mod 2^32 (encodeE2M1Bytes' fix).
    constexpr uint32_t fix = 0u - kE2M1FieldBias * 0x11111111u;
    SmallVector<Value> bytes;
    for (auto [w, mag] : llvm::enumerate(magnitudes)) {
      Value word = arith::AddIOp::create(
          env.b, env.loc,
          arith::AddIOp::create(env.b, env.loc, mag, signs.sign[w]),
          arith::ConstantIntOp::create(env.b, env.loc, env.b.getI32Type(),
                                       static_cast<int32_t>(fix)));
      env.appendWordBytes(word, bytes);
    }
    return bytes;
  }
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

/// f32(v / c) without div.rn for v in [kConstantDivisionMin,
/// kConstantDivisionMax] and c one of kConstantDivisors: q0 = f32(v * y), y
/// = f32(1 / c), then q0 + f32(v - q0 c) y, both fused (ConstantDivision.h).
static Value divideByConstant(KernelEnv &env, Value v, float c) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value y = env.f32(1.0f / c);
  Value q0 = arith::MulFOp::create(b, loc, v, y);
  Value rem = math::FmaOp::create(b, loc, arith::NegFOp::create(b, loc, q0),
                                  env.f32(c), v);
  return math::FmaOp::create(b, loc, rem, y, q0);
}

/// Whether kConstantDivisionMin <= v <= `max` (false for NaN).
static Value inDivisionRange(KernelEnv &env, Value v, float max) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  return env.land(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v,
                                        env.f32(kConstantDivisionMin)),
                  arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, v,
                                        env.f32(max)));
}

/// f32(amax / 6), the reference's first step of both candidates' scales:
/// by divideByConstant where amax is in range (6 is among the checked
/// divisors), div.rn otherwise (0, subnormal, huge, NaN).
static Value amaxSixth(KernelEnv &env, Value amax) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  auto ifOp = scf::IfOp::create(
      b, loc, TypeRange{b.getF32Type()},
      inDivisionRange(env, amax, kConstantDivisionMax), /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, divideByConstant(env, amax, 6.0f));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(
      b, loc, arith::DivFOp::create(b, loc, amax, env.f32(6.0f)).getResult());
  return ifOp.getResult(0);
}

/// The candidate scale e4m3(min(f32(base * expand), 448)), base =
/// f32(f32(amax / 6) * S_enc) (`sixth` = f32(amax / 6): amaxSixth; no
/// multiplication when `expand` is null: map-to-6).
static Scale scaleOf(KernelEnv &env, Value sixth, Value sEnc, Value expand) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value v = arith::MulFOp::create(b, loc, sixth, sEnc);
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
/// this is the reference's per-element arithmetic exactly; from two
/// quotients without div.rn in the usual range, below) and stored in the
/// thread's column of `backs` (element m * threads + thread: a warp's
/// lookups hit 32 distinct banks whatever their m), so an element costs
/// one shared load instead of seven compare-selects.
///
/// The difference is taken as d' = back_m - |x| instead of the
/// reference's d = sign(q) back_m - x, with the same magnitude: S_enc is
/// in (0, FLT_MAX] for every global amax the kernels compute (+0 or more,
/// or NaN: nvfp4GlobalEncodeScale), so sf >= +0 (from f32(amax / 6) S_enc,
/// the block amax >= +0), S_dec = 1 / S_enc > 0 and inv = min(1 / f32(sf
/// S_dec), FLT_MAX) > 0 (sf = 0 gives inf -> FLT_MAX); every back_m is
/// +0 or more, or NaN with G; a non-NaN x gives q with x's sign (zeros
/// included) and d = sign(x) d' exactly, a NaN x makes both NaN. |d| and
/// d * d, the errors, cannot tell d from d', and no sign is copied.
static Value errorOf(KernelEnv &env, const Rep &r, const Scale &s, Value g,
                     ArrayRef<Value> values, Value backs,
                     CodeWords *codes = nullptr) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  int64_t threads = cast<MemRefType>(backs.getType()).getDimSize(0) / 8;
  float sixE = nvfp4SixE(r.e4m3Max);
  auto product = [&](float m) -> Value {
    return arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, env.f32(m), s.sfValue), g);
  };
  auto storeBack = [&](int m, Value back) {
    store1(env, back, backs, env.add(env.idx(m * threads), env.threadId));
  };
  // back_0 = f32(0 * sf) * G: 0, or NaN for an infinite or NaN G, both
  // unchanged by the division.
  storeBack(0, product(0.0f));
  // m sf is exact (E4M3 times E2M1: at most 6 significant bits, no
  // underflow), so for m = 2^k m' the products and quotients are 2^k those
  // of m' while they stay normal: the eight need two quotients, t = f32(sf
  // G) and t' = f32(f32(1.5 sf) G), divided without div.rn
  // (ConstantDivision.h), when kConstantDivisionMin <= t <=
  // kConstantDivisionMax / 2 (then t' <= 1.5 t rounded up is in range too,
  // and back_0.5 > 2^-77 is normal). t = 0 (sf = 0, G = 0, or sf G below
  // 2^-149) takes the same path: m sf G < 2^-147 for every m, so every
  // reference quotient is 0, and so is every one computed here (q0 = 0,
  // r = t, f32(t y) = 0). Outside, and for NaN, each back_m as the
  // reference computes it.
  Value t = product(1.0f);
  Value zero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, t,
                                     env.f32(0.0f));
  env.ifThenElse(
      arith::OrIOp::create(
          b, loc, inDivisionRange(env, t, kConstantDivisionMax / 2), zero),
      [&] {
        auto divide = [&](Value v) { return divideByConstant(env, v, sixE); };
        Value one = divide(t), oneHalf = divide(product(1.5f));
        // kE2M1Magnitudes: 0.5, 1, 1.5, 2, 3, 4, 6.
        const std::pair<float, Value> multiples[7] = {
            {0.5f, one},     {1.0f, one}, {1.0f, oneHalf}, {2.0f, one},
            {2.0f, oneHalf}, {4.0f, one}, {4.0f, oneHalf}};
        for (int m = 1; m < 8; ++m) {
          auto [power, base] = multiples[m - 1];
          storeBack(m, power == 1.0f
                           ? base
                           : arith::MulFOp::create(b, loc, base, env.f32(power))
                                 .getResult());
        }
      },
      [&] {
        for (int m = 1; m < 8; ++m)
          storeBack(m, arith::DivFOp::create(
                           b, loc, product(kE2M1Magnitudes[m]), env.f32(sixE)));
      });
  // e2m1Parts' t is kE2M1FieldBias + m, so m * threads + thread is t *
  // threads + (thread - kE2M1FieldBias * threads): no subtraction per element
  // (ptxas computes the 32-bit shared address t * 4 threads + base' with
  // one LEA, the constant's part of it being 0 mod 2^32).
  Value threadBias =
      env.add(env.threadId, env.idx(-int64_t(kE2M1FieldBias) * threads));
  Value err = env.f32(0.0f);
  for (auto [i, x] : llvm::enumerate(values)) {
    Value q = arith::MulFOp::create(b, loc, x, s.inv);
    auto [field, m] = env.e2m1Parts(q);
    if (codes)
      codes->add(env, i, field, m);
    Value at = env.add(
        env.mul(arith::IndexCastUIOp::create(b, loc, b.getIndexType(), field),
                env.idx(threads)),
        threadBias);
    Value d = arith::SubFOp::create(b, loc, load1(env, backs, at),
                                    math::AbsFOp::create(b, loc, x));
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
  SmallVector<Value> scaled = scaleValues(env, values, inv);
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
  Value sixth = amaxSixth(env, amax);
  return {errorOf(env, r, scaleOf(env, sixth, sEnc, Value()), g, values, backs),
          errorOf(env, r, scaleOf(env, sixth, sEnc, env.f32(1.5f)), g, values,
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
  // The chosen candidate's code words where errorOf packed them.
  CodeWords sixCodes, fourCodes;
  SmallVector<Value> chosenWords;
  Value sixth = amaxSixth(env, amax);
  if (pick4) {
    // The tile has chosen: only its candidate (base * 1 is base).
    chosen = scaleOf(
        env, sixth, sEnc,
        arith::SelectOp::create(b, loc, pick4, env.f32(1.5f), env.f32(1.0f)));
  } else {
    Scale six = scaleOf(env, sixth, sEnc, Value());
    Scale four = scaleOf(env, sixth, sEnc, env.f32(1.5f));
    // Where the codes are encoded in software, both candidates' codes are
    // packed as their errors are summed (CodeWords) and the better's kept;
    // sm_100a's cvt.rn.satfinite.e2m1x2.f32 encodes the chosen one (8
    // instructions for 16 codes, fewer than the packing).
    bool reuse = values.size() == 16 && !(env.gpu && env.hardwareMx);
    sixCodes.signs = true;
    Value e6 =
        errorOf(env, r, six, g, values, backs, reuse ? &sixCodes : nullptr);
    Value e4 =
        errorOf(env, r, four, g, values, backs, reuse ? &fourCodes : nullptr);
    Value better =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, e4, e6);
    chosen.sf = arith::SelectOp::create(b, loc, better, four.sf, six.sf);
    chosen.inv = arith::SelectOp::create(b, loc, better, four.inv, six.inv);
    if (reuse)
      for (int w = 0; w < 2; ++w)
        chosenWords.push_back(arith::SelectOp::create(
            b, loc, better, fourCodes.magnitude[w], sixCodes.magnitude[w]));
  }
  store1(env, chosen.sf, scales, scaleIndex);
  if (!chosenWords.empty())
    return CodeWords::finish(env, chosenWords, sixCodes);
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
