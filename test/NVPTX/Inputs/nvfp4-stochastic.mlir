// NVFP4 with stochastic rounding (codes rounded with Philox4x32-10 random
// words, StochasticRounding.h): 1-D and 2-D blocks, RHT, both usages.
// kernel-table.py compiles it for each chip.
func.func @sr(%x: tensor<4096x4096xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<stochastic_rounding = true>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<4096x4096xbf16> -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<stochastic_rounding = true>>
  return %q : !qs.tensor<4096x4096xbf16, #qs.nvfp4<stochastic_rounding = true>>
}

func.func @sr_2d(%x: tensor<4096x4096xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true, stochastic_rounding = true>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<4096x4096xbf16> -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true, stochastic_rounding = true>>
  return %q : !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true, stochastic_rounding = true>>
}

func.func @sr_rht(%x: tensor<4096x4096xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<4096x4096xbf16> -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>>
  return %q : !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, stochastic_rounding = true>>
}
