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

/// The f32 value of element (r, c).
static Value dequantizeElement(KernelEnv &env, const Plan &p, const Rep &r,
                               Value row, Value col) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value q = emitDecodeToF32(b, loc, loadCode(env, p, r, row, col), r.format);
  Value zRow = r.columnwise ? col : row, zCol = r.columnwise ? row : col;
  Value factor;
  switch (r.kind) {
  case ScaleKind::PerTensor:
    factor = load1(env, env.args[p.scaleInvArg], env.idx(0));
    break;
  case ScaleKind::E8M0: {
    Value e = load1(env, env.args[r.scaleArg],
                    r.scaleIndex(env, zRow, env.div(zCol, env.idx(32))));
    factor = emitE8M0ToF32(b, loc,
                           arith::BitcastOp::create(b, loc, b.getI8Type(), e));
    break;
  }
  case ScaleKind::F32Block:
    factor = load1(env, env.args[r.scaleArg],
                   r.scaleIndex(env, zRow, env.div(zCol, env.idx(128))));
    break;
  case ScaleKind::NVFP4: {
    Value sf = load1(env, env.args[r.scaleArg],
                     r.scaleIndex(env, zRow, env.div(zCol, env.idx(16))));
    sf = emitDecodeToF32(b, loc,
                         arith::BitcastOp::create(b, loc, b.getI8Type(), sf),
                         SmallFloatFormat::e4m3());
    Value g = load1(env, env.args[r.amaxArg], r.rowScaled ? zRow : env.idx(0));
    factor = arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, sf, g),
                                   env.f32(nvfp4InvSixE(r.e4m3Max)));
    break;
  }
  }
  return arith::MulFOp::create(b, loc, q, factor);
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
  int64_t outBytes = outType.getIntOrFloatBitWidth() / 8;
  d.phases.push_back([=](KernelEnv &env) {
    env.forEachUnit(perBlock, [&](Value u) {
      Value unit = env.add(env.mul(env.blockId, env.idx(perBlock)), u);
      env.ifThen(env.lt(unit, env.idx(units)), [&] {
        Value row = env.div(unit, env.idx(chunks));
        Value c0 = env.mul(env.rem(unit, env.idx(chunks)), env.idx(16));
        SmallVector<Value> values;
        for (int64_t e = 0; e < 16; ++e) {
          Value col = env.add(c0, env.idx(e));
          if (vectorStore) {
            values.push_back(
                env.fromF32(dequantizeElement(env, p, r, row, col), outType));
            continue;
          }
          env.ifThen(env.lt(col, env.idx(p.k)), [&] {
            Value v =
                env.fromF32(dequantizeElement(env, p, r, row, col), outType);
            store1(env, v, env.args[0],
                   env.add(env.mul(row, env.idx(p.k)), col));
          });
        }
        if (!vectorStore)
          return;
        Value vec = vector::FromElementsOp::create(
            env.b, env.loc, VectorType::get({16}, outType), values);
        vector::StoreOp::create(
            env.b, env.loc, vec, env.args[0],
            ValueRange{env.add(env.mul(row, env.idx(p.k)), c0)}, false,
            llvm::MaybeAlign(std::min<int64_t>(16 * outBytes, 16)));
      });
    });
  });
  emitKernel(b, loc, module, d, args, options);
}
