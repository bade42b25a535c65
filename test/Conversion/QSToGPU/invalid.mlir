// RUN: qs-opt %s --split-input-file --qs-storage-pipeline --convert-qs-to-gpu -verify-diagnostics

func.func @nvfp4_rht_2d(%x: tensor<64x64xbf16>) -> !qs.tensor<64x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>> {
  // expected-error@+1 {{'qs.quantize_buffers' op convert-qs-to-gpu: NVFP4 with both the random Hadamard transform and 2-D quantization is not supported by the GPU kernels yet (the reference lowering convert-qs-to-linalg has it)}}
  %q = qs.quantize %x : tensor<64x64xbf16> -> !qs.tensor<64x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>>
  return %q : !qs.tensor<64x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>>
}

