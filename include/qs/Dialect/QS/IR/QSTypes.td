//===- QSTypes.td - the !qs.tensor type --------------------*- tablegen -*-===//

#ifndef QS_DIALECT_QS_IR_QSTYPES_TD
#define QS_DIALECT_QS_IR_QSTYPES_TD

include "qs/Dialect/QS/IR/QSDialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def QS_QuantTensorType : QS_Type<"QuantTensor", "tensor"> {
  let summary = "A logical tensor whose storage is described by a quantizer";
  let description = [{
    `!qs.tensor<SHAPE x DTYPE, QUANTIZER>` is the IR form of TransformerEngine's
    `TensorSpec(shape, dtype, quantizer)`: it holds no data, it describes a
    quantized tensor of logical shape `SHAPE` (static, rank >= 1, positive
    sizes) and nominal high-precision element type `DTYPE` (`bf16`, `f16` or
    `f32`), whose storage is the list of inner tensors that `QUANTIZER` (an
    attribute implementing `QuantizerAttrInterface`) describes. The quantizer
    verifies the shape (e.g. MXFP8 needs `M` and `K` multiples of 32).

    Example:
    ```mlir
    !qs.tensor<64x128xbf16, #qs.mxfp8<fp8_dtype = f8E4M3FN, columnwise = false>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "logical shape">:$shape,
    "::mlir::Type":$elementType,
    "::mlir::qs::QuantizerAttrInterface":$quantizer);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "::mlir::Type":$elementType,
        "::mlir::qs::QuantizerAttrInterface":$quantizer), [{
      return $_get(elementType.getContext(), shape, elementType, quantizer);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The inner tensors of this type on `target`, in interface order.
    ::llvm::SmallVector<::mlir::qs::InnerTensor>
    getInnerTensors(const ::mlir::qs::TargetInfo &target) const;
    /// The types of the inner tensors on `target`, in interface order.
    ::llvm::SmallVector<::mlir::Type>
    getInnerTypes(const ::mlir::qs::TargetInfo &target) const;
    /// The same tensor with other usage flags.
    QuantTensorType withUsage(bool rowwise, bool columnwise) const;
    /// The logical shape as a builtin tensor of the nominal element type.
    ::mlir::RankedTensorType getExpressedType() const;
    int64_t getRank() const { return getShape().size(); }
  }];
}

#endif // QS_DIALECT_QS_IR_QSTYPES_TD
