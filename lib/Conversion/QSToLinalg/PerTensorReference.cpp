//===- PerTensorReference.cpp - per-tensor FP8 reference numerics ---------===//
//
// te-formats.md §2.c/§2.d for #qs.fp8_delayed and #qs.fp8_current:
//   current: amax = max|x| (or the given global amax: TE's amax reduction),
//            scale = compute_scale_from_amax(amax, fp8_max,
//            force_pow_2_scales, amax_epsilon, FLT_MAX);
//   delayed: scale from the recipe, amax state updated to max(amax, max|x|);
//   q = fp8_rn_sat(x * scale), scale_inv = 1 / scale; the transpose holds the
//   same bytes transposed; dequantize q * scale_inv.
//
//===----------------------------------------------------------------------===//

#include "Models.h"
#include "ReferenceBuilders.h"
#include "qs/Conversion/QSToLinalg/QSToLinalg.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::ref;

namespace {
template <typename AttrT>
struct PerTensorReference final
    : QuantizerReferenceInterface::ExternalModel<PerTensorReference<AttrT>,
                                                 AttrT> {
  static constexpr bool kCurrent = std::is_same_v<AttrT, Fp8CurrentAttr>;

  Value buildGlobalAmaxes(Attribute, OpBuilder &b, Location loc,
                          QuantTensorType, Value input) const {
    if constexpr (!kCurrent)
      return {}; // the recipe's amax, not the tensor's
    return scalarTensor(b, loc,
                        absMaxAll(b, loc, toF32(b, loc, to2D(b, loc, input))));
  }

  SmallVector<Value> buildQuantize(Attribute attr, OpBuilder &b, Location loc,
                                   QuantTensorType type, Value input,
                                   Value scaleOperand, Value givenAmax, Value,
                                   ValueRange outs,
                                   const TargetInfo &target) const {
    auto q = cast<AttrT>(attr);
    Type fp8 = q.getFp8Dtype();
    SmallFloatFormat format = *SmallFloatFormat::get(fp8);
    Value x = toF32(b, loc, to2D(b, loc, input));
    // Current scaling with a given (all-reduced) global amax scales by it.
    Value amax = givenAmax ? extractScalar(b, loc, givenAmax)
                           : absMaxAll(b, loc, x);
    Value scale, updatedAmax;
    if constexpr (kCurrent) {
      scale = computeScaleFromAmax(b, loc, amax, fp8MaxOf(fp8),
                                   q.getForcePow_2Scales(),
                                   q.getAmaxEpsilon().convertToFloat(),
                                   std::numeric_limits<float>::max());
    } else {
      scale = extractScalar(b, loc, scaleOperand);
      Value state = extractScalar(b, loc, outs.back());
      updatedAmax = scalarTensor(
          b, loc, arith::MaxNumFOp::create(b, loc, state, amax).getResult());
    }
    Value scaleInv =
        arith::DivFOp::create(b, loc, constF32(b, loc, 1.0f), scale);
    Value codes = map(b, loc, fp8, x,
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        Value v = arith::MulFOp::create(nb, nl, args[0], scale);
                        return arith::BitcastOp::create(
                            nb, nl, fp8, emitEncodeF32(nb, nl, v, format));
                      });
    SmallVector<Value> results;
    for (const InnerTensor &t : type.getInnerTensors(target)) {
      if (t.name == "data")
        results.push_back(reshape(b, loc, codes, t.shape));
      else if (t.name == "transpose")
        results.push_back(reshape(b, loc, transpose2D(b, loc, codes), t.shape));
      else
        results.push_back(scalarTensor(b, loc, scaleInv));
    }
    if (updatedAmax)
      results.push_back(updatedAmax);
    return results;
  }

  Value buildDequantize(Attribute attr, OpBuilder &b, Location loc,
                        QuantTensorType type, ValueRange inner,
                        const TargetInfo &target) const {
    SmallFloatFormat format =
        *SmallFloatFormat::get(cast<AttrT>(attr).getFp8Dtype());
    Value scaleInv =
        extractScalar(b, loc, findInner(type, inner, target, "scale_inv"));
    auto [m, k] = flatten2D(type.getShape());
    Value q;
    if (Value data = findInner(type, inner, target, "data"))
      q = decodeElements(b, loc, reshape(b, loc, data, {m, k}), format);
    else
      q = transpose2D(b, loc,
                      decodeElements(
                          b, loc,
                          reshape(b, loc,
                                  findInner(type, inner, target, "transpose"),
                                  {k, m}),
                          format));
    Value x = map(b, loc, b.getF32Type(), q,
                  [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                    return arith::MulFOp::create(nb, nl, args[0], scaleInv);
                  });
    return reshape(b, loc, x, type.getShape());
  }

  ReferenceGemmOperand buildGemmOperand(Attribute attr, OpBuilder &b,
                                        Location loc, QuantTensorType type,
                                        ValueRange inner, bool contractsLastDim,
                                        const TargetInfo &target) const {
    SmallFloatFormat format =
        *SmallFloatFormat::get(cast<AttrT>(attr).getFp8Dtype());
    auto [m, k] = flatten2D(type.getShape());
    ReferenceGemmOperand operand;
    operand.global =
        extractScalar(b, loc, findInner(type, inner, target, "scale_inv"));
    Value data = findInner(type, inner, target, "data");
    Value transposed = findInner(type, inner, target, "transpose");
    if (contractsLastDim)
      operand.q = decodeElements(b, loc, reshape(b, loc, data, {m, k}), format);
    else if (transposed) // TN-only chips: the transpose buffer
      operand.q =
          decodeElements(b, loc, reshape(b, loc, transposed, {k, m}), format);
    else // one buffer serves both usages
      operand.q = transpose2D(
          b, loc, decodeElements(b, loc, reshape(b, loc, data, {m, k}), format));
    return operand;
  }

  SmallVector<Value> buildCreatedInnerTensors(Attribute, OpBuilder &b,
                                              Location loc,
                                              QuantTensorType source,
                                              QuantTensorType result,
                                              ValueRange inner,
                                              const TargetInfo &target) const {
    // Only the transpose can be created: a byte transpose of data.
    auto [m, k] = flatten2D(source.getShape());
    Value data = reshape(b, loc, findInner(source, inner, target, "data"),
                         {m, k});
    SmallVector<Value> created;
    for (const InnerTensor &t : getCreatedInnerTensors(source, result, target))
      created.push_back(reshape(b, loc, transpose2D(b, loc, data), t.shape));
    return created;
  }
};
} // namespace

void mlir::qs::attachPerTensorReference(MLIRContext *ctx) {
  Fp8DelayedAttr::attachInterface<PerTensorReference<Fp8DelayedAttr>>(*ctx);
  Fp8CurrentAttr::attachInterface<PerTensorReference<Fp8CurrentAttr>>(*ctx);
}
