// NVFP4 4over6 (both candidates per block, the better kept), both usages:
// 1x16 blocks with the MAE error and E = 448, 16x16 tiles with the MSE
// error and E = 256. kernel-table.py compiles it for each chip.
func.func @fos_1d(%x: tensor<4096x4096xbf16>) -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<nvfp4_use_4over6 = true>> {
  %q = qs.quantize %x : tensor<4096x4096xbf16> -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<nvfp4_use_4over6 = true>>
  return %q : !qs.tensor<4096x4096xbf16, #qs.nvfp4<nvfp4_use_4over6 = true>>
}

func.func @fos_2d(%x: tensor<4096x4096xbf16>) -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true, nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256, nvfp4_4over6_err_mode = "MSE">> {
  %q = qs.quantize %x : tensor<4096x4096xbf16> -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true, nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256, nvfp4_4over6_err_mode = "MSE">>
  return %q : !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true, nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256, nvfp4_4over6_err_mode = "MSE">>
}
