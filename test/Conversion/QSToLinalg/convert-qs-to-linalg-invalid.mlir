// RUN: qs-opt %s -split-input-file --convert-qs-to-linalg -verify-diagnostics

// Proto-level ops are expanded first.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @proto(%x: tensor<64x128xbf16>) -> !q {
  // expected-error @+1 {{'qs.quantize' is a proto-level op; run qs-expand-storage before convert-qs-to-linalg}}
  %q = qs.quantize %x : tensor<64x128xbf16> -> !q
  return %q : !q
}
