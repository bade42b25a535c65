//===- QSAttrs.td - quantizer attributes -------------------*- tablegen -*-===//
//
// One attribute per TransformerEngine quantizer family. Parameters are TE's
// value fields, spelled as TE's constructor keywords, with TE's defaults;
// defaults are elided when printing.
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_IR_QSATTRS_TD
#define QS_DIALECT_QS_IR_QSATTRS_TD

include "qs/Dialect/QS/IR/QSDialect.td"

def QS_Fp8DelayedAttr : QS_QuantizerAttr<"Fp8Delayed", "fp8_delayed",
    ["getAvailableUsage", "takesRecipeScale"]> {
  let summary = "Per-tensor FP8 with delayed scaling (TE Float8Quantizer)";
  let description = [{
    One FP32 scale for the whole tensor, taken from the recipe's amax history
    (the scale and amax state are operands of `qs.quantize`). Inner tensors:

    | name | present iff | shape | element |
    |---|---|---|---|
    | `data` | `rowwise` or the chip is not TN-only | `S` | `fp8_dtype` |
    | `transpose` | `columnwise` and the chip is TN-only | `(K, d0, ..., d_{n-2})` | `fp8_dtype` |
    | `scale_inv` | always | `(1)` | `f32` |

    Example: `#qs.fp8_delayed<fp8_dtype = f8E5M2, rowwise = false>`.
  }];
  let parameters = (ins
    QS_Fp8DtypeParameter:$fp8_dtype,
    QS_BoolParameter<"true", "row-wise usage">:$rowwise,
    QS_BoolParameter<"true", "column-wise usage">:$columnwise);
}

def QS_Fp8CurrentAttr : QS_QuantizerAttr<"Fp8Current", "fp8_current",
    ["getAvailableUsage", "getNumGlobalAmaxes"]> {
  let summary = "Per-tensor FP8 with current scaling "
                "(TE Float8CurrentScalingQuantizer)";
  let description = [{
    The scale is computed from the tensor's own amax at quantization time
    (or from a given global amax, `qs.quantize ... amax(...)`: TE's amax
    reduction): `scale = fp8_max / max(amax, amax_epsilon)`, optionally
    rounded down to a power of two (`force_pow_2_scales`). Same inner
    tensors as `#qs.fp8_delayed`.

    Example: `#qs.fp8_current<force_pow_2_scales = true, amax_epsilon = 1.0e-12>`.
  }];
  let parameters = (ins
    QS_Fp8DtypeParameter:$fp8_dtype,
    QS_BoolParameter<"true", "row-wise usage">:$rowwise,
    QS_BoolParameter<"true", "column-wise usage">:$columnwise,
    QS_BoolParameter<"false", "round scales down to powers of two">:$force_pow_2_scales,
    QS_F32Parameter:$amax_epsilon);
}

def QS_MXFP8Attr : QS_QuantizerAttr<"MXFP8", "mxfp8",
    ["canWriteGemmSwizzledScales", "writesGemmSwizzledScales",
     "withGemmSwizzledScales"]> {
  let summary = "MXFP8: FP8 elements with one E8M0 scale per 32 elements "
                "(TE MXFP8Quantizer)";
  let description = [{
    Requires `M % 32 == 0` and `K % 32 == 0`. Inner tensors:

    | name | present iff | shape | element |
    |---|---|---|---|
    | `rowwise_data` | `rowwise` | `S` | `fp8_dtype` |
    | `rowwise_scale_inv` | `rowwise` | `(roundup(M,128), roundup(K/32,4))` | `f8E8M0FNU` |
    | `columnwise_data` | `columnwise` | `S` (not transposed) | `fp8_dtype` |
    | `columnwise_scale_inv` | `columnwise` | `(roundup(M/32,4), roundup(K,128))` | `f8E8M0FNU` |

    `with_2d_quantization` uses one scale per 32x32 tile; `optimize_for_gemm`
    stores the scales in cuBLAS's 128x4-tiled (GEMM-swizzled) order.

    Example: `#qs.mxfp8<columnwise = false, optimize_for_gemm = true>`.
  }];
  let parameters = (ins
    QS_Fp8DtypeParameter:$fp8_dtype,
    QS_BoolParameter<"true", "row-wise usage">:$rowwise,
    QS_BoolParameter<"true", "column-wise usage">:$columnwise,
    QS_BoolParameter<"false", "32x32 tiles instead of 1x32 blocks">:$with_2d_quantization,
    QS_BoolParameter<"false", "write scales in the GEMM-swizzled layout">:$optimize_for_gemm);
}

