// RUN: qs-opt %s -split-input-file -verify-diagnostics

// A quantizer must keep at least one representation.
// expected-error @+1 {{at least one of rowwise and columnwise must be true}}
func.func private @no_usage(!qs.tensor<4x8xbf16, #qs.fp8_current<rowwise = false, columnwise = false>>)

// -----

// FP8 data must be E4M3 or E5M2.
// expected-error @+1 {{fp8_dtype must be f8E4M3FN or f8E5M2, got 'f8E4M3FNUZ'}}
func.func private @bad_fp8_dtype(!qs.tensor<4x8xbf16, #qs.mxfp8<fp8_dtype = f8E4M3FNUZ>>)

// -----

// The epsilon must not be negative.
// expected-error @+1 {{amax_epsilon must be finite and >= 0}}
func.func private @negative_epsilon(!qs.tensor<4x8xbf16, #qs.fp8_current<amax_epsilon = -1.0>>)

// -----

// The epsilon must be finite (0x7F800000 is +inf).
// expected-error @+1 {{amax_epsilon must be finite and >= 0}}
func.func private @inf_epsilon(!qs.tensor<4x8xbf16, #qs.fp8_block<amax_epsilon = 0x7F800000>>)

// -----

// The epsilon is a float literal.
// expected-error @+3 {{unexpected decimal integer literal for a floating point value}}
// expected-note @+2 {{add a trailing dot to make the literal a float}}
// expected-error @+1 {{failed to parse QS_Fp8CurrentAttr parameter 'amax_epsilon'}}
func.func private @int_epsilon(!qs.tensor<4x8xbf16, #qs.fp8_current<amax_epsilon = 1>>)

// -----

// Block scaling is 1-D or 2-D.
// expected-error @+1 {{block_scaling_dim must be 1 (1x128 blocks) or 2 (128x128 tiles), got 3}}
func.func private @bad_block_dim(!qs.tensor<4x8xbf16, #qs.fp8_block<block_scaling_dim = 3>>)

// -----

// NVFP4: the RHT needs the post-RHT amax.
// expected-error @+1 {{with_rht requires with_post_rht_amax = true (TE computes the column-wise amax after the RHT)}}
func.func private @rht_without_amax(!qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true>>)

// -----

// NVFP4: row-scaling excludes RHT, 2-D and stochastic rounding.
// expected-error @+1 {{row_scaled_nvfp4 excludes with_rht, with_2d_quantization and stochastic_rounding}}
func.func private @row_scaled_2d(!qs.tensor<64x128xbf16, #qs.nvfp4<row_scaled_nvfp4 = true, with_2d_quantization = true>>)

// -----

// NVFP4 4over6: E is 448 or 256 ...
// expected-error @+1 {{nvfp4_e4m3_max must be 448 or 256, got 512}}
func.func private @e4m3_max_512(!qs.tensor<64x128xbf16, #qs.nvfp4<nvfp4_use_4over6 = true, nvfp4_e4m3_max = 512>>)

// -----

// ... and 256 only with 4over6.
// expected-error @+1 {{nvfp4_e4m3_max = 256 requires nvfp4_use_4over6 = true (TE uses 448 without 4over6)}}
func.func private @e4m3_max_without_4over6(!qs.tensor<64x128xbf16, #qs.nvfp4<nvfp4_e4m3_max = 256>>)

// -----

// The block error is MAE or MSE.
// expected-error @+1 {{nvfp4_4over6_err_mode must be "MAE" or "MSE", got "mse"}}
func.func private @err_mode(!qs.tensor<64x128xbf16, #qs.nvfp4<nvfp4_use_4over6 = true, nvfp4_4over6_err_mode = "mse">>)

// -----

// 4over6 excludes RHT and stochastic rounding.
// expected-error @+1 {{nvfp4_use_4over6 excludes with_rht and stochastic_rounding (TE's 4over6 kernels have neither)}}
func.func private @four_over_six_rht(!qs.tensor<64x128xbf16, #qs.nvfp4<nvfp4_use_4over6 = true, with_rht = true, with_post_rht_amax = true>>)

// -----

// Unknown keys are rejected.
// expected-error @+1 {{duplicate or unknown struct parameter name: block_size}}
func.func private @unknown_key(!qs.tensor<64x128xbf16, #qs.mxfp8<block_size = 32>>)

// -----

// The chip must be a known form of NVIDIA chip name.
// expected-error @+1 {{'qs.chip' must be a string naming an NVIDIA chip as sm_<major><minor>[a|f], e.g. "sm_90a" or "sm_100a", got "gfx942"}}
module attributes {qs.chip = "gfx942"} {}

// -----

// The GEMM tile width is 128, 192 or 256.
// expected-error @+1 {{'qs.gemm_tile_n' must be the integer 128, 192 or 256 (the GEMM kernels' tile width in N), got 64 : i64}}
module attributes {qs.gemm_tile_n = 64 : i64} {}

// -----

// expected-error @+1 {{'qs.gemm_tile_n' must be the integer 128, 192 or 256 (the GEMM kernels' tile width in N), got "wide"}}
module attributes {qs.gemm_tile_n = "wide"} {}

// -----

// The persistent GEMM kernels run on at least one block.
// expected-error @+1 {{'qs.gemm_persistent' must be an i64 of at least 1 (the number of blocks of the persistent GEMM kernels), got 0 : i64}}
module attributes {qs.gemm_persistent = 0 : i64} {}

// -----

// expected-error @+1 {{'qs.gemm_persistent' must be an i64 of at least 1 (the number of blocks of the persistent GEMM kernels), got true}}
module attributes {qs.gemm_persistent = true} {}

// -----

// GEMM clusters are pairs or single blocks.
// expected-error @+1 {{'qs.gemm_cluster' must be the i64 1 or 2 (blocks per GEMM cluster sharing B by TMA multicast), got 4 : i64}}
module attributes {qs.gemm_cluster = 4 : i64} {}

// -----

// GEMM consumer schedules are named.
// expected-error @+1 {{'qs.gemm_schedule' must be the string "cooperative" or "pingpong" (how the GEMM kernel's consumer warpgroups share the output tiles), got "stream-k"}}
module attributes {qs.gemm_schedule = "stream-k"} {}

// -----

// Other qs.* discardable attributes are unknown.
// expected-error @+1 {{unknown qs dialect attribute 'qs.target'}}
module attributes {qs.target = "sm_90a"} {}

// -----

// qs.inner names an inner tensor.
// expected-error @+1 {{'qs.inner' on an argument must name an inner tensor (a string), got 3 : i64}}
func.func private @inner_not_string(tensor<4xf32> {qs.inner = 3})

// -----

// qs.origin is a non-negative i64 index.
// expected-error @+1 {{'qs.origin' on a result must be a non-negative i64 index, got -1 : i64}}
func.func private @origin_negative() -> (tensor<4xf32> {qs.origin = -1 : i64})

// -----

// qs.type is a quantized type.
// expected-error @+1 {{'qs.type' on an argument must be a !qs.tensor type, got tensor<4xf32>}}
func.func private @type_not_quantized(tensor<4xf32> {qs.type = tensor<4xf32>})

// -----

// Other qs.* argument attributes are unknown.
// expected-error @+1 {{unknown qs dialect attribute 'qs.name' on an argument}}
func.func private @unknown_arg_attr(tensor<4xf32> {qs.name = "x"})

// -----

// GEMM epilogues are named.
// expected-error @+1 {{'qs.gemm_epilogue' must be the string "direct" or "tma" (how the GEMM kernels store their output), got "stmatrix"}}
module attributes {qs.gemm_epilogue = "stmatrix"} {}

// -----

// When the GEMM kernels load block scales is named.
// expected-error @+1 {{'qs.gemm_scale_loads' must be the string "ahead" or "in_tile" (when the GEMM kernels load block scales: a k-tile ahead, or in the k-tile that uses them), got "early"}}
module attributes {qs.gemm_scale_loads = "early"} {}

// -----

// When the GEMM kernels promote partial sums is named.
// expected-error @+1 {{'qs.gemm_promotion' must be the string "overlapped" or "in_tile" (when the GEMM kernels promote a k-tile's partial sums: while the next k-tile's wgmmas run, or within the k-tile), got "late"}}
module attributes {qs.gemm_promotion = "late"} {}

// -----

// How the sm_90a GEMM kernel applies MXFP8 block scales is named.
// expected-error @+1 {{'qs.gemm_mx_scaling' must be one of the strings "promote", "convert" or "dequantize" (how the sm_90a GEMM kernel applies MXFP8 block scales: FP8 wgmma promoted per 32-block, codes times scales converted to bf16 in the kernel, or dequantized to bf16 by pre-pass kernels), got "bf16"}}
module attributes {qs.gemm_mx_scaling = "bf16"} {}

// -----

// The quantize kernels' store strategies are named.
// expected-error @+1 {{'qs.quantize_stores' must be the string "coalesced" or "direct" (how the quantize kernels store codes), got "staged"}}
func.func @f() attributes {qs.quantize_stores = "staged"} {
  return
}

// -----

// Split-K takes a positive number of K ranges.
// expected-error @+1 {{'qs.gemm_split_k' must be an i64 of at least 1 (the number of ranges of K the GEMM kernels split each output tile's sum into), the string "auto" (the kernels' cost model picks it) or the string "stream" (stream-K: persistent blocks share the last tiles' k-tiles evenly), got 0 : i64}}
module attributes {qs.gemm_split_k = 0 : i64} {}

// -----

// expected-error @+1 {{'qs.gemm_split_k' must be an i64 of at least 1 (the number of ranges of K the GEMM kernels split each output tile's sum into), the string "auto" (the kernels' cost model picks it) or the string "stream" (stream-K: persistent blocks share the last tiles' k-tiles evenly), got 2 : i32}}
module attributes {qs.gemm_split_k = 2 : i32} {}

// -----

// The strings split-K takes are "auto" and "stream".
// expected-error @+1 {{'qs.gemm_split_k' must be an i64 of at least 1 (the number of ranges of K the GEMM kernels split each output tile's sum into), the string "auto" (the kernels' cost model picks it) or the string "stream" (stream-K: persistent blocks share the last tiles' k-tiles evenly), got "max"}}
module attributes {qs.gemm_split_k = "max"} {}

// -----

// Split-K's planes are summed by a second kernel or in the GEMM kernel.
// expected-error @+1 {{'qs.gemm_split_k_reduce' must be the string "kernel" or "fused" (who sums split-K's partial results: a second kernel, or each tile's last work unit), got "atomic"}}
module attributes {qs.gemm_split_k = 2 : i64, qs.gemm_split_k_reduce = "atomic"} {}
