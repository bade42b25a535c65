//===- QSBufferOps.td - buffer-level qs operations ---------*- tablegen -*-===//
//
// The ops `qs-expand-storage` lowers the proto-level ops to. They take and
// produce the explicit inner tensors of quantized values, in interface
// order, in destination-passing style: every result is the updated value of
// the `outs` operand at the same position (like linalg on tensors), so
// one-shot bufferization can later write the buffers in place. The
// quantized type each group of inner tensors belongs to is carried as a type
// attribute; the numerics are those of the proto-level op of the same name.
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_IR_QSBUFFEROPS_TD
#define QS_DIALECT_QS_IR_QSBUFFEROPS_TD

include "mlir/Interfaces/DestinationStyleOpInterface.td"

class QS_BufferOp<string mnemonic, list<Trait> traits = []>
    : QS_Op<mnemonic, !listconcat(traits, [Pure,
        DestinationStyleOpInterface])> {
  let hasVerifier = 1;
}

def QS_QuantizeBuffersOp : QS_BufferOp<"quantize_buffers",
    [AttrSizedOperandSegments]> {
  let summary = "Quantize into explicit inner tensors";
  let description = [{
    Buffer-level `qs.quantize`: quantizes `input` (the expressed type of
    `quantized_type`) and writes every inner tensor of `quantized_type`, in
    interface order, into the `outs` operands; results are the written
    tensors. Padding entries of scale buffers are unspecified unless the
    quantizer writes GEMM-swizzled scales (then they are zero). For delayed
    scaling the recipe's `scale` is an operand and the amax state is an extra,
    last `outs` operand that is read and updated (`max(amax, max|input|)`).
    Current scaling and NVFP4 without row scales may take the global
    amaxes, `amax(...)`, to compute the scales from instead of the ones
    they would compute (TE's amax reduction, as `qs.quantize` describes:
    `tensor<2xf32>` for NVFP4 with RHT). NVFP4 with stochastic rounding takes its rng
    state, `rng(...)`, as `qs.quantize` does.

    Example:
    ```mlir
    %d, %s = qs.quantize_buffers %x outs(%d0, %s0 : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
        as !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
        : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       Optional<QS_F32ScalarTensor>:$scale,
                       Optional<QS_F32AmaxTensor>:$amax,
                       Optional<QS_RngStateTensor>:$rng,
                       Variadic<AnyRankedTensor>:$outs,
                       TypeAttrOf<QS_QuantTensor>:$quantized_type);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $input (`scale` `(` $scale^ `:` type($scale) `)`)?
    (`amax` `(` $amax^ `:` type($amax) `)`)?
    (`rng` `(` $rng^ `:` type($rng) `)`)?
    `outs` `(` $outs `:` type($outs) `)` `as` $quantized_type attr-dict
    `:` type($input) `->` type($results)
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getOutsMutable(); }
    ::mlir::qs::QuantTensorType getQuantizedTensorType() {
      return ::llvm::cast<::mlir::qs::QuantTensorType>(getQuantizedType());
    }
  }];
}

def QS_DequantizeBuffersOp : QS_BufferOp<"dequantize_buffers"> {
  let summary = "Dequantize from explicit inner tensors";
  let description = [{
    Buffer-level `qs.dequantize`: `ins` are all inner tensors of
    `quantized_type` in interface order; the logical values are written into
    `init` (any high-precision float element type, the logical shape).

    Example:
    ```mlir
    %x = qs.dequantize_buffers ins(%d, %s : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
        outs(%e : tensor<64x128xf32>)
        as !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       AnyRankedTensor:$init,
                       TypeAttrOf<QS_QuantTensor>:$quantized_type);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    `ins` `(` $inputs `:` type($inputs) `)` `outs` `(` $init `:` type($init) `)`
    `as` $quantized_type attr-dict `->` type($result)
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    ::mlir::qs::QuantTensorType getQuantizedTensorType() {
      return ::llvm::cast<::mlir::qs::QuantTensorType>(getQuantizedType());
    }
  }];
}

