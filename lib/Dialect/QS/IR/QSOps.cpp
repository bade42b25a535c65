//===- QSOps.cpp - qs operations ------------------------------------------===//
//
// Verifiers of the proto-level ops. Format knowledge comes only from
// QuantizerAttrInterface; the rules checked here are the op's own.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::qs;

#define GET_OP_CLASSES
#include "qs/Dialect/QS/IR/QSOps.cpp.inc"

static bool isNominalFloat(Type type) {
  return type.isBF16() || type.isF16() || type.isF32();
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

LogicalResult QuantizeOp::verify() {
  QuantTensorType resultType = getResult().getType();
  RankedTensorType expressed = resultType.getExpressedType();
  if (getInput().getType() != expressed)
    return emitOpError("input type ")
           << getInput().getType()
           << " must be the expressed type of the result, " << expressed;
  bool recipe = resultType.getQuantizer().takesRecipeScale();
  bool hasState = getScale() && getAmax() && getUpdatedAmax();
  bool hasAny = getScale() || getAmax() || getUpdatedAmax();
  if (recipe && !hasState)
    return emitOpError("with delayed scaling needs scale(...) and amax(...) "
                       "operands and returns the updated amax as a second "
                       "result");
  if (!recipe && hasAny)
    return emitOpError("takes scale/amax operands and returns an updated "
                       "amax only for delayed scaling (#qs.fp8_delayed)");
  return success();
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  QuantTensorType inputType = getInput().getType();
  auto resultType = getResult().getType();
  if (resultType.getShape() != inputType.getShape())
    return emitOpError("result shape must equal the logical shape of the "
                       "input, expected ")
           << inputType.getExpressedType() << ", got " << resultType;
  if (!isNominalFloat(resultType.getElementType()))
    return emitOpError("result element type must be bf16, f16 or f32, got ")
           << resultType.getElementType();
  QuantizerAttrInterface quantizer = inputType.getQuantizer();
  Usage available = quantizer.getAvailableUsage(TargetInfo::lookup(*this));
  if (!hasUsage(available, Usage::Rowwise) &&
      !quantizer.canDequantizeColumnwise())
    return emitOpError("a ")
           << quantizer.getQuantizerClassName()
           << " tensor can only be dequantized from its rowwise "
              "representation, which the input does not have";
  return success();
}

//===----------------------------------------------------------------------===//
// AssembleOp / DisassembleOp
//===----------------------------------------------------------------------===//

/// Checks `types` against the inner tensors of `type` on the op's target.
static LogicalResult verifyInnerTypes(Operation *op, QuantTensorType type,
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

LogicalResult AssembleOp::verify() {
  return verifyInnerTypes(*this, getResult().getType(),
                          getInputs().getTypes(), "inner tensor operands");
}

LogicalResult DisassembleOp::verify() {
  return verifyInnerTypes(*this, getInput().getType(),
                          getOutputs().getTypes(), "inner tensor results");
}

//===----------------------------------------------------------------------===//
// UpdateUsageOp
//===----------------------------------------------------------------------===//

LogicalResult UpdateUsageOp::verify() {
  QuantTensorType inputType = getInput().getType();
  QuantTensorType resultType = getResult().getType();
  QuantizerAttrInterface result = resultType.getQuantizer();
  if (inputType.withUsage(result.getRowwise(), result.getColumnwise()) !=
      resultType)
    return emitOpError("result type must be the input type with other usage "
                       "flags, got ")
           << resultType << " for " << inputType;
  TargetInfo target = TargetInfo::lookup(*this);
  Usage wanted = result.getAvailableUsage(target);
  QuantizerAttrInterface input = inputType.getQuantizer();
  if (!input.canCreateUsage(wanted, target)) {
    Usage have = input.getAvailableUsage(target);
    return emitOpError("cannot create the ")
           << stringifyUsage(static_cast<Usage>(
                  static_cast<unsigned>(wanted) &
                  ~static_cast<unsigned>(have)))
           << " representation of a " << input.getQuantizerClassName()
           << " tensor from its " << stringifyUsage(have)
           << " one on " << target.getChip()
           << ": only the per-tensor FP8 transpose (TN-only chips) and the "
              "column-wise form of 2-D block FP8 and 2-D NVFP4 without RHT "
              "can be derived";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

/// The usage an operand needs: rowwise when contracted over its last
/// dimension, columnwise when contracted over its (flattened) first one.
static LogicalResult verifyGemmOperandUsage(GemmOp op, StringRef name,
                                            QuantTensorType type,
                                            bool contractsLastDim,
                                            const TargetInfo &target) {
  Usage needed = contractsLastDim ? Usage::Rowwise : Usage::Columnwise;
  QuantizerAttrInterface quantizer = type.getQuantizer();
  if (hasUsage(quantizer.getAvailableUsage(target), needed))
    return success();
  return op.emitOpError("operand ")
         << name << " is contracted over its "
         << (contractsLastDim ? "last" : "first") << " dimension and needs its "
         << stringifyUsage(needed) << " usage, but its quantizer has "
         << stringifyUsage(needed) << " = false on " << target.getChip();
}

LogicalResult GemmOp::verify() {
  QuantTensorType aType = getA().getType();
  QuantTensorType bType = getB().getType();
  if (aType.getRank() < 2 || bType.getRank() < 2)
    return emitOpError("operands must have rank >= 2 (leading dimensions are "
                       "folded into M)");
  Flat2D a = flatten2D(aType.getShape());
  Flat2D b = flatten2D(bType.getShape());
  bool ta = getTransposeA(), tb = getTransposeB();
  int64_t m = ta ? a.k : a.m, ka = ta ? a.m : a.k;
  int64_t kb = tb ? b.k : b.m, n = tb ? b.m : b.k;
  if (ka != kb)
    return emitOpError("contraction sizes differ: op(a) is ")
           << m << "x" << ka << " and op(b) is " << kb << "x" << n;

  SmallVector<int64_t> expectedShape;
  if (ta)
    expectedShape = {m, n};
  else
    llvm::append_range(expectedShape, aType.getShape().drop_back());
  if (!ta)
    expectedShape.push_back(n);
  RankedTensorType resultType = getResult().getType();
  if (resultType.getShape() != ArrayRef<int64_t>(expectedShape)) {
    InFlightDiagnostic diag = emitOpError("result shape must be ");
    llvm::interleave(expectedShape, diag, "x");
    return diag << " (op(a) * op(b)" << (ta ? "" : ", keeping a's leading "
                                                   "dimensions")
                << "), got " << resultType;
  }
  Type outType = resultType.getElementType();
  if (!isNominalFloat(outType))
    return emitOpError("result element type must be bf16, f16 or f32, got ")
           << outType;

  QuantizerAttrInterface qa = aType.getQuantizer(), qb = bType.getQuantizer();
  if (!areGemmCompatible(qa.getScalingMode(), qb.getScalingMode()))
    return emitOpError("operands use incompatible scaling modes: ")
           << stringifyScalingMode(qa.getScalingMode()) << " and "
           << stringifyScalingMode(qb.getScalingMode())
           << " (both must be per-tensor FP8, MXFP8 or NVFP4, or block FP8 "
              "with at most one 128x128 operand)";
  for (QuantizerAttrInterface q : {qa, qb})
    if (!q.supportsGemmOutputType(outType))
      return emitOpError("a GEMM on ")
             << q.getQuantizerClassName() << " operands cannot produce "
             << outType;

  TargetInfo target = TargetInfo::lookup(*this);
  if (failed(verifyGemmOperandUsage(*this, "a", aType, !ta, target)) ||
      failed(verifyGemmOperandUsage(*this, "b", bType, tb, target)))
    return failure();

  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getShape() != ArrayRef<int64_t>{n} ||
        !isNominalFloat(biasType.getElementType()))
      return emitOpError("bias must be a 1-D tensor of ")
             << n << " bf16, f16 or f32 values, got " << biasType;
  }
  if (Value acc = getAccumulate())
    if (acc.getType() != resultType)
      return emitOpError("accumulate operand must have the result type ")
             << resultType << ", got " << acc.getType();
  return success();
}
