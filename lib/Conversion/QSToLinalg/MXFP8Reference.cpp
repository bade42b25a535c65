//===- MXFP8Reference.cpp - MXFP8 reference numerics ----------------------===//
//
// te-formats.md §3.c/§3.d: per block (1x32 row-wise, 32x1 column-wise, 32x32
// with 2-D quantization) amax = max|x|, e = e8m0_ceil(f32(amax * RCP)) with
// RCP = f32(1/fp8_max), q = fp8_rn_sat(x * 2^(127-e)); column-wise data is
// an independent quantization kept in the logical layout. Scales are the
// E8M0 bytes in the compact or GEMM-swizzled layout; dequantize q * 2^(e-127).
//
//===----------------------------------------------------------------------===//

#include "Models.h"
#include "ReferenceBuilders.h"
#include "qs/Conversion/QSToLinalg/QSToLinalg.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::ref;

/// The padded shapes of the GEMM scale matrices: row-wise G is [M, K/32]
/// padded to (roundup(M,128), roundup(K/32,4)); column-wise G is [K, M/32]
/// padded to (roundup(K,128), roundup(M/32,4)).
static SmallVector<int64_t> rowPadded(int64_t m, int64_t k) {
  return {roundUp(m, 128), roundUp(k / 32, 4)};
}
static SmallVector<int64_t> colPadded(int64_t m, int64_t k) {
  return {roundUp(k, 128), roundUp(m / 32, 4)};
}

/// Scales of one representation: the row-wise G [M, K/32] or the
/// column-wise G [K, M/32] (E8M0 bytes as i8) from its buffer.
static Value readG(OpBuilder &b, Location loc, Value buffer, bool rowwise,
                   int64_t m, int64_t k, bool swizzled) {
  Value bytes = bitcastElements(b, loc, buffer, b.getI8Type());
  if (rowwise)
    return readScales(b, loc, bytes, rowPadded(m, k), swizzled, m, k / 32);
  if (swizzled)
    return readScales(b, loc, bytes, colPadded(m, k), true, k, m / 32);
  // Compact column-wise buffer is [M/32, K] (padded), G is its transpose.
  return transpose2D(
      b, loc, readScales(b, loc, bytes, shapeOf(buffer), false, m / 32, k));
}

/// Lays the row-wise ([M, K/32]) or column-wise ([K, M/32]) G out into the
/// buffer of `bufferType`.
static Value writeG(OpBuilder &b, Location loc, Value g, bool rowwise,
                    int64_t m, int64_t k, bool swizzled,
                    RankedTensorType bufferType) {
  Value bytes;
  if (rowwise)
    bytes = layoutScales(b, loc, g, rowPadded(m, k), swizzled,
                         bufferType.getShape());
  else if (swizzled)
    bytes = layoutScales(b, loc, g, colPadded(m, k), true,
                         bufferType.getShape());
  else
    bytes = layoutScales(b, loc, transpose2D(b, loc, g), bufferType.getShape(),
                         false, bufferType.getShape());
  return bitcastElements(b, loc, bytes, bufferType.getElementType());
}