def QS_GemmBuffersOp : QS_BufferOp<"gemm_buffers",
    [AttrSizedOperandSegments]> {
  let summary = "Quantized GEMM on explicit inner tensors";
  let description = [{
    Buffer-level `qs.gemm`: `a` and `b` are all inner tensors of `a_type` and
    `b_type` (interface order); the product `op(a) * op(b) (+ bias)` is
    written into `init`. With `accumulate` the initial contents of `init`
    are added (TE's `accumulate=True`); without it they are ignored.
    `fast_accumulate` as on `qs.gemm`.

    Example:
    ```mlir
    %y = qs.gemm_buffers a(%xd, %xs : tensor<128x256xf8E4M3FN>, tensor<1xf32>)
        as !qs.tensor<128x256xbf16, #qs.fp8_current<columnwise = false>>
        b(%wd, %ws : tensor<512x256xf8E4M3FN>, tensor<1xf32>)
        as !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>>
        outs(%e : tensor<128x512xbf16>) transpose_b -> tensor<128x512xbf16>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$a,
                       Variadic<AnyRankedTensor>:$b,
                       Optional<AnyRankedTensor>:$bias,
                       AnyRankedTensor:$init,
                       TypeAttrOf<QS_QuantTensor>:$a_type,
                       TypeAttrOf<QS_QuantTensor>:$b_type,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$accumulate, UnitAttr:$fast_accumulate);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    `a` `(` $a `:` type($a) `)` `as` $a_type
    `b` `(` $b `:` type($b) `)` `as` $b_type
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $init `:` type($init) `)`
    (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`accumulate` $accumulate^)? (`fast_accumulate` $fast_accumulate^)?
    attr-dict `->` type($result)
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    ::mlir::qs::QuantTensorType getATensorType() {
      return ::llvm::cast<::mlir::qs::QuantTensorType>(getAType());
    }
    ::mlir::qs::QuantTensorType getBTensorType() {
      return ::llvm::cast<::mlir::qs::QuantTensorType>(getBType());
    }
  }];
}

def QS_UpdateUsageBuffersOp : QS_BufferOp<"update_usage_buffers",
    [AttrSizedOperandSegments]> {
  let summary = "Create representations from the inner tensors of another";
  let description = [{
    Buffer-level `qs.update_usage` for the transitions that create a
    representation (dropping needs no op): `ins` are all inner tensors of
    `source_type`; `outs` are the inner tensors of `result_type` that
    `source_type` lacks (interface order), which the op derives exactly: the
    per-tensor FP8 `transpose` (byte transpose of `data`), the column-wise
    data and scales of 128x128 block FP8 (byte and scale transposes), and the
    column-wise data, scales and amax of 16x16 NVFP4 (nibble transpose, scale
    transpose, amax copy).

    Example:
    ```mlir
    %t = qs.update_usage_buffers ins(%d, %s : tensor<64x128xf8E4M3FN>, tensor<1xf32>)
        outs(%t0 : tensor<128x64xf8E4M3FN>)
        from !qs.tensor<64x128xbf16, #qs.fp8_current<columnwise = false>>
        to !qs.tensor<64x128xbf16, #qs.fp8_current> -> tensor<128x64xf8E4M3FN>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       Variadic<AnyRankedTensor>:$outs,
                       TypeAttrOf<QS_QuantTensor>:$source_type,
                       TypeAttrOf<QS_QuantTensor>:$result_type);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    `ins` `(` $inputs `:` type($inputs) `)` `outs` `(` $outs `:` type($outs) `)`
    `from` $source_type `to` $result_type attr-dict `->` type($results)
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getOutsMutable(); }
    ::mlir::qs::QuantTensorType getSourceTensorType() {
      return ::llvm::cast<::mlir::qs::QuantTensorType>(getSourceType());
    }
    ::mlir::qs::QuantTensorType getResultTensorType() {
      return ::llvm::cast<::mlir::qs::QuantTensorType>(getResultType());
    }
  }];
}

#endif // QS_DIALECT_QS_IR_QSBUFFEROPS_TD
