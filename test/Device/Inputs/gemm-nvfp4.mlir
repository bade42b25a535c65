// fprop of a Linear layer with NVFP4 (weights quantized for the GEMM, with
// swizzled scales): on an sm_100a device, the tcgen05 GEMM kernel.
!x = !qs.tensor<256x512xbf16, #qs.nvfp4<columnwise = false>>
!w = !qs.tensor<384x512xbf16, #qs.nvfp4<columnwise = false, optimize_for_gemm = true>>
module attributes {qs.chip = "sm_100a"} {
func.func @fprop(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>)
    -> tensor<256x384xbf16> {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !x
  %qw = qs.quantize %w : tensor<384x512xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b : !x, !w -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
}
