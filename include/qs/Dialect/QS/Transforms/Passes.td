//===- Passes.td - qs dialect passes -----------------------*- tablegen -*-===//

#ifndef QS_DIALECT_QS_TRANSFORMS_PASSES_TD
#define QS_DIALECT_QS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def QSDescribeStoragePass : Pass<"qs-describe-storage", "::mlir::ModuleOp"> {
  let summary = "Print the inner tensors of every quantized function argument "
                "and result";
  let description = [{
    The command-line form of TE's `TensorSpec.inner_tensor_specs()`. For every
    function (any `FunctionOpInterface` op) and every argument and result of
    `!qs.tensor` type, prints to standard output a header line followed by one
    line per inner tensor, in `QuantizerAttrInterface` order, for the chip
    named by `qs.chip` (default `sm_90a`). The IR is not changed.

    The output format is stable:
    ```
    @FUNC arg N: TYPE
      NAME : tensor<SHAPExELEMTYPE>
    @FUNC result N: TYPE
      NAME : tensor<SHAPExELEMTYPE>
    ```
    With `metadata=true`, each header is followed by a line
    `  metadata: {...}` holding the non-tensor flatten context (storage class,
    element format, `fake_dtype`, family extras).

    Example: for
    ```mlir
    func.func private @f(!qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>)
    ```
    it prints
    ```
    @f arg 0: !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
      rowwise_data : tensor<64x128xf8E4M3FN>
      rowwise_scale_inv : tensor<128x4xf8E8M0FNU>
    ```
  }];
  let options = [
    Option<"metadata", "metadata", "bool", /*default=*/"false",
           "Also print the non-tensor storage metadata">,
  ];
}

#endif // QS_DIALECT_QS_TRANSFORMS_PASSES_TD
