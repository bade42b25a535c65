// Every update_usage that creates a representation (per-tensor FP8 E4M3 /
// E5M2 transposes of aligned and odd shapes, 128x128 block FP8, 16x16 NVFP4
// with compact and GEMM-swizzled scales); kernel-table.py compiles it for
// each chip (on sm_100a per-tensor FP8 keeps no transpose: nothing to
// create, no kernel).
func.func @fp8(%q: !qs.tensor<4096x4096xbf16, #qs.fp8_current<columnwise = false>>) -> !qs.tensor<4096x4096xbf16, #qs.fp8_current<>> {
  %r = qs.update_usage %q : !qs.tensor<4096x4096xbf16, #qs.fp8_current<columnwise = false>> -> !qs.tensor<4096x4096xbf16, #qs.fp8_current<>>
  return %r : !qs.tensor<4096x4096xbf16, #qs.fp8_current<>>
}
func.func @fp8_odd(%q: !qs.tensor<5x33xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2, columnwise = false>>) -> !qs.tensor<5x33xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2>> {
  %r = qs.update_usage %q : !qs.tensor<5x33xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2, columnwise = false>> -> !qs.tensor<5x33xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2>>
  return %r : !qs.tensor<5x33xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2>>
}
func.func @block(%q: !qs.tensor<4096x4096xbf16, #qs.fp8_block<columnwise = false>>) -> !qs.tensor<4096x4096xbf16, #qs.fp8_block<>> {
  %r = qs.update_usage %q : !qs.tensor<4096x4096xbf16, #qs.fp8_block<columnwise = false>> -> !qs.tensor<4096x4096xbf16, #qs.fp8_block<>>
  return %r : !qs.tensor<4096x4096xbf16, #qs.fp8_block<>>
}
func.func @nvfp4(%q: !qs.tensor<4096x4096xbf16, #qs.nvfp4<columnwise = false, with_2d_quantization = true>>) -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true>> {
  %r = qs.update_usage %q : !qs.tensor<4096x4096xbf16, #qs.nvfp4<columnwise = false, with_2d_quantization = true>> -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true>>
  return %r : !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true>>
}
func.func @nvfp4_swizzled(%q: !qs.tensor<4096x4096xbf16, #qs.nvfp4<columnwise = false, with_2d_quantization = true, optimize_for_gemm = true>>) -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true, optimize_for_gemm = true>> {
  %r = qs.update_usage %q : !qs.tensor<4096x4096xbf16, #qs.nvfp4<columnwise = false, with_2d_quantization = true, optimize_for_gemm = true>> -> !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true, optimize_for_gemm = true>>
  return %r : !qs.tensor<4096x4096xbf16, #qs.nvfp4<with_2d_quantization = true, optimize_for_gemm = true>>
}
