// fprop of a Linear layer with current scaling: both quantizes and the
// sm_90a FP8 GEMM (TMA descriptors encoded by the host code).
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<384x512xbf16, #qs.fp8_current<columnwise = false>>
func.func @fprop(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>,
                 %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !x
  %qw = qs.quantize %w : tensor<384x512xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b bias(%bias : tensor<384xbf16>)
      : !x, !w -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// The same with ping-pong consumers: a persistent grid of min(tiles,
// multiprocessors) blocks, the device's multiprocessors under qs-run.
func.func @fprop_pingpong(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>,
                          %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !x
  %qw = qs.quantize %w : tensor<384x512xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b fast_accumulate bias(%bias : tensor<384xbf16>)
      {qs.gemm_schedule = "pingpong"} : !x, !w -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
