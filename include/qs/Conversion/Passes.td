//===- Passes.td - qs conversion passes --------------------*- tablegen -*-===//

#ifndef QS_CONVERSION_PASSES_TD
#define QS_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertQSToLinalgPass : Pass<"convert-qs-to-linalg"> {
  let summary = "Lower buffer-level qs ops to the bit-exact reference "
                "computation in linalg/arith/tensor";
  let description = [{
    The target-independent reference of quant-storage's numerics, runnable on
    the CPU: every buffer-level op (`qs.quantize_buffers`,
    `qs.dequantize_buffers`, `qs.gemm_buffers`, `qs.update_usage_buffers`)
    becomes `linalg.generic`s on tensors whose bodies use only IEEE f32
    arithmetic (round to nearest even) and the exact integer emulation of the
    FP8/FP4/E8M0 conversions (`FloatEmulation.h`). Run after
    `qs-expand-storage` (flattened or not).

    Quantization is bit-exact to te-formats.md §2.c-§5.c for every family and
    usage: per-tensor delayed (scale operand, amax update) and current
    scaling (`compute_scale_from_amax`: epsilon, power-of-two, inf), MXFP8
    1-D and 2-D (E8M0 rounded up), FP8 block 1-D and 2-D (GEMM-ready scale
    layouts, partial edge blocks), NVFP4 1-D and 2-D two-level scaling with
    packed nibbles, row-scaled NVFP4, and the RHT (a sequential f32 sum of
    16 products rounded to bf16); scales compact or GEMM-swizzled as the
    quantizer says, padding zero. Stochastic rounding has no deterministic
    reference and is rejected with a diagnostic.

    A GEMM is computed as block-scaled products with FP32 promotion per
    contraction block (the tensor-core semantic): for each output,
    `sum_kb sA[m,kb] sB[n,kb] (sum_{k in kb} qA[m,k] qB[n,k])`, times the
    per-tensor factors, plus bias and accumulate, rounded once to the output
    type. Blocks: the whole K (per-tensor FP8), 32 (MXFP8), 128 (block FP8),
    16 (NVFP4).

    Example:
    ```mlir
    %q:2 = qs.quantize_buffers %x outs(%d, %s : ...) as !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
        : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
    ```
    becomes a block-amax reduction, an E8M0 scale computation, a scaled
    conversion and a scale-layout write, all as `linalg.generic` on tensors.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect", "::mlir::math::MathDialect"];
}

#endif // QS_CONVERSION_PASSES_TD
