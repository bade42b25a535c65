//===- FloatEmulation.cpp - exact small-float conversions in arith --------===//
//
// All arithmetic is on i32 bit patterns; see FloatEmulation.h for the
// semantics. The encoder is the textbook one: for a target normal, drop
// 23 - M mantissa bits with round-to-nearest-even on the f32 bit pattern (a
// carry into the exponent is the correct result) and rebias; for a target
// subnormal, shift the 24-bit significand right with RNE. Saturation is a
// clamp of the magnitude code, which is equivalent to satfinite because
// rounding is monotonic. E2M1 (eight magnitudes) takes a shorter path:
// three comparisons against its rounding boundaries.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/Utils/FloatEmulation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "qs/Dialect/QS/Utils/E2M1Boundaries.h"
#include "llvm/ADT/bit.h"
#include <cmath>

using namespace mlir;
using namespace mlir::qs;

SmallFloatFormat SmallFloatFormat::e4m3() {
  return {4, 3, 7, /*saturate=*/true, 0x7E, 0x7F, /*ieee=*/false, 0x7F, 8};
}
SmallFloatFormat SmallFloatFormat::e5m2() {
  return {5, 2, 15, /*saturate=*/true, 0x7B, 0x7F, /*ieee=*/true, 0, 8};
}
SmallFloatFormat SmallFloatFormat::e2m1() {
  return {2, 1, 1, /*saturate=*/true, 0x7, 0x7, /*ieee=*/false, 0, 8};
}
SmallFloatFormat SmallFloatFormat::f16() {
  return {5, 10, 15, /*saturate=*/false, 0x7BFF, 0x7E00, /*ieee=*/true, 0, 16};
}
SmallFloatFormat SmallFloatFormat::bf16() {
  return {8, 7, 127, /*saturate=*/false, 0x7F7F, 0x7FC0, /*ieee=*/true, 0, 16};
}

std::optional<SmallFloatFormat> SmallFloatFormat::get(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return e4m3();
  if (isa<Float8E5M2Type>(type))
    return e5m2();
  if (isa<Float4E2M1FNType>(type))
    return e2m1();
  if (type.isF16())
    return f16();
  if (type.isBF16())
    return bf16();
  return std::nullopt;
}

namespace {
/// Small helper to build i32 arithmetic tersely.
struct I32Builder {
  OpBuilder &b;
  Location loc;
  Type i32;
  I32Builder(OpBuilder &b, Location loc) : b(b), loc(loc), i32(b.getI32Type()) {}

