// A TransformerEngine Linear layer (in 512 features, out 1024, 256 tokens),
// forward and backward, with the DelayedScaling recipe (HYBRID: E4M3 for X and
// W, E5M2 for dY); each quantize uses the recipe's scale and returns its
// updated amax.
// The forward returns the quantized X and W that TE saves for the backward.
// Usages are as TE sets them by hand: X and W both, dY both.
//
//   fprop  Y  = X  W^T   TE general_gemm(W, X, "TN")
//   dgrad  dX = dY W     TE general_gemm(W, dY, "NN")
//   wgrad  dW = dY^T X   TE general_gemm(X, dY, "NT")

!x = !qs.tensor<256x512xbf16, #qs.fp8_delayed>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_delayed>
!dy = !qs.tensor<256x1024xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2>>
!s = tensor<1xf32>

func.func @linear_fwd(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
                      %scale_x: !s, %amax_x: !s, %scale_w: !s, %amax_w: !s)
    -> (tensor<256x1024xbf16>, !x, !w, !s, !s) {
  %qx, %amax_x_new = qs.quantize %x scale(%scale_x : !s) amax(%amax_x : !s)
      : tensor<256x512xbf16> -> !x, !s
  %qw, %amax_w_new = qs.quantize %w scale(%scale_w : !s) amax(%amax_w : !s)
      : tensor<1024x512xbf16> -> !w, !s
  // TE: fprop with use_split_accumulator = False (fast accumulation),
  // dgrad and wgrad with the split accumulator (FP32).
  %y = qs.gemm %qx, %qw transpose_b fast_accumulate : !x, !w -> tensor<256x1024xbf16>
  return %y, %qx, %qw, %amax_x_new, %amax_w_new : tensor<256x1024xbf16>, !x, !w, !s, !s
}

func.func @linear_bwd(%dy: tensor<256x1024xbf16>, %qx: !x, %qw: !w,
                      %scale_dy: !s, %amax_dy: !s)
    -> (tensor<256x512xbf16>, tensor<1024x512xf32>, !s) {
  %qdy, %amax_dy_new = qs.quantize %dy scale(%scale_dy : !s) amax(%amax_dy : !s)
      : tensor<256x1024xbf16> -> !dy, !s
  %dx = qs.gemm %qdy, %qw : !dy, !w -> tensor<256x512xbf16>
  %dw = qs.gemm %qdy, %qx transpose_a : !dy, !x -> tensor<1024x512xf32>
  return %dx, %dw, %amax_dy_new : tensor<256x512xbf16>, tensor<1024x512xf32>, !s
}
