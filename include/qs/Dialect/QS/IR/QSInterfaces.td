//===- QSInterfaces.td - QuantizerAttrInterface ------------*- tablegen -*-===//
//
// The storage contract of a quantizer. This interface is the only place in
// quant-storage that knows formats: buffer names, order, shapes, element
// types, presence rules, shape rules and usage transitions.
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_IR_QSINTERFACES_TD
#define QS_DIALECT_QS_IR_QSINTERFACES_TD

include "mlir/IR/OpBase.td"

def QS_QuantizerAttrInterface : AttrInterface<"QuantizerAttrInterface"> {
  let cppNamespace = "::mlir::qs";
  let description = [{
    Implemented by every quantizer attribute (`#qs.fp8_delayed`,
    `#qs.fp8_current`, `#qs.mxfp8`, `#qs.fp8_block`, `#qs.nvfp4`). For a
    logical shape it gives the ordered inner tensors exactly as
    TransformerEngine's C++ allocation makes them (names without TE's leading
    underscore, TE's `_INNER_TENSORS` order, TE's presence rules by usage and
    target, TE's padded shapes), the shape rules of the format, and TE's
    `update_usage` rules.
  }];

  let methods = [
    InterfaceMethod<"The TransformerEngine quantizer class this mirrors.",
      "::llvm::StringRef", "getQuantizerClassName">,
    InterfaceMethod<"The TransformerEngine storage class of the tensors it "
                    "produces (TE's flatten context `cls`).",
      "::llvm::StringRef", "getStorageClassName">,
    InterfaceMethod<"TransformerEngine's scaling mode (NVTEScalingMode).",
      "::mlir::qs::ScalingMode", "getScalingMode">,
    InterfaceMethod<"The element format of the quantized data "
                    "(f8E4M3FN, f8E5M2 or f4E2M1FN).",
      "::mlir::FloatType", "getElementFormat">,
    InterfaceMethod<"Whether the row-wise representation is requested.",
      "bool", "getRowwise", (ins), [{ return $_attr.getRowwise(); }]>,
    InterfaceMethod<"Whether the column-wise representation is requested.",
      "bool", "getColumnwise", (ins), [{ return $_attr.getColumnwise(); }]>,
    InterfaceMethod<"A copy of this quantizer with other usage flags "
                    "(TE `Quantizer.set_usage` on a copy).",
      "::mlir::qs::QuantizerAttrInterface", "withUsage",
      (ins "bool":$rowwise, "bool":$columnwise)>,
    InterfaceMethod<[{
        Checks the format's rules for a logical shape (static, rank >= 1,
        already checked by the type) and nominal element type; reports a
        message that states the rule.
      }],
      "::llvm::LogicalResult", "verifyShape",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$nominalType,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>,
    InterfaceMethod<[{
        Appends the inner tensors of a tensor of logical `shape`, in TE's
        `_INNER_TENSORS` order, filtered by the usage flags and the target.
        The shape must satisfy `verifyShape`.
      }],
      "void", "getInnerTensors",
      (ins "::llvm::ArrayRef<int64_t>":$shape,
           "const ::mlir::qs::TargetInfo &":$target,
           "::llvm::SmallVectorImpl<::mlir::qs::InnerTensor> &":$result)>,
    InterfaceMethod<[{
        The usages whose GEMM representation the storage holds on `target`.
        Usually the usage flags; per-tensor FP8 on GPUs that are not TN-only
        serves both from its single `data` buffer.
      }],
      "::mlir::qs::Usage", "getAvailableUsage",
      (ins "const ::mlir::qs::TargetInfo &":$target), [{}], [{
        return ::mlir::qs::makeUsage($_attr.getRowwise(),
                                     $_attr.getColumnwise());
      }]>,
    InterfaceMethod<[{
        Whether `qs.update_usage` can create the representation(s) in
        `missing` from those this quantizer holds on `target` (TE's
        `update_usage`: per-tensor FP8 transpose from data on TN-only GPUs,
        column-wise from row-wise for 2-D block FP8 and 2-D NVFP4 without
        RHT). Dropping is always possible.
      }],
      "bool", "canCreateUsage",
      (ins "::mlir::qs::Usage":$missing,
           "const ::mlir::qs::TargetInfo &":$target)>,
    InterfaceMethod<[{
        Whether the column-wise representation alone can be dequantized
        (NVFP4 cannot: TE raises NotImplementedError).
      }],
      "bool", "canDequantizeColumnwise", (ins), [{}], [{ return true; }]>,
    InterfaceMethod<[{
        Whether a GEMM on operands of this quantizer may produce
        `outputType` (NVFP4 GEMMs reject f16 output, as TE does).
      }],
      "bool", "supportsGemmOutputType", (ins "::mlir::Type":$outputType),
      [{}], [{ return true; }]>,
    InterfaceMethod<[{
        The non-tensor part of TE's flatten context for a tensor of nominal
        type `nominalType`: `cls` (storage class), the element
        format (`fp8_dtype`/`fp4_dtype`), `fake_dtype`, the quantizer itself
        and the family's extra metadata, as a dictionary.
      }],
      "::mlir::DictionaryAttr", "getStorageMetadata",
      (ins "::mlir::Type":$nominalType)>,
    InterfaceMethod<[{
        Whether the format has a GEMM-swizzled (128x4-tiled) scale layout that
        the quantizer can be asked to write (MXFP8, NVFP4).
      }],
      "bool", "canWriteGemmSwizzledScales", (ins), [{}],
      [{ return false; }]>,
    InterfaceMethod<"Whether scales are written GEMM-swizzled "
                    "(`optimize_for_gemm`).",
      "bool", "writesGemmSwizzledScales", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        A copy of this quantizer that writes GEMM-swizzled scales or not; the
        quantizer itself where the format has no such layout.
      }],
      "::mlir::qs::QuantizerAttrInterface", "withGemmSwizzledScales",
      (ins "bool":$swizzled), [{}],
      [{ return ::llvm::cast<::mlir::qs::QuantizerAttrInterface>($_attr); }]>,
    InterfaceMethod<[{
        Whether `qs.quantize` takes the recipe's scale and amax state as
        operands and returns the updated amax (delayed scaling).
      }],
      "bool", "takesRecipeScale", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        How many tensor-wide amaxes the quantizer computes from the whole
        tensor, so that `qs.amax` returns them and `qs.quantize` may be
        given them instead, `amax(...)` alone as a `tensor<Nxf32>` (TE's
        amax reduction across ranks): 1 for current scaling and NVFP4
        without the Hadamard transform or row scales (max |x|), 2 for NVFP4
        with the Hadamard transform (max |x| for the row-wise
        representation, then max |RHT(x^T)| for the column-wise one), 0
        for every other quantizer (none, or one per block or row only).
      }],
      "unsigned", "getNumGlobalAmaxes", (ins), [{}], [{ return 0; }]>,
    InterfaceMethod<[{
        Whether the quantizer rounds stochastically, so that `qs.quantize`
        takes an rng state operand (`rng(...)`: seed, offset) and a GEMM
        cannot use it as its output quantizer.
      }],
      "bool", "takesRngState", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        The random Hadamard transform the column-wise representation carries,
        as its sign mask (bit i set iff sign i is -1, TE's
        `rht_matrix_random_sign_mask_t`), or none when the column-wise data
        is `x^T` itself (NVFP4 `with_rht`: `bf16(RHT(x^T))`, te-formats.md
        §5.e). The transform is orthogonal, so it cancels in a GEMM only
        when both operands' contracted data carry the same one; `qs.gemm`
        verifies that.
      }],
      "::std::optional<uint32_t>", "getColumnwiseRhtSignMask", (ins), [{}],
      [{ return ::std::nullopt; }]>,
  ];
}

#endif // QS_DIALECT_QS_IR_QSINTERFACES_TD
