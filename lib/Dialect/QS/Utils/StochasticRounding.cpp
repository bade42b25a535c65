//===- StochasticRounding.cpp - NVFP4 stochastic rounding in arith --------===//
//
// See StochasticRounding.h for the definition. Philox4x32-10 is Salmon et
// al., "Parallel random numbers: as easy as 1, 2, 3" (SC'11): ten rounds
// of two 32x32->64 multiplications, the key bumped by the Weyl constants
// between rounds.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/Utils/StochasticRounding.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::qs;

static Value i32Const(OpBuilder &b, Location loc, uint32_t v) {
  return arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(static_cast<int32_t>(v)));
}

std::array<Value, 4> qs::emitPhilox4x32(OpBuilder &b, Location loc,
                                        std::array<Value, 4> c,
                                        std::array<Value, 2> k) {
  Value m0 = i32Const(b, loc, 0xD2511F53u), m1 = i32Const(b, loc, 0xCD9E8D57u);
  Value w0 = i32Const(b, loc, 0x9E3779B9u), w1 = i32Const(b, loc, 0xBB67AE85u);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] = arith::AddIOp::create(b, loc, k[0], w0);
      k[1] = arith::AddIOp::create(b, loc, k[1], w1);
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, c[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, c[2]);
    Value x0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p1.getHigh(), c[1]), k[0]);
    Value x2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p0.getHigh(), c[3]), k[1]);
    c = {x0, p1.getLow(), x2, p0.getLow()};
  }
  return c;
}

/// (lo32(v), hi32(v)) of an i64.
static std::pair<Value, Value> split64(OpBuilder &b, Location loc, Value v) {
  Value lo = arith::TruncIOp::create(b, loc, b.getI32Type(), v);
  Value hi = arith::TruncIOp::create(
      b, loc, b.getI32Type(),
      arith::ShRUIOp::create(
          b, loc, v,
          arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32))));
  return {lo, hi};
}

std::array<Value, 4> qs::emitStochasticBits(OpBuilder &b, Location loc,
                                            Value seed, Value offset,
                                            Value group, unsigned stream) {
  auto [k0, k1] = split64(b, loc, seed);
  auto [o0, o1] = split64(b, loc, offset);
  Value g = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), group);
  auto [g0, g1] = split64(b, loc, g);
  if (stream)
    g1 = arith::AddIOp::create(b, loc, g1, i32Const(b, loc, 0x80000000u));
  return emitPhilox4x32(b, loc, {g0, g1, o0, o1}, {k0, k1});
}

Value qs::emitE2M1Stochastic(OpBuilder &b, Location loc, Value v,
                             Value bits) {
  Type f32 = b.getF32Type();
  auto f = [&](float c) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(c)).getResult();
  };
  auto lt = [&](Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y)
        .getResult();
  };
  auto select = [&](Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y).getResult();
  };
  Type i32 = b.getI32Type();
  Value vBits = arith::BitcastOp::create(b, loc, i32, v);
  Value sign = arith::AndIOp::create(b, loc, vBits, i32Const(b, loc, 0x80000000u));
  Value a = arith::BitcastOp::create(
      b, loc, f32,
      arith::AndIOp::create(b, loc, vBits, i32Const(b, loc, 0x7FFFFFFFu)));
  // 1 / spacing (exact powers of two, so t = a * inv is exact).
  Value inv = select(lt(a, f(2.0f)), f(2.0f),
                     select(lt(a, f(4.0f)), f(1.0f), f(0.5f)));
  Value spacing = select(lt(a, f(2.0f)), f(0.5f),
                         select(lt(a, f(4.0f)), f(1.0f), f(2.0f)));
  // t < 4 for every |v| < 6; larger values and NaN (whose result is
  // selected below) are clamped so that the conversion never overflows
  // (LLVM's fptoui of those is poison).
  Value t = arith::MinNumFOp::create(
      b, loc, arith::MulFOp::create(b, loc, a, inv), f(7.0f));
  // floor(t) for 0 <= t <= 7: f32 -> i32 truncates.
  Value fl = arith::UIToFPOp::create(
      b, loc, f32, arith::FPToUIOp::create(b, loc, i32, t));
  Value frac = arith::SubFOp::create(b, loc, t, fl);
  Value u = arith::MulFOp::create(
      b, loc,
      arith::UIToFPOp::create(
          b, loc, f32, arith::ShRUIOp::create(b, loc, bits, i32Const(b, loc, 8))),
      f(0x1p-24f));
  Value up = select(lt(u, frac), f(1.0f), f(0.0f));
  Value rounded = arith::MulFOp::create(
      b, loc, arith::AddFOp::create(b, loc, fl, up), spacing);
  // |v| >= 6 (and inf) saturates; NaN fails every comparison: the
  // round-to-nearest conversion's code below.
  Value magnitude = select(lt(a, f(6.0f)), rounded, f(6.0f));
  Value isNaN =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  Value signed_ = arith::BitcastOp::create(
      b, loc, f32,
      arith::OrIOp::create(b, loc,
                           arith::BitcastOp::create(b, loc, i32, magnitude),
                           sign));
  Value value = select(isNaN, v, signed_);
  Value code = emitEncodeF32(b, loc, value, SmallFloatFormat::e2m1());
  return code;
}
