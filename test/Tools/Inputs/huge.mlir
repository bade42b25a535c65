// A function whose tensors (2^40 elements) no CPU can hold: qs-run refuses
// it before compiling instead of failing an allocation.
func.func @huge() -> tensor<1048576x1048576xf32> {
  %q = qs.empty : !qs.tensor<1048576x1048576xbf16, #qs.mxfp8>
  %d = qs.dequantize %q : !qs.tensor<1048576x1048576xbf16, #qs.mxfp8> -> tensor<1048576x1048576xf32>
  return %d : tensor<1048576x1048576xf32>
}

func.func @small() -> tensor<64x128xf32> {
  %q = qs.empty : !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
  %d = qs.dequantize %q : !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> -> tensor<64x128xf32>
  return %d : tensor<64x128xf32>
}
