// A TransformerEngine Linear layer with a bias (TE's default, bias=True;
// in 512 features, out 1024, 256 tokens), forward and backward, with the
// MXFP8BlockScaling recipe (E4M3, 1x32 blocks with E8M0 scales).
//
//   fprop  Y  = X W^T + b   TE general_gemm(W, X, "TN", bias=b)
//   dgrad  dX = dY W        TE general_gemm(W, dY, "NN")
//   wgrad  dW = dY^T X      TE general_gemm(X, dY, "NT")
//   bgrad  db = sum of dY over the tokens
//                           TE tex.bgrad_quantize(dY, quantizer): the bias
//                           gradient and the quantized dY from one read
//
// qs.bias_grad sums in a fixed FP32 order (chunks of 32 rows, then the
// chunks; docs/Numerics.md), so the CPU reference and the GPU kernels agree
// bit for bit. On the GPU the quantize of dY computes its chunk sums from
// the tiles it reads anyway (docs/GPU.md, "The bias gradient").

!x = !qs.tensor<256x512xbf16, #qs.mxfp8>
!w = !qs.tensor<1024x512xbf16, #qs.mxfp8>
!dy = !qs.tensor<256x1024xbf16, #qs.mxfp8>

func.func @linear_fwd(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
                      %b: tensor<1024xbf16>) -> (tensor<256x1024xbf16>, !x, !w) {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !x
  %qw = qs.quantize %w : tensor<1024x512xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b bias(%b : tensor<1024xbf16>)
      : !x, !w -> tensor<256x1024xbf16>
  return %y, %qx, %qw : tensor<256x1024xbf16>, !x, !w
}

func.func @linear_bwd(%dy: tensor<256x1024xbf16>, %qx: !x, %qw: !w)
    -> (tensor<256x512xbf16>, tensor<1024x512xf32>, tensor<1024xbf16>) {
  %qdy = qs.quantize %dy : tensor<256x1024xbf16> -> !dy
  %db = qs.bias_grad %dy : tensor<256x1024xbf16> -> tensor<1024xbf16>
  %dx = qs.gemm %qdy, %qw : !dy, !w -> tensor<256x512xbf16>
  %dw = qs.gemm %qdy, %qx transpose_a : !dy, !x -> tensor<1024x512xf32>
  return %dx, %dw, %db : tensor<256x512xbf16>, tensor<1024x512xf32>, tensor<1024xbf16>
}
