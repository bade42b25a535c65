func.func @mxfp8(%x: tensor<64x128xbf16>) -> !qs.tensor<64x128xbf16, #qs.mxfp8<>> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<>>
  return %q : !qs.tensor<64x128xbf16, #qs.mxfp8<>>
}

func.func @delayed(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %a: tensor<1xf32>)
    -> (!qs.tensor<64x128xbf16, #qs.fp8_delayed<>>, tensor<1xf32>) {
  %q, %m = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.fp8_delayed<>>, tensor<1xf32>
  return %q, %m : !qs.tensor<64x128xbf16, #qs.fp8_delayed<>>, tensor<1xf32>
}

// Returning %q keeps both usages (qs-infer-usage would drop the column-wise
// one, and its RHT, if only the dequantize used %q).
func.func @roundtrip(%x: tensor<64x128xbf16>)
    -> (!qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>, tensor<64x128xf32>) {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
  %y = qs.dequantize %q : !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>> -> tensor<64x128xf32>
  return %q, %y : !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>, tensor<64x128xf32>
}
