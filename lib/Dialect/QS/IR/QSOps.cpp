//===- QSOps.cpp - qs proto-level operations ------------------------------===//
//
// Verifiers and folders of the proto-level ops, and the verification rules
// they share with the buffer-level ops (QSOpsCommon.h). Format knowledge
// comes only from QuantizerAttrInterface.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/IR/QSOps.h"
#include "QSOpsCommon.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>

using namespace mlir;
using namespace mlir::qs;

#define GET_OP_CLASSES
#include "qs/Dialect/QS/IR/QSOps.cpp.inc"

static bool isNominalFloat(Type type) {
  return type.isBF16() || type.isF16() || type.isF32();
}

//===----------------------------------------------------------------------===//
// Shared rules
//===----------------------------------------------------------------------===//

LogicalResult qs::detail::verifyInnerTypes(Operation *op, QuantTensorType type,
                                           TypeRange types, StringRef what) {
  TargetInfo target = TargetInfo::lookup(op);
  SmallVector<InnerTensor> inner = type.getInnerTensors(target);
  if (inner.size() != types.size()) {
    InFlightDiagnostic diag = op->emitOpError("expects ")
                              << inner.size() << " " << what << " (";
    llvm::interleaveComma(inner, diag,
                          [&](const InnerTensor &t) { diag << t.name; });
    return diag << ") for " << type << " on " << target.getChip() << ", got "
                << types.size();
  }
  for (auto [i, expected, actual] : llvm::enumerate(inner, types)) {
    if (expected.getType() != actual)
      return op->emitOpError()
             << what << " #" << i << " ('" << expected.name
             << "') must have type " << expected.getType() << ", got "
             << actual;
  }
  return success();
}

LogicalResult qs::detail::verifyQuantizeTypes(Operation *op, Type input,
                                              QuantTensorType result) {
  RankedTensorType expressed = result.getExpressedType();
  if (input != expressed)
    return op->emitOpError("input type ")
           << input << " must be the expressed type of the result, "
           << expressed;
  return success();
}

LogicalResult qs::detail::verifyRngState(Operation *op, QuantTensorType result,
                                         Value rng) {
  bool stochastic = result.getQuantizer().takesRngState();
  if (stochastic && !rng)
    return op->emitOpError("with stochastic rounding (#qs.nvfp4 "
                           "stochastic_rounding) needs an rng(...) operand: "
                           "a tensor<2xi64> holding (seed, offset)");
  if (!stochastic && rng)
    return op->emitOpError("takes an rng(...) operand only for a quantizer "
                           "with stochastic rounding (#qs.nvfp4 "
                           "stochastic_rounding = true)");
  return success();
}

/// The amaxes `quantizer` computes from a whole tensor, in the order
/// qs.amax returns them (for diagnostics).
static StringRef globalAmaxesOf(unsigned count) {
  return count == 2 ? "max|x| (row-wise) and max|RHT(x^T)| (column-wise)"
                    : "max|x|";
}

LogicalResult qs::detail::verifyGlobalAmaxes(Operation *op,
                                             QuantTensorType quantized,
                                             Type amaxType, StringRef what) {
  QuantizerAttrInterface quantizer = quantized.getQuantizer();
  unsigned count = quantizer.getNumGlobalAmaxes();
  if (count == 0)
    return op->emitOpError()
           << what
           << " only where tensor-wide amaxes scale the whole tensor (TE's "
              "amax reduction): #qs.fp8_current, #qs.nvfp4 without "
              "row_scaled_nvfp4; "
           << quantizer << " computes none (per-block or per-row amaxes, or "
           << "the recipe's)";
  auto type = cast<RankedTensorType>(amaxType);
  if (type.getDimSize(0) != count)
    return op->emitOpError()
           << what << ": " << quantizer << " has " << count
           << (count == 1 ? " global amax, " : " global amaxes, ")
           << globalAmaxesOf(count) << ", a tensor<" << count << "xf32>; got "
           << type;
  return success();
}

