// Cast kernels whose resident blocks (`.minnctapersm`) are not the
// default 4, one representation or layout each (QuantizeKernels.cpp
// residentBlocks: the largest count ptxas 13.0 meets without spills and
// with the same loops, or what shared memory allows).
// quantize-resident-blocks.mlir checks the counts, and
// quantize-resident-blocks-ptxas.test assembles every kernel for sm_90a
// and sm_100a (0 spills).

func.func @fp8_block_1x128_col(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
}

func.func @fp8_block_1x128_row(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
}

func.func @fp8_block_128x128(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.fp8_block<>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_block<>>
  return %q : !qs.tensor<256x512xbf16, #qs.fp8_block<>>
}

func.func @mxfp8_32x32_col(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.mxfp8<with_2d_quantization = true, rowwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.mxfp8<with_2d_quantization = true, rowwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.mxfp8<with_2d_quantization = true, rowwise = false>>
}

func.func @mxfp8_32x32_both(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.mxfp8<with_2d_quantization = true>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.mxfp8<with_2d_quantization = true>>
  return %q : !qs.tensor<256x512xbf16, #qs.mxfp8<with_2d_quantization = true>>
}

func.func @nvfp4_row(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<columnwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<columnwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<columnwise = false>>
}

func.func @nvfp4_col(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<rowwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<rowwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<rowwise = false>>
}

func.func @nvfp4_rht_col(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, rowwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, rowwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, rowwise = false>>
}

func.func @nvfp4_16x16_row(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true, columnwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true, columnwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true, columnwise = false>>
}

func.func @nvfp4_16x16_col(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true, rowwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true, rowwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true, rowwise = false>>
}

func.func @nvfp4_both(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<>>
}

// f16 input: the two kernels that would spill at bf16's counts.
func.func @fp8_block_1x128_col_f16(%x: tensor<256x512xf16>) -> !qs.tensor<256x512xf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>> {
  %q = qs.quantize %x : tensor<256x512xf16> -> !qs.tensor<256x512xf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
  return %q : !qs.tensor<256x512xf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
}

func.func @nvfp4_row_f16(%x: tensor<256x512xf16>) -> !qs.tensor<256x512xf16, #qs.nvfp4<columnwise = false>> {
  %q = qs.quantize %x : tensor<256x512xf16> -> !qs.tensor<256x512xf16, #qs.nvfp4<columnwise = false>>
  return %q : !qs.tensor<256x512xf16, #qs.nvfp4<columnwise = false>>
}

func.func @nvfp4_16x16_both(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true>>
}

func.func @nvfp4_sr_row(%x: tensor<256x512xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true, columnwise = false>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true, columnwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true, columnwise = false>>
}

func.func @nvfp4_sr_col(%x: tensor<256x512xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true, rowwise = false>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true, rowwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true, rowwise = false>>
}

func.func @nvfp4_sr_row_f16(%x: tensor<256x512xf16>, %rng: tensor<2xi64>) -> !qs.tensor<256x512xf16, #qs.nvfp4<stochastic_rounding = true, columnwise = false>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<256x512xf16> -> !qs.tensor<256x512xf16, #qs.nvfp4<stochastic_rounding = true, columnwise = false>>
  return %q : !qs.tensor<256x512xf16, #qs.nvfp4<stochastic_rounding = true, columnwise = false>>
}

func.func @nvfp4_sr_16x16_row(%x: tensor<256x512xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true, with_2d_quantization = true, columnwise = false>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true, with_2d_quantization = true, columnwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true, with_2d_quantization = true, columnwise = false>>
}
