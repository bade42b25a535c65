//===- GemmMxConvert.cpp - GEMM kernels: MXFP8 to bf16 --------------------===//
//
// sm_90a MXFP8 GEMMs with qs.gemm_mx_scaling = "convert": the consumers
// convert each half k-tile's FP8 codes (K-major or MN-major) times their
// E8M0 block scales to K-major bf16 tiles in shared memory (GemmCode.h:
// convertMx, mxScaleCodes), with cvt / mul.rn.f32 on the GPU and their arith
// emulation on the CPU.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "GemmPtx.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

SmallVector<Value> GemmCode::mxScaleCodes(Value tm, Value tn, Value consumer,
                                          Value t, Value kt, Value scalesA,
                                          Value scalesB) {
  // Each code zero-extended to i32 where it is loaded (ld.global.u8 does
  // it): carried as i8, each decode masked it again, twice.
  SmallVector<Value> codes;
  auto push = [&](Value code) {
    codes.push_back(
        arith::ExtUIOp::create(env.b, env.loc, env.b.getI32Type(), code));
  };
  Value rowInHalf = env.add(env.mul(consumer, i(64)), band(t, 63));
  auto [firstCol, g] = mxMNMajorSlice(consumer, t);
  for (auto [op, scales, firstRow] :
       {std::tuple<const OperandPlan &, Value, Value>{plan.a, scalesA,
                                                      env.mul(tm, i(kTileM))},
        {plan.b, scalesB, env.mul(tn, i(plan.tileN))}})
    for (int64_t h = 0; h < 2; ++h) {
      if (!op.mnMajor) {
        Value kb = env.add(env.mul(kt, i(4)), env.add(i(2 * h), shr(t, 6)));
        push(blockScaleCode(op, scales, env.add(firstRow, rowInHalf), kb));
        continue;
      }
      Value kb = env.add(env.mul(kt, i(4)), env.add(i(2 * h), shr(g, 2)));
      for (int64_t r = 0; r < 4; ++r)
        push(blockScaleCode(op, scales,
                            env.add(firstRow, env.add(firstCol, i(r))), kb));
    }
  return codes;
}

std::pair<Value, Value> GemmCode::mxMNMajorSlice(Value consumer, Value t) {
  Value thread = env.add(env.mul(consumer, i(kWarpgroup)), t);
  Value lane = band(thread, 31);
  return {env.mul(lane, i(4)), band(env.add(shr(thread, 5), shr(lane, 1)), 7)};
}

SmallVector<Value, 2> gemm::convertMxWord(KernelEnv &env, StringRef type,
                                          Value word, Value scale0,
                                          Value scale1) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type i32 = b.getI32Type();
  if (env.gpu) {
    // Each 16-bit pair: cvt to f16x2 (exact), both halves to f32, times the
    // scale (exact but below 2^-126), packed to bf16x2 (then exact too).
    std::string cvt = ("cvt.rn.f16x2." + type + "x2").str();
    std::string text =
        "{\n.reg .b16 p<2>, q<4>;\n.reg .b32 h<2>;\n.reg .f32 f<4>;\n"
        "mov.b32 {p0, p1}, $2;\n" +
        cvt + " h0, p0;\n" + cvt +
        " h1, p1;\n"
        "mov.b32 {q0, q1}, h0;\nmov.b32 {q2, q3}, h1;\n"
        "cvt.f32.f16 f0, q0;\ncvt.f32.f16 f1, q1;\n"
        "cvt.f32.f16 f2, q2;\ncvt.f32.f16 f3, q3;\n"
        "mul.rn.f32 f0, f0, $3;\nmul.rn.f32 f1, f1, $3;\n"
        "mul.rn.f32 f2, f2, $4;\nmul.rn.f32 f3, f3, $4;\n"
        "cvt.rn.bf16x2.f32 $0, f1, f0;\ncvt.rn.bf16x2.f32 $1, f3, f2;\n}";
    auto pair = LLVM::LLVMStructType::getLiteral(b.getContext(), {i32, i32});
    Value out = Ptx{b, loc}(pair, {word, scale0, scale1}, text, "=r,=r,r,f,f");
    return {LLVM::ExtractValueOp::create(b, loc, out, 0),
            LLVM::ExtractValueOp::create(b, loc, out, 1)};
  }
  SmallFloatFormat format =
      type == "e5m2" ? SmallFloatFormat::e5m2() : SmallFloatFormat::e4m3();
  auto c32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  SmallVector<Value, 2> out;
  for (int64_t w = 0; w < 2; ++w) {
    Value packed;
    for (int64_t e = 0; e < 2; ++e) {
      int64_t byte = 2 * w + e;
      Value code = arith::TruncIOp::create(
          b, loc, b.getI8Type(),
          arith::ShRUIOp::create(b, loc, word, c32(8 * byte)));
      Value value = arith::MulFOp::create(
          b, loc, emitDecodeToF32(b, loc, code, format), w ? scale1 : scale0);
      // bf16 bits in the upper half of the rounded f32.
      Value bits = arith::ShRUIOp::create(
          b, loc, arith::BitcastOp::create(b, loc, i32, env.roundToBf16(value)),
          c32(16));
      if (e)
        bits = arith::ShLIOp::create(b, loc, bits, c32(16));
      packed = packed ? arith::OrIOp::create(b, loc, packed, bits).getResult()
                      : bits;
    }
    out.push_back(packed);
  }
  return out;
}

