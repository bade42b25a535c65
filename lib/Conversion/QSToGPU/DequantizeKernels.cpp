//===- DequantizeKernels.cpp - the dequantize kernel ----------------------===//
//
// qs.dequantize on the GPU: the values of the row-wise representation (or
// the column-wise one when it is the only one), each element decoded and
// multiplied by its block's factor as the reference does, 16 per thread.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "QuantizePlan.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::quant;

//===----------------------------------------------------------------------===//
// Dequantize
//===----------------------------------------------------------------------===//

/// The code (i8, FP8 byte or E2M1 nibble) of element (r, c) of the logical
/// [M, K] tensor in representation `rep`.
static Value loadCode(KernelEnv &env, const Plan &p, const Rep &r, Value row,
                      Value col) {
  OpBuilder &b = env.b;
  Value at;
  if (!r.columnwise || r.xLayout)
    at = env.add(env.mul(row, env.idx(p.k)), col);
  else
    at = env.add(env.mul(col, env.idx(p.m)), row);
  Value buf = env.args[r.dataArg];
  if (!r.fp4) {
    Value v = load1(env, buf, at);
    return arith::BitcastOp::create(b, env.loc, b.getI8Type(), v);
  }
  Value byte = load1(env, buf, env.div(at, env.idx(2)));
  Value odd = arith::IndexCastOp::create(b, env.loc, b.getI8Type(),
                                         env.rem(at, env.idx(2)));
  Value shift = arith::MulIOp::create(
      b, env.loc, odd,
      arith::ConstantIntOp::create(b, env.loc, b.getI8Type(), 4));
  Value nibble = arith::ShRUIOp::create(b, env.loc, byte, shift);
  return arith::AndIOp::create(
      b, env.loc, nibble,
      arith::ConstantIntOp::create(b, env.loc, b.getI8Type(), 0xF));
}

/// The factor of element (r, c)'s block: the representation's scale
/// inverse, decoded block scale times what the format multiplies it by.
static Value dequantizeFactor(KernelEnv &env, const Plan &p, const Rep &r,
                              Value row, Value col) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value zRow = r.columnwise ? col : row, zCol = r.columnwise ? row : col;
  switch (r.kind) {
  case ScaleKind::PerTensor:
    return load1(env, env.args[p.scaleInvArg], env.idx(0));
  case ScaleKind::E8M0: {
    Value e = load1(env, env.args[r.scaleArg],
                    r.scaleIndex(env, zRow, env.div(zCol, env.idx(32))));
    return emitE8M0ToF32(b, loc,
                         arith::BitcastOp::create(b, loc, b.getI8Type(), e));
  }
  case ScaleKind::F32Block:
    return load1(env, env.args[r.scaleArg],
                 r.scaleIndex(env, zRow, env.div(zCol, env.idx(128))));
  case ScaleKind::NVFP4: {
    Value sf = load1(env, env.args[r.scaleArg],
                     r.scaleIndex(env, zRow, env.div(zCol, env.idx(16))));
    sf = emitDecodeToF32(b, loc,
                         arith::BitcastOp::create(b, loc, b.getI8Type(), sf),
                         SmallFloatFormat::e4m3());
    Value g = load1(env, env.args[r.amaxArg], r.rowScaled ? zRow : env.idx(0));
    return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, sf, g),
                                 env.f32(nvfp4InvSixE(r.e4m3Max)));
  }
  }
  llvm_unreachable("scale kind");
}

/// The f32 value of element (r, c).
static Value dequantizeElement(KernelEnv &env, const Plan &p, const Rep &r,
                               Value row, Value col) {
  Value q =
      emitDecodeToF32(env.b, env.loc, loadCode(env, p, r, row, col), r.format);
  return arith::MulFOp::create(env.b, env.loc, q,
                               dequantizeFactor(env, p, r, row, col));
}

