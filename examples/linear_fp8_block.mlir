// A TransformerEngine Linear layer (in 512 features, out 1024, 256 tokens),
// forward and backward, with the Float8BlockScaling recipe: 1x128 blocks for X
// and dY, 128x128 tiles for W, power-of-two FP32 scales (TE forbids 128x128 x
// 128x128 GEMMs; none occurs).
// The forward returns the quantized X and W that TE saves for the backward.
// Usages are as TE sets them by hand: X and W both, dY both.
//
//   fprop  Y  = X  W^T   TE general_gemm(W, X, "TN")
//   dgrad  dX = dY W     TE general_gemm(W, dY, "NN")
//   wgrad  dW = dY^T X   TE general_gemm(X, dY, "NT")

!x = !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_block>
!dy = !qs.tensor<256x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>

func.func @linear_fwd(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>)
    -> (tensor<256x1024xbf16>, !x, !w) {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !x
  %qw = qs.quantize %w : tensor<1024x512xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b : !x, !w -> tensor<256x1024xbf16>
  return %y, %qx, %qw : tensor<256x1024xbf16>, !x, !w
}

func.func @linear_bwd(%dy: tensor<256x1024xbf16>, %qx: !x, %qw: !w)
    -> (tensor<256x512xbf16>, tensor<1024x512xf32>) {
  %qdy = qs.quantize %dy : tensor<256x1024xbf16> -> !dy
  %dx = qs.gemm %qdy, %qw : !dy, !w -> tensor<256x512xbf16>
  %dw = qs.gemm %qdy, %qx transpose_a : !dy, !x -> tensor<1024x512xf32>
  return %dx, %dw : tensor<256x512xbf16>, tensor<1024x512xf32>
}