  Value c(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, static_cast<int32_t>(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value minu(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value maxs(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value mins(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value bitsOf(Value f32) { return arith::BitcastOp::create(b, loc, i32, f32); }
  Value floatOf(Value bits) {
    return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
  }
  /// Round-to-nearest-even right shift of a non-negative value by `s` >= 1.
  Value rneShift(Value v, Value s) {
    Value one = c(1);
    Value half = sub(shl(one, sub(s, one)), one);
    Value odd = andi(shr(v, s), one);
    return shr(add(add(v, half), odd), s);
  }
};
} // namespace

/// The magnitude code (0-7) of E2M1 with RNE and saturation for `abs`, the
/// bit pattern of |v| (NaN gives 7): the number of rounding boundaries
/// (E2M1Boundaries.h, te-formats.md e2m1_rn_sat's threshold table) |v|
/// passes, found as a binary search on the bit patterns (monotonic in |v|):
/// boundary 3, then 1 or 5, then one of the even ones. Three comparisons
/// instead of the general path's shifts and rounding.
static Value e2m1Magnitude(I32Builder &i, Value abs) {
  using P = arith::CmpIPredicate;
  // The search compares with one predicate per level: the odd boundaries
  // pass at equality (the tie goes to the even code above), the even ones
  // only above.
  static_assert(kE2M1BoundaryInclusive[1] && kE2M1BoundaryInclusive[3] &&
                kE2M1BoundaryInclusive[5]);
  static_assert(!kE2M1BoundaryInclusive[0] && !kE2M1BoundaryInclusive[2] &&
                !kE2M1BoundaryInclusive[4] && !kE2M1BoundaryInclusive[6]);
  auto bound = [&](int k) {
    return i.c(llvm::bit_cast<uint32_t>(kE2M1Boundaries[k]));
  };
  Value b2 = i.cmp(P::uge, abs, bound(3));
  Value b1 = i.cmp(P::uge, abs, i.select(b2, bound(5), bound(1)));
  Value t0 = i.select(b2, i.select(b1, bound(6), bound(4)),
                      i.select(b1, bound(2), bound(0)));
  Value b0 = i.cmp(P::ugt, abs, t0);
  return i.ori(
      i.ori(i.select(b2, i.c(4), i.c(0)), i.select(b1, i.c(2), i.c(0))),
      i.select(b0, i.c(1), i.c(0)));
}

Value mlir::qs::emitEncodeF32(OpBuilder &b, Location loc, Value f32Value,
                              const SmallFloatFormat &f) {
  I32Builder i(b, loc);
  using P = arith::CmpIPredicate;
  Value bits = i.bitsOf(f32Value);
  Value sign = i.shr(bits, i.c(31));
  Value abs = i.andi(bits, i.c(0x7FFFFFFF));
  Value isNaN = i.cmp(P::ugt, abs, i.c(0x7F800000));
  if (f.expBits == 2 && f.manBits == 1 && f.saturate) {
    Value code = i.ori(e2m1Magnitude(i, abs), i.shl(sign, i.c(3)));
    code = i.select(isNaN, i.c(f.nanCode), code);
    return arith::TruncIOp::create(b, loc, b.getIntegerType(f.storageBits),
                                   code);
  }
  Value ef = i.shr(abs, i.c(23));

  // Target normal: drop 23 - M bits with RNE, then rebias the exponent.
  Value normal =
      i.sub(i.rneShift(abs, i.c(23 - f.manBits)),
            i.c(static_cast<int64_t>(127 - f.bias) << f.manBits));
  // Target subnormal: significand (with the implicit bit) times 2^(e - 23),
  // in units of 2^(1 - bias - M).
  Value efMin1 = i.maxs(ef, i.c(1));
  Value implicit = i.select(i.cmp(P::ne, ef, i.c(0)), i.c(0x800000), i.c(0));
  Value significand = i.ori(i.andi(abs, i.c(0x7FFFFF)), implicit);
  Value shift = i.sub(i.c(151 - f.bias - static_cast<int>(f.manBits)), efMin1);
  Value subnormal = i.rneShift(significand, i.mins(shift, i.c(30)));
  // Target exponent of the value: ef - 127 + bias >= 1 means normal.
  Value isNormal = i.cmp(P::sge, ef, i.c(128 - f.bias));
  Value code = i.select(isNormal, normal, subnormal);

  uint32_t infCode = ((1u << f.expBits) - 1) << f.manBits;
  if (f.saturate)
    code = i.minu(code, i.c(f.maxCode));
  else
    code = i.minu(code, i.c(infCode));
  code = i.ori(code, i.shl(sign, i.c(f.expBits + f.manBits)));
  code = i.select(isNaN, i.c(f.nanCode), code);
  return arith::TruncIOp::create(b, loc, b.getIntegerType(f.storageBits),
                                 code);
}

Value mlir::qs::emitDecodeToF32(OpBuilder &b, Location loc, Value code,
                                const SmallFloatFormat &f) {
  I32Builder i(b, loc);
  using P = arith::CmpIPredicate;
  Value c = arith::ExtUIOp::create(b, loc, i.i32, code);
  unsigned width = f.expBits + f.manBits;
  Value sign = i.andi(i.shr(c, i.c(width)), i.c(1));
  Value mag = i.andi(c, i.c((1u << width) - 1));
  Value e = i.shr(mag, i.c(f.manBits));
  Value m = i.andi(mag, i.c((1u << f.manBits) - 1));

  // Normal: rebias the exponent, left-align the mantissa.
  Value normalBits =
      i.ori(i.shl(i.add(e, i.c(127 - f.bias)), i.c(23)),
            i.shl(m, i.c(23 - f.manBits)));
  // Subnormal: m * 2^(1 - bias - M), exact in f32.
  Value mf = arith::UIToFPOp::create(b, loc, b.getF32Type(), m);
  float unit = std::ldexp(1.0f, 1 - f.bias - static_cast<int>(f.manBits));
  Value sub = arith::MulFOp::create(
      b, loc, mf, arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                                 llvm::APFloat(unit)));
  Value bits = i.select(i.cmp(P::eq, e, i.c(0)), i.bitsOf(sub), normalBits);

  uint32_t expAllOnes = (1u << f.expBits) - 1;
  if (f.ieeeSpecials) {
    Value special = i.cmp(P::eq, e, i.c(expAllOnes));
    Value inf = i.select(i.cmp(P::eq, m, i.c(0)), i.c(0x7F800000),
                         i.c(0x7FC00000));
    bits = i.select(special, inf, bits);
  } else if (f.nanMagnitude) {
    bits = i.select(i.cmp(P::uge, mag, i.c(f.nanMagnitude)), i.c(0x7FC00000),
                    bits);
  }
  bits = i.ori(bits, i.shl(sign, i.c(31)));
  return i.floatOf(bits);
}

Value mlir::qs::emitE8M0Ceil(OpBuilder &b, Location loc, Value f32Value) {
  I32Builder i(b, loc);
  using P = arith::CmpIPredicate;
  Value bits = i.bitsOf(f32Value);
  Value exponent = i.andi(i.shr(bits, i.c(23)), i.c(0xFF));
  Value mantissa = i.andi(bits, i.c(0x7FFFFF));
  // Round up unless exact, saturated (0xFE) or a subnormal <= 2^-127.
  Value inexact = i.cmp(P::ne, mantissa, i.c(0));
  Value notTop = i.cmp(P::ne, exponent, i.c(0xFE));
  Value tinySub = arith::AndIOp::create(
      b, loc, i.cmp(P::eq, exponent, i.c(0)),
      i.cmp(P::ule, mantissa, i.c(0x400000)));
  Value roundUp = arith::AndIOp::create(
      b, loc, arith::AndIOp::create(b, loc, inexact, notTop),
      arith::XOrIOp::create(
          b, loc, tinySub,
          arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)));
  Value e = i.add(exponent, arith::ExtUIOp::create(b, loc, i.i32, roundUp));
  Value abs = i.andi(bits, i.c(0x7FFFFFFF));
  e = i.select(i.cmp(P::eq, abs, i.c(0x7F800000)), i.c(0xFE), e);
  e = i.select(i.cmp(P::ugt, abs, i.c(0x7F800000)), i.c(0xFF), e);
  return arith::TruncIOp::create(b, loc, b.getI8Type(), e);
}

Value mlir::qs::emitE8M0ToF32(OpBuilder &b, Location loc, Value code) {
  I32Builder i(b, loc);
  Value e = code.getType().isInteger(32)
                ? code
                : arith::ExtUIOp::create(b, loc, i.i32, code).getResult();
  // FP32 bits of 2^(e - 127) without compares or selects (the GEMM kernels
  // decode block scales in their inner loops): the exponent field e << 23;
  // the quiet-NaN bit 0x400000 for e = 255, which is bit 22 of (e + 1) <<
  // 14 exactly then (e + 1 = 256); and at least 0x400000, 2^-127, for
  // e = 0. Four integer operations (the selects took six to eight SASS
  // instructions).
  Value nanBit = i.andi(i.shl(i.add(e, i.c(1)), i.c(14)), i.c(0x00400000));
  Value bits = i.maxs(i.ori(i.shl(e, i.c(23)), nanBit), i.c(0x00400000));
  return i.floatOf(bits);
}

Value mlir::qs::emitE8M0ReciprocalToF32(OpBuilder &b, Location loc,
                                        Value code) {
  I32Builder i(b, loc);
  using P = arith::CmpIPredicate;
  Value e = arith::ExtUIOp::create(b, loc, i.i32, code);
  // 2^(127 - e) = exponent field 254 - e for e <= 253.
  Value bits = i.shl(i.sub(i.c(254), i.mins(e, i.c(253))), i.c(23));
  bits = i.select(i.cmp(P::eq, e, i.c(254)), i.c(0x00400000), bits);
  bits = i.select(i.cmp(P::eq, e, i.c(0xFF)), i.c(0x7FC00000), bits);
  return i.floatOf(bits);
}

Value mlir::qs::emitRoundToFormat(OpBuilder &b, Location loc, Value f32Value,
                                  const SmallFloatFormat &format) {
  return emitDecodeToF32(b, loc, emitEncodeF32(b, loc, f32Value, format),
                         format);
}

Value mlir::qs::emitExtToF32(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (type.isF32())
    return value;
  if (type.isBF16()) {
    Value bits = arith::BitcastOp::create(b, loc, b.getI16Type(), value);
    Value wide = arith::ExtUIOp::create(b, loc, b.getI32Type(), bits);
    Value shifted = arith::ShLIOp::create(
        b, loc, wide, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 16));
    return arith::BitcastOp::create(b, loc, b.getF32Type(), shifted);
  }
  std::optional<SmallFloatFormat> format = SmallFloatFormat::get(type);
  assert(format && "unsupported float type");
  Value bits = arith::BitcastOp::create(
      b, loc, b.getIntegerType(format->storageBits), value);
  return emitDecodeToF32(b, loc, bits, *format);
}

Value mlir::qs::emitTruncFromF32(OpBuilder &b, Location loc, Value f32Value,
                                 Type type) {
  if (type.isF32())
    return f32Value;
  std::optional<SmallFloatFormat> format = SmallFloatFormat::get(type);
  assert(format && "unsupported float type");
  Value code = emitEncodeF32(b, loc, f32Value, *format);
  return arith::BitcastOp::create(b, loc, type, code);
}

Value mlir::qs::emitCanonicalNaN(OpBuilder &b, Location loc, Value f32Value) {
  Value nan = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(llvm::bit_cast<float>(0x7FC00000u)));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                      f32Value, f32Value);
  return arith::SelectOp::create(b, loc, isNaN, nan, f32Value);
}
