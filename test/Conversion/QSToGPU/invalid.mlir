// RUN: qs-opt %s --split-input-file --qs-storage-pipeline --convert-qs-to-gpu -verify-diagnostics

func.func @nvfp4_rht_2d(%x: tensor<64x64xbf16>) -> !qs.tensor<64x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>> {
  // expected-error@+1 {{NVFP4 with both the random Hadamard transform and 2-D quantization is not supported by the GPU kernels yet}}
  %q = qs.quantize %x : tensor<64x64xbf16> -> !qs.tensor<64x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>>
  return %q : !qs.tensor<64x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>>
}

// -----

func.func @nvfp4_sr(%x: tensor<64x64xbf16>) -> !qs.tensor<64x64xbf16, #qs.nvfp4<stochastic_rounding = true>> {
  // expected-error@+1 {{NVFP4 stochastic rounding is not supported by the GPU kernels yet}}
  %q = qs.quantize %x : tensor<64x64xbf16> -> !qs.tensor<64x64xbf16, #qs.nvfp4<stochastic_rounding = true>>
  return %q : !qs.tensor<64x64xbf16, #qs.nvfp4<stochastic_rounding = true>>
}


// -----

// Dequantize checks the same rules.
func.func @dequantize_sr(%q: !qs.tensor<64x64xbf16, #qs.nvfp4<stochastic_rounding = true>>) -> tensor<64x64xf32> {
  // expected-error@+1 {{'qs.dequantize_buffers' op convert-qs-to-gpu: NVFP4 stochastic rounding is not supported}}
  %x = qs.dequantize %q : !qs.tensor<64x64xbf16, #qs.nvfp4<stochastic_rounding = true>> -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}
