//===- BlockReference.cpp - FP8 block-scaling reference numerics ----------===//
//
// te-formats.md §4.c/§4.d: per block (1x128 row-wise and 128x1 column-wise
// for block_scaling_dim = 1, 128x128 tiles for 2) amax = max|x| (partial edge
// blocks: elements outside the tensor count as 0), scale =
// compute_scale_from_amax(amax, fp8_max, force_pow_2_scales, amax_epsilon,
// max finite of the input type), scale_inv = 1/scale, q = fp8_rn_sat(x *
// scale). Column-wise data is transposed; scales are stored in TE's
// GEMM_READY layouts, padding zero.
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

namespace {
/// The quantization of the rows of a matrix z [R, C] in blocks of `br` x
/// 128 (br = 1 or 128): codes [R, C] and scale_inv per block
/// [ceil(R/br), ceil(C/128)].
struct Quantized {
  Value codes;
  Value scaleInv;
};

struct BlockReference final
    : QuantizerReferenceInterface::ExternalModel<BlockReference, Fp8BlockAttr> {
  static Quantized quantizeBlocks(OpBuilder &b, Location loc, Fp8BlockAttr q,
                                  Type nominal, Value z, int64_t br) {
    Type fp8 = q.getFp8Dtype();
    SmallFloatFormat format = *SmallFloatFormat::get(fp8);
    ArrayRef<int64_t> shape = shapeOf(z);
    int64_t rows = shape[0], cols = shape[1];
    Value padded =
        padZero(b, loc, z, {roundUp(rows, br), roundUp(cols, 128)});
    Value amax = blockAbsMax(b, loc, padded, br, 128);
    float fp8Max = fp8MaxOf(fp8), eps = q.getAmaxEpsilon().convertToFloat();
    float valueForInf = maxFiniteOf(nominal);
    bool pow2 = q.getForcePow_2Scales();
    Value scale = map(b, loc, b.getF32Type(), amax,
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        return computeScaleFromAmax(nb, nl, args[0], fp8Max,
                                                    pow2, eps, valueForInf);
                      });
    Value scaleInv = map(b, loc, b.getF32Type(), scale,
                         [](OpBuilder &nb, Location nl, ValueRange args) {
                           return arith::DivFOp::create(
                               nb, nl, constF32(nb, nl, 1.0f), args[0]);
                         });
    MLIRContext *ctx = b.getContext();
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    Value codes = generic(
        b, loc, tensorOf({rows, cols}, fp8), {z, scale},
        {b.getMultiDimIdentityMap(2),
         AffineMap::get(2, 0, {d0.floorDiv(br), d1.floorDiv(128)}, ctx)},
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          Value v = arith::MulFOp::create(nb, nl, args[0], args[1]);
          return arith::BitcastOp::create(nb, nl, fp8,
                                          emitEncodeF32(nb, nl, v, format));
        });
    return {codes, scaleInv};
  }

  SmallVector<Value> buildQuantize(Attribute attr, OpBuilder &b, Location loc,
                                   QuantTensorType type, Value input, Value,
                                   Value, Value, ValueRange,
                                   const TargetInfo &target) const {
    auto q = cast<Fp8BlockAttr>(attr);
    Value x = toF32(b, loc, to2D(b, loc, input));
    Type nominal = type.getElementType();
    Quantized row, col;
    if (q.getBlockScalingDim() == 2) {
      row = quantizeBlocks(b, loc, q, nominal, x, 128); // sinv [MB, KB]
      col = {transpose2D(b, loc, row.codes), transpose2D(b, loc, row.scaleInv)};
    } else {
      if (q.getRowwise())
        row = quantizeBlocks(b, loc, q, nominal, x, 1); // sinv [M, KB]
      if (q.getColumnwise())
        col = quantizeBlocks(b, loc, q, nominal, transpose2D(b, loc, x),
                             1); // codes [K, M], sinv [K, MB]
    }
    bool is1D = q.getBlockScalingDim() == 1;
    SmallVector<Value> results;
    for (const InnerTensor &t : type.getInnerTensors(target)) {
      if (t.name == "rowwise_data")
        results.push_back(reshape(b, loc, row.codes, t.shape));
      else if (t.name == "columnwise_data")
        results.push_back(reshape(b, loc, col.codes, t.shape));
      else {
        // 1-D: [block along the contiguous dim, row of the stored matrix];
        // 2-D: [row block, column block] of the stored matrix.
        Value sinv = t.name == "rowwise_scale_inv" ? row.scaleInv
                                                   : col.scaleInv;
        if (is1D)
          sinv = transpose2D(b, loc, sinv);
        results.push_back(padZero(b, loc, sinv, t.shape));
      }
    }
    return results;
  }

  /// The stored matrix of one representation ([M, K] row-wise, [K, M]
  /// column-wise) decoded, and its scale_inv per element block as
  /// [rows of the stored matrix, ceil(cols / 128)].
  static std::pair<Value, Value>
  storedOperand(OpBuilder &b, Location loc, Fp8BlockAttr q,
                QuantTensorType type, ValueRange inner, bool rowwise,
                const TargetInfo &target) {
    SmallFloatFormat format = *SmallFloatFormat::get(q.getFp8Dtype());
    auto [m, k] = flatten2D(type.getShape());
    int64_t rows = rowwise ? m : k, cols = rowwise ? k : m;
    Value data = findInner(type, inner, target,
                           rowwise ? "rowwise_data" : "columnwise_data");
    Value codes =
        decodeElements(b, loc, reshape(b, loc, data, {rows, cols}), format);
    Value buffer = findInner(type, inner, target,
                             rowwise ? "rowwise_scale_inv"
                                     : "columnwise_scale_inv");
    int64_t rowBlocks = ceilDiv(rows, 128), colBlocks = ceilDiv(cols, 128);
    Value scales;
    if (q.getBlockScalingDim() == 1) {
      scales = transpose2D(b, loc, slice2D(b, loc, buffer, colBlocks, rows));
    } else {
      MLIRContext *ctx = b.getContext();
      AffineExpr d0, d1;
      bindDims(ctx, d0, d1);
      scales = generic(
          b, loc, tensorOf({rows, colBlocks}, b.getF32Type()),
          {slice2D(b, loc, buffer, rowBlocks, colBlocks)},
          {AffineMap::get(2, 0, {d0.floorDiv(128), d1}, ctx)},
          [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    }
    return {codes, scales};
  }

  Value buildDequantize(Attribute attr, OpBuilder &b, Location loc,
                        QuantTensorType type, ValueRange inner,
                        const TargetInfo &target) const {
    auto q = cast<Fp8BlockAttr>(attr);
    bool rowwise = q.getRowwise();
    auto [codes, scales] =
        storedOperand(b, loc, q, type, inner, rowwise, target);
    MLIRContext *ctx = b.getContext();
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    Value x = generic(
        b, loc, tensorOf(shapeOf(codes), b.getF32Type()), {codes, scales},
        {b.getMultiDimIdentityMap(2),
         AffineMap::get(2, 0, {d0, d1.floorDiv(128)}, ctx)},
        [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          return arith::MulFOp::create(nb, nl, args[0], args[1]);
        });
    if (!rowwise)
      x = transpose2D(b, loc, x);
    return reshape(b, loc, x, type.getShape());
  }

  ReferenceGemmOperand buildGemmOperand(Attribute attr, OpBuilder &b,
                                        Location loc, QuantTensorType type,
                                        ValueRange inner, bool contractsLastDim,
                                        const TargetInfo &target) const {
    // Row-wise data is [M, K] and column-wise [K, M]: both are already
    // [rows, contraction] for the contraction they serve.
    auto [codes, scales] = storedOperand(b, loc, cast<Fp8BlockAttr>(attr), type,
                                         inner, contractsLastDim, target);
    ReferenceGemmOperand operand;
    operand.q = codes;
    operand.blockScales = scales;
    operand.blockK = 128;
    return operand;
  }

  SmallVector<Value> buildCreatedInnerTensors(Attribute, OpBuilder &b,
                                              Location loc,
                                              QuantTensorType source,
                                              QuantTensorType result,
                                              ValueRange inner,
                                              const TargetInfo &target) const {
    // 128x128 tiles: column-wise = transposed row-wise data and scales.
    auto [m, k] = flatten2D(source.getShape());
    Value data = reshape(b, loc, findInner(source, inner, target, "rowwise_data"),
                         {m, k});
    Value scales =
        slice2D(b, loc, findInner(source, inner, target, "rowwise_scale_inv"),
                ceilDiv(m, 128), ceilDiv(k, 128));
    SmallVector<Value> created;
    for (const InnerTensor &t : getCreatedInnerTensors(source, result, target)) {
      if (t.name == "columnwise_data")
        created.push_back(reshape(b, loc, transpose2D(b, loc, data), t.shape));
      else
        created.push_back(
            padZero(b, loc, transpose2D(b, loc, scales), t.shape));
    }
    return created;
  }
};
} // namespace

void mlir::qs::attachBlockReference(MLIRContext *ctx) {
  Fp8BlockAttr::attachInterface<BlockReference>(*ctx);
}