namespace {
struct MXFP8Reference final
    : QuantizerReferenceInterface::ExternalModel<MXFP8Reference, MXFP8Attr> {
  SmallVector<Value> buildQuantize(Attribute attr, OpBuilder &b, Location loc,
                                   QuantTensorType type, Value input, Value,
                                   Value, Value, ValueRange,
                                   const TargetInfo &target) const {
    auto q = cast<MXFP8Attr>(attr);
    Type fp8 = q.getFp8Dtype();
    SmallFloatFormat format = *SmallFloatFormat::get(fp8);
    bool swizzled = q.getOptimizeForGemm();
    Flat2D flat = flatten2D(type.getShape());
    int64_t m = flat.m, k = flat.k;
    MLIRContext *ctx = b.getContext();
    Value x = toF32(b, loc, to2D(b, loc, input));
    // f32(1/fp8_max): 0x3B124925 (E4M3) or 0x37924925 (E5M2).
    float rcp = 1.0f / fp8MaxOf(fp8);

    // E8M0 exponents of the blocks of amax.
    auto exponents = [&](Value amax) {
      return map(b, loc, b.getI8Type(), amax,
                 [&](OpBuilder &nb, Location nl, ValueRange args) {
                   Value p = arith::MulFOp::create(nb, nl, args[0],
                                                   constF32(nb, nl, rcp));
                   return emitE8M0Ceil(nb, nl, p);
                 });
    };
    // q[m, k] = fp8(x[m, k] * 2^(127 - e[blockMap(m, k)])).
    auto quantize = [&](Value e, AffineMap blockMap) {
      return generic(
          b, loc, tensorOf({m, k}, fp8), {x, e},
          {b.getMultiDimIdentityMap(2), blockMap},
          [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
            Value mult = emitE8M0ReciprocalToF32(nb, nl, args[1]);
            Value v = arith::MulFOp::create(nb, nl, args[0], mult);
            return arith::BitcastOp::create(nb, nl, fp8,
                                            emitEncodeF32(nb, nl, v, format));
          });
    };
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);

    Value rowCodes, colCodes, rowG, colG;
    if (q.getWith_2dQuantization()) {
      // One exponent per 32x32 tile, replicated into both scale matrices.
      Value e = exponents(blockAbsMax(b, loc, x, 32, 32));
      rowCodes = colCodes = quantize(
          e, AffineMap::get(2, 0, {d0.floorDiv(32), d1.floorDiv(32)}, ctx));
      rowG = generic(b, loc, tensorOf({m, k / 32}, b.getI8Type()), {e},
                     {AffineMap::get(2, 0, {d0.floorDiv(32), d1}, ctx)},
                     [](OpBuilder &, Location, ValueRange a) { return a[0]; });
      colG = generic(b, loc, tensorOf({k, m / 32}, b.getI8Type()), {e},
                     {AffineMap::get(2, 0, {d1, d0.floorDiv(32)}, ctx)},
                     [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    } else {
      if (q.getRowwise()) {
        rowG = exponents(blockAbsMax(b, loc, x, 1, 32));
        rowCodes = quantize(
            rowG, AffineMap::get(2, 0, {d0, d1.floorDiv(32)}, ctx));
      }
      if (q.getColumnwise()) {
        Value e = exponents(blockAbsMax(b, loc, x, 32, 1)); // [M/32, K]
        colCodes =
            quantize(e, AffineMap::get(2, 0, {d0.floorDiv(32), d1}, ctx));
        colG = transpose2D(b, loc, e);
      }
    }

    SmallVector<Value> results;
    for (const InnerTensor &t : type.getInnerTensors(target)) {
      RankedTensorType tt = t.getType();
      if (t.name == "rowwise_data")
        results.push_back(reshape(b, loc, rowCodes, t.shape));
      else if (t.name == "columnwise_data")
        results.push_back(reshape(b, loc, colCodes, t.shape));
      else
        results.push_back(writeG(b, loc,
                                 t.name == "rowwise_scale_inv" ? rowG : colG,
                                 t.name == "rowwise_scale_inv", m, k, swizzled,
                                 tt));
    }
    return results;
  }

  Value buildDequantize(Attribute attr, OpBuilder &b, Location loc,
                        QuantTensorType type, ValueRange inner,
                        const TargetInfo &target) const {
    auto q = cast<MXFP8Attr>(attr);
    SmallFloatFormat format = *SmallFloatFormat::get(q.getFp8Dtype());
    auto [m, k] = flatten2D(type.getShape());
    MLIRContext *ctx = b.getContext();
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    bool rowwise = q.getRowwise();
    Value data = findInner(type, inner, target,
                           rowwise ? "rowwise_data" : "columnwise_data");
    Value g = readG(b, loc,
                    findInner(type, inner, target,
                              rowwise ? "rowwise_scale_inv"
                                      : "columnwise_scale_inv"),
                    rowwise, m, k, q.getOptimizeForGemm());
    AffineMap scaleMap =
        rowwise ? AffineMap::get(2, 0, {d0, d1.floorDiv(32)}, ctx)
                : AffineMap::get(2, 0, {d1, d0.floorDiv(32)}, ctx);
    Value x = generic(
        b, loc, tensorOf({m, k}, b.getF32Type()),
        {decodeElements(b, loc, reshape(b, loc, data, {m, k}), format),
         decodeE8M0Elements(b, loc, g)},
        {b.getMultiDimIdentityMap(2), scaleMap},
        [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          return arith::MulFOp::create(nb, nl, args[0], args[1]);
        });
    return reshape(b, loc, x, type.getShape());
  }

  ReferenceGemmOperand buildGemmOperand(Attribute attr, OpBuilder &b,
                                        Location loc, QuantTensorType type,
                                        ValueRange inner, bool contractsLastDim,
                                        const TargetInfo &target) const {
    auto q = cast<MXFP8Attr>(attr);
    SmallFloatFormat format = *SmallFloatFormat::get(q.getFp8Dtype());
    auto [m, k] = flatten2D(type.getShape());
    bool rowwise = contractsLastDim;
    Value data = findInner(type, inner, target,
                           rowwise ? "rowwise_data" : "columnwise_data");
    Value codes = decodeElements(b, loc, reshape(b, loc, data, {m, k}), format);
    ReferenceGemmOperand operand;
    operand.q = rowwise ? codes : transpose2D(b, loc, codes);
    operand.blockScales = decodeE8M0Elements(
        b, loc,
        readG(b, loc,
              findInner(type, inner, target,
                        rowwise ? "rowwise_scale_inv" : "columnwise_scale_inv"),
              rowwise, m, k, q.getOptimizeForGemm()));
    operand.blockK = 32;
    return operand;
  }

  SmallVector<Value> buildCreatedInnerTensors(Attribute, OpBuilder &, Location,
                                              QuantTensorType, QuantTensorType,
                                              ValueRange,
                                              const TargetInfo &) const {
    // MXFP8 can only drop representations (the verifier rejects the rest).
    return {};
  }
};
} // namespace

void mlir::qs::attachMXFP8Reference(MLIRContext *ctx) {
  MXFP8Attr::attachInterface<MXFP8Reference>(*ctx);
}
