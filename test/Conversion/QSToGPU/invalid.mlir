// RUN: qs-opt %s --split-input-file --qs-storage-pipeline --convert-qs-to-gpu -verify-diagnostics

func.func @mxfp8_2d(%x: tensor<64x64xbf16>) -> !qs.tensor<64x64xbf16, #qs.mxfp8<with_2d_quantization = true>> {
  // expected-error@+1 {{'qs.quantize_buffers' op convert-qs-to-gpu: MXFP8 2-D quantization is not supported by the GPU kernels yet (the reference lowering convert-qs-to-linalg has it)}}
  %q = qs.quantize %x : tensor<64x64xbf16> -> !qs.tensor<64x64xbf16, #qs.mxfp8<with_2d_quantization = true>>
  return %q : !qs.tensor<64x64xbf16, #qs.mxfp8<with_2d_quantization = true>>
}

// -----

func.func @block_2d(%x: tensor<128x128xbf16>) -> !qs.tensor<128x128xbf16, #qs.fp8_block<>> {
  // expected-error@+1 {{FP8 block scaling with 128x128 blocks (block_scaling_dim = 2) is not supported by the GPU kernels yet}}
  %q = qs.quantize %x : tensor<128x128xbf16> -> !qs.tensor<128x128xbf16, #qs.fp8_block<>>
  return %q : !qs.tensor<128x128xbf16, #qs.fp8_block<>>
}

// -----

func.func @nvfp4_2d(%x: tensor<64x64xbf16>) -> !qs.tensor<64x64xbf16, #qs.nvfp4<with_2d_quantization = true>> {
  // expected-error@+1 {{NVFP4 2-D quantization is not supported by the GPU kernels yet}}
  %q = qs.quantize %x : tensor<64x64xbf16> -> !qs.tensor<64x64xbf16, #qs.nvfp4<with_2d_quantization = true>>
  return %q : !qs.tensor<64x64xbf16, #qs.nvfp4<with_2d_quantization = true>>
}

// -----

func.func @nvfp4_rht(%x: tensor<64x64xbf16>) -> !qs.tensor<64x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>> {
  // expected-error@+1 {{NVFP4 with the random Hadamard transform is not supported by the GPU kernels yet}}
  %q = qs.quantize %x : tensor<64x64xbf16> -> !qs.tensor<64x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
  return %q : !qs.tensor<64x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
}

// -----

func.func @nvfp4_row_scaled(%x: tensor<64x64xbf16>) -> !qs.tensor<64x64xbf16, #qs.nvfp4<row_scaled_nvfp4 = true>> {
  // expected-error@+1 {{row-scaled NVFP4 is not supported by the GPU kernels yet}}
  %q = qs.quantize %x : tensor<64x64xbf16> -> !qs.tensor<64x64xbf16, #qs.nvfp4<row_scaled_nvfp4 = true>>
  return %q : !qs.tensor<64x64xbf16, #qs.nvfp4<row_scaled_nvfp4 = true>>
}

// -----

func.func @nvfp4_sr(%x: tensor<64x64xbf16>) -> !qs.tensor<64x64xbf16, #qs.nvfp4<stochastic_rounding = true>> {
  // expected-error@+1 {{NVFP4 stochastic rounding is not supported by the GPU kernels yet}}
  %q = qs.quantize %x : tensor<64x64xbf16> -> !qs.tensor<64x64xbf16, #qs.nvfp4<stochastic_rounding = true>>
  return %q : !qs.tensor<64x64xbf16, #qs.nvfp4<stochastic_rounding = true>>
}

// -----

// Dequantize checks the same rules.
func.func @dequantize_2d(%q: !qs.tensor<64x64xbf16, #qs.mxfp8<with_2d_quantization = true>>) -> tensor<64x64xf32> {
  // expected-error@+1 {{'qs.dequantize_buffers' op convert-qs-to-gpu: MXFP8 2-D quantization is not supported}}
  %x = qs.dequantize %q : !qs.tensor<64x64xbf16, #qs.mxfp8<with_2d_quantization = true>> -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}

