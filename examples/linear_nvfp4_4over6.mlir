// A TransformerEngine Linear layer (in 512 features, out 1024, 256 tokens),
// forward and backward, with the NVFP4BlockScaling recipe's 4over6 option on
// every tensor (nvfp4_4over6 = "all"; TE then needs disable_rht and
// disable_stochastic_rounding): each 16-block, or 16x16 tile of W, keeps the
// better of its map-to-6 and map-to-4 encodings. X and dY with the 4/6
// paper's E4M3 bound 256 and the MAE error, W with 16x16 tiles, the 448
// bound and the MSE error (every operand's amax / 6E enters the GEMMs).
// The forward returns the quantized X and W that TE saves for the backward.
// Usages are as TE sets them by hand: X and W both, dY both.
//
//   fprop  Y  = X  W^T   TE general_gemm(W, X, "TN")
//   dgrad  dX = dY W     TE general_gemm(W, dY, "NN")
//   wgrad  dW = dY^T X   TE general_gemm(X, dY, "NT")

!x = !qs.tensor<256x512xbf16, #qs.nvfp4<nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256>>
!w = !qs.tensor<1024x512xbf16, #qs.nvfp4<with_2d_quantization = true, nvfp4_use_4over6 = true, nvfp4_4over6_err_mode = "MSE">>
!dy = !qs.tensor<256x1024xbf16, #qs.nvfp4<nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256>>

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
