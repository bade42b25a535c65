//===- QuantizerReferenceInterface.td - reference numerics -*- tablegen -*-===//
//
// The numerics of a quantizer family as linalg/arith/tensor IR, attached to
// the quantizer attributes as external models by the QSToLinalg library
// (registerQSToLinalgInterfaces). convert-qs-to-linalg only calls this
// interface: it never switches on concrete quantizers.
//
//===----------------------------------------------------------------------===//

#ifndef QS_CONVERSION_QSTOLINALG_QUANTIZERREFERENCEINTERFACE_TD
#define QS_CONVERSION_QSTOLINALG_QUANTIZERREFERENCEINTERFACE_TD

include "mlir/IR/OpBase.td"

def QS_QuantizerReferenceInterface
    : AttrInterface<"QuantizerReferenceInterface"> {
  let cppNamespace = "::mlir::qs";
  let description = [{
    Builds the target-independent reference computation of a quantizer
    family (te-formats.md §2.c-§5.d): quantize into every inner tensor,
    dequantize, the GEMM view of an operand, and the representations
    `update_usage` creates. Shapes are static; all arithmetic is IEEE f32
    with round-to-nearest-even and the exact conversions of
    qs/Dialect/QS/Utils/FloatEmulation.h.
  }];
  let methods = [
    InterfaceMethod<[{
        Checks that the reference lowering supports `type`'s options, with a
        diagnostic stating why not.
      }],
      "::llvm::LogicalResult", "verifyReferenceSupport",
      (ins "::mlir::qs::QuantTensorType":$type,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError),
      [{}], [{ return ::mlir::success(); }]>,
    InterfaceMethod<[{
        Quantizes `input` (the expressed type of `type`) into every inner
        tensor of `type`, interface order; for delayed scaling `scale` is the
        recipe's scale and the last of `outs` the amax state, and the updated
        amax is returned after the inner tensors; `amax` is the given global
        amaxes (TE's amax reduction: current scaling, NVFP4 without row
        scales; what buildGlobalAmaxes computes) or null; for
        stochastic rounding `rng` is the rng state (tensor<2xi64>: seed,
        offset), else null.
      }],
      "::llvm::SmallVector<::mlir::Value>", "buildQuantize",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::qs::QuantTensorType":$type, "::mlir::Value":$input,
           "::mlir::Value":$scale, "::mlir::Value":$amax,
           "::mlir::Value":$rng,
           "::mlir::ValueRange":$outs,
           "const ::mlir::qs::TargetInfo &":$target)>,
    InterfaceMethod<[{
        The global amaxes a quantize of `input` (the expressed type of
        `type`) computes, as the `tensor<Nxf32>` `qs.amax` returns (N =
        QuantizerAttrInterface::getNumGlobalAmaxes, at least 1).
      }],
      "::mlir::Value", "buildGlobalAmaxes",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::qs::QuantTensorType":$type, "::mlir::Value":$input),
      [{}], [{ return {}; }]>,
    InterfaceMethod<[{
        The logical values of a quantized tensor (all its inner tensors in
        `inner`) as an f32 tensor of its logical shape, from the row-wise
        representation if present, else the column-wise one.
      }],
      "::mlir::Value", "buildDequantize",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::qs::QuantTensorType":$type, "::mlir::ValueRange":$inner,
           "const ::mlir::qs::TargetInfo &":$target)>,
    InterfaceMethod<[{
        The operand of a GEMM, in the representation its contraction needs
        (row-wise when contracted over its last dimension), as quantized
        values and block scales in [rows, contraction] orientation.
      }],
      "::mlir::qs::ReferenceGemmOperand", "buildGemmOperand",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::qs::QuantTensorType":$type, "::mlir::ValueRange":$inner,
           "bool":$contractsLastDim,
           "const ::mlir::qs::TargetInfo &":$target)>,
    InterfaceMethod<[{
        The inner tensors `result` has and `source` lacks (interface order),
        derived exactly from `source`'s inner tensors (`inner`).
      }],
      "::llvm::SmallVector<::mlir::Value>", "buildCreatedInnerTensors",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::qs::QuantTensorType":$source,
           "::mlir::qs::QuantTensorType":$result, "::mlir::ValueRange":$inner,
           "const ::mlir::qs::TargetInfo &":$target)>,
  ];
}

#endif // QS_CONVERSION_QSTOLINALG_QUANTIZERREFERENCEINTERFACE_TD
