// RUN: qs-opt %s -split-input-file -verify-diagnostics

// Rank 0 is not allowed.
// expected-error @+1 {{!qs.tensor must have rank >= 1 (TE folds a 0-D tensor to 1x1: write it as 1x1)}}
func.func private @rank0(!qs.tensor<bf16, #qs.fp8_current>)

// -----

// Shapes are static.
// expected-error @+1 {{!qs.tensor needs a static shape, dimension 1 is dynamic}}
func.func private @dynamic(!qs.tensor<4x?xbf16, #qs.fp8_current>)

// -----

// Sizes are positive.
// expected-error @+1 {{!qs.tensor dimension 0 must be positive, got 0}}
func.func private @zero(!qs.tensor<0x8xbf16, #qs.fp8_current>)

// -----

// The element count is bounded so that layout arithmetic cannot overflow.
// expected-error @+1 {{!qs.tensor may hold at most 2^48 elements}}
func.func private @huge(!qs.tensor<4294967296x4294967296xbf16, #qs.fp8_current>)

// -----

// The nominal element type is a high-precision float.
// expected-error @+1 {{!qs.tensor nominal element type must be bf16, f16 or f32, got 'f64'}}
func.func private @f64(!qs.tensor<4x8xf64, #qs.fp8_current>)

// -----

// The second parameter must be a quantizer.
// expected-error @+1 {{expected a quantizer attribute (#qs.fp8_delayed, #qs.fp8_current, #qs.mxfp8, #qs.fp8_block or #qs.nvfp4), got "mxfp8"}}
func.func private @not_a_quantizer(!qs.tensor<4x8xbf16, "mxfp8">)

// -----

// The comma between element type and quantizer is required.
// expected-error @+1 {{expected ','}}
func.func private @missing_comma(!qs.tensor<4x8xbf16 #qs.fp8_current>)

// -----

// MXFP8: K must be a multiple of 32.
// expected-error @+1 {{MXFP8 needs the last dimension K to be a multiple of 32, got K = 100}}
func.func private @mxfp8_k(!qs.tensor<64x100xbf16, #qs.mxfp8>)

// -----

// MXFP8: M (the product of the leading dimensions) must be a multiple of 32.
// expected-error @+1 {{MXFP8 needs the product of the leading dimensions M to be a multiple of 32, got M = 48}}
func.func private @mxfp8_m(!qs.tensor<3x16x64xbf16, #qs.mxfp8>)

// -----

// NVFP4: K must be a multiple of 16.
// expected-error @+1 {{NVFP4 needs the last dimension K to be a multiple of 16, got K = 40}}
func.func private @nvfp4_k(!qs.tensor<64x40xbf16, #qs.nvfp4>)

// -----

// NVFP4: a 1-D tensor has M = 1, not a multiple of 16.
// expected-error @+1 {{NVFP4 needs the product of the leading dimensions M to be a multiple of 16, got M = 1}}
func.func private @nvfp4_1d(!qs.tensor<64xbf16, #qs.nvfp4>)

// -----

// NVFP4 with RHT needs bf16 input.
// expected-error @+1 {{NVFP4 with_rht requires a bf16 nominal element type (TE's RHT kernels take bf16), got 'f32'}}
func.func private @rht_f32(!qs.tensor<64x128xf32, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>)
