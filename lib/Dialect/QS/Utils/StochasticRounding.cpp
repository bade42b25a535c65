//===- StochasticRounding.cpp - NVFP4 stochastic rounding in arith --------===//
//
// See StochasticRounding.h for the definition. Philox4x32-10 is Salmon et
// al., "Parallel random numbers: as easy as 1, 2, 3" (SC'11): ten rounds
// of two 32x32->64 multiplications, the key bumped by the Weyl constants
// between rounds.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/Utils/StochasticRounding.h"
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

Value qs::emitE2M1Stochastic(OpBuilder &b, Location loc, Value v, Value byte) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  auto f = [&](float c) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(c)).getResult();
  };
  auto i = [&](uint32_t c) { return i32Const(b, loc, c); };
  auto lt = [&](Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y)
        .getResult();
  };
  auto select = [&](Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y).getResult();
  };
  Value vBits = arith::BitcastOp::create(b, loc, i32, v);
  Value a = arith::BitcastOp::create(
      b, loc, f32, arith::AndIOp::create(b, loc, vBits, i(0x7FFFFFFFu)));
  // The E2M1 grid in three runs of equal spacing s: |v| in [0, 2) (s = 1/2,
  // codes 0..4), [2, 4) (s = 1, codes 4..6), [4, 6] (s = 2, codes 6, 7). In
  // units of s from the run's start, t = |v| / s (exact: s is a power of
  // two) and the code is base + floor(t) rounded down, + 1 rounded up.
  Value lt2 = lt(a, f(2.0f)), lt4 = lt(a, f(4.0f));
  Value inv = select(lt2, f(2.0f), select(lt4, f(1.0f), f(0.5f)));
  Value base = select(lt2, i(0), select(lt4, i(2), i(4)));
  // t < 3 for every |v| < 6; larger values and NaN (minnumf gives 7) are
  // clamped so that the conversion never overflows (LLVM's fptoui of
  // those is poison); base + 7 > 7 then saturates below.
  Value t = arith::MinNumFOp::create(
      b, loc, arith::MulFOp::create(b, loc, a, inv), f(7.0f));
  // floor(t) for 0 <= t <= 7: f32 -> i32 truncates; t - floor(t) is exact.
  Value whole = arith::FPToUIOp::create(b, loc, i32, t);
  Value frac = arith::SubFOp::create(
      b, loc, t, arith::UIToFPOp::create(b, loc, f32, whole));
  // Up iff (byte + 1/2) * 2^-8 < frac (both exact in f32).
  Value u = arith::MulFOp::create(
      b, loc,
      arith::AddFOp::create(b, loc, arith::UIToFPOp::create(b, loc, f32, byte),
                            f(0.5f)),
      f(0x1p-8f));
  Value up = arith::ExtUIOp::create(b, loc, i32, lt(u, frac));
  Value magnitude = arith::MinUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, base, whole),
                            up),
      i(7));
  // v's sign (a negative value rounding to zero is 0x8), none for NaN.
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  Value sign = select(
      isNaN, i(0),
      arith::ShRUIOp::create(
          b, loc, arith::AndIOp::create(b, loc, vBits, i(0x80000000u)), i(28)));
  return arith::TruncIOp::create(b, loc, b.getI8Type(),
                                 arith::OrIOp::create(b, loc, magnitude, sign));
}