LogicalResult qs::detail::verifyDequantizeTypes(Operation *op,
                                                QuantTensorType input,
                                                RankedTensorType result) {
  if (result.getShape() != input.getShape())
    return op->emitOpError("result shape must equal the logical shape of the "
                           "input, expected ")
           << input.getExpressedType() << ", got " << result;
  if (!isNominalFloat(result.getElementType()))
    return op->emitOpError("result element type must be bf16, f16 or f32, got ")
           << result.getElementType();
  QuantizerAttrInterface quantizer = input.getQuantizer();
  Usage available = quantizer.getAvailableUsage(TargetInfo::lookup(op));
  if (!hasUsage(available, Usage::Rowwise) &&
      !quantizer.canDequantizeColumnwise())
    return op->emitOpError("a ")
           << quantizer.getQuantizerClassName()
           << " tensor can only be dequantized from its rowwise "
              "representation, which the input does not have";
  return success();
}

LogicalResult qs::detail::verifyUsageTransition(Operation *op,
                                                QuantTensorType input,
                                                QuantTensorType result) {
  QuantizerAttrInterface resultQuantizer = result.getQuantizer();
  if (input.withUsage(resultQuantizer.getRowwise(),
                      resultQuantizer.getColumnwise()) != result)
    return op->emitOpError("result type must be the input type with other "
                           "usage flags, got ")
           << result << " for " << input;
  TargetInfo target = TargetInfo::lookup(op);
  Usage wanted = resultQuantizer.getAvailableUsage(target);
  QuantizerAttrInterface quantizer = input.getQuantizer();
  if (quantizer.canCreateUsage(wanted, target))
    return success();
  Usage have = quantizer.getAvailableUsage(target);
  Usage missing = static_cast<Usage>(static_cast<unsigned>(wanted) &
                                     ~static_cast<unsigned>(have));
  return op->emitOpError("cannot create the ")
         << stringifyUsage(missing) << " representation of a "
         << quantizer.getQuantizerClassName() << " tensor from its "
         << stringifyUsage(have) << " one on " << target.getChip()
         << ": only the per-tensor FP8 transpose (TN-only chips) and the "
            "column-wise form of 2-D block FP8 and 2-D NVFP4 without RHT "
            "can be derived";
}

/// The usage an operand needs: rowwise when contracted over its last
/// dimension, columnwise when contracted over its (flattened) first one.
static LogicalResult verifyGemmOperandUsage(Operation *op, StringRef name,
                                            QuantTensorType type,
                                            bool contractsLastDim,
                                            const TargetInfo &target) {
  Usage needed = contractsLastDim ? Usage::Rowwise : Usage::Columnwise;
  if (hasUsage(type.getQuantizer().getAvailableUsage(target), needed))
    return success();
  return op->emitOpError("operand ")
         << name << " is contracted over its "
         << (contractsLastDim ? "last" : "first") << " dimension and needs its "
         << stringifyUsage(needed) << " usage, but its quantizer has "
         << stringifyUsage(needed) << " = false on " << target.getChip();
}

