// NVFP4 with the random Hadamard transform and 16x16 tiles together, with
// round-to-nearest and with stochastic rounding, both usages.
// kernel-table.py compiles it for each chip.
func.func @rht_2d(%x: tensor<4096x4096xbf16>) -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>> {
  %q = qs.quantize %x : tensor<4096x4096xbf16> -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>>
  return %q : !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>>
}

func.func @rht_2d_sr(%x: tensor<4096x4096xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true, stochastic_rounding = true>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<4096x4096xbf16> -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true, stochastic_rounding = true>>
  return %q : !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true, stochastic_rounding = true>>
}
