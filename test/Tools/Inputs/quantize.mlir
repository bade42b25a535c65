func.func @quantize(%x: tensor<64x128xbf16>) -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
  return %q : !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
}