/// The f32 values of the 16 codes of row `row`, columns `c0` ... `c0` + 15
/// of a row-wise representation (`c0` a multiple of 16, K too): one
/// vector load of their 16 (8 for FP4) bytes, one factor (every block
/// length is a multiple of 16), the FP8 codes decoded in pairs
/// (KernelEnv::decodeFp8Pair: cvt.rn.f16x2.e4m3x2 / e5m2x2 on the GPU; a
/// NaN's pattern may differ from the software decode's, but its product
/// with the factor is 0x7FFFFFFF for any NaN there), the E2M1 codes eight
/// per word (KernelEnv::decodeE2M1Word).
static SmallVector<Value> dequantizeChunk(KernelEnv &env, const Plan &p,
                                          const Rep &r, Value row, Value c0) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type i8 = b.getI8Type();
  Value buf = env.args[r.dataArg];
  Type elt = cast<MemRefType>(buf.getType()).getElementType();
  int64_t bytes = r.fp4 ? 8 : 16;
  Value at = env.add(env.mul(row, env.idx(p.k)), c0);
  if (r.fp4)
    at = env.div(at, env.idx(2));
  Value vec = vector::LoadOp::create(b, loc, VectorType::get({bytes}, elt), buf,
                                     ValueRange{at}, false,
                                     llvm::MaybeAlign(env.gpu ? bytes : 1));
  if (elt != i8)
    vec = vector::BitCastOp::create(b, loc, VectorType::get({bytes}, i8), vec);
  auto byteAt = [&](int64_t e) {
    return vector::ExtractOp::create(b, loc, vec, ArrayRef<int64_t>{e})
        .getResult();
  };
  Value factor = dequantizeFactor(env, p, r, row, c0);
  SmallVector<Value> q;
  if (r.fp4) {
    // E2M1 nibbles, the even element's low: eight codes per 32-bit word.
    Value words = vector::BitCastOp::create(
        b, loc, VectorType::get({2}, b.getI32Type()), vec);
    for (int64_t w = 0; w < 2; ++w)
      llvm::append_range(
          q, env.decodeE2M1Word(
                 vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w})
                     .getResult()));
  }
  for (int64_t e = 0; !r.fp4 && e < 16; e += 2) {
    auto [lo, hi] = env.decodeFp8Pair(byteAt(e), byteAt(e + 1), r.format);
    q.append({lo, hi});
  }
  for (Value &v : q)
    v = arith::MulFOp::create(b, loc, v, factor);
  return q;
}

void gpuk::emitDequantize(OpBuilder &b, Location loc, ModuleOp module,
                          QuantTensorType type, const TargetInfo &target,
                          ValueRange inner, Value out,
                          const EmitOptions &options) {
  Plan p = makePlan(type, target, false, false, 0);
  SmallVector<Value> args = {out};
  llvm::append_range(args, inner);
  // The representation the reference reads: row-wise when present.
  const Rep *rep = &p.reps.front();
  for (const Rep &r : p.reps)
    if (!r.columnwise) {
      rep = &r;
      break;
    }
  Rep r = *rep;
  Type outType = cast<MemRefType>(out.getType()).getElementType();
  int64_t chunks = ceilDiv(p.k, 16), units = p.m * chunks;
  KernelDesc d;
  d.name = "qs_dequantize";
  int64_t perBlock = d.threads * 4;
  d.gridSize = ceilDiv(units, perBlock);
  bool vectorStore = p.k % 16 == 0;
  // Whole 16-code chunks of rows (dequantizeChunk) for the row-wise
  // representation (row-major codes, blocks along the row).
  bool chunks16 = vectorStore && !r.columnwise;
  int64_t outBytes = outType.getIntOrFloatBitWidth() / 8;
  d.phases.push_back([=](KernelEnv &env) {
    env.forEachUnit(perBlock, [&](Value u) {
      Value unit = env.add(env.mul(env.blockId, env.idx(perBlock)), u);
      env.ifThen(env.lt(unit, env.idx(units)), [&] {
        Value row = env.div(unit, env.idx(chunks));
        Value c0 = env.mul(env.rem(unit, env.idx(chunks)), env.idx(16));
        if (!vectorStore) {
          for (int64_t e = 0; e < 16; ++e) {
            Value col = env.add(c0, env.idx(e));
            env.ifThen(env.lt(col, env.idx(p.k)), [&] {
              Value v =
                  env.fromF32(dequantizeElement(env, p, r, row, col), outType);
              store1(env, v, env.args[0],
                     env.add(env.mul(row, env.idx(p.k)), col));
            });
          }
          return;
        }
        SmallVector<Value> chunk;
        if (chunks16)
          chunk = dequantizeChunk(env, p, r, row, c0);
        for (int64_t e = 0; !chunks16 && e < 16; ++e)
          chunk.push_back(
              dequantizeElement(env, p, r, row, env.add(c0, env.idx(e))));
        // bf16 and f16 outputs converted two at a time
        // (KernelEnv::packFromF32Pair), stored as eight words.
        SmallVector<Value> values;
        for (int64_t e = 0; e < 16; e += outBytes == 2 ? 2 : 1)
          values.push_back(outBytes == 2 ? env.packFromF32Pair(
                                               chunk[e], chunk[e + 1], outType)
                                         : chunk[e]);
        Value vec = vector::FromElementsOp::create(
            env.b, env.loc,
            VectorType::get({static_cast<int64_t>(values.size())},
                            values.front().getType()),
            values);
        if (values.size() != 16)
          vec = vector::BitCastOp::create(env.b, env.loc,
                                          VectorType::get({16}, outType), vec);
        vector::StoreOp::create(
            env.b, env.loc, vec, env.args[0],
            ValueRange{env.add(env.mul(row, env.idx(p.k)), c0)}, false,
            llvm::MaybeAlign(std::min<int64_t>(16 * outBytes, 16)));
      });
    });
  });
  emitKernel(b, loc, module, d, args, options);
}