def QS_Fp8BlockAttr : QS_QuantizerAttr<"Fp8Block", "fp8_block"> {
  let summary = "FP8 block scaling with FP32 scales per 1x128 or 128x128 "
                "block (TE Float8BlockQuantizer)";
  let description = [{
    `block_scaling_dim = 1`: one scale per 1x128 block (row-wise) or 128x1
    block (column-wise); `block_scaling_dim = 2` (TE's constructor default):
    one scale per 128x128 tile. Edge blocks may be partial. Inner tensors:

    | name | present iff | shape | element |
    |---|---|---|---|
    | `rowwise_data` | `rowwise` | `S` | `fp8_dtype` |
    | `rowwise_scale_inv` | `rowwise` | dim 1: `(ceil(K/128), roundup(M,4))`; dim 2: `(ceil(M/128), roundup(ceil(K/128),4))` | `f32` |
    | `columnwise_data` | `columnwise` | `(K, d0, ..., d_{n-2})` (transposed) | `fp8_dtype` |
    | `columnwise_scale_inv` | `columnwise` | dim 1: `(ceil(M/128), roundup(K,4))`; dim 2: `(ceil(K/128), roundup(ceil(M/128),4))` | `f32` |

    Example: `#qs.fp8_block<block_scaling_dim = 1, columnwise = false>`.
  }];
  let parameters = (ins
    QS_Fp8DtypeParameter:$fp8_dtype,
    QS_BoolParameter<"true", "row-wise usage">:$rowwise,
    QS_BoolParameter<"true", "column-wise usage">:$columnwise,
    DefaultValuedParameter<"int64_t", "2", "1 (1x128 blocks) or 2 (128x128 tiles)">:$block_scaling_dim,
    QS_BoolParameter<"true", "round scales down to powers of two">:$force_pow_2_scales,
    QS_F32Parameter:$amax_epsilon);
}

def QS_NVFP4Attr : QS_QuantizerAttr<"NVFP4", "nvfp4",
    ["canDequantizeColumnwise", "supportsGemmOutputType",
     "canWriteGemmSwizzledScales", "writesGemmSwizzledScales",
     "withGemmSwizzledScales", "takesRngState", "getColumnwiseRhtSignMask",
     "getNumGlobalAmaxes"]> {
  let summary = "NVFP4: E2M1 elements, one E4M3 scale per 16 elements and an "
                "FP32 global amax (TE NVFP4Quantizer)";
  let description = [{
    Requires `M % 16 == 0` and `K % 16 == 0`. Data bytes hold two E2M1 codes
    (element `2j` in bits 3..0, `2j+1` in bits 7..4). Inner tensors:

    | name | present iff | shape | element |
    |---|---|---|---|
    | `rowwise_data` | `rowwise` | `(d0, ..., d_{n-2}, K/2)` | `i8` |
    | `rowwise_scale_inv` | `rowwise` | `(roundup(M,128), roundup(K/16,4))` | `f8E4M3FN` |
    | `columnwise_data` | `columnwise` | `(K, M/2)` (2-D, transposed) | `i8` |
    | `columnwise_scale_inv` | `columnwise` | `(roundup(K,128), roundup(M/16,4))` | `f8E4M3FN` |
    | `amax_rowwise` | `rowwise` | `(1)`, `(M)` if `row_scaled_nvfp4` | `f32` |
    | `amax_columnwise` | `columnwise` | `(1)`, `(K)` if `row_scaled_nvfp4` | `f32` |

    Rules (TE's): `with_rht` requires `with_post_rht_amax` and a bf16 nominal
    type; `row_scaled_nvfp4` excludes `with_rht`, `with_2d_quantization` and
    `stochastic_rounding`.

    The RHT matrix is `diag(s) H16 / 4` with TE's fixed sign vector `s`
    (`rht_matrix_random_sign_mask_t = 0xD7E8`: bit i set iff `s_i = -1`),
    or `H16 / 4` with `with_random_sign_mask = false` (mask 0); without
    `with_rht` the flag has no effect. The transform of a 16-element chunk
    `v` is computed as the fast Walsh-Hadamard transform: the exact
    products `w_r = v_r s_r / 4`, then four f32 butterfly stages (bit h = 1,
    2, 4, 8 of the index: `a_i, a_{i+h} <- a_i + a_{i+h}, a_i - a_{i+h}`),
    each result rounded to bf16 (docs/Numerics.md).

    4over6 (`nvfp4_use_4over6`, TE's recipe option for weights and
    activations; te-formats.md §5.c): with E = `nvfp4_e4m3_max`,
    S_enc = f32(6 E / G) and base = f32(f32(amax_b / 6) * S_enc), each block
    is quantized twice, "map-to-6" with sf = e4m3(base) and "map-to-4" with
    sf = e4m3(f32(base * 1.5)) (both saturating at 448), each with
    enc = min(1 / f32(sf * S_dec), FLT_MAX). The error of an element is
    f32(f32(f32(e2m1(q) * sf) * G) / (6 E)) - x, summed in f32 over the
    block in element order as |error| (`"MAE"`) or error^2 (`"MSE"`); with
    2-D quantization the 16 row sums of a tile are added as a tree
    ((r_i + r_{i+8}), then i + 4, i + 2, i + 1). The block keeps map-to-4
    iff its error is strictly smaller. Dequantization and GEMMs use
    G / (6 E) in place of G / 2688. 4over6 excludes `with_rht` and
    `stochastic_rounding`; `nvfp4_e4m3_max` is 448 or 256, and 256 needs
    4over6 (TE forces 448 otherwise). `nvfp4_4over6_err_mode` has no
    effect without 4over6.

    Example: `#qs.nvfp4<with_rht = true, with_post_rht_amax = true>`,
    `#qs.nvfp4<nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256,
    nvfp4_4over6_err_mode = "MSE">`.
  }];
  let parameters = (ins
    QS_BoolParameter<"true", "row-wise usage">:$rowwise,
    QS_BoolParameter<"true", "column-wise usage">:$columnwise,
    QS_BoolParameter<"false", "random Hadamard transform of the column-wise data">:$with_rht,
    QS_BoolParameter<"false", "column-wise amax taken after the RHT">:$with_post_rht_amax,
    QS_BoolParameter<"false", "16x16 tiles instead of 1x16 blocks">:$with_2d_quantization,
    QS_BoolParameter<"false", "stochastic rounding of the E2M1 cast">:$stochastic_rounding,
    QS_BoolParameter<"false", "one global amax per row / column">:$row_scaled_nvfp4,
    QS_BoolParameter<"false", "write scales in the GEMM-swizzled layout">:$optimize_for_gemm,
    QS_BoolParameter<"true", "RHT matrix with TE's random signs (sign mask 0xD7E8); false: all signs +1">:$with_random_sign_mask,
    QS_BoolParameter<"false", "4over6: per block, the better of the map-to-6 and map-to-4 encodings">:$nvfp4_use_4over6,
    DefaultValuedParameter<"int64_t", "448", "E, the E4M3 bound of the global scale S_enc = 6 E / G: 448, or 256 with 4over6">:$nvfp4_e4m3_max,
    StringRefParameter<"4over6 block error: \"MAE\" (sum of |error|) or \"MSE\" (sum of error^2)", "\"MAE\"">:$nvfp4_4over6_err_mode);
}

#endif // QS_DIALECT_QS_IR_QSATTRS_TD