LogicalResult qs::detail::verifyGemm(Operation *op, QuantTensorType aType,
                                     QuantTensorType bType, bool ta, bool tb,
                                     RankedTensorType resultType, Type bias) {
  if (aType.getRank() < 2 || bType.getRank() < 2)
    return op->emitOpError("operands must have rank >= 2 (leading dimensions "
                           "are folded into M)");
  Flat2D a = flatten2D(aType.getShape());
  Flat2D b = flatten2D(bType.getShape());
  int64_t m = ta ? a.k : a.m, ka = ta ? a.m : a.k;
  int64_t kb = tb ? b.k : b.m, n = tb ? b.m : b.k;
  if (ka != kb)
    return op->emitOpError("contraction sizes differ: op(a) is ")
           << m << "x" << ka << " and op(b) is " << kb << "x" << n;

  SmallVector<int64_t> expectedShape;
  if (ta)
    expectedShape.push_back(m);
  else
    llvm::append_range(expectedShape, aType.getShape().drop_back());
  expectedShape.push_back(n);
  if (resultType.getShape() != ArrayRef<int64_t>(expectedShape)) {
    InFlightDiagnostic diag = op->emitOpError("result shape must be ");
    llvm::interleave(expectedShape, diag, "x");
    return diag << " (op(a) * op(b)"
                << (ta ? "" : ", keeping a's leading dimensions") << "), got "
                << resultType;
  }
  Type outType = resultType.getElementType();
  if (!isNominalFloat(outType))
    return op->emitOpError("result element type must be bf16, f16 or f32, got ")
           << outType;

  QuantizerAttrInterface qa = aType.getQuantizer(), qb = bType.getQuantizer();
  if (!areGemmCompatible(qa.getScalingMode(), qb.getScalingMode()))
    return op->emitOpError("operands use incompatible scaling modes: ")
           << stringifyScalingMode(qa.getScalingMode()) << " and "
           << stringifyScalingMode(qb.getScalingMode())
           << " (both must be per-tensor FP8, MXFP8 or NVFP4, or block FP8 "
              "with at most one 128x128 operand)";
  for (QuantizerAttrInterface q : {qa, qb})
    if (!q.supportsGemmOutputType(outType))
      return op->emitOpError("a GEMM on ")
             << q.getQuantizerClassName() << " operands cannot produce "
             << outType;

  TargetInfo target = TargetInfo::lookup(op);
  if (failed(verifyGemmOperandUsage(op, "a", aType, !ta, target)) ||
      failed(verifyGemmOperandUsage(op, "b", bType, tb, target)))
    return failure();

  // The Hadamard transform of column-wise data (NVFP4 with_rht) cancels in
  // the product only when both operands' contracted data carry the same
  // one: a contracts its column-wise data with transpose_a, b without
  // transpose_b.
  std::optional<uint32_t> maskA, maskB;
  if (ta)
    maskA = qa.getColumnwiseRhtSignMask();
  if (!tb)
    maskB = qb.getColumnwiseRhtSignMask();
  if (maskA && maskB && *maskA != *maskB)
    return op->emitOpError("operands a and b contract column-wise data "
                           "under different random Hadamard transforms (sign "
                           "masks 0x")
           << llvm::utohexstr(*maskA) << " and 0x" << llvm::utohexstr(*maskB)
           << ", #qs.nvfp4 with_random_sign_mask): the transforms cancel "
              "only when both operands carry the same one";
  bool rhtA = maskA.has_value(), rhtB = maskB.has_value();
  if (rhtA != rhtB) {
    bool otherColumnwise = rhtA ? !tb : ta;
    return op->emitOpError("operand ")
           << (rhtA ? "a" : "b")
           << " contracts its column-wise data, which carries the random "
              "Hadamard transform (#qs.nvfp4 with_rht), but operand "
           << (rhtA ? "b" : "a") << " contracts its "
           << (otherColumnwise ? "column-wise" : "row-wise")
           << " data without it: the transform cancels only when both "
              "operands' contracted data carry it (TE's recipe: with_rht on "
              "inputs and gradients, which the wgrad GEMM contracts "
              "column-wise; never on weights)";
  }

  if (bias) {
    auto biasType = dyn_cast<RankedTensorType>(bias);
    if (!biasType || biasType.getShape() != ArrayRef<int64_t>{n} ||
        !isNominalFloat(biasType.getElementType()))
      return op->emitOpError("bias must be a 1-D tensor of ")
             << n << " bf16, f16 or f32 values, got " << bias;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

/// Delayed scaling's recipe state on an op that quantizes: the scale and
/// amax operands and the updated-amax result, all present exactly when
/// `recipe` (`state`: scale, amax, updated amax; `subject`: what takes
/// them).
static LogicalResult verifyRecipeState(Operation *op, bool recipe,
                                       ArrayRef<Value> state,
                                       StringRef subject) {
  bool all = llvm::all_of(state, [](Value v) { return v; });
  bool any = llvm::any_of(state, [](Value v) { return v; });
  if (recipe && !all)
    return op->emitOpError("with ")
           << subject
           << " (#qs.fp8_delayed) needs scale(...) and amax(...) operands and "
              "returns the updated amax as a second result";
  if (!recipe && any)
    return op->emitOpError("takes scale/amax operands and returns an updated "
                           "amax only for ")
           << subject << " (#qs.fp8_delayed)";
  return success();
}

LogicalResult QuantizeOp::verify() {
  QuantTensorType resultType = getResult().getType();
  if (failed(detail::verifyQuantizeTypes(*this, getInput().getType(),
                                         resultType)) ||
      failed(detail::verifyRngState(*this, resultType, getRng())))
    return failure();
  // Current scaling and NVFP4 may take the global amaxes alone (TE's amax
  // reduction).
  bool recipe = resultType.getQuantizer().takesRecipeScale();
  if (getAmax() && !getScale() && !getUpdatedAmax() && !recipe)
    return detail::verifyGlobalAmaxes(*this, resultType, getAmax().getType(),
                                      "takes a global amax(...) alone");
  if (failed(verifyRecipeState(*this, recipe,
                               {getScale(), getAmax(), getUpdatedAmax()},
                               "delayed scaling")))
    return failure();
  if (getAmax() && getAmax().getType().getDimSize(0) != 1)
    return emitOpError("the amax state of delayed scaling is a "
                       "tensor<1xf32>, got ")
           << getAmax().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// AmaxOp
//===----------------------------------------------------------------------===//

LogicalResult AmaxOp::verify() {
  QuantTensorType type = getQuantizedTensorType();
  if (failed(detail::verifyQuantizeTypes(*this, getInput().getType(), type)))
    return failure();
  return detail::verifyGlobalAmaxes(*this, type, getResult().getType(),
                                    "returns the global amaxes");
}

//===----------------------------------------------------------------------===//
// BiasGradOp
//===----------------------------------------------------------------------===//

LogicalResult BiasGradOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (input.getRank() < 2 || !input.hasStaticShape() ||
      llvm::is_contained(input.getShape(), 0))
    return emitOpError("input must be a statically shaped tensor of rank 2 "
                       "or more with positive dimensions (rows folded to M, "
                       "columns the last dimension N; as !qs.tensor), got ")
           << input;
  if (!isNominalFloat(input.getElementType()))
    return emitOpError("input element type must be bf16, f16 or f32, got ")
           << input.getElementType();
  int64_t n = input.getShape().back();
  if (result.getRank() != 1 || result.getDimSize(0) != n)
    return emitOpError("result must be a 1-D tensor of the input's last "
                       "dimension (")
           << n << "), got " << result;
  if (!isNominalFloat(result.getElementType()))
    return emitOpError("result element type must be bf16, f16 or f32, got ")
           << result.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// AmaxAndScaleUpdateOp
//===----------------------------------------------------------------------===//

/// The margins whose fp8_max * 2^-margin is a normal, finite f32 for both
/// FP8 formats (448 = 1.75 * 2^8, 57344 = 1.75 * 2^15).
static constexpr int64_t kMaxScaleMargin = 100;

Type AmaxAndScaleUpdateOp::getFp8Format() {
  if (std::optional<Type> type = getFp8Dtype())
    return *type;
  return Float8E4M3FNType::get(getContext());
}

float AmaxAndScaleUpdateOp::getScaledMax() {
  float fp8Max = isa<Float8E5M2Type>(getFp8Format()) ? 57344.0f : 448.0f;
  return std::ldexp(fp8Max, -static_cast<int>(getMarginAttr().getInt()));
}

LogicalResult AmaxAndScaleUpdateOp::verify() {
  auto history = cast<RankedTensorType>(getHistory().getType());
  if (history.isDynamicDim(0) || history.getDimSize(0) < 1)
    return emitOpError("history must be a tensor<L x f32> with a static "
                       "length L >= 1 (TE's amax_history_len), got ")
           << history;
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(getFp8Format()))
    return emitOpError("fp8_dtype must be f8E4M3FN or f8E5M2 (the FP8 "
                       "format whose maximum the scale maps the amax to), "
                       "got ")
           << getFp8Format();
  int64_t margin = getMarginAttr().getInt();
  if (margin < -kMaxScaleMargin || margin > kMaxScaleMargin)
    return emitOpError("margin must be in [")
           << -kMaxScaleMargin << ", " << kMaxScaleMargin
           << "] (fp8_max * 2^-margin an exact, normal f32), got " << margin;
  if (getAmaxComputeAlgo() != "max" && getAmaxComputeAlgo() != "most_recent")
    return emitOpError("amax_compute_algo must be \"max\" or "
                       "\"most_recent\" (TE's DelayedScaling), got \"")
           << getAmaxComputeAlgo() << "\"";
  return success();
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  return detail::verifyDequantizeTypes(*this, getInput().getType(),
                                       getResult().getType());
}

//===----------------------------------------------------------------------===//
// AssembleOp / DisassembleOp
//===----------------------------------------------------------------------===//

LogicalResult AssembleOp::verify() {
  return detail::verifyInnerTypes(*this, getResult().getType(),
                                  getInputs().getTypes(),
                                  "inner tensor operands");
}

// assemble(disassemble(q)) -> q
OpFoldResult AssembleOp::fold(FoldAdaptor) {
  auto source = getInputs().empty()
                    ? DisassembleOp()
                    : getInputs().front().getDefiningOp<DisassembleOp>();
  if (!source || source.getInput().getType() != getResult().getType() ||
      source.getNumResults() != getInputs().size())
    return {};
  for (auto [i, input] : llvm::enumerate(getInputs()))
    if (input != source.getResult(i))
      return {};
  return source.getInput();
}

LogicalResult DisassembleOp::verify() {
  return detail::verifyInnerTypes(*this, getInput().getType(),
                                  getOutputs().getTypes(),
                                  "inner tensor results");
}

// disassemble(assemble(x...)) -> x...
LogicalResult DisassembleOp::fold(FoldAdaptor,
                                  SmallVectorImpl<OpFoldResult> &results) {
  auto source = getInput().getDefiningOp<AssembleOp>();
  if (!source)
    return failure();
  llvm::append_range(results, source.getInputs());
  return success();
}

//===----------------------------------------------------------------------===//
// UpdateUsageOp
//===----------------------------------------------------------------------===//

LogicalResult UpdateUsageOp::verify() {
  return detail::verifyUsageTransition(*this, getInput().getType(),
                                       getResult().getType());
}

OpFoldResult UpdateUsageOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

bool GemmOp::isResultQuantizationFused() {
  QuantTensorType result = getQuantizedResultType();
  return result && result.getQuantizer().takesRecipeScale() &&
         getA().getType().getQuantizer().getScalingMode() ==
             ScalingMode::DelayedTensor &&
         getB().getType().getQuantizer().getScalingMode() ==
             ScalingMode::DelayedTensor;
}

RankedTensorType GemmOp::getProductType() {
  QuantTensorType result = getQuantizedResultType();
  if (!result)
    return cast<RankedTensorType>(getResult().getType());
  if (isResultQuantizationFused())
    return RankedTensorType::get(result.getShape(),
                                 Float32Type::get(getContext()));
  return result.getExpressedType();
}

LogicalResult GemmOp::verify() {
  Type resultType = getResult().getType();
  QuantTensorType quantized = getQuantizedResultType();
  // The high-precision shape and type the operands must produce: for a
  // quantized result, its logical shape and nominal type.
  RankedTensorType expressed = quantized ? quantized.getExpressedType()
                                         : cast<RankedTensorType>(resultType);
  if (failed(detail::verifyGemm(*this, getA().getType(), getB().getType(),
                                getTransposeA(), getTransposeB(), expressed,
                                getBias() ? getBias().getType() : Type())))
    return failure();
  if (Value acc = getAccumulate()) {
    if (quantized)
      return emitOpError("cannot accumulate into a quantized result (an "
                         "output quantizer): accumulate needs a "
                         "high-precision result type");
    if (acc.getType() != resultType)
      return emitOpError("accumulate operand must have the result type ")
             << resultType << ", got " << acc.getType();
  }
  if (quantized && quantized.getQuantizer().takesRngState())
    return emitOpError("cannot round its output stochastically (#qs.nvfp4 "
                       "stochastic_rounding): a GEMM takes no rng state; "
                       "return the high-precision product and qs.quantize it "
                       "with rng(...)");
  // TE's amax reduction of a product: its amax exists only after the GEMM.
  if (quantized && getAmax() && !getScale() && !getUpdatedAmax() &&
      quantized.getQuantizer().getNumGlobalAmaxes() > 0)
    return emitOpError("cannot be given its output quantizer's global "
                       "amax(...) (TE's amax reduction): the product's amax "
                       "exists only after the GEMM; return the "
                       "high-precision product, all-reduce its qs.amax and "
                       "qs.quantize it with amax(...)");
  return verifyRecipeState(
      *this, quantized && quantized.getQuantizer().takesRecipeScale(),
      {getScale(), getAmax(), getUpdatedAmax()}, "a delayed-scaling result");
}
