//===- GemmFp4Code.cpp - GEMM kernels: NVFP4 to f16 -----------------------===//
//
// sm_90a NVFP4 GEMMs: the consumers convert each k-tile's E2M1 codes
// times their E4M3 block scales to f16 in shared memory (GemmCode.h:
// convertFp4, fp4ScaleCodes), with prmt / cvt / mul.f16x2 on the GPU and
// their arith emulation on the CPU.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "GemmPtx.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

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
  Value kb0 = env.add(env.mul(kt, i(8)), env.mul(band(t, 1), i(4)));
  SmallVector<Value> blocks;
  for (int64_t q = 0; q < 4; ++q)
    blocks.push_back(env.add(kb0, i(q)));
  return operandScaleCodes(tm, tn, env.add(env.mul(consumer, i(64)), shr(t, 1)),
                           blocks, scalesA, scalesB);
}

SmallVector<Value> GemmCode::operandScaleCodes(Value tm, Value tn,
                                               Value rowInTile,
                                               ArrayRef<Value> blocks,
                                               Value scalesA, Value scalesB) {
  SmallVector<Value> codes;
  for (auto [op, scales, firstRow] :
       {std::tuple<const OperandPlan &, Value, Value>{plan.a, scalesA,
                                                      env.mul(tm, i(kTileM))},
        {plan.b, scalesB, env.mul(tn, i(plan.tileN))}})
    for (Value kb : blocks)
      codes.push_back(
          blockScaleCode(op, scales, env.add(firstRow, rowInTile), kb));
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
