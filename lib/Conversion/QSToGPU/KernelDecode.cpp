//===- KernelDecode.cpp - codes to f32 and f32 to 16-bit pairs ------------===//
//
// The KernelEnv conversions of the dequantize direction: FP8 and E2M1 codes
// to f32 values, and pairs of f32 values to bf16/f16 words. On the GPU
// they use the packed conversions where the chip has them; the emulation
// computes the same values with the reference's arithmetic.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;

/// The f32 values of the f16 halves (low, high) of i32 `word`.
static std::pair<Value, Value> f16Halves(OpBuilder &b, Location loc, Value word,
                                         bool gpu) {
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  auto half = [&](int64_t k) {
    Value bits = arith::TruncIOp::create(
        b, loc, i16,
        k ? arith::ShRUIOp::create(
                b, loc, word, arith::ConstantIntOp::create(b, loc, i32, 16))
                .getResult()
          : word);
    Value h = arith::BitcastOp::create(b, loc, b.getF16Type(), bits);
    // cvt.f32.f16 on the GPU; the reference's decoder in the emulation
    // (the same value: f32 holds every f16).
    return gpu ? arith::ExtFOp::create(b, loc, b.getF32Type(), h).getResult()
               : emitExtToF32(b, loc, h);
  };
  return {half(0), half(1)};
}

std::pair<Value, Value>
KernelEnv::decodeFp8Pair(Value lo, Value hi, const SmallFloatFormat &format) {
  if (!gpu || !hardwareFp8)
    return {emitDecodeToF32(b, loc, lo, format),
            emitDecodeToF32(b, loc, hi, format)};
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  // cvt.rn.f16x2.e4m3x2 d, a: a's low byte to d's low half.
  Value pair = arith::OrIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, i16, lo),
      arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i16, hi),
                            arith::ConstantIntOp::create(b, loc, i16, 8)));
  Value halves = pureAsm(b, loc, i32, {pair},
                         format.expBits == 5 ? "cvt.rn.f16x2.e5m2x2 $0, $1;"
                                             : "cvt.rn.f16x2.e4m3x2 $0, $1;",
                         "=r,h");
  return f16Halves(b, loc, halves, true);
}

SmallVector<Value> KernelEnv::decodeE2M1Word(Value word) {
  Type i32 = b.getI32Type();
  auto c = [&](uint32_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, static_cast<int32_t>(v))
        .getResult();
  };
  SmallVector<Value> values(8);
  if (gpu && hardwareMx) {
    for (int64_t k = 0; k < 4; ++k) {
      // cvt.rn.f16x2.e2m1x2 d, a (a .b8): a's low nibble to d's low half.
      std::string text =
          "{\n.reg .b8 qsb0, qsb1, qsb2, qsb3;\nmov.b32 {qsb0, qsb1, qsb2, "
          "qsb3}, $1;\ncvt.rn.f16x2.e2m1x2 $0, qsb" +
          std::to_string(k) + ";\n}";
      Value halves = pureAsm(b, loc, i32, {word}, text, "=r,r");
      std::tie(values[2 * k], values[2 * k + 1]) =
          f16Halves(b, loc, halves, true);
    }
    return values;
  }
  auto shift = [&](Value v, int64_t by) -> Value {
    if (by >= 0)
      return arith::ShLIOp::create(b, loc, v, c(by));
    return arith::ShRUIOp::create(b, loc, v, c(-by));
  };
  for (int64_t k = 0; k < 4; ++k) {
    // Codes k (low half) and k + 4 (high half): magnitudes at bits 4k..4k+2
    // and 4k+16.. to bits 9-11 and 25-27, signs (bits 4k+3, 4k+19) to 15
    // and 31.
    Value magnitudes =
        arith::AndIOp::create(b, loc, shift(word, 9 - 4 * k), c(0x0E000E00u));
    Value signs =
        arith::AndIOp::create(b, loc, shift(word, 12 - 4 * k), c(0x80008000u));
    Value bits = arith::OrIOp::create(b, loc, magnitudes, signs);
    Value lo, hi;
    if (gpu) {
      // One mul.rn.f16x2 by 2^14 (0x7400) for both halves.
      auto pairType = VectorType::get({2}, b.getF16Type());
      Value pair = vector::BitCastOp::create(
          b, loc, pairType,
          vector::FromElementsOp::create(b, loc, VectorType::get({1}, i32),
                                         ValueRange{bits}));
      Value scale = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(pairType,
                                 b.getFloatAttr(b.getF16Type(), 16384.0)));
      pair = arith::MulFOp::create(b, loc, pair, scale);
      Value scaled = vector::ExtractOp::create(
          b, loc,
          vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair),
          ArrayRef<int64_t>{0});
      std::tie(lo, hi) = f16Halves(b, loc, scaled, true);
    } else {
      // The emulation multiplies the widened values (exact either way).
      std::tie(lo, hi) = f16Halves(b, loc, bits, false);
      lo = arith::MulFOp::create(b, loc, lo, f32(16384.0f));
      hi = arith::MulFOp::create(b, loc, hi, f32(16384.0f));
    }
    values[k] = lo;
    values[k + 4] = hi;
  }
  return values;
}

Value KernelEnv::packFromF32Pair(Value lo, Value hi, Type type) {
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  auto c = [&](uint32_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, static_cast<int32_t>(v))
        .getResult();
  };
  if (!gpu) {
    auto bits = [&](Value v) {
      return arith::ExtUIOp::create(
          b, loc, i32, arith::BitcastOp::create(b, loc, i16, fromF32(v, type)));
    };
    return arith::OrIOp::create(b, loc, bits(lo),
                                arith::ShLIOp::create(b, loc, bits(hi), c(16)));
  }
  bool bf16 = type.isBF16();
  SmallFloatFormat format =
      bf16 ? SmallFloatFormat::bf16() : SmallFloatFormat::f16();
  uint32_t inf = ((1u << format.expBits) - 1) << format.manBits;
  uint32_t nan = format.nanCode;
  // cvt.rn.{bf16,f16}x2.f32 d, a, b puts a in the upper half.
  Value word = pureAsm(b, loc, i32, {hi, lo},
                       bf16 ? "cvt.rn.bf16x2.f32 $0, $1, $2;"
                            : "cvt.rn.f16x2.f32 $0, $1, $2;",
                       "=r,f,f");
  // Bit 15 of each half of (w | 0x80008000) - (inf + 1) 0x10001 is set
  // where the half's magnitude exceeds infinity's (no borrow crosses the
  // halves); prmt's sign mode spreads it over the half.
  Value n = arith::SubIOp::create(
      b, loc, arith::OrIOp::create(b, loc, word, c(0x80008000u)),
      c((inf + 1) * 0x10001u));
  Value m = permute(n, n, 0xBB99u);
  return arith::OrIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, word,
                            arith::XOrIOp::create(b, loc, m, c(~0u))),
      arith::AndIOp::create(b, loc, m, c(nan * 0x10001u)));
}
