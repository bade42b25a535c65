//===- QSBufferOps.cpp - qs buffer-level operations -----------------------===//
//
// Verifiers of the buffer-level ops: the rules of their proto-level
// counterparts (QSOpsCommon.h), plus that every group of inner tensors is
// exactly what its quantized type describes.
//
//===----------------------------------------------------------------------===//

#include "QSOpsCommon.h"
#include "qs/Dialect/QS/IR/QSOps.h"

using namespace mlir;
using namespace mlir::qs;

LogicalResult QuantizeBuffersOp::verify() {
  QuantTensorType type = getQuantizedTensorType();
  if (failed(detail::verifyQuantizeTypes(*this, getInput().getType(), type)) ||
      failed(detail::verifyRngState(*this, type, getRng())) ||
      (getAmax() &&
       failed(detail::verifyGlobalAmaxes(*this, type, getAmax().getType(),
                                         "takes a global amax(...)"))))
    return failure();
  bool recipe = type.getQuantizer().takesRecipeScale();
  if (recipe != static_cast<bool>(getScale()))
    return emitOpError("takes a scale operand iff the quantizer uses delayed "
                       "scaling (#qs.fp8_delayed)");
  OperandRange outs = getOuts();
  if (recipe) {
    if (outs.empty() || outs.back().getType() !=
                            RankedTensorType::get({1}, Float32Type::get(getContext())))
      return emitOpError("with delayed scaling takes the amax state as a last "
                         "tensor<1xf32> outs operand");
    outs = outs.drop_back();
  }
  return detail::verifyInnerTypes(*this, type, outs.getTypes(),
                                  "inner tensor outs operands");
}

LogicalResult DequantizeBuffersOp::verify() {
  QuantTensorType type = getQuantizedTensorType();
  if (failed(detail::verifyInnerTypes(*this, type, getInputs().getTypes(),
                                      "inner tensor ins operands")))
    return failure();
  return detail::verifyDequantizeTypes(*this, type, getInit().getType());
}

LogicalResult GemmBuffersOp::verify() {
  if (failed(detail::verifyInnerTypes(*this, getATensorType(),
                                      getA().getTypes(), "a operands")) ||
      failed(detail::verifyInnerTypes(*this, getBTensorType(),
                                      getB().getTypes(), "b operands")))
    return failure();
  return detail::verifyGemm(*this, getATensorType(), getBTensorType(),
                            getTransposeA(), getTransposeB(),
                            getInit().getType(),
                            getBias() ? getBias().getType() : Type());
}

LogicalResult UpdateUsageBuffersOp::verify() {
  QuantTensorType source = getSourceTensorType();
  QuantTensorType result = getResultTensorType();
  if (failed(detail::verifyInnerTypes(*this, source, getInputs().getTypes(),
                                      "inner tensor ins operands")) ||
      failed(detail::verifyUsageTransition(*this, source, result)))
    return failure();
  SmallVector<InnerTensor> created =
      getCreatedInnerTensors(source, result, TargetInfo::lookup(*this));
  if (created.empty())
    return emitOpError("creates nothing: ")
           << result << " has no inner tensor that " << source
           << " lacks (dropping needs no op)";
  TypeRange outs = getOuts().getTypes();
  if (created.size() != outs.size() ||
      !llvm::all_of(llvm::zip(created, outs), [](auto pair) {
        return std::get<0>(pair).getType() == std::get<1>(pair);
      })) {
    InFlightDiagnostic diag =
        emitOpError("outs must be the created inner tensors (");
    llvm::interleaveComma(created, diag, [&](const InnerTensor &t) {
      diag << t.name << " : " << t.getType();
    });
    return diag << ")";
  }
  return success();
}