void GemmCode::convertMx(
    Value consumer, Value t, Value s, int64_t h, Value buffer,
    ArrayRef<Value> codes, const std::function<Value(Value)> &load4,
    const std::function<SmallVector<Value>(Value)> &load16,
    const std::function<void(Value, ArrayRef<Value>)> &store16) {
  // K-major: thread t, row consumer * 64 + t % 64, elements 32 (t / 64) ..
  // + 31 of each half k-tile, so that the eight threads of a quarter warp
  // read (and write) eight consecutive rows at one logical 16-byte chunk:
  // eight different physical chunks under the 128-byte swizzle, no bank
  // conflicts.
  Value rowInHalf = env.add(env.mul(consumer, i(64)), band(t, 63));
  Value half = shr(t, 6);
  auto convertRow = [&](Value code, StringRef type, Value stage, Value tile,
                        int64_t tileRows) {
    Value scale = emitE8M0ToF32(env.b, env.loc, code);
    // Elements 64 h + 32 half .. + 31 of the row: two 16-byte chunks of
    // the stage's 128-byte-swizzled row, four 16-byte stores of bf16 into
    // the converted chunk (64 elements a row, swizzled by store16).
    Value row = env.add(stage, env.mul(rowInHalf, i(kTileK)));
    for (int64_t c = 0; c < 2; ++c) {
      Value src =
          env.add(row, env.add(i(64 * h + 16 * c), env.mul(half, i(32))));
      SmallVector<Value> words = load16(swizzle(*this, src));
      for (int64_t g = 0; g < 2; ++g) {
        SmallVector<Value> out;
        for (int64_t w = 0; w < 2; ++w)
          llvm::append_range(
              out, convertMxWord(env, type, words[2 * g + w], scale, scale));
        Value e = env.add(env.mul(half, i(32)), i(16 * c + 8 * g));
        store16(convertedAt(tile, tileRows, i(0), rowInHalf, e), out);
      }
    }
  };
  // MN-major (mxMNMajorSlice): rows r0 .. r0 + 3, elements 8 g .. + 7 of
  // the half; per pair of K rows two 4-byte loads (the four rows' codes at
  // k and k + 1), two prmt into the rows' 16-bit pairs along K.
  auto [sliceCol, sliceK] = mxMNMajorSlice(consumer, t);
  Value firstCol = sliceCol, g = sliceK;
  auto convertColumns = [&](ArrayRef<Value> rowCodes, StringRef type,
                            Value stage, Value tile, int64_t tileRows) {
    SmallVector<Value> scales;
    for (Value code : rowCodes)
      scales.push_back(emitE8M0ToF32(env.b, env.loc, code));
    Value k0 = env.add(i(64 * h), env.mul(g, i(8)));
    SmallVector<SmallVector<Value>> rows(4);
    for (int64_t p = 0; p < 4; ++p) {
      Value at =
          env.add(stage, env.add(env.mul(env.add(k0, i(2 * p)), i(tileRows)),
                                 firstCol));
      Value atK = load4(at), atK1 = load4(env.add(at, i(tileRows)));
      for (int64_t q = 0; q < 2; ++q) {
        // Rows 2q and 2q + 1: bytes {2q at k, at k + 1, 2q + 1 at k, at
        // k + 1}.
        Value pairs = prmt(atK, atK1, q ? 0x7362u : 0x5140u);
        SmallVector<Value, 2> out =
            convertMxWord(env, type, pairs, scales[2 * q], scales[2 * q + 1]);
        rows[2 * q].push_back(out[0]);
        rows[2 * q + 1].push_back(out[1]);
      }
    }
    for (int64_t r = 0; r < 4; ++r)
      store16(convertedAt(tile, tileRows, i(0), env.add(firstCol, i(r)),
                          env.mul(g, i(8))),
              rows[r]);
  };
  ArrayRef<Value> rest = codes;
  for (auto [op, type, stage, tile, tileRows] :
       {std::tuple<const OperandPlan &, StringRef, Value, Value, int64_t>{
            plan.a, plan.typeA, stageA(s), convertedA(buffer), kTileM},
        {plan.b, plan.typeB, stageB(s), convertedB(buffer), plan.tileN}}) {
    ArrayRef<Value> own = rest.take_front(mxCodes(op));
    rest = rest.drop_front(mxCodes(op));
    if (op.mnMajor)
      convertColumns(own.slice(4 * h, 4), type, stage, tile, tileRows);
    else
      convertRow(own[h], type, stage, tile, tileRows);
  }
}
