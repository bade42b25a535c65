// A TransformerEngine Linear layer (in 512 features, out 1024, 256 tokens),
// forward and backward, with the Float8CurrentScaling recipe (HYBRID: E4M3 for
// X and W, E5M2 for dY).
// The forward returns the quantized X and W that TE saves for the backward.
// Usages are as TE sets them by hand: X and W both, dY both.
//
//   fprop  Y  = X  W^T   TE general_gemm(W, X, "TN")
//   dgrad  dX = dY W     TE general_gemm(W, dY, "NN")
//   wgrad  dW = dY^T X   TE general_gemm(X, dY, "NT")

!x = !qs.tensor<256x512xbf16, #qs.fp8_current>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current>
!dy = !qs.tensor<256x1024xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>>

func.func @linear_fwd(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>)
    -> (tensor<256x1024xbf16>, !x, !w) {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !x
  %qw = qs.quantize %w : tensor<1024x512xbf16> -> !w
  // TE: fprop with use_split_accumulator = False (fast accumulation),
  // dgrad and wgrad with the split accumulator (FP32).
  %y = qs.gemm %qx, %qw transpose_b fast_accumulate : !x, !w -> tensor<256x1024xbf16>
  return %y, %qx, %qw : tensor<256x1024xbf16>, !x, !w
}

func.func @linear_bwd(%dy: tensor<256x1024xbf16>, %qx: !x, %qw: !w)
    -> (tensor<256x512xbf16>, tensor<1024x512xf32>) {
  %qdy = qs.quantize %dy : tensor<256x1024xbf16> -> !dy
  %dx = qs.gemm %qdy, %qw : !dy, !w -> tensor<256x512xbf16>
  %dw = qs.gemm %qdy, %qx transpose_a : !dy, !x -> tensor<1024x512xf32>
  return %dx, %dw : tensor<256x512xbf16>, tensor<1024x512xf32>
}
